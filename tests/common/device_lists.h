// Tensor lists over test tensors (the foreach and optimiser harnesses).
#pragma once

#include <memory>
#include <vector>

#include "core/tensor.h"  // the descriptors' fields
#include "test_util.h"

namespace opsnn::test {

// A tensor list holding copies of the descriptors (the list owns its elements).
inline std::shared_ptr<aclTensorList> list_of(const std::vector<std::unique_ptr<DeviceTensor>> &ts) {
  std::vector<aclTensor *> copies;
  for (const auto &d : ts) {
    const aclTensor *t = d->get();
    copies.push_back(aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset,
                                     t->format, t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data));
  }
  return std::shared_ptr<aclTensorList>(aclCreateTensorList(copies.data(), copies.size()),
                                        [](aclTensorList *l) { aclDestroyTensorList(l); });
}

}  // namespace opsnn::test

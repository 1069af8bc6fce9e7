// What every benchmark program shares: the runtime initialised once, with one stream.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace opsnn::bench {

struct Env {
  aclrtStream stream = nullptr;
  Env() {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);
  }
};
inline Env &env() {
  static Env e;
  return e;
}

// A contiguous ND tensor of `shape` over the device buffer p.
inline aclTensor *contiguous_tensor(const std::vector<int64_t> &shape, aclDataType dt, void *p) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return aclCreateTensor(shape.data(), shape.size(), dt, strides.data(), 0, ACL_FORMAT_ND, &n, 1, p);
}

}  // namespace opsnn::bench

// Tensors of the pooling and resize harnesses (tests/ops/test_op_table_pool.cpp,
// test_op_table_resize.cpp): logical dims (n, c, d, h, w) in one of the layouts they test, read and
// written in planar (n, c, d, h, w) order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "test_util.h"

namespace opsnn::test {

// How a tensor is laid out: contiguous; an NCHW-format view with channels-last strides (+ offset);
// a view with the last two dims transposed in memory (+ offset); contiguous NHWC / NDHWC format;
// contiguous strides doubled (+ offset: a padded output).
enum class Layout { kContig, kClView, kTransposed, kClFormat, kPadded };

// A device tensor with logical dims (n, c, d, h, w): its physical dims follow its format.
struct T5 {
  std::unique_ptr<DeviceTensor> dev;
  aclTensor *fmt = nullptr;  // the NHWC / NDHWC descriptor over dev's memory
  std::vector<int> perm;     // logical index of each physical dim
  int64_t l5[5] = {1, 1, 1, 1, 1};
  ~T5() {
    if (fmt != nullptr) aclDestroyTensor(fmt);
  }
  aclTensor *get() const { return fmt != nullptr ? fmt : dev->get(); }
  size_t phys_linear(const int64_t *idx5) const {
    int64_t lin = 0;
    for (int p : perm) lin = lin * l5[p] + idx5[p];
    return static_cast<size_t>(lin);
  }
  template <class F>
  void each(const F &f) const {  // f(planar index, physical row-major index)
    int64_t i5[5], k = 0;
    for (i5[0] = 0; i5[0] < l5[0]; ++i5[0])
      for (i5[1] = 0; i5[1] < l5[1]; ++i5[1])
        for (i5[2] = 0; i5[2] < l5[2]; ++i5[2])
          for (i5[3] = 0; i5[3] < l5[3]; ++i5[3])
            for (i5[4] = 0; i5[4] < l5[4]; ++i5[4]) f(static_cast<size_t>(k++), phys_linear(i5));
  }
  std::vector<double> planar() const {
    const auto v = dev->values();
    std::vector<double> out(v.size());
    each([&](size_t pl, size_t ph) { out[pl] = v[ph]; });
    return out;
  }
  void set_planar(const std::vector<double> &pv) {
    std::vector<double> v(pv.size());
    each([&](size_t pl, size_t ph) { v[ph] = pv[pl]; });
    dev->set_values(v);
  }
};

inline std::unique_ptr<T5> make_t5(const int64_t *l5, int nsp, bool batched, aclDataType dt, Layout lay) {
  auto t = std::make_unique<T5>();
  std::copy(l5, l5 + 5, t->l5);
  const bool clf = lay == Layout::kClFormat && nsp >= 2;  // NHWC / NDHWC (a 1-D op has none)
  if (batched) t->perm.push_back(0);
  if (!clf) t->perm.push_back(1);
  for (int i = 0; i < nsp; ++i) t->perm.push_back(2 + 3 - nsp + i);
  if (clf) t->perm.push_back(1);
  std::vector<int64_t> shape;
  for (int p : t->perm) shape.push_back(l5[p]);
  const int nd = static_cast<int>(shape.size());
  std::vector<int64_t> st = contiguous_strides(shape);
  int64_t offset = 0, storage = 0;
  if (lay == Layout::kClView) {  // memory order: n, spatial..., c
    std::vector<int> order;
    if (batched) order.push_back(0);
    for (int i = batched ? 2 : 1; i < nd; ++i) order.push_back(i);
    order.push_back(batched ? 1 : 0);
    int64_t s = 1;
    for (int i = nd - 1; i >= 0; --i) {
      st[static_cast<size_t>(order[static_cast<size_t>(i)])] = s;
      s *= shape[static_cast<size_t>(order[static_cast<size_t>(i)])];
    }
    offset = 3;
    storage = s + 3;
  } else if (lay == Layout::kTransposed) {
    std::vector<int64_t> swapped = shape;
    std::swap(swapped[static_cast<size_t>(nd - 1)], swapped[static_cast<size_t>(nd - 2)]);
    st = contiguous_strides(swapped);
    std::swap(st[static_cast<size_t>(nd - 1)], st[static_cast<size_t>(nd - 2)]);
    offset = 2;
    storage = numel_of(shape) + 2;
  } else if (lay == Layout::kPadded) {
    for (auto &s : st) s *= 2;
    offset = 1;
    storage = 2 * numel_of(shape) + 1;
  }
  t->dev = std::make_unique<DeviceTensor>(shape, dt, st, offset, storage);
  if (clf) {
    int64_t se = std::max<int64_t>(numel_of(shape), 1);
    t->fmt = aclCreateTensor(shape.data(), shape.size(), dt, st.data(), 0, nsp == 2 ? ACL_FORMAT_NHWC : ACL_FORMAT_NDHWC,
                             &se, 1, t->dev->data());
  }
  return t;
}

}  // namespace opsnn::test

// The element walk shared by the optimiser kernels (adam, sgd): every element of a strided state
// shape, in parallel chunks of the row-major order, with the element offset of each operand.
#pragma once

#include <algorithm>
#include <cstdint>

#include "acl/acl_base.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {

constexpr int kOptimMaxDims = 8;

// Calls body(off) for every element, off[k] = the element offset of operand k (strides[k]). Walks
// runs along the innermost dim: the offsets are computed once per run and then stepped, so the
// per-element cost is the body's (computing every offset from the full index per element made
// FusedSgd 2.4x slower, 0.81x torch's foreach step instead of 2.8x).
template <int K, class Body>
void for_each_state_element(int ndim, const int64_t *dims, int64_t numel, const int64_t (*strides)[kOptimMaxDims],
                            const Body &body) {
  core::parallel_for(numel, 4096, [&](int64_t i0, int64_t i1) {
    if (ndim == 0) {  // a 0-d tensor: one element at offset 0
      const int64_t off[K] = {};
      for (int64_t i = i0; i < i1; ++i) body(off);
      return;
    }
    const int last = ndim - 1;
    int64_t idx[kOptimMaxDims] = {};
    int64_t rem = i0;
    for (int d = last; d >= 0; --d) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
    }
    int64_t step[K] = {};
    for (int k = 0; k < K; ++k) step[k] = strides[k][last];
    for (int64_t i = i0; i < i1;) {
      int64_t off[K] = {};
      for (int k = 0; k < K; ++k)
        for (int d = 0; d < ndim; ++d) off[k] += idx[d] * strides[k][d];
      const int64_t run = std::min(dims[last] - idx[last], i1 - i);
      for (int64_t j = 0; j < run; ++j) {
        body(off);
        for (int k = 0; k < K; ++k) off[k] += step[k];
      }
      i += run;
      idx[last] = 0;  // the next run starts a row: advance the outer index
      for (int d = last - 1; d >= 0; --d) {
        if (++idx[d] < dims[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// Element reads / writes as double: any dtype through the conversion table, or FLOAT directly (the
// common case, which then costs no per-element dispatch). Kernels call with_state_io(dtype, body) and write
// body as a generic lambda over the io.
struct AnyStateIo {
  aclDataType dt;
  double load(const char *base, int64_t off) const { return load_one(dt, base, off); }
  void store(double v, char *base, int64_t off) const { store_one(v, dt, base, off); }
};
struct FloatStateIo {
  double load(const char *base, int64_t off) const { return reinterpret_cast<const float *>(base)[off]; }
  void store(double v, char *base, int64_t off) const { reinterpret_cast<float *>(base)[off] = static_cast<float>(v); }
};
template <class Body>
void with_state_io(aclDataType dt, const Body &body) {
  if (dt == ACL_FLOAT)
    body(FloatStateIo{});
  else
    body(AnyStateIo{dt});
}

}  // namespace opsnn::kernels

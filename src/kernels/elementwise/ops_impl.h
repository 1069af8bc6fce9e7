// Instantiates every listed functor as a contiguous kernel for each compute type. Included by one
// translation unit per ISA (ops_portable.cpp, ops_avx2.cpp, ...), each compiled with its own flags
// and inside its own namespace, so the same source vectorises for every instruction set.
#pragma once

#include "kernels/elementwise/functors/all.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::kernels::OPSNN_EW_NAMESPACE {

template <class Op, class T>
void contig(int64_t n, void *out_v, const void *const *in, const OpScalars &s) {
  T *__restrict out = static_cast<T *>(out_v);
  Scalars<T> p;
  for (int k = 0; k < 3; ++k) {
    if constexpr (std::is_integral_v<T>) p.v[k] = static_cast<T>(s.i[k]);
    else p.v[k] = static_cast<T>(s.f[k]);
  }
  if constexpr (Op::arity == 0) {
    for (int64_t k = 0; k < n; ++k) out[k] = Op::apply(T(0), T(0), T(0), p);
  } else if constexpr (Op::arity == 1) {
    const T *a = static_cast<const T *>(in[0]);
    // An op whose fast formula is not valid everywhere (e.g. sin of |x| >= 2^20) declares
    // needs_exact(x) / apply_exact(x, s): a chunk holding such an element is computed element by
    // element on the exact path (reading a[k] before writing out[k], so in-place is fine).
    if constexpr (requires(T v) { Op::needs_exact(v); }) {
      int any = 0;  // an int reduction, so the scan vectorises
      for (int64_t k = 0; k < n; ++k) any |= static_cast<int>(Op::needs_exact(a[k]));
      if (any != 0) {
        for (int64_t k = 0; k < n; ++k) {
          const T x = a[k];
          out[k] = Op::needs_exact(x) ? Op::apply_exact(x, p) : Op::apply(x, T(0), T(0), p);
        }
        return;
      }
    }
    for (int64_t k = 0; k < n; ++k) out[k] = Op::apply(a[k], T(0), T(0), p);
  } else if constexpr (Op::arity == 2) {
    const T *a = static_cast<const T *>(in[0]);
    const T *b = static_cast<const T *>(in[1]);
    for (int64_t k = 0; k < n; ++k) out[k] = Op::apply(a[k], b[k], T(0), p);
  } else {
    const T *a = static_cast<const T *>(in[0]);
    const T *b = static_cast<const T *>(in[1]);
    const T *c = static_cast<const T *>(in[2]);
    for (int64_t k = 0; k < n; ++k) out[k] = Op::apply(a[k], b[k], c[k], p);
  }
}

template <class Op, class T>
constexpr ContigKernel kernel_if_supported() {
  if constexpr (Op::template supports<T>()) return &contig<Op, T>;
  else return nullptr;
}

template <class Op>
constexpr ContigKernel pick(core::ComputeType ct) {
  switch (ct) {
    case core::ComputeType::kFloat: return kernel_if_supported<Op, float>();
    case core::ComputeType::kDouble: return kernel_if_supported<Op, double>();
    default: return kernel_if_supported<Op, int64_t>();
  }
}

inline ContigKernel kernel_for(EwOp op, core::ComputeType ct) {
  switch (op) {
#define OPSNN_EW(name, functor) \
  case EwOp::k##name: return pick<functor>(ct);
#include "kernels/elementwise/op_list.inc"
#undef OPSNN_EW
    default: return nullptr;
  }
}

}  // namespace opsnn::kernels::OPSNN_EW_NAMESPACE

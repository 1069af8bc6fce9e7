// Scalar functors of the element-wise ops, and the table that instantiates them. Included by one
// translation unit per ISA (ops_portable.cpp, ops_avx2.cpp, ...), each compiled with its own flags
// inside its own namespace, so the same source vectorises for every instruction set.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/elementwise/ops.h"

namespace opsnn::kernels::OPSNN_EW_NAMESPACE {

// Integer arithmetic wraps around (as PyTorch's does) without signed-overflow UB.
template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else return a + b;
}
template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else return a * b;
}
template <class T>
inline T scalar(const OpScalars &s, int k) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(s.i[k]);
  else return static_cast<T>(s.f[k]);
}

struct IdentityOp {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T) { return a; }
};
struct AddOp {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T alpha) { return wrap_add(a, wrap_mul(alpha, b)); }
};
struct SubOp {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T alpha) { return wrap_add(a, wrap_mul(static_cast<T>(T(0) - alpha), b)); }
};
struct MulOp {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T) { return wrap_mul(a, b); }
};
struct DivOp {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T) { return a / b; }
};
struct ReluOp {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T) {
    if constexpr (std::is_floating_point_v<T>) return (a > T(0) || a != a) ? a : T(0);
    else return a > 0 ? a : 0;
  }
};

template <class Op, class T>
void contig(int64_t n, void *out_v, const void *const *in, const OpScalars &s) {
  T *__restrict out = static_cast<T *>(out_v);
  const T p = scalar<T>(s, 0);
  if constexpr (Op::arity == 1) {
    const T *__restrict a = static_cast<const T *>(in[0]);
    for (int64_t k = 0; k < n; ++k) out[k] = Op::apply(a[k], T(0), p);
  } else {
    const T *a = static_cast<const T *>(in[0]);
    const T *b = static_cast<const T *>(in[1]);
    for (int64_t k = 0; k < n; ++k) out[k] = Op::apply(a[k], b[k], p);
  }
}

template <class T>
void fill(int64_t n, void *out_v, const void *const *, const OpScalars &s) {
  T *out = static_cast<T *>(out_v);
  const T v = scalar<T>(s, 0);
  for (int64_t k = 0; k < n; ++k) out[k] = v;
}

template <class Op>
constexpr ContigKernel pick(core::ComputeType ct) {
  switch (ct) {
    case core::ComputeType::kFloat: return &contig<Op, float>;
    case core::ComputeType::kDouble: return &contig<Op, double>;
    default: return &contig<Op, int64_t>;
  }
}

inline ContigKernel kernel_for(EwOp op, core::ComputeType ct) {
  switch (op) {
    case EwOp::kIdentity: return pick<IdentityOp>(ct);
    case EwOp::kFill:
      return ct == core::ComputeType::kFloat    ? &fill<float>
             : ct == core::ComputeType::kDouble ? &fill<double>
                                                : &fill<int64_t>;
    case EwOp::kAdd: return pick<AddOp>(ct);
    case EwOp::kSub: return pick<SubOp>(ct);
    case EwOp::kMul: return pick<MulOp>(ct);
    case EwOp::kDiv: return ct == core::ComputeType::kInt64 ? nullptr : pick<DivOp>(ct);
    case EwOp::kRelu: return pick<ReluOp>(ct);
    default: return nullptr;
  }
}

}  // namespace opsnn::kernels::OPSNN_EW_NAMESPACE

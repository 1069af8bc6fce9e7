// Selection, clamping and the fused three-operand ops (where, clamp, addcmul, addcdiv, lerp).
#pragma once

#include "kernels/elementwise/functors/common.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

struct WhereOp : AnyType {  // c ? a : b  (operands: condition, self, other)
  static constexpr int arity = 3;
  template <class T> static T apply(T c, T a, T b, const Scalars<T> &) { return c != T(0) ? a : b; }
};

// Clamp: NaN in the input or in a bound propagates; min > max gives max (as PyTorch).
template <class T>
inline T clamp_below(T x, T lo) {
  if constexpr (is_float_v<T>) return x != x ? x : (lo != lo ? lo : (x < lo ? lo : x));
  else return x < lo ? lo : x;
}
template <class T>
inline T clamp_above(T x, T hi) {
  if constexpr (is_float_v<T>) return x != x ? x : (hi != hi ? hi : (x > hi ? hi : x));
  else return x > hi ? hi : x;
}
struct ClampMinOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T x, T lo, T, const Scalars<T> &) { return clamp_below(x, lo); }
};
struct ClampMaxOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T x, T hi, T, const Scalars<T> &) { return clamp_above(x, hi); }
};
struct ClampOp : AnyType {
  static constexpr int arity = 3;
  template <class T> static T apply(T x, T lo, T hi, const Scalars<T> &) { return clamp_above(clamp_below(x, lo), hi); }
};

struct AddcmulOp : AnyType {  // a + s0 * b * c   (s0 = value)
  static constexpr int arity = 3;
  template <class T> static T apply(T a, T b, T c, const Scalars<T> &s) {
    return wrap_add(a, wrap_mul(wrap_mul(s.v[0], b), c));
  }
};
struct AddcdivOp : FloatOnly {  // a + s0 * b / c
  static constexpr int arity = 3;
  template <class T> static T apply(T a, T b, T c, const Scalars<T> &s) { return a + s.v[0] * b / c; }
};

// torch.lerp: start + weight * (end - start), evaluated from the nearer end for |weight| >= 0.5
// so that weight == 1 gives end exactly.
struct LerpOp : FloatOnly {
  static constexpr int arity = 3;
  template <class T> static T apply(T a, T b, T w, const Scalars<T> &) {
    return (w < T(0.5) && w > T(-0.5)) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
  }
};

}  // namespace
}  // namespace opsnn::kernels

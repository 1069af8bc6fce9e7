// Comparison, logical, bitwise and classification functors. Predicates return 1 / 0 in the
// compute type; the store converts to BOOL or whatever the output dtype is.
#pragma once

#include <limits>

#include "kernels/elementwise/functors/common.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

#define OPSNN_CMP_FUNCTOR(Name, expr)                                  \
  struct Name : AnyType {                                              \
    static constexpr int arity = 2;                                    \
    template <class T> static T apply(T a, T b, T, const Scalars<T> &) { \
      return (expr) ? T(1) : T(0);                                     \
    }                                                                  \
  };
OPSNN_CMP_FUNCTOR(EqOp, a == b)
OPSNN_CMP_FUNCTOR(NeOp, a != b)
OPSNN_CMP_FUNCTOR(GtOp, a > b)
OPSNN_CMP_FUNCTOR(GeOp, a >= b)
OPSNN_CMP_FUNCTOR(LtOp, a < b)
OPSNN_CMP_FUNCTOR(LeOp, a <= b)
// Logical ops: zero is false, anything else (NaN included) is true.
OPSNN_CMP_FUNCTOR(LogicalAndOp, (a != T(0)) & (b != T(0)))
OPSNN_CMP_FUNCTOR(LogicalOrOp, (a != T(0)) | (b != T(0)))
OPSNN_CMP_FUNCTOR(LogicalXorOp, (a != T(0)) != (b != T(0)))
#undef OPSNN_CMP_FUNCTOR

struct LogicalNotOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return a == T(0) ? T(1) : T(0); }
};

struct IntegerOnly {
  template <class T>
  static constexpr bool supports() { return std::is_integral_v<T>; }
};
struct BitwiseAndOp : IntegerOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a & b; }
};
struct BitwiseOrOp : IntegerOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a | b; }
};
struct BitwiseXorOp : IntegerOnly {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a ^ b; }
};
struct BitwiseNotOp : IntegerOnly {  // integers only; BOOL uses LogicalNot
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return ~a; }
};

// Classification: integers and BOOL are always finite.
struct IsInfOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) {
      constexpr T inf = std::numeric_limits<T>::infinity();
      return (a == inf) | (a == -inf) ? T(1) : T(0);
    } else {
      return T(0);
    }
  }
};
struct IsPosInfOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return a == std::numeric_limits<T>::infinity() ? T(1) : T(0);
    else return T(0);
  }
};
struct IsNegInfOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return a == -std::numeric_limits<T>::infinity() ? T(1) : T(0);
    else return T(0);
  }
};
struct IsNanOp : AnyType {  // torch.isnan: NaN is the only value unequal to itself
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return a != a ? T(1) : T(0);
    else return T(0);
  }
};
struct IsFiniteOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return a - a == T(0) ? T(1) : T(0);  // Inf - Inf and NaN are NaN
    else return T(1);
  }
};

}  // namespace
}  // namespace opsnn::kernels

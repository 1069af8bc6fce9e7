// Unary math functors (Exp, Log, Sin, ..., Abs, Sign, Floor, ...). Floating functions use the
// vectorisable vmath library for float and <cmath> for double; sin/cos/tan hand arguments beyond
// the fast reduction's range (|x| >= 2^20) to an exact path (see ops_impl.h: needs_exact).
#pragma once

#include <cmath>

#include "kernels/elementwise/functors/common.h"
#include "kernels/elementwise/vmath.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

#define OPSNN_FLOAT_UNARY(Name, expr)                                             \
  struct Name##Op : FloatOnly {                                                   \
    static constexpr int arity = 1;                                               \
    template <class T>                                                            \
    static T apply(T a, T, T, const Scalars<T> &) { return expr; }                \
  };

OPSNN_FLOAT_UNARY(Exp, vmath::exp(a))
OPSNN_FLOAT_UNARY(Exp2, vmath::exp2(a))
OPSNN_FLOAT_UNARY(Expm1, vmath::expm1(a))
OPSNN_FLOAT_UNARY(Log, vmath::log(a))
OPSNN_FLOAT_UNARY(Log2, vmath::log2(a))
OPSNN_FLOAT_UNARY(Log10, vmath::log10(a))
OPSNN_FLOAT_UNARY(Log1p, vmath::log1p(a))
OPSNN_FLOAT_UNARY(Sqrt, std::sqrt(a))
OPSNN_FLOAT_UNARY(Rsqrt, T(1) / std::sqrt(a))
OPSNN_FLOAT_UNARY(Reciprocal, T(1) / a)
OPSNN_FLOAT_UNARY(Asin, vmath::asin(a))
OPSNN_FLOAT_UNARY(Acos, vmath::acos(a))
OPSNN_FLOAT_UNARY(Atan, vmath::atan(a))
OPSNN_FLOAT_UNARY(Sinh, vmath::sinh(a))
OPSNN_FLOAT_UNARY(Cosh, vmath::cosh(a))
OPSNN_FLOAT_UNARY(Tanh, vmath::tanh(a))
OPSNN_FLOAT_UNARY(Asinh, vmath::asinh(a))
OPSNN_FLOAT_UNARY(Acosh, vmath::acosh(a))
OPSNN_FLOAT_UNARY(Atanh, vmath::atanh(a))
OPSNN_FLOAT_UNARY(Erf, vmath::erf(a))
OPSNN_FLOAT_UNARY(Erfc, vmath::erfc(a))
OPSNN_FLOAT_UNARY(Erfinv, vmath::erfinv(a))
OPSNN_FLOAT_UNARY(Frac, a - std::trunc(a))
#undef OPSNN_FLOAT_UNARY

// sin/cos/tan: fast vectorised path; a chunk holding a finite |x| >= 2^20 goes through libm.
#define OPSNN_TRIG_UNARY(Name, fast, exact)                                                  \
  struct Name##Op : FloatOnly {                                                              \
    static constexpr int arity = 1;                                                          \
    template <class T>                                                                       \
    static T apply(T a, T, T, const Scalars<T> &) { return fast(a); }                        \
    template <class T>                                                                       \
    static bool needs_exact(T a) {                                                           \
      if constexpr (std::is_same_v<T, float>) return vmath::trig_needs_exact(a);            \
      else return false;                                                                     \
    }                                                                                        \
    template <class T>                                                                       \
    static T apply_exact(T a, const Scalars<T> &) {                                          \
      if constexpr (std::is_same_v<T, float>) return exact(a);                               \
      else return fast(a);                                                                   \
    }                                                                                        \
  };
OPSNN_TRIG_UNARY(Sin, vmath::sin, vmath::sin_exact)
OPSNN_TRIG_UNARY(Cos, vmath::cos, vmath::cos_exact)
OPSNN_TRIG_UNARY(Tan, vmath::tan, vmath::tan_exact)
#undef OPSNN_TRIG_UNARY

struct AbsOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return vmath::fabs_(a);
    else return a < 0 ? wrap_sub(T(0), a) : a;
  }
};

struct NegOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return -a;
    else return wrap_sub(T(0), a);
  }
};

// sign: -1, 0, +1 (NaN -> 0 and sign(-0.0) = +0.0, as PyTorch's (0 < a) - (a < 0)).
struct SignOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return T(a > T(0)) - T(a < T(0)); }
};

struct SquareOp : AnyType {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return wrap_mul(a, a); }
};

// Rounding: identity for integers.
#define OPSNN_ROUNDING_UNARY(Name, fn)                                      \
  struct Name##Op : AnyType {                                               \
    static constexpr int arity = 1;                                         \
    template <class T> static T apply(T a, T, T, const Scalars<T> &) {      \
      if constexpr (is_float_v<T>) return fn(a);                            \
      else return a;                                                        \
    }                                                                       \
  };
OPSNN_ROUNDING_UNARY(Floor, std::floor)
OPSNN_ROUNDING_UNARY(Ceil, std::ceil)
OPSNN_ROUNDING_UNARY(Trunc, std::trunc)
OPSNN_ROUNDING_UNARY(Round, std::nearbyint)  // half to even
#undef OPSNN_ROUNDING_UNARY

// torch.round(x, decimals): s0 = 10^|decimals|, s1 = 1 when decimals < 0.
// decimals > 0: nearbyint(x * s0) / s0; decimals < 0: nearbyint(x / s0) * s0.
struct RoundDecimalsOp : FloatOnly {
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &s) {
    const T down = std::nearbyint(a / s.v[0]) * s.v[0];
    const T up = std::nearbyint(a * s.v[0]) / s.v[0];
    return s.v[1] != T(0) ? down : up;
  }
};

}  // namespace
}  // namespace opsnn::kernels

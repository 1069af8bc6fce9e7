// Binary math functors: maximum / minimum, remainder / fmod, rounding divisions, pow, atan2.
// Integer forms compute in int64 and wrap around; INT64_MIN / -1 wraps instead of trapping. An
// integer division by zero gives 0 here; the element-wise engine also finds the zero divisor
// (ElementwiseLoop::zero_check) and the launch reports ZeroDivisionError, as PyTorch raises.
#pragma once

#include "kernels/elementwise/functors/common.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

// Divisor that is safe for the hardware division: 1 where b is 0 or -1 (those cases are
// patched by the caller), b otherwise.
template <class T>
inline T safe_divisor(T b) {
  return (b == 0 || b == -1) ? T(1) : b;
}

struct MaximumOp : AnyType {  // torch.maximum: NaN in either operand propagates
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return a != a ? a : (b != b ? b : (a > b ? a : b));
    else return a > b ? a : b;
  }
};
struct MinimumOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return a != a ? a : (b != b ? b : (a < b ? a : b));
    else return a < b ? a : b;
  }
};

// Python modulo: the result has the sign of the divisor.
struct RemainderOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) {
      T m = std::fmod(a, b);
      return (m != T(0) && ((b < T(0)) != (m < T(0)))) ? m + b : m;
    } else {
      T r = a % safe_divisor(b);  // b == -1: remainder 0
      r = (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
      return b == 0 ? T(0) : r;
    }
  }
};

// C fmod: the result has the sign of the dividend.
struct FmodOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return std::fmod(a, b);
    else return b == 0 ? T(0) : a % safe_divisor(b);
  }
};

// Division rounded toward zero (torch.div(..., rounding_mode="trunc")).
struct DivTruncOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return std::trunc(a / b);
    else {
      T q = b == -1 ? wrap_sub(T(0), a) : a / safe_divisor(b);
      return b == 0 ? T(0) : q;
    }
  }
};

// Division rounded toward -inf (torch.div(..., rounding_mode="floor")), computed as PyTorch does
// for floating point: from fmod, so that a == b * q + remainder(a, b) holds as closely as possible.
struct DivFloorOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) {
      if (b == T(0)) return a / b;
      T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return std::copysign(T(0), a / b);
      T f = std::floor(div);
      return div - f > T(0.5) ? f + T(1) : f;
    } else {
      const T d = safe_divisor(b);
      T q = b == -1 ? wrap_sub(T(0), a) : a / d;
      q = (b != -1 && (a % d) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
      return b == 0 ? T(0) : q;
    }
  }
};

// Integer power, exact with wrap-around; a negative exponent gives 1 / a^-e truncated (1, -1 or 0).
inline int64_t ipow(int64_t a, int64_t e) {
  if (e < 0) return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
  uint64_t r = 1, base = static_cast<uint64_t>(a);
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return static_cast<int64_t>(r);
}

struct PowOp : AnyType {  // a ** b; C/IEEE pow special cases (pow(x, 0) = 1, pow(1, y) = 1, ...)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return std::pow(a, b);
    else return ipow(a, b);
  }
};

struct Atan2Op : FloatOnly {  // atan2(self, other): self is y, other is x
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return std::atan2(a, b); }
};

}  // namespace
}  // namespace opsnn::kernels

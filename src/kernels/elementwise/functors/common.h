// Helpers for element-wise functors. Functors are included once per ISA translation unit, inside
// that unit's namespace, so they must be header-only templates.
//
// A functor is
//   struct FooOp {
//     static constexpr int arity = N;                       // tensor inputs read (0..3)
//     template <class T> static constexpr bool supports();  // compute types it is defined for
//     template <class T> static T apply(T a, T b, T c, const Scalars<T> &s);
//   };
// and is listed in one of the lists/*.inc files. Write `apply` branch-free where possible
// (ternaries, no calls into libm in hot ops) so that the loops vectorise.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

// The op's scalar parameters, converted to the compute type once per call.
template <class T>
struct Scalars {
  T v[3];
};

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T>;

// Integer arithmetic wraps around (as PyTorch's does) without signed-overflow UB.
template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else return a + b;
}
template <class T>
inline T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  else return a - b;
}
template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else return a * b;
}

struct AnyType {
  template <class T>
  static constexpr bool supports() { return true; }
};
struct FloatOnly {
  template <class T>
  static constexpr bool supports() { return is_float_v<T>; }
};

}  // namespace
}  // namespace opsnn::kernels

// Arithmetic, copy and fill functors.
#pragma once

#include "kernels/elementwise/functors/common.h"

namespace opsnn::kernels {
// Internal linkage: every ISA translation unit (ops_portable.cpp, ops_avx2.cpp, ...) compiles its
// own copy with its own flags; a shared inline copy could run AVX2 code on a CPU without it.
namespace {

struct IdentityOp : AnyType {  // out = a
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) { return a; }
};
struct FillOp : AnyType {  // out = s0
  static constexpr int arity = 0;
  template <class T> static T apply(T, T, T, const Scalars<T> &s) { return s.v[0]; }
};
struct AddOp : AnyType {  // out = a + s0 * b   (s0 = alpha)
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) { return wrap_add(a, wrap_mul(s.v[0], b)); }
};
struct SubOp : AnyType {  // out = a - s0 * b
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &s) { return wrap_sub(a, wrap_mul(s.v[0], b)); }
};
struct MulOp : AnyType {
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return wrap_mul(a, b); }
};
struct DivOp : FloatOnly {  // true division
  static constexpr int arity = 2;
  template <class T> static T apply(T a, T b, T, const Scalars<T> &) { return a / b; }
};

}  // namespace
}  // namespace opsnn::kernels

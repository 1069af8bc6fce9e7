// Activation functors (forward).
#pragma once

#include "kernels/elementwise/functors/common.h"

namespace opsnn::kernels {

struct ReluOp : AnyType {  // max(a, 0); NaN propagates
  static constexpr int arity = 1;
  template <class T> static T apply(T a, T, T, const Scalars<T> &) {
    if constexpr (is_float_v<T>) return (a > T(0) || a != a) ? a : T(0);
    else return a > 0 ? a : 0;
  }
};

}  // namespace opsnn::kernels

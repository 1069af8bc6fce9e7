#pragma once
// Sizes computed from attributes (pads, repeats, scales) in checked int64 arithmetic: 161002 naming
// the attribute when the result does not fit (the fuzzer feeds values near INT64_MAX).
#include <cstdint>

#include "common/error.h"

namespace opsnn::core {

inline int64_t size_add(int64_t a, int64_t b, const char *what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s: %lld + %lld overflows int64", what, static_cast<long long>(a),
                static_cast<long long>(b));
  return r;
}

inline int64_t size_mul(int64_t a, int64_t b, const char *what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s: %lld * %lld overflows int64", what, static_cast<long long>(a),
                static_cast<long long>(b));
  return r;
}

}  // namespace opsnn::core

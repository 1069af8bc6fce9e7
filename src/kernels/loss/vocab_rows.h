// The vocabulary-parallel cross-entropy's FLOAT row loops, compiled once per ISA unit
// (vocab_ce.cpp portable, vocab_rows_avx2.cpp, vocab_rows_avx512.cpp; internal linkage): exp in
// float through vmath (the op computes in FLOAT), sums in 16 float lanes added in a fixed order.
#pragma once

#include <cstdint>

#include "kernels/elementwise/vmath.h"

namespace opsnn::kernels {
namespace {

// y = exp(x - m); returns the sum of y.
inline float vocab_exp_sum_body(const float *x, float *y, int64_t n, float m) {
  constexpr int kLanes = 16;
  float lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      y[i + k] = vmath::exp(x[i + k] - m);
      lane[k] += y[i + k];
    }
  float tail = 0;
  for (; i < n; ++i) {
    y[i] = vmath::exp(x[i] - m);
    tail += y[i];
  }
  float s = 0;
  for (float l : lane) s += l;
  return s + tail;
}

// y = exp(x - m) * inv (the softmax with inv = 1 / the row's sum of exponentials).
inline void vocab_softmax_body(const float *x, float *y, int64_t n, float m, float inv) {
  for (int64_t i = 0; i < n; ++i) y[i] = vmath::exp(x[i] - m) * inv;
}

}  // namespace
}  // namespace opsnn::kernels

// The bodies of AttnRowFns (attention_rows.h), included by each per-ISA unit: plain loops GCC
// vectorises with the unit's flags (vmath's branch-free exp; -fno-math-errno, see src/CMakeLists.txt).
#pragma once

#include <limits>

#include "kernels/attention/attention_rows.h"
#include "kernels/attention/decode_stream_impl.h"
#include "kernels/elementwise/vmath.h"
#include "kernels/simd/vec_exp.h"

namespace opsnn::kernels::attn_rows_impl {
namespace {

void scale(float *x, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

void add(float *x, const float *y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

float mask_max(float *row, int64_t n, int64_t lo, int64_t hi, const unsigned char *mask, int64_t ms) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < lo && j < n; ++j) row[j] = kNegInf;
  for (int64_t j = hi < 0 ? 0 : hi; j < n; ++j) row[j] = kNegInf;
  if (mask != nullptr) {
    if (ms == 1) {
      for (int64_t j = 0; j < n; ++j) row[j] = mask[j] != 0 ? kNegInf : row[j];
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] = mask[j * ms] != 0 ? kNegInf : row[j];
    }
  }
  // One vector of lanes (an array of eight lanes stayed scalar code), then the lanes and the tail;
  // max is exact, so the order does not change the value (NaN is skipped as before).
  vec::f32v mv = bcast(kNegInf);
  int64_t j = 0;
  for (; j + vec::kF32 <= n; j += vec::kF32) {
    const vec::f32v x = vec::load(row + j);
    mv = x > mv ? x : mv;
  }
  float m = kNegInf;
  for (int k = 0; k < vec::kF32; ++k) m = mv[k] > m ? mv[k] : m;
  for (; j < n; ++j) m = row[j] > m ? row[j] : m;
  return m;
}

// m is the running max of the row (at least each element's value): the exponents are <= 0, so
// vec_exp.h's cheaper exp for those applies (two accumulators, fixed order).
float exp_sum(float *row, int64_t n, float m) { return vec::exp_shifted_sum(row, n, m, row); }

float exp1(float x) { return vmath::exp(x); }

constexpr AttnRowFns kFns = {&scale, &add, &mask_max, &exp_sum, &exp1, &qk, &pv};

}  // namespace
}  // namespace opsnn::kernels::attn_rows_impl

// The bodies of AttnRowFns (attention_rows.h), included by each per-ISA unit: plain loops GCC
// vectorises with the unit's flags (vmath's branch-free exp; -fno-math-errno, see src/CMakeLists.txt).
#pragma once

#include <limits>

#include "kernels/attention/attention_rows.h"
#include "kernels/attention/decode_stream_impl.h"
#include "kernels/elementwise/vmath.h"

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
  // Eight lanes, combined in a fixed order (max is exact, so any order gives the same value).
  float lane[8] = {kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) lane[k] = row[j + k] > lane[k] ? row[j + k] : lane[k];
  for (; j < n; ++j) lane[0] = row[j] > lane[0] ? row[j] : lane[0];
  float m = lane[0];
  for (int k = 1; k < 8; ++k) m = lane[k] > m ? lane[k] : m;
  return m;
}

float exp_sum(float *row, int64_t n, float m) {
  float lane[16] = {};
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    for (int k = 0; k < 16; ++k) {
      const float e = vmath::exp(row[j + k] - m);
      row[j + k] = e;
      lane[k] += e;
    }
  for (; j < n; ++j) {
    const float e = vmath::exp(row[j] - m);
    row[j] = e;
    lane[0] += e;
  }
  float s = 0;
  for (int k = 0; k < 16; ++k) s += lane[k];
  return s;
}

float exp1(float x) { return vmath::exp(x); }

constexpr AttnRowFns kFns = {&scale, &add, &mask_max, &exp_sum, &exp1, &qk, &pv};

}  // namespace
}  // namespace opsnn::kernels::attn_rows_impl

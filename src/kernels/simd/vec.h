// Row primitives on FLOAT lines written with GCC vector extensions: one 64-byte vector type that
// each per-ISA unit lowers to its own registers (one zmm for avx512, two ymm for avx2, four xmm or
// NEON q registers elsewhere). Auto-vectorisation leaves a float max scalar and a float sum on one
// accumulator (add latency bound); these keep four independent accumulators instead. The lane
// count and the combining order are fixed, so results never depend on the tier or thread count.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"  // 64-byte vectors passed between inline functions only
#endif

#include <cstdint>
#include <cstring>
#include <limits>

namespace opsnn::kernels::vec {
// Internal linkage: every per-ISA unit keeps its own copy, compiled with its own flags.
namespace {

using f32v = float __attribute__((vector_size(64)));
using i32v = int32_t __attribute__((vector_size(64)));
constexpr int64_t kF32 = 16;        // floats per vector
constexpr int64_t kStep = 4 * kF32;  // floats per step of four accumulators

inline f32v load(const float *p) {
  f32v v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline f32v splat(float x) { return f32v{} + x; }
inline float hsum(f32v v) {  // a tree of halves (a chain of 16 dependent adds costs 4x the latency)
  float a[kF32];
  std::memcpy(a, &v, sizeof a);
  for (int w = kF32 / 2; w >= 1; w /= 2)
    for (int k = 0; k < w; ++k) a[k] += a[k + w];
  return a[0];
}

// sum of x[0, n) in float: four accumulators of 16 lanes, then the tail, combined in fixed order.
inline float sum(const float *x, int64_t n) {
  f32v a0{}, a1{}, a2{}, a3{};
  int64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    a0 += load(x + i);
    a1 += load(x + i + kF32);
    a2 += load(x + i + 2 * kF32);
    a3 += load(x + i + 3 * kF32);
  }
  for (; i + kF32 <= n; i += kF32) a0 += load(x + i);
  float s = hsum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s += x[i];
  return s;
}

// sum of (x[i] - c)^2 over [0, n) in float, and in *dev the sum of x[i] - c (four accumulators each, as sum).
inline float sum_sq_dev(const float *x, int64_t n, float c, float *dev) {
  const f32v cv = splat(c);
  f32v q0{}, q1{}, q2{}, q3{}, d0{}, d1{}, d2{}, d3{};
  int64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    const f32v e0 = load(x + i) - cv, e1 = load(x + i + kF32) - cv;
    const f32v e2 = load(x + i + 2 * kF32) - cv, e3 = load(x + i + 3 * kF32) - cv;
    q0 += e0 * e0;
    q1 += e1 * e1;
    q2 += e2 * e2;
    q3 += e3 * e3;
    d0 += e0;
    d1 += e1;
    d2 += e2;
    d3 += e3;
  }
  for (; i + kF32 <= n; i += kF32) {
    const f32v e = load(x + i) - cv;
    q0 += e * e;
    d0 += e;
  }
  float q = hsum((q0 + q1) + (q2 + q3)), d = hsum((d0 + d1) + (d2 + d3));
  for (; i < n; ++i) {
    const float e = x[i] - c;
    q += e * e;
    d += e;
  }
  *dev = d;
  return q;
}

// The largest (kMax) or smallest element of x[0, n) ignoring NaNs (n > 0 or the identity
// -inf / +inf); *nan set when any element is NaN (callers then return NaN, as PyTorch does).
template <bool kMax>
inline float extremum(const float *x, int64_t n, bool *nan) {
  constexpr float w = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  f32v m0 = splat(w), m1 = m0, m2 = m0, m3 = m0;
  i32v bad{};
  auto fold = [&](f32v &m, f32v y) {
    m = kMax ? (y > m ? y : m) : (y < m ? y : m);
    bad |= (y != y);
  };
  int64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    fold(m0, load(x + i));
    fold(m1, load(x + i + kF32));
    fold(m2, load(x + i + 2 * kF32));
    fold(m3, load(x + i + 3 * kF32));
  }
  for (; i + kF32 <= n; i += kF32) fold(m0, load(x + i));
  fold(m0, m1);
  fold(m2, m3);
  fold(m0, m2);
  float m = w;
  bool any = false;
  for (int k = 0; k < kF32; ++k) {
    m = kMax ? (m0[k] > m ? m0[k] : m) : (m0[k] < m ? m0[k] : m);
    any = any || bad[k] != 0;
  }
  for (; i < n; ++i) {
    m = kMax ? (x[i] > m ? x[i] : m) : (x[i] < m ? x[i] : m);
    any = any || x[i] != x[i];
  }
  *nan = any;
  return m;
}

// The first i in [0, n) with x[i] == v (v not NaN and present), else n.
inline int64_t find_first(const float *x, int64_t n, float v) {
  const f32v s = splat(v);
  int64_t i = 0;
  for (; i + kF32 <= n; i += kF32) {
    const i32v eq = load(x + i) == s;
    i32v z{};
    if (std::memcmp(&eq, &z, sizeof eq) != 0) break;
  }
  for (; i < n; ++i)
    if (x[i] == v) return i;
  return n;
}

}  // namespace
}  // namespace opsnn::kernels::vec

// exp over FLOAT rows for softmax-like lines (kernels/simd/vec.h's 64-byte vectors): the exponent
// of x - max is never positive, which allows a cheaper exp than vmath::exp (no overflow branch, no
// two-step scaling): about 11 vector operations for 16 elements instead of ~23. Accuracy: a few ULP
// (Taylor to r^6 on |r| <= ln2 / 2, truncation < 1.3e-7 relative); without AVX-512, results below
// exp(-87.6) < 2^-126 are flushed to 0 (far under precision.md's floor of 1e-7 * T). NaN propagates.
#pragma once

#include <cstring>

#include "kernels/simd/vec.h"
#if defined(__FMA__) && !defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace opsnn::kernels::vec {
namespace {

// a * b + c, one rounding where the unit has FMA (-std=c++20 turns off GCC's contraction).
inline f32v fmadd(f32v a, f32v b, f32v c) {
#if defined(__AVX512F__)
  return f32v(_mm512_fmadd_ps(__m512(a), __m512(b), __m512(c)));
#elif defined(__FMA__)
  __m256 a2[2], b2[2], c2[2];
  std::memcpy(a2, &a, sizeof a);
  std::memcpy(b2, &b, sizeof b);
  std::memcpy(c2, &c, sizeof c);
  c2[0] = _mm256_fmadd_ps(a2[0], b2[0], c2[0]);
  c2[1] = _mm256_fmadd_ps(a2[1], b2[1], c2[1]);
  std::memcpy(&c, c2, sizeof c);
  return c;
#else
  return a * b + c;
#endif
}

// exp(x) for x <= 0 (or NaN): x = t ln2 + r, t an integer, exp(r) by Horner, then 2^t.
inline f32v exp_nonpos(f32v x) {
#if defined(__AVX512F__)
  const f32v xr = x < -104.0f ? splat(-104.0f) : x;  // (-inf would give inf - inf in r; NaN stays)
  const f32v t = f32v(_mm512_mask_roundscale_ps(__m512(xr), 0xffff, __m512(xr * 1.44269504088896341f),
                                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  const f32v xr = x < -87.6f ? splat(-87.6f) : x;  // 2^t stays normal (t >= -126); flushed to 0 at the end
  const f32v magic = splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer kept in the low bits
  const f32v tm = fmadd(xr, splat(1.44269504088896341f), magic);
  const f32v t = tm - magic;
#endif
  f32v r = fmadd(t, splat(-0.693359375f), xr);  // ln2's 9-bit head: t * head is exact
  r = fmadd(t, splat(2.12194440e-4f), r);
  f32v p = splat(1.0f / 720);
  p = fmadd(p, r, splat(1.0f / 120));
  p = fmadd(p, r, splat(1.0f / 24));
  p = fmadd(p, r, splat(1.0f / 6));
  p = fmadd(p, r, splat(0.5f));
  p = fmadd(p, r, splat(1.0f));
  p = fmadd(p, r, splat(1.0f));
#if defined(__AVX512F__)
  // p * 2^t with gradual underflow (the masked form: GCC's plain one warns of an undefined source)
  return f32v(_mm512_mask_scalef_ps(__m512(p), 0xffff, __m512(p), __m512(t)));
#else
  const i32v e = (i32v(tm) - i32v(magic) + 127) << 23;  // 2^t, t >= -126
  const f32v y = p * f32v(e);
  return x < -87.6f ? splat(0.0f) : y;  // (exp(-87.6) < 2^-126: gradual underflow above it)
#endif
}

// The exponentials of x[0, n) - m: written to y (unless y is null) and summed in a fixed order (two
// accumulators, then the partial last vector padded with -inf, whose exp is 0).
inline float exp_shifted_sum(const float *x, int64_t n, float m, float *y) {
  const f32v mv = splat(m);
  f32v s0{}, s1{};
  int64_t i = 0;
  for (; i + 2 * kF32 <= n; i += 2 * kF32) {
    const f32v e0 = exp_nonpos(load(x + i) - mv), e1 = exp_nonpos(load(x + i + kF32) - mv);
    if (y != nullptr) {
      std::memcpy(y + i, &e0, sizeof e0);
      std::memcpy(y + i + kF32, &e1, sizeof e1);
    }
    s0 += e0;
    s1 += e1;
  }
  for (; i < n; i += kF32) {
    const int64_t c = n - i < kF32 ? n - i : kF32;
    float part[kF32];
    for (int64_t k = 0; k < kF32; ++k) part[k] = k < c ? x[i + k] : -std::numeric_limits<float>::infinity();
    const f32v e = exp_nonpos(load(part) - mv);
    if (y != nullptr) std::memcpy(y + i, &e, static_cast<size_t>(c) * sizeof(float));
    s0 += e;
  }
  return hsum(s0 + s1);
}

}  // namespace
}  // namespace opsnn::kernels::vec

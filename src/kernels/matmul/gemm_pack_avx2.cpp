// AVX2/F16C parts of the packing routines (compiled with -mavx2 -mfma -mf16c; called only after
// runtime detection).
#include <immintrin.h>

#include <algorithm>

#include "common/half.h"
#include "kernels/matmul/gemm_pack.h"

namespace opsnn::kernels::gemm_detail {

void f16_to_f32_f16c(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void bf16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
  }
  for (; i < n; ++i) dst[i] = bf16_to_float(src[i]);
}

namespace {

inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

}  // namespace

void pack_lines_f32_avx2(const float *s, int64_t sw, int64_t kc, int W, float *d) {
  const int full = W / 8, part = W % 8;  // groups of 8 lines, and the lines of a last partial group
  int64_t p = 0;
  for (; p + 8 <= kc; p += 8) {
    float *dp = d + p * W;
    __m256 r[8];
    if (part > 0) {
      // Stored first, full 8-lane stores: lanes past the group land on the next row's first group
      // (or, for row 7, the next block), which is written afterwards. Masked stores are slow on AMD.
      const int g0 = full * 8;
      for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + (g0 + std::min(i, part - 1)) * sw + p);
      transpose8(r);
      for (int i = 0; i < 7; ++i) _mm256_storeu_ps(dp + i * W + g0, r[i]);
      alignas(32) float last[8];
      _mm256_store_ps(last, r[7]);
      for (int l = 0; l < part; ++l) dp[7 * W + g0 + l] = last[l];
    }
    for (int g = 0; g < full; ++g) {
      for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + (g * 8 + i) * sw + p);
      transpose8(r);
      for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dp + i * W + g * 8, r[i]);
    }
  }
  for (; p < kc; ++p)
    for (int w = 0; w < W; ++w) d[p * W + w] = s[w * sw + p];
}

}  // namespace opsnn::kernels::gemm_detail

// FLOAT16 / BF16 <-> float runs (kernels/simd/half_convert.h), 8 elements per step, the tail
// through common/half.h's scalar conversions.
#include <immintrin.h>

#include "common/half.h"
#include "kernels/simd/half_convert.h"

namespace opsnn::kernels {

void f16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i))));
  for (; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void f32_to_f16_avx2(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < n; ++i) dst[i] = float_to_half(src[i]);
}

void bf16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
  }
  for (; i < n; ++i) dst[i] = bf16_to_float(src[i]);
}

// Rounding to nearest even on the bits (u + 0x7fff + lsb) >> 16; a NaN keeps its top bits with the
// quiet bit set, as float_to_bf16 does.
void f32_to_bf16_avx2(const float *src, uint16_t *dst, int64_t n) {
  const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff), quiet = _mm256_set1_epi32(0x40),
                abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i u = _mm256_castps_si256(_mm256_loadu_ps(src + i));
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(bias, lsb)), 16);
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, abs_mask), inf);
    const __m256i quieted = _mm256_or_si256(_mm256_srli_epi32(u, 16), quiet);
    const __m256i r = _mm256_blendv_epi8(rounded, quieted, nan);
    // 8 x 32-bit -> 8 x 16-bit: the values fit in 16 bits, so an unsigned pack keeps them.
    const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), packed);
  }
  for (; i < n; ++i) dst[i] = float_to_bf16(src[i]);
}

}  // namespace opsnn::kernels

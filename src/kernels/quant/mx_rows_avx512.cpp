// The MX row kernels built for the avx512 tier (kernels/quant/mx_rows.h): 16 lanes a step, the tail through
// the portable build (no masked loads: the emulated build's SIMDe lacks some).
#include <cmath>

#include "kernels/quant/mx_rows.h"
#include "kernels/simd/avx512_intrinsics.h"

namespace opsnn::kernels {

float mx_amax_avx512(const float *v, int64_t n) {
  const int64_t body = n / 16 * 16;
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FFFFFFF));
  __m512 m = _mm512_setzero_ps();
  __mmask16 nan = 0;
  for (int64_t i = 0; i < body; i += 16) {
    const __m512 x = _mm512_loadu_ps(v + i);
    nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    m = _mm512_max_ps(m, _mm512_and_ps(x, abs_mask));
  }
  if (nan != 0) return NAN;
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(m), 1));  // AVX-512F (SIMDe has it)
  __m256 h8 = _mm256_max_ps(_mm512_castps512_ps256(m), hi);
  __m128 h4 = _mm_max_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
  h4 = _mm_max_ps(h4, _mm_movehl_ps(h4, h4));
  h4 = _mm_max_ss(h4, _mm_shuffle_ps(h4, h4, 1));
  const float head = _mm_cvtss_f32(h4);
  if (body == n) return head;
  const float tail = mx_amax_portable(v + body, n - body);
  return tail != tail ? tail : (tail > head ? tail : head);
}

// lf_encode_rint_row's steps on 16 lanes: saturation, the subnormal grid (an exact add-and-subtract), half-to-even
// rounding of the dropped mantissa bits, the sign, NaN.
void lf_encode_rint_row_avx512(const float *v, int64_t n, float mul, LowFloat f, uint8_t *codes) {
  const LowFloatSpec &s = low_float_spec(f);
  const int m = s.man_bits, drop = 23 - m, emin = 1 - s.bias;
  const int64_t body = n / 16 * 16;
  const __m512 vmul = _mm512_set1_ps(mul), vmax = _mm512_set1_ps(s.max);
  const __m512 to_sub = _mm512_castsi512_ps(_mm512_set1_epi32((m - emin + 127) << 23));  // 2^(m - emin)
  const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF), inf = _mm512_set1_epi32(0x7F800000);
  const __m512i min_normal = _mm512_set1_epi32((emin + 127) << 23), half = _mm512_set1_epi32((1 << (drop - 1)) - 1);
  const __m512i one = _mm512_set1_epi32(1), rebias = _mm512_set1_epi32((127 - s.bias) << m);
  const __m512i max_code = _mm512_set1_epi32(s.max_code), nan_code = _mm512_set1_epi32(s.nan);
  const __m512 magic = _mm512_set1_ps(8388608.0f);
  const __m512i magic_bits = _mm512_set1_epi32(0x4B000000), bias128 = _mm512_set1_epi32(128);
  for (int64_t j = 0; j < body; j += 16) {
    const __m512i b = _mm512_castps_si512(_mm512_mul_ps(_mm512_loadu_ps(v + j), vmul));
    const __m512i sign = _mm512_slli_epi32(_mm512_srli_epi32(b, 31), s.bits - 1);
    const __m512i a = _mm512_and_si512(b, abs_mask);
    const __m512 af = _mm512_castsi512_ps(a);
    const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(a, inf);
    const __mmask16 is_sat = _mm512_cmp_ps_mask(af, vmax, _CMP_GE_OQ);
    const __mmask16 is_sub = _mm512_cmpgt_epi32_mask(min_normal, a);
    const __m512i r = _mm512_add_epi32(a, _mm512_add_epi32(half, _mm512_and_si512(_mm512_srli_epi32(a, drop), one)));
    __m512i c = _mm512_min_epu32(_mm512_sub_epi32(_mm512_srli_epi32(r, drop), rebias), max_code);
    // the subnormal grid: t + 2^23 rounds t (< 2^22) half to even into the low mantissa bits
    const __m512 t = _mm512_add_ps(_mm512_mul_ps(af, to_sub), magic);
    c = _mm512_mask_mov_epi32(c, is_sub, _mm512_sub_epi32(_mm512_castps_si512(t), magic_bits));
    c = _mm512_or_si512(_mm512_mask_mov_epi32(c, is_sat, max_code), sign);
    c = _mm512_mask_mov_epi32(c, is_nan, s.nan != 0 ? _mm512_or_si512(nan_code, sign) : _mm512_setzero_si512());
    // codes 0..255 to bytes through the signed saturating narrowing (the one SIMDe has): shifted by 128, exact
    const __m128i narrow = _mm512_cvtsepi32_epi8(_mm512_sub_epi32(c, bias128));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(codes + j), _mm_xor_si128(narrow, _mm_set1_epi8(static_cast<char>(0x80))));
  }
  if (body < n) lf_encode_rint_row(v + body, n - body, mul, f, codes + body);
}

}  // namespace opsnn::kernels

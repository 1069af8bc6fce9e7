// The per-token kernels built for the avx512 tier (kernels/quant/quant_token.h): 16 lanes a step,
// the tail through the portable build (no masked loads: the emulated build's SIMDe lacks some).
#include <cmath>

#include "kernels/quant/quant_token.h"
#include "kernels/simd/avx512_intrinsics.h"

namespace opsnn::kernels {
namespace {

// 16 values of a FLOAT / FLOAT16 / BF16 row as fp32.
inline __m512 load16(const char *p, aclDataType dt) {
  if (dt == ACL_FLOAT) return _mm512_loadu_ps(reinterpret_cast<const float *>(p));
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
  if (dt == ACL_FLOAT16) return _mm512_cvtph_ps(h);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));  // BF16: the top half
}

}  // namespace

void quant_token_prep_avx512(const char *x, aclDataType dt, const char *smooth, int64_t n, float *in, float *ext) {
  const int64_t es = dt == ACL_FLOAT ? 4 : 2, body = n / 16 * 16;
  __m512 amax = _mm512_setzero_ps(), mn = _mm512_set1_ps(INFINITY), mx = _mm512_set1_ps(-INFINITY);
  for (int64_t j = 0; j < body; j += 16) {
    __m512 v = load16(x + j * es, dt);
    if (smooth != nullptr) v = _mm512_mul_ps(v, load16(smooth + j * es, dt));
    _mm512_storeu_ps(in + j, v);
    // max / min take the second operand when either is NaN: the running value, so NaN is ignored.
    amax = _mm512_max_ps(_mm512_abs_ps(v), amax);
    mn = _mm512_min_ps(v, mn);
    mx = _mm512_max_ps(v, mx);
  }
  float tail[3] = {0.0f, INFINITY, -INFINITY};
  if (body < n) quant_token_prep_portable(x + body * es, dt, smooth ? smooth + body * es : nullptr, n - body, in + body, tail);
  ext[0] = std::fmax(_mm512_reduce_max_ps(amax), tail[0]);
  ext[1] = std::fmin(_mm512_reduce_min_ps(mn), tail[1]);
  ext[2] = std::fmax(_mm512_reduce_max_ps(mx), tail[2]);
}

void quant_token_int8_avx512(const float *in, int64_t n, float scale, float offset, int8_t *y) {
  const int64_t body = scale == 0.0f ? 0 : n / 16 * 16;
  const __m512 s = _mm512_set1_ps(scale), o = _mm512_set1_ps(offset), lo = _mm512_set1_ps(-128.0f),
               hi = _mm512_set1_ps(127.0f);
  for (int64_t j = 0; j < body; j += 16) {
    __m512 t = _mm512_add_ps(_mm512_div_ps(_mm512_loadu_ps(in + j), s), o);
    t = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __mmask16 ordered = _mm512_cmp_ps_mask(t, t, _CMP_ORD_Q);  // NaN lanes give 0
    t = _mm512_maskz_mov_ps(ordered, _mm512_min_ps(_mm512_max_ps(t, lo), hi));
    _mm_storeu_si128(reinterpret_cast<__m128i *>(y + j), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(t)));
  }
  quant_token_int8_portable(in + body, n - body, scale, offset, y + body);
}

}  // namespace opsnn::kernels

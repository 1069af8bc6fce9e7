// The per-token kernels built for the avx512 tier (kernels/quant/quant_token.h): 16 lanes a step,
// the tail through the portable build (no masked loads: the emulated build's SIMDe lacks some).
#include <cmath>

#include "kernels/quant/quant_rows.h"
#include "kernels/quant/quant_token.h"
#include "kernels/simd/avx512_intrinsics.h"

namespace opsnn::kernels {
namespace {

// 8 values of a FLOAT / FLOAT16 / BF16 row as fp32 (256-bit conversions: SIMDe, which the emulated
// build takes the 512-bit names from, lacks the 512-bit FLOAT16 / widening ones).
inline __m256 load8(const char *p, aclDataType dt) {
  if (dt == ACL_FLOAT) return _mm256_loadu_ps(reinterpret_cast<const float *>(p));
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  if (dt == ACL_FLOAT16) return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));  // BF16: the top half
}

}  // namespace

void quant_token_prep_avx512(const char *x, aclDataType dt, const char *smooth, int64_t n, float *in, float *ext) {
  const int64_t es = dt == ACL_FLOAT ? 4 : 2, body8 = n / 8 * 8, body16 = n / 16 * 16;
  for (int64_t j = 0; j < body8; j += 8) {
    __m256 v = load8(x + j * es, dt);
    if (smooth != nullptr) v = _mm256_mul_ps(v, load8(smooth + j * es, dt));
    _mm256_storeu_ps(in + j, v);
  }
  if (body8 < n) {
    float unused[3];
    quant_token_prep_portable(x + body8 * es, dt, smooth ? smooth + body8 * es : nullptr, n - body8, in + body8, unused);
  }
  // The extrema of the row now in L1. max / min return their second operand when either is NaN:
  // the running value, so NaN is ignored.
  __m512 amax = _mm512_setzero_ps(), mn = _mm512_set1_ps(INFINITY), mx = _mm512_set1_ps(-INFINITY);
  for (int64_t j = 0; j < body16; j += 16) {
    const __m512 v = _mm512_loadu_ps(in + j);
    amax = _mm512_max_ps(_mm512_abs_ps(v), amax);
    mn = _mm512_min_ps(v, mn);
    mx = _mm512_max_ps(v, mx);
  }
  // The lanes (through memory: SIMDe has no 512-bit reductions) and the tail, each folded by the
  // scalar kernel, then combined.
  alignas(64) float lanes[3][16];
  _mm512_store_ps(lanes[0], amax);
  _mm512_store_ps(lanes[1], mn);
  _mm512_store_ps(lanes[2], mx);
  float e0[3], e1[3], e2[3], et[3];
  quant_row_extrema(lanes[0], 16, e0);
  quant_row_extrema(lanes[1], 16, e1);
  quant_row_extrema(lanes[2], 16, e2);
  quant_row_extrema(in + body16, n - body16, et);
  ext[0] = std::fmax(e0[2], et[0]);
  ext[1] = std::fmin(e1[1], et[1]);
  ext[2] = std::fmax(e2[2], et[2]);
}

// 256-bit: SIMDe has no 512-bit float -> int32 conversion.
void quant_token_int8_avx512(const float *in, int64_t n, float scale, float offset, int8_t *y) {
  const int64_t body = scale == 0.0f ? 0 : n / 16 * 16;
  const __m256 s = _mm256_set1_ps(scale), o = _mm256_set1_ps(offset), lo = _mm256_set1_ps(-128.0f),
               hi = _mm256_set1_ps(127.0f);
  auto eight = [&](const float *p) {
    __m256 t = _mm256_add_ps(_mm256_div_ps(_mm256_loadu_ps(p), s), o);
    t = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256 ordered = _mm256_cmp_ps(t, t, _CMP_ORD_Q);  // NaN lanes give 0
    return _mm256_cvtps_epi32(_mm256_and_ps(ordered, _mm256_min_ps(_mm256_max_ps(t, lo), hi)));
  };
  for (int64_t j = 0; j < body; j += 16) {
    // int32 -> int16 -> int8 (values already in range; the packs interleave 128-bit lanes, the
    // permute restores the order)
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(eight(in + j), eight(in + j + 8)), 0xD8);
    _mm_storeu_si128(reinterpret_cast<__m128i *>(y + j),
                     _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
  }
  quant_token_int8_portable(in + body, n - body, scale, offset, y + body);
}

}  // namespace opsnn::kernels

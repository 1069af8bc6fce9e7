// The prologue and epilogue of the 12x32 AVX-512 tiles (fp32 and BF16 kernels): prefetch the C
// rows, and store alpha * acc (+ beta * C). Include only from units compiled with AVX-512 flags.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/simd/avx512_intrinsics.h"

namespace opsnn::kernels::gemm_detail {

// The first n elements of a vector from / to memory, the rest zero on load and untouched on store
// (0 <= n <= the vector's width): masked loads and stores on the hardware; through a buffer in the
// SIMDe build, whose version has no masked loads or stores.
inline __m512i avx512_load_prefix_epi8(const void *p, int64_t n) {
#if defined(OPSNN_EMULATE_AVX512)
  alignas(64) uint8_t buf[64] = {};
  std::memcpy(buf, p, static_cast<size_t>(n));
  return _mm512_load_si512(buf);
#else
  return _mm512_maskz_loadu_epi8(n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1, p);
#endif
}
inline __m512 avx512_load_prefix_ps(const float *p, int64_t n) {
#if defined(OPSNN_EMULATE_AVX512)
  alignas(64) float buf[16] = {};
  std::memcpy(buf, p, static_cast<size_t>(n) * sizeof(float));
  return _mm512_load_ps(buf);
#else
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>(n >= 16 ? 0xFFFFu : (1u << n) - 1), p);
#endif
}
inline void avx512_store_prefix_ps(float *p, int64_t n, __m512 v) {
#if defined(OPSNN_EMULATE_AVX512)
  alignas(64) float buf[16];
  _mm512_store_ps(buf, v);
  std::memcpy(p, buf, static_cast<size_t>(n) * sizeof(float));
#else
  _mm512_mask_storeu_ps(p, static_cast<__mmask16>(n >= 16 ? 0xFFFFu : (1u << n) - 1), v);
#endif
}

// C is read and written only at the end of the tile: start fetching its lines now.
template <int ROWS>
inline __attribute__((always_inline)) void avx512_tile_prefetch_c(const float *c, int64_t ldc) {
#pragma GCC unroll 16
  for (int i = 0; i < ROWS; ++i) {
    _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc + 31), _MM_HINT_T0);
  }
}

// c[i][0..32) = beta == 0 ? alpha * acc : fma(alpha, acc, beta * c), acc = (acc0[i], acc1[i]).
template <int ROWS>
inline __attribute__((always_inline)) void avx512_tile_store(const __m512 (&acc0)[ROWS], const __m512 (&acc1)[ROWS],
                                                             float *c, int64_t ldc, float alpha, float beta) {
  const __m512 va = _mm512_set1_ps(alpha);
  if (beta == 0.0f) {
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      _mm512_storeu_ps(c + i * ldc, _mm512_mul_ps(va, acc0[i]));
      _mm512_storeu_ps(c + i * ldc + 16, _mm512_mul_ps(va, acc1[i]));
    }
  } else {
    const __m512 vb = _mm512_set1_ps(beta);
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      float *ci = c + i * ldc;
      _mm512_storeu_ps(ci, _mm512_fmadd_ps(va, acc0[i], _mm512_mul_ps(vb, _mm512_loadu_ps(ci))));
      _mm512_storeu_ps(ci + 16, _mm512_fmadd_ps(va, acc1[i], _mm512_mul_ps(vb, _mm512_loadu_ps(ci + 16))));
    }
  }
}

}  // namespace opsnn::kernels::gemm_detail

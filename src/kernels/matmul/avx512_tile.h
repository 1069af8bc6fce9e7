// The prologue and epilogue of the 12x32 AVX-512 tiles (fp32 and BF16 kernels): prefetch the C
// rows, and store alpha * acc (+ beta * C). Include only from units compiled with AVX-512 flags.
#pragma once

#include <cstdint>

#include "kernels/simd/avx512_intrinsics.h"

namespace opsnn::kernels::gemm_detail {

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

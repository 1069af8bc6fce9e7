// AVX2 block transposes: 4-byte elements, two 8 x 8 ymm transposes stacked (16 source rows x 8
// columns), so each output row receives a whole 64-byte line in two halves (streamed when asked);
// the next tile's source lines are prefetched as in the AVX-512 unit. 2-byte elements:
// transpose_u16_ymm.h.
#include <immintrin.h>

#include "kernels/layout/transpose_tile.h"
#include "kernels/layout/transpose_u16_ymm.h"
#include "kernels/matmul/avx2_transpose.h"

namespace opsnn::kernels {
namespace {

void blocks32(const void *src0, int64_t ss, void *dst0, int64_t ds, int64_t rows, int64_t cols, bool streaming) {
  const float *src = static_cast<const float *>(src0);
  float *dst = static_cast<float *>(dst0);
  const bool stream = streaming && (reinterpret_cast<uintptr_t>(dst) & 63) == 0 && (ds * 4 & 63) == 0;
  for (int64_t i0 = 0; i0 < rows; i0 += 16)
    for (int64_t j0 = 0; j0 < cols; j0 += 8) {
      __m256 lo[8], hi[8];
      for (int i = 0; i < 8; ++i) {
        const float *s = src + (i0 + i) * ss + j0;
        _mm_prefetch(reinterpret_cast<const char *>(s + cols), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char *>(s + 8 * ss + cols), _MM_HINT_T1);
        lo[i] = _mm256_loadu_ps(s);
        hi[i] = _mm256_loadu_ps(s + 8 * ss);
      }
      avx2::transpose8(lo);  // moves bits only: any 4-byte dtype
      avx2::transpose8(hi);
      for (int j = 0; j < 8; ++j) {
        float *d = dst + (j0 + j) * ds + i0;
        if (stream) {
          _mm256_stream_ps(d, lo[j]);
          _mm256_stream_ps(d + 8, hi[j]);
        } else {
          _mm256_storeu_ps(d, lo[j]);
          _mm256_storeu_ps(d + 8, hi[j]);
        }
      }
    }
}

}  // namespace

TransposeBlocksFn transpose_blocks_avx2(size_t es) {
  return es == 4 ? &blocks32 : es == 2 ? &u16_ymm::blocks : nullptr;
}

}  // namespace opsnn::kernels

// Portable block transposes: on x86-64 (SSE2 is its baseline) 16 x 16 4-byte blocks of SSE 4 x 4
// register transposes, four source rows consumed whole at a time, through an L1 buffer whose rows
// then leave as whole 64-byte lines, and 16 x 16 1-byte blocks of byte interleaves; no block form
// elsewhere.
#include <cstring>

#include "kernels/elementwise/stream_copy.h"
#include "kernels/layout/transpose_tile.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace opsnn::kernels {
namespace {

#if defined(__SSE2__)
void blocks32(const void *src0, int64_t ss, void *dst0, int64_t ds, int64_t rows, int64_t cols, bool streaming) {
  const float *src = static_cast<const float *>(src0);
  float *dst = static_cast<float *>(dst0);
  alignas(64) float buf[16][16];
  for (int64_t i0 = 0; i0 < rows; i0 += 16)
    for (int64_t j0 = 0; j0 < cols; j0 += 16) {
      for (int ii = 0; ii < 16; ii += 4)
        for (int jj = 0; jj < 16; jj += 4) {
          const float *sp = src + (i0 + ii) * ss + j0 + jj;
          __m128 r0 = _mm_loadu_ps(sp), r1 = _mm_loadu_ps(sp + ss), r2 = _mm_loadu_ps(sp + 2 * ss),
                 r3 = _mm_loadu_ps(sp + 3 * ss);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          _mm_store_ps(&buf[jj][ii], r0);
          _mm_store_ps(&buf[jj + 1][ii], r1);
          _mm_store_ps(&buf[jj + 2][ii], r2);
          _mm_store_ps(&buf[jj + 3][ii], r3);
        }
      for (int jj = 0; jj < 16; ++jj) {
        float *line = dst + (j0 + jj) * ds + i0;
        if (streaming && (reinterpret_cast<uintptr_t>(line) & 63) == 0) copy_line_streaming(line, buf[jj]);
        else std::memcpy(line, buf[jj], sizeof buf[jj]);
      }
    }
}

// 16 x 16 1-byte blocks: four rounds of byte interleaves of register i with register i + 8. Each
// round rotates the 8-bit position (4 register bits, 4 byte bits) left by one, so four of them swap
// the row and column halves: register j then holds column j. Every tier takes this form (the wider
// registers gain nothing on 16-byte output runs); the next tile's rows are prefetched.
void blocks8(const void *src0, int64_t ss, void *dst0, int64_t ds, int64_t rows, int64_t cols, bool) {
  const unsigned char *src = static_cast<const unsigned char *>(src0);
  unsigned char *dst = static_cast<unsigned char *>(dst0);
  for (int64_t i0 = 0; i0 < rows; i0 += 16)
    for (int64_t j0 = 0; j0 < cols; j0 += 16) {
      const unsigned char *s = src + i0 * ss + j0;
      __m128i x[16], y[16];
      for (int i = 0; i < 16; ++i) _mm_prefetch(reinterpret_cast<const char *>(s + i * ss + cols), _MM_HINT_T1);
      for (int i = 0; i < 16; ++i) x[i] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(s + i * ss));
      for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < 8; ++i) {
          y[2 * i] = _mm_unpacklo_epi8(x[i], x[i + 8]);
          y[2 * i + 1] = _mm_unpackhi_epi8(x[i], x[i + 8]);
        }
        std::memcpy(x, y, sizeof x);
      }
      for (int j = 0; j < 16; ++j) _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + (j0 + j) * ds + i0), x[j]);
    }
}
#endif

}  // namespace

TransposeBlocksFn transpose_blocks_portable(size_t es) {
#if defined(__SSE2__)
  if (es == 4) return &blocks32;
  if (es == 1) return &blocks8;
#endif
  (void)es;
  return nullptr;
}

}  // namespace opsnn::kernels

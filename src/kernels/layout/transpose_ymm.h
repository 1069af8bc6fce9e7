// Block transposes in ymm registers (4-byte: 8 x 8, 2-byte: 16 x 16, two side by side per output
// line), for the AVX2 and AVX-512 units only (compiled with at least -mavx2; `static`: each unit
// keeps its own copy).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/matmul/avx2_transpose.h"

namespace opsnn::kernels::ymm {

// Rows 0..7 of r (16 x 2 bytes each) in place: lane 0 of r[c] becomes column c of the 8 rows,
// lane 1 column 8 + c (16-, 32- then 64-bit interleaves within the 128-bit lanes).
static inline void transpose8x8_lanes(__m256i *r) {
  __m256i t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = _mm256_unpacklo_epi16(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm256_unpackhi_epi16(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 2; ++q) {  // rows 4q..4q+3
    u[4 * q] = _mm256_unpacklo_epi32(t[4 * q], t[4 * q + 2]);
    u[4 * q + 1] = _mm256_unpackhi_epi32(t[4 * q], t[4 * q + 2]);
    u[4 * q + 2] = _mm256_unpacklo_epi32(t[4 * q + 1], t[4 * q + 3]);
    u[4 * q + 3] = _mm256_unpackhi_epi32(t[4 * q + 1], t[4 * q + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    r[2 * k] = _mm256_unpacklo_epi64(u[k], u[4 + k]);
    r[2 * k + 1] = _mm256_unpackhi_epi64(u[k], u[4 + k]);
  }
}

// r[0..15]: rows on entry, columns 0..15 on return.
static inline void transpose16x16(__m256i r[16]) {
  transpose8x8_lanes(r);
  transpose8x8_lanes(r + 8);
  __m256i c[16];
  for (int k = 0; k < 8; ++k) {
    c[k] = _mm256_permute2x128_si256(r[k], r[8 + k], 0x20);
    c[8 + k] = _mm256_permute2x128_si256(r[k], r[8 + k], 0x31);
  }
  for (int k = 0; k < 16; ++k) r[k] = c[k];
}

// 4-byte rows in place (8 x 8 floats' bits), for blocks<uint32_t, 8, ...>.
static inline void transpose8x8_u32(__m256i r[8]) {
  __m256 f[8];
  for (int k = 0; k < 8; ++k) f[k] = _mm256_castsi256_ps(r[k]);
  avx2::transpose8(f);
  for (int k = 0; k < 8; ++k) r[k] = _mm256_castps_si256(f[k]);
}

// Blocks of 2H source rows x H columns of E (H elements = 32 bytes): two H x H transposes side by
// side, so each output row receives one whole 64-byte line in two halves (streamed when asked);
// the next tile's source lines (`cols` further) are prefetched.
template <class E, int H, void (*Transpose)(__m256i *)>
static void blocks(const void *src0, int64_t ss, void *dst0, int64_t ds, int64_t rows, int64_t cols, bool streaming) {
  static_assert(H * sizeof(E) == 32, "a ymm register holds H elements");
  const E *src = static_cast<const E *>(src0);
  E *dst = static_cast<E *>(dst0);
  const bool stream = streaming && (reinterpret_cast<uintptr_t>(dst) & 63) == 0 &&
                      (ds * static_cast<int64_t>(sizeof(E)) & 63) == 0;
  for (int64_t i0 = 0; i0 < rows; i0 += 2 * H)
    for (int64_t j0 = 0; j0 < cols; j0 += H) {
      __m256i lo[H], hi[H];
      for (int i = 0; i < H; ++i) {
        const E *s = src + (i0 + i) * ss + j0;
        _mm_prefetch(reinterpret_cast<const char *>(s + cols), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char *>(s + H * ss + cols), _MM_HINT_T1);
        lo[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s));
        hi[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(s + H * ss));
      }
      Transpose(lo);  // moves bits only: any dtype of the size
      Transpose(hi);
      for (int j = 0; j < H; ++j) {
        __m256i *d = reinterpret_cast<__m256i *>(dst + (j0 + j) * ds + i0);
        if (stream) {
          _mm256_stream_si256(d, lo[j]);
          _mm256_stream_si256(d + 1, hi[j]);
        } else {
          _mm256_storeu_si256(d, lo[j]);
          _mm256_storeu_si256(d + 1, hi[j]);
        }
      }
    }
}

}  // namespace opsnn::kernels::ymm

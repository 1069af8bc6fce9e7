// AVX-512 block transposes: 16 x 16 4-byte and 8 x 8 8-byte elements in 16 / 8 zmm registers, so
// every load reads and every store writes one 64-byte line (whole lines on both sides when the
// rows are line-aligned); 2-byte elements with the AVX2 unit's ymm form.
#include "kernels/elementwise/stream_copy.h"
#include "kernels/layout/transpose_tile.h"
#include "kernels/layout/transpose_ymm.h"
#include "kernels/simd/avx512_intrinsics.h"

namespace opsnn::kernels {
namespace {

inline void put_line(void *p, __m512i v, bool streaming) {
#if defined(OPSNN_EMULATE_AVX512)  // SIMDe has no _mm512_stream_si512
  if (streaming) {
    alignas(64) unsigned char line[64];
    _mm512_storeu_si512(line, v);
    copy_line_streaming(p, line);
    return;
  }
#else
  if (streaming) {
    _mm512_stream_si512(static_cast<__m512i *>(p), v);
    return;
  }
#endif
  _mm512_storeu_si512(p, v);
}

// r[i] holds row i (16 x 4 bytes) on entry and column i on return: 32-bit and 64-bit interleaves
// within 128-bit lanes, then two rounds of lane shuffles.
inline void transpose16x32(__m512i r[16]) {
  __m512i u[16];
  for (int g = 0; g < 4; ++g) {
    const __m512i a = _mm512_unpacklo_epi32(r[4 * g], r[4 * g + 1]), b = _mm512_unpackhi_epi32(r[4 * g], r[4 * g + 1]);
    const __m512i c = _mm512_unpacklo_epi32(r[4 * g + 2], r[4 * g + 3]),
                  d = _mm512_unpackhi_epi32(r[4 * g + 2], r[4 * g + 3]);
    u[4 * g] = _mm512_unpacklo_epi64(a, c);  // lane k: column 4k of rows 4g..4g+3
    u[4 * g + 1] = _mm512_unpackhi_epi64(a, c);
    u[4 * g + 2] = _mm512_unpacklo_epi64(b, d);
    u[4 * g + 3] = _mm512_unpackhi_epi64(b, d);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512i vlo = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88), vhi = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
    const __m512i wlo = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88),
                  whi = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
    r[c] = _mm512_shuffle_i32x4(vlo, wlo, 0x88);
    r[8 + c] = _mm512_shuffle_i32x4(vlo, wlo, 0xdd);
    r[4 + c] = _mm512_shuffle_i32x4(vhi, whi, 0x88);
    r[12 + c] = _mm512_shuffle_i32x4(vhi, whi, 0xdd);
  }
}

// r[i] holds row i (8 x 8 bytes) on entry and column i on return (the lane shuffles move 128-bit
// lanes: the i32x4 form, which SIMDe also has, does what i64x2 would).
inline void transpose8x64(__m512i r[8]) {
  __m512i x[2][4];
  for (int p = 0; p < 4; ++p) {
    x[0][p] = _mm512_unpacklo_epi64(r[2 * p], r[2 * p + 1]);  // lane k: column 2k of rows 2p, 2p+1
    x[1][p] = _mm512_unpackhi_epi64(r[2 * p], r[2 * p + 1]);
  }
  for (int c = 0; c < 2; ++c) {
    const __m512i vlo = _mm512_shuffle_i32x4(x[c][0], x[c][1], 0x88), vhi = _mm512_shuffle_i32x4(x[c][0], x[c][1], 0xdd);
    const __m512i wlo = _mm512_shuffle_i32x4(x[c][2], x[c][3], 0x88), whi = _mm512_shuffle_i32x4(x[c][2], x[c][3], 0xdd);
    r[c] = _mm512_shuffle_i32x4(vlo, wlo, 0x88);
    r[4 + c] = _mm512_shuffle_i32x4(vlo, wlo, 0xdd);
    r[2 + c] = _mm512_shuffle_i32x4(vhi, whi, 0x88);
    r[6 + c] = _mm512_shuffle_i32x4(vhi, whi, 0xdd);
  }
}

// Walks the blocks a band of B source rows at a time; each block's B output lines go to B
// consecutive output rows.
template <int B, size_t ES, void (*Transpose)(__m512i *)>
void blocks(const void *src0, int64_t ss, void *dst0, int64_t ds, int64_t rows, int64_t cols, bool streaming) {
  const char *src = static_cast<const char *>(src0);
  char *dst = static_cast<char *>(dst0);
  const int64_t sb = ss * static_cast<int64_t>(ES), db = ds * static_cast<int64_t>(ES);
  // Streaming needs every output line 64-byte aligned: the first and the row step.
  const bool stream = streaming && (reinterpret_cast<uintptr_t>(dst) & 63) == 0 && (db & 63) == 0;
  // The caller walks tiles along the rows: the same rows' next `cols` elements are the next tile's.
  // Prefetched, as a tile reads more rows than the hardware prefetchers follow.
  const int64_t pf = cols * static_cast<int64_t>(ES);
  for (int64_t i0 = 0; i0 < rows; i0 += B)
    for (int64_t j0 = 0; j0 < cols; j0 += B) {
      __m512i r[B];
      const char *s = src + i0 * sb + j0 * static_cast<int64_t>(ES);
      for (int i = 0; i < B; ++i) _mm_prefetch(s + i * sb + pf, _MM_HINT_T1);
      for (int i = 0; i < B; ++i) r[i] = _mm512_loadu_si512(s + i * sb);
      Transpose(r);
      char *d = dst + j0 * db + i0 * static_cast<int64_t>(ES);
      if (stream)
        for (int j = 0; j < B; ++j) put_line(d + j * db, r[j], true);
      else
        for (int j = 0; j < B; ++j) put_line(d + j * db, r[j], false);
    }
}

}  // namespace

TransposeBlocksFn transpose_blocks_avx512(size_t es) {
  if (es == 4) return &blocks<16, 4, &transpose16x32>;
  if (es == 8) return &blocks<8, 8, &transpose8x64>;
  if (es == 2) return &ymm::blocks<uint16_t, 16, &ymm::transpose16x16>;  // as in the AVX2 unit
  return nullptr;
}

}  // namespace opsnn::kernels

// AVX512-VNNI int8 GEMM tiles: up to 12 rows x 32 columns over k-quads. Per quad step two B vectors
// (32 columns x 4 int8) and one 32-bit broadcast of A per row (4 unsigned bytes) feed 24 vpdpbusd
// (four exact u8 x s8 products summed into an int32 lane, no saturation) into 24 zmm accumulators:
// 64 multiply-adds per instruction, four times the fp32 FMA rate. A is packed biased to unsigned
// (a + 128); the driver removes 128 * colsum(B) afterwards.
//
// Constant-initialised table: no code of this unit runs before CPU detection.
#include "kernels/simd/avx512_intrinsics.h"

#include "kernels/matmul/igemm_tiles.h"

namespace opsnn::kernels::igemm_detail {
namespace {

constexpr int kMr = 12;
constexpr int kNr = 32;

template <int ROWS>
void tile_vnni(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc, bool accumulate) {
  __m512i acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 12
  for (int i = 0; i < ROWS; ++i) acc0[i] = acc1[i] = _mm512_setzero_si512();
#pragma GCC unroll 2
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < ROWS; ++i) {
      const __m512i ai = _mm512_set1_epi32(static_cast<int>(a[i]));
      acc0[i] = _mm512_dpbusd_epi32(acc0[i], ai, b0);
      acc1[i] = _mm512_dpbusd_epi32(acc1[i], ai, b1);
    }
    a += kMr;
    b += kNr;
  }
#pragma GCC unroll 12
  for (int i = 0; i < ROWS; ++i) {
    int32_t *ci = c + i * ldc;
    if (accumulate) {
      acc0[i] = _mm512_add_epi32(acc0[i], _mm512_loadu_si512(ci));
      acc1[i] = _mm512_add_epi32(acc1[i], _mm512_loadu_si512(ci + 16));
    }
    _mm512_storeu_si512(ci, acc0[i]);
    _mm512_storeu_si512(ci + 16, acc1[i]);
  }
}

// Wrapping sum of the 16 lanes (through memory: it runs once per result, and GCC 12's extract /
// shift intrinsics warn about their undefined pass-through operand).
inline uint32_t hsum(__m512i v) {
  alignas(64) uint32_t lanes[16];
  _mm512_store_si512(lanes, v);
  uint32_t s = 0;
  for (uint32_t x : lanes) s += x;
  return s;
}

// Small-M dot products, B [N, K]: 64 k per step; A biased to unsigned on the fly, and each column's
// sum (for removing the bias) taken by one more vpdpbusd against ones.
template <int ROWS, int COLS>
void dot_block(int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int32_t *c, int64_t ldc) {
  __m512i acc[ROWS][COLS], sum[COLS];
  for (int q = 0; q < COLS; ++q) {
    sum[q] = _mm512_setzero_si512();
    for (int i = 0; i < ROWS; ++i) acc[i][q] = _mm512_setzero_si512();
  }
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80)), ones = _mm512_set1_epi8(1);
  const int64_t kv = k / 64 * 64;
  for (int64_t p = 0; p < kv; p += 64) {
    __m512i bv[COLS];
    for (int q = 0; q < COLS; ++q) {
      bv[q] = _mm512_loadu_si512(b + q * ldb + p);
      sum[q] = _mm512_dpbusd_epi32(sum[q], ones, bv[q]);
    }
    for (int i = 0; i < ROWS; ++i) {
      const __m512i av = _mm512_xor_si512(_mm512_loadu_si512(a + i * lda + p), bias);
      for (int q = 0; q < COLS; ++q) acc[i][q] = _mm512_dpbusd_epi32(acc[i][q], av, bv[q]);
    }
  }
  for (int q = 0; q < COLS; ++q) {
    const uint32_t corr = hsum(sum[q]) << 7;  // the +128 bias of A times the column's sum
    for (int i = 0; i < ROWS; ++i)
      c[i * ldc + q] = dot_tail(static_cast<int32_t>(hsum(acc[i][q]) - corr), a + i * lda, b + q * ldb, kv, k);
  }
}

void dot_vnni(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
              int32_t *c, int64_t ldc) {
  dot_columns<4, 4>(rows, cols, [&](auto r, auto q, int64_t j) {
    dot_block<decltype(r)::value, decltype(q)::value>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
  });
}

}  // namespace

constexpr IgemmTiles kIgemmAvx512VnniTiles = {
    kMr, kNr, 4,
    {nullptr, &tile_vnni<1>, &tile_vnni<2>, &tile_vnni<3>, &tile_vnni<4>, &tile_vnni<5>, &tile_vnni<6>,
     &tile_vnni<7>, &tile_vnni<8>, &tile_vnni<9>, &tile_vnni<10>, &tile_vnni<11>, &tile_vnni<12>},
    &pack_b_avx2, &dot_vnni, &stream_avx2, &pack_a_avx2, true, kStreamMaxRows};

}  // namespace opsnn::kernels::igemm_detail

// AVX512-VNNI int8 GEMM tiles: up to 12 rows x 32 columns over k-quads. Per quad step two B vectors
// (32 columns x 4 int8) and one 32-bit broadcast of A per row (4 unsigned bytes) feed 24 vpdpbusd
// (four exact u8 x s8 products summed into an int32 lane, no saturation) into 24 zmm accumulators:
// 64 multiply-adds per instruction, four times the fp32 FMA rate. A is packed biased to unsigned
// (a + 128); the driver removes 128 * colsum(B) afterwards.
//
// Constant-initialised table: no code of this unit runs before CPU detection.
#include "kernels/simd/avx512_intrinsics.h"

#include <algorithm>
#include <cstring>

#include "kernels/matmul/avx512_tile.h"
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

// The small-M kernels read B in place and bias B, not A, to unsigned (b ^ 0x80 = b + 128), the
// operand vpdpbusd takes unsigned; A's int8 stays signed. sum (b + 128) a = sum a b + 128 sum a, so
// each row's result loses 128 * (its row sum of A), one scalar per row computed once, instead of
// one more vpdpbusd per vector of B for the column sums. Padding k (A's zeros) contributes nothing
// whatever B holds there. Every sum wraps in int32, so the result is exact whenever it fits.
inline uint32_t row_sum(const int8_t *a, int64_t k) {
  uint32_t s = 0;
  for (int64_t p = 0; p < k; ++p) s += static_cast<uint32_t>(static_cast<int32_t>(a[p]));
  return s;
}

// Small-M dot products, B [N, K]: 64 k per step (the last step masked: k beyond B's row reads
// zeros, biased to 128, times A's zero padding).
template <int ROWS, int COLS>
void dot_block(int64_t k, const int8_t *a, int64_t lda, const uint32_t *corr, const int8_t *b, int64_t ldb,
               int32_t *c, int64_t ldc) {
  __m512i acc[ROWS][COLS];
  for (int q = 0; q < COLS; ++q)
    for (int i = 0; i < ROWS; ++i) acc[i][q] = _mm512_setzero_si512();
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  const int64_t kv = k / 64 * 64;
  auto step = [&](int64_t p, int64_t n) {  // n = 64: a whole step; else its first n k
    __m512i bv[COLS];
    for (int q = 0; q < COLS; ++q)
      bv[q] = _mm512_xor_si512(n == 64 ? _mm512_loadu_si512(b + q * ldb + p) : gemm_detail::avx512_load_prefix_epi8(b + q * ldb + p, n),
                               bias);
    for (int i = 0; i < ROWS; ++i) {
      const __m512i av = _mm512_loadu_si512(a + i * lda + p);
      for (int q = 0; q < COLS; ++q) acc[i][q] = _mm512_dpbusd_epi32(acc[i][q], bv[q], av);
    }
  };
  for (int64_t p = 0; p < kv; p += 64) step(p, 64);
  if (kv < k) step(kv, k - kv);
  for (int q = 0; q < COLS; ++q)
    for (int i = 0; i < ROWS; ++i) c[i * ldc + q] = static_cast<int32_t>(hsum(acc[i][q]) - corr[i]);
}

void dot_vnni(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
              int32_t *c, int64_t ldc) {
  uint32_t corr[kDotMaxRows];
  for (int i = 0; i < rows; ++i) corr[i] = row_sum(a + i * lda, k) << 7;
  dot_columns<4, 4>(rows, cols, [&](auto r, auto q, int64_t j) {
    dot_block<decltype(r)::value, decltype(q)::value>(k, a, lda, corr, b + j * ldb, ldb, c + j, ldc);
  });
}

// ---- Small-M stream, B [K, N] ----
//
// Every pass reads kPassQuads x 4 rows of B across all columns (long sequential row segments, as the
// AVX2 stream), 64 columns per vector: four rows are interleaved into k-quads by two byte and two
// word unpacks, which leaves vector g of a 64-column strip holding columns 16 L + 4 g + t (lane L,
// dword t); the accumulators in c keep that order until the end. The quad vectors of a pass stay in
// registers while every row of A passes over them, its four accumulator vectors loaded and stored
// once per pass. A column tail under 64 accumulates in a local block (its permuted positions would
// overrun the row).
constexpr int64_t kStreamKb = 256;   // k per block (A's quads for them on the stack)
constexpr int kPassQuads = 4;        // k-quads per pass (16 rows of B)

// Position of column jj (< 64) of a strip in the accumulators' order.
inline int strip_pos(int jj) { return ((jj & 15) >> 2) * 16 + (jj >> 4) * 4 + (jj & 3); }

void stream_vnni(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
                 int32_t *c, int64_t ldc) {
  alignas(64) uint32_t aq[kStreamMaxRows][kStreamKb / 4];
  alignas(64) int32_t tail[kStreamMaxRows][64];
  const int64_t full = cols / 64 * 64, rest = cols - full;
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < full; ++j) c[i * ldc + j] = 0;
    for (int j = 0; j < 64; ++j) tail[i][j] = 0;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kStreamKb) {
    const int64_t kb = std::min(kStreamKb, k - k0), nq = (kb + 3) / 4;
    for (int i = 0; i < rows; ++i)  // A's quads, zero past k
      for (int64_t q = 0; q < nq; ++q) {
        uint32_t w = 0;
        for (int t = 0; t < 4; ++t)
          if (4 * q + t < kb) w |= static_cast<uint32_t>(static_cast<uint8_t>(a[i * lda + k0 + 4 * q + t])) << (8 * t);
        aq[i][q] = w;
      }
    for (int64_t q0 = 0; q0 < nq; q0 += kPassQuads) {
      const int qn = static_cast<int>(std::min<int64_t>(kPassQuads, nq - q0));
      const int64_t valid = std::min<int64_t>(4 * qn, kb - 4 * q0);  // rows of B in this pass
      const int8_t *rows_b = b + (k0 + 4 * q0) * ldb;
      auto strip = [&](int64_t j, int64_t width, int32_t *const *acc_row) {  // width 64, or the tail
        __m512i qv[kPassQuads][4];
        for (int q = 0; q < kPassQuads; ++q) {
          if (q >= qn) break;
          __m512i r[4];
          for (int t = 0; t < 4; ++t)
            r[t] = 4 * q + t >= valid ? _mm512_setzero_si512()
                   : width == 64    ? _mm512_loadu_si512(rows_b + (4 * q + t) * ldb + j)
                                    : gemm_detail::avx512_load_prefix_epi8(rows_b + (4 * q + t) * ldb + j, width);
          const __m512i t0 = _mm512_unpacklo_epi8(r[0], r[1]), t1 = _mm512_unpackhi_epi8(r[0], r[1]);
          const __m512i t2 = _mm512_unpacklo_epi8(r[2], r[3]), t3 = _mm512_unpackhi_epi8(r[2], r[3]);
          qv[q][0] = _mm512_xor_si512(_mm512_unpacklo_epi16(t0, t2), bias);
          qv[q][1] = _mm512_xor_si512(_mm512_unpackhi_epi16(t0, t2), bias);
          qv[q][2] = _mm512_xor_si512(_mm512_unpacklo_epi16(t1, t3), bias);
          qv[q][3] = _mm512_xor_si512(_mm512_unpackhi_epi16(t1, t3), bias);
        }
        for (int i = 0; i < rows; ++i) {
          int32_t *ci = acc_row[i];
          __m512i s0 = _mm512_loadu_si512(ci), s1 = _mm512_loadu_si512(ci + 16);
          __m512i s2 = _mm512_loadu_si512(ci + 32), s3 = _mm512_loadu_si512(ci + 48);
          if (qn == kPassQuads) {
#pragma GCC unroll 4
            for (int q = 0; q < kPassQuads; ++q) {
              const __m512i av = _mm512_set1_epi32(static_cast<int>(aq[i][q0 + q]));
              s0 = _mm512_dpbusd_epi32(s0, qv[q][0], av);
              s1 = _mm512_dpbusd_epi32(s1, qv[q][1], av);
              s2 = _mm512_dpbusd_epi32(s2, qv[q][2], av);
              s3 = _mm512_dpbusd_epi32(s3, qv[q][3], av);
            }
          } else {
            for (int q = 0; q < qn; ++q) {
              const __m512i av = _mm512_set1_epi32(static_cast<int>(aq[i][q0 + q]));
              s0 = _mm512_dpbusd_epi32(s0, qv[q][0], av);
              s1 = _mm512_dpbusd_epi32(s1, qv[q][1], av);
              s2 = _mm512_dpbusd_epi32(s2, qv[q][2], av);
              s3 = _mm512_dpbusd_epi32(s3, qv[q][3], av);
            }
          }
          _mm512_storeu_si512(ci, s0);
          _mm512_storeu_si512(ci + 16, s1);
          _mm512_storeu_si512(ci + 32, s2);
          _mm512_storeu_si512(ci + 48, s3);
        }
      };
      int32_t *acc_row[kStreamMaxRows];
      for (int64_t j = 0; j < full; j += 64) {
        for (int i = 0; i < rows; ++i) acc_row[i] = c + i * ldc + j;
        strip(j, 64, acc_row);
      }
      if (rest) {
        for (int i = 0; i < rows; ++i) acc_row[i] = tail[i];
        strip(full, rest, acc_row);
      }
    }
  }
  // Columns back in order, and the bias of B removed: 128 * (row sum of A).
  for (int i = 0; i < rows; ++i) {
    const uint32_t corr = row_sum(a + i * lda, k) << 7;
    alignas(64) int32_t blk[64];
    for (int64_t j = 0; j < full; j += 64) {
      std::memcpy(blk, c + i * ldc + j, sizeof blk);
      for (int jj = 0; jj < 64; ++jj)
        c[i * ldc + j + jj] = static_cast<int32_t>(static_cast<uint32_t>(blk[strip_pos(jj)]) - corr);
    }
    for (int jj = 0; jj < rest; ++jj)
      c[i * ldc + full + jj] = static_cast<int32_t>(static_cast<uint32_t>(tail[i][strip_pos(jj)]) - corr);
  }
}

}  // namespace

constexpr IgemmTiles kIgemmAvx512VnniTiles = {
    kMr, kNr, 4,
    {nullptr, &tile_vnni<1>, &tile_vnni<2>, &tile_vnni<3>, &tile_vnni<4>, &tile_vnni<5>, &tile_vnni<6>,
     &tile_vnni<7>, &tile_vnni<8>, &tile_vnni<9>, &tile_vnni<10>, &tile_vnni<11>, &tile_vnni<12>},
    &pack_b_avx2, &dot_vnni, &stream_vnni, &pack_a_avx2, true, kStreamMaxRows};

}  // namespace opsnn::kernels::igemm_detail

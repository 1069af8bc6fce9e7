// AArch64 DotProd int8 GEMM tiles: up to 6 rows x 16 columns over k-quads. Per quad step four B
// vectors (4 columns x 4 int8 each) and the 6 rows' A words in one q and one d register feed 24
// sdot (four exact s8 x s8 products summed into an int32 lane) into 24 accumulators: 16
// multiply-adds per instruction. Signed x signed, so A needs no bias (IgemmTiles::a_biased false).
// Also the small-M kernels that read B in place: dot products for B [N, K] (16 k per sdot) and a
// four-row stream for B [K, N].
//
// Compiled with -march=armv8.2-a+dotprod; constant-initialised table, no code of this unit runs
// before CPU detection (CpuFeatures::dotprod).
#include <arm_neon.h>

#include <utility>

#include "kernels/matmul/igemm_tiles.h"

namespace opsnn::kernels::igemm_detail {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

template <int I>
inline int32x4_t dot_row(int32x4_t acc, int8x16_t b, int8x16_t a03, int8x8_t a45) {
  if constexpr (I < 4) return vdotq_laneq_s32(acc, b, a03, I);
  else return vdotq_lane_s32(acc, b, a45, I - 4);
}

template <int ROWS, int... I>
inline void step_rows(int32x4_t (&acc)[ROWS][4], const int8x16_t (&bv)[4], int8x16_t a03, int8x8_t a45,
                      std::integer_sequence<int, I...>) {
  ((acc[I][0] = dot_row<I>(acc[I][0], bv[0], a03, a45), acc[I][1] = dot_row<I>(acc[I][1], bv[1], a03, a45),
    acc[I][2] = dot_row<I>(acc[I][2], bv[2], a03, a45), acc[I][3] = dot_row<I>(acc[I][3], bv[3], a03, a45)),
   ...);
}

// Packed panels (igemm_tiles.h): A word a[g * 6 + i] holds row i's 4 bytes of group g (always 6
// words, zero rows past the edge), B word b[g * 16 + j] column j's. Lane arithmetic wraps.
template <int ROWS>
void tile_sdot(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc, bool accumulate) {
  int32x4_t acc[ROWS][4];
  for (int i = 0; i < ROWS; ++i)
    for (int v = 0; v < 4; ++v) acc[i][v] = vdupq_n_s32(0);
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t *bb = reinterpret_cast<const int8_t *>(b);
    const int8x16_t bv[4] = {vld1q_s8(bb), vld1q_s8(bb + 16), vld1q_s8(bb + 32), vld1q_s8(bb + 48)};
    const int8_t *ab = reinterpret_cast<const int8_t *>(a);
    step_rows<ROWS>(acc, bv, vld1q_s8(ab), vld1_s8(ab + 16), std::make_integer_sequence<int, ROWS>{});
    a += kMr;
    b += kNr;
  }
  for (int i = 0; i < ROWS; ++i)
    for (int v = 0; v < 4; ++v) {
      int32_t *ci = c + i * ldc + 4 * v;
      vst1q_s32(ci, accumulate ? vaddq_s32(acc[i][v], vld1q_s32(ci)) : acc[i][v]);
    }
}

// Small-M dot products, B [N, K]: 16 k per sdot into 4 lanes per (row, column); lanes summed
// (wrapping) at the end, then the K tail one element at a time.
template <int ROWS, int COLS>
void dot_block(int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int32_t *c, int64_t ldc) {
  int32x4_t acc[ROWS][COLS];
  for (int i = 0; i < ROWS; ++i)
    for (int q = 0; q < COLS; ++q) acc[i][q] = vdupq_n_s32(0);
  const int64_t kv = k / 16 * 16;
  for (int64_t p = 0; p < kv; p += 16) {
    int8x16_t bv[COLS];
    for (int q = 0; q < COLS; ++q) bv[q] = vld1q_s8(b + q * ldb + p);
    for (int i = 0; i < ROWS; ++i) {
      const int8x16_t av = vld1q_s8(a + i * lda + p);
      for (int q = 0; q < COLS; ++q) acc[i][q] = vdotq_s32(acc[i][q], av, bv[q]);
    }
  }
  for (int i = 0; i < ROWS; ++i)
    for (int q = 0; q < COLS; ++q) {
      const uint32x4_t u = vreinterpretq_u32_s32(acc[i][q]);
      const int32_t s = static_cast<int32_t>(vaddvq_u32(u));  // unsigned: the wrap is defined
      c[i * ldc + q] = dot_tail(s, a + i * lda, b + q * ldb, kv, k);
    }
}

void dot_sdot(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
              int32_t *c, int64_t ldc) {
  dot_columns<4, 4>(rows, cols, [&](auto r, auto q, int64_t j) {
    dot_block<decltype(r)::value, decltype(q)::value>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
  });
}

// Small-M stream, B [K, N] (unit stride along N): four rows of B at a time, 16 columns interleaved
// into 4-byte column quads in registers (two rounds of zips), one sdot per 4 columns and row of A;
// int32 accumulators in c (the task's columns, L1 / L2). The last k % 4 rows one element at a time.
template <int ROWS>
void stream_rows(int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols, int32_t *c,
                 int64_t ldc) {
  for (int i = 0; i < ROWS; ++i)
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = 0;
  const int64_t kq = k / 4 * 4, cv = cols / 16 * 16;
  for (int64_t p = 0; p < kq; p += 4) {
    int8x16_t aw[ROWS];
    for (int i = 0; i < ROWS; ++i) {
      uint32_t word;
      __builtin_memcpy(&word, a + i * lda + p, 4);
      aw[i] = vreinterpretq_s8_u32(vdupq_n_u32(word));
    }
    const int8_t *r0 = b + p * ldb, *r1 = r0 + ldb, *r2 = r1 + ldb, *r3 = r2 + ldb;
    for (int64_t j = 0; j < cv; j += 16) {
      const int8x16_t x0 = vld1q_s8(r0 + j), x1 = vld1q_s8(r1 + j), x2 = vld1q_s8(r2 + j), x3 = vld1q_s8(r3 + j);
      const int16x8_t lo01 = vreinterpretq_s16_s8(vzip1q_s8(x0, x1)), hi01 = vreinterpretq_s16_s8(vzip2q_s8(x0, x1));
      const int16x8_t lo23 = vreinterpretq_s16_s8(vzip1q_s8(x2, x3)), hi23 = vreinterpretq_s16_s8(vzip2q_s8(x2, x3));
      const int8x16_t q[4] = {vreinterpretq_s8_s16(vzip1q_s16(lo01, lo23)), vreinterpretq_s8_s16(vzip2q_s16(lo01, lo23)),
                              vreinterpretq_s8_s16(vzip1q_s16(hi01, hi23)), vreinterpretq_s8_s16(vzip2q_s16(hi01, hi23))};
      for (int i = 0; i < ROWS; ++i) {
        int32_t *ci = c + i * ldc + j;
        for (int v = 0; v < 4; ++v) vst1q_s32(ci + 4 * v, vdotq_s32(vld1q_s32(ci + 4 * v), q[v], aw[i]));
      }
    }
    for (int64_t j = cv; j < cols; ++j)
      for (int i = 0; i < ROWS; ++i) {
        const int8_t *ai = a + i * lda + p;
        uint32_t acc = static_cast<uint32_t>(c[i * ldc + j]);
        acc += static_cast<uint32_t>(ai[0] * r0[j] + ai[1] * r1[j] + ai[2] * r2[j] + ai[3] * r3[j]);
        c[i * ldc + j] = static_cast<int32_t>(acc);
      }
  }
  for (int64_t p = kq; p < k; ++p)
    for (int i = 0; i < ROWS; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        uint32_t acc = static_cast<uint32_t>(c[i * ldc + j]);
        acc += static_cast<uint32_t>(static_cast<int32_t>(a[i * lda + p]) * b[p * ldb + j]);
        c[i * ldc + j] = static_cast<int32_t>(acc);
      }
}

void stream_sdot(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
                 int32_t *c, int64_t ldc) {
  with_rows(rows, [&](auto r) { stream_rows<decltype(r)::value>(k, a, lda, b, ldb, cols, c, ldc); });
}

}  // namespace

constexpr IgemmTiles kIgemmNeonDotTiles = {
    kMr, kNr, 4,
    {nullptr, &tile_sdot<1>, &tile_sdot<2>, &tile_sdot<3>, &tile_sdot<4>, &tile_sdot<5>, &tile_sdot<6>},
    nullptr, &dot_sdot, &stream_sdot, nullptr, false};

}  // namespace opsnn::kernels::igemm_detail

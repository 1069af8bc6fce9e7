// AArch64 DotProd int8 GEMM tiles: up to 6 rows x 16 columns over k-quads. Per quad step four B
// vectors (4 columns x 4 int8 each) and the 6 rows' A words in one q and one d register feed 24
// sdot (four exact s8 x s8 products summed into an int32 lane) into 24 accumulators: 16
// multiply-adds per instruction. Signed x signed, so A needs no bias (IgemmTiles::a_biased false).
// Also the small-M dot kernel for B [N, K] (16 k per sdot, B read in place).
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

template <int ROWS>
void dot_rows(int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols, int32_t *c,
              int64_t ldc) {
  constexpr int kCols = 4;
  int64_t j = 0;
  for (; j + kCols <= cols; j += kCols) dot_block<ROWS, kCols>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
  for (; j < cols; ++j) dot_block<ROWS, 1>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
}

void dot_sdot(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
              int32_t *c, int64_t ldc) {
  with_rows(rows, [&](auto r) { dot_rows<decltype(r)::value>(k, a, lda, b, ldb, cols, c, ldc); });
}

}  // namespace

constexpr IgemmTiles kIgemmNeonDotTiles = {
    kMr, kNr, 4,
    {nullptr, &tile_sdot<1>, &tile_sdot<2>, &tile_sdot<3>, &tile_sdot<4>, &tile_sdot<5>, &tile_sdot<6>},
    nullptr, &dot_sdot, nullptr, nullptr, false};

}  // namespace opsnn::kernels::igemm_detail

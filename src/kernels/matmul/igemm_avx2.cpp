// AVX2 int8 GEMM tiles: up to 6 rows x 16 columns over int16 k-pairs. Per pair step two B vectors
// (16 columns x 2 int16) and one 32-bit broadcast of A per row feed vpmaddwd (two exact products
// summed into an int32 lane) and vpaddd into 12 ymm accumulators. AVX2 has no int8 dot-product
// instruction that cannot saturate (vpmaddubsw saturates to int16), so the operands are widened to
// int16 when packed.
#include <immintrin.h>

#include "kernels/matmul/igemm_tiles.h"

namespace opsnn::kernels::igemm_detail {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

template <int ROWS>
void tile_avx2(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc, bool accumulate) {
  __m256i acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 6
  for (int i = 0; i < ROWS; ++i) acc0[i] = acc1[i] = _mm256_setzero_si256();
#pragma GCC unroll 2
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 8));
#pragma GCC unroll 6
    for (int i = 0; i < ROWS; ++i) {
      const __m256i ai = _mm256_set1_epi32(static_cast<int>(a[i]));
      acc0[i] = _mm256_add_epi32(acc0[i], _mm256_madd_epi16(ai, b0));
      acc1[i] = _mm256_add_epi32(acc1[i], _mm256_madd_epi16(ai, b1));
    }
    a += kMr;
    b += kNr;
  }
#pragma GCC unroll 6
  for (int i = 0; i < ROWS; ++i) {
    __m256i *ci = reinterpret_cast<__m256i *>(c + i * ldc);
    if (accumulate) {
      acc0[i] = _mm256_add_epi32(acc0[i], _mm256_loadu_si256(ci));
      acc1[i] = _mm256_add_epi32(acc1[i], _mm256_loadu_si256(ci + 1));
    }
    _mm256_storeu_si256(ci, acc0[i]);
    _mm256_storeu_si256(ci + 1, acc1[i]);
  }
}

}  // namespace

constexpr IgemmTiles kIgemmAvx2Tiles = {
    kMr, kNr, 2,
    {nullptr, &tile_avx2<1>, &tile_avx2<2>, &tile_avx2<3>, &tile_avx2<4>, &tile_avx2<5>, &tile_avx2<6>}};

}  // namespace opsnn::kernels::igemm_detail

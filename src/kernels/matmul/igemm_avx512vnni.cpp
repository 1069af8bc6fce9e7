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

}  // namespace

constexpr IgemmTiles kIgemmAvx512VnniTiles = {
    kMr, kNr, 4,
    {nullptr, &tile_vnni<1>, &tile_vnni<2>, &tile_vnni<3>, &tile_vnni<4>, &tile_vnni<5>, &tile_vnni<6>,
     &tile_vnni<7>, &tile_vnni<8>, &tile_vnni<9>, &tile_vnni<10>, &tile_vnni<11>, &tile_vnni<12>}};

}  // namespace opsnn::kernels::igemm_detail

// Int8 GEMM micro-kernels (igemm.h): one table of tiles per ISA tier, each entry the same tile
// for 1..kMaxRows rows of A, so an edge (or M = 1..4) never multiplies padding rows.
//
// Packed operands, in 32-bit words (one k-group of one row / column each):
//   A panel: a[g * mr_max + i], i < mr_max (rows past the edge hold zeros)
//   B panel: b[g * nr + j], j < nr (columns past the edge hold zeros)
// kgroup 2 (portable, AVX2): a word is two int16 (k = 2g low half, 2g + 1 high half), for vpmaddwd.
// kgroup 4 (AVX512-VNNI): four bytes, k = 4g + t in byte t; A as unsigned (a + 128, i.e. a ^ 0x80,
// padding k with 0x80 = zero), B signed; the driver subtracts 128 * (column sum of B).
// A tile: c[i * ldc + j] (+)= sum over g of the word products, for i < ROWS, j < nr; the int32
// arithmetic wraps (exact whenever the true sum fits).
#pragma once

#include <cstdint>

namespace opsnn::kernels::igemm_detail {

using IgemmTileFn = void (*)(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc,
                             bool accumulate);

constexpr int kMaxRows = 12;

struct IgemmTiles {
  int mr_max;
  int nr;
  int kgroup;
  IgemmTileFn tile[kMaxRows + 1];  // tile[r]: r rows (1 <= r <= mr_max), null elsewhere
};

extern const IgemmTiles kIgemmPortableTiles;
#if defined(__x86_64__) || defined(_M_X64)
extern const IgemmTiles kIgemmAvx2Tiles;
extern const IgemmTiles kIgemmAvx512VnniTiles;
#endif

}  // namespace opsnn::kernels::igemm_detail

// Int8 GEMM micro-kernels (igemm.h): one table of tiles per ISA tier, each entry the same tile
// for 1..kMaxRows rows of A, so an edge (or M = 1..4) never multiplies padding rows.
//
// Packed operands, in 32-bit words (one k-group of one row / column each):
//   A panel: a[g * mr_max + i], i < mr_max (rows past the edge hold zeros)
//   B panel: b[g * nr + j], j < nr (columns past the edge hold zeros)
// kgroup 2 (portable, AVX2): a word is two int16 (k = 2g low half, 2g + 1 high half), for vpmaddwd.
// kgroup 4: four bytes, k = 4g + t in byte t, B signed. With a_biased (AVX512-VNNI, whose vpdpbusd
// multiplies unsigned by signed bytes) A is stored unsigned (a + 128, i.e. a ^ 0x80, padding k with
// 0x80 = zero) and the driver subtracts 128 * (column sum of B); otherwise (AArch64 sdot) A is
// signed too.
// A tile: c[i * ldc + j] (+)= sum over g of the word products, for i < ROWS, j < nr; the int32
// arithmetic wraps (exact whenever the true sum fits).
#pragma once

#include <cstdint>
#include <type_traits>

namespace opsnn::kernels::igemm_detail {

using IgemmTileFn = void (*)(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc,
                             bool accumulate);

constexpr int kMaxRows = 12;
constexpr int kDotMaxRows = 4;  // rows of the small-M kernels (dot; stream by default)
constexpr int kStreamMaxRows = 16;  // most rows a stream kernel can take (IgemmTiles::stream_max_rows)

// f(std::integral_constant<int, r>{}) for r = rows, 1 <= rows <= kDotMaxRows: dispatches a runtime
// row count to a kernel template.
template <class F>
inline void with_rows(int rows, F &&f) {
  switch (rows) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    default: f(std::integral_constant<int, 4>{}); break;
  }
}

// The dispatch of the small-M dot kernels: f(rows_c, cols_c, j) for column blocks starting at j,
// WIDE_1_2 (rows 1-2) or WIDE_3_4 (rows 3-4) columns at a time, then single columns; rows_c and
// cols_c are std::integral_constant (the kernel's accumulator grid).
template <int WIDE_1_2, int WIDE_3_4, class F>
inline void dot_columns(int rows, int64_t cols, F &&f) {
  with_rows(rows, [&](auto r) {
    constexpr int kWide = decltype(r)::value <= 2 ? WIDE_1_2 : WIDE_3_4;
    int64_t j = 0;
    for (; j + kWide <= cols; j += kWide) f(r, std::integral_constant<int, kWide>{}, j);
    for (; j < cols; ++j) f(r, std::integral_constant<int, 1>{}, j);
  });
}

struct IgemmTiles;
// Packs B's k [k0, k0 + kc) x columns [0, cols) (b already offset to the first column; element
// strides rs along K, cs along N) into panels of nr; with a_biased also adds each column's sum over
// these k to colsum[j].
// Packs A's rows [0, rows) (a already offset to the first row) x k [k0, k0 + kc) into panels of
// mr_max rows.
using IgemmPackAFn = void (*)(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0,
                              int64_t kc, uint32_t *dst);
using IgemmPackBFn = void (*)(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t cols,
                              int64_t k0, int64_t kc, uint32_t *dst, int32_t *colsum);

// Small M with B stored [N, K] (unit stride along K; the usual weight layout): dot products along
// K, B read once in place, no packing. c[i * ldc + j] = sum_p a[i * lda + p] * b[j * ldb + p] for
// i < rows (<= kDotMaxRows), j < cols; a holds int8 rows zero-padded to a multiple of 64.
using IgemmDotFn = void (*)(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb,
                            int64_t cols, int32_t *c, int64_t ldc);

// Small M with B stored [K, N] (unit stride along N): B streamed row pair by row pair in column
// strips, widened in registers; same contract as IgemmDotFn with b[p * ldb + j], for
// rows <= IgemmTiles::stream_max_rows.
using IgemmStreamFn = IgemmDotFn;

struct IgemmTiles {
  int mr_max;
  int nr;
  int kgroup;
  IgemmTileFn tile[kMaxRows + 1];  // tile[r]: r rows (1 <= r <= mr_max), null elsewhere
  IgemmPackBFn pack_b;             // null: pack_b_generic
  IgemmDotFn dot;                  // null: small M runs the tiles too
  IgemmStreamFn stream;            // null: small M with B [K, N] runs the tiles
  IgemmPackAFn pack_a;             // null: pack_a_generic
  bool a_biased = false;           // kgroup 4 with A packed as a + 128 (see above)
  int stream_max_rows = kDotMaxRows;  // rows the stream kernel takes (<= kStreamMaxRows)
};

// Any strides, one element at a time: groups [g0, g1) of the panel at `panel` whose first column is
// b's column c0, with w <= nr valid columns (the rest zero).
// One A panel (rows <= mr_max valid rows, the rest zero), groups [g0, g1), any strides.
void pack_a_groups(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0,
                   int64_t kc, int64_t g0, int64_t g1, uint32_t *panel);
void pack_a_generic(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0,
                    int64_t kc, uint32_t *dst);
void pack_b_groups(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t c0, int64_t w,
                   int64_t k0, int64_t kc, int64_t g0, int64_t g1, uint32_t *panel, int32_t *colsum);
void pack_b_generic(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t cols, int64_t k0,
                    int64_t kc, uint32_t *dst, int32_t *colsum);
#if defined(__x86_64__) || defined(_M_X64)
// AVX2 packing of unit-stride rows ([K, N]) or columns ([N, K]); other layouts and edges go to
// pack_b_groups. Serves the AVX2 and the VNNI tables (every VNNI CPU has AVX2).
void pack_b_avx2(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t cols, int64_t k0,
                 int64_t kc, uint32_t *dst, int32_t *colsum);
// AVX2 packing of row-major A (unit column stride) in 8-group chunks through word transposes.
void pack_a_avx2(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0, int64_t kc,
                 uint32_t *dst);
// AVX2 small-M streaming over B [K, N] (serves the VNNI table as well).
void stream_avx2(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
                 int32_t *c, int64_t ldc);
#endif
// The K tail of the dot kernels, one element at a time (wrapping int32 like the vector lanes):
// c += sum over p in [p0, k) of a[p] * b[p].
inline int32_t dot_tail(int32_t c, const int8_t *a, const int8_t *b, int64_t p0, int64_t k) {
  uint32_t acc = static_cast<uint32_t>(c);
  for (int64_t p = p0; p < k; ++p) acc += static_cast<uint32_t>(static_cast<int32_t>(a[p]) * b[p]);
  return static_cast<int32_t>(acc);
}

extern const IgemmTiles kIgemmPortableTiles;
#if defined(__x86_64__) || defined(_M_X64)
extern const IgemmTiles kIgemmAvx2Tiles;
extern const IgemmTiles kIgemmAvx512VnniTiles;
#elif defined(__aarch64__)
extern const IgemmTiles kIgemmNeonDotTiles;
#endif

}  // namespace opsnn::kernels::igemm_detail

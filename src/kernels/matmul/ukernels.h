// GEMM micro-kernels. Each computes an MR x NR tile (or its first `rows` rows) of C from a packed
// A panel and a B panel:
//   acc[i][j] = sum_{p<k} a[p*MR + i] * b[p*ldb + j]        (p ascending, fp32)
//   c[i*ldc + j] = beta == 0 ? alpha * acc : fma(alpha, acc, beta * c[i*ldc + j])
// for i < rows, j < NR. With beta == 0, c is not read. k >= 1. `b` rows hold NR readable floats
// (the engine passes packed panels, ldb = NR).
#pragma once

#include <cstdint>

#include "core/cpu_features.h"

namespace opsnn::kernels::gemm_detail {

using UkernelFn = void (*)(int64_t k, const float *a, const float *b, int64_t ldb, float *c,
                           int64_t ldc, float alpha, float beta);
// The same tile with A read in place: row i of the tile at a + i*lda, contiguous along k (fp32 A
// with unit column stride; small GEMMs, where packing A costs more than the tile).
using UkernelAFn = void (*)(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c,
                            int64_t ldc, float alpha, float beta);
// BF16 x BF16 tile (AVX512_BF16 vdpbf16ps) over k-pair panels (pack_pairs_bf16): a[p2*MR + i] holds the
// bf16 bits of A(i, 2*p2) (low half) and A(i, 2*p2 + 1) (high half), b[p2*NR + j] those of B(2*p2, j)
// and B(2*p2 + 1, j); kp >= 1 pairs (an odd K is padded with zero). fp32 accumulators, two products
// per step, and the c / alpha / beta conventions of UkernelFn (ldb = NR).
using UkernelBf16Fn = void (*)(int64_t kp, const uint32_t *a, const uint32_t *b, float *c, int64_t ldc, float alpha,
                               float beta);

// Small-M streaming kernel: for i < rows (<= kStreamMaxRows), j < width:
//   acc[i*ldacc + j] = fma(a[p*lda_p + i], b[p*ldb + j], acc[i*ldacc + j])   for p = 0 .. k-1 in order
// It walks B one row at a time across `width` columns, so an in-place fp32 B (M = 1..4, the
// matrix-vector case) is read sequentially instead of in NR-wide strips.
using StreamFn = void (*)(int rows, int64_t k, const float *a, int64_t lda_p, const float *b,
                          int64_t ldb, int64_t width, float *acc, int64_t ldacc);
constexpr int kStreamMaxRows = 4;

// Small-M kernel for B stored transposed ([N,K], unit stride along K): for i < rows (<= 4), j < cols:
//   c[i*ldc + j] = sum_p a[i*lda + p] * b[j*ldb + p]
// as dot products over contiguous rows (the summation order is fixed per element: it depends only
// on k, never on which other rows or columns are computed alongside).
using DotFn = void (*)(int rows, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                       int64_t cols, float *c, int64_t ldc);

// The same small-M kernels with B in FLOAT16 or BF16, read in place and widened to fp32 in
// registers (exact), so the weight streams at half the bytes; per element the arithmetic is that of
// StreamFn / DotFn on the widened values (a pre-packed half weight, widened panel by panel and fed
// to the PanelFn kernels, gives the same bits).
using StreamHalfFn = void (*)(int rows, int64_t k, const float *a, int64_t lda_p, const uint16_t *b, int64_t ldb,
                              int64_t width, float *acc, int64_t ldacc);
using DotHalfFn = void (*)(int rows, int64_t k, const float *a, int64_t lda, const uint16_t *b, int64_t ldb,
                           int64_t cols, float *c, int64_t ldc);

constexpr int kMaxMr = 16;
constexpr int kMaxNr = 32;

// Small-M kernels over a pre-packed B (16-column panels over all of K, see gemm_prepack_b) that
// reproduce, bit for bit, the arithmetic of the unpacked small-M paths, so a pre-packed weight gives
// the same results as the plain one: for i < rows, columns [0, 16*npanels) of c (row stride ldc),
// with a the fp32 rows of A (row stride lda):
//  * PanelStream: c = fma chain over p ascending from 0, as StreamFn;
//  * PanelDot: the summation order of DotFn (lanes p % 16 for p < k rounded down to 8, the hsum
//    tree, then the remaining p in order).
using PanelFn = void (*)(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                         float *c, int64_t ldc);
void panel_stream_generic(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                          float *c, int64_t ldc);
void panel_dot_generic(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                       float *c, int64_t ldc);

struct Ukernel {
  const char *name;
  core::Isa isa;
  int mr, nr;
  UkernelFn rows[kMaxMr + 1];  // rows[r]: kernel for the first r rows of the tile, 1 <= r <= mr
  StreamFn stream;             // small-M kernel of the same ISA
  DotFn dot = nullptr;         // small-M kernel for transposed B (null: use the packed path)
  PanelFn panel_stream = nullptr;  // null: panel_stream_generic
  PanelFn panel_dot = nullptr;     // null: panel_dot_generic
  StreamHalfFn stream_f16 = nullptr, stream_bf16 = nullptr;  // null: half B takes the packed path
  DotHalfFn dot_f16 = nullptr, dot_bf16 = nullptr;
  UkernelAFn rows_a_in_place[kMaxMr + 1] = {};  // null: A is always packed
  UkernelBf16Fn rows_bf16[kMaxMr + 1] = {};     // BF16 x BF16 k-pair tiles, same mr x nr; null: none
  // `dot` walking K in chunks that keep 3-4 rows of A in L1 across a block of columns (same bits as
  // `dot`); gemm_plan takes it for a cache-resident fp32 B (GemmPlan::dot_k_chunked). null: none.
  DotFn dot_k_chunked = nullptr;
};

const Ukernel &ukernel_portable_4x8();
const Ukernel &ukernel_portable_4x16();
#if defined(__x86_64__)
const Ukernel &ukernel_avx2_6x16();
const Ukernel &ukernel_avx512_12x32();
// The AVX-512 entry plus the BF16 x BF16 vdpbf16ps tiles of ukernel_avx512bf16.cpp (rows 1..12).
// Assembled in gemm_plan.cpp, a baseline unit: code of an AVX-512 unit must not run before CPU
// detection, and even a struct copy there uses zmm moves.
extern const UkernelBf16Fn kAvx512Bf16Tiles[kMaxMr + 1];
const Ukernel &ukernel_avx512bf16_12x32();
// The AVX2 dot kernel, shared by the AVX-512 entry (every AVX-512 CPU has AVX2/FMA).
void avx2_dot(int rows, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, int64_t cols,
              float *c, int64_t ldc);
void avx2_stream_f16(int rows, int64_t k, const float *a, int64_t lda_p, const uint16_t *b, int64_t ldb,
                     int64_t width, float *acc, int64_t ldacc);
void avx2_stream_bf16(int rows, int64_t k, const float *a, int64_t lda_p, const uint16_t *b, int64_t ldb,
                      int64_t width, float *acc, int64_t ldacc);
void avx2_dot_f16(int rows, int64_t k, const float *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t cols,
                  float *c, int64_t ldc);
void avx2_dot_bf16(int rows, int64_t k, const float *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t cols,
                   float *c, int64_t ldc);
#endif
#if defined(__aarch64__)
const Ukernel &ukernel_neon_6x16();
#endif

// Entry `kernel` of the engine's table (gemm_plan.cpp); 0 <= kernel < gemm_kernel_count().
const Ukernel &ukernel_by_index(int kernel);

// The epilogue of one element, shared by scalar edge paths so they match the vector kernels.
static inline float gemm_combine(float acc, float alpha, float beta, float old) {
  return beta == 0.0f ? alpha * acc : __builtin_fmaf(alpha, acc, beta * old);
}

}  // namespace opsnn::kernels::gemm_detail

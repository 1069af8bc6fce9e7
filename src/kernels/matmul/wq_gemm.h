// Weight-quantised GEMM (aclnnWeightQuantBatchMatmulV2): y = x @ ((w + offset) * scale) + bias with
// an INT8 or INT4 weight and per-tensor / per-channel / per-group (along K) scale and offset.
//
// Three paths, chosen in phase 1 by wq_choose from an ordered list (core/impl_list.h), each with
// the SIMD helpers (AVX2, NEON or none) chosen there too:
//  * small M (m <= kWqSmallM, and up to kWqStreamMaxM for a [K, N] weight on AVX2): the quantised
//    weight is streamed once. The scale factors out of the
//    K sum within a group,  sum_p x[p] * (w[p] + o) * s = s * (sum_p x[p] * w[p] + o * sum_p x[p]),
//    so the inner loop is only int -> float and an FMA; the per-group fold happens once per group.
//    Bound by reading the weight: INT4 moves a quarter of the bytes of an FLOAT16 weight. When x
//    holds an infinity or NaN the factored form would give inf - inf, so those calls follow the
//    definition element by element instead (slow, exact in special values).
//  * larger M (fused, wq_fused_*): per thread's column range, in chunks of nc columns and blocks of
//    kc rows of K, each kc x nr block of the weight is dequantised (fp32, scale and offset applied)
//    into a small per-thread buffer and immediately multiplied by the GEMM engine's register-tiled
//    micro-kernel over all rows of the M block (x packed once per M block); the K blocks accumulate
//    in a per-thread fp32 chunk of C, and the epilogue adds the bias and stores y. The quantised
//    weight is read once per M block (once for m <= kWqFusedMc) and never widened in memory.
//  * fallback (the engine runs reference kernels): the weight is dequantised (in fp32) into the
//    GEMM engine's pre-packed layout in the workspace, and the engine multiplies.
// Results do not depend on the thread count (columns are split, each element has one fixed order).
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

constexpr int64_t kWqSmallM = 4;

struct WqDesc {
  int64_t m = 0, n = 0, k = 0;
  aclDataType w_dtype = ACL_INT8;  // ACL_INT8, or ACL_INT4 (two per byte, low nibble first)
  int64_t w_row = 0, w_col = 1;    // element strides along K and N (INT4: in nibbles)
  aclDataType s_dtype = ACL_FLOAT16;
  int64_t s_row = 0, s_col = 0;    // scale [group, n]; 0 strides broadcast (per-tensor)
  bool has_offset = false;
  aclDataType o_dtype = ACL_FLOAT16;
  int64_t o_row = 0, o_col = 0;
  int64_t group = 0;               // K rows per scale row (k for per-channel / per-tensor)
};

// The implementation, decided in phase 1 (wq_choose): the path, then the SIMD helpers it runs
// (the last of both lists is the reference: OPSNN_KERNELS=reference leads to kDequantGemm/kNone).
enum class WqPath : int8_t { kStream = 0, kFused = 1, kDequantGemm = 2 };
enum class WqSimd : int8_t { kAvx2 = 0, kNeon = 1, kNone = 2 };
struct WqChoice {
  WqPath path = WqPath::kDequantGemm;
  WqSimd simd = WqSimd::kNone;
};
// Evaluates the lists for `d`; reports "wq:<path>/<simd>" and the rejections to the current
// phase 1's verbose trace when `record`.
WqChoice wq_choose(const WqDesc &d, bool record = true);

inline int64_t wq_groups(const WqDesc &d) { return d.group > 0 ? (d.k + d.group - 1) / d.group : 1; }

// The streaming path also serves m up to kWqStreamMaxM for a [K, N] weight on AVX2 (the weight
// read once, all rows of x per pass in groups of 4; cheaper than dequantising blocks for the GEMM
// micro-kernel while the weight read dominates): see wq_stream_supported.
constexpr int64_t kWqStreamMaxM = 16;  // measured: faster than the fused path up to ~12, even at 16
// Columns per accumulator segment: long contiguous row segments of the weight (a narrow column
// strip would jump a whole weight row, i.e. a page, every few cache lines and defeat the
// prefetchers), narrower for more rows so the accumulators stay in L2.
constexpr int64_t kWqSegment = 2048;
inline int64_t wq_segment(int64_t m) {
  return m <= kWqSmallM ? kWqSegment : std::max<int64_t>(64, kWqSegment * kWqSmallM / m / 64 * 64);
}
// Per-thread scratch of the streaming kernels (accumulators of one column segment), in floats.
inline int64_t wq_scratch_floats(int64_t m) { return (2 * std::max<int64_t>(m, 1) + 2) * wq_segment(m) + 16; }
// True when m rows run on the streaming path (m <= kWqSmallM, or an AVX2 kernel covers the layout):
// wq_choose(d, false).path == WqPath::kStream.
bool wq_stream_supported(const WqDesc &d);
// Workspace of the streaming path for up to `threads` threads (0: the pool's size): x in fp32
// [m][k], the group sums of x [m][groups], and the per-thread scratch.
size_t wq_small_m_workspace(const WqDesc &d, int threads = 0);
// Small-M path, phase 2. x: fp32-convertible rows (dtype x_dtype, element strides), y32: fp32
// results [m][n] (ld = ldy). `simd`: wq_choose's. Uses up to `threads` threads (0: the pool's
// size; the workspace must have been sized for at least as many).
void wq_small_m_run(const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row, int64_t x_col,
                    const void *w, const void *scale, const void *offset, float *y32, int64_t ldy, void *workspace,
                    WqSimd simd, int threads = 0);

// Dequantises the whole weight into fp32 in the pre-packed layout (gemm_prepack_b; K x align(N,16)).
void wq_dequant_prepacked(const WqDesc &d, const void *w, const void *scale, const void *offset, float *dst,
                          WqSimd simd, int threads = 0);

// Fused path for m > kWqSmallM (see the top of this file). Planned in phase 1.
constexpr int64_t kWqFusedMc = 96;   // rows of x per M block (rounded down to the kernel's mr)
constexpr int64_t kWqFusedNc = 256;  // columns of C per chunk
constexpr int64_t kWqFusedKc = 256;  // rows of K per block (balanced over K)
struct WqFusedPlan {
  int kernel = -1;                   // GEMM engine kernel (ukernel_by_index); -1: not available
  WqSimd simd = WqSimd::kNone;       // the block dequantiser (wq_choose's SIMD list)
  bool pack_simd = false;            // GemmPlan::pack_simd of the engine's plan (packing x)
  int64_t mr = 0, nr = 0, mc = 0, nc = 0, kc = 0;
  int threads = 1;                   // tasks (column ranges) the run splits into
  size_t a_bytes = 0, b_bytes = 0, c_bytes = 0, thread_bytes = 0;
  size_t workspace_bytes = 0;
};
// False when the engine has no micro-kernel to lend (reference kernels): use wq_dequant_prepacked
// + gemm_run instead. `threads` 0: the pool's size; `kernel` >= 0: that engine kernel (tests).
bool wq_fused_plan(const WqDesc &d, WqFusedPlan *plan, int threads = 0, int kernel = -1);
// The output of the fused path: y[i*y_row + j] = round(acc + bias[j * bias_stride]).
// Output re-quantisation (quantScaleOptional / quantOffsetOptional): with v the result plus bias,
//   y = saturate_int8(round_half_even(fma(v, s_j, o_j)))       (NaN -> 0)
// s_j FLOAT, or UINT64 / INT64 in aclnnTransQuantParam's encoding (the float's bits in the low 32
// bits); o_j FLOAT (0 without an offset). Strides 0 broadcast (per-tensor).
struct WqQuant {
  const void *scale = nullptr;       // null: no re-quantisation
  aclDataType scale_dtype = ACL_FLOAT;
  int64_t scale_stride = 0;
  const void *offset = nullptr;
  int64_t offset_stride = 0;
};
float wq_quant_scale(const WqQuant &q, int64_t j);
int8_t wq_requant(float v, float s, float o);
struct WqOutput {
  void *y = nullptr;
  aclDataType y_dtype = ACL_FLOAT16; // x's dtype, or ACL_INT8 with quant.scale
  int64_t y_row = 0;
  const void *bias = nullptr;        // null: no bias
  aclDataType bias_dtype = ACL_FLOAT;
  int64_t bias_stride = 1;
  WqQuant quant;
};
// v[0, w) (fp32 results of row i, columns [j0, j0 + w); modified) plus the bias, into y.
void wq_store_row(const WqOutput &out, int64_t i, int64_t j0, int64_t w, float *v);
void wq_fused_run(const WqFusedPlan &plan, const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row,
                  int64_t x_col, const void *w, const void *scale, const void *offset, const WqOutput &out,
                  void *workspace);

// The plain definition in float64 (tests): y64[i*n + j].
void wq_reference(const WqDesc &d, aclDataType x_dtype, const void *x, int64_t x_row, int64_t x_col,
                  const void *w, const void *scale, const void *offset, double *y64);

namespace wq_detail {
// Fast column-range kernels (AVX2). Return false when the layout is not covered (caller falls back).
// acc: [m][n1-n0] fp32 result of the columns [n0, n1). xsplit: x as wq_split_pairs leaves it (INT4
// weight stored [N, K]; null otherwise).
bool wq_small_m_avx2(const WqDesc &d, const float *x, const float *xsplit, const float *xsum, const void *w,
                     const void *scale, const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy,
                     float *scratch);
// NEON small-M kernels (m <= kWqSmallM; aarch64): small_m_generic's arithmetic per element with the
// group's sum in vector lanes. False when the layout is not covered.
bool wq_small_m_neon(const WqDesc &d, const float *x, const float *xsum, const void *w, const void *scale,
                     const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy, float *scratch);
// NEON dequantisation of a weight block for the fused path (wq_dequant_block_avx2's contract; the
// per-element rounding of the generic dequant). False when the layout is not covered.
bool wq_dequant_block_neon(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t p0,
                           int64_t kc, int64_t j0, int64_t W, float *dst);
// x [m][k] with every full 16-element step of every group split into its 8 even elements xe and
// then the 8 values xo - 16 xe of the odd ones (the low and high nibbles of 8 weight bytes, see
// nk_cols in wq_gemm_avx2.cpp); the rest copied as is.
void wq_split_pairs(const WqDesc &d, const float *x, float *xsplit);
// Dequantises panels [q0, q1) of the pre-packed layout; false when the layout is not covered.
bool wq_dequant_panels_avx2(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t q0,
                            int64_t q1, float *dst);
// Software prefetch of the fused loop's next weight lines (weight [K, N] rows are read kc rows x one
// cache line at a time, which the hardware prefetchers do not follow): a row's next line when it is
// still inside the chunk's columns [.., chunk_end), else row p + next_rows at column next_col
// (the next K block, or the next chunk); next_col < 0: no prefetch there.
struct WqPrefetch {
  int64_t chunk_end = 0, next_rows = 0, next_col = -1;
};
// Dequantises rows [p0, p0 + kc) and columns [j0, j0 + W) of the weight into dst[(p - p0) * W + c]
// (zero for columns >= n), W a multiple of 16. False when the layout is not covered.
bool wq_dequant_block_avx2(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t p0,
                           int64_t kc, int64_t j0, int64_t W, float *dst, const WqPrefetch &pf);
}  // namespace wq_detail

}  // namespace opsnn::kernels

// The kernels of the MX quantisation family (ops/quant/mx_quant_phase1.h says each formula): x walked as
// lines along the quantised axis, [pre, n, post] with any strides; blocks of `blocksize` consecutive line
// elements share one FLOAT8_E8M0 scale. The outputs are contiguous: y [pre, n, post] (FLOAT4: nibbles, low
// first) and the scales [pre, ceil(blocks / 2), post, 2], block 2j + k of a line at [.., j, .., k] (an odd
// block count leaves a last scale of code 0).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "core/tensor.h"
#include "kernels/quant/low_float.h"
#include "kernels/quant/mx_rows.h"

namespace opsnn::kernels {

// How a block's scale (an E8M0 exponent) follows from its largest magnitude.
struct MxScaleRule {
  int alg = 0;             // 0: floor(log2 amax) - emax; 1 (FLOAT8) / 2 (FLOAT4_E2M1): from amax / dst_max
  int emax = 0;            // the element format's largest exponent
  float dst_max = 0.0f;    // alg 1 / 2: Amax(DType)
  float low_bound = 0.0f;  // alg 1: amax = max(amax, low_bound) (V3's maxLowBound)
  // alg 2 with dstTypeMax 0 / 6 / 7: floor(log2 amax) - emax, plus one when amax's mantissa is above this
  // fraction (0.5 or 0.75); `ratio` false. Other dstTypeMax: the alg-1 rounding up of amax / dst_max.
  bool ratio = true;
  float ceil_above = 0.5f;
};

// E8M0 code of the block scale for the block's max |x| (NaN / inf: 255).
uint8_t mx_scale_code(float amax, const MxScaleRule &r);

// x as lines: element (p, i, q) at p's offset + i * axis_stride + q's offset (elements), p and q decomposed
// row-major over their own dims.
struct MxLines {
  int pre_nd = 0, post_nd = 0;
  int64_t pre_dims[core::kMaxDims] = {}, pre_strides[core::kMaxDims] = {};
  int64_t post_dims[core::kMaxDims] = {}, post_strides[core::kMaxDims] = {};
  int64_t pre = 1, n = 0, post = 1, axis_stride = 1;
  int64_t offset(int64_t p, int64_t q) const;
};

// t's dims around `axis` (a 0-d t: one line of one element).
MxLines mx_lines(const aclTensor &t, int axis);

struct MxQuantPlan {
  MxRowKernels rows = mx_rows_portable();  // the tier's block kernels (phase 1 chooses)
  MxLines x;
  aclDataType x_dtype = ACL_FLOAT;
  LowFloat fmt = LowFloat::kE4M3;
  LfRound round = LfRound::kRint;
  MxScaleRule rule;
  int64_t blocksize = 32, tasks = 1;  // tasks: ranges of pre, each with a line buffer of n floats
};

// One contiguous line of n fp32 values in blocks of `blocksize`: the codes to y (FLOAT4: nibbles, low first,
// from a whole byte) and the block scales to scale[0, 2 * ceil(blocks / 2)) (an odd block count: a last 0).
void mx_quant_line(const MxRowKernels &rk, const float *v, int64_t n, int64_t blocksize, LowFloat fmt, LfRound round,
                   const MxScaleRule &rule, uint8_t *y, uint8_t *scale);

// x -> y codes and scales; buf: tasks * n floats.
void mx_quant_run(const MxQuantPlan &p, const char *x, uint8_t *y, uint8_t *scale, float *buf);

// DynamicBlockMxQuant: x [batch, m, n] (any strides) in 32 x 32 blocks, one scale each, written to scale1
// [batch, m, ceil(cb / 2), 2] (per row, block column 2j + k at [j, k]) and scale2 [batch, ceil(rb / 2), n, 2]
// (per column, block row 2i + k at [i, .., k]); y contiguous [batch, m, n].
struct MxBlockPlan {
  MxRowKernels rows = mx_rows_portable();  // the tier's block kernels (phase 1 chooses)
  int64_t batch = 1, m = 0, n = 0, stride_b = 0, stride_m = 0, stride_n = 1;
  aclDataType x_dtype = ACL_FLOAT16;
  LowFloat fmt = LowFloat::kE4M3;
  LfRound round = LfRound::kRint;
  MxScaleRule rule;
  int64_t tasks = 1;  // ranges of (batch, block row), each with a buffer of 32 * n + ceil(n / 32) floats
};

void mx_block_quant_run(const MxBlockPlan &p, const char *x, uint8_t *y, uint8_t *s1, uint8_t *s2, float *buf);

// GroupedDynamicMxQuant: x [m, n] (any strides) quantised along dim 0 inside each group of rows (groupIndex:
// INT32 / INT64 cumulative row ends, read at launch: non-negative, non-decreasing, the last = m), blocks of 32 rows per
// column; group g's scales from row off_g = sum over the groups before of ceil(ceil(rows / 32) / 2) of
// scale [rows_total, n, 2] (block 2j + k of column c at [off_g + j, c, k]; pads and the rows past the last
// group: 0). y [m, n] with its strides (FLOAT4: contiguous).
struct MxGroupedPlan {
  MxRowKernels rows = mx_rows_portable();  // the tier's block kernels (phase 1 chooses)
  int64_t m = 0, n = 0, groups = 0, scale_rows = 0;
  int64_t x_stride_m = 0, x_stride_n = 1, y_stride_m = 0, y_stride_n = 1, group_stride = 1;
  bool group_i64 = false;  // groupIndex INT64 (else INT32)
  aclDataType x_dtype = ACL_FLOAT16;
  LowFloat fmt = LowFloat::kE4M3;
  LfRound round = LfRound::kRint;
  MxScaleRule rule;
  int64_t tasks = 1, width = 0;  // column ranges of `width` (even), each with buf_floats() of buffer
  int64_t buf_floats() const { return 35 * width; }
};

// Returns 0, or 161002 after opsnn::set_last_error for a bad group index (nothing written).
int mx_grouped_quant_run(const MxGroupedPlan &p, const char *x, const char *group, uint8_t *y, uint8_t *scale,
                         float *buf);

// DynamicDualLevelMxQuant: rows of x along its last dim (n, any strides), times the smooth row when given
// (rounded to x's dtype); level 0: per `l0` elements s0 = max|x| / 6 (FLOAT, [rows, ceil(n / l0)]) and
// t = x / s0 rounded to x's dtype (s0 = 0: t = 0); level 1: kQuant's scaleAlg 0 FLOAT4_E2M1 over blocks of 32
// of t (scales [rows, ceil(ceil(n / 32) / 2), 2]); y contiguous nibbles.
struct MxDualLevelPlan {
  MxRowKernels rows = mx_rows_portable();  // the tier's block kernels (phase 1 chooses)
  MxLines x;                     // post = 1: rows along the last dim
  int64_t smooth_stride = 0;     // smooth: n values of x's dtype, this far apart (null: none)
  aclDataType x_dtype = ACL_FLOAT16;
  LfRound round = LfRound::kRint;
  MxScaleRule rule;              // scaleAlg 0, E2M1
  int64_t l0 = 512, tasks = 1;   // buf: tasks * 2 * n floats
};

void mx_dual_level_run(const MxDualLevelPlan &p, const char *x, const char *smooth, uint8_t *y, float *s0, uint8_t *s1,
                       float *buf);

// MxToBlockMxQuant: FLOAT4 x [batch, m, n] (contiguous) with its per-row MX scales mxscale [batch, m, cpairs, 2] to
// FLOAT8 y in 32 x 32 blocks: block exponent = the largest row scale of the block less MAX_OFFSET (the two formats'
// emax difference: E2M1 -> E5M2 13, E1M2 -> E5M2 15, E2M1 -> E4M3FN 6, E1M2 -> E4M3FN 8; at least 0; a row scale
// 255 makes it 255), y = x * 2^(row scale - block exponent) (rint), the block exponents broadcast as
// DynamicBlockMxQuant's scale1 / scale2.
struct MxToBlockPlan {
  int64_t batch = 1, m = 0, n = 0;
  LowFloat src = LowFloat::kE2M1, dst = LowFloat::kE4M3;
  int64_t tasks = 1;  // ranges of (batch, block row), each with ceil(n / 32) bytes of buffer
};

void mx_to_block_run(const MxToBlockPlan &p, const uint8_t *x, const uint8_t *mxscale, uint8_t *y, uint8_t *s1,
                     uint8_t *s2, uint8_t *buf);

struct AntiMxPlan {
  MxLines x, scale;  // scale: its [pre, ceil(blocks / 2), post] dims as lines (n: block pairs), k stride apart
  int64_t scale_k_stride = 1;
  aclDataType y_dtype = ACL_FLOAT;
  LowFloat fmt = LowFloat::kE4M3;
  int64_t blocksize = 32, tasks = 1;  // buf: tasks * n floats
};

// y = decode(x) * 2^(scale - 127), contiguous y in its dtype.
void anti_mx_run(const AntiMxPlan &p, const uint8_t *x, const uint8_t *scale, char *y, float *buf);

}  // namespace opsnn::kernels

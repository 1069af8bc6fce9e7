// The phase 1 of the MX quantisation table (src/ops/quant/mx_quant.ops, rows: tools/gen_ops_mxquant.py) on
// kernels/quant/mx_quant.h and the element codecs of kernels/quant/low_float.h. Element formats (dstType /
// x's dtype): 35 FLOAT8_E5M2, 36 FLOAT8_E4M3FN, 40 FLOAT4_E2M1, 41 FLOAT4_E1M2 (FLOAT4: two a byte, low nibble
// first); scales FLOAT8_E8M0 (code c = 2^(c - 127)).
//
//  kQuant  (DynamicMxQuant, V2, V3)  x FLOAT16 / BF16 / FLOAT, 1-7 dims, any strides; along `axis`, blocks of
//          `blocksize` consecutive elements (the last one may be short: its missing values count as 0):
//            scaleAlg 0: shared_exp = floor(log2 max|V|) - emax (emax: E2M1 2, E1M2 0, E4M3FN 8, E5M2 15),
//                        clamped to [-127, 127] (a block of zeros: -127, code 0)
//            scaleAlg 1 (FLOAT8): S = max(max|V|, maxLowBound) / Amax(DType) in fp32 (448 / 57344), and the
//                        scale is S's fp32 exponent rounded up: +1 when S is normal with a non-zero mantissa
//                        and a biased exponent < 254, or subnormal with a mantissa above 1/2
//            scaleAlg 2 (FLOAT4_E2M1): dstTypeMax 0 / 6 / 7: scaleAlg 0's exponent, + 1 when max|V|'s
//                        mantissa fraction is above 1/2 (0, 6) or above 3/4 (7) — our reading of "the top one /
//                        two mantissa bits are 1 and the mantissa is not all 0": the ones after them not all 0;
//                        other dstTypeMax (6..12): S = max|V| / dstTypeMax rounded up as scaleAlg 1 (normal S only)
//          y = cast(V / 2^shared_exp) (one exact multiplication in fp32) by roundModeOptional (null: "rint" =
//          half to even; FLOAT4 also "floor" (towards -inf) and "round" (half away from 0)), saturated to the
//          format's largest value. A block holding a NaN or an infinity gets scale code 255 (NaN) and NaN
//          elements (FLOAT4, which has no NaN: 0) — the docs are silent on it.
//          Checks: axis in [-D, D); dstType 35 / 36 / 40 / 41 = yOut's dtype; blocksize a multiple of 32 in
//          [32, 1024] (32 for a FLOAT x and for scaleAlg 2; a FLOAT x also needs >= 32 elements along axis);
//          scaleAlg 0 (all), 1 (FLOAT8), 2 (FLOAT4_E2M1); V2 / V3's dstTypeMax 0, or in [6, 12] with
//          FLOAT4_E2M1 and blocksize 32 (it acts with scaleAlg 2 only); V3's maxLowBound >= 0, and 0 unless
//          scaleAlg is 1; FLOAT4: x's last dim even. yOut: x's shape, contiguous; mxscaleOut FLOAT8_E8M0,
//          contiguous, x's shape with dim axis = ceil(ceil(n / blocksize) / 2) and a trailing 2: block 2j + k
//          of a line at [.., j, .., k] (every axis, which is the docs' "two rows interleaved" for a non-last
//          axis); an odd block count leaves the last scale 0.
//  kDual   (DynamicMxQuantWithDualAxis, V2)  kQuant along dims -1 (y1Out, mxscale1Out) and -2 (y2Out,
//          mxscale2Out) of x (FLOAT16 / BF16, 2-7 dims), blocksize 32; V1: scaleAlg 0 only and no empty x; V2:
//          scaleAlg 0 / 1 / 2 as kQuant, dstTypeMax non-zero only with FLOAT4_E2M1 and scaleAlg 2. Outputs
//          contiguous (V2's docs; V1's say they may be strided: we follow V2).
//  kBlock  (DynamicBlockMxQuant)  x FLOAT16 / BF16 [M, N] or [B, M, N] (any strides, not empty) in 32 x 32 blocks,
//          one scale per block (scaleAlg 0: kQuant's; 2, FLOAT4_E2M1 only: S = max|V| / dstTypeMax (0: 6) rounded
//          up as kQuant's scaleAlg 1 for a normal S), broadcast to scale1Out [.., M, ceil(ceil(N / 32) / 2), 2]
//          (each row: block column 2j + k at [j, k]) and scale2Out [.., ceil(ceil(M / 32) / 2), N, 2] (each
//          column: block row 2i + k at [i, .., k]), pads 0; dstTypeMax 0 / 6 / 7 (non-zero: FLOAT4_E2M1 only);
//          outputs contiguous.
//  kGrouped (GroupedDynamicMxQuant, V2)  x FLOAT16 / BF16 [m, n] (any strides, may be empty) quantised along dim 0
//          inside each group of rows: groupIndex (INT32 1-D, non-empty, any strides) holds the groups' cumulative
//          row ends, read at launch (negative, decreasing, or a last end other than m: the launch fails with
//          161002 before writing); blocks of 32 rows per column, kQuant's scaleAlgs (V1: 0; V2: FLOAT8 0 / 1,
//          FLOAT4 0 / 2 — scaleAlg 2's floor / ceil variant for E2M1's dstTypeMax 0 / 6 / 7 and E1M2's 1.875, with
//          the mantissa fraction above 1/2, 3/4, 7/8 — else amax / dstTypeMax (0: the format's largest) rounded
//          up); dstTypeMax 0, [1.75, 3.5] (E1M2), [6, 12] (E2M1); blocksize 32; roundMode required (null:
//          161001). mxscale [m / 64 + g, n, 2]: group g's scale rows follow the earlier groups' (each group's
//          block count padded to even), block 2j + k of column c at [row, c, k]; pads and the rows past the last
//          group 0. y: x's shape, FLOAT8 any strides, FLOAT4 contiguous with an even n (whole bytes per row: our
//          requirement).
//  kGroupedDual (GroupedDynamicMxQuantWithDualAxis)  x FLOAT16 / BF16 [M, N], N a positive multiple of 64:
//          kGrouped along dim 0 into y2Out / y2ScaleOut ([M / 64 + G, N, 2]) with groupIndex INT64, and kQuant
//          along dim -1 into y1Out / y1ScaleOut ([M, N / 64, 2]); scaleAlg 1 only, dstDtype 35 / 36, round
//          null or "rint", maxDtypeValue 0 (reserved); outputs contiguous.
//  kDualLevel (DynamicDualLevelMxQuant)  x FLOAT16 / BF16, 1-7 dims, even last dim n, not empty, any strides;
//          smoothScaleOptional (x's dtype, 1-D [n], any stride): x = x * smooth rounded to x's dtype (our reading
//          of "x = x * smooth_scale"); level 0 (level0BlockSize 512): level0ScaleOut (FLOAT, x's shape with the
//          last dim ceil(n / 512)) = max|x| / 6 over each block, t = x / level0Scale rounded to x's dtype (a block
//          of zeros: scale 0 and t = 0 — the docs divide by it); level 1 (level1BlockSize 32): kQuant's scaleAlg
//          0 to FLOAT4_E2M1 over t (level1ScaleOut [.., ceil(ceil(n / 32) / 2), 2]); round rint / round / floor.
//          Outputs contiguous (the docs allow strides: not supported here).
//  kToBlock (MxToBlockMxQuant)  x FLOAT4_E2M1 / E1M2 [M, N] or [B, M, N], contiguous, not empty, M a multiple of
//          64, N even; mxscale its DynamicMxQuant scales along the last dim ([.., M, ceil(ceil(N / 32) / 2), 2],
//          contiguous); y FLOAT8 (dstType 35 / 36) in 32 x 32 blocks. Our reading of "scale_fp8 =
//          max(mxscale) / MAX_OFFSET, x_fp8 = x_fp4 * mxscale / scale_fp8" in the exponent domain (the scales
//          are powers of two, MAX_OFFSET 13 / 15 / 6 / 8 the emax differences): block code = max(row codes) -
//          MAX_OFFSET (at least 0), y = cast(x * 2^(row code - block code)), exact and within range; a row code
//          255 gives NaN. scale1 / scale2: the block codes broadcast as kBlock's scale1Out / scale2Out.
//  kAnti   (AntiMxQuant)  y = decode(x) * 2^(mxscale - 127) in fp32, rounded once to y's dtype (dstType 0
//          FLOAT, 1 FLOAT16, 27 BF16 = y's dtype); blocksize 32 along axis; x FLOAT8 (any strides) or FLOAT4
//          (contiguous, even last dim); mxscale FLOAT8_E8M0 of kQuant's mxscaleOut shape, any strides; y x's
//          shape, contiguous. Scale code 255 gives NaN.
//  kSwiglu (SwigluMxQuant)  x FLOAT16 / BF16, 1-7 dims, any strides, split along activateDim (even length 2h)
//          into the glu and linear parts, act = the swiglu family's gate in fp32 (activation functors):
//            swigluMode 0: silu(glu) * linear on the halves (activateLeft: glu is the first half)
//            swigluMode 1: interleaved pairs (glu even, linear odd; activateLeft unused), glu = min(glu,
//                          clampLimit), linear clamped to +-clampLimit, glu * sigmoid(gluAlpha glu) * (linear + gluBias)
//            swigluMode 2: mode 1's formula on the halves; axis must be the last dim
//            swigluMode 3: min(silu(glu), clampLimit) * clamp(linear, -clampLimit, clampLimit) on the halves —
//                          our reading (the docs' formula is ClippedSwigluV2's clampMode 1: no alpha, no bias)
//          then kQuant of act (x's shape with dim activateDim h, not rounded to x's dtype) along `axis`,
//          blocksize 32, scaleAlg / maxDtypeValue as DynamicMxQuantV2's (dstTypeMax). clampLimit > 0 for modes
//          1-3 (our reading). groupIndexOptional (INT64 / INT32, 1-D, read at launch; our reading of the grouped
//          swiglu ops' "only the first real rows"): groupMode 0 cumulative row ends (rows = the last), 1 counts
//          (rows = their sum); x's rows (dim 0, not the activated dim) from `rows` on give a zero gate, hence
//          y 0 and scale 0 where a whole block is past them; rows < 0 or > x's dim 0 fail the launch (161002).
//  kSwigluDual (SwigluMxQuantWithDualAxis)  x FLOAT16 / BF16, 2-7 dims, swigluMode 0 along the last dim, then
//          kDual (V2's checks) of act: y1Out / mxscale1Out along dim -1, y2Out / mxscale2Out along dim -2.
//          The docs' activateLeft is inverted here: true makes the SECOND half the gate (silu'd), false the first.
//          groupIndexOptional: not supported here (161002).
//  kSwigluGradDual (SwigluBackwardMxQuantWithDualAxis)  x FLOAT16 / BF16 [.., 2h] (2-7 dims), yGrad x's dtype
//          [.., h], both any strides; dx = the gradient of kSwigluDual's gate (our reading of the undocumented
//          formula: d gate = yGrad * hidden * silu'(gate), d hidden = yGrad * silu(gate), each in its half of x's
//          shape, activateLeft as kSwigluDual), then kDual of dx (dstDtype, maxDtypeValue as kSwigluDual's).
//  kSitu   (SituMxQuant)  x FLOAT16 / BF16, 1-7 dims, split along the last dim, act = beta tanh(g / beta)
//          sigmoid(g) * (linearBeta > 0 ? linearBeta tanh(u / linearBeta) : u), g the first half when
//          activateLeft (DequantSituQuant's gate), then kQuant along `axis` with scaleAlg 0, blocksize 32 into
//          yOut / yScaleOut. beta must be non-zero and finite (it divides).
// Errors: 161001 for a null required argument, else 161002 naming the argument.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/quant/mx_quant.h"

namespace opsnn::ops {

enum class MxKind : uint8_t {
  kQuant, kDual, kBlock, kGrouped, kGroupedDual, kDualLevel, kToBlock, kAnti, kSwiglu, kSwigluDual, kSitu,
  kSwigluGradDual
};

struct MxQuantRule {
  MxKind kind;
  core::DtypeMask dtypes;  // x's
};

struct MxQuantCall {
  core::NamedTensor x, scale, group, smooth, y, scale_out, y2, scale2_out, dy;
  int64_t axis = -1, dst_type = 0, blocksize = 32, scale_alg = 0, level0_block = 512;
  const char *round_mode = nullptr;
  double dst_type_max = 0.0, max_low_bound = 0.0;
  bool given_dst_type_max = false;  // the prototype has dstTypeMax (the V2 forms)
  // the gated activations (kSwiglu, kSwigluDual, kSitu)
  int64_t activate_dim = -1, swiglu_mode = 0, group_mode = 0;
  bool activate_left = false;
  double clamp_limit = 7.0, glu_alpha = 1.702, glu_bias = 1.0;
  float beta = 1.0f, linear_beta = 0.0f;
};

void mx_quant_phase1(core::OpBuilder &b, const MxQuantRule &rule, const MxQuantCall &c);

// kQuant along the last dim with blocksize 32, for fused ops that quantise fp32 rows of their own (the norm +
// MX quantisation rows, ops/norm/norm_quant_phase1.h): dstType, roundMode and scaleAlg checked as kQuant's
// (161002 naming them), y (dstType, x's shape, contiguous; FLOAT4: an even last dim) and scale (kQuant's
// mxscaleOut along the last dim) checked against x's shape.
struct MxLastDim {
  kernels::LowFloat fmt = kernels::LowFloat::kE4M3;
  kernels::LfRound round = kernels::LfRound::kRint;
  kernels::MxScaleRule rule;
};
// dstTypeMax (0: the format's largest value) as DynamicMxQuantV2's: it acts with scaleAlg 2 (FLOAT4_E2M1).
MxLastDim mx_last_dim_settings(int64_t dst_type, int64_t scale_alg, const char *round_mode, const core::NamedTensor &x,
                               double dst_type_max = 0.0);
void check_mx_last_dim_outputs(const core::NamedTensor &x, int64_t dst_type, const core::NamedTensor &y,
                               const core::NamedTensor &scale);
// Where a registered view starts (FLOAT4 offsets count nibbles: an odd one is refused with 161002).
core::OperandRef mx_operand_ref(core::OpBuilder &b, int slot, const core::NamedTensor &a);

}  // namespace opsnn::ops

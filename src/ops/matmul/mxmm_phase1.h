// The phase 1 of the block-scaled and emulated matmuls (src/ops/matmul/mx_matmul.ops, rows:
// tools/gen_ops_mxmm.py). Each scheme decodes its operands into fp32 matrices, multiplies them on the
// GEMM engine (kernels/matmul/gemm.h; bias and activation in its epilogue) and, for kActQuant, quantises
// the result with the MX family's row kernel (kernels/quant/mx_quant.h). Element codecs:
// kernels/quant/low_float.h (FLOAT8_E4M3FN / E5M2, FLOAT4_E2M1 two a byte low nibble first, FLOAT8_E8M0
// scales: code c = 2^(c - 127), 255 NaN). Our reading of the public pages:
//
// kActQuant (aclnnQuantMatmulActivationQuantWeightNz): the MX quantised matmul, GELU, MX quantisation
//   matmulOut[m, n] = sum_j (sum_{k in block j} x1[m, k] x2[k, n]) * 2^(x1Scale[m, j]) * 2^(x2Scale[j, n])
//                     + bias[n]                                  (blocks j of 32 along k; fp32 sums)
//   act = gelu_tanh / gelu_erf (activationType) of matmulOut, in fp32 (not rounded to a 16-bit type: our
//         reading, the page names no intermediate dtype)
//   yOut, yScaleOut = DynamicMxQuant of act along n (blocks of 32, dstType = yOut's dtype, roundMode,
//                     scaleAlg 0 / 1 (FLOAT8) / 2 (FLOAT4_E2M1), dstTypeMax as DynamicMxQuantV2's with
//                     scaleAlg 2 and ignored with 0 / 1, as the page says; ops/quant/mx_quant_phase1.h kQuant)
//  The sum is computed as sum_k (x1 * scale)(x2 * scale) in fp32: each decoded element times its power-of-
//  two scale is exact in fp32, so this is the formula with another summation order. When every decoded value
//  is a BF16 normal (or 0) and the products stay >= 2^-100, the operands are decoded to BF16 instead (the same
//  values) for the engine's BF16 tiles (exact products, fp32 sums in pairs); the choice is made per launch.
//  x1 FLOAT8_E4M3FN / FLOAT8_E5M2 / FLOAT4_E2M1, ND, 2-6 dims [batch..., m, k] (transposeX1: [batch...,
//  k, m]; not with FLOAT4), any strides (FLOAT4: its view starts on a whole byte). x2 FLOAT8_E4M3FN
//  (with either FLOAT8 x1) or FLOAT4_E2M1 (with FLOAT4 x1), FRACTAL_NZ (the NZ blocks of the view's
//  matrices, or of their transposes for a view with its last two strides swapped; C0 = 32 bytes: 32 FLOAT8
//  or 64 FLOAT4 elements; core/fractal_layout.h) or ND, view
//  [batch..., k, n] (transposeX2: [batch..., n, k]), 2-6 dims; x2's batch dims are absent or x1's (no
//  other broadcasting: our restriction). k and n at least 2; FLOAT4: k and n even.
//  x1ScaleOptional (required: the only mode is MX; null is 161001) FLOAT8_E8M0 [batch..., m,
//  ceil(k / 64), 2] (transposeX1: [batch..., ceil(k / 64), m, 2]), block 2p + q of row i at [.., i, p, q];
//  x2Scale FLOAT8_E8M0 [batch2..., ceil(k / 64), n, 2] (transposeX2: [batch2..., n, ceil(k / 64), 2]);
//  any strides. biasOptional FLOAT (n,), or (batch, 1, n) when yOut is 3-D. groupSize 0 or
//  groupSizeK | groupSizeN << 16 | groupSizeM << 32 = [1, 1, 32] (the high 16 bits ignored).
//  activationType "gelu_tanh" / "gelu_erf"; quantMode "mx"; roundMode "rint" (FLOAT4 also "round",
//  "floor"). yOut x1's dtype, [batch..., m, n] contiguous; yScaleOut FLOAT8_E8M0 [batch..., m,
//  ceil(n / 64), 2] contiguous (an odd block count leaves the last scale 0).
//
// kDualLevel (aclnnDualLevelQuantMatmulWeightNz): MXFP4 with an fp32 scale per 512 over the MX scales
//   out[m, n] = sum_i x1Level0Scale[m, i] x2Level0Scale[i, n] * sum_{j in group i} 2^(x1Level1Scale[m, j])
//               2^(x2Level1Scale[n, j]) (sum_{k in block j} x1[m, k] x2[n, k]) + bias[n]
//  (groups i of level0GroupSize = 512 along k, blocks j of level1GroupSize = 32), computed as the formula
//  groups it: the level-1-scaled operands (k padded with zeros to whole groups) in one GEMM batch per group,
//  P[i] = sum over the group's k in fp32 (BF16 operands when exact, as kActQuant), then
//  out = sum_i x1Level0Scale[m, i] x2Level0Scale[i, n] P[i][m, n] (+ bias[n]) in fp32, rounded once into out. x1 FLOAT4_E2M1 [m, k] ND (transposeX1 false), any
//  strides; x2 FLOAT4_E2M1 [n, k] (transposeX2 true only) in FRACTAL_NZ or ND; k even. x1Level0Scale
//  FLOAT [m, ceil(k / 512)], x2Level0Scale FLOAT [ceil(k / 512), n], x1Level1Scale FLOAT8_E8M0 [m,
//  ceil(k / 64), 2], x2Level1Scale FLOAT8_E8M0 [n, ceil(k / 64), 2], any strides; optionalBias FLOAT
//  (n,); out FLOAT16 / BF16 [m, n], any strides.
//
// kEmuSplit (aclnnMatmulEmuSplitWeight): an fp32 weight emulated by two BF16 parts
//   y = x @ wHigh + wLowScale * (x @ wLow)      (two fp32 GEMMs; the second adds into the first's y)
//  x BF16 [M, K], wHigh / wLow BF16 [K, N] (one shape), y FLOAT [M, N]; any strides; wLowScale exactly
//  1/256, yDtype 0 (FLOAT).
//
// Empty tensors are refused (161002) by every scheme, as the pages say. Errors: 161001 for a null
// required argument, else 161002 naming the argument.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

enum class MxmmScheme : uint8_t { kActQuant, kDualLevel, kEmuSplit };

struct MxmmRule {
  MxmmScheme scheme;
  core::DtypeMask dtypes;  // x1's / x's
};

struct MxmmCall {
  core::NamedTensor a, b, b_low, a_scale, b_scale, a_l0, b_l0, bias, y, y_scale;
  bool trans_a = false, trans_b = false;
  int64_t group_size = 0, level0_group = 0, level1_group = 0, scale_alg = 0, y_dtype = 0;
  const char *activation = nullptr, *quant_mode = nullptr, *round_mode = nullptr;
  double dst_type_max = 0.0;
  float low_scale = 0.0f;
};

void mxmm_phase1(core::OpBuilder &b, const MxmmRule &rule, const MxmmCall &c);

}  // namespace opsnn::ops

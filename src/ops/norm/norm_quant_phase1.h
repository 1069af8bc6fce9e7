// The phase 1 of the fused norm + quantisation table (src/ops/norm/norm_quant.ops, rows:
// tools/gen_ops_normq.py). Our reading of the public op documentation, composed from PyTorch where it
// is silent:
//
//   x      = x1 (+ x2 for the Add forms, + biasOptional (AddLayerNormQuant); xOut receives the sum in
//            x's dtype, unless additionalOutput is false)
//   norm   = RMS:   x * rstd * gamma,               rstd = 1 / sqrt(mean(x^2) + eps)
//            layer: (x - mean) * rstd * gamma,      rstd = 1 / sqrt(biased var + eps)
//   y      = norm + beta (beta optional)
// over x's last dim n only (gamma / beta / bias: n values, every other dim 1). y stays fp32 (it is not
// rounded to x's dtype before it is quantised); rmsNormOut / layernormRes receive it in x's dtype
// (AddRmsNormQuantV2's rmsNormOut: the norm before beta, as documented; layernormRes: y).
//   AdaLayerNormQuant: y = LayerNorm(x) (weightOptional, biasOptional) * (1 + scale) + shift, x [B..., S, H],
//           scale / shift [B..., H] or [B..., 1, H] (one modulation per batch index), then dynamic as below
//           (quantMode must be "dynamic"); quantScale receives the per-row scales; quantOffsetOptional
//           (symmetric quantisation has none) is accepted and not written.
//   GroupNormSiluQuant: self [N, C, ...]; per (sample, group of C / group channels with the spatial dims):
//           y = (x - mean) * rstd * gamma[c] + beta[c] (gamma / beta [C]), silu(y) when activateSilu, then
//           out = sat_int8(round(y / quantScale[c])) (quantScale: 1 or C values; our reading: the dividing
//           static quantiser); meanOut / rstdOut [N, group] (x's dtype or FLOAT). out's elements of one
//           group must be evenly spaced (e.g. contiguous NCHW); self may have any strides.
//   LayerNormQuant, AddLayerNormQuant(V2): quantMode static (0 / "static") or dynamic (1 / "dynamic"),
//           another value 161002. Static: as below (LayerNormQuant always divides); the scale inputs are
//           then required. Dynamic: the scale inputs (scale, scales{1,2}Optional) are the smooth scales,
//           the zero points are not read, and the per-row scales go to scaleOut / outScales{1,2}Out.
//   static  (RmsNormQuant(V3), AddRmsNormQuant(V2)): out_k = sat_int8(round(y * s_k + o_k)), or
//           y / s_k + o_k with divMode true (V1 RmsNormQuant multiplies, as documented); s_k (scale / scales1 /
//           scales2Optional) and o_k (offset / zeroPoints*, optional: 0) hold 1 value (per tensor) or n
//           (per channel), any floating dtype (zero points also INT8 / INT32); the second output is written
//           only when scales2Optional is given.
//   dynamic (RmsNormDynamicQuant, AddRmsNormDynamicQuant(V2)): per row, in_k = y (* smooth_k when given),
//           scale_k = max|in_k| / 127, out_k = sat_int8(round(in_k / scale_k)) (a row of zeros: scale 0,
//           out 0); scale_k is written to scaleOut / scale{1,2}Out (FLOAT, x's shape without the last dim,
//           or with it as 1). Outputs: the first always; the second when smoothScale2Optional is given
//           (which then needs smoothScale1Optional); V2's outputMask [2] (when given) says which are written.
//   MX (RmsNormDynamicMxQuant, AddRmsNormDynamicMxQuant): y (fp32, beta optional) is quantised as
//           DynamicMxQuant along the last dim with blocksize 32 (ops/quant/mx_quant_phase1.h, kQuant: dstType 35 /
//           36 / 40 / 41, scaleAlg 0, 1 (FLOAT8) or 2 (FLOAT4_E2M1), roundMode null / "rint", FLOAT4 also "floor" /
//           "round"; FLOAT4 needs an even last dim); yOut (dstType, x's shape) and mxscaleOut (FLOAT8_E8M0, x's
//           shape with the last dim ceil(ceil(n / 32) / 2) and a trailing 2) contiguous; rstdOut (FLOAT, x's
//           shape with the last dim 1) written when outputRstd (then required); xOut = x1 + x2 in x's dtype. Our
//           readings where the docs are silent: y is not rounded to x's dtype before the quantisation (as the
//           INT8 rows); scaleAlg 2 is taken as DynamicMxQuant takes it.
// round = half to even; saturation to [-128, 127]; NaN -> 0. dstType (RmsNormDynamicQuant): 2 (INT8), or 35 / 36
// (FLOAT8_E5M2 / E4M3FN: the docs' max_val is the format's largest value, 57344 / 448, so scale = max|in| / FP8_MAX
// and yOut = cast(in / scale) half to even, saturating — our reading, the docs name only INT8's 127; a row of
// zeros gives scale 0 and codes +0); 34 (HIFLOAT8: no codec) is refused with 161002 naming dstType. axis (AddRmsNormQuant): -1 or
// x's last dim. RmsNormQuantV3's rstd (FLOAT, x's shape with the last dim 1) is written when outputRstd.
// Outputs that are not written may be null. Errors: 161001 for a null required argument, else 161002
// naming the argument.
//
// Plan: one step. Each task takes a range of rows and walks it in blocks that fit L2: the dim-wise
// engine's kNormalize lines write the block's y as fp32 rows in the workspace (and xOut, rstd,
// rmsNormOut directly), then the quant row kernels (kernels/quant/) quantise the block while it is in
// cache.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

enum class NormQuantNorm : uint8_t { kRms, kLayer, kGroup };
// Static (given scales), dynamic (per-row scales from the data), or as the quantMode attribute says
// (0 / "static", 1 / "dynamic"; there the scale inputs are the smooth scales of the dynamic mode).
// kMx: the MX block quantisation of DynamicMxQuant along the last dim (blocks of 32, E8M0 scales).
enum class NormQuantMode : uint8_t { kStatic, kDynamic, kByAttr, kMx };

struct NormQuantRule {
  NormQuantNorm norm;
  NormQuantMode mode;
  core::DtypeMask dtypes;      // x's
  bool norm_out_before_beta;   // rmsNormOut is the norm before beta is added (AddRmsNormQuantV2)
  bool divides;                // static: y / scale + offset whatever divMode (LayerNormQuant)
};

// The argument roles (the generator maps parameter names to them, tools/gen_ops_normq.py).
enum NqRole : uint8_t {
  kNqX, kNqX2, kNqGamma, kNqBeta, kNqBias, kNqScale1, kNqScale2, kNqOffset1, kNqOffset2, kNqSmooth1, kNqSmooth2,
  kNqModScale, kNqModShift, kNqY1, kNqY2, kNqXsum, kNqMean, kNqRstd, kNqNormOut, kNqScaleOut1, kNqScaleOut2, kNqOffsetOut,
  kNqMxScale, kNqRoles
};

struct NormQuantCall {
  core::NamedTensor t[kNqRoles];
  NqRole order[kNqRoles] = {};  // the prototype's tensors in prototype order (registration order)
  int norder = 0;
  double eps = 1e-6;
  int64_t group = 1;      // GroupNormSiluQuant
  bool activate = false;  // GroupNormSiluQuant's activateSilu
  bool div_mode = false, output_rstd = true, additional_output = true;
  int64_t axis = -1, dst_type = 2, quant_mode = 0;  // quant_mode: the int attribute
  int64_t scale_alg = 0;                            // kMx's scaleAlg
  const char *round_mode = nullptr;                 // kMx's roundMode (null: "rint")
  const char *quant_mode_name = nullptr;            // ... or the string one
  const aclBoolArray *output_mask = nullptr;
  struct {
    bool div_mode = false, output_rstd = false, axis = false, dst_type = false, output_mask = false,
         quant_mode = false, quant_mode_name = false, additional_output = false;
  } given;
};

void norm_quant_phase1(core::OpBuilder &b, const NormQuantRule &rule, const NormQuantCall &c);

}  // namespace opsnn::ops

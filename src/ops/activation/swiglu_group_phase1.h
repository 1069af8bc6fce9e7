// The phase 1 of the grouped SwiGLU table (src/ops/activation/swiglu_group.ops): SwigluGroup and its
// gradients SwigluGroupGrad / SwigluGroupQuantGrad on kernels/activation/swiglu_group. Checks every
// argument (161001 for a missing required one, 161002 naming the argument otherwise) and records one
// step. Our reading of the documented semantics (the table's header says each formula):
//  - x [..., 2H] (FLOAT / FLOAT16 / BF16, >= 1 dim, any strides); its rows are the dims but the last;
//  - clampLimit > 0 clamps A above and B on both sides; -1 (documented) and 0 (the graph IR's default)
//    mean no clamp; anything else is a 161002;
//  - weightOptional / gradWeightOutOptional: FLOAT, one value per row (numel = rows) in their own
//    row-major order, any shape and strides;
//  - groupIndexOptional: 1-D INT64 counts (non-empty); min(sum, rows) rows are computed, the others are
//    written as +0 (a negative count fails the launch with 161002 before anything is written);
//  - gradWeightOutOptional needs yOriginOptional (its sum is gradY * yOrigin over the row).
// SwigluGroupQuant (the forward with quantisation; every output it documents is FLOAT8 / HIFLOAT8):
//  - quantMode 0 (block quant) with dstType 2 (INT8) is computed: blocks of 128 along the half row (blockSize
//    0 or 128), a = max(max |v| over the block's finite v, 1e-4) with v = silu(A') * B' * w in fp32, scale =
//    a / 127, or with roundScale 2^ceil(log2(a / 127)); yOut[j] = round half to even of v * (1 / scale)
//    (a non-finite product quantises v itself; NaN gives 0), saturated; yScaleOut FLOAT [..., ceil(H / 128)];
//  - dstType 35 / 36 (FLOAT8_E5M2 / E4M3FN) are the same with FP8_MAX (57344 / 448) for 127 and yOut the codes of
//    v * (1 / scale) half to even, saturating (low_float.h; a NaN v: the NaN code) — our reading of the docs'
//    block formula for the FLOAT8 outputs; dstType 34 (HIFLOAT8: no codec) and quantModes 1 (MX), 2 / 3
//    (HIFLOAT8) are refused with 161002 naming them;
//  - x FLOAT16 / BF16 with 2-8 dims and a last dim divisible by 256 (documented); scaleOptional (the static
//    HIFLOAT8 mode's) must be null; dstTypeMax is read by quantMode 3 only (ignored here);
//  - yOriginOut (x's dtype, [..., H]; required) gets silu(A') * B' before the weight when outputOrigin, and is
//    not written otherwise; yOut (INT8 / FLOAT8, [..., H]) any strides;
//  - rows past sum(groupIndexOptional) get y 0, scale 0 and (outputOrigin) yOrigin +0.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct SwigluGroupRule {
  core::DtypeMask dtypes;  // x's (every row tensor has x's dtype)
};

using SwigluGroupArg = core::NamedTensor;

struct SwigluGroupCall {
  SwigluGroupArg x, weight, group, out, dy, y_origin, dx, dweight;
  SwigluGroupArg scale, y_scale, origin_out;  // SwigluGroupQuant (y_scale's name set: the quantising forward)
  double clamp_limit = -1.0;
  int64_t dst_type = 2, quant_mode = 0, block_size = 0;
  bool round_scale = false, output_origin = false;
  double dst_type_max = 0.0;
};

void swiglu_group_phase1(core::OpBuilder &b, const SwigluGroupRule &rule, const SwigluGroupCall &c);

}  // namespace opsnn::ops

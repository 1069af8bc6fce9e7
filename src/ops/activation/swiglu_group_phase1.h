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
  double clamp_limit = -1.0;
};

void swiglu_group_phase1(core::OpBuilder &b, const SwigluGroupRule &rule, const SwigluGroupCall &c);

}  // namespace opsnn::ops

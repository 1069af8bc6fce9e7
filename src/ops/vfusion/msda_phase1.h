// The phase 1 of the multi-scale deformable attention table (src/ops/vfusion/msda.ops):
// aclnnMultiScaleDeformableAttnFunction and aclnnMultiScaleDeformableAttentionGrad on kernels/vfusion/msda.
// Checks every argument (161001 for a missing one, 161002 naming the argument otherwise) and records one step;
// the level table (spatialShape, levelStartIndex) is device data, read and checked by the launch before it
// writes anything.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct MsdaRule {
  core::DtypeMask dtypes;  // the one dtype of value, location, attnWeight and every output / gradient
  bool backward;           // the gradient: gradOutput in, gradValue / gradLocation / gradAttnWeight out
};

using MsdaArg = core::NamedTensor;

struct MsdaCall {
  MsdaArg value, shapes, starts, loc, attn, out, dy, dvalue, dloc, dattn;
};

void msda_phase1(core::OpBuilder &b, const MsdaRule &rule, const MsdaCall &c);

}  // namespace opsnn::ops

// The phase 1 of the RoPE-gradient table (src/ops/position/rope_grad.ops): aclnnRotaryPositionEmbeddingGrad
// on kernels/position/rope_grad.h. Checks every argument (161001 for a missing required one, 161002
// naming the argument otherwise), works out the broadcast of cos / sin and records one step.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

struct RopeGradRule {
  core::DtypeMask dtypes;  // the one dtype of every tensor
};

using RopeGradArg = core::NamedTensor;

struct RopeGradCall {
  RopeGradArg dy, cos, sin, x, dx, dcos, dsin;
  int64_t mode = 0;
};

void rope_grad_phase1(core::OpBuilder &b, const RopeGradRule &rule, const RopeGradCall &c);

}  // namespace opsnn::ops

// The phase 1 of the table-driven point-wise losses (src/ops/loss/pointwise_losses.ops): an
// element-wise term of (self, target) reduced by `reduction` (0 none, 1 mean, 2 sum, 3 batchmean
// where the row allows it: the sum divided by self's dim 0), and their
// gradients (gradOutput times the term's derivative, scaled by 1 / N for mean). The term runs on
// the element-wise engine (kernels/elementwise/functors/loss.h), the reduction on the reduction
// engine over the terms kept in the workspace (double).
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

struct PointwiseLossRule {
  kernels::EwOp op;        // the term (forward) or its gradient (backward)
  bool backward;           // inputs: gradOutput, self, target
  core::DtypeMask dtypes;  // accepted self / target dtypes
  bool batchmean;          // reduction 3 (batchmean: the sum over the batch, dim 0) accepted
  // The row takes weight / posWeight (binary cross-entropy): `op` is the term (forward) or its
  // derivative (backward) of (self, target, posWeight or 1), written to the workspace; a second
  // pass multiplies by the weight (and the gradient and the reduction's scale).
  bool weighted;
};

struct PointwiseLossCall {
  const aclTensor *grad = nullptr, *self = nullptr, *target = nullptr;
  const char *grad_name = "gradOutput", *self_name = "self", *target_name = "target";
  const aclTensor *weight = nullptr, *pos_weight = nullptr;  // optional; broadcast to the loss's shape
  const char *weight_name = "weight", *pos_weight_name = "posWeightOptional";
  bool has_weight = false, has_pos_weight = false;  // the prototype has these parameters
  int64_t reduction = 1;
  double beta = 1.0;  // smooth L1
  bool has_beta = false;
  bool log_target = false;  // KL divergence: the target holds log-probabilities (the functor's s0)
  const aclTensor *out = nullptr;
  const char *out_name = "out";
};

void pointwise_loss_phase1(core::OpBuilder &b, const PointwiseLossRule &rule, const PointwiseLossCall &c);

}  // namespace opsnn::ops

// The phase 1 of the fused linear cross-entropy table (src/ops/matmul/fused_linear_ce.ops):
// aclnnFusedLinearOnlineMaxSum and aclnnFusedLinearCrossEntropyLossGrad, Megatron's vocabulary-parallel linear +
// cross-entropy around the all-reduces. The logits (input @ weight^T) and the two gradient products are GEMMs on
// the GEMM engine (fp32 logits in workspace scratch); the row statistics and the softmax are the loss family's
// vocab_ce rows (ops/loss/vocab_ce_step.h), the row max one reduction; the packed mask and the gradient rows are
// kernels/loss/vocab_linear. Checks every argument (161001 for a missing one, 161002 naming the argument
// otherwise); maskedTarget is device data, checked by the launch before any output is written.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct FlceRule {
  core::DtypeMask dtypes;  // input / weight (and the logits / gradients written in their dtype)
  bool backward;           // FusedLinearCrossEntropyLossGrad
};

using FlceArg = core::NamedTensor;

struct FlceCall {
  FlceArg x, w, target, max_out, sum_out, pred_out, mask_out, mt_out, logits_out;  // the forward
  FlceArg grad, mask, mt, max, sum, softmax, dx, dw;                               // the gradient
  int64_t start = 0, end = 0;
  float smoothing = 0;
};

void flce_phase1(core::OpBuilder &b, const FlceRule &rule, const FlceCall &c);

}  // namespace opsnn::ops

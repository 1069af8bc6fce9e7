// The phase 1 of the table-driven class-index losses (src/ops/loss/class_losses.ops): NLLLoss
// (and its 2-d form), cross-entropy with class weights, ignoreIndex and label smoothing, and
// their gradients. Self is [N, C, d1, ...] (NLLLoss also [C]), the target holds class indices
// over the other dims. Cross-entropy's log-softmax runs on the dim-wise engine (into logProbOut,
// and a FLOAT copy in the workspace when logProbOut is FLOAT16 / BF16), the loss on
// kernels/loss/class_loss.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class ClassLossKind : uint8_t { kNll, kNllBackward, kCrossEntropy, kCrossEntropyGrad, kMultilabelMargin };

struct ClassLossRule {
  ClassLossKind kind;
  int self_ndim;           // 0: 1 or 2 (NLLLoss: [C] or [N, C]); else exactly this many dims
  core::DtypeMask dtypes;  // self, weight, gradient and outputs
  core::DtypeMask target_dtypes;
};

struct ClassLossCall {
  const aclTensor *grad = nullptr, *self = nullptr, *target = nullptr, *weight = nullptr;
  const aclTensor *total = nullptr;  // NLL: totalWeightOut (forward) or totalWeight (backward)
  const aclTensor *grad_zloss = nullptr, *lse_in = nullptr;  // cross-entropy gradient's z-loss inputs
  const char *grad_name = "gradOutput", *self_name = "self", *target_name = "target", *weight_name = "weight",
             *total_name = "totalWeight", *grad_zloss_name = "gradZlossOptional", *lse_in_name = "lseForZlossOptional";
  int64_t reduction = 1;
  const char *reduction_text = nullptr;  // cross-entropy: "none" / "mean" / "sum" (null: mean)
  bool reduction_is_text = false;
  int64_t ignore_index = -100;
  double smoothing = 0;
  double zloss_scale = 0;
  bool return_zloss = false;
  const aclTensor *out = nullptr, *log_prob = nullptr, *zloss = nullptr, *lse_out = nullptr;
  const char *out_name = "out", *log_prob_name = "logProbOut", *zloss_name = "zlossOut",
             *lse_out_name = "lseForZlossOut";
  const aclTensor *is_target = nullptr;  // MultilabelMarginLoss: per class, how often it is a target
  const char *is_target_name = "isTarget";
};

void class_loss_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c);

}  // namespace opsnn::ops

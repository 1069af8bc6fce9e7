// The phase 1 of the table-driven class-index losses (src/ops/loss/class_losses.ops): NLLLoss
// (and its 2-d form), cross-entropy with class weights, ignoreIndex and label smoothing, and
// their gradients. Self is [N, C, d1, ...] (NLLLoss also [C]), the target holds class indices
// over the other dims. Cross-entropy's log-softmax runs on the dim-wise engine (into logProbOut,
// and a FLOAT copy in the workspace when logProbOut is FLOAT16 / BF16), the loss on
// kernels/loss/class_loss. The two halves of vocabulary-parallel cross-entropy (self: one rank's
// vocabulary shard of the logits) are vocab_ce_phase1.cpp's, on kernels/loss/vocab_ce; the chamfer
// distance's gradient chamfer_grad_phase1.cpp's, on kernels/loss/chamfer_grad.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class ClassLossKind : uint8_t {
  kNll, kNllBackward, kCrossEntropy, kCrossEntropyGrad, kMultilabelMargin,
  kVocabSumExp,  // CrossEntropySumExpAndIndexLogit: shifted target logit, exp and its sum per row
  kVocabLoss,    // FusedCrossEntropyLossWithMaxSum: loss (and softmax) from the reduced row statistics
  kChamferBackward,  // ChamferDistanceBackward: point gradients through the nearest-point indices
};

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
  // Vocabulary-parallel cross-entropy: the rows' global max, the target logit minus it, the sum of
  // the exponentials, exp(logits - max), where the target lies in the shard, the loss's softmax;
  // the matmul operands FusedCrossEntropyLossWithMaxSum accepts and does not read.
  const aclTensor *row_max = nullptr, *predicted = nullptr, *sum_exp = nullptr, *exp_out = nullptr,
                  *target_offset = nullptr, *target_mask = nullptr, *softmax_out = nullptr, *matmul_input = nullptr,
                  *matmul_weight = nullptr;
  const char *row_max_name = "", *predicted_name = "", *sum_exp_name = "", *exp_out_name = "",
             *target_offset_name = "", *target_mask_name = "", *softmax_out_name = "", *matmul_input_name = "",
             *matmul_weight_name = "";
  int64_t vocab_start = 0, vocab_end = 0;  // the shard's global class range [start, end)
  // ChamferDistanceBackward: point sets [B, N, 2] / [B, M, 2], the forward's nearest indices into
  // the other set and the distances' gradients ([B, N] / [B, M]), the point gradients.
  const aclTensor *xyz1 = nullptr, *xyz2 = nullptr, *idx1 = nullptr, *idx2 = nullptr, *grad_dist1 = nullptr,
                  *grad_dist2 = nullptr, *grad_xyz1 = nullptr, *grad_xyz2 = nullptr;
  const char *xyz1_name = "", *xyz2_name = "", *idx1_name = "", *idx2_name = "", *grad_dist1_name = "",
             *grad_dist2_name = "", *grad_xyz1_name = "", *grad_xyz2_name = "";
};

void class_loss_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c);
// The vocabulary-parallel kinds (vocab_ce_phase1.cpp) and the chamfer gradient
// (chamfer_grad_phase1.cpp), called by class_loss_phase1.
void vocab_ce_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c);
void chamfer_grad_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c);

}  // namespace opsnn::ops

// Phase 1 of the two halves of vocabulary-parallel cross-entropy (class_losses.ops rows with
// loss kVocabSumExp / kVocabLoss), over kernels/loss/vocab_ce:
//   CrossEntropySumExpAndIndexLogit: logits [N, V] or [S, B, V] (the rank's shard of the classes
//     [vocabStartIndex, vocabEndIndex), V = end - start), target (INT32) and globalLogitsMax (the
//     logits' dtype) shaped like the leading dims; FLOAT predictedLogits / sumExpLogits and INT32
//     targetOffset / targetMask of that shape, FLOAT expLogits of the logits' shape.
//   FusedCrossEntropyLossWithMaxSum: FLOAT logitsMax, sumExpLogits, predictedLogits [BT] give the
//     FLOAT loss [BT]; with vocabParallelLogitsOptional [BT, V] also softMaxOutOptional (FLOAT,
//     same shape). labelSmoothing must be 0 and inputOptional / weightOptional are not read (the
//     vendor documents both so).
// The vendor's NPU limits on V and N (alignment, ranges) are not imposed: any sizes work.
#include <string>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/loss/vocab_ce.h"
#include "ops/loss/class_loss_phase1.h"
#include "ops/loss/vocab_ce_step.h"

namespace opsnn::ops {
namespace {

using kernels::VocabCePlan;

void sum_exp_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c) {
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.target, c.target_name, rule.target_dtypes);
  core::check_dtype_in(c.row_max, c.row_max_name, rule.dtypes);
  for (const auto &[t, name] : {std::pair{c.predicted, c.predicted_name}, {c.sum_exp, c.sum_exp_name},
                                {c.exp_out, c.exp_out_name}})
    core::check_dtype_in(t, name, {ACL_FLOAT});
  core::check_dtype_in(c.target_offset, c.target_offset_name, {ACL_INT32});
  core::check_dtype_in(c.target_mask, c.target_mask_name, {ACL_INT32});
  const aclTensor &x = *c.self;
  if (x.ndim != 2 && x.ndim != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [N, V] or [S, B, V], got shape %s", c.self_name,
                core::shape_string(x).c_str());
  if (c.row_max->dtype != x.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %s's dtype %s, got %s", c.row_max_name, c.self_name,
                core::dtype_name(x.dtype), core::dtype_name(c.row_max->dtype));
  const int64_t V = x.dims[x.ndim - 1];
  if (c.vocab_start < 0 || c.vocab_end <= c.vocab_start)
    throw_error(ACLNN_ERR_PARAM_INVALID, "need 0 <= vocabStartIndex < vocabEndIndex, got [%lld, %lld)",
                static_cast<long long>(c.vocab_start), static_cast<long long>(c.vocab_end));
  if (c.vocab_end - c.vocab_start != V)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "vocabEndIndex - vocabStartIndex (%lld) must equal the vocabulary size of %s (%lld, shape %s)",
                static_cast<long long>(c.vocab_end - c.vocab_start), c.self_name, static_cast<long long>(V),
                core::shape_string(x).c_str());
  core::Shape rows;
  for (int d = 0; d + 1 < x.ndim; ++d) rows.dims[rows.ndim++] = x.dims[d];
  for (const auto &[t, name] : {std::pair{c.target, c.target_name}, {c.row_max, c.row_max_name},
                                {c.predicted, c.predicted_name}, {c.sum_exp, c.sum_exp_name},
                                {c.target_offset, c.target_offset_name}, {c.target_mask, c.target_mask_name}})
    core::check_shape_equals(*t, name, rows);
  core::check_shape_equals(*c.exp_out, c.exp_out_name, core::Shape::of(x));
  for (const auto &[t, name] : {std::pair{c.predicted, c.predicted_name}, {c.sum_exp, c.sum_exp_name},
                                {c.exp_out, c.exp_out_name}, {c.target_offset, c.target_offset_name},
                                {c.target_mask, c.target_mask_name}})
    core::check_no_internal_overlap(*t, name);

  const int sx = b.input(c.self), st_ = b.input(c.target), sm = b.input(c.row_max);
  const int sp = b.output(c.predicted), ss = b.output(c.sum_exp), se = b.output(c.exp_out),
            so = b.output(c.target_offset), sk = b.output(c.target_mask);
  VocabCePlan P;
  VocabCeOperands refs;
  P.mode = kernels::VocabCeMode::kSumExp;
  P.vocab = V;
  P.start = c.vocab_start;
  P.inner_rows = x.ndim == 3 ? x.dims[1] : 1;
  P.rows = 1;
  for (int d = 0; d < rows.ndim; ++d) P.rows *= rows.dims[d];
  const int lead = rows.ndim;
  const int slots[] = {sx, sm, st_, sp, ss, se, so, sk};
  const int roles[] = {kernels::kVcX, kernels::kVcMax, kernels::kVcTarget, kernels::kVcPredicted,
                       kernels::kVcSumExp, kernels::kVcExp, kernels::kVcOffset, kernels::kVcMask};
  for (int k = 0; k < 8; ++k) set_vocab_operand(b, P, refs, roles[k], slots[k], lead);
  record_vocab_ce(b, P, refs);
}

void loss_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c) {
  for (const auto &[t, name] : {std::pair{c.row_max, c.row_max_name}, {c.sum_exp, c.sum_exp_name},
                                {c.predicted, c.predicted_name}, {c.out, c.out_name}})
    core::check_dtype_in(t, name, {ACL_FLOAT});
  if (c.self != nullptr) core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  if (c.softmax_out != nullptr) core::check_dtype_in(c.softmax_out, c.softmax_out_name, {ACL_FLOAT});
  if (c.smoothing != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "labelSmoothing must be 0 (the only value the op defines), got %g",
                c.smoothing);
  const aclTensor &m = *c.row_max;
  if (m.ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 1-d ([BT]), got shape %s", c.row_max_name,
                core::shape_string(m).c_str());
  const core::Shape rows = core::Shape::of(m);
  for (const auto &[t, name] : {std::pair{c.sum_exp, c.sum_exp_name}, {c.predicted, c.predicted_name},
                                {c.out, c.out_name}})
    core::check_shape_equals(*t, name, rows);
  core::check_no_internal_overlap(*c.out, c.out_name);
  int64_t V = 0;
  if (c.self != nullptr) {
    if (c.self->ndim != 2 || c.self->dims[0] != m.dims[0])
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [%lld, V] (a row per row of %s), got shape %s", c.self_name,
                  static_cast<long long>(m.dims[0]), c.row_max_name, core::shape_string(*c.self).c_str());
    V = c.self->dims[1];
  }
  if (c.softmax_out != nullptr) {
    if (c.self == nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s needs %s (the logits it is the softmax of)", c.softmax_out_name,
                  c.self_name);
    core::check_shape_equals(*c.softmax_out, c.softmax_out_name, core::Shape::of(*c.self));
    core::check_no_internal_overlap(*c.softmax_out, c.softmax_out_name);
  }

  const int sm = b.input(c.row_max), ss = b.input(c.sum_exp), sp = b.input(c.predicted);
  b.input(c.matmul_input);
  b.input(c.matmul_weight);
  const int sx = b.input(c.self), sl = b.output(c.out);
  const int sf = b.output(c.softmax_out);
  VocabCePlan P;
  VocabCeOperands refs;
  P.mode = kernels::VocabCeMode::kLoss;
  P.rows = m.dims[0];
  P.vocab = V;
  const int slots[] = {sm, ss, sp, sx, sl, sf};
  const int roles[] = {kernels::kVcMax, kernels::kVcSumExp, kernels::kVcPredicted, kernels::kVcX,
                       kernels::kVcLoss, kernels::kVcSoftmax};
  for (int k = 0; k < 6; ++k) set_vocab_operand(b, P, refs, roles[k], slots[k], 1);
  record_vocab_ce(b, P, refs);
}

}  // namespace

void vocab_ce_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c) {
  if (rule.kind == ClassLossKind::kVocabSumExp) sum_exp_phase1(b, rule, c);
  else loss_phase1(b, rule, c);
}

}  // namespace opsnn::ops

// aclnnGeGluBackward / aclnnGeGluV3Backward: self = two halves along dim, one activated (the right one
// unless activateLeft), y = lin * gelu(act) with gelu = the forward's gelu output. The gradient is
// gradOutput * gelu for lin and gradOutput * lin * gelu'(act) for act (approximate 0: erf, 1: tanh).
#include "aclnnop/aclnn_geglu_backward.h"
#include "common/error.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
void geglu_backward_phase1(core::OpBuilder &b, const aclTensor *gradOutput, const aclTensor *self,
                           const aclTensor *gelu, int64_t dim, int64_t approximate, bool activateLeft,
                           aclTensor *gradInput) {
  if (approximate != 0 && approximate != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "approximate is %lld; expected 0 (none) or 1 (tanh)",
                static_cast<long long>(approximate));
  const ops::GluGradPlan plan = ops::glu_grad_prepare(
      b, {.grad = gradOutput, .x = self, .extra = gelu, .extra_name = "gelu", .out = gradInput, .dim = dim});
  const int act = activateLeft ? 0 : 1, lin = 1 - act;
  ops::EwSpec lin_spec, act_spec;
  lin_spec.op = EwOp::kMul;
  act_spec.op = approximate == 1 ? EwOp::kGeluTanhGateBackwardAct : EwOp::kGeluGateBackwardAct;
  ops::glu_grad_record_with_extra(b, plan, lin_spec, lin);
  ops::glu_grad_record(b, plan, act_spec, act, /*swap=*/activateLeft);  // operands (g, lin, act)
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnGeGluBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *gelu, int64_t dim, int64_t approximate,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnGeGluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    geglu_backward_phase1(b, gradOutput, self, gelu, dim, approximate, false, gradInput);
  });
}
OPSNN_DEFINE_LAUNCH(GeGluBackward)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnGeGluV3BackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *gelu, int64_t dim, int64_t approximate,
    bool activateLeft, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnGeGluV3Backward", workspaceSize, executor, [&](core::OpBuilder &b) {
    geglu_backward_phase1(b, gradOutput, self, gelu, dim, approximate, activateLeft, gradInput);
  });
}
OPSNN_DEFINE_LAUNCH(GeGluV3Backward)

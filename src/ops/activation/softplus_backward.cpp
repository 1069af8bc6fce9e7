// aclnnSoftplusBackward: beta * self > threshold ? gradOutput : gradOutput * sigmoid(beta * self).
#include "aclnnop/aclnn_softplus_backward.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftplusBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *beta, const aclScalar *threshold,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnSoftplusBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_scalar(beta, "beta");
    core::check_scalar(threshold, "threshold");
    ops::EwSpec spec;
    spec.op = EwOp::kSoftplusBackward;
    spec.set_scalar(0, beta);
    spec.set_scalar(1, threshold);
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(SoftplusBackward)

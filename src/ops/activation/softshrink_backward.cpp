// aclnnSoftshrinkBackward: 0 where -lambd <= self <= lambd, else gradOutput.
#include "aclnnop/aclnn_softshrink_backward.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSoftshrinkBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *lambd, aclTensor *gradInput,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnSoftshrinkBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_scalar(lambd, "lambd");
    ops::EwSpec spec;
    spec.op = EwOp::kShrinkBackward;
    spec.set_scalar(0, lambd);
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(SoftshrinkBackward)

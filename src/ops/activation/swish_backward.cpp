// aclnnSwishBackward: gradient of swish(x) = x sigmoid(beta x); betaOptional null means beta = 1.
// gradOutput, self and gradInput share one shape and dtype.
#include "aclnnop/aclnn_swish_backward.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSwishBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *betaOptional, aclTensor *gradInput,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnSwishBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kSwishBackward;
    if (betaOptional != nullptr) {
      core::check_scalar(betaOptional, "betaOptional");
      spec.set_scalar(0, betaOptional);
    } else {
      spec.set_scalar(0, 1.0);
    }
    ops::grad_phase1(b, spec,
                     {.grad = gradOutput, .x = self, .out = gradInput, .broadcast = false, .same_dtype = true,
                      .out_same_dtype = true});
  });
}
OPSNN_DEFINE_LAUNCH(SwishBackward)

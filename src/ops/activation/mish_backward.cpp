// aclnnMishBackward: gradOutput * (t + x sigmoid(x) (1 - t^2)), t = tanh(softplus(x)).
#include "aclnnop/aclnn_mish_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnMishBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnMishBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kMishBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(MishBackward)

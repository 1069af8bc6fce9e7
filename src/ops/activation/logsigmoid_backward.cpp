// aclnnLogSigmoidBackward: gradOutput * sigmoid(-self). `buffer` (the forward's auxiliary output) is
// accepted and registered but not needed: the derivative is recomputed from self, stably.
#include "aclnnop/aclnn_logsigmoid_backward.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnLogSigmoidBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *buffer, aclTensor *gradInput,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnLogSigmoidBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kLogSigmoidBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .extra = {{buffer, "buffer"}}, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(LogSigmoidBackward)

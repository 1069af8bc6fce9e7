// aclnnSiluBackward: gradOutput * sigmoid(x) (1 + x (1 - sigmoid(x))).
#include "aclnnop/aclnn_silu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSiluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnSiluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kSwishBackward;
    spec.set_scalar(0, 1.0);
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(SiluBackward)

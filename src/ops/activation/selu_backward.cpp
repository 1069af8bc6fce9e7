// aclnnSeluBackward: from the forward result y: y <= 0 ? gradOutput (y + scale alpha) : gradOutput scale.
#include "aclnnop/aclnn_selu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *result, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnSeluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kEluBackwardResult;
    spec.set_scalar(0, 1.6732632423543772848170429916717);  // alpha
    spec.set_scalar(1, 1.0507009873554804934193349852946);  // scale
    spec.set_scalar(2, 1.0);
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = result, .x_name = "result", .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(SeluBackward)

// aclnnFastGeluBackward: gradient of fast_gelu(x) = x sigmoid(1.702 x).
#include "aclnnop/aclnn_fast_gelu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnFastGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnFastGeluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kFastGeluBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(FastGeluBackward)

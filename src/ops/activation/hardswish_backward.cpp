// aclnnHardswishBackward: PyTorch's hardswish_backward (0 below -3, gradOutput (x/3 + 1/2) up to 3 inclusive, gradOutput above).
#include "aclnnop/aclnn_hardswish_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnHardswishBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kHardswishBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = out, .out_name = "out"});
  });
}
OPSNN_DEFINE_LAUNCH(HardswishBackward)

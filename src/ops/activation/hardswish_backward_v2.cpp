// aclnnHardswishBackwardV2: 0 for self <= -3, gradOutput (self/3 + 1/2) for -3 < self < 3, gradOutput for self >= 3;
// gradOutput, self and out share one shape and dtype.
#include "aclnnop/aclnn_hardswish_backward_v2.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnHardswishBackwardV2GetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnHardswishBackwardV2", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kHardswishBackwardV2;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = out, .out_name = "out", .broadcast = false, .same_dtype = true, .out_same_dtype = true});
  });
}
OPSNN_DEFINE_LAUNCH(HardswishBackwardV2)

// aclnnHardtanhBackward: gradOutput where min < self < max, else 0; gradOutput and self have one shape.
#include "aclnnop/aclnn_hardtanh_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnHardtanhBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *min, const aclScalar *max, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnHardtanhBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_scalar(min, "min");
    core::check_scalar(max, "max");
    ops::EwSpec spec;
    spec.op = EwOp::kHardtanhBackward;
    spec.set_scalar(0, min);
    spec.set_scalar(1, max);
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = out, .out_name = "out", .broadcast = false});
  });
}
OPSNN_DEFINE_LAUNCH(HardtanhBackward)

// aclnnHardsigmoidBackward: gradOutput / 6 where -3 < self < 3, else 0.
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnHardsigmoidBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnHardsigmoidBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kHardsigmoidBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = out, .out_name = "out"});
  });
}
OPSNN_DEFINE_LAUNCH(HardsigmoidBackward)

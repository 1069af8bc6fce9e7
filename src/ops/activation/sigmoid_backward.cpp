// aclnnSigmoidBackward: gradOutput * y (1 - y) from the forward output y.
#include "aclnnop/aclnn_sigmoid_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSigmoidBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *output, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnSigmoidBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::EwSpec spec;
    spec.op = EwOp::kSigmoidBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = output, .x_name = "output", .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(SigmoidBackward)

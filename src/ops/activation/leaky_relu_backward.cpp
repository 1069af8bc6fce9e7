// aclnnLeakyReluBackward: self > 0 ? gradOutput : gradOutput * negativeSlope. With selfIsResult, self is
// the forward result, which has the input's sign only for a non-negative slope (as PyTorch requires).
#include "aclnnop/aclnn_leaky_relu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnLeakyReluBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *negativeSlope, bool selfIsResult,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnLeakyReluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_scalar(negativeSlope, "negativeSlope");
    const double slope = negativeSlope->to_double();
    if (selfIsResult && slope < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "selfIsResult is true but negativeSlope is %g; the backward from the result needs a non-negative "
                  "slope",
                  slope);
    ops::EwSpec spec;
    spec.op = EwOp::kLeakyReluBackward;
    spec.set_scalar(0, slope);
    ops::grad_phase1(b, spec,
                     {.grad = gradOutput, .x = self, .out = out, .out_name = "out",
                      .dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}});
  });
}
OPSNN_DEFINE_LAUNCH(LeakyReluBackward)

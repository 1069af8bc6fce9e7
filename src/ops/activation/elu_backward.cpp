// aclnnEluBackward: from the input x: x <= 0 ? g inputScale alpha scale exp(x inputScale) : g scale;
// from the result y (isResult): y <= 0 ? g inputScale (y + alpha scale) : g scale.
#include "aclnnop/aclnn_elu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnEluBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclScalar *alpha, const aclScalar *scale, const aclScalar *inputScale,
    bool isResult, const aclTensor *selfOrResult, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnEluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_scalar(alpha, "alpha");
    core::check_scalar(scale, "scale");
    core::check_scalar(inputScale, "inputScale");
    if (isResult && alpha->to_double() < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "isResult is true but alpha is %g; alpha must be >= 0",
                  alpha->to_double());
    ops::EwSpec spec;
    spec.op = isResult ? EwOp::kEluBackwardResult : EwOp::kEluBackward;
    spec.set_scalar(0, alpha);
    spec.set_scalar(1, scale);
    spec.set_scalar(2, inputScale);
    ops::grad_phase1(b, spec,
                     {.grad = gradOutput, .x = selfOrResult, .x_name = "selfOrResult", .out = gradInput,
                      .broadcast = false, .same_dtype = true});
  });
}
OPSNN_DEFINE_LAUNCH(EluBackward)

// aclnnGeluBackwardV2: gradOutput * gelu'(self) with approximate "none" (erf form) or "tanh".
#include <cstring>

#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "common/error.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnGeluBackwardV2GetWorkspaceSize(const aclTensor *gradOutput,
                                                                               const aclTensor *self, char *approximate,
                                                                               aclTensor *gradInput,
                                                                               uint64_t *workspaceSize,
                                                                               aclOpExecutor **executor) {
  return core::phase1("aclnnGeluBackwardV2", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_not_null(approximate, "approximate");
    const bool tanh_form = std::strcmp(approximate, "tanh") == 0;
    if (!tanh_form && std::strcmp(approximate, "none") != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "approximate is \"%s\"; expected \"none\" or \"tanh\"", approximate);
    ops::EwSpec spec;
    spec.op = tanh_form ? EwOp::kGeluTanhBackward : EwOp::kGeluBackward;
    ops::grad_phase1(b, spec, {.grad = gradOutput, .x = self, .out = gradInput});
  });
}
OPSNN_DEFINE_LAUNCH(GeluBackwardV2)

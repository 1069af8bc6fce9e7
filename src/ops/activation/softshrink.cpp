// aclnnSoftshrink (aclnnop/aclnn_softshrink.h): x - lambd / x + lambd outside [-lambd, lambd], else 0.
#include "aclnnop/aclnn_softshrink.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Softshrink, (const aclTensor *self, const aclScalar *lambd, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double l = ops::scalar_param(lambd, "lambd");
  if (!(l >= 0)) throw_error(ACLNN_ERR_PARAM_INVALID, "lambd must be non-negative, got %g", l);
  ops::unary_activation_phase1(b, {.op = EwOp::kSoftshrink, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 1, .params = {l}});
})

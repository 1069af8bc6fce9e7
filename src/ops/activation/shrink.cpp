// aclnnShrink (aclnnop/aclnn_shrink.h): x > lambd ? x - bias : x < -lambd ? x + bias : 0.
#include "aclnnop/aclnn_shrink.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Shrink, (const aclTensor *self, const aclScalar *lambd, const aclScalar *bias, aclTensor *out,
                             uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double l = ops::scalar_param(lambd, "lambd"), bs = ops::scalar_param(bias, "bias");
  if (!(l >= 0)) throw_error(ACLNN_ERR_PARAM_INVALID, "lambd must be non-negative, got %g", l);
  ops::unary_activation_phase1(b, {.op = EwOp::kShrink, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 2, .params = {l, bs}});
})

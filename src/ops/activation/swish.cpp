// aclnnSwish (aclnnop/aclnn_swish.h): x * sigmoid(beta x); a null betaOptional means beta = 1.
#include "aclnnop/aclnn_swish.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Swish, (const aclTensor *self, const aclScalar *betaOptional, aclTensor *out,
                            uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double beta = betaOptional ? betaOptional->to_double() : 1.0;
  ops::unary_activation_phase1(b, {.op = EwOp::kSwish, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes,
                                   .nparams = 1, .params = {beta}});
})

// aclnnElu, aclnnInplaceElu (aclnnop/aclnn_elu.h):
// x > 0 ? scale x : alpha scale (exp(inputScale x) - 1).
#include "aclnnop/aclnn_elu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Elu, (const aclTensor *self, const aclScalar *alpha, const aclScalar *scale,
                          const aclScalar *inputScale, aclTensor *out, uint64_t *workspaceSize,
                          aclOpExecutor **executor), {
  const double a = ops::scalar_param(alpha, "alpha"), s = ops::scalar_param(scale, "scale"),
               is = ops::scalar_param(inputScale, "inputScale");
  ops::unary_activation_phase1(b, {.op = EwOp::kElu, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes,
                                   .nparams = 3, .params = {a, s, is}});
})
OPSNN_ACTIVATION_OP(InplaceElu, (aclTensor *selfRef, const aclScalar *alpha, const aclScalar *scale,
                                 const aclScalar *inputScale, uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double a = ops::scalar_param(alpha, "alpha"), s = ops::scalar_param(scale, "scale"),
               is = ops::scalar_param(inputScale, "inputScale");
  ops::unary_activation_phase1(b, {.op = EwOp::kElu, .self = selfRef, .inplace = true,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 3, .params = {a, s, is}});
})

// aclnnLeakyRelu, aclnnInplaceLeakyRelu (aclnnop/aclnn_leaky_relu.h): x > 0 ? x : negativeSlope x.
#include "aclnnop/aclnn_leaky_relu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(LeakyRelu, (const aclTensor *self, const aclScalar *negativeSlope, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double s = ops::scalar_param(negativeSlope, "negativeSlope");
  ops::unary_activation_phase1(b, {.op = EwOp::kLeakyRelu, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 1, .params = {s}});
})
OPSNN_ACTIVATION_OP(InplaceLeakyRelu, (aclTensor *selfRef, const aclScalar *negativeSlope, uint64_t *workspaceSize,
                                       aclOpExecutor **executor), {
  const double s = ops::scalar_param(negativeSlope, "negativeSlope");
  ops::unary_activation_phase1(b, {.op = EwOp::kLeakyRelu, .self = selfRef, .inplace = true,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 1, .params = {s}});
})

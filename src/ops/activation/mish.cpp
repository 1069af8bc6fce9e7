// aclnnMish, aclnnInplaceMish (aclnnop/aclnn_mish.h).
#include "aclnnop/aclnn_mish.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Mish, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kMish, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes});
})
OPSNN_ACTIVATION_OP(InplaceMish, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kMish, .self = selfRef, .inplace = true, .dtypes = ops::kActFloatDoubleTypes});
})

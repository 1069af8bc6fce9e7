// aclnnHardswish, aclnnInplaceHardswish (aclnnop/aclnn_hardswish.h).
#include "aclnnop/aclnn_hardswish.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Hardswish, (const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kHardswish, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes});
})
OPSNN_ACTIVATION_OP(InplaceHardswish, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kHardswish, .self = selfRef, .inplace = true, .dtypes = ops::kActFloatDoubleTypes});
})

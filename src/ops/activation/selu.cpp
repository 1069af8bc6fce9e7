// aclnnSelu, aclnnInplaceSelu (aclnnop/aclnn_selu.h).
#include "aclnnop/aclnn_selu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Selu, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kSelu, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes});
})
OPSNN_ACTIVATION_OP(InplaceSelu, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kSelu, .self = selfRef, .inplace = true, .dtypes = ops::kActFloatDoubleTypes});
})

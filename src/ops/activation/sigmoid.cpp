// aclnnSigmoid, aclnnInplaceSigmoid (aclnnop/aclnn_sigmoid.h).
#include "aclnnop/aclnn_sigmoid.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Sigmoid, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kSigmoid, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes});
})
OPSNN_ACTIVATION_OP(InplaceSigmoid, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kSigmoid, .self = selfRef, .inplace = true, .dtypes = ops::kActFloatDoubleTypes});
})

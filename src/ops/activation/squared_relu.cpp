// aclnnSquaredRelu (aclnnop/aclnn_squared_relu.h).
#include "aclnnop/aclnn_squared_relu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(SquaredRelu, (const aclTensor *input, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kSquaredRelu, .self = input, .out = out, .dtypes = ops::kActFloatDoubleTypes, .self_name = "input"});
})

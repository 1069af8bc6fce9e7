// aclnnFastGelu (aclnnop/aclnn_fast_gelu.h).
#include "aclnnop/aclnn_fast_gelu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(FastGelu, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kFastGelu, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes});
})

// aclnnSilu (aclnnop/aclnn_silu.h).
#include "aclnnop/aclnn_silu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Silu, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kSwish, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes, .nparams = 1, .params = {1.0}});
})

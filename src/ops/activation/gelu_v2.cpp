// aclnnGeluV2 (aclnnop/aclnn_gelu_v2.h): approximate 0 = exact (erf), 1 = tanh approximation.
#include "aclnnop/aclnn_gelu_v2.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(GeluV2, (const aclTensor *x, int64_t approximate, aclTensor *y, uint64_t *workspaceSize,
                             aclOpExecutor **executor), {
  if (approximate != 0 && approximate != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "approximate must be 0 (none) or 1 (tanh), got %lld",
                static_cast<long long>(approximate));
  ops::unary_activation_phase1(b, {.op = approximate == 1 ? EwOp::kGeluTanh : EwOp::kGeluErf, .self = x, .out = y,
                                   .dtypes = ops::kActFloatDoubleTypes, .self_name = "x"});
})

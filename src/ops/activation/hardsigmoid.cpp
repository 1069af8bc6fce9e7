// aclnnHardsigmoid, aclnnInplaceHardsigmoid (aclnnop/aclnn_hardsigmoid.h).
#include "aclnnop/aclnn_hardsigmoid.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Hardsigmoid, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kHardsigmoid, .self = self, .out = out, .dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32}});
})
OPSNN_ACTIVATION_OP(InplaceHardsigmoid, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kHardsigmoid, .self = selfRef, .inplace = true, .dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32}});
})

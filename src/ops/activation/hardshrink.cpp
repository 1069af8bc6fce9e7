// aclnnHardshrink (aclnnop/aclnn_hardshrink.h): |x| > lambd ? x : 0.
#include "aclnnop/aclnn_hardshrink.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Hardshrink, (const aclTensor *self, const aclScalar *lambd, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double l = ops::scalar_param(lambd, "lambd");
  ops::unary_activation_phase1(b, {.op = EwOp::kHardshrink, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 1, .params = {l}});
})

// aclnnCelu, aclnnInplaceCelu (aclnnop/aclnn_celu.h): x > 0 ? x : alpha (exp(x / alpha) - 1).
#include "aclnnop/aclnn_celu.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
double celu_alpha(const aclScalar *alpha) {
  const double a = ops::scalar_param(alpha, "alpha");
  if (a == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "alpha must not be 0 (CELU divides by it)");
  return a;
}
}  // namespace

OPSNN_ACTIVATION_OP(Celu, (const aclTensor *self, const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize,
                           aclOpExecutor **executor), {
  const double a = celu_alpha(alpha);
  ops::unary_activation_phase1(b, {.op = EwOp::kCelu, .self = self, .out = out, .dtypes = ops::kActFloatDoubleTypes,
                                   .nparams = 1, .params = {a}});
})
OPSNN_ACTIVATION_OP(InplaceCelu, (aclTensor *selfRef, const aclScalar *alpha, uint64_t *workspaceSize,
                                  aclOpExecutor **executor), {
  const double a = celu_alpha(alpha);
  ops::unary_activation_phase1(b, {.op = EwOp::kCelu, .self = selfRef, .inplace = true,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 1, .params = {a}});
})

// aclnnSoftplus (aclnnop/aclnn_softplus.h): log(1 + exp(beta x)) / beta, x where beta x > threshold.
#include "aclnnop/aclnn_softplus.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Softplus, (const aclTensor *self, const aclScalar *beta, const aclScalar *threshold,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double be = ops::scalar_param(beta, "beta"), th = ops::scalar_param(threshold, "threshold");
  if (be == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "beta must not be 0 (softplus divides by it)");
  ops::unary_activation_phase1(b, {.op = EwOp::kSoftplus, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes, .nparams = 2, .params = {be, th}});
})

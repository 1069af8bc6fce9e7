// aclnnHardtanh, aclnnInplaceHardtanh (aclnnop/aclnn_hardtanh.h): clamp(x, clipValueMin, clipValueMax).
#include "aclnnop/aclnn_hardtanh.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
constexpr std::initializer_list<aclDataType> kHardtanhTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                                                               ACL_UINT8, ACL_INT16, ACL_INT32, ACL_INT64};
}

OPSNN_ACTIVATION_OP(Hardtanh, (const aclTensor *self, const aclScalar *clipValueMin, const aclScalar *clipValueMax,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double lo = ops::scalar_param(clipValueMin, "clipValueMin"), hi = ops::scalar_param(clipValueMax, "clipValueMax");
  ops::unary_activation_phase1(b, {.op = EwOp::kHardtanh, .self = self, .out = out, .dtypes = kHardtanhTypes,
                                   .nparams = 2, .params = {lo, hi}});
})
OPSNN_ACTIVATION_OP(InplaceHardtanh, (aclTensor *selfRef, const aclScalar *clipValueMin,
                                      const aclScalar *clipValueMax, uint64_t *workspaceSize,
                                      aclOpExecutor **executor), {
  const double lo = ops::scalar_param(clipValueMin, "clipValueMin"), hi = ops::scalar_param(clipValueMax, "clipValueMax");
  ops::unary_activation_phase1(b, {.op = EwOp::kHardtanh, .self = selfRef, .inplace = true, .dtypes = kHardtanhTypes,
                                   .nparams = 2, .params = {lo, hi}});
})

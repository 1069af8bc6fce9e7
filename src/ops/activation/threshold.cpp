// aclnnThreshold, aclnnInplaceThreshold (aclnnop/aclnn_threshold.h): x > threshold ? x : value.
#include "aclnnop/aclnn_threshold.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
constexpr std::initializer_list<aclDataType> kThresholdTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                                                                ACL_UINT8, ACL_INT16,  ACL_INT32, ACL_INT64};
}

OPSNN_ACTIVATION_OP(Threshold, (const aclTensor *self, const aclScalar *threshold, const aclScalar *value,
                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double t = ops::scalar_param(threshold, "threshold"), v = ops::scalar_param(value, "value");
  ops::unary_activation_phase1(b, {.op = EwOp::kThreshold, .self = self, .out = out, .dtypes = kThresholdTypes,
                                   .nparams = 2, .params = {t, v}});
})
OPSNN_ACTIVATION_OP(InplaceThreshold, (aclTensor *selfRef, const aclScalar *threshold, const aclScalar *value,
                                       uint64_t *workspaceSize, aclOpExecutor **executor), {
  const double t = ops::scalar_param(threshold, "threshold"), v = ops::scalar_param(value, "value");
  ops::unary_activation_phase1(b, {.op = EwOp::kThreshold, .self = selfRef, .inplace = true,
                                   .dtypes = kThresholdTypes, .nparams = 2, .params = {t, v}});
})

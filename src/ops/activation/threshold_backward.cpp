// aclnnThresholdBackward: self <= threshold ? 0 : gradOutput (also for integer dtypes).
#include "aclnnop/aclnn_threshold_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnThresholdBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *threshold, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnThresholdBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_scalar(threshold, "threshold");
    ops::EwSpec spec;
    spec.op = EwOp::kThresholdBackward;
    spec.set_scalar(0, threshold);
    ops::grad_phase1(b, spec,
                     {.grad = gradOutput, .x = self, .out = out, .out_name = "out",
                      .dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_UINT8, ACL_INT16,
                                 ACL_INT32, ACL_INT64}});
  });
}
OPSNN_DEFINE_LAUNCH(ThresholdBackward)

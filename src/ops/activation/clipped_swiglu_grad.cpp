// aclnnClippedSwigluGrad: x is flattened from dim on and split into x0, x1 (first / second half, or
// even / odd positions when interleaved); y = x0' sigmoid(alpha x0') (x1' + bias) with x0' = min(x0, limit),
// x1' = clamp(x1, -limit, limit). With groupIndexOptional, rows (the dims before dim) at and after
// sum(groupIndex) get a zero gradient; that sum is read at launch.
#include "aclnnop/aclnn_clipped_swiglu_grad.h"
#include "common/error.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnClippedSwigluGradGetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha,
    double limit, double bias, bool interleaved, const aclTensor *gradXOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnClippedSwigluGrad", workspaceSize, executor, [&](core::OpBuilder &b) {
    if (!(limit > 0)) throw_error(ACLNN_ERR_INNER_TILING_ERROR, "limit is %g; it must be > 0", limit);
    const ops::GluGradPlan plan = ops::glu_grad_prepare(
        b, {.grad = gradY, .grad_name = "gradY", .x = x, .x_name = "x", .group_arg = true, .group_index = groupIndexOptional,
            .out = gradXOut, .out_name = "gradXOut", .dim = dim, .interleaved = interleaved, .merge_tail = interleaved,
            .shape_error = ACLNN_ERR_INNER_TILING_ERROR});
    ops::EwSpec s0, s1;
    s0.op = EwOp::kClippedSwigluBackwardX0;
    s1.op = EwOp::kClippedSwigluBackwardX1;
    for (ops::EwSpec *s : {&s0, &s1}) {
      s->set_scalar(0, alpha);
      s->set_scalar(1, limit);
      s->set_scalar(2, bias);
    }
    ops::glu_grad_record(b, plan, s0, 0);
    ops::glu_grad_record(b, plan, s1, 1);
    ops::glu_grad_zero_rows_after_groups(b, plan);
  });
}
OPSNN_DEFINE_LAUNCH(ClippedSwigluGrad)

// aclnnSwiGluGrad: x = [a, b] along dim, y = silu(a) * b; out = [yGrad b silu'(a), yGrad silu(a)].
#include "aclnnop/aclnn_swi_glu_grad.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSwiGluGradGetWorkspaceSize(const aclTensor *yGrad,
                                                                           const aclTensor *x, int64_t dim,
                                                                           const aclTensor *out,
                                                                           uint64_t *workspaceSize,
                                                                           aclOpExecutor **executor) {
  return core::phase1("aclnnSwiGluGrad", workspaceSize, executor, [&](core::OpBuilder &b) {
    const ops::GluGradPlan plan = ops::glu_grad_prepare(
        b, {.grad = yGrad, .grad_name = "yGrad", .x = x, .x_name = "x", .out = out, .out_name = "out", .dim = dim});
    ops::EwSpec act, lin;
    act.op = EwOp::kSwiGluBackwardAct;
    lin.op = EwOp::kSwiGluBackwardLin;
    ops::glu_grad_record(b, plan, act, 0);
    ops::glu_grad_record(b, plan, lin, 1);
  });
}
OPSNN_DEFINE_LAUNCH(SwiGluGrad)

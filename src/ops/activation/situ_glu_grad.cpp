// aclnnSituGluGrad: x = [gate, up] along dim (activateLeft; else [up, gate]),
// y = beta tanh(gate / beta) sigmoid(gate) * up', up' = linearBeta > 0 ? linearBeta tanh(up / linearBeta) : up.
#include "aclnnop/aclnn_situ_glu_grad.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnSituGluGradGetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *x, int64_t dim, double beta, double linearBeta, bool activateLeft,
    const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnSituGluGrad", workspaceSize, executor, [&](core::OpBuilder &b) {
    const ops::GluGradPlan plan = ops::glu_grad_prepare(
        b, {.grad = gradY, .grad_name = "gradY", .x = x, .x_name = "x", .out = out, .out_name = "out", .dim = dim});
    const int gate = activateLeft ? 0 : 1, up = 1 - gate;
    ops::EwSpec g, u;
    g.op = EwOp::kSituGluBackwardGate;
    u.op = EwOp::kSituGluBackwardUp;
    for (ops::EwSpec *s : {&g, &u}) {
      s->set_scalar(0, beta);
      s->set_scalar(1, linearBeta);
    }
    ops::glu_grad_record(b, plan, g, gate, /*swap=*/!activateLeft);  // operands (g, gate, up)
    ops::glu_grad_record(b, plan, u, up, /*swap=*/!activateLeft);
  });
}
OPSNN_DEFINE_LAUNCH(SituGluGrad)

// aclnnGluBackward: self = [a, b] along dim, glu = a sigmoid(b); out = [g sigmoid(b), g a sigmoid(b) (1 - sigmoid(b))].
#include "aclnnop/aclnn_glu_backward.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnGluBackwardGetWorkspaceSize(const aclTensor *gradOut,
                                                                            const aclTensor *self, int64_t dim,
                                                                            const aclTensor *out,
                                                                            uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor) {
  return core::phase1("aclnnGluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    const ops::GluGradPlan plan = ops::glu_grad_prepare(
        b, {.grad = gradOut, .grad_name = "gradOut", .x = self, .out = out, .out_name = "out", .dim = dim,
            .dtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}});
    ops::EwSpec first, second;
    first.op = EwOp::kGluBackwardFirst;
    second.op = EwOp::kGluBackwardSecond;
    ops::glu_grad_record(b, plan, first, 0);
    ops::glu_grad_record(b, plan, second, 1);
  });
}
OPSNN_DEFINE_LAUNCH(GluBackward)

// aclnnLerps, aclnnInplaceLerps (aclnnop/aclnn_lerp_scalar.h): self + weight * (end - self) with
// a scalar weight; floating dtypes only.
#include "aclnnop/aclnn_lerp_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
void lerps(opsnn::core::OpBuilder &b, const aclTensor *self, const aclTensor *end, const aclScalar *weight,
           const aclTensor *out, bool inplace) {
  EwRule r{EwOp::kLerp};
  r.bool_ok = r.integral_ok = false;
  EwArgs a;
  a.n_in = 3;
  a.in[0] = EwOperand::t(self, inplace ? "selfRef" : "self");
  a.in[1] = EwOperand::t(end, "end");
  a.in[2] = EwOperand::s(weight, "weight");
  a.out = out;
  a.inplace = inplace;
  ew_phase1(b, r, a);
}
}  // namespace

OPSNN_EW_OP(Lerps,
            (const aclTensor *self, const aclTensor *end, const aclScalar *weight, aclTensor *out,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            { lerps(b, self, end, weight, out, false); })
OPSNN_EW_OP(InplaceLerps,
            (aclTensor *selfRef, const aclTensor *end, const aclScalar *weight, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            { lerps(b, selfRef, end, weight, nullptr, true); })

// aclnnCosh and aclnnInplaceCosh (aclnnop/aclnn_cosh.h): hyperbolic cosine.
#include "aclnnop/aclnn_cosh.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kCosh;
  a.kind = ops::UnaryMathKind::kFloatResult;
  a.allow_bool = true;
  a.self = self;
  a.out = out;
  a.inplace = inplace;
  a.self_name = inplace ? "selfRef" : "self";
  a.out_name = "out";
  return a;
}
}  // namespace

OPSNN_UNARY_MATH_OP(Cosh, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(self, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceCosh, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(selfRef, nullptr, true)); })

// aclnnExp2 and aclnnInplaceExp2 (aclnnop/aclnn_exp2.h): 2^x.
#include "aclnnop/aclnn_exp2.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kExp2;
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

OPSNN_UNARY_MATH_OP(Exp2, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(self, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceExp2, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(selfRef, nullptr, true)); })

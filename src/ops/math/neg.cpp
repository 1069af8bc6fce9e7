// aclnnNeg and aclnnInplaceNeg (aclnnop/aclnn_neg.h): -x (integers wrap around).
#include "aclnnop/aclnn_neg.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kNeg;
  a.kind = ops::UnaryMathKind::kSameType;
  a.allow_bool = false;
  a.self = self;
  a.out = out;
  a.inplace = inplace;
  a.self_name = inplace ? "selfRef" : "self";
  a.out_name = "out";
  return a;
}
}  // namespace

OPSNN_UNARY_MATH_OP(Neg, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(self, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceNeg, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(selfRef, nullptr, true)); })

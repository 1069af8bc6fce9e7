// aclnnSign (aclnnop/aclnn_sign.h): sign(x) in {-1, 0, 1}; BOOL passes through; NaN -> 0.
#include "aclnnop/aclnn_sign.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kSign;
  a.kind = ops::UnaryMathKind::kSameType;
  a.allow_bool = true;
  a.self = self;
  a.out = out;
  a.inplace = inplace;
  a.self_name = inplace ? "self" : "self";
  a.out_name = "result";
  return a;
}
}  // namespace

OPSNN_UNARY_MATH_OP(Sign, (const aclTensor *self, aclTensor *result, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(self, result, false)); })

// aclnnLog2 and aclnnInplaceLog2 (aclnnop/aclnn_log2.h): base-2 logarithm.
#include "aclnnop/aclnn_log2.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kLog2;
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

OPSNN_UNARY_MATH_OP(Log2, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(self, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceLog2, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(selfRef, nullptr, true)); })

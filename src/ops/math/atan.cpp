// aclnnAtan and aclnnInplaceAtan (aclnnop/aclnn_atan.h): arctangent.
#include "aclnnop/aclnn_atan.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kAtan;
  a.kind = ops::UnaryMathKind::kFloatResult;
  a.allow_bool = true;
  a.self = self;
  a.out = out;
  a.inplace = inplace;
  a.self_name = inplace ? "inputRef" : "input";
  a.out_name = "out";
  return a;
}
}  // namespace

OPSNN_UNARY_MATH_OP(Atan, (const aclTensor *input, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(input, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceAtan, (aclTensor *inputRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(inputRef, nullptr, true)); })

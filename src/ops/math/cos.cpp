// aclnnCos and aclnnInplaceCos (aclnnop/aclnn_cos.h): cosine.
#include "aclnnop/aclnn_cos.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kCos;
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

OPSNN_UNARY_MATH_OP(Cos, (const aclTensor *input, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(input, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceCos, (aclTensor *inputRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(inputRef, nullptr, true)); })

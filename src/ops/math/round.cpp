// aclnnRound / aclnnInplaceRound (round half to even) and aclnnRoundDecimals /
// aclnnInplaceRoundDecimals (torch.round(x, decimals)) (aclnnop/aclnn_round.h).
#include <cmath>

#include "aclnnop/aclnn_round.h"
#include "core/dtype.h"
#include "ops/math/unary_math_common.h"

using namespace opsnn;

namespace {
ops::UnaryMathArgs args(const aclTensor *self, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a;
  a.op = kernels::EwOp::kRound;
  a.kind = ops::UnaryMathKind::kSameType;
  a.allow_bool = false;
  a.self = self;
  a.out = out;
  a.inplace = inplace;
  a.self_name = inplace ? "selfRef" : "self";
  return a;
}

// decimals > 0: nearbyint(x * 10^d) / 10^d; decimals < 0: nearbyint(x / 10^-d) * 10^-d. Integer
// inputs are computed in DOUBLE (exact for |x| < 2^53) and stored back.
ops::UnaryMathArgs decimals_args(const aclTensor *self, int64_t decimals, const aclTensor *out, bool inplace) {
  ops::UnaryMathArgs a = args(self, out, inplace);
  a.op = kernels::EwOp::kRoundDecimals;
  a.nscalars = 2;
  a.scalars[0] = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  a.scalars[1] = decimals < 0 ? 1.0 : 0.0;
  if (self != nullptr && !core::is_floating(self->dtype)) a.compute_override = ACL_DOUBLE;
  return a;
}
}  // namespace

OPSNN_UNARY_MATH_OP(Round, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(self, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceRound, (const aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, args(selfRef, nullptr, true)); })

OPSNN_UNARY_MATH_OP(RoundDecimals,
                    (const aclTensor *self, int64_t decimals, aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, decimals_args(self, decimals, out, false)); })

OPSNN_UNARY_MATH_OP(InplaceRoundDecimals,
                    (aclTensor *selfRef, int64_t decimals, uint64_t *workspaceSize, aclOpExecutor **executor),
                    { ops::unary_math_phase1(b, decimals_args(selfRef, decimals, nullptr, true)); })

// aclnnRemainder{TensorTensor,TensorScalar,ScalarTensor} and the in-place forms
// (aclnnop/aclnn_remainder.h): Python modulo, the result has the sign of the divisor.
#include "aclnnop/aclnn_remainder.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule remainder_rule() {
  EwRule r{EwOp::kRemainder};
  r.bool_ok = false;
  return r;
}
}  // namespace

OPSNN_BINARY_RULE_OUT_AND_INPLACE(RemainderTensorTensor, remainder_rule(), aclTensor, other, aclTensor)
OPSNN_BINARY_RULE_OUT_AND_INPLACE(RemainderTensorScalar, remainder_rule(), aclScalar, other_scalar, aclTensor)
OPSNN_EW_OP(RemainderScalarTensor,
            (const aclScalar *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              EwArgs a;
              a.n_in = 2;
              a.in[0] = EwOperand::s(self, "self");
              a.in[1] = EwOperand::t(other, "other");
              a.out = out;
              ew_phase1(b, remainder_rule(), a);
            })

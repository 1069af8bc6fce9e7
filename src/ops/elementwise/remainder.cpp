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

OPSNN_BINARY_RULE_OP(RemainderTensorTensor, remainder_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(RemainderTensorScalar, remainder_rule(),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
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
OPSNN_BINARY_RULE_OP(InplaceRemainderTensorTensor, remainder_rule(),
                     (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})
OPSNN_BINARY_RULE_OP(InplaceRemainderTensorScalar, remainder_rule(),
                     (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

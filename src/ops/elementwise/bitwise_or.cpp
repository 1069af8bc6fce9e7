// aclnnBitwiseOrTensor, aclnnInplaceBitwiseOrTensor: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_or_tensor.h).
// aclnnBitwiseOrScalar, aclnnInplaceBitwiseOrScalar: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_or_scalar.h).
#include "aclnnop/aclnn_bitwise_or_tensor.h"
#include "aclnnop/aclnn_bitwise_or_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule bitwise_rule() {
  EwRule r{EwOp::kBitwiseOr};
  r.floating_ok = false;
  r.bool_op = EwOp::kLogicalOr;
  return r;
}
}  // namespace

OPSNN_BINARY_RULE_OP(BitwiseOrTensor, bitwise_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceBitwiseOrTensor, bitwise_rule(),
                     (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})
OPSNN_BINARY_RULE_OP(BitwiseOrScalar, bitwise_rule(),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceBitwiseOrScalar, bitwise_rule(),
                     (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

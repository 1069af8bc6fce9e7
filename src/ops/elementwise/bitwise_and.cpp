// aclnnBitwiseAndTensor, aclnnInplaceBitwiseAndTensor: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_and_tensor.h).
// aclnnBitwiseAndScalar, aclnnInplaceBitwiseAndScalar: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_and_scalar.h).
#include "aclnnop/aclnn_bitwise_and_tensor.h"
#include "aclnnop/aclnn_bitwise_and_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule bitwise_rule() {
  EwRule r{EwOp::kBitwiseAnd};
  r.floating_ok = false;
  r.bool_op = EwOp::kLogicalAnd;
  return r;
}
}  // namespace

OPSNN_BINARY_RULE_OP(BitwiseAndTensor, bitwise_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceBitwiseAndTensor, bitwise_rule(),
                     (const aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})
OPSNN_BINARY_RULE_OP(BitwiseAndScalar, bitwise_rule(),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceBitwiseAndScalar, bitwise_rule(),
                     (const aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

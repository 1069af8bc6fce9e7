// aclnnBitwiseXorTensor, aclnnInplaceBitwiseXorTensor: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_xor_tensor.h).
// aclnnBitwiseXorScalar, aclnnInplaceBitwiseXorScalar: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_xor_scalar.h).
#include "aclnnop/aclnn_bitwise_xor_tensor.h"
#include "aclnnop/aclnn_bitwise_xor_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule bitwise_rule() {
  EwRule r{EwOp::kBitwiseXor};
  r.floating_ok = false;
  r.bool_op = EwOp::kLogicalXor;
  return r;
}
}  // namespace

OPSNN_BINARY_RULE_OP(BitwiseXorTensor, bitwise_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceBitwiseXorTensor, bitwise_rule(),
                     (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})
OPSNN_BINARY_RULE_OP(BitwiseXorScalar, bitwise_rule(),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceBitwiseXorScalar, bitwise_rule(),
                     (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

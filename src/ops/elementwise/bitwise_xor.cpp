// aclnnBitwiseXorTensor, aclnnInplaceBitwiseXorTensor: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_xor_tensor.h).
// aclnnBitwiseXorScalar, aclnnInplaceBitwiseXorScalar: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_xor_scalar.h).
#include "aclnnop/aclnn_bitwise_xor_tensor.h"
#include "aclnnop/aclnn_bitwise_xor_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
const EwRule kRule = rule_bitwise(EwOp::kBitwiseXor, EwOp::kLogicalXor);
}  // namespace

OPSNN_BINARY_RULE_OUT_AND_INPLACE(BitwiseXorTensor, kRule, aclTensor, other, aclTensor)
OPSNN_BINARY_RULE_OUT_AND_INPLACE(BitwiseXorScalar, kRule, aclScalar, other_scalar, aclTensor)

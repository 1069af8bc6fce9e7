// aclnnBitwiseOrTensor, aclnnInplaceBitwiseOrTensor: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_or_tensor.h).
// aclnnBitwiseOrScalar, aclnnInplaceBitwiseOrScalar: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_or_scalar.h).
#include "aclnnop/aclnn_bitwise_or_tensor.h"
#include "aclnnop/aclnn_bitwise_or_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
const EwRule kRule = rule_bitwise(EwOp::kBitwiseOr, EwOp::kLogicalOr);
}  // namespace

OPSNN_BINARY_RULE_OUT_AND_INPLACE(BitwiseOrTensor, kRule, aclTensor, other, aclTensor)
OPSNN_BINARY_RULE_OUT_AND_INPLACE(BitwiseOrScalar, kRule, aclScalar, other_scalar, aclTensor)

// aclnnBitwiseAndTensor, aclnnInplaceBitwiseAndTensor: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_and_tensor.h).
// aclnnBitwiseAndScalar, aclnnInplaceBitwiseAndScalar: integers and BOOL (BOOL: the logical op) (aclnnop/aclnn_bitwise_and_scalar.h).
#include "aclnnop/aclnn_bitwise_and_tensor.h"
#include "aclnnop/aclnn_bitwise_and_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
const EwRule kRule = rule_bitwise(EwOp::kBitwiseAnd, EwOp::kLogicalAnd);
}  // namespace

OPSNN_BINARY_RULE_OUT_AND_INPLACE(BitwiseAndTensor, kRule, aclTensor, other, const aclTensor)
OPSNN_BINARY_RULE_OUT_AND_INPLACE(BitwiseAndScalar, kRule, aclScalar, other_scalar, const aclTensor)

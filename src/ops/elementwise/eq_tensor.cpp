// aclnnEqTensor, aclnnInplaceEqTensor: self eq other, 1 / 0 in the output dtype (aclnnop/aclnn_eq_tensor.h).
#include "aclnnop/aclnn_eq_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(EqTensor, rule_compare(EwOp::kEq), aclTensor, other, const aclTensor)

// aclnnLeScalar, aclnnInplaceLeScalar: self le scalar other (aclnnop/aclnn_le_scalar.h).
#include "aclnnop/aclnn_le_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(LeScalar, rule_compare(EwOp::kLe), aclScalar, other_scalar, aclTensor)

// aclnnLtScalar, aclnnInplaceLtScalar: self lt scalar other (aclnnop/aclnn_lt_scalar.h).
#include "aclnnop/aclnn_lt_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(LtScalar, rule_compare(EwOp::kLt), aclScalar, other_scalar, const aclTensor)

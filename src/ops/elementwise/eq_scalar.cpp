// aclnnEqScalar, aclnnInplaceEqScalar: self eq scalar other (aclnnop/aclnn_eq_scalar.h).
#include "aclnnop/aclnn_eq_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(EqScalar, rule_compare(EwOp::kEq), aclScalar, other_scalar, const aclTensor)

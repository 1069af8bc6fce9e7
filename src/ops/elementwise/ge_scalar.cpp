// aclnnGeScalar, aclnnInplaceGeScalar: self ge scalar other (aclnnop/aclnn_ge_scalar.h).
#include "aclnnop/aclnn_ge_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(GeScalar, rule_compare(EwOp::kGe), aclScalar, other_scalar, aclTensor)

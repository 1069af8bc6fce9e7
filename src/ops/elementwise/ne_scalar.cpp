// aclnnNeScalar, aclnnInplaceNeScalar: self ne scalar other (aclnnop/aclnn_ne_scalar.h).
#include "aclnnop/aclnn_ne_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(NeScalar, rule_compare(EwOp::kNe), aclScalar, other_scalar, aclTensor)

// aclnnGtScalar, aclnnInplaceGtScalar: self gt scalar other (aclnnop/aclnn_gt_scalar.h).
#include "aclnnop/aclnn_gt_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(GtScalar, rule_compare(EwOp::kGt), aclScalar, other_scalar, aclTensor)

// aclnnLtTensor, aclnnInplaceLtTensor: self lt other, 1 / 0 in the output dtype (aclnnop/aclnn_lt_tensor.h).
#include "aclnnop/aclnn_lt_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(LtTensor, rule_compare(EwOp::kLt), aclTensor, other, const aclTensor)

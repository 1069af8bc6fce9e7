// aclnnLeTensor, aclnnInplaceLeTensor: self le other, 1 / 0 in the output dtype (aclnnop/aclnn_le_tensor.h).
#include "aclnnop/aclnn_le_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(LeTensor, rule_compare(EwOp::kLe), aclTensor, other, aclTensor)

// aclnnGeTensor, aclnnInplaceGeTensor: self ge other, 1 / 0 in the output dtype (aclnnop/aclnn_ge_tensor.h).
#include "aclnnop/aclnn_ge_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(GeTensor, rule_compare(EwOp::kGe), aclTensor, other, aclTensor)

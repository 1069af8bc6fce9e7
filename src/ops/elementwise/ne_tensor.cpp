// aclnnNeTensor, aclnnInplaceNeTensor: self ne other, 1 / 0 in the output dtype (aclnnop/aclnn_ne_tensor.h).
#include "aclnnop/aclnn_ne_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(NeTensor, rule_compare(EwOp::kNe), aclTensor, other, aclTensor)

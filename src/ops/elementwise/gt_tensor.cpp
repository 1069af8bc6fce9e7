// aclnnGtTensor, aclnnInplaceGtTensor: self gt other, 1 / 0 in the output dtype (aclnnop/aclnn_gt_tensor.h).
#include "aclnnop/aclnn_gt_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OUT_AND_INPLACE(GtTensor, rule_compare(EwOp::kGt), aclTensor, other, const aclTensor)

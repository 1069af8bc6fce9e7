// aclnnGtTensor, aclnnInplaceGtTensor: self gt other, 1 / 0 in the output dtype (aclnnop/aclnn_gt_tensor.h).
#include "aclnnop/aclnn_gt_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OP(GtTensor, rule_compare(EwOp::kGt),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceGtTensor, rule_compare(EwOp::kGt),
                     (const aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})

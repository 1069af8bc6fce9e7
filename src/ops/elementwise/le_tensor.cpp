// aclnnLeTensor, aclnnInplaceLeTensor: self le other, 1 / 0 in the output dtype (aclnnop/aclnn_le_tensor.h).
#include "aclnnop/aclnn_le_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OP(LeTensor, rule_compare(EwOp::kLe),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceLeTensor, rule_compare(EwOp::kLe),
                     (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})

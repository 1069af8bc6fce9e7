// aclnnMaximum (aclnnop/aclnn_maximum.h): torch.maximum, NaN propagates.
#include "aclnnop/aclnn_maximum.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OP(Maximum, rule_promoted(EwOp::kMaximum),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})

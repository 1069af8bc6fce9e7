// aclnnMinimum (aclnnop/aclnn_minimum.h): torch.minimum, NaN propagates.
#include "aclnnop/aclnn_minimum.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OP(Minimum, rule_promoted(EwOp::kMinimum),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})

// aclnnAtan2, aclnnInplaceAtan2 (aclnnop/aclnn_atan2.h): atan2(self, other), self is y and other
// is x; integer / BOOL operands give FLOAT.
#include "aclnnop/aclnn_atan2.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule atan2_rule() { return EwRule{EwOp::kAtan2, EwResult::kFloating}; }
}  // namespace

OPSNN_BINARY_RULE_OP(Atan2, atan2_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceAtan2, atan2_rule(),
                     (aclTensor *selfRef, aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})

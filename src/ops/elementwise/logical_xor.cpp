// aclnnLogicalXor: zero is false, anything else true; BOOL (or any dtype) out (aclnnop/aclnn_logical_xor.h).
#include "aclnnop/aclnn_logical_xor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule logical_rule() { return EwRule{EwOp::kLogicalXor, EwResult::kBool}; }
}  // namespace

OPSNN_BINARY_RULE_OP(LogicalXor, logical_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})

// aclnnLogicalAnd, aclnnInplaceLogicalAnd: zero is false, anything else true; BOOL (or any dtype) out (aclnnop/aclnn_logical_and.h).
#include "aclnnop/aclnn_logical_and.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule logical_rule() { return EwRule{EwOp::kLogicalAnd, EwResult::kBool}; }
}  // namespace

OPSNN_BINARY_RULE_OP(LogicalAnd, logical_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceLogicalAnd, logical_rule(),
                     (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})

// aclnnLogicalNot, aclnnInplaceLogicalNot (aclnnop/aclnn_logical_not.h).
#include "aclnnop/aclnn_logical_not.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule logical_not_rule() { return EwRule{EwOp::kLogicalNot, EwResult::kBool}; }
}  // namespace

OPSNN_EW_OP(LogicalNot, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, logical_not_rule(), self, out, false); })
OPSNN_EW_OP(InplaceLogicalNot, (aclTensor *selfRef, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, logical_not_rule(), selfRef, nullptr, true); })

// aclnnLogicalOr, aclnnInplaceLogicalOr: zero is false, anything else true; BOOL (or any dtype) out (aclnnop/aclnn_logical_or.h).
#include "aclnnop/aclnn_logical_or.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule logical_rule() { return EwRule{EwOp::kLogicalOr, EwResult::kBool}; }
}  // namespace

OPSNN_BINARY_RULE_OUT_AND_INPLACE(LogicalOr, logical_rule(), aclTensor, other, aclTensor)

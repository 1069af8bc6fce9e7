// aclnnLogicalAnd, aclnnInplaceLogicalAnd: zero is false, anything else true; BOOL (or any dtype) out (aclnnop/aclnn_logical_and.h).
#include "aclnnop/aclnn_logical_and.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule logical_rule() { return EwRule{EwOp::kLogicalAnd, EwResult::kBool}; }
}  // namespace

OPSNN_BINARY_RULE_OUT_AND_INPLACE(LogicalAnd, logical_rule(), aclTensor, other, aclTensor)

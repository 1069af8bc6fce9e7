// aclnnBitwiseNot: ~x on integers, logical not on BOOL (aclnnop/aclnn_bitwise_not.h).
#include "aclnnop/aclnn_bitwise_not.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule bitwise_not_rule() {
  EwRule r{EwOp::kBitwiseNot};
  r.floating_ok = false;
  r.bool_op = EwOp::kLogicalNot;
  return r;
}
}  // namespace

OPSNN_EW_OP(BitwiseNot, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, bitwise_not_rule(), self, out, false); })

// aclnnIsNegInf: BOOL (or any dtype) out; integers and BOOL are finite (aclnnop/aclnn_isneginf.h).
#include "aclnnop/aclnn_isneginf.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_EW_OP(IsNegInf, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, EwRule{EwOp::kIsNegInf, EwResult::kBool}, self, out, false, "self"); })

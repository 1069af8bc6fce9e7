// aclnnIsPosInf: BOOL (or any dtype) out; integers and BOOL are finite (aclnnop/aclnn_isposinf.h).
#include "aclnnop/aclnn_isposinf.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_EW_OP(IsPosInf, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, EwRule{EwOp::kIsPosInf, EwResult::kBool}, self, out, false, "self"); })

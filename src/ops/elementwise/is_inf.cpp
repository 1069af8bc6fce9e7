// aclnnIsInf: BOOL (or any dtype) out; integers and BOOL are finite (aclnnop/aclnn_is_inf.h).
#include "aclnnop/aclnn_is_inf.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_EW_OP(IsInf, (const aclTensor *x, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, EwRule{EwOp::kIsInf, EwResult::kBool}, x, out, false, "x"); })

// aclnnIsNan: torch.isnan; BOOL (or any dtype) out; integers and BOOL are never NaN
// (aclnnop/aclnn_isnan.h).
#include "aclnnop/aclnn_isnan.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_EW_OP(IsNan, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, EwRule{EwOp::kIsNan, EwResult::kBool}, self, out, false, "self"); })

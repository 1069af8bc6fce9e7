// aclnnIsFinite: BOOL (or any dtype) out; integers and BOOL are finite (aclnnop/aclnn_isfinite.h).
#include "aclnnop/aclnn_isfinite.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_EW_OP(IsFinite, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { unary_rule_phase1(b, EwRule{EwOp::kIsFinite, EwResult::kBool}, self, out, false, "self"); })

// aclnnSWhere (aclnnop/aclnn_s_where.h): out = condition ? self : other, all three broadcast,
// self and other promoted (torch.where).
#include "aclnnop/aclnn_s_where.h"
#include "core/op_checks.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

OPSNN_EW_OP(SWhere,
            (const aclTensor *condition, const aclTensor *self, const aclTensor *other, aclTensor *out,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            {
              core::check_dtype_in(condition, "condition", {ACL_BOOL, ACL_UINT8});
              EwArgs a;
              a.n_in = 3;
              a.in[0] = EwOperand::t(condition, "condition");
              a.in[0].promotes = false;
              a.in[1] = EwOperand::t(self, "self");
              a.in[2] = EwOperand::t(other, "other");
              a.out = out;
              ew_phase1(b, EwRule{EwOp::kWhere}, a);
            })

// aclnnInplaceMaskedFillScalar (aclnnop/aclnn_masked_fill_scalar.h): selfRef[mask] = value; mask
// is BOOL and broadcasts to selfRef; value is converted to selfRef's dtype.
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "core/op_checks.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

OPSNN_EW_OP(InplaceMaskedFillScalar,
            (aclTensor *selfRef, const aclTensor *mask, const aclScalar *value, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              core::check_tensor(selfRef, "selfRef");
              core::check_dtype_in(mask, "mask", {ACL_BOOL});
              EwArgs a;
              a.n_in = 3;
              a.in[0] = EwOperand::t(selfRef, "selfRef");
              a.in[1] = EwOperand::t(mask, "mask");
              a.in[1].promotes = false;
              a.in[2] = EwOperand::s(value, "value");
              a.in[2].promotes = false;
              a.order[0] = 1;  // where(mask, value, selfRef)
              a.order[1] = 2;
              a.order[2] = 0;
              a.inplace = true;
              a.compute_in_self = true;
              ew_phase1(b, EwRule{EwOp::kWhere}, a);
            })

// aclnnAddcdiv, aclnnInplaceAddcdiv (aclnnop/aclnn_addcdiv.h): self + value * tensor1 / tensor2.
// As in PyTorch, integer division through addcdiv is an error.
#include "aclnnop/aclnn_addcdiv.h"
#include "common/error.h"
#include "core/dtype.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

namespace {
void addcdiv(core::OpBuilder &b, const aclTensor *self, const aclTensor *t1, const aclTensor *t2,
             const aclScalar *value, const aclTensor *out, bool inplace) {
  EwArgs a = self_value_pair_args(self, t1, t2, value, out, inplace);
  a.check = [&](aclDataType) {
    if (core::is_integral(t1->dtype, true) && core::is_integral(t2->dtype, true))
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "integer division with addcdiv is not supported (tensor1 %s, tensor2 %s); use a floating dtype",
                  core::dtype_name(t1->dtype), core::dtype_name(t2->dtype));
  };
  EwRule r{EwOp::kAddcdiv};
  r.bool_ok = r.integral_ok = false;
  ew_phase1(b, r, a);
}
}  // namespace

OPSNN_EW_OP(Addcdiv,
            (const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { addcdiv(b, self, tensor1, tensor2, value, out, false); })
OPSNN_EW_OP(InplaceAddcdiv,
            (const aclTensor *selfRef, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            { addcdiv(b, selfRef, tensor1, tensor2, value, nullptr, true); })

// aclnnAddcmul, aclnnInplaceAddcmul (aclnnop/aclnn_addcmul.h): self + value * tensor1 * tensor2.
#include "aclnnop/aclnn_addcmul.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
void addcmul(opsnn::core::OpBuilder &b, const aclTensor *self, const aclTensor *t1, const aclTensor *t2,
             const aclScalar *value, const aclTensor *out, bool inplace) {
  EwArgs a = self_value_pair_args(self, t1, t2, value, out, inplace);
  ew_phase1(b, EwRule{EwOp::kAddcmul}, a);
}
}  // namespace

OPSNN_EW_OP(Addcmul,
            (const aclTensor *self, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor),
            { addcmul(b, self, tensor1, tensor2, value, out, false); })
OPSNN_EW_OP(InplaceAddcmul,
            (const aclTensor *selfRef, const aclTensor *tensor1, const aclTensor *tensor2, const aclScalar *value,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            { addcmul(b, selfRef, tensor1, tensor2, value, nullptr, true); })

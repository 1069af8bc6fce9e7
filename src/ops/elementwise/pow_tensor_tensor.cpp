// aclnnPowTensorTensor, aclnnInplacePowTensorTensor (aclnnop/aclnn_pow_tensor_tensor.h).
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
void pow_tensor_tensor(opsnn::core::OpBuilder &b, const aclTensor *self, const aclTensor *exponent,
                       const aclTensor *out, bool inplace) {
  EwRule r{EwOp::kPow};
  r.bool_ok = false;
  EwArgs a;
  a.n_in = 2;
  a.in[0] = EwOperand::t(self, "self");
  a.in[1] = EwOperand::t(exponent, "exponent");
  a.out = out;
  a.inplace = inplace;
  ew_phase1(b, r, a);
}
}  // namespace

OPSNN_EW_OP(PowTensorTensor,
            (const aclTensor *self, const aclTensor *exponent, aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            { pow_tensor_tensor(b, self, exponent, out, false); })
OPSNN_EW_OP(InplacePowTensorTensor,
            (const aclTensor *self, const aclTensor *exponent, uint64_t *workspaceSize, aclOpExecutor **executor),
            { pow_tensor_tensor(b, self, exponent, nullptr, true); })

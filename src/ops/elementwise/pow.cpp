// aclnnPowTensorScalar, aclnnInplacePowTensorScalar, aclnnPowScalarTensor (aclnnop/aclnn_pow.h).
// Integer results are exact with wrap-around; as in PyTorch, an integer tensor raised to a
// negative integer scalar is an error (a negative exponent inside a tensor gives 1, -1 or 0).
#include "aclnnop/aclnn_pow.h"
#include "common/error.h"
#include "core/dtype.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

namespace {
EwRule pow_rule() {
  EwRule r{EwOp::kPow};
  r.bool_ok = false;
  return r;
}

void pow_tensor_scalar(core::OpBuilder &b, const aclTensor *self, const aclScalar *exponent, const aclTensor *out,
                       bool inplace) {
  EwArgs a;
  a.n_in = 2;
  a.in[0] = EwOperand::t(self, "self");
  a.in[1] = EwOperand::s(exponent, "exponent");
  a.out = out;
  a.inplace = inplace;
  a.check = [&](aclDataType promoted) {
    if (core::is_integral(promoted, true) && !exponent->is_floating() && exponent->to_int64() < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "integers to negative integer powers are not allowed (self %s, exponent %lld)",
                  core::dtype_name(self->dtype), static_cast<long long>(exponent->to_int64()));
  };
  ew_phase1(b, pow_rule(), a);
}
}  // namespace

OPSNN_EW_OP(PowTensorScalar,
            (const aclTensor *self, const aclScalar *exponent, const aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            { pow_tensor_scalar(b, self, exponent, out, false); })
OPSNN_EW_OP(InplacePowTensorScalar,
            (const aclTensor *self, const aclScalar *exponent, uint64_t *workspaceSize, aclOpExecutor **executor),
            { pow_tensor_scalar(b, self, exponent, nullptr, true); })
OPSNN_EW_OP(PowScalarTensor,
            (const aclScalar *self, const aclTensor *exponent, const aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              EwArgs a;
              a.n_in = 2;
              a.in[0] = EwOperand::s(self, "self");
              a.in[1] = EwOperand::t(exponent, "exponent");
              a.out = out;
              ew_phase1(b, pow_rule(), a);
            })

// aclnnLerp, aclnnInplaceLerp (aclnnop/aclnn_lerp_tensor.h: tensor weight; self, end and weight
// broadcast) and aclnnLerps, aclnnInplaceLerps (aclnnop/aclnn_lerp_scalar.h: scalar weight):
// self + weight * (end - self); floating dtypes only.
#include "aclnnop/aclnn_lerp_scalar.h"
#include "aclnnop/aclnn_lerp_tensor.h"
#include "common/error.h"
#include "core/dtype.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
// torch.lerp is defined for floating start and end tensors only (a float weight does not make
// integer tensors floating).
void check_floating_operands(const aclTensor *self, const aclTensor *end) {
  for (const aclTensor *t : {self, end})
    if (!opsnn::core::is_floating(t->dtype))
      opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "Lerp is only defined for floating tensors, got %s %s",
                         t == self ? "self" : "end", opsnn::core::dtype_name(t->dtype));
}
void lerp(opsnn::core::OpBuilder &b, const aclTensor *self, const aclTensor *end, const EwOperand &weight,
          const aclTensor *out, bool inplace) {
  EwRule r{EwOp::kLerp};
  r.bool_ok = r.integral_ok = false;
  EwArgs a;
  a.n_in = 3;
  a.in[0] = EwOperand::t(self, inplace ? "selfRef" : "self");
  a.in[1] = EwOperand::t(end, "end");
  a.in[2] = weight;
  a.out = out;
  a.inplace = inplace;
  a.check = [&](aclDataType) { check_floating_operands(self, end); };
  ew_phase1(b, r, a);
}
}  // namespace

OPSNN_EW_OP(Lerp,
            (const aclTensor *self, const aclTensor *end, const aclTensor *weight, aclTensor *out,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            { lerp(b, self, end, EwOperand::t(weight, "weight"), out, false); })
OPSNN_EW_OP(InplaceLerp,
            (aclTensor *selfRef, const aclTensor *end, const aclTensor *weight, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            { lerp(b, selfRef, end, EwOperand::t(weight, "weight"), nullptr, true); })
OPSNN_EW_OP(Lerps,
            (const aclTensor *self, const aclTensor *end, const aclScalar *weight, aclTensor *out,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            { lerp(b, self, end, EwOperand::s(weight, "weight"), out, false); })
OPSNN_EW_OP(InplaceLerps,
            (aclTensor *selfRef, const aclTensor *end, const aclScalar *weight, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            { lerp(b, selfRef, end, EwOperand::s(weight, "weight"), nullptr, true); })

// The clamp family (aclnnop/aclnn_clamp.h): Clamp / ClampMin / ClampMax with scalar bounds,
// ClampTensor / ClampMinTensor / ClampMaxTensor with broadcast tensor bounds, and the in-place
// forms the header declares. Bounds take part in type promotion (torch.clamp); NaN in the input
// or a bound propagates; min > max gives max.
#include "aclnnop/aclnn_clamp.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

namespace {
// lo / hi: the bounds as operands (tensor or scalar, either may be absent but not both).
void clamp(core::OpBuilder &b, const aclTensor *self, EwOperand lo, EwOperand hi, const aclTensor *out,
           bool inplace) {
  auto given = [](const EwOperand &o) { return o.is_scalar ? o.scalar != nullptr : o.tensor != nullptr; };
  core::check_tensor(self, inplace ? "selfRef" : "self");
  if (!given(lo) && !given(hi))
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s and %s are both null; at least one bound is required", lo.name, hi.name);
  EwArgs a;
  a.in[0] = EwOperand::t(self, inplace ? "selfRef" : "self");
  a.n_in = 1;
  EwOp op = EwOp::kClamp;
  if (given(lo)) a.in[a.n_in++] = lo;
  else op = EwOp::kClampMax;
  if (given(hi)) a.in[a.n_in++] = hi;
  else op = EwOp::kClampMin;
  a.out = out;
  a.inplace = inplace;
  ew_phase1(b, EwRule{op}, a);
}
EwOperand none(bool scalar, const char *name) {
  EwOperand o;
  o.is_scalar = scalar;
  o.name = name;
  return o;
}
}  // namespace

OPSNN_EW_OP(Clamp,
            (const aclTensor *self, const aclScalar *clipValueMin, const aclScalar *clipValueMax, aclTensor *out,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            {
              clamp(b, self, EwOperand::s(clipValueMin, "clipValueMin"), EwOperand::s(clipValueMax, "clipValueMax"),
                    out, false);
            })
OPSNN_EW_OP(ClampMin,
            (const aclTensor *self, const aclScalar *clipValueMin, aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              core::check_tensor(self, "self");
              core::check_scalar(clipValueMin, "clipValueMin");
              clamp(b, self, EwOperand::s(clipValueMin, "clipValueMin"), none(true, "clipValueMax"), out, false);
            })
OPSNN_EW_OP(ClampMax,
            (const aclTensor *self, const aclScalar *clipValueMax, aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              core::check_tensor(self, "self");
              core::check_scalar(clipValueMax, "clipValueMax");
              clamp(b, self, none(true, "clipValueMin"), EwOperand::s(clipValueMax, "clipValueMax"), out, false);
            })
OPSNN_EW_OP(InplaceClampMax,
            (const aclTensor *selfRef, const aclScalar *clipValueMax, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              core::check_tensor(selfRef, "selfRef");
              core::check_scalar(clipValueMax, "clipValueMax");
              clamp(b, selfRef, none(true, "clipValueMin"), EwOperand::s(clipValueMax, "clipValueMax"), nullptr, true);
            })
OPSNN_EW_OP(ClampTensor,
            (const aclTensor *self, const aclTensor *clipValueMin, const aclTensor *clipValueMax, aclTensor *out,
             uint64_t *workspaceSize, aclOpExecutor **executor),
            {
              clamp(b, self, EwOperand::t(clipValueMin, "clipValueMin"), EwOperand::t(clipValueMax, "clipValueMax"),
                    out, false);
            })
OPSNN_EW_OP(ClampMinTensor,
            (const aclTensor *self, const aclTensor *clipValueMin, aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              core::check_tensor(self, "self");
              core::check_tensor(clipValueMin, "clipValueMin");
              clamp(b, self, EwOperand::t(clipValueMin, "clipValueMin"), none(false, "clipValueMax"), out, false);
            })
OPSNN_EW_OP(InplaceClampMinTensor,
            (aclTensor *selfRef, const aclTensor *clipValueMin, uint64_t *workspaceSize, aclOpExecutor **executor),
            {
              core::check_tensor(selfRef, "selfRef");
              core::check_tensor(clipValueMin, "clipValueMin");
              clamp(b, selfRef, EwOperand::t(clipValueMin, "clipValueMin"), none(false, "clipValueMax"), nullptr, true);
            })
OPSNN_EW_OP(ClampMaxTensor,
            (const aclTensor *self, const aclTensor *max, aclTensor *out, uint64_t *workspaceSize,
             aclOpExecutor **executor),
            {
              core::check_tensor(self, "self");
              core::check_tensor(max, "max");
              clamp(b, self, none(false, "min"), EwOperand::t(max, "max"), out, false);
            })
OPSNN_EW_OP(InplaceClampMaxTensor,
            (aclTensor *selfRef, const aclTensor *max, uint64_t *workspaceSize, aclOpExecutor **executor),
            {
              core::check_tensor(selfRef, "selfRef");
              core::check_tensor(max, "max");
              clamp(b, selfRef, none(false, "min"), EwOperand::t(max, "max"), nullptr, true);
            })

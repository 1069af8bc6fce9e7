// aclnnClamp / aclnnClampTensor (aclnnop/aclnn_clamp.h): two optional bounds, scalars or broadcast
// tensors, at least one given; the kernel follows the bounds given. Bounds take part in type
// promotion (torch.clamp); NaN in the input or a bound propagates; min > max gives max. The
// one-bound forms (ClampMin, ClampMax, ClampMinTensor, ClampMaxTensor and their in-place twins)
// are rows of ternary.ops.
#include "aclnnop/aclnn_clamp.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/elementwise/nary_phase1.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

namespace {
// lo / hi: the bounds as operands (tensor or scalar, either may be absent but not both).
void clamp(core::OpBuilder &b, const aclTensor *self, const EwOperand &lo, const EwOperand &hi, const aclTensor *out) {
  auto given = [](const EwOperand &o) { return o.is_scalar ? o.scalar != nullptr : o.tensor != nullptr; };
  core::check_tensor(self, "self");
  if (!given(lo) && !given(hi))
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s and %s are both null; at least one bound is required", lo.name, hi.name);
  EwArgs a;
  a.in[0] = EwOperand::t(self, "self");
  a.n_in = 1;
  EwOp op = EwOp::kClamp;
  if (given(lo)) a.in[a.n_in++] = lo;
  else op = EwOp::kClampMax;
  if (given(hi)) a.in[a.n_in++] = hi;
  else op = EwOp::kClampMin;
  a.out = out;
  nary_phase1(b, EwRule{op}, a);
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnClampGetWorkspaceSize(const aclTensor *self,
                                                                      const aclScalar *clipValueMin,
                                                                      const aclScalar *clipValueMax, aclTensor *out,
                                                                      uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor) {
  return core::phase1("aclnnClamp", workspaceSize, executor, [&](core::OpBuilder &b) {
    clamp(b, self, EwOperand::s(clipValueMin, "clipValueMin"), EwOperand::s(clipValueMax, "clipValueMax"), out);
  });
}
OPSNN_DEFINE_LAUNCH(Clamp)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnClampTensorGetWorkspaceSize(const aclTensor *self,
                                                                            const aclTensor *clipValueMin,
                                                                            const aclTensor *clipValueMax,
                                                                            aclTensor *out, uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor) {
  return core::phase1("aclnnClampTensor", workspaceSize, executor, [&](core::OpBuilder &b) {
    clamp(b, self, EwOperand::t(clipValueMin, "clipValueMin"), EwOperand::t(clipValueMax, "clipValueMax"), out);
  });
}
OPSNN_DEFINE_LAUNCH(ClampTensor)

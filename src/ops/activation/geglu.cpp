// aclnnGeGlu, aclnnGeGluV3 (aclnnop/aclnn_geglu.h): split self in halves A | B along dim; the
// activated half goes through GELU (approximate 0 = erf, 1 = tanh) and multiplies the other half:
// activateLeft ? gelu(A) * B : A * gelu(B) (GeGlu: activateLeft = false). outGelu = the GELU'd half.
#include "aclnnop/aclnn_geglu.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
void geglu_phase1(core::OpBuilder &b, const aclTensor *self, int64_t dim, int64_t approximate, bool activate_left,
                  aclTensor *out, aclTensor *out_gelu) {
  core::check_dtype_in(self, "self", ops::kActFloatDoubleTypes);
  if (approximate != 0 && approximate != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "approximate must be 0 (none) or 1 (tanh), got %lld",
                static_cast<long long>(approximate));
  const ops::GluHalves h = ops::glu_halves(self, "self", dim);
  ops::check_glu_out(out, "out", *self, h);
  ops::check_glu_out(out_gelu, "outGelu", *self, h);
  const int x = b.input(self), o = b.output(out), og = b.output(out_gelu);
  const ops::EwInput act = ops::EwInput::tensor_view(x, activate_left ? h.first : h.second);
  const ops::EwInput other = ops::EwInput::tensor_view(x, activate_left ? h.second : h.first);
  ops::EwSpec spec;
  spec.compute_dtype = self->dtype;
  spec.set_scalar(0, static_cast<double>(approximate));
  spec.op = EwOp::kGeluGate;
  ops::record_elementwise(b, spec, o, {act, other});
  spec.op = EwOp::kGeluMode;
  ops::record_elementwise(b, spec, og, {act});
}
}  // namespace

OPSNN_ACTIVATION_OP(GeGlu, (const aclTensor *self, int64_t dim, int64_t approximate, aclTensor *out,
                            aclTensor *outGelu, uint64_t *workspaceSize, aclOpExecutor **executor), {
  geglu_phase1(b, self, dim, approximate, false, out, outGelu);
})
OPSNN_ACTIVATION_OP(GeGluV3, (const aclTensor *self, int64_t dim, int64_t approximate, bool activateLeft,
                              aclTensor *out, aclTensor *outGelu, uint64_t *workspaceSize, aclOpExecutor **executor), {
  geglu_phase1(b, self, dim, approximate, activateLeft, out, outGelu);
})

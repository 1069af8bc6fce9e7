// aclnnRReluWithNoise, aclnnInplaceRReluWithNoise (aclnnop/aclnn_rrelu_with_noise.h).
// Evaluation (training = false): leaky ReLU with slope (lower + upper) / 2, as torch.rrelu.
// Training: out = self * noise with the given noise tensor (noise = 1 where self > 0, a random
// slope in [lower, upper] elsewhere), so the result is deterministic given noise.
#include "aclnnop/aclnn_rrelu_with_noise.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {
void rrelu_phase1(core::OpBuilder &b, const aclTensor *self, const aclTensor *noise, const aclScalar *lower,
                  const aclScalar *upper, bool training, const aclTensor *out, bool inplace) {
  const char *self_name = inplace ? "selfRef" : "self";
  core::check_dtype_in(self, self_name, ops::kActFloatDoubleTypes);
  core::check_dtype_in(noise, "noise", ops::kActFloatDoubleTypes);
  const double lo = core::scalar_value(lower, "lower"), hi = core::scalar_value(upper, "upper");
  if (noise->numel() < self->numel())
    throw_error(ACLNN_ERR_PARAM_INVALID, "noise %s has fewer elements than %s %s", core::shape_string(*noise).c_str(),
                self_name, core::shape_string(*self).c_str());
  if (training && !(core::Shape::of(*noise) == core::Shape::of(*self)) && !noise->is_contiguous())
    throw_error(ACLNN_ERR_PARAM_INVALID, "a noise tensor of another shape than %s must be contiguous", self_name);
  if (!inplace) {
    core::check_tensor(out, "out");
    core::check_shape_equals(*out, "out", core::Shape::of(*self));
    if (!core::can_cast(self->dtype, out->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "self dtype %s cannot be cast to out dtype %s",
                  core::dtype_name(self->dtype), core::dtype_name(out->dtype));
  }
  const int x = inplace ? b.inout(self) : b.input(self);
  const int n = b.input(noise);
  const int o = inplace ? x : b.output(out);
  ops::EwSpec spec;
  spec.compute_dtype = self->dtype;
  if (!training) {
    spec.op = EwOp::kLeakyRelu;
    spec.set_scalar(0, (lo + hi) / 2);
    ops::record_elementwise(b, spec, o, {ops::EwInput::tensor(x)});
    return;
  }
  // noise read in self's shape: itself, or its first numel(self) elements in row-major order.
  aclTensor nv = b.tensor(n);
  if (!(core::Shape::of(*noise) == core::Shape::of(*self))) core::set_contiguous(nv, core::Shape::of(*self));
  spec.op = EwOp::kRReluNoise;
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor(x), ops::EwInput::tensor_view(n, nv)});
}
}  // namespace

OPSNN_ACTIVATION_OP(RReluWithNoise, (const aclTensor *self, const aclTensor *noise, const aclScalar *lower,
                                     const aclScalar *upper, bool training, int64_t seed, int64_t offset,
                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  (void)seed;
  (void)offset;
  rrelu_phase1(b, self, noise, lower, upper, training, out, false);
})
OPSNN_ACTIVATION_OP(InplaceRReluWithNoise, (const aclTensor *self, const aclTensor *noise, const aclScalar *lower,
                                            const aclScalar *upper, bool training, int64_t seed, int64_t offset,
                                            uint64_t *workspaceSize, aclOpExecutor **executor), {
  (void)seed;
  (void)offset;
  rrelu_phase1(b, self, noise, lower, upper, training, nullptr, true);
})

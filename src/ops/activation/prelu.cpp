// aclnnPrelu (aclnnop/aclnn_prelu.h): x > 0 ? x : w x, PyTorch semantics: weight holds one value or
// one per channel (dim 1 of self; a 1-D self is its own channel dim... only a single weight then).
#include "aclnnop/aclnn_prelu.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Prelu, (const aclTensor *self, const aclTensor *weight, aclTensor *out, uint64_t *workspaceSize,
                            aclOpExecutor **executor), {
  core::check_dtype_in(self, "self", ops::kActFloatDoubleTypes);
  core::check_dtype_in(weight, "weight", ops::kActFloatDoubleTypes);
  core::check_tensor(out, "out");
  const int64_t nw = weight->numel();
  const int64_t channels = self->ndim >= 2 ? self->dims[1] : 1;
  if (weight->ndim > 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "weight must be 0-D or 1-D, got shape %s", core::shape_string(*weight).c_str());
  if (nw != 1 && nw != channels)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "weight has %lld elements; it must have 1 or as many as the channels (dim 1) of self %s (%lld)",
                static_cast<long long>(nw), core::shape_string(*self).c_str(), static_cast<long long>(channels));
  core::check_shape_equals(*out, "out", core::Shape::of(*self));
  if (!core::is_floating(out->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "out dtype %s is not a floating type", core::dtype_name(out->dtype));
  const int x = b.input(self), w = b.input(weight), o = b.output(out);
  // The weight as a view broadcast against self: all ones but the channel dim.
  aclTensor wv = b.tensor(w);
  wv.ndim = self->ndim;
  for (int d = 0; d < wv.ndim; ++d) {
    wv.dims[d] = 1;
    wv.strides[d] = 0;
  }
  if (nw > 1) {
    wv.dims[1] = nw;
    wv.strides[1] = weight->ndim == 1 ? weight->strides[0] : 0;
  }
  ops::EwSpec spec;
  spec.op = EwOp::kPrelu;
  spec.compute_dtype = self->dtype;
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor(x), ops::EwInput::tensor_view(w, wv)});
})

// aclnnFatreluMul (aclnnop/aclnn_fatrelu_mul.h): (x1 < threshold ? 0 : x1) * x2, where x1 | x2 are
// the halves of input along the last dim and threshold is a one-element tensor.
#include "aclnnop/aclnn_fatrelu_mul.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(FatreluMul, (const aclTensor *input, const aclTensor *threshold, const aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor), {
  core::check_dtype_in(input, "input", ops::kActFloatDoubleTypes);
  core::check_dtype_in(threshold, "threshold", ops::kActFloatDoubleTypes);
  if (threshold->numel() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "threshold must hold exactly one element, got shape %s",
                core::shape_string(*threshold).c_str());
  const ops::GluHalves h = ops::glu_halves(input, "input", -1);
  ops::check_glu_out(out, "out", *input, h);
  const int x = b.input(input), t = b.input(threshold), o = b.output(out);
  aclTensor tv = b.tensor(t);  // its one element, as a 0-D view broadcast to the output
  tv.ndim = 0;
  ops::EwSpec spec;
  spec.op = EwOp::kFatreluMul;
  spec.compute_dtype = input->dtype;
  ops::record_elementwise(b, spec, o,
                          {ops::EwInput::tensor_view(x, h.first), ops::EwInput::tensor_view(x, h.second),
                           ops::EwInput::tensor_view(t, tv)});
})

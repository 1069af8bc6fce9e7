// aclnnClippedSwiglu (aclnnop/aclnn_clipped_swiglu.h): SwiGLU with clamped halves (GPT-OSS):
// A | B = halves of x along dim (front/back, or even/odd when interleaved);
// y = min(A, limit) sigmoid(alpha min(A, limit)) * (clamp(B, -limit, limit) + bias).
#include "ops/activation/clipped_swiglu.h"

#include "aclnnop/aclnn_clipped_swiglu.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

namespace opsnn::ops {

void clipped_swiglu_phase1(core::OpBuilder &b, const aclTensor *x, const aclTensor *group_index, int64_t dim,
                           double alpha, double limit, double bias, bool interleaved, int64_t clamp_mode,
                           const aclTensor *out) {
  core::check_dtype_in(x, "x", kActFloatDoubleTypes);
  if (group_index != nullptr)
    // The rows to process depend on the values of groupIndexOptional (their sum), known only when
    // the op runs; OpsNN plans every row in phase 1.
    throw_error(ACLNN_ERR_PARAM_INVALID, "groupIndexOptional is not supported by OpsNN yet; pass nullptr");
  if (clamp_mode != 0 && clamp_mode != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "clampMode must be 0 or 1, got %lld", static_cast<long long>(clamp_mode));
  const GluHalves h = glu_halves(x, "x", dim, interleaved);
  // The documented even/odd split runs over the dims from `dim` on, merged; it equals the split
  // along `dim` only when `dim` is the last non-trivial dimension.
  int64_t after = 1;
  for (int d = h.dim + 1; d < x->ndim; ++d) after *= x->dims[d];
  if (interleaved && after != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "interleaved split along dim %d of x %s with trailing dims is not supported; use the last dim",
                h.dim, core::shape_string(*x).c_str());
  check_glu_out(out, "out", *x, h);
  const int xs = b.input(x);
  b.input(group_index);
  const int o = b.output(out);
  EwSpec spec;
  spec.op = clamp_mode == 0 ? kernels::EwOp::kClippedSwiglu : kernels::EwOp::kClippedSwigluPost;
  spec.compute_dtype = x->dtype;
  spec.set_scalar(0, alpha);
  spec.set_scalar(1, limit);
  spec.set_scalar(2, bias);
  record_elementwise(b, spec, o, {EwInput::tensor_view(xs, h.first), EwInput::tensor_view(xs, h.second)});
}

}  // namespace opsnn::ops

using namespace opsnn;

OPSNN_ACTIVATION_OP(ClippedSwiglu, (const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim,
                                    double alpha, double limit, double bias, bool interleaved, const aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::clipped_swiglu_phase1(b, x, groupIndexOptional, dim, alpha, limit, bias, interleaved, 0, out);
})

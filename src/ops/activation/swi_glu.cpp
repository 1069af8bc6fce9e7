// aclnnSwiGlu (aclnnop/aclnn_swi_glu.h): silu(first half) * second half along dim.
#include "aclnnop/aclnn_swi_glu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(SwiGlu, (const aclTensor *x, int64_t dim, const aclTensor *out, uint64_t *workspaceSize,
                             aclOpExecutor **executor), {
  core::check_dtype_in(x, "x", ops::kActFloatDoubleTypes);
  const ops::GluHalves h = ops::glu_halves(x, "x", dim);
  ops::check_glu_out(out, "out", *x, h);
  const int xs = b.input(x), o = b.output(out);
  ops::EwSpec spec;
  spec.op = EwOp::kSwiGlu;
  spec.compute_dtype = x->dtype;
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor_view(xs, h.first), ops::EwInput::tensor_view(xs, h.second)});
})

// aclnnGlu (aclnnop/aclnn_glu.h): torch.glu — first half * sigmoid(second half) along dim.
#include "aclnnop/aclnn_glu.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(Glu, (const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                          aclOpExecutor **executor), {
  core::check_dtype_in(self, "self", ops::kActFloatDoubleTypes);
  const ops::GluHalves h = ops::glu_halves(self, "self", dim);
  ops::check_glu_out(out, "out", *self, h);
  const int x = b.input(self), o = b.output(out);
  ops::EwSpec spec;
  spec.op = EwOp::kGlu;
  spec.compute_dtype = self->dtype;
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor_view(x, h.first), ops::EwInput::tensor_view(x, h.second)});
})

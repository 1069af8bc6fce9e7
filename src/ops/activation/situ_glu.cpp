// aclnnSituGlu (aclnnop/aclnn_situ_glu.h): gate | up halves along dim (gate first when
// activate_left); y = beta tanh(gate / beta) sigmoid(gate) * (linear_beta > 0 ? linear_beta
// tanh(up / linear_beta) : up).
#include "aclnnop/aclnn_situ_glu.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(SituGlu, (const aclTensor *x, int64_t dim, double beta, double linear_beta, bool activate_left,
                              const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor), {
  core::check_dtype_in(x, "x", ops::kActFloatDoubleTypes);
  if (beta == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "beta must not be 0 (the gate divides by it)");
  const ops::GluHalves h = ops::glu_halves(x, "x", dim);
  ops::check_glu_out(out, "out", *x, h);
  const int xs = b.input(x), o = b.output(out);
  ops::EwSpec spec;
  spec.op = EwOp::kSituGlu;
  spec.compute_dtype = x->dtype;
  spec.set_scalar(0, beta);
  spec.set_scalar(1, linear_beta);
  ops::record_elementwise(b, spec, o,
                          {ops::EwInput::tensor_view(xs, activate_left ? h.first : h.second),
                           ops::EwInput::tensor_view(xs, activate_left ? h.second : h.first)});
})

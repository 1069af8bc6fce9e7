// aclnnGeluMul (aclnnop/aclnn_gelu_mul.h): gelu(first half) * second half along the last dim;
// approximateOptional "none" (erf, also when null) or "tanh".
#include <cstring>

#include "aclnnop/aclnn_gelu_mul.h"
#include "common/error.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(GeluMul, (const aclTensor *input, char *approximateOptional, const aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor), {
  core::check_dtype_in(input, "input", ops::kActFloatDoubleTypes);
  double approximate = 0;
  if (approximateOptional != nullptr) {
    if (std::strcmp(approximateOptional, "tanh") == 0) approximate = 1;
    else if (std::strcmp(approximateOptional, "none") != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "approximateOptional must be \"none\" or \"tanh\", got \"%s\"",
                  approximateOptional);
  }
  const ops::GluHalves h = ops::glu_halves(input, "input", -1);
  ops::check_glu_out(out, "out", *input, h);
  const int x = b.input(input), o = b.output(out);
  ops::EwSpec spec;
  spec.op = EwOp::kGeluGate;
  spec.compute_dtype = input->dtype;
  spec.set_scalar(0, approximate);
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor_view(x, h.first), ops::EwInput::tensor_view(x, h.second)});
})

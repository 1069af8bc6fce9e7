// aclnnLogSigmoid, aclnnLogSigmoidForward (aclnnop/aclnn_logsigmoid.h): log(1 / (1 + exp(-x))).
// LogSigmoidForward's `buffer` is documented as an unused intermediate: it is registered (so the
// output indices match the prototype) but never written, and may be null.
#include "aclnnop/aclnn_logsigmoid.h"
#include "ops/activation/activation_common.h"

using namespace opsnn;
using kernels::EwOp;

OPSNN_ACTIVATION_OP(LogSigmoid, (const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                 aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kLogSigmoid, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes});
})
OPSNN_ACTIVATION_OP(LogSigmoidForward, (const aclTensor *self, aclTensor *out, aclTensor *buffer,
                                        uint64_t *workspaceSize, aclOpExecutor **executor), {
  ops::unary_activation_phase1(b, {.op = EwOp::kLogSigmoid, .self = self, .out = out,
                                   .dtypes = ops::kActFloatDoubleTypes});
  b.output(buffer);
})

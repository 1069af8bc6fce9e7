// aclnnFmodTensor, aclnnInplaceFmodTensor (aclnnop/aclnn_fmod_tensor.h): C fmod, the result has
// the sign of the dividend.
#include "aclnnop/aclnn_fmod_tensor.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

namespace {
EwRule fmod_rule() {
  EwRule r{EwOp::kFmod};
  r.bool_ok = false;
  return r;
}
}  // namespace

OPSNN_BINARY_RULE_OP(FmodTensor, fmod_rule(),
                     (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceFmodTensor, fmod_rule(),
                     (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other = other, .inplace = true})

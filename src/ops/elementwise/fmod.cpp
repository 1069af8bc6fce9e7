// aclnnFmodTensor, aclnnInplaceFmodTensor (aclnnop/aclnn_fmod_tensor.h): C fmod, the result has
// the sign of the dividend.
// aclnnFmodScalar, aclnnInplaceFmodScalar (aclnnop/aclnn_fmod_scalar.h): C fmod, the result has
// the sign of the dividend.
#include "aclnnop/aclnn_fmod_tensor.h"
#include "aclnnop/aclnn_fmod_scalar.h"
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
OPSNN_BINARY_RULE_OP(FmodScalar, fmod_rule(),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceFmodScalar, fmod_rule(),
                     (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

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

OPSNN_BINARY_RULE_OUT_AND_INPLACE(FmodTensor, fmod_rule(), aclTensor, other, aclTensor)
OPSNN_BINARY_RULE_OUT_AND_INPLACE(FmodScalar, fmod_rule(), aclScalar, other_scalar, aclTensor)

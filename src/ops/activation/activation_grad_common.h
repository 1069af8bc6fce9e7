// Phase-1 pieces of the hand-written activation gradients (the element-wise ones are rows of
// activation_backward.ops over the n-ary phase 1; the gated ones rows of gated.ops).
#pragma once

#include <vector>

#include "core/op_builder.h"
#include "ops/elementwise/elementwise_step.h"  // (PreluBackward records element-wise passes)

namespace opsnn::ops {

inline const std::vector<aclDataType> kGradFloatTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

// Tensor not null, supported, dtype in the list (PreluBackward).
void check_grad_tensor(const aclTensor *t, const char *name, const std::vector<aclDataType> &dtypes);

}  // namespace opsnn::ops

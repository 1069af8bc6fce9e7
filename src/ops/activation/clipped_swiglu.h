// Phase 1 shared by aclnnClippedSwiglu and aclnnClippedSwigluV2.
#pragma once

#include "core/op_builder.h"

namespace opsnn::ops {
// clamp_mode 0: clamp A (max limit) and B (+-limit), y = A sigmoid(alpha A) (B + bias);
// clamp_mode 1: y = min(silu(A), limit) * clamp(B, -limit, limit).
void clipped_swiglu_phase1(core::OpBuilder &b, const aclTensor *x, const aclTensor *group_index, int64_t dim,
                           double alpha, double limit, double bias, bool interleaved, int64_t clamp_mode,
                           const aclTensor *out);
}  // namespace opsnn::ops

// The random slopes of aclnnRReluWithNoise in training mode: noise[i] = 1 where self[i] > 0 (or
// NaN), else a slope drawn uniformly from [lower, upper]. The draw of position i (row-major over
// self's dims) is a counter-based hash of (seed, offset + i), so the noise depends only on the
// seed, the offset and the position: never on the thread count or the launch.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/loop/loop_walk.h"

namespace opsnn::kernels {

struct RReluNoisePlan {
  int ndim = 0;
  int64_t dims[kMaxLoopDims] = {};
  int64_t self_strides[kMaxLoopDims] = {};   // elements
  int64_t noise_strides[kMaxLoopDims] = {};  // elements, noise viewed in self's shape
  aclDataType self_dtype = ACL_FLOAT, noise_dtype = ACL_FLOAT;
  double lower = 0, upper = 0;
  uint64_t seed = 0, offset = 0;
};

// The uniform draw in [0, 1) of counter `i` under `seed` (53 random bits).
double rrelu_uniform(uint64_t seed, uint64_t i);

// Writes the noise (self and noise: the element addresses of their views' first elements).
void rrelu_noise_run(const RReluNoisePlan &plan, const char *self, char *noise);

}  // namespace opsnn::kernels

// The gradient of the rotary position embedding (aclnnRotaryPositionEmbeddingGrad; the forward is
// the dim-wise engine's kRope line). Rows are the last dim; cos / sin broadcast to dy. With the
// forward y_j = cos_j x_j + sin_j r_j x_p(j) (p the partner of j, r its sign: half mode p = j +- D/2,
// interleave p = j ^ 1, r = -1 in the first half / at even j):
//   dx_m = cos_m dy_m + r_p sin_p dy_p (p = p(m)),  dcos_j = sum dy_j x_j,  dsin_j = sum dy_j r_j x_p(j),
// the sums over the dims cos / sin broadcast along. Each dx row and each dcos / dsin row is one
// task summed in double in a fixed order, so results do not depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

constexpr int kRopeGradMaxDims = 8;

struct RopeGradPlan {
  int ndim = 0;
  int64_t dims[kRopeGradMaxDims] = {};     // dy's shape (the last dim is the row)
  int64_t cs_dims[kRopeGradMaxDims] = {};  // cos / sin's shape aligned to dy's (1 where broadcast)
  aclDataType dtype = ACL_FLOAT;
  int64_t mode = 0;   // 0 half, 1 interleave
  bool grads = false;  // x given: dcos / dsin computed
  // Element strides over dy's dims: dy, x, dx; cos, sin (0 where broadcast); dcos, dsin (over cs_dims).
  int64_t dy[kRopeGradMaxDims] = {}, x[kRopeGradMaxDims] = {}, dx[kRopeGradMaxDims] = {};
  int64_t cos[kRopeGradMaxDims] = {}, sin[kRopeGradMaxDims] = {};
  int64_t dcos[kRopeGradMaxDims] = {}, dsin[kRopeGradMaxDims] = {};
};

struct RopeGradArgs {
  const char *dy = nullptr, *cos = nullptr, *sin = nullptr, *x = nullptr;
  char *dx = nullptr, *dcos = nullptr, *dsin = nullptr;
};

void rope_grad_run(const RopeGradPlan &plan, const RopeGradArgs &args);

}  // namespace opsnn::kernels

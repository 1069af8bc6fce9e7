// ApplyAdamWQuant (bitsandbytes' 8-bit blockwise AdamW; formulas: src/ops/optim/optim.ops): m / v are UINT8
// codes into the FLOAT code books qmapM / qmapV (256 ascending values) scaled per block of blockSize elements
// (row-major order) by absmaxM / absmaxV. Per block: dequantise, AdamW step in double (var rounded once),
// new absmax = max |m| (max v), codes = the nearest code-book value of m / absmax (v / absmax). Blocks are
// independent, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/optim/state_walk.h"

namespace opsnn::kernels {

struct AdamWQuantPlan {
  int ndim = 0;
  int64_t dims[kOptimMaxDims] = {};
  int64_t numel = 0, block = 0;
  aclDataType dtype = ACL_FLOAT;  // var, grad
  int64_t strides[4][kOptimMaxDims] = {};  // var, grad, m, v
  int64_t qmap_stride[2] = {}, absmax_stride[2] = {};
  double lr = 0, b1 = 0, b2 = 0, wd = 0, eps = 0, gnorm_scale = 1;
};

struct AdamWQuantArgs {
  char *var = nullptr, *m = nullptr, *v = nullptr, *absmax_m = nullptr, *absmax_v = nullptr;
  const char *grad = nullptr, *qmap_m = nullptr, *qmap_v = nullptr, *step = nullptr;  // step: one INT64
};

// The index of the value of `map` (256 ascending) nearest to x (the lower one on a tie).
int nearest_code(const double *map, double x);

// Returns 0, or 161002 after opsnn::set_last_error for a step <= 0 (nothing written).
int adamw_quant_run(const AdamWQuantPlan &plan, const AdamWQuantArgs &args);

}  // namespace opsnn::kernels

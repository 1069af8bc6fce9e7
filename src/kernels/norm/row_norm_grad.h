// The gradients of the row normalisations (layer norm, RMS norm, group norm): rows of `len`
// elements (the normalised dims, or one group's channels with their spatial dims), each with its
// mean and rstd. Over raw pointers and element strides; in double. With xhat = (x - mean) rstd
// (mean 0 for RMS) and g = dy gamma:
//   dx     = rstd (g - mean(g) - xhat mean(g xhat))        (RMS: rstd (g - xhat mean(g xhat)))
//   dgamma = sum over rows of dy xhat,  dbeta = sum over rows of dy   (per gamma element)
// Rows are cut into `tasks` fixed ranges (chosen in phase 1, not from the thread count); each
// accumulates its own dgamma / dbeta partials, summed in task order: results never depend on the
// thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::kernels {

// An operand's element strides along the row dims (outer) and the element dims (inner).
struct NormGradOperand {
  aclDataType dtype = ACL_FLOAT;
  int64_t outer[kMaxLoopDims] = {};
  int64_t inner[kMaxLoopDims] = {};
};

// A per-row operand (mean, rstd) of any shape with one element per row: row r is at the element
// offset of r unravelled over `shape` with `strides`.
struct NormGradRowVector {
  aclDataType dtype = ACL_FLOAT;
  int ndim = 0;
  int64_t shape[kMaxLoopDims] = {}, strides[kMaxLoopDims] = {};
};

struct NormGradPlan {
  bool rms = false;
  int nouter = 0, ninner = 0;
  int64_t outer_shape[kMaxLoopDims] = {}, inner_shape[kMaxLoopDims] = {};
  int64_t rows = 0, len = 0;
  NormGradOperand x, dy, dx, gamma;
  NormGradOperand acc;  // index into the dgamma / dbeta accumulators (gamma's dense index space)
  NormGradRowVector mean, rstd;
  bool has_gamma = false, has_mean = false, has_dx = false, has_dgamma = false, has_dbeta = false;
  int64_t acc_size = 0;  // gamma's element count
  // dgamma / dbeta outputs: gamma's dense index k unravelled over `gshape` with their strides.
  int ngamma = 0;
  int64_t gshape[kMaxLoopDims] = {}, dgamma_strides[kMaxLoopDims] = {}, dbeta_strides[kMaxLoopDims] = {};
  aclDataType dgamma_dtype = ACL_FLOAT, dbeta_dtype = ACL_FLOAT;
  int tasks = 1;
  uint64_t workspace_bytes() const {
    return (static_cast<uint64_t>(tasks) * (2 * static_cast<uint64_t>(acc_size) + 5 * static_cast<uint64_t>(len)) +
            2 * static_cast<uint64_t>(acc_size)) * 8 + 64;
  }
};

struct NormGradArgs {
  const char *x = nullptr, *dy = nullptr, *gamma = nullptr, *mean = nullptr, *rstd = nullptr;
  char *dx = nullptr, *dgamma = nullptr, *dbeta = nullptr;
  void *workspace = nullptr;
};

void norm_grad_run(const NormGradPlan &plan, const NormGradArgs &args);

}  // namespace opsnn::kernels

// The gradients of the row normalisations (layer norm, RMS norm, group norm and their fused forms):
// rows of `len` elements (the normalised dims, or one group's channels with their spatial dims),
// each with its mean and rstd. Over raw pointers and element strides; in double.
//
// The forward each row inverts (every stage optional):
//   z    = alpha x + x2                       (AddLayerNorm: x1 + x2; DeepNorm: alpha x + gx)
//   xhat = (z - mean) rstd                    (mean 0 for RMS)
//   n    = xhat gamma + beta
//   m    = n (1 + scale) + shift              (AdaLayerNorm: scale / shift per (batch, element))
//   y    = m sigmoid(s m)                     (GroupNormSwish)
// With e = dy * dy/dm (swish: sigma + s m sigma (1 - sigma)) and t = e (1 + scale) (the gradient at n),
// g = t gamma:
//   dz     = rstd (g - mean(g) - xhat mean(g xhat))        (RMS: rstd (g - xhat mean(g xhat)))
//   dx     = alpha dz + dsum,  dx2 = dz (+ dsum)           (dsum: the gradient of the z output)
//   dgamma = sum over rows of t xhat,  dbeta = sum over rows of t   (per gamma element)
//   dscale = sum over a batch's rows of e n,  dshift = sum of e     (per (batch, element))
//   quantised dx (RmsNormGradQuant): dx = sat_int8(round_half_even(dx / s + o)) (div) or (dx * s + o),
//   s / o one value each, read when the launch runs
// Rows are cut into `tasks` fixed ranges of whole batches (a batch: `batch_rows` consecutive rows
// sharing scale / shift; 1 row without them), chosen in phase 1, not from the thread count; each
// task accumulates its own dgamma / dbeta partials, summed in task order: results never depend on
// the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::kernels {

// The element-wise operands of a row (shaped like x, or broadcast over it: gamma / beta along the
// rows, scale / shift along a batch's rows; kAcc indexes the dgamma / dbeta accumulators).
enum NormGradIo : int { kNgX, kNgX2, kNgDy, kNgDsum, kNgGamma, kNgBeta, kNgScale, kNgDx, kNgDx2, kNgDscale,
                        kNgDshift, kNgAcc, kNgCount };

// An operand's element strides along the row dims (outer) and the element dims (inner).
struct NormGradOperand {
  bool present = false;
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
  double alpha = 1;           // z = alpha x + x2
  bool swish = false;         // y = m sigmoid(swish_scale m)
  double swish_scale = 1;
  int nouter = 0, ninner = 0;
  int64_t outer_shape[kMaxLoopDims] = {}, inner_shape[kMaxLoopDims] = {};
  int64_t rows = 0, len = 0;
  int64_t batches = 0, batch_rows = 1;  // rows = batches * batch_rows
  NormGradOperand io[kNgCount];
  NormGradRowVector mean, rstd;
  bool has_mean = false, has_dgamma = false, has_dbeta = false;
  int64_t acc_size = 0;  // gamma's element count
  // dgamma / dbeta outputs: gamma's dense index k unravelled over `gshape` with their strides.
  int ngamma = 0;
  int64_t gshape[kMaxLoopDims] = {}, dgamma_strides[kMaxLoopDims] = {}, dbeta_strides[kMaxLoopDims] = {};
  aclDataType dgamma_dtype = ACL_FLOAT, dbeta_dtype = ACL_FLOAT;
  bool quant = false, quant_div = false;  // dx quantised to INT8 (quant_scale_dtype: scalesX's dtype)
  aclDataType quant_scale_dtype = ACL_FLOAT;
  int tasks = 1;
  uint64_t task_doubles() const { return 2 * static_cast<uint64_t>(acc_size) + 5 * static_cast<uint64_t>(len); }
  uint64_t workspace_bytes() const { return static_cast<uint64_t>(tasks) * task_doubles() * 8 + 64; }
};

struct NormGradArgs {
  const char *in[kNgCount] = {};  // kNgX .. kNgScale
  char *out[kNgCount] = {};       // kNgDx .. kNgDshift
  const char *mean = nullptr, *rstd = nullptr;
  char *dgamma = nullptr, *dbeta = nullptr;
  const char *quant_scale = nullptr, *quant_offset = nullptr;  // quant: the first element of each (offset INT32)
  void *workspace = nullptr;
};

void norm_grad_run(const NormGradPlan &plan, const NormGradArgs &args);

}  // namespace opsnn::kernels

// The phase 1 of the table-driven row ops (src/ops/norm/norm.ops, src/ops/loss/row_losses.ops):
// ops that normalise or reduce each row of a tensor and write per-element and per-row results —
// layer / RMS / group norm (with their add, Gemma and SiLU variants) and the softmax cross-entropy
// loss. Rows are lines of the dim-wise engine (kernels/dimwise): trailing dims (layer / RMS norm,
// the class dim of a loss) or a channel group with its spatial dims (group norm), with the
// per-element parameters (gamma, beta) broadcast along the rows.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class RowKind : uint8_t {
  kLayerNorm,            // rows: the trailing normalizedShape dims (or gamma's dims with gamma_dims)
  kRmsNorm,              // rows: the trailing gamma.ndim dims; mean taken as 0
  kGroupNorm,            // rows: one group of channels of one sample, with the spatial dims
  kInstanceNorm,         // rows: one channel of one sample over the spatial dims (channels at dim 1, or last: NHWC)
  kSoftmaxCrossEntropy,  // rows: the last dim of [N, C] features and labels
  kRope,                 // rows: the last dim of x; cos / sin broadcast to x (rotary position embedding)
  kRenorm,               // rows: the sub-tensors along `dim` (every other dim is the line); torch.renorm
  kMaskedSoftmax,        // rows: the last dim of x [B, W, N, S1, S2] (or [B*W, N, S1, S2]); mask / bias broadcast
};

struct RowRule {
  RowKind kind;
  core::DtypeMask dtypes;     // accepted x dtypes
  bool gemma;                 // scale by (1 + gamma)
  bool silu;                  // y = silu(y) (or as the activate attribute says, when the op has one)
  bool shape_from_input;      // group norm: N, C, HxW from self's shape (GroupNormSilu)
  core::DtypeMask stat_dtypes;  // accepted mean / rstd dtypes (0: x's dtype or FLOAT)
  core::DtypeMask y_dtypes = 0;  // accepted y dtypes (0: x's dtype); a second y (y2) is always x's dtype
  bool variance = false;         // the rstd output receives the (biased) variance instead (InstanceNorm)
};

struct RowCall {
  const aclTensor *x = nullptr, *x2 = nullptr, *gamma = nullptr, *beta = nullptr;
  const char *x_name = "x", *x2_name = "x2", *gamma_name = "gamma", *beta_name = "beta";
  bool gamma_optional = false, beta_optional = false;
  bool add = false;  // x2 is added to x first (x2 is a second input): sum = alpha * x + x2 (+ bias)
  double alpha = 1;
  const aclTensor *bias = nullptr;  // a per-element bias added to the sum, shaped like gamma (AddLayerNorm)
  const char *bias_name = "biasOptional";
  bool bias_optional = false;
  bool has_normalized_shape = false;  // kLayerNorm: rows from normalizedShape, else gamma's dims
  double swish_scale = 1;            // the activation is y * sigmoid(swish_scale * y)
  const char *data_format = nullptr;  // kGroupNorm: NCHW / ND (null: NCHW); kInstanceNorm also NHWC
  const char *data_format_name = "dataFormatOptional";
  const aclIntArray *normalized_shape = nullptr;  // kLayerNorm
  // AdaLayerNorm: y = y * (1 + scale) + shift after gamma / beta, scale / shift [B..., H] or [B..., 1, H]
  // for x [B..., S, H] (one row per S position, the same modulation along S)
  const aclTensor *scale = nullptr, *shift = nullptr;
  const char *scale_name = "scale", *shift_name = "shift";
  bool has_scale = false, has_shift = false;
  double eps = 1e-5;
  int64_t n = 0, c = 0, hxw = 0, group = 1;  // kGroupNorm
  int activate = -1;  // -1: the rule's silu; else the activateSilu attribute
  const aclTensor *cos = nullptr, *sin = nullptr;  // kRope
  const char *cos_name = "cos", *sin_name = "sin";
  int64_t mode = 0;  // kRope: 0 half, 1 interleave
  const aclScalar *p = nullptr, *max_norm = nullptr;  // kRenorm: the norm's order (> 0) and its bound (>= 0)
  int64_t dim = 0;                                    // kRenorm
  // kMaskedSoftmax: softmax(scale * x + mask + bias); mask [W, S1, S2] / [W, 1, S1, S2] / [1, W, 1, S1, S2]
  // (optional), bias [N, S1, S2] / [1, N, S1, S2] / [1, 1, N, S1, S2]
  const aclTensor *mask = nullptr, *pos_bias = nullptr;
  const char *mask_name = "attenMaskOptional", *pos_bias_name = "relativePosBias";
  bool has_pos_bias = false, mask_optional = true;
  double scale_value = 1;
  // Outputs: y (per element), mean and rstd (per row), the sum x + x2 (per element).
  const aclTensor *y = nullptr, *mean = nullptr, *rstd = nullptr, *xsum = nullptr;
  const char *y_name = "yOut", *mean_name = "meanOut", *rstd_name = "rstdOut", *xsum_name = "xOut";
  const aclTensor *y2 = nullptr;  // y again in x's dtype (AddRmsNormCast: y FLOAT, y2 x's dtype)
  const char *y2_name = "y2Out";
  bool has_xsum = false;    // the prototype has the sum output
  bool write_xsum = true;   // ... and it is written (AddLayerNorm's additionalOutput); may be null when not
  // The prototype has these parameters / outputs (the loss is `mean`).
  bool has_gamma = false, has_beta = false, has_mean = false, has_rstd = false, has_bias = false, has_y2 = false;
  bool mean_optional = false, rstd_optional = false;
};

void row_phase1(core::OpBuilder &b, const RowRule &rule, const RowCall &c);

}  // namespace opsnn::ops

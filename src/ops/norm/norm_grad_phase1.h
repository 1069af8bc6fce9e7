// The phase 1 of the table-driven norm gradients (src/ops/norm/norm_grad.ops): LayerNormBackward,
// RmsNormGrad, GroupNormBackward and the fused forms' gradients (AddLayerNormGrad, DeepNormGrad,
// GroupNormSwishGrad, AdaLayerNormBackward) on kernels/norm/row_norm_grad. Rows are the forward op's
// rows: the trailing normalised dims (layer / RMS norm), or one group of channels with the spatial
// dims (group norm); mean / rstd are the forward outputs, any shape with one element per row.
// RmsNormGradQuant (our reading of its documentation): RmsNormGrad's dx, in double, then quantised to INT8
// as round_half_even(dx / scalesX + offsetX) (divMode) or round_half_even(dx * scalesX + offsetX),
// saturated, NaN -> 0; scalesX (FLOAT or x's dtype) and offsetXOptional (INT32, null: 0) hold one value each,
// read when the launch runs; quantMode "static" only; dxOut HIFLOAT8 is refused (161002); dgammaOut as
// RmsNormGrad's.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class NormGradKind : uint8_t { kLayer, kRms, kGroup };

struct NormGradRule {
  NormGradKind kind;
  core::DtypeMask dtypes;
};

// The tensor roles, listed by the entry point in prototype order (registration order).
enum class NgRole : uint8_t { kDy, kX, kX2, kMean, kRstd, kGamma, kBeta, kScale, kShift, kDsum, kScalesX, kOffsetX,
                              kDx, kDx2, kDscale, kDshift, kDgamma, kDbeta, kCount };

struct NormGradCall {
  const aclTensor *dy = nullptr, *x = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr,
                  *beta = nullptr;  // beta: read by the swish / scale gradients; LayerNormBackward's is not read
  const char *dy_name = "gradOut", *x_name = "input", *mean_name = "mean", *rstd_name = "rstd",
             *gamma_name = "gamma", *beta_name = "biasOptional";
  bool gamma_optional = false, beta_optional = false;
  const aclTensor *x2 = nullptr, *dsum = nullptr, *scale = nullptr, *shift = nullptr;  // fused forms
  const char *x2_name = "x2", *dsum_name = "dsumOptional", *scale_name = "scale", *shift_name = "shift";
  bool dsum_optional = true;
  const aclIntArray *normalized_shape = nullptr;     // kLayer (else gamma's dims)
  bool has_normalized_shape = false;
  int64_t n = 0, c = 0, hxw = 0, group = 1;          // kGroup
  bool shape_from_input = false;                     // kGroup: N, C, HxW from x (GroupNormSwishGrad)
  const char *data_format = nullptr;                 // kGroup: NCHW / ND / NCL / NCDHW (channels at dim 1)
  const char *data_format_name = "dataFormatOptional";
  double alpha = 1;                                  // DeepNorm: z = alpha x + gx
  bool swish = false;                                // GroupNormSwish: y = m sigmoid(swishScale m)
  double swish_scale = 1;
  const aclBoolArray *output_mask = nullptr;         // dx, dgamma, dbeta
  const aclTensor *scales_x = nullptr, *offset_x = nullptr;  // RmsNormGradQuant: dx quantised to INT8
  const char *scales_x_name = "scalesX", *offset_x_name = "offsetXOptional";
  bool offset_x_optional = true, has_quant = false, div_mode = false;
  const char *quant_mode = nullptr;                  // "static" only
  int dgamma_required = -1, dbeta_required = -1;     // GroupNormSwishGrad's flags (-1: the mask decides)
  const aclTensor *dx = nullptr, *dgamma = nullptr, *dbeta = nullptr, *dx2 = nullptr, *dscale = nullptr,
                  *dshift = nullptr;
  const char *dx_name = "gradInput", *dgamma_name = "gradGamma", *dbeta_name = "gradBeta", *dx2_name = "dgxOut",
             *dscale_name = "gradScaleOut", *dshift_name = "gradShiftOut";
  NgRole order[static_cast<int>(NgRole::kCount)] = {};  // the prototype's tensors, in order
  int norder = 0;
};

void norm_grad_phase1(core::OpBuilder &b, const NormGradRule &rule, const NormGradCall &c);

}  // namespace opsnn::ops

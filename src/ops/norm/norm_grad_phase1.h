// The phase 1 of the table-driven norm gradients (src/ops/norm/norm_grad.ops): LayerNormBackward,
// RmsNormGrad and GroupNormBackward on kernels/norm/row_norm_grad. Rows are the forward op's rows:
// the trailing normalised dims (layer / RMS norm), or one group of channels with the spatial dims
// (group norm); mean / rstd are the forward outputs, any shape with one element per row.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class NormGradKind : uint8_t { kLayer, kRms, kGroup };

struct NormGradRule {
  NormGradKind kind;
  core::DtypeMask dtypes;
};

struct NormGradCall {
  const aclTensor *dy = nullptr, *x = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr,
                  *beta = nullptr;  // beta: LayerNormBackward's biasOptional, registered, not read
  const char *dy_name = "gradOut", *x_name = "input", *mean_name = "mean", *rstd_name = "rstd",
             *gamma_name = "gamma", *beta_name = "biasOptional";
  bool gamma_optional = false;
  const aclIntArray *normalized_shape = nullptr;     // kLayer
  int64_t n = 0, c = 0, hxw = 0, group = 1;          // kGroup
  const aclBoolArray *output_mask = nullptr;         // dx, dgamma, dbeta
  const aclTensor *dx = nullptr, *dgamma = nullptr, *dbeta = nullptr;
  const char *dx_name = "gradInput", *dgamma_name = "gradGamma", *dbeta_name = "gradBeta";
  bool has_dbeta = false;  // the prototype has a beta gradient
};

void norm_grad_phase1(core::OpBuilder &b, const NormGradRule &rule, const NormGradCall &c);

}  // namespace opsnn::ops

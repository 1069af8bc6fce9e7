// The Adam-family update (aclnnApplyAdamW / aclnnApplyAdam / aclnnApplyAdamWV2 /
// aclnnApplyFusedEmaAdam) over strided views:
// per element, in double, m / v / var read, updated and each rounded once to its dtype. The
// hyper-parameters are one-element device tensors read at launch (V2: plan values, and the step
// tensor read at launch; a step <= 0 fails the launch with 161002). Formulas: src/ops/optim/optim.ops. Elements are
// independent, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/optim/state_walk.h"

namespace opsnn::kernels {

constexpr int kAdamMaxDims = kOptimMaxDims;

struct AdamPlan {
  bool adamw = true, amsgrad = false, maximize = false, nesterov = false;
  int ndim = 0;
  int64_t dims[kAdamMaxDims] = {};
  int64_t numel = 0;
  aclDataType dtype = ACL_FLOAT;  // var, m, v, grad, maxGradNorm
  // Element strides of var, m, v, grad, maxGradNorm, s (row-major dims).
  int64_t strides[6][kAdamMaxDims] = {};
  // beta1Power, beta2Power, lr, weightDecay (AdamW), beta1, beta2, eps.
  aclDataType scalar_dtypes[7] = {};
  // ApplyAdamWV2: lr, weightDecay, beta1, beta2, eps; bias corrections from the step (its dtype);
  // with amsgrad the maximum is written back to maxGradNorm.
  bool v2 = false;
  double hyper[5] = {};
  aclDataType step_dtype = ACL_INT64;
  // ApplyFusedEmaAdam (v2's hyper-parameters and step): weight decay folded into the gradient (mode 0)
  // or into the update (mode 1), bias corrections 1 - beta^t only with bias_correction, and the EMA
  // s = ema_decay s + (1 - ema_decay) var of the updated var.
  bool ema = false, bias_correction = false;
  int mode = 0;
  double ema_decay = 0;
};

struct AdamArgs {
  char *var = nullptr, *m = nullptr, *v = nullptr;
  const char *grad = nullptr;
  char *max_v = nullptr;  // read; written by V2 with amsgrad
  const char *scalars[7] = {};  // null: not used (ApplyAdam's weightDecay)
  const char *step = nullptr;    // V2, FusedEmaAdam
  char *s = nullptr;             // FusedEmaAdam's EMA of var
  double grad_divisor = 1.0;     // FusedAdamw's gradScale (the gradient is divided by it); else 1
};

// Returns 0, or 161002 after opsnn::set_last_error for a V2 step <= 0 or a FusedEmaAdam step <= 0
// with bias correction (nothing written).
int adam_run(const AdamPlan &plan, const AdamArgs &args);

}  // namespace opsnn::kernels

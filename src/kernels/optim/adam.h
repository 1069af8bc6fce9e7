// The Adam-family update (aclnnApplyAdamW / aclnnApplyAdam) over strided views: per element, in
// double, m / v / var read, updated and each rounded once to its dtype. The hyper-parameters are
// one-element device tensors read at launch. Formulas: src/ops/optim/optim.ops. Elements are
// independent, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

constexpr int kAdamMaxDims = 8;

struct AdamPlan {
  bool adamw = true, amsgrad = false, maximize = false, nesterov = false;
  int ndim = 0;
  int64_t dims[kAdamMaxDims] = {};
  int64_t numel = 0;
  aclDataType dtype = ACL_FLOAT;  // var, m, v, grad, maxGradNorm
  // Element strides of var, m, v, grad, maxGradNorm (row-major dims).
  int64_t strides[5][kAdamMaxDims] = {};
  // beta1Power, beta2Power, lr, weightDecay (AdamW), beta1, beta2, eps.
  aclDataType scalar_dtypes[7] = {};
};

struct AdamArgs {
  char *var = nullptr, *m = nullptr, *v = nullptr;
  const char *grad = nullptr, *max_v = nullptr;
  const char *scalars[7] = {};  // null: not used (ApplyAdam's weightDecay)
};

void adam_run(const AdamPlan &plan, const AdamArgs &args);

}  // namespace opsnn::kernels

// The SGD update of one tensor of aclnnFusedSgd (torch.optim.SGD's step, formulas:
// src/ops/optim/optim.ops) over strided views: per element, in double, param / grad / momentum buffer
// read, updated and each written one rounded once to its dtype. Elements are independent, so results
// never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/optim/state_walk.h"

namespace opsnn::kernels {

struct SgdPlan {
  int ndim = 0;
  int64_t dims[kOptimMaxDims] = {};
  int64_t numel = 0;
  aclDataType dtype = ACL_FLOAT;  // param, grad, momentum buffer
  int64_t strides[3][kOptimMaxDims] = {};  // element strides of param, grad, momentum buffer
  double lr = 0, weight_decay = 0, momentum = 0, dampening = 0;
  bool nesterov = false, maximize = false, first_step = false;
  bool use_buffer = false;  // momentum != 0: the buffer is read (unless first_step) and written
};

struct SgdArgs {
  char *param = nullptr, *grad = nullptr, *buf = nullptr;
  // The gradient is divided by grad_divisor; with write_grad the divided gradient is stored back.
  double grad_divisor = 1.0;
  bool write_grad = false;
};

void sgd_run(const SgdPlan &plan, const SgdArgs &args);

}  // namespace opsnn::kernels

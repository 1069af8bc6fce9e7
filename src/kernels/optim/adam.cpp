#include "kernels/optim/adam.h"

#include <algorithm>
#include <cmath>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "kernels/elementwise/convert.h"
#include "kernels/optim/state_walk.h"

namespace opsnn::kernels {
namespace {

template <class Body>
void for_each_element(const AdamPlan &P, const Body &body) {
  for_each_state_element<6>(P.ndim, P.dims, P.numel, P.strides, body);
}

// ApplyFusedEmaAdam (formulas: src/ops/optim/optim.ops).
int ema_adam_run(const AdamPlan &P, const AdamArgs &a) {
  const double t = load_one(P.step_dtype, a.step, 0);
  if (P.bias_correction && !(t > 0))
    return fail(ACLNN_ERR_PARAM_INVALID, "step must be > 0 with biasCorrection, got %g", t);
  const double lr = P.hyper[0], wd = P.hyper[1], b1 = P.hyper[2], b2 = P.hyper[3], eps = P.hyper[4], ema = P.ema_decay;
  const double bc1 = P.bias_correction ? 1.0 - std::pow(b1, t) : 1.0;
  const double bc2 = P.bias_correction ? 1.0 - std::pow(b2, t) : 1.0;
  const aclDataType dt = P.dtype;
  for_each_element(P, [&](const int64_t *off) {
    double var = load_one(dt, a.var, off[0]), m = load_one(dt, a.m, off[1]), v = load_one(dt, a.v, off[2]);
    double g = load_one(dt, a.grad, off[3]);
    if (P.mode == 0) g += wd * var;
    m = b1 * m + (1.0 - b1) * g;
    v = b2 * v + (1.0 - b2) * g * g;
    double update = (m / bc1) / (std::sqrt(v / bc2) + eps);
    if (P.mode == 1) update += wd * var;
    var -= lr * update;
    const double s = ema * load_one(dt, a.s, off[5]) + (1.0 - ema) * var;
    store_one(m, dt, a.m, off[1]);
    store_one(v, dt, a.v, off[2]);
    store_one(var, dt, a.var, off[0]);
    store_one(s, dt, a.s, off[5]);
  });
  return 0;
}

}  // namespace

int adam_run(const AdamPlan &P, const AdamArgs &a) {
  if (P.ema) return ema_adam_run(P, a);
  double s[7] = {};
  for (int k = 0; k < 7; ++k) s[k] = a.scalars[k] != nullptr ? load_one(P.scalar_dtypes[k], a.scalars[k], 0) : 0.0;
  if (P.v2) {  // V2: beta^(t-1) from the step, the rest from the plan
    const double t = load_one(P.step_dtype, a.step, 0);
    if (!(t > 0)) return fail(ACLNN_ERR_PARAM_INVALID, "step must be > 0, got %g", t);
    s[2] = P.hyper[0];
    s[3] = P.hyper[1];
    s[4] = P.hyper[2];
    s[5] = P.hyper[3];
    s[6] = P.hyper[4];
    s[0] = std::pow(s[4], t - 1);
    s[1] = std::pow(s[5], t - 1);
  }
  const double b1p = s[0], b2p = s[1], lr = s[2], wd = s[3], b1 = s[4], b2 = s[5], eps = s[6];
  // AdamW: the powers are beta^(t-1); Adam: beta^t.
  const double bc1 = P.adamw ? 1.0 - b1p * b1 : 1.0 - b1p, bc2 = P.adamw ? 1.0 - b2p * b2 : 1.0 - b2p;
  const double lr_t = P.adamw ? 0.0 : lr * std::sqrt(bc2) / bc1;
  const bool has_max = a.max_v != nullptr;
  with_state_io(P.dtype, [&](auto io) {
    for_each_element(P, [&](const int64_t *off) {
      double var = io.load(a.var, off[0]), m = io.load(a.m, off[1]), v = io.load(a.v, off[2]);
      double g = io.load(a.grad, off[3]) / a.grad_divisor;
      if (P.adamw) {
        if (P.maximize) g = -g;
        m = b1 * m + (1.0 - b1) * g;
        v = b2 * v + (1.0 - b2) * g * g;
        double vm = v;
        if (P.amsgrad && has_max) {
          const double mx = io.load(a.max_v, off[4]);
          vm = std::isnan(mx) || mx > v ? mx : v;
          if (P.v2) io.store(vm, a.max_v, off[4]);  // V2 keeps the running maximum
        }
        var = var - lr * wd * var - lr * (m / bc1) / (std::sqrt(vm / bc2) + eps);
      } else {
        m = b1 * m + (1.0 - b1) * g;
        v = b2 * v + (1.0 - b2) * g * g;
        const double num = P.nesterov ? b1 * m + (1.0 - b1) * g : m;
        var = var - lr_t * num / (std::sqrt(v) + eps);
      }
      io.store(m, a.m, off[1]);
      io.store(v, a.v, off[2]);
      io.store(var, a.var, off[0]);
    });
  });
  return 0;
}

}  // namespace opsnn::kernels

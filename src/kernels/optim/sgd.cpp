#include "kernels/optim/sgd.h"

#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {

void sgd_run(const SgdPlan &P, const SgdArgs &a) {
  const aclDataType dt = P.dtype;
  for_each_state_element<3>(P.ndim, P.dims, P.numel, P.strides, [&](const int64_t *off) {
    const double p = load_one(dt, a.param, off[0]);
    double g = load_one(dt, a.grad, off[1]) / a.grad_divisor;
    if (a.write_grad) store_one(g, dt, a.grad, off[1]);  // torch unscales the gradient in place
    if (P.maximize) g = -g;
    if (P.weight_decay != 0) g += P.weight_decay * p;
    if (P.use_buffer) {
      const double buf = P.first_step ? g : P.momentum * load_one(dt, a.buf, off[2]) + (1.0 - P.dampening) * g;
      store_one(buf, dt, a.buf, off[2]);
      g = P.nesterov ? g + P.momentum * buf : buf;
    }
    store_one(p - P.lr * g, dt, a.param, off[0]);
  });
}

}  // namespace opsnn::kernels

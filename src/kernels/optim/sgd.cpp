#include "kernels/optim/sgd.h"

#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {

void sgd_run(const SgdPlan &P, const SgdArgs &a) {
  with_state_io(P.dtype, [&](auto io) {
    for_each_state_element<3>(P.ndim, P.dims, P.numel, P.strides, [&](const int64_t *off) {
      const double p = io.load(a.param, off[0]);
      double g = io.load(a.grad, off[1]) / a.grad_divisor;
      if (a.write_grad) io.store(g, a.grad, off[1]);  // torch unscales the gradient in place
      if (P.maximize) g = -g;
      if (P.weight_decay != 0) g += P.weight_decay * p;
      if (P.use_buffer) {
        const double buf = P.first_step ? g : P.momentum * io.load(a.buf, off[2]) + (1.0 - P.dampening) * g;
        io.store(buf, a.buf, off[2]);
        g = P.nesterov ? g + P.momentum * buf : buf;
      }
      io.store(p - P.lr * g, a.param, off[0]);
    });
  });
}

}  // namespace opsnn::kernels

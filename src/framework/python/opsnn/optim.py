"""opsnn.optim: SGD (momentum, dampening, nesterov, weight decay) and AdamW with PyTorch's update
rules, each step one call of the list ops aclnnFusedSgd / aclnnFusedAdamw over every parameter with a
gradient (torch's fused=True step); Adam on aclnnApplyAdam / aclnnApplyAdamW (one call per parameter)."""
import numpy as np

from . import _C
from . import functional as F
from ._tensor import no_grad, zeros_like


class Optimizer:
    def __init__(self, params, defaults):
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        self.defaults = defaults
        self.state = {}

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None


class SGD(Optimizer):
    """p -= lr * d, d = grad + weight_decay * p, with momentum: buf = momentum * buf +
    (1 - dampening) * d (buf = d at the first step), d = buf (or d + momentum * buf, nesterov)."""

    def __init__(self, params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("SGD: lr, momentum and weight_decay must be >= 0")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov))
        self.lr, self.momentum, self.dampening = lr, momentum, dampening
        self.weight_decay, self.nesterov = weight_decay, nesterov

    @no_grad()
    def step(self):
        ps = [p for p in self.params if p.grad is not None]
        if not self.momentum:
            self._fused(ps, None, False)
            return
        # The momentum buffer starts as the first step's gradient (isFirstStep): parameters seen for
        # the first time take their own call.
        new = [p for p in ps if id(p) not in self.state]
        old = [p for p in ps if id(p) in self.state]
        for p in new:
            self.state[id(p)] = zeros_like(p.detach())
        for group, first in ((old, False), (new, True)):
            self._fused(group, [self.state[id(p)] for p in group], first)

    def _fused(self, ps, bufs, first):
        if ps:
            F.call("FusedSgd", ps, [p.grad for p in ps], bufs, None, self.weight_decay, self.momentum, self.lr,
                   self.dampening, self.nesterov, False, first)


class _AdamBase(Optimizer):
    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad, maximize, defaults_extra=None):
        if lr < 0 or eps < 0 or weight_decay < 0:
            raise ValueError("Adam: lr, eps and weight_decay must be >= 0")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Adam: invalid betas {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))
        self.lr, self.betas, self.eps, self.weight_decay = lr, tuple(betas), eps, weight_decay
        self.amsgrad, self.maximize = amsgrad, maximize
        self.step_count = 0

    def _state(self, p):
        st = self.state.get(id(p))
        if st is None:
            st = {"exp_avg": zeros_like(p.detach()), "exp_avg_sq": zeros_like(p.detach())}
            if self.amsgrad:
                st["max_exp_avg_sq"] = zeros_like(p.detach())
            self.state[id(p)] = st
        return st

    @staticmethod
    def _hyper(values):
        """The step's hyper-parameters as one DOUBLE device tensor (a host-made tensor the ops accept:
        in FLOAT 1 - beta2 would be off by 1e-5), passed as one-element views."""
        t = _C.from_numpy(np.asarray(values, dtype=np.float64))
        return [t.slice(0, i, i + 1) for i in range(len(values))]

    def _adamw_hyper(self, lr, wd, t):
        b1, b2 = self.betas
        return self._hyper([b1 ** (t - 1), b2 ** (t - 1), lr, wd, b1, b2, self.eps])

    def _apply_adamw(self, p, g, st, h):
        F.call("ApplyAdamW", p, st["exp_avg"], st["exp_avg_sq"], *h, g, st.get("max_exp_avg_sq"), self.amsgrad,
               self.maximize)
        if self.amsgrad:  # the op reads the running maximum; it is kept here (PyTorch's max_exp_avg_sq)
            F.call("Maximum", st["max_exp_avg_sq"], st["exp_avg_sq"], st["max_exp_avg_sq"])


class AdamW(_AdamBase):
    """PyTorch's AdamW (decoupled weight decay, amsgrad, maximize): one aclnnFusedAdamw per step."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    @no_grad()
    def step(self):
        self.step_count += 1
        ps = [p for p in self.params if p.grad is not None]
        if not ps:
            return
        states = [self._state(p) for p in ps]
        # The step t of every entry (stateSteps: torch's per-parameter step, counted before the call).
        t = _C.from_numpy(np.full(1, self.step_count, np.float32))
        F.call("FusedAdamw", ps, [p.grad for p in ps], [st["exp_avg"] for st in states],
               [st["exp_avg_sq"] for st in states], [st["max_exp_avg_sq"] for st in states] if self.amsgrad else None,
               [t] * len(ps), None, None, self.lr, self.betas[0], self.betas[1], self.weight_decay, self.eps,
               self.amsgrad, self.maximize)


class Adam(_AdamBase):
    """PyTorch's Adam (L2 weight decay added to the gradient, amsgrad, maximize): aclnnApplyAdam
    (TensorFlow's form: beta^t powers, epsilon scaled by sqrt(1 - beta2^t) so the update equals
    PyTorch's), or aclnnApplyAdamW with zero decay for amsgrad / maximize."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    @no_grad()
    def step(self):
        self.step_count += 1
        t = self.step_count
        b1, b2 = self.betas
        h = None
        for p in self.params:
            if p.grad is None:
                continue
            g = p.grad
            if self.weight_decay:
                g = F.add(g, p.detach(), alpha=(-1.0 if self.maximize else 1.0) * self.weight_decay)
            st = self._state(p)
            if self.amsgrad or self.maximize:
                h = h or self._adamw_hyper(self.lr, 0.0, t)
                self._apply_adamw(p, g, st, h)
                continue
            if h is None:
                h = self._hyper([b1 ** t, b2 ** t, self.lr, b1, b2, self.eps * (1.0 - b2 ** t) ** 0.5])
            F.call("ApplyAdam", p, st["exp_avg"], st["exp_avg_sq"], *h, g, False, False)

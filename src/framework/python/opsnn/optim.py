"""opsnn.optim: SGD (momentum, dampening, nesterov, weight decay) with PyTorch's update rule,
made of in-place aclnn calls (InplaceAdd, InplaceMuls, ...)."""
from . import functional as F
from ._tensor import no_grad


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
        for p in self.params:
            if p.grad is None:
                continue
            d = p.grad
            if self.weight_decay:
                d = F.add(d, p, alpha=self.weight_decay)
            if self.momentum:
                buf = self.state.get(id(p))
                if buf is None:
                    buf = F.clone(d)
                    self.state[id(p)] = buf
                else:
                    F.mul_(buf, self.momentum)
                    F.add_(buf, d, alpha=1.0 - self.dampening)
                d = F.add(d, buf, alpha=self.momentum) if self.nesterov else buf
            requires = p.requires_grad
            p.requires_grad = False  # an in-place update of a leaf outside autograd
            try:
                F.add_(p, d, alpha=-self.lr)
            finally:
                p.requires_grad = requires

"""opsnn.nn: modules and parameters (Module, Parameter, Linear, the activations, Sequential,
MSELoss, CrossEntropyLoss). State dicts hold numpy arrays."""
import collections
import math

import numpy as np

from . import functional as F
from ._tensor import Tensor, from_numpy, no_grad, float32


class Parameter(Tensor):
    """A tensor that is a module's parameter (requires_grad by default)."""
    __slots__ = ()

    def __init__(self, data, requires_grad=True):
        handle = data._t if isinstance(data, Tensor) else from_numpy(np.asarray(data, dtype=np.float32))._t
        super().__init__(handle, requires_grad)


class Module:
    def __init__(self):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("call Module.__init__() before assigning attributes")
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter) or (value is None and name in self._parameters):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def register_parameter(self, name, p):
        self.__setattr__(name, p)

    def forward(self, *args, **kwargs):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        for n, p in self._parameters.items():
            if p is not None:
                yield prefix + n, p
        for mn, m in self._modules.items():
            yield from m.named_parameters(prefix + mn + ".")

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def children(self):
        return list(self._modules.values())

    def modules(self):
        out = [self]
        for m in self._modules.values():
            out += m.modules()
        return out

    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            p.grad = None

    def state_dict(self):
        """name -> numpy array copy of every parameter."""
        return collections.OrderedDict((n, p.detach().numpy()) for n, p in self.named_parameters())

    def load_state_dict(self, state, strict=True):
        """Copy arrays (numpy arrays, or anything np.asarray takes: opsnn / torch tensors via
        .numpy()) into the parameters; shapes must match."""
        own = dict(self.named_parameters())
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        with no_grad():
            for k, p in own.items():
                if k not in state:
                    continue
                v = state[k]
                a = v.detach().numpy() if hasattr(v, "detach") and hasattr(v, "numpy") else np.asarray(v)
                if tuple(a.shape) != tuple(p.shape):
                    raise ValueError(f"load_state_dict: {k} has shape {tuple(a.shape)}, the parameter {tuple(p.shape)}")
                p._t.copy_(from_numpy(np.array(a, order="C"), p.dtype)._t)
        return self

    def to(self, dtype):
        with no_grad():
            for m in self.modules():
                for n, p in list(m._parameters.items()):
                    if p is not None:
                        m.__setattr__(n, Parameter(F.to(p.detach(), dtype), p.requires_grad))
        return self

    def __repr__(self):
        lines = [f"({n}): {m!r}".replace("\n", "\n  ") for n, m in self._modules.items()]
        extra = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({extra})"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def extra_repr(self):
        return ""


def _uniform(shape, bound):
    from . import _generator
    return Parameter(_generator().uniform(-bound, bound, size=shape).astype(np.float32))


class Linear(Module):
    """y = x @ weight.T + bias; weight [out, in], both U(-1/sqrt(in), 1/sqrt(in)) like PyTorch."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        self.weight = _uniform((out_features, in_features), bound)
        self.bias = _uniform((out_features,), bound) if bias else None

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def _activation(name, fn, **defaults):
    class Act(Module):
        def __init__(self, **kw):
            super().__init__()
            object.__setattr__(self, "kw", dict(defaults, **kw))

        def forward(self, x):
            return fn(x, **self.kw)
    Act.__name__ = Act.__qualname__ = name
    return Act


ReLU = _activation("ReLU", lambda x: F.relu(x))
Sigmoid = _activation("Sigmoid", lambda x: F.sigmoid(x))
Tanh = _activation("Tanh", lambda x: F.tanh(x))
GELU = _activation("GELU", lambda x: F.gelu(x))
SiLU = _activation("SiLU", lambda x: F.silu(x))
LeakyReLU = _activation("LeakyReLU", lambda x, negative_slope=0.01: F.leaky_relu(x, negative_slope=negative_slope))
Softmax = _activation("Softmax", lambda x, dim=-1: F.softmax(x, dim))
LogSoftmax = _activation("LogSoftmax", lambda x, dim=-1: F.log_softmax(x, dim))


class Sequential(Module):
    def __init__(self, *mods):
        super().__init__()
        for i, m in enumerate(mods):
            self.__setattr__(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)


class MSELoss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        object.__setattr__(self, "reduction", reduction)

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(Module):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        object.__setattr__(self, "opts", dict(weight=weight, ignore_index=ignore_index, reduction=reduction,
                                              label_smoothing=label_smoothing))

    def forward(self, input, target):
        return F.cross_entropy(input, target, **self.opts)


functional = F
__all__ = ["Parameter", "Module", "Linear", "ReLU", "Sigmoid", "Tanh", "GELU", "SiLU", "LeakyReLU", "Softmax",
           "LogSoftmax", "Sequential", "MSELoss", "CrossEntropyLoss", "float32"]

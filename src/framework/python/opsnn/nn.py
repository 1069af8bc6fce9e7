"""opsnn.nn: modules and parameters (Module, Parameter, buffers, Linear, Conv1d / Conv2d /
ConvTranspose2d, BatchNorm1d / 2d, LayerNorm, GroupNorm, RMSNorm, Embedding, Dropout, the pools,
Flatten, the activations, Sequential / ModuleList, the losses, LSTM / GRU). State dicts hold numpy arrays;
load_state_dict also takes a PyTorch state_dict (its tensors go through numpy)."""
import collections
import math

import numpy as np

from . import functional as F
from ._tensor import Tensor, from_numpy, no_grad, float32, bool_, is_grad_enabled


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
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("call Module.__init__() before assigning attributes")
        if name in self._buffers and (value is None or isinstance(value, Tensor)) and not isinstance(value, Parameter):
            self._buffers[name] = value
            object.__setattr__(self, name, value)
            return
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        self._buffers.pop(name, None)
        if isinstance(value, Parameter) or (value is None and name in self._parameters):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def register_parameter(self, name, p):
        self.__setattr__(name, p)

    def register_buffer(self, name, tensor):
        """A tensor of the module's state that is not a parameter (BatchNorm's running stats):
        in state_dict, moved by load_state_dict, never given to an optimiser."""
        self.__setattr__(name, None)
        self._buffers[name] = tensor
        object.__setattr__(self, name, tensor)

    def named_buffers(self, prefix=""):
        for n, b in self._buffers.items():
            if b is not None:
                yield prefix + n, b
        for mn, m in self._modules.items():
            yield from m.named_buffers(prefix + mn + ".")

    def buffers(self):
        return [b for _, b in self.named_buffers()]

    def _named_state(self, prefix=""):
        """PyTorch's state_dict order: a module's parameters, its buffers, then its children."""
        for n, p in self._parameters.items():
            if p is not None:
                yield prefix + n, p
        for n, b in self._buffers.items():
            if b is not None:
                yield prefix + n, b
        for mn, m in self._modules.items():
            yield from m._named_state(prefix + mn + ".")

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
        """name -> numpy array copy of every parameter and buffer (PyTorch's names and order)."""
        return collections.OrderedDict((n, p.detach().numpy()) for n, p in self._named_state())

    def load_state_dict(self, state, strict=True):
        """Copy arrays (numpy arrays, or anything np.asarray takes: opsnn / torch tensors via
        .detach().cpu().numpy()) into the parameters and buffers; shapes must match, values are
        cast to the parameter's dtype."""
        own = dict(self._named_state())
        missing = [k for k in own if k not in state]
        unexpected = [k for k in state if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        with no_grad():
            for k, p in own.items():
                if k not in state:
                    continue
                a = _to_numpy(state[k])
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


def _to_numpy(v):
    if isinstance(v, Tensor):
        return v.detach().numpy()
    if hasattr(v, "detach") and hasattr(v, "cpu") and hasattr(v, "numpy"):  # a torch tensor
        return v.detach().cpu().numpy()
    return np.asarray(v)


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


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class _ConvNd(Module):
    """Weight [C_out, C_in / groups, *k] (transposed: [C_in, C_out / groups, *k]) and bias, both
    U(±1/sqrt(fan_in)) like PyTorch's default (kaiming_uniform with a = sqrt(5))."""
    _n, _transposed = 2, False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 output_padding=0):
        super().__init__()
        n = self._n
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        if isinstance(padding, str):
            raise NotImplementedError("string padding ('same' / 'valid') is not supported; give the numbers")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)
        self.padding, self.dilation = _ntuple(padding, n), _ntuple(dilation, n)
        self.output_padding = _ntuple(output_padding, n)
        shape = ((in_channels, out_channels // groups) if self._transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        fan_in = shape[1] * int(np.prod(self.kernel_size))
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        self.weight = _uniform(shape, bound)
        self.bias = _uniform((out_channels,), bound) if bias else None

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}" + (f", groups={self.groups}" if self.groups != 1 else "")
                + ("" if self.bias is not None else ", bias=False"))


class Conv1d(_ConvNd):
    """aclnnConvolution over [N, C, L] (gradient: aclnnConvolutionBackward)."""
    _n = 1

    def forward(self, x):
        return F.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """aclnnConvolution over [N, C, H, W] (gradient: aclnnConvolutionBackward)."""

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """aclnnConvolution over [N, C, D, H, W] (gradient: aclnnConvolutionBackward)."""
    _n = 3

    def forward(self, x):
        return F.conv3d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """aclnnConvolution with transposed=true (gradient: aclnnConvolutionBackward)."""
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, output_padding)

    def forward(self, x):
        return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)


class ConvTranspose1d(ConvTranspose2d):
    """aclnnConvolution with transposed=true over [N, C, L]."""
    _n = 1

    def forward(self, x):
        return F.conv_transpose1d(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)


class ConvTranspose3d(ConvTranspose2d):
    """aclnnConvolution with transposed=true over [N, C, D, H, W]."""
    _n = 3

    def forward(self, x):
        return F.conv_transpose3d(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)


class MultiheadAttention(Module):
    """torch.nn.MultiheadAttention's module (its parameter names, so a torch state_dict loads):
    in_proj_weight [3E, E] (xavier-uniform) / in_proj_bias (zeros), out_proj (a Linear, bias zeros).
    forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True) -> (output, weights or None); masks are BOOL (True: not attended) or
    float (added to the scores). Without a gradient to record, weights to return or dropout to
    apply, and with BOOL or no masks, the attention is one aclnnFusedInferAttentionScoreV2 call
    (layout BSH); otherwise it is composed from matmul / softmax / where (differentiable)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, batch_first=False):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim {embed_dim} must be divisible by num_heads {num_heads}")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        from . import _generator
        bound = math.sqrt(6.0 / (embed_dim + 3 * embed_dim))  # xavier_uniform_ of [3E, E]
        self.in_proj_weight = Parameter(_generator().uniform(-bound, bound, size=(3 * embed_dim, embed_dim))
                                        .astype(np.float32))
        self.in_proj_bias = Parameter(np.zeros(3 * embed_dim, np.float32)) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias)
        if bias:
            self.out_proj.bias = Parameter(np.zeros(embed_dim, np.float32))

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True):
        if not self.batch_first:  # [L, B, E] -> [B, L, E]
            query, key, value = (F.transpose(t, 0, 1) for t in (query, key, value))
        E, h = self.embed_dim, self.num_heads
        w, b = self.in_proj_weight, self.in_proj_bias
        q = F.linear(query, w[0:E], b[0:E] if b is not None else None)
        k = F.linear(key, w[E:2 * E], b[E:2 * E] if b is not None else None)
        v = F.linear(value, w[2 * E:], b[2 * E:] if b is not None else None)
        B, S, L = q.shape[0], q.shape[1], k.shape[1]
        mask = self._mask(key_padding_mask, attn_mask, B, S, L)
        fused = (not need_weights and (self.dropout == 0 or not self.training) and
                 (mask is None or (mask.dtype is bool_ and mask.shape[1] == 1)) and
                 not (is_grad_enabled() and any(t.requires_grad for t in (q, k, v))))
        weights = None
        if fused:
            out = F.fused_attention(q, k, v, h, mask)
        else:
            out, weights = self._composed(q, k, v, mask, B, S, L, need_weights, average_attn_weights)
        out = self.out_proj(out)
        if not self.batch_first:
            out = F.transpose(out, 0, 1)
        return out, weights

    def _mask(self, key_padding_mask, attn_mask, B, S, L):
        """One mask [B, 1 or h, S, L] (BOOL when both are BOOL, else float), or None."""
        h = self.num_heads
        parts = []
        if attn_mask is not None:
            m = attn_mask
            m = F.reshape(m, 1, 1, S, L) if m.dim() == 2 else F.reshape(m, B, h, S, L)
            parts.append(m)
        if key_padding_mask is not None:
            parts.append(F.reshape(key_padding_mask, B, 1, 1, L))
        if not parts:
            return None
        if all(p.dtype is bool_ for p in parts):
            m = parts[0] if len(parts) == 1 else F.logical_or(parts[0], parts[1])
            return F.contiguous(F.expand(m, B, m.shape[1], S, L))
        to_float = [p if p.dtype is not bool_ else F.where(p, float("-inf"), F.zeros_like(p, dtype=float32))
                    for p in parts]
        m = to_float[0] if len(to_float) == 1 else F.add(to_float[0], to_float[1])
        return F.expand(m, B, m.shape[1], S, L)

    def _composed(self, q, k, v, mask, B, S, L, need_weights, average):
        h, d = self.num_heads, self.embed_dim // self.num_heads
        qh = F.permute(F.reshape(q, B, S, h, d), 0, 2, 1, 3)
        kh = F.permute(F.reshape(k, B, L, h, d), 0, 2, 3, 1)
        vh = F.permute(F.reshape(v, B, L, h, d), 0, 2, 1, 3)
        scores = F.mul(F.matmul(qh, kh), 1.0 / math.sqrt(d))
        if mask is not None:
            scores = F.where(mask, float("-inf"), scores) if mask.dtype is bool_ else F.add(scores, mask)
        p = F.softmax(scores, -1)
        if self.dropout > 0 and self.training:
            p = F.dropout(p, self.dropout, True)
        out = F.reshape(F.contiguous(F.permute(F.matmul(p, vh), 0, 2, 1, 3)), B, S, h * d)
        weights = None
        if need_weights:
            weights = F.mean(p, 1) if average else p
        return out, weights


class _BatchNorm(Module):
    """aclnnBatchNorm: batch statistics while training (running_mean / running_var updated in place
    by the op with `momentum`, or a cumulative average when momentum is None), the running ones in
    eval; gradient aclnnBatchNormBackward."""
    _dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(np.ones(num_features, np.float32)) if affine else None
        self.bias = Parameter(np.zeros(num_features, np.float32)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", from_numpy(np.zeros(num_features, np.float32)))
            self.register_buffer("running_var", from_numpy(np.ones(num_features, np.float32)))
            self.register_buffer("num_batches_tracked", from_numpy(np.zeros((), np.int64)))
        else:
            object.__setattr__(self, "running_mean", None)
            object.__setattr__(self, "running_var", None)

    def forward(self, x):
        if x.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(str(d) + 'D' for d in self._dims)} input (got {x.dim()}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                F.add_(self.num_batches_tracked, 1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or self.running_mean is None
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, use_batch, momentum,
                            self.eps)

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}"


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class LayerNorm(Module):
    """aclnnLayerNorm over the trailing normalized_shape (gradient: aclnnLayerNormBackward)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True):
        super().__init__()
        self.normalized_shape = tuple(_ntuple(normalized_shape, 1))
        self.eps = eps
        self.weight = Parameter(np.ones(self.normalized_shape, np.float32)) if elementwise_affine else None
        self.bias = Parameter(np.zeros(self.normalized_shape, np.float32)) if elementwise_affine else None

    def forward(self, x):
        return F.layer_norm(x, list(self.normalized_shape), self.weight, self.bias, self.eps)


class GroupNorm(Module):
    """aclnnGroupNorm (gradient: aclnnGroupNormBackward)."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        self.weight = Parameter(np.ones(num_channels, np.float32)) if affine else None
        self.bias = Parameter(np.zeros(num_channels, np.float32)) if affine else None

    def forward(self, x):
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class RMSNorm(Module):
    """y = x / sqrt(mean(x^2) + eps) * weight over the trailing normalized_shape: aclnnRmsNorm
    (gradient: aclnnRmsNormGrad). eps None means 1e-6."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True):
        super().__init__()
        self.normalized_shape = tuple(_ntuple(normalized_shape, 1))
        self.eps = 1e-6 if eps is None else eps
        w = Parameter(np.ones(self.normalized_shape, np.float32))
        if not elementwise_affine:
            w.requires_grad = False
            object.__setattr__(self, "_fixed_weight", w)
            self.weight = None
        else:
            self.weight = w

    def forward(self, x):
        w = self.weight if self.weight is not None else self._fixed_weight
        return F.rms_norm(x, list(self.normalized_shape), w, self.eps)


class Embedding(Module):
    """aclnnEmbedding (gradient: aclnnEmbeddingDenseBackward); weight N(0, 1), the padding row 0."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None):
        super().__init__()
        from . import _generator
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        w = _generator().standard_normal((num_embeddings, embedding_dim)).astype(np.float32)
        if padding_idx is not None:
            w[padding_idx] = 0
        self.weight = Parameter(w)

    def forward(self, idx):
        return F.embedding(idx, self.weight, self.padding_idx)


class Dropout(Module):
    """Zeroes elements with probability p while training (mask from opsnn's generator, scaled by
    1 / (1 - p), applied with aclnnMul); the identity in eval."""

    def __init__(self, p=0.5):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, self.training)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, self.output_size)


class Upsample(Module):
    """torch.nn.Upsample: F.interpolate (aclnnUpsample*) with the module's size / scale_factor / mode."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return F.flatten(x, self.start_dim, self.end_dim)


class Identity(Module):
    def forward(self, x):
        return x


class ModuleList(Module):
    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, m):
        self.__setattr__(str(len(self._modules)), m)
        return self

    def extend(self, mods):
        for m in mods:
            self.append(m)
        return self

    def __getitem__(self, i):
        mods = list(self._modules.values())
        return ModuleList(mods[i]) if isinstance(i, slice) else mods[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class _Loss(Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class KLDivLoss(_Loss):
    """torch.nn.KLDivLoss: F.kl_div (aclnnKlDiv); reduction none / mean / sum / batchmean."""

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        object.__setattr__(self, "weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction, self.pos_weight)


class RNNBase(Module):
    """torch.nn.LSTM / GRU's module: parameters weight_ih_l{k}[_reverse] [G*H, I_k], weight_hh_l{k}
    [G*H, H], bias_ih_l{k} / bias_hh_l{k} [G*H] (G = 4 LSTM, 3 GRU), all U(-1/sqrt(H), 1/sqrt(H)),
    in torch's order, so a torch state_dict loads. forward(input, hx=None): input [T, B, I] ([B, T, I]
    batch_first, [T, I] unbatched); hx None = zeros. One aclnnLSTM / aclnnGRU call (F.lstm / F.gru);
    gradients aclnnLstmBackward / aclnnGRUBackward; dropout between layers while training. LSTM
    proj_size > 0: weight_hh [4H, P], weight_hr_l{k}[_reverse] [P, H] after the biases (torch's order),
    h [.., P]; composed of matmuls and aclnnThnnFusedLstmCell per step (F.lstm), packed sequences too."""
    _mode, _gates = "", 0

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0):
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be an integer greater than zero")
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size and self._mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if dropout > 0 and num_layers == 1:
            import warnings
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers=1")
        object.__setattr__(self, "mode", self._mode)
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        D, G = (2 if bidirectional else 1), self._gates
        real = proj_size or hidden_size  # the size of h (torch's real_hidden_size)
        names = []
        for layer in range(num_layers):
            for d in range(D):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                isz = input_size if layer == 0 else real * D
                shapes = [("weight_ih", (G * hidden_size, isz)), ("weight_hh", (G * hidden_size, real))]
                if bias:
                    shapes += [("bias_ih", (G * hidden_size,)), ("bias_hh", (G * hidden_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for n, shape in shapes:
                    self.__setattr__(n + sfx, Parameter(np.zeros(shape, np.float32)))
                    names.append(n + sfx)
        object.__setattr__(self, "_flat_weights_names", names)
        self.reset_parameters()

    def reset_parameters(self):
        """Every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) (PyTorch's init)."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        with no_grad():
            for n in self._flat_weights_names:
                p = getattr(self, n)
                p._t.copy_(_uniform(tuple(p.shape), bound)._t)

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        w, per = self._flat_weights, (4 if self.bias else 2) + (1 if self.proj_size else 0)
        return [w[i:i + per] for i in range(0, len(w), per)]

    def flatten_parameters(self):
        """PyTorch's cuDNN weight compaction: nothing to do here."""

    def forward(self, input, hx=None):
        if isinstance(input, utils.rnn.PackedSequence):
            return self._forward_packed(input, hx)
        D = 2 if self.bidirectional else 1
        batched = input.dim() == 3
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._mode}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if not batched:
            input = F.unsqueeze(input, 0 if self.batch_first else 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        B = input.shape[0] if self.batch_first else input.shape[1]
        if hx is not None:
            hs = [hx] if isinstance(hx, Tensor) else list(hx)
            if not batched:
                hs = [F.unsqueeze(h, 1) for h in hs]
            for i, h in enumerate(hs):  # h [L*D, B, proj_size or hidden_size]; c [L*D, B, hidden_size]
                want = (self.num_layers * D, B, self.proj_size if i == 0 and self.proj_size else self.hidden_size)
                if tuple(h.shape) != want:
                    raise RuntimeError(f"Expected hidden size {want}, got {tuple(h.shape)}")
            hx = hs[0] if self._mode == "GRU" else tuple(hs)
        fn = F.lstm if self._mode == "LSTM" else F.gru
        res = fn(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                 self.bidirectional, self.batch_first)
        if not batched:
            res = tuple(F.squeeze(r, 0 if self.batch_first and i == 0 else 1) for i, r in enumerate(res))
        if self._mode == "LSTM":
            return res[0], (res[1], res[2])
        return res[0], res[1]

    def _forward_packed(self, packed, hx):
        """PyTorch's PackedSequence path: batch_sizes to the op; hx in the caller's batch order (sorted
        here by sorted_indices, h_n / c_n returned in the caller's order)."""
        data, bs, srt, unsrt = packed
        D = 2 if self.bidirectional else 1
        B = int(bs.numpy()[0])
        if hx is not None:
            hs = [hx] if isinstance(hx, Tensor) else list(hx)
            for i, h in enumerate(hs):  # h [L*D, B, proj_size or hidden_size]; c [L*D, B, hidden_size]
                want = (self.num_layers * D, B, self.proj_size if i == 0 and self.proj_size else self.hidden_size)
                if tuple(h.shape) != want:
                    raise RuntimeError(f"Expected hidden size {want}, got {tuple(h.shape)}")
            if srt is not None:
                hs = [utils.rnn._index_batch(h, srt.numpy(), 1) for h in hs]
            hx = hs[0] if self._mode == "GRU" else tuple(hs)
        fn = F.lstm if self._mode == "LSTM" else F.gru
        res = fn(data, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                 self.bidirectional, False, batch_sizes=bs)
        states = list(res[1:])
        if unsrt is not None:
            states = [utils.rnn._index_batch(h, unsrt.numpy(), 1) for h in states]
        out = utils.rnn.PackedSequence(res[0], bs, srt, unsrt)
        return (out, tuple(states)) if self._mode == "LSTM" else (out, states[0])

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class LSTM(RNNBase):
    """torch.nn.LSTM (gates i, f, g, o): forward(input, (h_0, c_0) or None) -> (output, (h_n, c_n));
    aclnnLSTM, gradient aclnnLstmBackward."""
    _mode, _gates = "LSTM", 4


class GRU(RNNBase):
    """torch.nn.GRU (gates r, z, n): forward(input, h_0 or None) -> (output, h_n); aclnnGRU, gradient
    aclnnGRUBackward."""
    _mode, _gates = "GRU", 3


from . import _nn_utils as utils  # noqa: E402  (nn.utils.rnn: PackedSequence and its helpers)
functional = F
__all__ = ["Parameter", "Module", "Linear", "ReLU", "Sigmoid", "Tanh", "GELU", "SiLU", "LeakyReLU", "Softmax",
           "LogSoftmax", "Sequential", "MSELoss", "CrossEntropyLoss", "float32", "Conv1d", "Conv2d", "Conv3d", "MultiheadAttention",
           "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
           "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "RMSNorm", "Embedding", "Dropout", "MaxPool2d",
           "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "Identity", "ModuleList", "Upsample", "L1Loss", "KLDivLoss", "NLLLoss",
           "BCEWithLogitsLoss", "RNNBase", "LSTM", "GRU"]

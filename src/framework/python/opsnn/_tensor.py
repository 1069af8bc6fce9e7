"""opsnn.Tensor: the Python face of opsnn::Tensor (a view of aclrtMalloc storage) with autograd
state. Every computation is an aclnn call made by opsnn._C; this module holds the dtypes, the
tensor class, creation functions, indexing and printing."""
import builtins
import math

import numpy as np

from . import _C

_py_bool = builtins.bool


class DType:
    """A tensor dtype (opsnn.float32, ...): its aclDataType code, name and properties."""
    __slots__ = ("code", "name", "is_floating_point", "itemsize", "category")

    def __init__(self, code, name, is_floating_point, itemsize, category):
        self.code, self.name, self.is_floating_point = code, name, is_floating_point
        self.itemsize, self.category = itemsize, category

    def __repr__(self):
        return "opsnn." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


float32 = DType(_C.FLOAT32, "float32", True, 4, 2)
float16 = DType(_C.FLOAT16, "float16", True, 2, 2)
bfloat16 = DType(_C.BFLOAT16, "bfloat16", True, 2, 2)
int8 = DType(_C.INT8, "int8", False, 1, 1)
int32 = DType(_C.INT32, "int32", False, 4, 1)
int64 = DType(_C.INT64, "int64", False, 8, 1)
bool_ = DType(_C.BOOL, "bool", False, 1, 0)
DTYPES = [float32, float16, bfloat16, int8, int32, int64, bool_]
_BY_CODE = {d.code: d for d in DTYPES}
_BY_NAME = {d.name: d for d in DTYPES}
_NUMPY = {np.dtype(np.float32): float32, np.dtype(np.float16): float16, np.dtype(np.int8): int8,
          np.dtype(np.int32): int32, np.dtype(np.int64): int64, np.dtype(np.bool_): bool_}
float = float32  # noqa: A001  (PyTorch's aliases)
half = float16
long = int64
int = int32  # noqa: A001


def _dtype_by_name(name):
    return _BY_NAME[name]


def as_dtype(d):
    if isinstance(d, DType):
        return d
    if isinstance(d, str) and d in _BY_NAME:
        return _BY_NAME[d]
    try:
        return _NUMPY[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"opsnn: unsupported dtype {d!r} (one of {', '.join(x.name for x in DTYPES)})") from None


def promote_types(a, b):
    """PyTorch's promotion over the framework's dtypes."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.is_floating_point:
        return float32  # float16 with bfloat16 (or float32)
    order = [bool_, int8, int32, int64]
    return a if order.index(a) > order.index(b) else b


def scalar_dtype(v):
    if isinstance(v, (_py_bool, np.bool_)):
        return bool_
    if isinstance(v, (builtins.int, np.integer)):
        return int64
    return float32


def result_type(*operands):
    """torch.result_type: tensors with dims, then 0-dim tensors, then Python scalars by category."""
    if operands and isinstance(operands[0], Tensor):  # tensors of one dtype: promotion keeps it
        code = operands[0]._t.dtype
        for o in operands:
            if not isinstance(o, Tensor) or o._t.dtype != code:
                break
        else:
            return _BY_CODE[code]
    state = [None, None, None]
    for o in operands:
        if isinstance(o, Tensor):
            i, d = (0 if o.dim() > 0 else 1), o.dtype
        else:
            i, d = 2, scalar_dtype(o)
        state[i] = d if state[i] is None else promote_types(state[i], d)

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None:
            return higher
        if lower.category > higher.category:
            return promote_types(higher, lower)
        return higher

    return combine(state[0], combine(state[1], state[2]))


class _GradMode:
    enabled = True


def is_grad_enabled():
    return _GradMode.enabled


class no_grad:
    """Context manager / decorator: operations inside record no autograd graph."""

    def __enter__(self):
        self.prev = _GradMode.enabled
        _GradMode.enabled = False

    def __exit__(self, *exc):
        _GradMode.enabled = self.prev
        return False

    def __call__(self, fn):
        def wrapper(*a, **k):
            with no_grad():
                return fn(*a, **k)
        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        return wrapper


class enable_grad(no_grad):
    def __enter__(self):
        self.prev = _GradMode.enabled
        _GradMode.enabled = True


class Tensor:
    """An n-dimensional array on the device (shape, strides, dtype, views) with autograd state."""
    __slots__ = ("_t", "requires_grad", "grad", "grad_fn", "__weakref__")

    def __init__(self, handle, requires_grad=False):
        if not isinstance(handle, _C.Tensor):
            raise TypeError("opsnn.Tensor(handle): use opsnn.tensor(data) or opsnn.from_numpy(array)")
        self._t = handle
        self.requires_grad = _py_bool(requires_grad)
        self.grad = None
        self.grad_fn = None

    # ---- properties
    @property
    def shape(self):
        return self._t.shape

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    @property
    def strides(self):
        return self._t.strides

    def stride(self, dim=None):
        return self.strides if dim is None else self.strides[dim]

    @property
    def dtype(self):
        return _BY_CODE[self._t.dtype]

    @property
    def ndim(self):
        return self._t.dim()

    def dim(self):
        return self._t.dim()

    def numel(self):
        return self._t.numel()

    def storage_offset(self):
        return self._t.offset

    def is_contiguous(self):
        return self._t.is_contiguous()

    def is_floating_point(self):
        return self.dtype.is_floating_point

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    # ---- host copies
    def numpy(self):
        """A numpy copy (synchronises); bfloat16 comes back as float32."""
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._t.numpy()

    def tolist(self):
        return self.detach().numpy().tolist()

    def item(self):
        if self.numel() != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars (got {self.numel()})")
        return self.detach().numpy().reshape(-1)[0].item()

    def __float__(self):
        return builtins.float(self.item())

    def __int__(self):
        return builtins.int(self.item())

    def __bool__(self):
        return _py_bool(self.item())

    def __array__(self, dtype=None):
        """numpy.asarray(t): a view of the tensor's memory (as numpy.asarray of a CPU torch tensor;
        synchronises; bfloat16, which numpy lacks, comes back as a float32 copy)."""
        if self.dtype is bfloat16:
            a = self.detach().numpy()
        else:
            a = np.asarray(memoryview(self._t))
        return a if dtype is None else a.astype(dtype)

    # ---- zero-copy exchange: DLPack here; the buffer protocol is the handle's (memoryview(t._t)): a
    # Python class gets one only from Python 3.12 on (__buffer__), Debian 12 has 3.11
    def __dlpack__(self, stream=None):
        if self.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return self._t.__dlpack__(stream)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    # ---- autograd
    def detach(self):
        return Tensor(self._t)

    def requires_grad_(self, flag=True):
        if flag and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = _py_bool(flag)
        return self

    def backward(self, gradient=None, retain_graph=None):
        from . import autograd
        autograd.backward(self, gradient, retain_graph)

    # ---- printing
    def __repr__(self):
        return _format(self)

    __str__ = __repr__

    # ---- views, casts and copies (functional.py defines them; bound below)
    def __hash__(self):
        return id(self)


def _wrap(handle, requires_grad=False):
    return Tensor(handle, requires_grad)


def _format(t):
    a = t.detach().numpy()
    if t.dtype.is_floating_point:
        a64 = a.astype(np.float64)
        finite = a64[np.isfinite(a64)]
        ints = finite.size == 0 or np.all(finite == np.round(finite))
        big = finite.size and (np.max(np.abs(finite)) >= 1e8 or (np.min(np.abs(finite[finite != 0])) < 1e-4
                                                                  if np.any(finite != 0) else False))
        if ints and not big:
            one = lambda x: ("%.0f." % x) if np.isfinite(x) else str(x)  # noqa: E731
        elif big:
            one = lambda x: ("%.4e" % x) if np.isfinite(x) else str(x)  # noqa: E731
        else:
            one = lambda x: ("%.4f" % x) if np.isfinite(x) else str(x)  # noqa: E731
        # PyTorch right-aligns every element to the widest finite one
        width = max((len(one(v)) for v in finite.reshape(-1)), default=0)
        fmt = {"float_kind": lambda x: one(x).rjust(width)}
        body = np.array2string(a64, separator=", ", prefix="tensor(", formatter=fmt, threshold=1000, edgeitems=3)
    else:
        body = np.array2string(a, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3)
        if t.dtype is bool_:
            body = body.replace("True", "True").replace("False", "False")
    extra = []
    if t.dtype not in (float32, int64, bool_) or (t.numel() == 0 and t.dtype is not float32):
        extra.append(f"dtype={t.dtype!r}")
    if t.numel() == 0:
        body = "[]" if t.dim() == 1 else body
        if t.dim() > 1:
            extra.insert(0, f"size={tuple(t.shape)}")
    if t.grad_fn is not None:
        extra.append(f"grad_fn=<{type(t.grad_fn).__name__ if not hasattr(t.grad_fn, 'name') else t.grad_fn.name}>")
    elif t.requires_grad:
        extra.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extra) + ")"


# ---- creation
def from_numpy(array, dtype=None):
    """A device copy of a numpy array (float64 data becomes float32, as opsnn has no float64)."""
    a = np.asarray(array)
    if a.dtype == np.float64:
        a = a.astype(np.float32)
    elif a.dtype == np.uint8 or a.dtype == np.int16:
        a = a.astype(np.int32)
    d = as_dtype(dtype) if dtype is not None else None
    if d is bfloat16 and a.dtype != np.float32:
        a = a.astype(np.float32)
    return Tensor(_C.from_numpy(a, -1 if d is None else d.code))


def from_dlpack(obj):
    """A tensor sharing the memory of a DLPack producer (torch.Tensor, numpy arrays, or a
    "dltensor" capsule): no copy; the producer's memory is handed back when the last view is gone."""
    if isinstance(obj, Tensor):
        return Tensor(obj._t)
    return Tensor(_C.from_dlpack(obj))


def tensor(data, dtype=None, requires_grad=False):
    """A tensor from (nested) Python lists / scalars / numpy arrays: float data -> float32,
    integers -> int64, booleans -> bool (PyTorch's defaults)."""
    if isinstance(data, Tensor):
        t = data.detach().clone() if dtype is None else data.detach().to(dtype)
    else:
        a = np.asarray(data)
        if a.dtype == object:
            raise TypeError("opsnn.tensor: data must be numbers or nested lists of numbers")
        if dtype is None:
            if a.dtype.kind == "f":
                a = a.astype(np.float32)
            elif a.dtype.kind in "iu":
                a = a.astype(np.int64)
        t = from_numpy(np.array(a, order="C"), dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def empty(*shape, dtype=float32):
    return Tensor(_C.empty(_shape_arg(shape), as_dtype(dtype).code))


def zeros(*shape, dtype=float32, requires_grad=False):
    return Tensor(_C.zeros(_shape_arg(shape), as_dtype(dtype).code), requires_grad)


def ones(*shape, dtype=float32, requires_grad=False):
    return Tensor(_C.full(_shape_arg(shape), 1.0, as_dtype(dtype).code), requires_grad)


def full(shape, value, dtype=None, requires_grad=False):
    d = as_dtype(dtype) if dtype is not None else scalar_dtype(value)
    return Tensor(_C.full(_shape_arg((shape,)), builtins.float(value), d.code), requires_grad)


def zeros_like(t, dtype=None):
    return zeros(*t.shape, dtype=dtype or t.dtype)


def ones_like(t, dtype=None):
    return ones(*t.shape, dtype=dtype or t.dtype)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    out = []
    for s in shape:
        if not isinstance(s, (builtins.int, np.integer)) or isinstance(s, _py_bool):
            raise TypeError(f"opsnn: shape entries must be integers, got {s!r}")
        out.append(builtins.int(s))
    return out


def _parse_index(t, idx):
    """Basic indexing (ints, slices with positive steps, None, Ellipsis) as a chain of views."""
    if not isinstance(idx, tuple):
        idx = (idx,)
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    expanded = []
    for i in idx:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (t.dim() - n_real))
        else:
            expanded.append(i)
    ops, d = [], 0
    for i in expanded:
        if i is None:
            ops.append(("unsqueeze", d))
            d += 1
        elif isinstance(i, slice):
            start, stop, step = i.start, i.stop, 1 if i.step is None else i.step
            if not isinstance(step, (builtins.int, np.integer)) or step <= 0:
                raise ValueError("step must be greater than zero")
            n = t.shape[d] if d < t.dim() else 0
            ops.append(("slice", d, 0 if start is None else builtins.int(start),
                        n if stop is None else builtins.int(stop), builtins.int(step)))
            d += 1
        elif isinstance(i, (builtins.int, np.integer)) and not isinstance(i, _py_bool):
            ops.append(("select", d, builtins.int(i)))
        else:
            raise TypeError(f"opsnn: unsupported index {i!r} (ints, slices, None and ... are supported)")
    return ops


def _apply_index(handle, ops):
    h = handle
    for op in ops:
        if op[0] == "unsqueeze":
            h = h.unsqueeze(op[1])
        elif op[0] == "slice":
            h = h.slice(op[1], op[2], op[3], op[4])
        else:
            h = h.select(op[1], op[2])
    return h


def prod(shape):
    return math.prod(shape)

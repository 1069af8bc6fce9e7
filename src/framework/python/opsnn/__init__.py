"""opsnn: PyTorch-like tensors, autograd, nn and optim on the OpsNN aclnn operator library.

    import opsnn
    x = opsnn.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    y = opsnn.functional.relu(x @ x.T).sum()
    y.backward(); print(x.grad)

Every computation is an aclnn call (opsnn._C, the framework's C++ core: include/opsnn/*.h);
docs/ARCHITECTURE.md, "Framework layer"."""
import operator as _operator

import numpy as _np

from . import _C
from ._tensor import (Tensor, DType, float32, float16, bfloat16, int8, int32, int64, bool_, float, half, long,  # noqa: F401,A004
                      int, DTYPES, as_dtype, promote_types, result_type, no_grad, enable_grad, is_grad_enabled,
                      from_numpy, from_dlpack, tensor, empty, zeros, ones, full, zeros_like, ones_like)
from . import functional  # noqa: E402
from . import autograd  # noqa: E402
from . import nn  # noqa: E402
from . import optim  # noqa: E402
from . import profiler  # noqa: E402
from . import amp  # noqa: E402
from .amp import autocast, GradScaler, is_autocast_enabled, get_autocast_dtype  # noqa: E402,F401
from .tune import auto_optimize  # noqa: E402,F401
from ._graph import Graph, graph, is_capturing  # noqa: E402,F401

globals()["bool"] = bool_
Error = _C.Error
F = functional


def synchronize():
    """Wait for every launch on the layer's stream (a failed launch raises here)."""
    _C.synchronize()


def call_stats():
    """Counters of the aclnn call path: calls (launches), workspace bytes used, largest
    workspace, the executor cache's hits (launches without phase 1), misses (phase 1 runs,
    executor kept), uncached calls and kept executors, and the workspace arena (one block on the
    layer's stream, grown to the largest workspace: arena_bytes, arena_grows)."""
    return _C.call_stats()


def memory_stats():
    """PyTorch-like memory statistics: the tensors' storage (opsnn::memory_stats: live bytes now and
    at the peak, allocations and frees counted by the framework) and the device's memory as the
    runtime's caching allocator reports it through aclrtGetMemInfo (in use: live blocks plus blocks
    awaiting queued work, by size class; its cache counts as free)."""
    s = _C.memory_stats()
    return {
        "allocated_bytes.all.current": s["allocated_bytes"],
        "allocated_bytes.all.peak": s["peak_allocated_bytes"],
        "allocation.all.allocated": s["allocations"],
        "allocation.all.freed": s["frees"],
        "allocation.all.current": s["allocations"] - s["frees"],
        "device_bytes.in_use": s["device_in_use"],
        "device_bytes.total": s["device_total"],
    }


def memory_allocated():
    return _C.memory_stats()["allocated_bytes"]


def max_memory_allocated():
    return _C.memory_stats()["peak_allocated_bytes"]


def reset_peak_memory_stats():
    _C.reset_peak_memory_stats()


def executor_cache_stats():
    """The executor cache's counters: hits (launches without phase 1), misses (phase 1 runs whose
    executor was kept), uncached calls (families the cache does not cover yet, lists with an undefined
    element), kept executors, and hit_rate = hits / (hits + misses + uncached)."""
    s = _C.call_stats()
    total = s["cache_hits"] + s["cache_misses"] + s["cache_uncached"]
    return {"hits": s["cache_hits"], "misses": s["cache_misses"], "uncached": s["cache_uncached"],
            "entries": s["cache_entries"], "hit_rate": (s["cache_hits"] / total) if total else 0.0}


def set_executor_cache(enabled):
    """Turn the executor cache on / off (off destroys the kept executors). On by default;
    OPSNN_EXECUTOR_CACHE=0 starts with it off."""
    _C.set_executor_cache(True if enabled else False)


def executor_cache_enabled():
    return _C.executor_cache_enabled()


def clear_executor_cache():
    _C.clear_executor_cache()


def reset_call_stats():
    _C.reset_call_stats()


_LOG_LEVELS = {"debug": 0, "info": 1, "warning": 2, "warn": 2, "error": 3, "off": 4, "null": 4, "none": 4}


def set_verbose(level=0):
    """Set the library's log level as the vendor toolkit counts it: 0 debug, 1 info, 2 warning,
    3 error, 4 off (or those names; True = 0, False / None = 4). Level 0 also prints one
    "opsnn_verbose,phase1/exec" line per op (the chosen kernels, shapes and times); any other
    level turns those off. Lines go where ASCEND_SLOG_PRINT_TO_STDOUT / ASCEND_PROCESS_LOG_PATH /
    OPSNN_LOG sent the log at start, else to stderr. Returns the previous level."""
    if level is True:
        level = 0
    elif level is False or level is None:
        level = 4
    elif isinstance(level, str):
        if level.lower() not in _LOG_LEVELS:
            raise ValueError("set_verbose: unknown level %r (0..4 or %s)" % (level, ", ".join(_LOG_LEVELS)))
        level = _LOG_LEVELS[level.lower()]
    prev = _C.set_log_level(_operator.index(level))
    if prev < 0:
        raise ValueError("set_verbose: level %r is outside 0..4" % (level,))
    return prev


def get_verbose():
    """The library's current log level (0 debug .. 4 off)."""
    return _C.get_log_level()


_rng = _np.random.default_rng(0)


def manual_seed(seed):
    """Seed the generator behind opsnn.rand / randn and the modules' initialisation."""
    global _rng
    _rng = _np.random.default_rng(seed)


def randn(*shape, dtype=float32, requires_grad=False):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    t = from_numpy(_rng.standard_normal(shape).astype(_np.float32), dtype)
    return t.requires_grad_() if requires_grad else t


def rand(*shape, dtype=float32, requires_grad=False):
    shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    t = from_numpy(_rng.random(shape).astype(_np.float32), dtype)
    return t.requires_grad_() if requires_grad else t


def _generator():
    return _rng


# Functions on the package level, like torch.<op>.
for _n in functional.__all__:
    if _n not in globals():
        globals()[_n] = getattr(functional, _n)


# ---- Tensor methods and operators (functional.py does the work)
def _method(fn):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = getattr(fn, "__name__", "method")
    m.__doc__ = fn.__doc__
    return m


for _n in functional.UNARY_OPS + functional.NARY_OPS + ["reshape", "view", "permute", "transpose", "unsqueeze",
                                                        "squeeze", "expand", "flatten", "contiguous", "clone",
                                                        "sum", "mean", "matmul", "mm", "softmax", "log_softmax",
                                                        "div", "t", "clamp"]:
    setattr(Tensor, _n, _method(getattr(functional, _n)))
    if hasattr(functional, _n + "_"):
        setattr(Tensor, _n + "_", _method(getattr(functional, _n + "_")))


def _to(self, dtype):
    return functional.to(self, dtype)


Tensor.to = _to
Tensor.float = lambda self: functional.to(self, float32)
Tensor.half = lambda self: functional.to(self, float16)
Tensor.long = lambda self: functional.to(self, int64)
Tensor.T = property(lambda self: functional.permute(self, *reversed(range(self.dim()))))
Tensor.__getitem__ = lambda self, idx: functional.getitem(self, idx)
Tensor.__setitem__ = lambda self, idx, v: functional.setitem(self, idx, v)


def _zero_(self):
    functional._check_leaf_inplace(self)
    self._t.zero_()
    return self


def _fill_(self, v):
    functional._check_leaf_inplace(self)
    self._t.fill_(v)
    return self


def _copy_(self, src):
    functional._check_leaf_inplace(self)
    self._t.copy_((src if isinstance(src, Tensor) else tensor(src))._t)
    return self


Tensor.zero_, Tensor.fill_, Tensor.copy_ = _zero_, _fill_, _copy_
F_ = functional
Tensor.__add__ = lambda a, b: F_.add(a, b)
Tensor.__radd__ = lambda a, b: F_.add(b, a)
Tensor.__iadd__ = lambda a, b: F_.add_(a, b)
Tensor.__sub__ = lambda a, b: F_.sub(a, b)
Tensor.__rsub__ = lambda a, b: F_.sub(b, a)
Tensor.__isub__ = lambda a, b: F_.sub_(a, b)
Tensor.__mul__ = lambda a, b: F_.mul(a, b)
Tensor.__rmul__ = lambda a, b: F_.mul(b, a)
Tensor.__imul__ = lambda a, b: F_.mul_(a, b)
Tensor.__truediv__ = lambda a, b: F_.div(a, b)
Tensor.__rtruediv__ = lambda a, b: F_.div(b, a)
Tensor.__itruediv__ = lambda a, b: F_.div_(a, b)
Tensor.__floordiv__ = lambda a, b: F_.div(a, b, rounding_mode="floor")
Tensor.__mod__ = lambda a, b: F_.remainder(a, b)
Tensor.__pow__ = lambda a, b: F_.pow(a, b)
Tensor.__rpow__ = lambda a, b: F_.pow(b, a)
Tensor.__matmul__ = lambda a, b: F_.matmul(a, b)
Tensor.__rmatmul__ = lambda a, b: F_.matmul(b, a)
Tensor.__neg__ = lambda a: F_.neg(a)
Tensor.__abs__ = lambda a: F_.abs(a)
Tensor.__invert__ = lambda a: F_.bitwise_not(a)
Tensor.__and__ = lambda a, b: F_.bitwise_and(a, b)
Tensor.__or__ = lambda a, b: F_.bitwise_or(a, b)
Tensor.__xor__ = lambda a, b: F_.bitwise_xor(a, b)
Tensor.__eq__ = lambda a, b: F_.eq(a, b)
Tensor.__ne__ = lambda a, b: F_.ne(a, b)
Tensor.__lt__ = lambda a, b: F_.lt(a, b)
Tensor.__le__ = lambda a, b: F_.le(a, b)
Tensor.__gt__ = lambda a, b: F_.gt(a, b)
Tensor.__ge__ = lambda a, b: F_.ge(a, b)
Tensor.__hash__ = lambda a: id(a)

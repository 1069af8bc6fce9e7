"""Mixed precision (issue #17): opsnn.autocast and opsnn.GradScaler, with PyTorch's rules.

autocast(dtype=bfloat16 | float16): inside the context, the ops that gain from low precision
(matmul, mm, linear, the convolutions: LOW_PRECISION_OPS) take their floating-point tensor
arguments cast to that dtype, and the ops that need the range or the accuracy (softmax,
log_softmax, the norms, the reductions sum / mean and the losses: FLOAT32_OPS) take them cast to
float32. Other ops run in the dtypes they are given (their type promotion mixes float16 / bfloat16
with float32 into float32). The casts are autograd ops, so gradients reach float32 parameters in
float32. functional.py marks each op with @low_precision or @float32.

GradScaler: scales the loss so small float16 gradients do not underflow, unscales the gradients
before the optimiser step, skips the step when a gradient is inf or NaN and then lowers the scale
(backoff), and raises it after growth_interval steps without one (PyTorch's dynamic loss scaling;
the initial scale here is 4096 = 2^12, the issue's, where PyTorch's default is 2^16)."""
import functools

from ._tensor import Tensor, bfloat16, float16, float32, as_dtype, no_grad

LOW_PRECISION_OPS = []
FLOAT32_OPS = []


class _State:
    dtype = None  # the autocast dtype, None outside autocast


def get_autocast_dtype():
    """The dtype of the innermost enabled autocast context, or None."""
    return _State.dtype


def is_autocast_enabled():
    return _State.dtype is not None


class autocast:
    """Context manager / decorator: low-precision matmuls and convolutions, float32 reductions,
    norms and losses (see the module's text). autocast(enabled=False) turns it off inside."""

    def __init__(self, dtype=bfloat16, enabled=True):
        d = as_dtype(dtype)
        if d not in (bfloat16, float16):
            raise ValueError(f"autocast: dtype must be opsnn.bfloat16 or opsnn.float16, got {d!r}")
        self.dtype, self.enabled = d, bool(enabled)

    def __enter__(self):
        self.prev = _State.dtype
        _State.dtype = self.dtype if self.enabled else None
        return self

    def __exit__(self, *exc):
        _State.dtype = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            with autocast(self.dtype, self.enabled):
                return fn(*a, **k)
        return wrapper


def _cast_args(args, kwargs, dtype, to):
    def c(v):
        if isinstance(v, Tensor) and v.dtype.is_floating_point and v.dtype is not dtype:
            return to(v, dtype)
        if isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) for e in v):
            return type(v)(c(e) for e in v)
        return v
    return [c(a) for a in args], {k: c(v) for k, v in kwargs.items()}


def _policy(registry, pick):
    def mark(fn):
        registry.append(fn.__name__)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            d = _State.dtype
            if d is None:
                return fn(*args, **kwargs)
            from .functional import to  # (functional imports this module)
            _State.dtype = None  # the op's own calls (its casts, its gradient) run as given
            try:
                args, kwargs = _cast_args(args, kwargs, pick(d), to)
                return fn(*args, **kwargs)
            finally:
                _State.dtype = d
        return wrapper
    return mark


low_precision = _policy(LOW_PRECISION_OPS, lambda d: d)
float32_op = _policy(FLOAT32_OPS, lambda d: float32)


class GradScaler:
    """Dynamic loss scaling: scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()."""

    def __init__(self, init_scale=4096.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        if not (growth_factor > 1.0 and 0.0 < backoff_factor < 1.0 and growth_interval >= 1 and init_scale > 0):
            raise ValueError("GradScaler: need init_scale > 0, growth_factor > 1, 0 < backoff_factor < 1, "
                             "growth_interval >= 1")
        self._scale, self._growth, self._backoff = float(init_scale), float(growth_factor), float(backoff_factor)
        self._interval, self._enabled = int(growth_interval), bool(enabled)
        self._tracker = 0          # steps since the last inf / NaN or growth
        self._unscaled = {}        # id(optimizer) -> found an inf / NaN while unscaling
        self._found_inf = False    # in the step being finished by update()

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """outputs * scale (a tensor, or lists / tuples / dicts of them)."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, dict):
            return {k: self.scale(v) for k, v in outputs.items()}
        raise TypeError("GradScaler.scale: outputs must be tensors (or lists / tuples / dicts of them)")

    @no_grad()
    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale, in place, once per step, and notes
        whether one of them holds an inf or NaN."""
        if not self._enabled:
            return
        if id(optimizer) in self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        from . import functional as F
        inv = 1.0 / self._scale
        probe = None  # sum of grad * 0 over every gradient: NaN exactly when one holds an inf or NaN
        for p in optimizer.params:
            if p.grad is None:
                continue
            F.mul_(p.grad, inv)
            z = F.sum(F.mul(F.to(p.grad, float32), 0.0))
            probe = z if probe is None else F.add(probe, z)
        found = probe is not None and probe.item() != 0.0  # NaN != 0
        self._unscaled[id(optimizer)] = found
        self._found_inf = self._found_inf or found

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step() unless a gradient holds an inf or NaN (then the step is skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        if self._unscaled[id(optimizer)]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """The next step's scale: backoff after an inf / NaN, growth after growth_interval clean steps."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
        elif self._found_inf:
            self._scale *= self._backoff
            self._tracker = 0
        else:
            self._tracker += 1
            if self._tracker == self._interval:
                self._scale *= self._growth
                self._tracker = 0
        self._unscaled.clear()
        self._found_inf = False

    def state_dict(self):
        return {"scale": self._scale, "growth_factor": self._growth, "backoff_factor": self._backoff,
                "growth_interval": self._interval, "_growth_tracker": self._tracker} if self._enabled else {}

    def load_state_dict(self, state):
        self._scale = float(state["scale"])
        self._growth, self._backoff = float(state["growth_factor"]), float(state["backoff_factor"])
        self._interval, self._tracker = int(state["growth_interval"]), int(state["_growth_tracker"])

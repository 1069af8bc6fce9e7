"""opsnn.auto_optimize (issue #17): pick, per input signature, the fastest configuration of a
function or module that still meets the precision standard, and remember it on disk.

    @opsnn.auto_optimize(precision="bf16", tune_steps=5)
    def block(x): ...
    model = opsnn.auto_optimize(model, precision="fp16")   # a Module: its calls

Candidates: float32, and autocast in the low-precision dtypes `precision` allows ("fp32": none,
"bf16": bfloat16, "fp16": float16 and bfloat16). On the first call with a new signature (the
shapes and dtypes of the tensor arguments), each candidate runs `tune_steps` times on the real
arguments; its outputs are checked against the float32 candidate's with precision.md's rule at the
candidate dtype's tolerance (opsnn.testing.errors; relative to |ref| plus the output's RMS, since
the terms a function sums are unknown), and the fastest passing one (median time,
synchronised) is kept. Decisions are stored in a JSON file (`cache`, default $OPSNN_AUTOTUNE_CACHE or
~/.cache/opsnn/autotune.json) under the function's qualified name and the signature, so a later
process starts from them. Layouts other than the tensors' own are not candidates: the framework's
tensors carry no format (NHWC) yet, so layout="NHWC" is refused."""
import functools
import json
import os
import time

import numpy as np

from ._tensor import Tensor, bfloat16, float16, float32
from .amp import autocast

_ALLOWED = {"fp32": [], "bf16": [bfloat16], "fp16": [float16, bfloat16]}


def _default_cache():
    return os.environ.get("OPSNN_AUTOTUNE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "opsnn",
                                                                  "autotune.json")


def _signature(args, kwargs):
    def one(v):
        if isinstance(v, Tensor):
            return f"{v.dtype.name}{list(v.shape)}"
        if isinstance(v, (list, tuple)):
            return "(" + ",".join(one(x) for x in v) + ")"
        return type(v).__name__
    return ";".join([one(a) for a in args] + [f"{k}={one(v)}" for k, v in sorted(kwargs.items())])


def _outputs(out):
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [o for x in out for o in _outputs(x)]
    return []


def _rms(a):
    fin = a[np.isfinite(a)]
    return max(float(np.sqrt(np.mean(fin * fin))) if fin.size else 0.0, 1e-30)


class AutoOptimized:
    """The wrapped function: call it like the original; `.decisions` holds the kept choices."""

    def __init__(self, fn, precision="fp32", tune_steps=5, cache=None, layout=None, clock=time.perf_counter):
        if precision not in _ALLOWED:
            raise ValueError(f"auto_optimize: precision must be one of {', '.join(_ALLOWED)}, got {precision!r}")
        if layout not in (None, "NCHW", "ND"):
            raise ValueError(f"auto_optimize: layout {layout!r} is not a candidate: the framework's tensors carry no "
                             "format (NHWC) yet")
        if tune_steps < 1:
            raise ValueError("auto_optimize: tune_steps must be >= 1")
        self.fn, self.tune_steps, self.clock = fn, tune_steps, clock
        self.candidates = ["float32"] + [d.name for d in _ALLOWED[precision]]
        self.cache_path = cache or _default_cache()
        self.name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        self.decisions = self._load()
        self.timings = {}  # signature -> {candidate: median seconds or "rejected: ..."}
        functools.update_wrapper(self, fn, updated=())

    def _load(self):
        try:
            with open(self.cache_path) as f:
                return {k[len(self.name) + 1:]: v for k, v in json.load(f).items() if k.startswith(self.name + "|")}
        except (OSError, ValueError):
            return {}

    def _store(self, sig, choice):
        try:
            with open(self.cache_path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {}
        data[f"{self.name}|{sig}"] = choice
        os.makedirs(os.path.dirname(os.path.abspath(self.cache_path)), exist_ok=True)
        tmp = self.cache_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.cache_path)

    def _run(self, candidate, args, kwargs):
        with autocast(candidate if candidate != "float32" else bfloat16, enabled=candidate != "float32"):
            return self.fn(*args, **kwargs)

    def _tune(self, sig, args, kwargs):
        from . import synchronize
        from .testing import TOL, errors
        results, ref = {}, None
        best, best_t = "float32", None
        for cand in self.candidates:
            outs, times = None, []
            for _ in range(self.tune_steps):
                t0 = self.clock()
                outs = _outputs(self._run(cand, args, kwargs))
                synchronize()
                times.append(self.clock() - t0)
            vals = [o.detach().to(float32).numpy().astype(np.float64) if o.dtype.is_floating_point
                    else o.detach().numpy().astype(np.float64) for o in outs]
            if ref is None:
                ref = vals
            else:
                t = TOL[cand]
                # relative to |ref| + the output's RMS: a black-box function's sums have unknown
                # terms, and an element that cancels to ~0 keeps the absolute error of its terms
                worst = max((errors(v, r, None, floor=_rms(r)) for v, r in zip(vals, ref)), key=lambda e: e[1],
                            default=(0, 0, 0))
                if not (worst[0] < t and worst[1] < 10 * t and worst[2] == 0):
                    results[cand] = f"rejected: MERE {worst[0]:.3g}, MARE {worst[1]:.3g} against float32"
                    continue
            med = float(np.median(times))
            results[cand] = med
            if best_t is None or med < best_t:
                best, best_t = cand, med
        self.timings[sig] = results
        return best

    def __call__(self, *args, **kwargs):
        sig = _signature(args, kwargs)
        choice = self.decisions.get(sig)
        if choice not in self.candidates:
            choice = self._tune(sig, args, kwargs)
            self.decisions[sig] = choice
            self._store(sig, choice)
        return self._run(choice, args, kwargs)


def auto_optimize(fn=None, *, precision="fp32", tune_steps=5, cache=None, layout=None):
    """Decorator or wrapper (see the module's text); `fn` may be a function or a Module."""
    if fn is None:
        return lambda f: AutoOptimized(f, precision, tune_steps, cache, layout)
    return AutoOptimized(fn, precision, tune_steps, cache, layout)

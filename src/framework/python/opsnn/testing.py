"""opsnn.testing: the differential tester (issue #17).

    python3 -m opsnn.testing --ops conv2d,softmax --cases 200
    python3 -m opsnn.testing --ops all --dtypes float32,bfloat16 --cases 20
    python3 -m opsnn.testing --ops matmul,add --bench --record base.json   # timing baseline
    python3 -m opsnn.testing --ops matmul,add --bench --compare base.json  # flags regressions

Each case draws random shapes, a dtype and a layout per tensor input (contiguous, transposed,
strided slice, offset view), runs the opsnn op on the views and compares its result with a float64
reference computed from the same (dtype-rounded) inputs: PyTorch 1.13 in float64 where torch is
installed, otherwise numpy where the op has a numpy form. PyTorch's own result in the tested dtype
is measured against the same reference, so the report shows both errors. The acceptance rule is
../shared/spec/precision.md's: over the finite reference elements, the mean relative error < T
and the max < 10 T (T = 2^-13 float32, 2^-10 float16, 2^-7 bfloat16; relative to |ref| + a floor,
1e-7, or for ops that sum many products a share of the output's mean magnitude), and the special
values (NaN, +-inf) in the same places.

Ops: every generated unary op (opsnn._optable.UNARY) with a PyTorch or numpy counterpart, the
floating n-ary ops, and the hand-specified ops below (SPECIAL)."""
import argparse
import json
import math
import sys
import time
import zlib

import numpy as np

from . import _optable
from . import functional as F
from ._tensor import Tensor, as_dtype, bfloat16, float16, float32, from_numpy, no_grad

try:  # PyTorch is the reference where installed (never required)
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

TOL = {"float32": 2.0 ** -13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
LAYOUTS = ("contiguous", "transposed", "strided", "offset")

# Input domains of the unary ops whose function is not defined on all of [-3, 3].
_DOMAIN = {
    "log": (0.05, 5), "log2": (0.05, 5), "log10": (0.05, 5), "sqrt": (0.0, 5), "rsqrt": (0.05, 5),
    "reciprocal": (0.2, 5), "lgamma": (0.1, 5), "digamma": (0.1, 5), "acos": (-0.95, 0.95),
    "asin": (-0.95, 0.95), "atanh": (-0.95, 0.95), "erfinv": (-0.95, 0.95), "acosh": (1.05, 5),
    "log1p": (-0.9, 5), "logit": (0.05, 0.95), "exp": (-3, 3), "expm1": (-3, 3),
}
_NUMPY = {"abs": np.abs, "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "sqrt": np.sqrt,
          "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh,
          "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
          "atanh": np.arctanh, "expm1": np.expm1, "log1p": np.log1p, "neg": np.negative, "floor": np.floor,
          "ceil": np.ceil, "trunc": np.trunc, "sign": np.sign, "reciprocal": np.reciprocal,
          "rsqrt": lambda x: 1 / np.sqrt(x), "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
          "relu": lambda x: np.maximum(x, 0), "add": np.add, "sub": np.subtract, "mul": np.multiply,
          "div": np.divide, "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2,
          "matmul": np.matmul,
          "softmax": lambda x, dim=-1: np.exp(x - x.max(dim, keepdims=True)) /
          np.exp(x - x.max(dim, keepdims=True)).sum(dim, keepdims=True)}


class Spec:
    """One op under test: how to draw a case (tensor inputs as float32 arrays, keyword arguments),
    its opsnn call and its reference forms. sums: the op adds many products (conv, matmul, norms):
    its error is measured against a floor of 2^-10 of the output's mean magnitude."""

    def __init__(self, name, draw, call=None, torch_fn=None, numpy_fn=None, sums=False):
        self.name, self.draw, self.sums = name, draw, sums
        self.call = call or (lambda *a, **k: getattr(F, name)(*a, **k))
        self.torch_fn, self.numpy_fn = torch_fn, numpy_fn


def _torch_named(name):
    if torch is None:
        return None
    for mod in (torch, torch.nn.functional, getattr(torch, "special", None)):
        if mod is not None and callable(getattr(mod, name, None)):
            return getattr(mod, name)
    return None


def _shape(rng, ndim_lo=1, ndim_hi=4, hi=9):
    return tuple(int(v) for v in rng.integers(1, hi, size=int(rng.integers(ndim_lo, ndim_hi + 1))))


def _uniform(rng, shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


# Arguments the ops require (PyTorch has no default for them).
_PARAMS = {"threshold": {"threshold": 0.5, "value": -1.0}}


def _unary_spec(name):
    lo, hi = _DOMAIN.get(name, (-3.0, 3.0))
    return Spec(name, lambda rng: ([_uniform(rng, _shape(rng), lo, hi)], dict(_PARAMS.get(name, {}))),
                torch_fn=_torch_named(name), numpy_fn=_NUMPY.get(name))


def _binary_spec(name, lo=-3.0, hi=3.0):
    def draw(rng):
        s = _shape(rng)
        t = tuple(1 if rng.random() < 0.3 else d for d in s)[int(rng.integers(0, len(s))):]  # broadcast
        return [_uniform(rng, s, lo, hi), _uniform(rng, t or (1,), lo, hi)], {}
    return Spec(name, draw, torch_fn=_torch_named(name), numpy_fn=_NUMPY.get(name))


def _conv2d_draw(rng):
    n, c, g = int(rng.integers(1, 3)), int(rng.integers(1, 5)), 1
    if rng.random() < 0.3:
        g = c
    k = int(rng.integers(1, 4))
    o = g * int(rng.integers(1, 4))
    h, w = int(rng.integers(k, 12)), int(rng.integers(k, 12))
    kw = dict(stride=int(rng.integers(1, 3)), padding=int(rng.integers(0, 2)), groups=g)
    return [_uniform(rng, (n, c, h, w), -1, 1), _uniform(rng, (o, c // g, k, k), -1, 1), _uniform(rng, (o,), -1, 1)], kw


def _matmul_draw(rng):
    m, k, n = (int(v) for v in rng.integers(1, 40, size=3))
    batch = _shape(rng, 0, 2, 4)
    return [_uniform(rng, batch + (m, k), -1, 1), _uniform(rng, (k, n), -1, 1)], {}


def _rows_draw(rng):
    s = _shape(rng, 2, 4, 12)
    return [_uniform(rng, s)], {"dim": int(rng.integers(-len(s), len(s)))}


def _layer_norm_draw(rng):
    s = _shape(rng, 2, 4, 12)
    return [_uniform(rng, s), _uniform(rng, s[-1:], 0.5, 1.5), _uniform(rng, s[-1:], -1, 1)], {}


def _loss_draw(rng):
    s = _shape(rng)
    return [_uniform(rng, s), _uniform(rng, s)], {"reduction": str(rng.choice(["mean", "sum", "none"]))}


def _pool_draw(rng):
    k = int(rng.integers(1, 4))
    s = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(k, 12)), int(rng.integers(k, 12)))
    return [_uniform(rng, s)], {"kernel_size": k, "stride": int(rng.integers(1, 3))}


def _linear_draw(rng):
    x = _uniform(rng, _shape(rng, 1, 3, 20), -1, 1)
    return [x, _uniform(rng, (int(rng.integers(1, 20)), x.shape[-1]), -1, 1)], {}


def _t(name):
    return (lambda *a, **k: getattr(torch.nn.functional, name)(*a, **k)) if torch is not None else None


SPECIAL = {
    "conv2d": Spec("conv2d", _conv2d_draw, torch_fn=_t("conv2d"), sums=True),
    "matmul": Spec("matmul", _matmul_draw, torch_fn=torch.matmul if torch is not None else None,
                   numpy_fn=np.matmul, sums=True),
    "linear": Spec("linear", _linear_draw, torch_fn=_t("linear"), sums=True),
    "softmax": Spec("softmax", _rows_draw, torch_fn=torch.softmax if torch is not None else None,
                    numpy_fn=_NUMPY["softmax"]),
    "log_softmax": Spec("log_softmax", _rows_draw, torch_fn=torch.log_softmax if torch is not None else None),
    "layer_norm": Spec("layer_norm", _layer_norm_draw,
                       call=lambda x, w, b: F.layer_norm(x, [x.shape[-1]], w, b),
                       torch_fn=(lambda x, w, b: torch.nn.functional.layer_norm(x, [x.shape[-1]], w, b))
                       if torch is not None else None, sums=True),
    "mse_loss": Spec("mse_loss", _loss_draw, torch_fn=_t("mse_loss"), sums=True),
    "l1_loss": Spec("l1_loss", _loss_draw, torch_fn=_t("l1_loss"), sums=True),
    "sum": Spec("sum", _rows_draw, torch_fn=torch.sum if torch is not None else None,
                numpy_fn=lambda x, dim: x.sum(dim), sums=True),
    "mean": Spec("mean", _rows_draw, torch_fn=torch.mean if torch is not None else None,
                 numpy_fn=lambda x, dim: x.mean(dim), sums=True),
    "max_pool2d": Spec("max_pool2d", _pool_draw, torch_fn=_t("max_pool2d")),
    "avg_pool2d": Spec("avg_pool2d", _pool_draw, torch_fn=_t("avg_pool2d"), sums=True),
}

_FLOAT_NARY = ["add", "sub", "mul", "div", "maximum", "minimum", "atan2"]


def all_specs():
    specs = {}
    for name in sorted(_optable.UNARY):
        spec = _unary_spec(name)
        if spec.torch_fn is not None or spec.numpy_fn is not None:
            specs[name] = spec
    for name in _FLOAT_NARY:
        if name in _optable.NARY:
            specs[name] = _binary_spec(name)
    specs.update(SPECIAL)
    return specs


# ---------------------------------------------------------------------------------------------
# One case

def _rounded(a, dtype):
    """The float32 array rounded to dtype (what the op is given), as float64."""
    if dtype is float32:
        return a.astype(np.float64)
    return from_numpy(a).to(dtype).to(float32).numpy().astype(np.float64)


def _view(a, dtype, layout, rng):
    """An opsnn tensor equal to `a` (rounded to dtype) laid out as `layout`."""
    if a.ndim == 0 or layout == "contiguous":
        return from_numpy(a).to(dtype)
    if layout == "transposed" and a.ndim >= 2:
        return from_numpy(np.ascontiguousarray(np.swapaxes(a, -1, -2))).to(dtype).transpose(-1, -2)
    if layout == "strided":
        big = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), np.float32)
        big[..., ::2] = a
        return F.getitem(from_numpy(big).to(dtype), (Ellipsis, slice(None, None, 2)))
    pad = int(rng.integers(1, 5))  # "offset": a view starting inside its storage
    flat = np.concatenate([np.zeros(pad, np.float32), a.reshape(-1)])
    return F.getitem(from_numpy(flat).to(dtype), slice(pad, None)).reshape(*a.shape)


def errors(out, ref, dtype, sums=False, floor=None):
    """(mean relative error, max relative error, special-value mismatches) of out against ref;
    relative to |ref| + a floor: `floor` if given, else 1e-7 (sums: 2^-10 of the mean magnitude)."""
    out = np.asarray(out, np.float64).reshape(ref.shape)
    special = ~np.isfinite(ref)
    bad = int(np.sum(special & ~((np.isnan(ref) & np.isnan(out)) | (ref == out))))
    fin = ~special
    if not fin.any():
        return 0.0, 0.0, bad
    bad += int(np.sum(~np.isfinite(out[fin])))
    if floor is None:
        floor = 1e-7
        if sums:
            floor = max(floor, 2.0 ** -10 * float(np.mean(np.abs(ref[fin]))))
    rel = np.abs(out[fin] - ref[fin]) / (np.abs(ref[fin]) + floor)
    rel = np.where(np.isfinite(rel), rel, 1e30)
    return float(rel.mean()), float(rel.max()), bad


def run_case(spec, dtype, rng, reference="auto"):
    """One random case: a dict with the shapes, layouts, and the errors of opsnn (and torch).
    reference: "auto" (torch float64 where installed, else numpy), "numpy" or "torch"."""
    use_torch = spec.torch_fn is not None and reference in ("auto", "torch")
    if reference == "torch" and not use_torch:
        raise ValueError(f"{spec.name}: no PyTorch reference (python3-torch installed? a counterpart?)")
    arrays, kw = spec.draw(rng)
    layouts = [str(rng.choice(LAYOUTS)) for _ in arrays]
    rounded = [_rounded(a, dtype) for a in arrays]
    case = {"shapes": [list(a.shape) for a in arrays], "layouts": layouts, "kwargs": kw, "dtype": dtype.name}
    if use_torch:
        ref = spec.torch_fn(*[torch.from_numpy(r) for r in rounded], **kw).numpy()
        case["reference"] = "torch float64"
    elif spec.numpy_fn is not None:
        ref = np.asarray(spec.numpy_fn(*rounded, **kw), np.float64)
        case["reference"] = "numpy float64"
    else:
        raise ValueError(f"{spec.name}: no reference (install python3-torch)")
    with no_grad():
        got = spec.call(*[_view(a, dtype, lay, rng) for a, lay in zip(arrays, layouts)], **kw)
    got = got.to(float32).numpy() if isinstance(got, Tensor) else np.asarray(got)
    case["mere"], case["mare"], case["special"] = errors(got, np.asarray(ref, np.float64), dtype, spec.sums)
    t = TOL[dtype.name]
    case["ok"] = case["mere"] < t and case["mare"] < 10 * t and case["special"] == 0
    if use_torch:  # PyTorch's own error in this dtype, for scale
        tdt = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype.name]
        try:
            theirs = spec.torch_fn(*[torch.from_numpy(r).to(tdt) for r in rounded], **kw).double().numpy()
            case["torch_mare"] = errors(theirs, np.asarray(ref, np.float64), dtype, spec.sums)[1]
        except RuntimeError:  # an op PyTorch 1.13 does not have for this dtype on the CPU
            case["torch_mare"] = None
    return case


def check_op(spec, dtypes, cases, seed=0, reference="auto"):
    """Runs `cases` cases per dtype; returns the list of case dicts (errors raised by the op count
    as failures with their message)."""
    out = []
    for dtype in dtypes:
        rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode()), list(TOL).index(dtype.name)])
        for _ in range(cases):
            try:
                out.append(run_case(spec, dtype, rng, reference))
            except Exception as e:  # noqa: BLE001 - a report, not a crash
                out.append({"dtype": dtype.name, "ok": False, "error": f"{type(e).__name__}: {e}"})
    return out


# ---------------------------------------------------------------------------------------------
# Timing baselines

def bench_op(spec, dtype=float32, reps=30, seed=0):
    """Median seconds of one call on a fixed case of the op (the first case the seed draws)."""
    rng = np.random.default_rng(seed)
    arrays, kw = spec.draw(rng)
    args = [from_numpy(a).to(dtype) for a in arrays]
    from . import synchronize
    times = []
    with no_grad():
        for _ in range(reps + 3):
            t0 = time.perf_counter()
            spec.call(*args, **kw)
            synchronize()
            times.append(time.perf_counter() - t0)
    return float(np.median(times[3:]))


def report(results, file=None):
    """Prints one line per (op, dtype): cases, failures, worst errors (ours, PyTorch's); returns
    the number of failing cases."""
    file = file or sys.stdout
    print(f"{'op':<16} {'dtype':<9} {'cases':>5} {'fail':>4} {'max MERE/T':>10} {'max MARE/T':>10} "
          f"{'torch MARE/T':>12}  reference", file=file)
    failed = 0
    for name, cases in results.items():
        for dname in dict.fromkeys(c["dtype"] for c in cases):
            cs = [c for c in cases if c["dtype"] == dname]
            t = TOL[dname]
            bad = [c for c in cs if not c["ok"]]
            failed += len(bad)
            mere = max((c.get("mere", math.inf) for c in cs), default=0) / t
            mare = max((c.get("mare", math.inf) for c in cs), default=0) / t
            tm = [c["torch_mare"] for c in cs if c.get("torch_mare") is not None]
            tms = f"{max(tm) / t:12.3g}" if tm else f"{'-':>12}"
            ref = next((c["reference"] for c in cs if "reference" in c), "-")
            print(f"{name:<16} {dname:<9} {len(cs):5d} {len(bad):4d} {mere:10.3g} {mare:10.3g} {tms}  {ref}", file=file)
            for c in bad[:3]:
                print(f"    FAIL {json.dumps({k: v for k, v in c.items() if k != 'ok'}, default=str)}", file=file)
    print(f"{failed} failing case(s)", file=file)
    return failed


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m opsnn.testing", description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default="all", help="comma-separated op names, or 'all' (see --list)")
    ap.add_argument("--cases", type=int, default=20, help="random cases per op and dtype")
    ap.add_argument("--dtypes", default="float32,float16,bfloat16")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reference", choices=["auto", "torch", "numpy"], default="auto",
                    help="float64 reference: torch where installed (auto), or numpy (ops with a numpy form)")
    ap.add_argument("--list", action="store_true", help="print the ops that can be tested and exit")
    ap.add_argument("--bench", action="store_true", help="time each op (median of 30 calls, float32)")
    ap.add_argument("--record", help="with --bench: write the medians to this JSON file")
    ap.add_argument("--compare", help="with --bench: compare with a recorded JSON file")
    ap.add_argument("--threshold", type=float, default=1.25, help="slower than baseline by this factor: a regression")
    args = ap.parse_args(argv)
    specs = all_specs()
    if args.reference == "numpy":
        specs = {n: sp for n, sp in specs.items() if sp.numpy_fn is not None}
    if args.list:
        print(" ".join(sorted(specs)))
        return 0
    names = sorted(specs) if args.ops == "all" else [n.strip() for n in args.ops.split(",") if n.strip()]
    unknown = [n for n in names if n not in specs]
    if unknown:
        print(f"unknown op(s): {', '.join(unknown)} (--list shows the ops)", file=sys.stderr)
        return 2
    if args.bench:
        times = {n: bench_op(specs[n]) for n in names}
        base = json.load(open(args.compare)) if args.compare else {}
        slower = 0
        for n, t in times.items():
            b = base.get(n)
            ratio = t / b if b else None
            flag = "  REGRESSION" if ratio is not None and ratio > args.threshold else ""
            slower += bool(flag)
            print(f"{n:<16} {t * 1e6:10.1f} us" + (f"  baseline {b * 1e6:10.1f} us  x{ratio:.2f}{flag}" if b else ""))
        if args.record:
            with open(args.record, "w") as f:
                json.dump(times, f, indent=1)
        return 1 if slower else 0
    dtypes = [as_dtype(d.strip()) for d in args.dtypes.split(",")]
    results = {n: check_op(specs[n], dtypes, args.cases, args.seed, args.reference) for n in names}
    return 1 if report(results) else 0


if __name__ == "__main__":
    sys.exit(main())

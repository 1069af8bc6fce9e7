"""opsnn.functional: the aclnn ops by their PyTorch names.

The element-wise families are generated from the op tables (opsnn._optable, written by
tools/gen_framework.py from src/ops/*/*.ops): every unary math / activation op and every n-ary
op (add, mul, pow, eq, where, ...) becomes a function here that infers the output (broadcast
shape, torch.result_type and the table's `result` rule), picks the variant of the call (tensor or
scalar operands, in-place twin) and calls the generated binding opsnn._C.aclnn.<Name>. Ops of
other families (matmul, softmax, reductions, losses) have their output rule written here and call
their generated binding the same way. Gradients: the aclnn backward ops where they exist
(ThresholdBackward, SigmoidBackward, GeluBackward, SoftmaxBackward, MseLossBackward,
CrossEntropyLossGrad, ...), compositions otherwise."""
import builtins
import re

import numpy as np

from . import _C, _optable
from ._tensor import (Tensor, DType, DTYPES, as_dtype, bfloat16, bool_, float16, float32, int32, int64, int8,  # noqa: F401
                      result_type, scalar_dtype, zeros, ones, empty, full, tensor, from_numpy, zeros_like,
                      ones_like, _parse_index, _apply_index, is_grad_enabled)
from .autograd import record
from .amp import low_precision, float32_op, _State as _amp_state

_py_bool, _py_int, _py_float = builtins.bool, builtins.int, builtins.float
_NUMBER = (_py_bool, _py_int, _py_float, np.number, np.bool_)

__all__ = []


def _h(x):
    return x._t if isinstance(x, Tensor) else x


_BINDINGS = {}  # api -> its generated binding (a module attribute lookup per call costs more)


def call(api, *args):
    """Call aclnn<api> through its generated binding (tensors are opsnn.Tensor or None)."""
    fn = _BINDINGS.get(api)
    if fn is None:
        fn = _BINDINGS[api] = getattr(_C.aclnn, api)
    fn(*[_binding_arg(a) for a in args])


def _binding_arg(a):
    """A call argument as the binding takes it: tensors and the tensors of a list (an aclTensorList)
    as their C++ tensors; numbers, strings and int lists unchanged."""
    if isinstance(a, Tensor):
        return a._t
    if isinstance(a, list):
        return [x._t if isinstance(x, Tensor) else x for x in a]
    return a


def _new(shape, dtype):
    return Tensor(_C.empty(list(shape), dtype.code if type(dtype) is DType else as_dtype(dtype).code))


def _is_number(x):
    return isinstance(x, _NUMBER)


def _broadcast(shapes):
    first = shapes[0]
    if all(s == first for s in shapes):  # the common case, without numpy's general rule
        return tuple(first)
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        return tuple(shapes[0])  # the op's phase 1 reports the mismatch with its message


def _check_leaf_inplace(t):
    if is_grad_enabled() and t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


# ---------------------------------------------------------------------------------------------
# Views and copies (no computation; the backward of a view is the inverse view / a reduction)

def reshape(x, *shape):
    shape = _shape(shape)
    out = Tensor(x._t.reshape(shape))
    return record(out, [x], "ReshapeBackward", lambda g: reshape(g, *x.shape))


def view(x, *shape):
    shape = _shape(shape)
    out = Tensor(x._t.view(shape))
    return record(out, [x], "ViewBackward", lambda g: reshape(g, *x.shape))


def permute(x, *dims):
    dims = _shape(dims)
    out = Tensor(x._t.permute(dims))
    inv = list(np.argsort([d % max(x.dim(), 1) for d in dims])) if dims else []
    return record(out, [x], "PermuteBackward", lambda g: permute(g, *[_py_int(i) for i in inv]))


def transpose(x, d0, d1):
    out = Tensor(x._t.transpose(d0, d1))
    return record(out, [x], "TransposeBackward", lambda g: transpose(g, d0, d1))


def t(x):
    if x.dim() > 2:
        raise RuntimeError("t() expects a tensor with <= 2 dimensions")
    return transpose(x, 0, 1) if x.dim() == 2 else x


def unsqueeze(x, dim):
    out = Tensor(x._t.unsqueeze(dim))
    return record(out, [x], "UnsqueezeBackward", lambda g: reshape(g, *x.shape))


def squeeze(x, dim=None):
    if dim is None:
        out = Tensor(x._t.reshape([s for s in x.shape if s != 1]))
    else:
        out = Tensor(x._t.squeeze(dim))
    return record(out, [x], "SqueezeBackward", lambda g: reshape(g, *x.shape))


def expand(x, *shape):
    shape = _shape(shape)
    out = Tensor(x._t.expand(shape))
    return record(out, [x], "ExpandBackward", lambda g: g)  # the engine sums g down to x.shape


def flatten(x, start_dim=0, end_dim=-1):
    if x.dim() == 0:
        return reshape(x, 1)
    s, e = start_dim % x.dim(), end_dim % x.dim()
    shape = list(x.shape[:s]) + [int(np.prod(x.shape[s:e + 1]))] + list(x.shape[e + 1:])
    return reshape(x, *shape)


def getitem(x, idx):
    ops = _parse_index(x, idx)
    out = Tensor(_apply_index(x._t, ops))

    def back(g):
        z = zeros(*x.shape, dtype=g.dtype)
        Tensor(_apply_index(z._t, ops))._t.copy_(g._t)
        return z
    return record(out, [x], "SliceBackward", back)


def setitem(x, idx, value):
    _check_leaf_inplace(x)
    dst = Tensor(_apply_index(x._t, _parse_index(x, idx)))
    if isinstance(value, Tensor):
        dst._t.copy_(value._t)
    else:
        dst._t.fill_(_py_float(value))


def contiguous(x):
    out = Tensor(x._t.contiguous())
    if out._t is x._t:
        return x
    return record(out, [x], "CloneBackward", lambda g: g)


def clone(x):
    return record(Tensor(x._t.clone()), [x], "CloneBackward", lambda g: g)


def to(x, dtype):
    d = as_dtype(dtype)
    if d is x.dtype:
        return x
    out = Tensor(x._t.to(d.code))
    if not d.is_floating_point:
        return out
    return record(out, [x], "ToCopyBackward", lambda g: to(g, x.dtype))


def _shape(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return [_py_int(s) for s in shape]


def sum_to(g, shape):
    """g summed over the dims broadcasting added or expanded, to `shape` (autograd's reduction)."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1]
    r = sum(g, dims, keepdim=True) if dims else g
    return reshape(r, *shape)


# ---------------------------------------------------------------------------------------------
# Unary element-wise ops (generated from the unary tables)

# PyTorch's keyword names / defaults of the table parameters.
_UNARY_KW = {"negative_slope": "negativeSlope", "min_val": "clipValueMin", "max_val": "clipValueMax",
             "min": "clipValueMin", "max": "clipValueMax"}
_UNARY_DEFAULTS = {
    "leaky_relu": {"negativeSlope": 0.01}, "elu": {"alpha": 1.0, "scale": 1.0, "inputScale": 1.0},
    "celu": {"alpha": 1.0}, "softplus": {"beta": 1.0, "threshold": 20.0},
    "hardtanh": {"clipValueMin": -1.0, "clipValueMax": 1.0}, "hardshrink": {"lambd": 0.5},
    "softshrink": {"lambd": 0.5}, "round": {}, "swish": {"scale": 1.0},
    "logit": {"eps": -1.0},  # torch.logit's eps=None: no clamping (the op's eps < 0)
}


def _camel(name):
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def _unary_values(name, v, args, kwargs):
    names = [p for p, k in v["params"] if p not in (v["input"], v["output"])]
    vals = dict(_UNARY_DEFAULTS.get(name, {}))
    if len(args) > len(names):
        return None
    for n, val in zip(names, args):
        if val is not None or n not in vals:  # None: PyTorch's "not given", the default
            vals[n] = val
    for k, val in kwargs.items():
        key = _UNARY_KW.get(k, _camel(k))
        if val is not None or key not in vals:
            vals[key] = val
    if set(vals) - set(names) or any(n not in vals for n in names):
        return None
    return vals


def _make_unary(name, variants):
    plain = [(v, vals) for v in variants for vals in [_unary_values(name, v, (), {})] if vals is not None][:1]

    def fn(input, *args, out=None, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be an opsnn.Tensor, not {type(input).__name__}")
        if not args and not kwargs and plain:  # the defaults' choice, made once (vals is only read)
            v, vals = plain[0]
        else:
            for v in variants:
                vals = _unary_values(name, v, args, kwargs)
                if vals is not None:
                    break
            else:
                raise TypeError(f"{name}(): no variant takes these arguments (variants: "
                                f"{', '.join(v['api'] + str([p for p, _ in v['params']]) for v in variants)})")
        d = input.dtype
        if v["result"] == "float" and not d.is_floating_point:
            d = float32
        res = out if out is not None else _new(input.shape, d)
        argv = [input if p == v["input"] else res if p == v["output"] else vals[p] for p, _ in v["params"]]
        call(v["api"], *argv)
        grad = _UNARY_GRADS.get(name if v["api"] != "GeluV2" else "gelu_v2")
        if grad is None or out is not None:
            return res
        return record(res, [input], v["api"] + "Backward", lambda g: grad(g, input, res, vals))

    def inplace(input, *args, **kwargs):
        _check_leaf_inplace(input)
        for v in variants:
            vals = _unary_values(name, v, args, kwargs)
            if vals is not None and v["inplace"]:
                break
        else:
            raise TypeError(f"{name}_(): no in-place variant takes these arguments")
        argv = [input] + [vals[p] for p, _ in v["params"] if p not in (v["input"], v["output"])]
        call(v["inplace"], *argv)
        return input

    fn.__name__ = name
    fn.__doc__ = f"{name}(input, ...): aclnn " + ", ".join(v["api"] for v in variants) + " (generated from the op tables)"
    inplace.__name__ = name + "_"
    return fn, inplace


def _tanh_grad(g, y):
    """g (1 - y^2) as g - (g y) y: Mul, then Addcmul, through the bindings (g has y's shape)."""
    code, shape = result_type(g, y).code, list(y.shape)
    gy, r = _C.empty(shape, code), _C.empty(shape, code)
    _C.aclnn.Mul(g._t, y._t, gy)
    _C.aclnn.Addcmul(g._t, gy, y._t, -1.0, r)
    return Tensor(r)


def _bw(api, shape_of, *args):
    res = _new(shape_of.shape, args[0].dtype)
    call(api, *args, res)
    return res


_UNARY_GRADS = {
    "relu": lambda g, x, y, p: _bw("ThresholdBackward", x, g, x, 0.0),
    "sigmoid": lambda g, x, y, p: _bw("SigmoidBackward", x, g, y),
    "gelu": lambda g, x, y, p: _bw("GeluBackward", x, g, x),
    "silu": lambda g, x, y, p: _bw("SiluBackward", x, g, x),
    "mish": lambda g, x, y, p: _bw("MishBackward", x, g, x),
    "hardswish": lambda g, x, y, p: _bw("HardswishBackward", x, g, x),
    "hardsigmoid": lambda g, x, y, p: _bw("HardsigmoidBackward", x, g, x),
    "selu": lambda g, x, y, p: _bw("SeluBackward", x, g, y),
    "leaky_relu": lambda g, x, y, p: _bw("LeakyReluBackward", x, g, x, p["negativeSlope"], False),
    "softplus": lambda g, x, y, p: _bw("SoftplusBackward", x, g, x, p["beta"], p["threshold"]),
    "hardtanh": lambda g, x, y, p: _bw("HardtanhBackward", x, g, x, p["clipValueMin"], p["clipValueMax"]),
    "elu": lambda g, x, y, p: _bw("EluBackward", x, g, p["alpha"], p["scale"], p["inputScale"], False, x),
    "softshrink": lambda g, x, y, p: _bw("SoftshrinkBackward", x, g, x, p["lambd"]),
    "hardshrink": lambda g, x, y, p: _bw("HardshrinkBackward", x, g, x, p["lambd"]),
    "tanh": lambda g, x, y, p: _tanh_grad(g, y),
    "exp": lambda g, x, y, p: mul(g, y),
    "expm1": lambda g, x, y, p: mul(g, add(y, 1)),
    "log": lambda g, x, y, p: div(g, x),
    "log1p": lambda g, x, y, p: div(g, add(x, 1)),
    "sqrt": lambda g, x, y, p: div(mul(g, 0.5), y),
    "rsqrt": lambda g, x, y, p: mul(mul(g, -0.5), mul(y, mul(y, y))),
    "reciprocal": lambda g, x, y, p: mul(neg(g), mul(y, y)),
    "neg": lambda g, x, y, p: neg(g),
    "abs": lambda g, x, y, p: mul(g, sign(x)),
    "sin": lambda g, x, y, p: mul(g, cos(x)),
    "cos": lambda g, x, y, p: neg(mul(g, sin(x))),
    "square": lambda g, x, y, p: mul(g, mul(x, 2.0)),
    "erf": lambda g, x, y, p: mul(g, mul(exp(neg(mul(x, x))), 1.1283791670955126)),
    "logsigmoid": lambda g, x, y, p: mul(g, sigmoid(neg(x))),
}
for _n in ("floor", "ceil", "trunc", "round", "sign", "frac"):
    _UNARY_GRADS[_n] = (lambda g, x, y, p: zeros_like(g)) if _n != "frac" else (lambda g, x, y, p: g)

UNARY_OPS = sorted(_optable.UNARY)
for _name, _variants in _optable.UNARY.items():
    globals()[_name], globals()[_name + "_"] = _make_unary(_name, _variants)
    __all__ += [_name, _name + "_"]


# ---------------------------------------------------------------------------------------------
# n-ary element-wise ops (generated from the n-ary tables)

_NARY_PARAM_KW = {"alpha": "alpha", "value": "value"}


_PICKED = {}  # (variants, operand kinds, attribute names) -> (variant, numbers to wrap): the choice per call site


def _pick_nary(name, variants, operands, attrs):
    kinds = tuple("tensor" if isinstance(o, Tensor) else "scalar" if _is_number(o) else None for o in operands)
    key = (id(variants), kinds, tuple(attrs))
    hit = _PICKED.get(key)
    if hit is not None:
        v, wrap = hit
        return v, (_wrap_numbers(operands) if wrap else operands)
    v, wrap = _choose_nary(name, variants, list(kinds), operands, attrs)
    _PICKED[key] = (v, wrap)
    return v, (_wrap_numbers(operands) if wrap else operands)


def _wrap_numbers(operands):
    return [o if isinstance(o, Tensor) else full((), o, dtype=scalar_dtype(o)) for o in operands]


def _choose_nary(name, variants, kinds, operands, attrs):
    if None in kinds:
        bad = next(o for o in operands if not isinstance(o, Tensor) and not _is_number(o))
        raise TypeError(f"{name}(): operands must be opsnn.Tensor or numbers, got {type(bad).__name__}")
    usable = [v for v in variants if len(v["operands"]) == len(operands) and set(v["attrs"]) == set(attrs)]
    for v in usable:  # exact kinds first
        if [k for _, k in v["operands"]] == kinds:
            return v, False
    for v in usable:  # numbers in tensor slots become 0-dim tensors (torch's wrapped numbers)
        vk = [k for _, k in v["operands"]]
        if all(k == "tensor" or vk[i] == "tensor" for i, k in enumerate(kinds)) and \
                all(not (k == "tensor" and vk[i] == "scalar") for i, k in enumerate(kinds)):
            return v, True
    raise TypeError(f"{name}(): no variant takes operands ({', '.join(kinds)})"
                    f"{' with ' + ', '.join(attrs) if attrs else ''}")


_OUT, _PARAM = object(), object()  # argument slots of a variant's prototype besides operands and attributes


class _NaryPlan:
    """What a variant's call needs, worked out once: its bindings (op, in-place twin), where each
    prototype argument comes from (an operand index, the output, the parameter, an attribute
    name), the operands that take part in promotion and the result rule when it does not depend
    on an attribute."""
    __slots__ = ("fn", "inplace_fn", "slots", "promo", "rule")

    def __init__(self, v):
        self.fn = getattr(_C.aclnn, v["api"])
        self.inplace_fn = getattr(_C.aclnn, v["inplace"], None) if v["inplace"] else None
        operand_index = {n: i for i, (n, _) in enumerate(v["operands"])}
        self.slots = tuple(_OUT if p == v["output"] else _PARAM if p == v["param"] else operand_index.get(p, p)
                           for p, _ in v["params"])
        self.promo = tuple(i for i, (n, _) in enumerate(v["operands"]) if n not in v["nopromote"])
        self.rule = v["rules"]["*"]["result"] if "*" in v["rules"] else None


_PLANS = {}  # id(variant) -> _NaryPlan (the variants are the module-lifetime _optable entries)


def _plan(v):
    plan = _PLANS.get(id(v))
    if plan is None:
        plan = _PLANS[id(v)] = _NaryPlan(v)
    return plan


def _nary_result(v, plan, operands, attrs):
    rule = plan.rule
    if rule is None:
        r = v["rules"].get(str(attrs.get(v["kernel_attr"])))
        rule = (r if r is not None else next(iter(v["rules"].values())))["result"]  # (a rejected value: phase 1 says so)
    d = result_type(*[operands[i] for i in plan.promo])
    if rule == "float" and not d.is_floating_point:
        d = float32
    elif rule == "bool":
        d = bool_
    return d


def _nary_args(plan, ops, res, param, attrs):
    """The binding's arguments in prototype order (tensors as their handles)."""
    argv = []
    for s in plan.slots:
        if s.__class__ is _py_int:
            o = ops[s]
            argv.append(o._t if isinstance(o, Tensor) else o)
        elif s is _OUT:
            if res is not None:
                argv.append(res._t)
        elif s is _PARAM:
            argv.append(param)
        else:
            argv.append(attrs[s])
    return argv


def _run_nary(name, variants, operands, param, attrs, out=None):
    v, ops = _pick_nary(name, variants, operands, attrs)
    plan = _plan(v)
    if out is None:
        shape = _broadcast([o.shape for o in ops if isinstance(o, Tensor)])
        out = Tensor(_C.empty(list(shape), _nary_result(v, plan, ops, attrs).code))
    plan.fn(*_nary_args(plan, ops, out, param, attrs))
    return v, ops, out


def _run_nary_inplace(name, inplace_variants, operands, param, attrs):
    self = operands[0]
    _check_leaf_inplace(self)
    v, ops = _pick_nary(name, inplace_variants, operands, attrs)
    plan = _plan(v)
    plan.inplace_fn(*_nary_args(plan, ops, None, param, attrs))
    return self


def _make_nary(name, variants):
    pname = next((v["param"] for v in variants if v["param"]), None)
    inplace_variants = [v for v in variants if v["inplace"]]  # one list: _pick_nary's memo keys on it

    def split(kwargs):
        if not kwargs:
            return (1 if pname else None), {}
        param = kwargs.pop(pname, 1) if pname else None
        attrs = {k: kwargs.pop(k) for k in list(kwargs) if any(k in v["attrs"] for v in variants)}
        if kwargs:
            raise TypeError(f"{name}(): unexpected keyword arguments {sorted(kwargs)}")
        return param, attrs

    def fn(*operands, out=None, **kwargs):
        param, attrs = split(kwargs)
        v, ops, res = _run_nary(name, variants, list(operands), param, attrs, out)
        grad = _NARY_GRADS.get(name)
        if grad is None or out is not None or not res.dtype.is_floating_point:
            return res
        return record(res, ops, v["api"] + "Backward", lambda g: grad(g, ops, res, param))

    def inplace(*operands, **kwargs):
        param, attrs = split(kwargs)
        return _run_nary_inplace(name, inplace_variants, list(operands), param, attrs)

    fn.__name__, inplace.__name__ = name, name + "_"
    fn.__doc__ = f"{name}(...): aclnn " + ", ".join(v["api"] for v in variants) + " (generated from the op tables)"
    return fn, inplace


def _t_only(x, f):
    return f() if isinstance(x, Tensor) and x.requires_grad else None


def _pow_grad(g, o, y):
    x, e = o
    gx = _t_only(x, lambda: mul(g, mul(pow(x, e - 1) if _is_number(e) else pow(x, sub(e, 1)), e)))
    ge_ = _t_only(e, lambda: mul(g, mul(y, log(x) if isinstance(x, Tensor) else _py_float(np.log(x)))))
    return gx, ge_


_NARY_GRADS = {
    "add": lambda g, o, y, a: (_t_only(o[0], lambda: g), _t_only(o[1], lambda: g if a in (None, 1) else mul(g, a))),
    "sub": lambda g, o, y, a: (_t_only(o[0], lambda: g),
                               _t_only(o[1], lambda: neg(g) if a in (None, 1) else mul(g, -a))),
    "mul": lambda g, o, y, a: (_t_only(o[0], lambda: mul(g, o[1])), _t_only(o[1], lambda: mul(g, o[0]))),
    "div": lambda g, o, y, a: (_t_only(o[0], lambda: div(g, o[1])),
                               _t_only(o[1], lambda: neg(div(mul(g, y), o[1])))),
    "pow": lambda g, o, y, a: _pow_grad(g, o, y),
    "where": lambda g, o, y, a: (None, _t_only(o[1], lambda: where(o[0], g, 0.0)),
                                 _t_only(o[2], lambda: where(o[0], 0.0, g))),
    "maximum": lambda g, o, y, a: (_t_only(o[0], lambda: mul(g, to(ge(o[0], o[1]), g.dtype))),
                                   _t_only(o[1], lambda: mul(g, to(lt(o[0], o[1]), g.dtype)))),
    "minimum": lambda g, o, y, a: (_t_only(o[0], lambda: mul(g, to(le(o[0], o[1]), g.dtype))),
                                   _t_only(o[1], lambda: mul(g, to(gt(o[0], o[1]), g.dtype)))),
}

NARY_OPS = sorted(_optable.NARY)
for _name, _variants in _optable.NARY.items():
    globals()[_name], globals()[_name + "_"] = _make_nary(_name, _variants)
    __all__ += [_name, _name + "_"]

_gelu_table, _gelu_table_ = gelu, gelu_  # noqa: F821 (generated above: aclnnGelu is the tanh form)


def gelu(input, approximate="none"):  # noqa: F811
    """gelu(input, approximate='none'|'tanh'): PyTorch's GELU, aclnnGeluV2 (erf or tanh form;
    gradient: aclnnGeluBackwardV2)."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate argument must be either none or tanh (got {approximate!r})")
    res = _new(input.shape, input.dtype)
    call("GeluV2", input, 0 if approximate == "none" else 1, res)

    def back(g):
        r = _new(input.shape, g.dtype)
        call("GeluBackwardV2", g, input, approximate, r)
        return r
    return record(res, [input], "GeluBackward", back)


_div_generated = div  # noqa: F821 (generated above)


def div(input, other, rounding_mode=None, out=None):  # noqa: F811
    """div(input, other, rounding_mode=None|'trunc'|'floor'): aclnnDiv(s) / aclnnDivMod(s)."""
    if rounding_mode is None:
        return _div_generated(input, other, out=out)
    modes = {"trunc": 1, "floor": 2}
    if rounding_mode not in modes:
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    return _div_generated(input, other, mode=modes[rounding_mode], out=out)


def clamp(input, min=None, max=None):  # noqa: A002
    """clamp(input, min=None, max=None) with number bounds: aclnnClamp (its optional operands
    choose clamp / clamp_min / clamp_max; the n-ary table row has them, so it is written here)."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of 'min' or 'max' must not be None")
    res = _new(input.shape, result_type(*[o for o in (input, min, max) if o is not None]))
    call("Clamp", input, min, max, res)

    def back(g):
        keep = ones_like(input, dtype=g.dtype)
        if min is not None:
            keep = mul(keep, to(ge(input, min), g.dtype))
        if max is not None:
            keep = mul(keep, to(le(input, max), g.dtype))
        return mul(g, keep)
    return record(res, [input], "ClampBackward", back)


def rsub(input, other):
    """other - input."""
    return sub(other, input)  # noqa: F821


# ---------------------------------------------------------------------------------------------
# Reductions (aclnnReduceSum, aclnnMean)

def _reduce_dims(x, dim):
    if dim is None:
        return list(range(x.dim()))
    dims = [dim] if isinstance(dim, (_py_int, np.integer)) else list(dim)
    return [_py_int(d) for d in dims]


def _reduced_shape(x, dims, keepdim):
    nd = max(x.dim(), 1)
    norm = {d % nd for d in dims} if x.dim() else set()
    return [1 if i in norm else s for i, s in enumerate(x.shape)] if keepdim else \
        [s for i, s in enumerate(x.shape) if i not in norm]


def _expand_back(g, x, dims, keepdim):
    if not keepdim and x.dim():
        for d in sorted(d % x.dim() for d in dims):
            g = unsqueeze(g, d)
    return expand(g, *x.shape)


@float32_op
def sum(input, dim=None, keepdim=False, dtype=None):  # noqa: A001
    """sum(input, dim=None, keepdim=False, dtype=None): aclnnReduceSum; integers and bool sum in int64."""
    dims = _reduce_dims(input, dim)
    d = as_dtype(dtype) if dtype is not None else (input.dtype if input.dtype.is_floating_point else int64)
    res = _new(_reduced_shape(input, dims, keepdim), d)
    call("ReduceSum", input, dims, keepdim, d.code, res)
    return record(res, [input], "SumBackward", lambda g: _expand_back(g, input, dims, keepdim))


@float32_op
def mean(input, dim=None, keepdim=False, dtype=None):
    """mean(input, dim=None, keepdim=False, dtype=None): aclnnMean."""
    dims = _reduce_dims(input, dim)
    d = as_dtype(dtype) if dtype is not None else input.dtype
    res = _new(_reduced_shape(input, dims, keepdim), d)
    call("Mean", input, dims, keepdim, d.code, res)
    n = _py_int(np.prod([input.shape[x % input.dim()] for x in dims])) if input.dim() else 1
    return record(res, [input], "MeanBackward", lambda g: _expand_back(div(g, float(max(n, 1))), input, dims, keepdim))


# ---------------------------------------------------------------------------------------------
# Matmul family, softmax, losses

@low_precision
def matmul(input, other):
    """matmul(input, other): aclnnMatmul with numpy's broadcasting rules (1-D operands included)."""
    a, b = input.shape, other.shape
    if not a or not b:
        raise RuntimeError("both arguments to matmul need to be at least 1D")
    if len(a) == 2 and len(b) == 2:
        shape = (a[0], b[1])
    elif len(a) == 1 and len(b) == 1:
        shape = ()
    elif len(b) == 1:
        shape = tuple(a[:-1])
    elif len(a) == 1:
        shape = tuple(b[:-2]) + (b[-1],)
    else:
        shape = _broadcast([a[:-2], b[:-2]]) + (a[-2], b[-1])
    res = _new(shape, result_type(input, other))
    call("Matmul", input, other, res, 0)

    def back(g):
        ga = gb = None
        x = input if input.dim() > 1 else unsqueeze(input, 0)
        w = other if other.dim() > 1 else unsqueeze(other, -1)
        gg = g
        if input.dim() == 1:
            gg = unsqueeze(gg, -2)
        if other.dim() == 1:
            gg = unsqueeze(gg, -1)
        if input.requires_grad:
            ga = matmul(gg, transpose(w, -1, -2))
            ga = reshape(ga, *input.shape) if input.dim() == 1 else ga
        if other.requires_grad:
            gb = matmul(transpose(x, -1, -2), gg)
            gb = reshape(sum_to(gb, w.shape), *other.shape) if other.dim() == 1 else gb
        return ga, gb
    return record(res, [input, other], "MatmulBackward", back)


@low_precision
def mm(input, mat2):
    if input.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError("mm: both arguments must be 2-D")
    return matmul(input, mat2)


@low_precision
def linear(input, weight, bias=None):
    """linear(input, weight, bias=None) = input @ weight.T + bias (one aclnnAddmm for a 2-D input with a bias)."""
    if bias is None or input.dim() != 2 or weight.dim() != 2:
        y = matmul(input, transpose(weight, 0, 1))
        return add(y, bias) if bias is not None else y  # noqa: F821
    res = _new((input.shape[0], weight.shape[0]), result_type(input, weight, bias))
    call("Addmm", bias, input, Tensor(weight._t.transpose(0, 1)), 1.0, 1.0, res, 0)

    def back(g):  # weight's gradient g^T @ input comes out in weight's layout
        gb = (sum(g, 0) if bias.dim() == 1 else g) if bias.requires_grad else None  # (the engine sums other shapes)
        return (_mm_grad(g, weight) if input.requires_grad else None,
                _mm_grad(Tensor(g._t.transpose(0, 1)), input) if weight.requires_grad else None, gb)
    return record(res, [input, weight, bias], "AddmmBackward", back)


def _mm_grad(a, b):
    """a @ b of 2-D tensors in a gradient formula (the engine records nothing): the binding itself
    unless autocast is on, which matmul handles."""
    if _amp_state.dtype is not None:
        return matmul(a, b)
    res = Tensor(_C.empty([a.shape[0], b.shape[1]], result_type(a, b).code))
    _C.aclnn.Matmul(a._t, b._t, res._t, 0)
    return res


def _dimwise(api, back_api, name):
    def fn(input, dim=-1, dtype=None):
        x = input if dtype is None else to(input, dtype)
        res = _new(x.shape, x.dtype)
        call(api, x, dim, res)

        def back(g):
            r = _new(g.shape, g.dtype)
            call(back_api, g, res, dim, r)
            return r
        return record(res, [x], back_api, back)
    fn.__name__ = name
    fn.__doc__ = f"{name}(input, dim=-1, dtype=None): aclnn{api} (gradient: aclnn{back_api})"
    return fn


softmax = float32_op(_dimwise("Softmax", "SoftmaxBackward", "softmax"))
log_softmax = float32_op(_dimwise("LogSoftmax", "LogSoftmaxBackward", "log_softmax"))

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(r):
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction (none, mean, sum)")
    return _REDUCTIONS[r]


def fused_attention(query, key, value, num_heads, mask=None, scale=None):
    """softmax(q k^T * scale + mask) v per head, on [B, S, E] query and [B, L, E] key / value (layout
    BSH, E = num_heads * head dim): one aclnnFusedInferAttentionScoreV2 call. mask: None or BOOL
    [B, 1, S, L] / [S, L] (True: not attended). Inference only: records no gradient."""
    B, S, E = query.shape
    scale = 1.0 / (E // num_heads) ** 0.5 if scale is None else scale
    out = _new((B, S, E), query.dtype)
    call("FusedInferAttentionScoreV2", contiguous(query), [_h(contiguous(key))], [_h(contiguous(value))], None,
         mask, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None, None,
         None, None, num_heads, scale, 2147483647, 2147483647, "BSH", 0, 0, 0, 0, 0, False, 0, 0, out, None)
    return out


@float32_op
def mse_loss(input, target, reduction="mean"):
    """mse_loss(input, target, reduction='mean'): aclnnMseLoss (gradient: aclnnMseLossBackward)."""
    red = _reduction(reduction)
    shape = _broadcast([input.shape, target.shape]) if red == 0 else ()
    res = _new(shape, result_type(input, target))
    call("MseLoss", input, target, red, res)

    def back(g):
        gi = _new(_broadcast([input.shape, target.shape]), res.dtype)
        call("MseLossBackward", g, input, target, red, gi)
        return gi, (neg(gi) if isinstance(target, Tensor) and target.requires_grad else None)
    return record(res, [input, target], "MseLossBackward", back)


@float32_op
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """cross_entropy(input [N, C], target [N] class indices, ...): aclnnCrossEntropyLoss
    (gradient: aclnnCrossEntropyLossGrad)."""
    _reduction(reduction)
    if input.dim() != 2:
        raise RuntimeError(f"cross_entropy: input must be [N, C] (got {input.dim()} dims)")
    loss = _new((input.shape[0],) if reduction == "none" else (), input.dtype)
    logp = _new(input.shape, input.dtype)
    call("CrossEntropyLoss", input, target, weight, reduction, ignore_index, _py_float(label_smoothing), 0.0, False,
         loss, logp, None, None)

    def back(g):
        gi = _new(input.shape, input.dtype)
        call("CrossEntropyLossGrad", g, logp, target, weight, None, None, reduction, ignore_index,
             _py_float(label_smoothing), 0.0, gi)
        return gi, None
    return record(loss, [input, target], "CrossEntropyLossBackward", back)


@float32_op
def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """nll_loss(input [N, C], target [N], ...): aclnnNLLLoss (gradient: aclnnNLLLossBackward)."""
    red = _reduction(reduction)
    loss = _new((input.shape[0],) if red == 0 and input.dim() == 2 else (), input.dtype)
    total = _new((), input.dtype)
    call("NLLLoss", input, target, weight, red, ignore_index, loss, total)

    def back(g):
        gi = _new(input.shape, input.dtype)
        call("NLLLossBackward", g, input, target, weight, red, ignore_index, total, gi)
        return gi, None
    return record(loss, [input, target], "NllLossBackward", back)


__all__ += ["call", "reshape", "view", "permute", "transpose", "t", "unsqueeze", "squeeze", "expand", "flatten",
            "contiguous", "clone", "to", "sum_to", "div", "rsub", "clamp", "sum", "mean", "matmul", "mm", "linear", "softmax",
            "log_softmax", "mse_loss", "cross_entropy", "nll_loss"]


# ---------------------------------------------------------------------------------------------
# Convolution, normalisation, pooling, embedding, dropout and more losses (the nn modules' ops).
# Output shapes are written here (PyTorch's formulas); gradients are the aclnn backward ops.

def _tup(v, n):
    if isinstance(v, (tuple, list)):
        if len(v) == 1 and n > 1:
            return [_py_int(v[0])] * n
        return [_py_int(x) for x in v]
    return [_py_int(v)] * n


def _need(t):
    return isinstance(t, Tensor) and t.requires_grad


def _conv(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, n):
    """Convolution over n spatial dims (aclnnConvolution; gradient: aclnnConvolutionBackward)."""
    stride, padding, dilation = _tup(stride, n), _tup(padding, n), _tup(dilation, n)
    output_padding = _tup(output_padding, n)
    batched = input.dim() == n + 2
    x = input if batched else unsqueeze(input, 0)
    sp = x.shape[2:]
    ks = weight.shape[2:]
    if transposed:
        cout = weight.shape[1] * groups
        osp = [(sp[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (ks[i] - 1) + output_padding[i] + 1
               for i in range(n)]
    else:
        cout = weight.shape[0]
        osp = [(sp[i] + 2 * padding[i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    osp = [builtins.max(o, 0) for o in osp]
    res = _new([x.shape[0], cout] + osp, result_type(x, weight))
    call("Convolution", x, weight, bias, stride, padding, dilation, transposed, output_padding, groups, res, 0)

    def back(g):
        mask = [_need(x), _need(weight), _need(bias)]
        gi = _new(x.shape, x.dtype) if mask[0] else None
        gw = _new(weight.shape, weight.dtype) if mask[1] else None
        gb = _new(bias.shape, bias.dtype) if mask[2] else None
        call("ConvolutionBackward", g, x, weight, [cout] if bias is not None else None, stride, padding, dilation,
             transposed, output_padding, groups, mask, 0, gi, gw, gb)
        return gi, gw, gb
    res = record(res, [x, weight, bias], "ConvolutionBackward", back)
    return res if batched else squeeze(res, 0)


@low_precision
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv1d: aclnnConvolution (gradient: aclnnConvolutionBackward); padding is a number / list."""
    return _conv(input, weight, bias, stride, padding, dilation, False, 0, groups, 1)


@low_precision
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv2d: aclnnConvolution (gradient: aclnnConvolutionBackward); padding is a number / pair."""
    return _conv(input, weight, bias, stride, padding, dilation, False, 0, groups, 2)


@low_precision
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """conv3d over [N, C, D, H, W]: aclnnConvolution (gradient: aclnnConvolutionBackward)."""
    return _conv(input, weight, bias, stride, padding, dilation, False, 0, groups, 3)


@low_precision
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """conv_transpose1d (weight [C_in, C_out / groups, kL]): aclnnConvolution transposed=true."""
    return _conv(input, weight, bias, stride, padding, dilation, True, output_padding, groups, 1)


@low_precision
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """conv_transpose3d (weight [C_in, C_out / groups, kD, kH, kW]): aclnnConvolution transposed=true."""
    return _conv(input, weight, bias, stride, padding, dilation, True, output_padding, groups, 3)


@low_precision
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """conv_transpose2d (weight [C_in, C_out / groups, kH, kW]): aclnnConvolution transposed=true."""
    return _conv(input, weight, bias, stride, padding, dilation, True, output_padding, groups, 2)


@float32_op
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """batch_norm: aclnnBatchNorm (running stats updated in place when training; gradient:
    aclnnBatchNormBackward)."""
    c = input.shape[1]
    res = _new(input.shape, input.dtype)
    sd = float32 if input.dtype in (float16, bfloat16) else input.dtype
    smean, sinv = _new((c,), sd), _new((c,), sd)
    call("BatchNorm", input, weight, bias, running_mean, running_var, _py_bool(training), _py_float(momentum),
         _py_float(eps), res, smean, sinv)

    def back(g):
        mask = [_need(input), _need(weight), _need(bias)]
        gi = _new(input.shape, input.dtype) if mask[0] else None
        gw = _new(weight.shape, weight.dtype) if mask[1] else None
        gb = _new(bias.shape, bias.dtype) if mask[2] else None
        call("BatchNormBackward", g, input, weight, running_mean, running_var, smean, sinv, _py_bool(training),
             _py_float(eps), mask, gi, gw, gb)
        return gi, gw, gb
    return record(res, [input, weight, bias], "NativeBatchNormBackward", back)


@float32_op
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """layer_norm: aclnnLayerNorm (gradient: aclnnLayerNormBackward)."""
    ns = _tup(normalized_shape, 1) if not isinstance(normalized_shape, (tuple, list)) else [_py_int(s) for s in normalized_shape]
    k = len(ns)
    stat = list(input.shape[:input.dim() - k]) + [1] * k
    sd = float32 if input.dtype in (float16, bfloat16) else input.dtype
    res, mean_, rstd = _new(input.shape, input.dtype), _new(stat, sd), _new(stat, sd)
    call("LayerNorm", input, ns, weight, bias, _py_float(eps), res, mean_, rstd)

    def back(g):
        mask = [_need(input), _need(weight), _need(bias)]
        gi = _new(input.shape, input.dtype) if mask[0] else None
        gw = _new(weight.shape, weight.dtype) if mask[1] else None
        gb = _new(bias.shape, bias.dtype) if mask[2] else None
        call("LayerNormBackward", g, input, ns, mean_, rstd, weight, bias, mask, gi, gw, gb)
        return gi, gw, gb
    return record(res, [input, weight, bias], "NativeLayerNormBackward", back)


@float32_op
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """group_norm: aclnnGroupNorm (gradient: aclnnGroupNormBackward)."""
    n, c = input.shape[0], input.shape[1]
    hxw = _py_int(np.prod(input.shape[2:])) if input.dim() > 2 else 1
    sd = float32 if input.dtype in (float16, bfloat16) else input.dtype
    res, mean_, rstd = _new(input.shape, input.dtype), _new((n, num_groups), sd), _new((n, num_groups), sd)
    call("GroupNorm", input, weight, bias, n, c, hxw, num_groups, _py_float(eps), res, mean_, rstd)

    def back(g):
        mask = [_need(input), _need(weight), _need(bias)]
        gi = _new(input.shape, input.dtype) if mask[0] else None
        gw = _new(weight.shape, weight.dtype) if mask[1] else None
        gb = _new(bias.shape, bias.dtype) if mask[2] else None
        call("GroupNormBackward", g, input, mean_, rstd, weight, n, c, hxw, num_groups, mask, gi, gw, gb)
        return gi, gw, gb
    return record(res, [input, weight, bias], "NativeGroupNormBackward", back)


@float32_op
def rms_norm(input, normalized_shape, weight, eps=1e-6):
    """rms_norm: y = x / sqrt(mean(x^2 over the last dims) + eps) * weight: aclnnRmsNorm (gradient:
    aclnnRmsNormGrad)."""
    k = weight.dim()
    stat = list(input.shape[:input.dim() - k]) + [1] * k
    res, rstd = _new(input.shape, input.dtype), _new(stat, float32)
    call("RmsNorm", input, weight, _py_float(eps), res, rstd)

    def back(g):
        gi, gw = _new(input.shape, input.dtype), _new(weight.shape, float32)
        call("RmsNormGrad", g, input, rstd, weight, gi, gw)
        return gi, gw
    return record(res, [input, weight], "RmsNormBackward", back)


def embedding(input, weight, padding_idx=None):
    """embedding(input indices, weight [V, D]): aclnnEmbedding (gradient: aclnnEmbeddingDenseBackward;
    the padding row gets no gradient)."""
    res = _new(list(input.shape) + [weight.shape[1]], weight.dtype)
    call("Embedding", weight, input, res)
    pad = -1 if padding_idx is None else (padding_idx % weight.shape[0])  # the binding casts -1 to (uint64_t)-1: none

    def back(g):
        gw = _new(weight.shape, g.dtype)
        call("EmbeddingDenseBackward", contiguous(g), input, weight.shape[0], pad, False, gw)
        return None, gw
    return record(res, [input, weight], "EmbeddingBackward", back)


def dropout(input, p=0.5, training=True):
    """dropout: the keep-mask is drawn from opsnn's generator (data, like randn) and applied with
    aclnnMul: y = x * mask / (1 - p)."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return mul(input, 0.0)  # noqa: F821
    from . import _generator
    keep = (_generator().random(tuple(input.shape)) >= p).astype(np.float32) / np.float32(1.0 - p)
    return mul(input, from_numpy(keep, input.dtype))  # noqa: F821


def _pool_out(size, k, s, p, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def _pool_args(kernel_size, stride, padding, dilation=1):
    k = _tup(kernel_size, 2)
    s = _tup(stride if stride not in (None, [], ()) else k, 2)
    return k, s, _tup(padding, 2), _tup(dilation, 2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d: aclnnMaxPool2dWithIndices (gradient: aclnnMaxPool2dWithIndicesBackward)."""
    k, s, p, d = _pool_args(kernel_size, stride, padding, dilation)
    osp = [_pool_out(input.shape[-2 + i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(2)]
    shape = list(input.shape[:-2]) + osp
    if not return_indices and d == [1, 1] and not (is_grad_enabled() and input.requires_grad):
        # No gradient to record (inference): aclnnMaxPool writes no indices (pads [ph, pw] are both
        # sides; its ceil mode drops windows starting in the right / bottom padding, as PyTorch's).
        res = _new(shape, input.dtype)
        call("MaxPool", input, k, s, 0, p, d, _py_int(ceil_mode), res)
        return res
    res, idx = _new(shape, input.dtype), _new(shape, int64)
    call("MaxPool2dWithIndices", input, k, s, p, d, _py_bool(ceil_mode), res, idx)

    def back(g):
        gi = _new(input.shape, g.dtype)
        call("MaxPool2dWithIndicesBackward", g, input, idx, k, s, p, d, _py_bool(ceil_mode), gi)
        return gi
    res = record(res, [input], "MaxPool2DWithIndicesBackward", back)
    return (res, idx) if return_indices else res


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """avg_pool2d: aclnnAvgPool2d (gradient: aclnnAvgPool2dBackward)."""
    k, s, p, _ = _pool_args(kernel_size, stride, padding)
    osp = [_pool_out(input.shape[-2 + i], k[i], s[i], p[i], 1, ceil_mode) for i in range(2)]
    div_ = 0 if divisor_override is None else _py_int(divisor_override)
    res = _new(list(input.shape[:-2]) + osp, input.dtype)
    call("AvgPool2d", input, k, s, p, _py_bool(ceil_mode), _py_bool(count_include_pad), div_, 0, res)

    def back(g):
        gi = _new(input.shape, g.dtype)
        call("AvgPool2dBackward", g, input, k, s, p, _py_bool(ceil_mode), _py_bool(count_include_pad), div_, 0, gi)
        return gi
    return record(res, [input], "AvgPool2DBackward", back)


def adaptive_avg_pool2d(input, output_size):
    """adaptive_avg_pool2d: aclnnAdaptiveAvgPool2d (gradient: aclnnAdaptiveAvgPool2dBackward)."""
    os_ = _tup(output_size, 2)
    os_ = [input.shape[-2 + i] if o is None else o for i, o in enumerate(os_)]
    res = _new(list(input.shape[:-2]) + os_, input.dtype)
    call("AdaptiveAvgPool2d", input, os_, res)

    def back(g):
        gi = _new(input.shape, g.dtype)
        call("AdaptiveAvgPool2dBackward", g, input, gi)
        return gi
    return record(res, [input], "AdaptiveAvgPool2DBackward", back)


@float32_op
def l1_loss(input, target, reduction="mean"):
    """l1_loss: aclnnL1Loss (gradient: aclnnL1LossBackward)."""
    red = _reduction(reduction)
    shape = _broadcast([input.shape, target.shape]) if red == 0 else ()
    res = _new(shape, result_type(input, target))
    call("L1Loss", input, target, red, res)

    def back(g):
        gi = _new(_broadcast([input.shape, target.shape]), res.dtype)
        call("L1LossBackward", g, input, target, red, gi)
        return gi, (neg(gi) if _need(target) else None)  # noqa: F821
    return record(res, [input, target], "L1LossBackward", back)


@float32_op
def kl_div(input, target, reduction="mean", log_target=False):
    """kl_div(input (log-probabilities), target, reduction='mean', log_target=False): aclnnKlDiv
    (reduction 'batchmean' divides the sum by input.size(0)); gradients aclnnKlDivBackward and, for
    a target that requires one, aclnnKlDivTargetBackward."""
    red = 3 if reduction == "batchmean" else _reduction(reduction)
    shape = _broadcast([input.shape, target.shape])
    res = _new(shape if red == 0 else (), result_type(input, target))
    call("KlDiv", input, target, red, bool(log_target), res)

    def back(g):
        gi = _new(shape, res.dtype)
        call("KlDivBackward", g, input, target, red, bool(log_target), gi)
        gt = None
        if _need(target):  # noqa: F821
            gt = _new(shape, res.dtype)
            call("KlDivTargetBackward", g, input, target, red, bool(log_target), gt)
        return gi, gt
    return record(res, [input, target], "KlDivBackward", back)


# interpolate's modes: the resize op per number of spatial dims (aclnnUpsample*, gradients *Backward).
_INTERPOLATE_OPS = {
    "nearest": {1: "UpsampleNearest1d", 2: "UpsampleNearest2d", 3: "UpsampleNearest3d"},
    "nearest-exact": {1: "UpsampleNearestExact1d", 2: "UpsampleNearestExact2d", 3: "UpsampleNearestExact3d"},
    "linear": {1: "UpsampleLinear1d"}, "bilinear": {2: "UpsampleBilinear2d"}, "bicubic": {2: "UpsampleBicubic2d"},
    "trilinear": {3: "UpsampleTrilinear3d"},
}


def _interpolate_sizes(input, size, scale_factor, recompute_scale_factor):
    """(output spatial size, scales passed to the op: 0 = derived from the sizes), as torch 1.13."""
    nd, in_sp = input.dim() - 2, list(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = [size] * nd if isinstance(size, (int, np.integer)) else list(size)
        if len(out) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {in_sp} and output size of {list(out)}")
        return [_py_int(o) for o in out], [0.0] * nd
    sf = [scale_factor] * nd if isinstance(scale_factor, (int, float, np.number)) else list(scale_factor)
    if len(sf) != nd:
        raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                         f"with spatial dimensions of {in_sp} and scale_factor of shape {list(sf)}")
    out = [int(np.floor(float(i) * float(f))) for i, f in zip(in_sp, sf)]
    return out, ([0.0] * nd if recompute_scale_factor else [float(f) for f in sf])


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """torch.nn.functional.interpolate on [N, C, W] / [N, C, H, W] / [N, C, D, H, W]: modes nearest,
    nearest-exact, linear (3-D), bilinear / bicubic (4-D), trilinear (5-D); one aclnnUpsample* call
    (gradient: its *Backward op). nearest on 3-D / 4-D input with a scale factor runs as the 3-D op on
    a view with unit leading spatial dims (aclnnUpsampleNearest1d / 2d take no scales)."""
    if mode not in _INTERPOLATE_OPS:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported (area needs adaptive pooling)")
    nd = input.dim() - 2
    if nd not in _INTERPOLATE_OPS[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{' or '.join(str(k + 2) + 'D' for k in _INTERPOLATE_OPS[mode])} input")
    interpolating = mode in ("linear", "bilinear", "bicubic", "trilinear")
    if align_corners is not None and not interpolating:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias:
        raise NotImplementedError("interpolate: antialias is not supported")
    out_sp, scales = _interpolate_sizes(input, size, scale_factor, recompute_scale_factor)
    ac = [bool(align_corners)] if interpolating else []
    name = _INTERPOLATE_OPS[mode][nd]
    shape = tuple(input.shape[:2]) + tuple(out_sp)
    res = _new(shape, input.dtype)
    if mode == "nearest" and nd < 3 and builtins.any(f > 0 for f in scales):
        pad = [1] * (3 - nd)
        x5 = reshape(input, *(list(input.shape[:2]) + pad + list(input.shape[2:])))
        r5 = reshape(res, *(list(shape[:2]) + pad + out_sp))
        call("UpsampleNearest3d", x5, pad + out_sp, *([0.0] * (3 - nd) + scales), r5)
    elif mode == "nearest" and nd < 3:
        call(name, input, out_sp, res)
    else:
        call(name, input, out_sp, *ac, *scales, res)
    in_shape = list(input.shape)

    def back(g):
        gi = _new(tuple(in_shape), g.dtype)
        call(name + "Backward", contiguous(g), out_sp, in_shape, *ac, *scales, gi)
        return gi
    return record(res, [input], "UpsampleBackward", back)


@float32_op
def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    """binary_cross_entropy_with_logits: aclnnBinaryCrossEntropyWithLogits (gradient:
    aclnnBinaryCrossEntropyWithLogitsBackward)."""
    red = _reduction(reduction)
    res = _new(input.shape if red == 0 else (), input.dtype)
    call("BinaryCrossEntropyWithLogits", input, target, weight, pos_weight, red, res)

    def back(g):
        gi = _new(input.shape, input.dtype)
        call("BinaryCrossEntropyWithLogitsBackward", g, input, target, weight, pos_weight, red, gi)
        return gi, None
    return record(res, [input, target], "BinaryCrossEntropyWithLogitsBackward", back)


__all__ += ["fused_attention", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
            "batch_norm", "layer_norm", "group_norm", "rms_norm", "embedding",
            "dropout", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "l1_loss", "kl_div", "interpolate",
            "binary_cross_entropy_with_logits"]


# ---------------------------------------------------------------------------------------------
# Recurrent layers: aclnnLSTM / aclnnGRU (gradients aclnnLstmBackward / aclnnGRUBackward). The ops
# return several tensors (output, h_n, c_n); they are views of one flat buffer, which carries the
# op's autograd node: each view's node places its gradient in that buffer's layout, so the backward
# op runs once with every output's gradient (zeros for the unused ones).

def _views_of_flat(shapes, dtype):
    sizes = [_py_int(np.prod(s)) for s in shapes]
    flat = _new((builtins.sum(sizes),), dtype)
    views, off = [], 0
    for s, n in zip(shapes, sizes):
        views.append(Tensor(flat._t.slice(0, off, off + n, 1).view([_py_int(d) for d in s])))
        off += n
    return flat, views


def _split_flat(g, shapes):
    g = contiguous(g)
    out, off = [], 0
    for s in shapes:
        n = _py_int(np.prod(s))
        out.append(Tensor(g._t.slice(0, off, off + n, 1).view([_py_int(d) for d in s])))
        off += n
    return out


def _record_views(flat, views, inputs, name, back):
    """Record back(flat gradient) -> input gradients on flat, and a placing node on each view."""
    record(flat, inputs, name, back)
    if flat.grad_fn is None:
        return views
    off = 0
    for v in views:
        n = v.numel()

        def place(g, off=off, n=n, shape=tuple(v.shape)):
            z = zeros(flat.numel(), dtype=flat.dtype)
            z._t.slice(0, off, off + n, 1).view(list(shape)).copy_(contiguous(g)._t)
            return z
        record(v, [flat], name + "Output", place)
        off += n
    return views


def _cat0(tensors):
    """Concatenation along dim 0 (differentiable)."""
    shape = [builtins.sum(t.shape[0] for t in tensors)] + list(tensors[0].shape[1:])
    out = _new(shape, tensors[0].dtype)
    off = 0
    for t_ in tensors:
        out._t.slice(0, off, off + t_.shape[0], 1).copy_(t_._t)
        off += t_.shape[0]

    def back(g):
        res, o = [], 0
        for t_ in tensors:
            res.append(getitem(g, slice(o, o + t_.shape[0])))
            o += t_.shape[0]
        return tuple(res)
    return record(out, list(tensors), "CatBackward", back)


def _rnn(kind, input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, batch_sizes):
    lstm_ = kind == "LSTM"
    D = 2 if bidirectional else 1
    L = _py_int(num_layers)
    per = (4 if has_biases else 2) * D  # parameters per layer
    if len(params) != per * L:
        raise RuntimeError(f"{kind.lower()}: expected {per * L} parameters for {L} layer(s), got {len(params)}")
    if dropout and train and L > 1:
        # Dropout between layers: one call per layer, the mask applied here (the ops refuse it).
        outs, hs, cs, x = [], [], [], input
        for layer in range(L):
            hxl = [getitem(h, slice(layer * D, (layer + 1) * D)) for h in hx]
            res = _rnn(kind, x, hxl, params[layer * per:(layer + 1) * per], has_biases, 1, 0.0, train,
                       bidirectional, batch_first, batch_sizes)
            x = res[0] if layer == L - 1 else globals()["dropout"](res[0], dropout, True)
            hs.append(res[1])
            if lstm_:
                cs.append(res[2])
        return (x, _cat0(hs), _cat0(cs)) if lstm_ else (x, _cat0(hs))
    H = params[1].shape[1]
    packed = batch_sizes is not None
    if packed:
        T, B = batch_sizes.shape[0], hx[0].shape[1]
        step_shape = (input.shape[0], H)
    else:
        T, B = (input.shape[1], input.shape[0]) if batch_first else (input.shape[0], input.shape[1])
        step_shape = (T, B, H)
    state = (L * D, B, H)
    shapes = [tuple(input.shape[:-1]) + (D * H,), state] + ([state] if lstm_ else [])
    flat, outs = _views_of_flat(shapes, input.dtype)
    ins = [input] + list(hx) + list(params)
    need = is_grad_enabled() and builtins.any(_need(t_) for t_ in ins)
    nlists = 7 if lstm_ else 5
    saved = [[_new(step_shape, input.dtype) for _ in range(L * D)] for _ in range(nlists)] if need else \
        [[] for _ in range(nlists)]
    hl = [_h(p) for p in params]
    sl = [[_h(s) for s in lst] for lst in saved]
    state_arg = [_h(h) for h in hx] if lstm_ else hx[0]
    call(kind, input, hl, state_arg, batch_sizes, _py_bool(has_biases), L, 0.0, need, _py_bool(bidirectional),
         _py_bool(batch_first), *outs, *sl)
    if not need:
        return tuple(outs)

    def back(g):
        grads = _split_flat(g, shapes)
        want = [_need(input), _need(hx[0]), lstm_ and _need(hx[1]),
                builtins.any(_need(p) for p in params)]
        dx = _new(input.shape, input.dtype) if want[0] else None
        dh = _new(state, input.dtype) if want[1] or not lstm_ else None
        dc = _new(state, input.dtype) if want[2] else None
        dps = [_new(p.shape, p.dtype) for p in params] if want[3] or not lstm_ else None
        if lstm_:
            call("LstmBackward", input, state_arg, hl, grads[0], grads[1], grads[2], *sl, batch_sizes,
                 _py_bool(has_biases), L, 0.0, True, _py_bool(bidirectional), _py_bool(batch_first), want, dx, dh, dc,
                 [_h(p) for p in dps] if dps is not None else None)
            return (dx, dh, dc) + tuple(dps if dps is not None else [None] * len(params))
        if dx is None:
            dx = _new(input.shape, input.dtype)  # (GRUBackward writes every gradient)
        call("GRUBackward", input, hl, hx[0], grads[0], grads[1], *sl, batch_sizes, _py_bool(has_biases), L,
             _py_bool(bidirectional), _py_bool(batch_first), dx, dh, [_h(p) for p in dps])
        return (dx, dh) + tuple(dps)
    return tuple(_record_views(flat, outs, ins, kind + "Backward", back))


def _rnn_state(kind, input, hx, params, num_layers, bidirectional, batch_first, batch_sizes):
    D = 2 if bidirectional else 1
    H = params[1].shape[1]
    if batch_sizes is not None:
        B = _py_int(batch_sizes.numpy()[0]) if batch_sizes.numel() else 0
    else:
        B = input.shape[0] if batch_first else input.shape[1]
    n = 2 if kind == "LSTM" else 1
    if hx is None:
        return [zeros(_py_int(num_layers) * D, B, H, dtype=input.dtype) for _ in range(n)]
    hx = [hx] if isinstance(hx, Tensor) else list(hx)
    if len(hx) != n:
        raise RuntimeError(f"{kind.lower()}: hx must be {'(h_0, c_0)' if n == 2 else 'h_0'}")
    return hx


@low_precision
def lstm(input, hx, params, has_biases=True, num_layers=1, dropout=0.0, train=False, bidirectional=False,
         batch_first=False, batch_sizes=None):
    """lstm(input, hx=(h_0, c_0) or None, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first, batch_sizes=None) -> (output, h_n, c_n): torch.lstm's arguments (params in
    torch.nn.LSTM's _flat_weights order). aclnnLSTM; gradient aclnnLstmBackward (the forward keeps the
    per-step lists when a gradient is recorded). batch_sizes (int64, PyTorch's PackedSequence) makes
    input the packed data [N, I]. Dropout between layers (train, num_layers > 1) runs one call per
    layer with the mask drawn here."""
    params = list(params)
    if len(params) == (5 if has_biases else 3) * (2 if bidirectional else 1) * _py_int(num_layers):
        return _lstm_proj(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first,
                          batch_sizes)
    hx = _rnn_state("LSTM", input, hx, params, num_layers, bidirectional, batch_first, batch_sizes)
    return _rnn("LSTM", input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first,
                batch_sizes)


def _fused_lstm_cell(input_gates, hidden_gates, cx, b_ih=None, b_hh=None):
    """torch._thnn_fused_lstm_cell: (hy, cy) of one LSTM step from its gate pre-activations
    (aclnnThnnFusedLstmCell; gradient aclnnThnnFusedLstmCellBackward, whose gate gradient is both gate
    inputs' and whose bias gradient, the batch sum, both biases')."""
    B, H = cx.shape
    shapes = [(B, H), (B, H)]
    flat, (hy, cy) = _views_of_flat(shapes, cx.dtype)
    storage = _new((B, 4 * H), cx.dtype)
    call("ThnnFusedLstmCell", input_gates, hidden_gates, cx, b_ih, b_hh, hy, cy, storage)
    has_bias = b_ih is not None

    def back(g):
        ghy, gcy = _split_flat(g, shapes)
        gg, gcx = _new((B, 4 * H), cx.dtype), _new((B, H), cx.dtype)
        gb = _new((4 * H,), cx.dtype) if has_bias else None
        call("ThnnFusedLstmCellBackward", ghy, gcy, cx, cy, storage, has_bias, gg, gcx, gb)
        return gg, gg, gcx, gb, gb
    return tuple(_record_views(flat, [hy, cy], [input_gates, hidden_gates, cx, b_ih, b_hh],
                               "ThnnFusedLstmCellBackward", back))


def _lstm_proj(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first, batch_sizes):
    """torch.nn.LSTM with proj_size > 0 (aclnnLSTM has no projection), composed of ops with their own
    gradients: per layer and direction the input projection of all steps (one matmul), then per step
    h_{t-1} @ W_hh^T, the fused cell and h_t = hy @ W_hr^T. params per (layer, direction): w_ih, w_hh
    [4H, P], (b_ih, b_hh,) w_hr [P, H]; h_0 / h_n [L*D, B, P], c_0 / c_n [L*D, B, H]. With batch_sizes
    (a PackedSequence, sorted by decreasing length) input is the packed data [N, I] and step t runs the
    first batch_sizes[t] sequences."""
    D, L, per = (2 if bidirectional else 1), _py_int(num_layers), (5 if has_biases else 3)
    P, H = params[-1].shape
    if batch_sizes is not None:
        sizes = [_py_int(b) for b in batch_sizes.numpy()]
        x, T, B = input, len(sizes), (sizes[0] if sizes else 0)
    else:
        x = transpose(input, 0, 1) if batch_first else input
        T, B = x.shape[0], x.shape[1]
        sizes = None
    if T == 0:
        raise RuntimeError("lstm: the input has no time steps")
    if hx is None:
        hx = (zeros(L * D, B, P, dtype=input.dtype), zeros(L * D, B, H, dtype=input.dtype))
    h0, c0 = hx
    hs, cs = [], []
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            w = params[k * per:(k + 1) * per]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            gi = linear(x, w[0])  # [T, B, 4H], or packed [N, 4H]
            run = _lstm_proj_direction if sizes is None else _lstm_proj_packed_direction
            out, h, c = run(gi, getitem(h0, k), getitem(c0, k), w, b_ih, b_hh, d == 1, sizes)
            outs.append(out)
            hs.append(h)
            cs.append(c)
        x = outs[0] if D == 1 else _cat_last(outs)  # the directions side by side: [..., D*P]
        if dropout and train and layer < L - 1:
            x = globals()["dropout"](x, dropout, True)
    out = transpose(x, 0, 1) if batch_first and sizes is None else x
    return out, _cat0([unsqueeze(h_, 0) for h_ in hs]), _cat0([unsqueeze(c_, 0) for c_ in cs])


def _cat_last(ts):
    """Concatenation along the last dim (differentiable), through _cat0 on the dim moved to the front."""
    n = ts[0].dim()
    front = [n - 1] + list(range(n - 1))
    back = list(range(1, n)) + [0]
    return permute(_cat0([permute(t_, *front) for t_ in ts]), *back)


def _lstm_proj_step(g, h, c, w, b_ih, b_hh):
    hy, c = _fused_lstm_cell(g, linear(h, w[1]), c, b_ih, b_hh)
    return linear(hy, w[-1]), c


def _lstm_proj_direction(gi, h, c, w, b_ih, b_hh, reverse, _sizes):
    """One direction over a padded [T, B, 4H] input projection: (output [T, B, P], h_n, c_n)."""
    T = gi.shape[0]
    steps = [None] * T
    for s in (range(T - 1, -1, -1) if reverse else range(T)):
        h, c = _lstm_proj_step(getitem(gi, s), h, c, w, b_ih, b_hh)
        steps[s] = h
    return _cat0([unsqueeze(h_, 0) for h_ in steps]), h, c


def _lstm_proj_packed_direction(gi, h0, c0, w, b_ih, b_hh, reverse, sizes):
    """One direction over a packed [N, 4H] input projection (step t: rows off[t] .. off[t] + sizes[t],
    the first sizes[t] sequences): (packed output [N, P], h_n [B, P], c_n [B, H]). Forward, a sequence
    that ends leaves its last h / c as its h_n / c_n; reversed, a sequence joins at its last step from
    h_0 / c_0."""
    T, B = len(sizes), sizes[0]
    offs = [0]
    for b in sizes:
        offs.append(offs[-1] + b)
    steps = [None] * T
    if not reverse:
        h, c, done_h, done_c = h0, c0, [], []
        for s in range(T):
            n = sizes[s]
            if n < h.shape[0]:  # the sequences n .. are finished: their state is final
                done_h.append(getitem(h, slice(n, None)))
                done_c.append(getitem(c, slice(n, None)))
                h, c = getitem(h, slice(0, n)), getitem(c, slice(0, n))
            h, c = _lstm_proj_step(getitem(gi, slice(offs[s], offs[s + 1])), h, c, w, b_ih, b_hh)
            steps[s] = h
        # the finished pieces were split off from the back, last one first
        return _cat0(steps), _cat0([h] + done_h[::-1]), _cat0([c] + done_c[::-1])
    h = c = None
    for s in range(T - 1, -1, -1):
        n, have = sizes[s], (0 if h is None else h.shape[0])
        if n > have:  # sequences have .. n start here (their last step) from h_0 / c_0
            h_new, c_new = getitem(h0, slice(have, n)), getitem(c0, slice(have, n))
            h = h_new if h is None else _cat0([h, h_new])
            c = c_new if c is None else _cat0([c, c_new])
        h, c = _lstm_proj_step(getitem(gi, slice(offs[s], offs[s + 1])), h, c, w, b_ih, b_hh)
        steps[s] = h
    return _cat0(steps), h, c


@low_precision
def gru(input, hx, params, has_biases=True, num_layers=1, dropout=0.0, train=False, bidirectional=False,
        batch_first=False, batch_sizes=None):
    """gru(input, hx=h_0 or None, params, ...) -> (output, h_n): as lstm, aclnnGRU (gradient
    aclnnGRUBackward)."""
    params = list(params)
    hx = _rnn_state("GRU", input, hx, params, num_layers, bidirectional, batch_first, batch_sizes)
    return _rnn("GRU", input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first,
                batch_sizes)


__all__ += ["lstm", "gru"]

# opsnn.functional against numpy float64 references: the generated element-wise ops (every
# dtype, non-contiguous inputs, broadcasting, PyTorch's type promotion, scalars), matmul,
# softmax, reductions and losses, and the errors.
import math

import numpy as np
import pytest

import opsnn
import opsnn.functional as F
from conftest import assert_close, round_to

FLOATS = ["float32", "float16", "bfloat16"]
_erf = np.vectorize(math.erf)


def _gelu(x):
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


def _softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


# name -> (float64 reference, input range, kwargs)
UNARY_REFS = {
    "exp": (np.exp, (-5, 5), {}), "log": (np.log, (0.05, 20), {}), "sqrt": (np.sqrt, (0, 20), {}),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.05, 20), {}), "sin": (np.sin, (-4, 4), {}),
    "cos": (np.cos, (-4, 4), {}), "tanh": (np.tanh, (-4, 4), {}), "abs": (np.abs, (-5, 5), {}),
    "neg": (np.negative, (-5, 5), {}), "reciprocal": (lambda x: 1 / x, (0.2, 5), {}),
    "square": (np.square, (-5, 5), {}), "expm1": (np.expm1, (-3, 3), {}), "log1p": (np.log1p, (-0.5, 5), {}),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-8, 8), {}), "relu": (lambda x: np.maximum(x, 0), (-5, 5), {}),
    "gelu": (_gelu, (-5, 5), {}), "silu": (lambda x: x / (1 + np.exp(-x)), (-6, 6), {}),
    "leaky_relu": (lambda x: np.where(x > 0, x, 0.2 * x), (-5, 5), {"negative_slope": 0.2}),
    "elu": (lambda x: np.where(x > 0, x, np.expm1(x)), (-5, 5), {}),
    "softplus": (_softplus, (-6, 6), {}), "hardtanh": (lambda x: np.clip(x, -1, 1), (-3, 3), {}),
    "floor": (np.floor, (-5, 5), {}), "erf": (_erf, (-3, 3), {}),
    "logsigmoid": (lambda x: -_softplus(-x), (-6, 6), {}),
}


def _operand(rng, shape, dtype, lo, hi, noncontig):
    """A tensor of dtype holding random values in [lo, hi), optionally a transposed / sliced view;
    returns it and the float64 values it holds."""
    if noncontig:
        base = rng.uniform(lo, hi, size=tuple(reversed(shape))[:-1] + (shape[0] * 2,)) if shape else None
    if not noncontig or not shape:
        a = rng.uniform(lo, hi, size=shape).astype(np.float32)
        t = opsnn.from_numpy(a, dtype=dtype)
    else:
        a = base.astype(np.float32)
        t = opsnn.from_numpy(a, dtype=dtype)[..., ::2].permute(*reversed(range(len(shape))))
        assert not t.is_contiguous() or t.numel() <= 1
    return t, t.numpy().astype(np.float64)


@pytest.mark.parametrize("name", sorted(UNARY_REFS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_unary_against_float64(rng, name, dtype):
    ref, (lo, hi), kw = UNARY_REFS[name]
    fn = getattr(F, name)
    for shape, noncontig in [((37,), False), ((5, 9), True), ((3, 4, 17), True), ((), False)]:
        x, xv = _operand(rng, shape, dtype, lo, hi, noncontig)
        y = fn(x, **kw)
        assert y.dtype.name == dtype and y.shape == shape
        assert_close(y.numpy(), round_to(ref(xv), dtype), dtype, what=f"{name} {dtype} {shape}",
                     abs_floor=1e-6 if name in ("sin", "cos", "tanh", "expm1", "log1p", "erf") else 0.0)


def test_every_generated_unary_op_runs_in_float32(rng):
    # every op of the unary tables is reachable by its PyTorch name and computes (its values are
    # checked above for the ops with a reference, and by the op tables' own C++ harness).
    x = opsnn.from_numpy(rng.uniform(0.1, 0.9, size=(4, 5)).astype(np.float32))
    extra = {"threshold": (0.5, 0.0), "celu": (), "shrink": (0.5, 0.0), "round": ()}
    for name in F.UNARY_OPS:
        args = extra.get(name, ())
        try:
            y = getattr(F, name)(x + 1.0 if name == "acosh" else x, *args)
        except TypeError:
            continue  # an op whose table parameters have no default (called with them elsewhere)
        assert y.shape == (4, 5) and y.dtype.is_floating_point, name
        assert np.all(np.isfinite(y.numpy())), name
    assert len(F.UNARY_OPS) >= 40 and len(F.NARY_OPS) >= 30


def test_unary_integer_inputs_follow_the_table_result_rule():
    x = opsnn.tensor([1, 4, 9], dtype=opsnn.int32)
    assert F.sqrt(x).dtype is opsnn.float32 and np.allclose(F.sqrt(x).numpy(), [1, 2, 3])
    assert F.neg(x).dtype is opsnn.int32 and F.neg(x).tolist() == [-1, -4, -9]
    assert F.abs(opsnn.tensor([-3, 2])).tolist() == [3, 2]


BINARY_REFS = {
    "add": (lambda a, b: a + b, (-5, 5), (-5, 5)), "sub": (lambda a, b: a - b, (-5, 5), (-5, 5)),
    "mul": (lambda a, b: a * b, (-5, 5), (-5, 5)), "div": (lambda a, b: a / b, (-5, 5), (0.5, 4)),
    "maximum": (np.maximum, (-5, 5), (-5, 5)), "minimum": (np.minimum, (-5, 5), (-5, 5)),
    "pow": (np.power, (0.1, 3), (-2, 2)), "atan2": (np.arctan2, (-5, 5), (-5, 5)),
}


@pytest.mark.parametrize("name", sorted(BINARY_REFS))
@pytest.mark.parametrize("dtype", FLOATS)
def test_binary_broadcasting_against_float64(rng, name, dtype):
    ref, ra, rb = BINARY_REFS[name]
    fn = getattr(F, name)
    for sa, sb in [((6, 7), (6, 7)), ((3, 1, 5), (4, 1)), ((8,), ())]:
        a, av = _operand(rng, sa, dtype, *ra, noncontig=len(sa) > 1)
        b, bv = _operand(rng, sb, dtype, *rb, noncontig=len(sb) > 1)
        y = fn(a, b)
        want = round_to(ref(av, bv), dtype)
        assert y.shape == want.shape and y.dtype.name == dtype
        assert_close(y.numpy(), want, dtype, what=f"{name} {dtype} {sa} {sb}",
                     abs_floor=2 ** -10 * (np.abs(av).max() + np.abs(bv).max()) if name in ("add", "sub") else 0.0)


def test_scalar_operands_and_reflected_operators(rng):
    a = rng.uniform(0.5, 3, size=(3, 4)).astype(np.float32)
    t = opsnn.from_numpy(a)
    a64 = a.astype(np.float64)
    for got, want in [(t + 2, a64 + 2), (2 - t, 2 - a64), (t * -1.5, a64 * -1.5), (3 / t, 3 / a64),
                      (t ** 2, a64 ** 2), (2 ** t, 2 ** a64), (-t, -a64), (t - t, 0 * a64),
                      (F.add(t, t, alpha=0.5), 1.5 * a64), (F.sub(t, 1.0, alpha=2), a64 - 2)]:
        assert_close(got.numpy(), want, "float32")


def test_type_promotion_is_pytorchs():
    i32, i64 = opsnn.tensor([1, 2], dtype=opsnn.int32), opsnn.tensor([1, 2])
    i8, b = opsnn.tensor([1, 2], dtype=opsnn.int8), opsnn.tensor([True, False])
    f16, f32 = opsnn.tensor([1.0, 2.0], dtype=opsnn.float16), opsnn.tensor([1.0, 2.0])
    bf = opsnn.tensor([1.0, 2.0], dtype=opsnn.bfloat16)
    # facts of torch.result_type (PyTorch 1.13)
    assert (i32 + f16).dtype is opsnn.float16
    assert (i64 + 2.5).dtype is opsnn.float32
    assert (i32 + 7).dtype is opsnn.int32
    assert (i8 + i32).dtype is opsnn.int32
    assert (f16 + bf).dtype is opsnn.float32
    assert (f16 + opsnn.tensor(1.0)).dtype is opsnn.float16       # 0-dim float32 does not win
    assert (i32 + opsnn.tensor(1.5)).dtype is opsnn.float32       # a 0-dim of a higher category does
    assert (b + b).dtype is opsnn.bool
    assert (i32 / i32).dtype is opsnn.float32                     # true division
    assert F.div(i32, i32, rounding_mode="floor").dtype is opsnn.int32
    assert (f32 == f16).dtype is opsnn.bool
    assert (i32 + f16).tolist() == [2.0, 4.0]


def test_integer_and_comparison_ops_are_exact(rng):
    a = rng.integers(-50, 50, size=(5, 6)).astype(np.int32)
    c = rng.integers(1, 9, size=(6,)).astype(np.int32)
    ta, tc = opsnn.from_numpy(a), opsnn.from_numpy(c)
    assert np.array_equal((ta + tc).numpy(), a + c)
    assert np.array_equal((ta * tc).numpy(), a * c)
    assert np.array_equal(F.div(ta, tc, rounding_mode="floor").numpy(), a // c)
    assert np.array_equal(F.div(ta, tc, rounding_mode="trunc").numpy(), np.trunc(a / c).astype(np.int32))
    assert np.array_equal(F.remainder(ta, tc).numpy(), np.remainder(a, c))
    for op, f in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                  ("gt", np.greater), ("ge", np.greater_equal)]:
        got = getattr(F, op)(ta, tc)
        assert got.dtype is opsnn.bool and np.array_equal(got.numpy(), f(a, c)), op
    assert np.array_equal((ta > 0).numpy(), a > 0)
    assert np.array_equal(F.logical_and(ta > 0, ta < 20).numpy(), (a > 0) & (a < 20))
    assert np.array_equal((ta & 12).numpy(), a & 12)
    assert np.array_equal(F.where(ta > 0, ta, tc).numpy(), np.where(a > 0, a, c))
    x = opsnn.tensor([1.0, float("nan"), float("inf"), -1.0])
    assert F.isnan(x).tolist() == [False, True, False, False]
    assert F.isinf(x).tolist() == [False, False, True, False]


def test_special_values_propagate():
    x = opsnn.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0])
    assert_close(F.exp(x).numpy(), np.exp(np.array([np.nan, np.inf, -np.inf, 0, 0])), "float32")
    y = F.relu(x).numpy()
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == 0
    assert np.isnan(F.add(x, 1.0).numpy()[0])


def test_inplace_variants_write_the_operand(rng):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    t = opsnn.from_numpy(a)
    v = t[:, 1:4]  # in place on a non-contiguous view
    F.mul_(v, 2.0)
    F.add_(v, opsnn.ones(3), alpha=0.5)
    F.relu_(t)
    want = a.astype(np.float64).copy()
    want[:, 1:4] = want[:, 1:4] * 2 + 0.5
    assert_close(t.numpy(), np.maximum(want, 0), "float32")


@pytest.mark.parametrize("dtype", FLOATS)
def test_matmul_shapes_against_float64(rng, dtype):
    for sa, sb in [((5, 7), (7, 3)), ((2, 4, 6), (6, 5)), ((3, 1, 4, 6), (2, 6, 4)), ((6,), (6, 3)),
                   ((4, 6), (6,)), ((6,), (6,))]:
        a, av = _operand(rng, sa, dtype, -2, 2, noncontig=len(sa) > 1)
        b, bv = _operand(rng, sb, dtype, -2, 2, noncontig=False)
        y = a @ b
        want = np.matmul(av, bv)
        assert y.shape == want.shape and y.dtype.name == dtype
        # sums of products: an absolute bound from the summed magnitudes (precision.md)
        bound = {"float32": 2 ** -20, "float16": 2 ** -10, "bfloat16": 2 ** -7}[dtype]
        assert_close(y.numpy(), round_to(want, dtype), dtype, what=f"matmul {sa} {sb}",
                     abs_floor=bound * np.matmul(np.abs(av), np.abs(bv)).max())


def _softmax(x, d):
    e = np.exp(x - x.max(axis=d, keepdims=True))
    return e / e.sum(axis=d, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_and_log_softmax(rng, dtype):
    x, xv = _operand(rng, (4, 6, 9), dtype, -6, 6, noncontig=True)
    for d in (0, 1, -1):
        assert_close(F.softmax(x, d).numpy(), round_to(_softmax(xv, d), dtype), dtype, what=f"softmax {d}")
        lsm = np.log(_softmax(xv, d))
        assert_close(F.log_softmax(x, dim=d).numpy(), round_to(lsm, dtype), dtype, what=f"log_softmax {d}",
                     abs_floor=2 ** -9 if dtype != "float32" else 1e-6)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_and_mean(rng, dtype):
    x, xv = _operand(rng, (5, 6, 7), dtype, -3, 3, noncontig=True)
    for dim, keep in [(None, False), (1, False), ((0, 2), True), (-1, True)]:
        ax = None if dim is None else dim
        s = x.sum(dim, keepdim=keep) if dim is not None else x.sum()
        m = F.mean(x, dim, keepdim=keep)
        ws = np.sum(xv, axis=ax, keepdims=keep)
        wm = np.mean(xv, axis=ax, keepdims=keep)
        assert s.shape == np.shape(ws) and m.shape == np.shape(wm)
        bound = 2 ** -8 * np.sum(np.abs(xv), axis=ax, keepdims=keep).max()
        assert_close(s.numpy(), round_to(ws, dtype), dtype, what=f"sum {dim}", abs_floor=bound)
        assert_close(m.numpy(), round_to(wm, dtype), dtype, what=f"mean {dim}", abs_floor=bound / xv.size)
    ints = opsnn.tensor([[1, 2, 3], [4, 5, 6]], dtype=opsnn.int32)
    assert ints.sum().dtype is opsnn.int64 and ints.sum().item() == 21
    assert ints.sum(0).tolist() == [5, 7, 9]


def test_mse_loss(rng):
    a, av = _operand(rng, (6, 5), "float32", -3, 3, noncontig=True)
    b, bv = _operand(rng, (5,), "float32", -3, 3, noncontig=False)
    d2 = (av - bv) ** 2
    assert_close(F.mse_loss(a, b).numpy(), np.mean(d2), "float32")
    assert_close(F.mse_loss(a, b, reduction="sum").numpy(), np.sum(d2), "float32")
    assert_close(F.mse_loss(a, b, reduction="none").numpy(), d2, "float32")
    with pytest.raises(ValueError):
        F.mse_loss(a, b, reduction="avg")


def _cross_entropy(x, t, ignore=-100, smoothing=0.0):
    lsm = np.log(_softmax(x, 1))
    keep = t != ignore
    tt = np.where(keep, t, 0)
    nll = -lsm[np.arange(len(t)), tt]
    smooth = -lsm.mean(axis=1)
    per = (1 - smoothing) * nll + smoothing * smooth
    return np.where(keep, per, 0.0), keep


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_cross_entropy(rng, dtype):
    x, xv = _operand(rng, (12, 5), dtype, -4, 4, noncontig=False)
    tgt = rng.integers(0, 5, size=12)
    tgt[3] = -100
    t = opsnn.from_numpy(tgt)
    per, keep = _cross_entropy(xv, tgt)
    assert_close(F.cross_entropy(x, t).numpy(), round_to(per.sum() / keep.sum(), dtype), dtype)
    assert_close(F.cross_entropy(x, t, reduction="sum").numpy(), round_to(per.sum(), dtype), dtype)
    assert_close(F.cross_entropy(x, t, reduction="none").numpy(), round_to(per, dtype), dtype,
                 abs_floor=2 ** -8 if dtype != "float32" else 0)
    per_s, _ = _cross_entropy(xv, tgt, smoothing=0.1)
    assert_close(F.cross_entropy(x, t, label_smoothing=0.1).numpy(), round_to(per_s.sum() / keep.sum(), dtype), dtype)
    assert_close(F.nll_loss(F.log_softmax(x, 1), t).numpy(), round_to(per.sum() / keep.sum(), dtype), dtype)


def test_errors_raise_with_the_aclnn_message():
    a = opsnn.zeros(3, 4)
    with pytest.raises(opsnn.Error, match="aclnnMatmul"):
        a @ opsnn.zeros(5, 2)
    with pytest.raises(opsnn.Error) as e:
        F.relu(opsnn.tensor([True, False]))  # a dtype outside the table's rule
    assert e.value.code == 161002 and "aclnnRelu" in str(e.value)
    with pytest.raises(opsnn.Error, match="aclnnSoftmax"):
        F.softmax(a, 2)  # dim out of range
    with pytest.raises(TypeError):
        F.add(a, "x")
    with pytest.raises(TypeError):
        F.exp([1.0, 2.0])
    # an out-of-range class index fails the launch; the error surfaces when the result is read
    with pytest.raises(opsnn.Error) as e:
        F.cross_entropy(opsnn.zeros(2, 3), opsnn.tensor([0, 7])).item()
    assert e.value.code == 161002
    opsnn.synchronize()  # the stream is usable again
    assert (opsnn.ones(2) + 1).tolist() == [2.0, 2.0]


def test_clamp(rng):
    a = rng.uniform(-3, 3, (5, 6)).astype(np.float32)
    t = opsnn.from_numpy(a).T
    assert np.array_equal(F.clamp(t, -1, 2).numpy(), np.clip(a.T, -1, 2))
    assert np.array_equal(t.clamp(min=0.5).numpy(), np.maximum(a.T, 0.5))
    assert np.array_equal(F.clamp(t, max=-0.5).numpy(), np.minimum(a.T, -0.5))
    assert F.clamp(opsnn.tensor([1, 5, 9]), 2, 6).tolist() == [2, 5, 6]
    with pytest.raises(ValueError):
        F.clamp(t)

# Autograd: gradcheck (central finite differences, float32) of the aclnn backward ops and the
# composed gradients, accumulation, no_grad, errors; and gradcheck itself catches a wrong gradient.
import numpy as np
import pytest

import opsnn
import opsnn.functional as F
from opsnn.autograd import gradcheck, record


def leaf(rng, shape, lo=-2.0, hi=2.0, avoid=None):
    a = rng.uniform(lo, hi, size=shape)
    if avoid is not None:  # keep away from a kink (relu at 0, ...)
        a = np.where(np.abs(a - avoid) < 0.1, a + 0.3, a)
    return opsnn.tensor(a.astype(np.float32), requires_grad=True)


UNARY = [("relu", {}, 0.0, (-2, 2)), ("sigmoid", {}, None, (-3, 3)), ("tanh", {}, None, (-2, 2)),
         ("gelu", {}, None, (-3, 3)), ("silu", {}, None, (-3, 3)), ("exp", {}, None, (-2, 2)),
         ("log", {}, None, (0.5, 3)), ("sqrt", {}, None, (0.5, 3)), ("leaky_relu", {"negative_slope": 0.1}, 0.0, (-2, 2)),
         ("softplus", {}, None, (-3, 3)), ("elu", {}, 0.0, (-2, 2)), ("hardtanh", {}, 1.0, (-0.9, 2)),
         ("sin", {}, None, (-3, 3)), ("neg", {}, None, (-3, 3)), ("square", {}, None, (-2, 2)),
         ("reciprocal", {}, None, (0.5, 2)), ("rsqrt", {}, None, (0.5, 2)), ("mish", {}, None, (-2, 2)),
         ("logsigmoid", {}, None, (-3, 3)), ("abs", {}, 0.0, (-2, 2))]


@pytest.mark.parametrize("name,kw,kink,rng_", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradients(rng, name, kw, kink, rng_):
    x = leaf(rng, (3, 4), *rng_, avoid=kink)
    assert gradcheck(lambda t: getattr(F, name)(t, **kw), [x])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "minimum"])
def test_binary_gradients_with_broadcasting(rng, name):
    a = leaf(rng, (3, 4), 0.5, 2.0)
    b = leaf(rng, (4,), 0.6, 1.9)
    if name in ("maximum", "minimum"):  # keep every pair off the kink a == b (differences would cross it)
        av, bv = a.detach().numpy(), b.detach().numpy()
        a = opsnn.tensor(np.where(np.abs(av - bv) < 0.1, av + 0.25, av).astype(np.float32), requires_grad=True)
    assert gradcheck(lambda x, y: getattr(F, name)(x, y), [a, b])
    c = leaf(rng, (3, 4), 0.5, 2.0, avoid=1.5)  # off the scalar operand's kink
    assert gradcheck(lambda x: getattr(F, name)(x, 1.5), [c])


def test_gradients_through_views_and_reductions(rng):
    x = leaf(rng, (2, 3, 4), avoid=0.0)  # off where()'s kink at 0 (a difference across it is not the slope)
    assert gradcheck(lambda t: t.permute(2, 0, 1)[1:, :, ::2].reshape(3, -1), [x])
    assert gradcheck(lambda t: t[:, 1:2].expand(2, 5, 4) * 2, [x])
    assert gradcheck(lambda t: t.sum(1), [x])
    assert gradcheck(lambda t: F.mean(t, (0, 2), keepdim=True), [x])
    assert gradcheck(lambda t: t.sum(), [x])
    assert gradcheck(lambda t: t.T.contiguous().unsqueeze(0).squeeze(0), [x])
    assert gradcheck(lambda t: F.where(t > 0, t, t * 3), [x])
    y = leaf(rng, (3, 4), -2, 2, avoid=0.5)
    y = opsnn.tensor(np.where(np.abs(y.detach().numpy() + 0.5) < 0.1, 0.0, y.detach().numpy()), requires_grad=True)
    assert gradcheck(lambda t: F.clamp(t, -0.5, 0.5), [y])


def test_matmul_linear_softmax_losses(rng):
    a, b = leaf(rng, (4, 5)), leaf(rng, (5, 3))
    assert gradcheck(F.matmul, [a, b])
    assert gradcheck(F.matmul, [leaf(rng, (2, 3, 4)), leaf(rng, (4, 2))])
    assert gradcheck(F.matmul, [leaf(rng, (5,)), leaf(rng, (5, 3))])
    w, bias = leaf(rng, (3, 5)), leaf(rng, (3,))
    assert gradcheck(lambda x, w_, b_: F.linear(x, w_, b_), [a, w, bias])
    assert gradcheck(lambda x: F.softmax(x, 1), [a])
    assert gradcheck(lambda x: F.log_softmax(x, 0), [a])
    tgt = leaf(rng, (4, 5))
    assert gradcheck(lambda x, y: F.mse_loss(x, y), [a, tgt])
    assert gradcheck(lambda x, y: F.mse_loss(x, y, reduction="none"), [a, tgt])
    cls = opsnn.tensor(rng.integers(0, 5, size=4))
    assert gradcheck(lambda x: F.cross_entropy(x, cls), [a])
    assert gradcheck(lambda x: F.cross_entropy(x, cls, reduction="sum", label_smoothing=0.2), [a])
    assert gradcheck(lambda x: F.nll_loss(F.log_softmax(x, 1), cls), [a])


def test_gradcheck_catches_a_wrong_gradient(rng):
    def bad_square(t):
        out = F.mul(t.detach(), t.detach())
        return record(out, [t], "BadBackward", lambda g: F.mul(g, t.detach()))  # should be 2 * t
    with pytest.raises(AssertionError, match="analytical"):
        gradcheck(bad_square, [leaf(rng, (3,), 0.5, 1.5)])
    assert gradcheck(bad_square, [leaf(rng, (3,), 0.5, 1.5)], raise_exception=False) is False


def test_accumulation_reuse_and_values(rng):
    a = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    x = opsnn.tensor(a, requires_grad=True)
    y = (x * x + x).sum()  # x used three times
    y.backward()
    assert np.allclose(x.grad.numpy(), 2 * a + 1, rtol=1e-6)
    (x * 3).sum().backward()  # .grad accumulates
    assert np.allclose(x.grad.numpy(), 2 * a + 4, rtol=1e-6)
    x.grad = None
    z = x.sum(1)
    z.backward(opsnn.tensor([1.0, 2.0, 3.0]))
    assert np.allclose(x.grad.numpy(), np.repeat([[1.0], [2.0], [3.0]], 4, axis=1))


def test_no_grad_and_errors():
    x = opsnn.tensor([1.0, 2.0], requires_grad=True)
    with opsnn.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert (x * 2).grad_fn is not None
    assert not x.detach().requires_grad
    with pytest.raises(RuntimeError, match="scalar"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        opsnn.tensor([1.0]).sum().backward()
    with pytest.raises(RuntimeError, match="in-place"):
        F.add_(x, 1.0)
    with pytest.raises(RuntimeError, match="numpy"):
        x.numpy()

    @opsnn.no_grad()
    def f(t):
        return t * 3
    assert f(x).grad_fn is None


def test_mixed_dtype_gradients_come_back_in_the_input_dtype(rng):
    h = opsnn.tensor([1.0, 2.0], dtype=opsnn.float16, requires_grad=True)
    f = opsnn.tensor([3.0, 4.0], requires_grad=True)
    (h * f).sum().backward()
    assert h.grad.dtype is opsnn.float16 and h.grad.tolist() == [3.0, 4.0]
    assert f.grad.dtype is opsnn.float32 and f.grad.tolist() == [1.0, 2.0]


def test_backward_frees_the_graph_unless_retained():
    # PyTorch's retain_graph: by default backward drops what the graph saved (a captured training
    # step's activations can then die inside the step); a second backward then raises.
    x = opsnn.tensor(np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)
    y = opsnn.functional.sum(opsnn.functional.mul(x, x))
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array([4.0, 8.0, 12.0], np.float32))
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()

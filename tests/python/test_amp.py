# Mixed precision (issue #17): opsnn.autocast's per-op dtype policy, gradients through its casts,
# opsnn.GradScaler's dynamic loss scaling, and an MLP trained under both (examples/train_mlp.py)
# against the same training in float32. References are numpy float64.
import numpy as np
import pytest

import opsnn as ops
import opsnn.functional as F
import train_mlp  # examples/train_mlp.py
from conftest import assert_close


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("dt", [ops.bfloat16, ops.float16])
def test_linear_runs_in_low_precision_with_float32_gradients(dt):
    xn, wn, bn = _rand(8, 16, seed=1), _rand(4, 16, seed=2), _rand(4, seed=3)
    x = ops.from_numpy(xn)
    w = ops.from_numpy(wn).requires_grad_()
    b = ops.from_numpy(bn).requires_grad_()
    with ops.autocast(dt):
        y = F.linear(x, w, b)
        assert ops.is_autocast_enabled() and ops.get_autocast_dtype() is dt
    assert not ops.is_autocast_enabled()
    assert y.dtype is dt
    # the op computes on the inputs rounded to dt: the reference takes the same rounded inputs
    r = {k: ops.from_numpy(v).to(dt).to(ops.float32).numpy().astype(np.float64) for k, v in
         dict(x=xn, w=wn, b=bn).items()}
    assert_close(y.detach().to(ops.float32).numpy(), r["x"] @ r["w"].T + r["b"], dt.name)
    y.to(ops.float32).sum().backward()
    assert w.grad.dtype is ops.float32 and b.grad.dtype is ops.float32
    assert_close(w.grad.numpy(), np.tile(r["x"].sum(0), (4, 1)), dt.name)
    assert_close(b.grad.numpy(), np.full(4, 8.0), "float32")


def test_float32_ops_and_nesting():
    x = ops.from_numpy(_rand(4, 6)).to(ops.bfloat16)
    with ops.autocast(ops.bfloat16):
        s = F.softmax(x, -1)             # float32 op: a bfloat16 input is widened
        m = F.matmul(x, x.transpose(0, 1))  # low precision
        a = F.add(x, 1.0)                # neither: as given
        with ops.autocast(enabled=False):
            mm32 = F.matmul(x.to(ops.float32), x.to(ops.float32).transpose(0, 1))
        loss = F.mse_loss(m, ops.zeros(4, 4))
    assert s.dtype is ops.float32 and m.dtype is ops.bfloat16 and a.dtype is ops.bfloat16
    assert mm32.dtype is ops.float32 and loss.dtype is ops.float32
    xn = x.to(ops.float32).numpy().astype(np.float64)
    e = np.exp(xn - xn.max(-1, keepdims=True))
    assert_close(s.numpy(), e / e.sum(-1, keepdims=True), "float32")
    # the decorator form
    f = ops.autocast(ops.float16)(lambda u: F.mm(u, u))
    assert f(ops.ones(3, 3)).dtype is ops.float16
    assert "matmul" in ops.amp.LOW_PRECISION_OPS and "softmax" in ops.amp.FLOAT32_OPS
    with pytest.raises(ValueError, match="bfloat16 or opsnn.float16"):
        ops.autocast(ops.int8)


class _Opt:
    """A stand-in optimiser: records whether step() ran."""

    def __init__(self, params):
        self.params, self.steps = params, 0

    def step(self):
        self.steps += 1


def test_grad_scaler_unscales_skips_backs_off_and_grows():
    w = ops.from_numpy(np.array([1.0, -2.0, 3.0], np.float32)).requires_grad_()
    opt = _Opt([w])
    scaler = ops.GradScaler(growth_interval=3)
    assert scaler.get_scale() == 4096.0
    loss = F.sum(F.mul(w, w))
    scaled = scaler.scale(loss)
    assert scaled.item() == pytest.approx(14.0 * 4096)
    scaled.backward()
    assert_close(w.grad.numpy(), np.array([2.0, -4.0, 6.0]) * 4096, "float32")
    scaler.step(opt)  # unscales first
    assert_close(w.grad.numpy(), [2.0, -4.0, 6.0], "float32")
    assert opt.steps == 1
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.update()
    # an inf gradient: the step is skipped and the scale backs off
    for bad in (np.inf, np.nan):
        w.grad = ops.from_numpy(np.array([1.0, bad, 0.0], np.float32))
        scaler.step(opt)
        scaler.update()
    assert opt.steps == 1 and scaler.get_scale() == 1024.0
    for _ in range(3):  # three clean steps: growth
        w.grad = ops.from_numpy(np.array([1.0, 1.0, 1.0], np.float32))
        scaler.step(opt)
        scaler.update()
    assert opt.steps == 4 and scaler.get_scale() == 2048.0
    state = scaler.state_dict()
    other = ops.GradScaler()
    other.load_state_dict(state)
    assert other.get_scale() == 2048.0 and other.state_dict() == state
    off = ops.GradScaler(enabled=False)
    assert off.scale(loss) is loss and off.get_scale() == 1.0
    with pytest.raises(ValueError):
        ops.GradScaler(backoff_factor=1.5)


def _accuracy(state):
    x, _, y = train_mlp.make_data(seed=0)
    model = train_mlp.make_model("classification")
    model.load_state_dict(state)
    with ops.no_grad():
        logits = model(ops.from_numpy(x)).numpy()
    return float((logits.argmax(1) == y).mean())


@pytest.mark.parametrize("dt", [ops.bfloat16, ops.float16])
def test_mixed_precision_training_reaches_the_float32_accuracy(dt):
    cfg = dict(steps=150, lr=0.05, momentum=0.9, weight_decay=1e-4, batch=64, seed=0)
    _, l32, s32 = train_mlp.train("classification", **cfg)
    _, lmp, smp = train_mlp.train("classification", amp=dt, **cfg)
    acc32, accmp = _accuracy(s32), _accuracy(smp)
    assert acc32 > 0.8, "the float32 run did not learn"
    assert accmp >= acc32 - 0.03, f"{dt.name}: accuracy {accmp:.3f} vs float32 {acc32:.3f}"
    # the low-precision run follows the float32 one: its losses stay within a few percent
    assert np.abs(np.array(lmp) - np.array(l32)).max() < 0.05 * max(l32)

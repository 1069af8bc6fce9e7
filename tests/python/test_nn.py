# opsnn.nn and opsnn.optim: modules, state dicts, Linear against numpy, SGD against PyTorch's
# update rule written out in numpy float64.
import numpy as np
import pytest

import opsnn
from opsnn import nn
from conftest import assert_close


def test_module_registration_and_state_dict(rng):
    opsnn.manual_seed(1)
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2, bias=False))
    names = [n for n, _ in m.named_parameters()]
    assert names == ["0.weight", "0.bias", "2.weight"]
    sd = m.state_dict()
    assert [k for k in sd] == names and all(isinstance(v, np.ndarray) for v in sd.values())
    assert sd["0.weight"].shape == (4, 3) and np.all(np.abs(sd["0.weight"]) <= 1 / np.sqrt(3))
    new = {k: rng.standard_normal(v.shape).astype(np.float32) for k, v in sd.items()}
    m.load_state_dict(new)
    for k, v in m.state_dict().items():
        assert np.array_equal(v, new[k])
    with pytest.raises(KeyError):
        m.load_state_dict({"0.weight": new["0.weight"]})
    with pytest.raises(ValueError, match="shape"):
        m.load_state_dict(dict(new, **{"0.bias": np.zeros(5, np.float32)}))
    assert "Linear(in_features=3, out_features=4, bias=True)" in repr(m)
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())


def test_linear_and_activations_match_numpy(rng):
    lin = nn.Linear(5, 3)
    x = rng.standard_normal((7, 5)).astype(np.float32)
    W, b = lin.weight.detach().numpy().astype(np.float64), lin.bias.detach().numpy().astype(np.float64)
    y = lin(opsnn.from_numpy(x))
    want = x.astype(np.float64) @ W.T + b
    assert_close(y.detach().numpy(), want, "float32", abs_floor=1e-6)
    for mod, f in [(nn.ReLU(), lambda v: np.maximum(v, 0)), (nn.Tanh(), np.tanh),
                   (nn.Sigmoid(), lambda v: 1 / (1 + np.exp(-v)))]:
        assert_close(mod(y).detach().numpy(), f(y.detach().numpy().astype(np.float64)), "float32")


@pytest.mark.parametrize("momentum,dampening,wd,nesterov", [(0.0, 0.0, 0.0, False), (0.9, 0.0, 0.01, False),
                                                          (0.8, 0.1, 0.0, False), (0.9, 0.0, 0.001, True)])
def test_sgd_matches_pytorch_rule(rng, momentum, dampening, wd, nesterov):
    p0 = rng.standard_normal((4, 3))
    grads = [rng.standard_normal((4, 3)) for _ in range(5)]
    p = nn.Parameter(p0.astype(np.float32))
    opt = opsnn.optim.SGD([p], lr=0.1, momentum=momentum, dampening=dampening, weight_decay=wd, nesterov=nesterov)
    ref, buf = p0.astype(np.float32).astype(np.float64), None
    for g in grads:
        p.grad = opsnn.from_numpy(g.astype(np.float32))
        opt.step()
        d = g.astype(np.float32).astype(np.float64) + wd * ref
        if momentum:
            buf = d.copy() if buf is None else momentum * buf + (1 - dampening) * d
            d = d + momentum * buf if nesterov else buf
        ref = ref - 0.1 * d
        assert_close(p.detach().numpy(), ref, "float32", abs_floor=1e-6)
    opt.zero_grad()
    assert p.grad is None
    with pytest.raises(ValueError):
        opsnn.optim.SGD([p], lr=0.1, nesterov=True)


def test_training_a_linear_model_reduces_the_loss(rng):
    x = rng.standard_normal((64, 4)).astype(np.float32)
    w = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    y = x @ w + 0.1
    model = nn.Linear(4, 1)
    opt = opsnn.optim.SGD(model.parameters(), lr=0.1)
    X, Y = opsnn.from_numpy(x), opsnn.from_numpy(y)
    first = None
    for _ in range(100):
        opt.zero_grad()
        loss = nn.MSELoss()(model(X), Y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 1e-3 * first
    assert np.allclose(model.weight.detach().numpy().T, w, atol=1e-2)


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("wd,amsgrad,maximize,betas", [(0.0, False, False, (0.9, 0.999)), (0.05, False, False, (0.8, 0.99)),
                                                       (0.01, True, False, (0.9, 0.999)), (0.02, False, True, (0.9, 0.999))])
def test_adam_adamw_match_pytorch_rule(rng, cls, wd, amsgrad, maximize, betas):
    """PyTorch 1.13's Adam / AdamW (single-tensor form) written out in numpy float64; opsnn runs them on
    aclnnApplyAdam / aclnnApplyAdamW."""
    p0 = rng.standard_normal((5, 4))
    p = nn.Parameter(p0.astype(np.float32))
    lr, eps = 0.01, 1e-8
    opt = getattr(opsnn.optim, cls)([p], lr=lr, betas=betas, eps=eps, weight_decay=wd, amsgrad=amsgrad,
                                    maximize=maximize)
    b1, b2 = betas
    ref = p0.astype(np.float32).astype(np.float64)
    m, v, vmax = np.zeros_like(ref), np.zeros_like(ref), np.zeros_like(ref)
    for step in range(1, 9):
        g = rng.standard_normal(ref.shape).astype(np.float32).astype(np.float64)
        p.grad = opsnn.from_numpy(g.astype(np.float32))
        opt.step()
        d = -g if maximize else g
        if cls == "AdamW":
            ref = ref * (1 - lr * wd)
        elif wd:
            d = d + wd * ref
        m = b1 * m + (1 - b1) * d
        v = b2 * v + (1 - b2) * d * d
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        if amsgrad:
            vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / np.sqrt(bc2) + eps
        ref = ref - lr / bc1 * m / denom
        assert_close(p.detach().numpy(), ref, "float32", f"{cls} step {step}", abs_floor=1e-6)
    st = opt.state[id(p)]
    assert_close(st["exp_avg"].numpy(), m, "float32", "exp_avg", abs_floor=1e-7)
    assert_close(st["exp_avg_sq"].numpy(), v, "float32", "exp_avg_sq", abs_floor=1e-9)
    opt.zero_grad()
    assert p.grad is None
    with pytest.raises(ValueError):
        getattr(opsnn.optim, cls)([p], lr=-1.0)

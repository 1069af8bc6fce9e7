# The proof of the framework layer: examples/train_mlp.py trains an MLP with opsnn; the same
# model from the same initial weights and batches is trained here in numpy float64 (forward,
# backward and SGD written out below), and the per-step losses must agree to the precision
# standard's float32 tolerance.
import numpy as np
import pytest

import train_mlp  # examples/train_mlp.py
from conftest import assert_close


def reference_train(task, init, steps, lr, momentum, weight_decay, batch, seed):
    x, y_reg, y_cls = train_mlp.make_data(seed=seed)
    x = x.astype(np.float64)
    W = {k: v.astype(np.float64).copy() for k, v in init.items()}
    names = ["0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"]
    buf = {}
    losses = []
    n = x.shape[0]
    for step in range(steps):
        lo = (step * batch) % n
        xb = x[lo:lo + batch]
        # forward: Linear, ReLU, Linear, Tanh, Linear
        z1 = xb @ W["0.weight"].T + W["0.bias"]
        h1 = np.maximum(z1, 0)
        z2 = h1 @ W["2.weight"].T + W["2.bias"]
        h2 = np.tanh(z2)
        out = h2 @ W["4.weight"].T + W["4.bias"]
        if task == "regression":
            yb = y_reg[lo:lo + batch].astype(np.float64)
            diff = out - yb
            loss = np.mean(diff ** 2)
            dout = 2 * diff / diff.size
        else:
            yb = y_cls[lo:lo + batch]
            m = out.max(axis=1, keepdims=True)
            lse = m + np.log(np.exp(out - m).sum(axis=1, keepdims=True))
            logp = out - lse
            loss = -np.mean(logp[np.arange(len(yb)), yb])
            p = np.exp(logp)
            p[np.arange(len(yb)), yb] -= 1
            dout = p / len(yb)
        losses.append(loss)
        # backward
        G = {"4.weight": dout.T @ h2, "4.bias": dout.sum(0)}
        dz2 = (dout @ W["4.weight"]) * (1 - h2 ** 2)
        G["2.weight"], G["2.bias"] = dz2.T @ h1, dz2.sum(0)
        dz1 = (dz2 @ W["2.weight"]) * (z1 > 0)
        G["0.weight"], G["0.bias"] = dz1.T @ xb, dz1.sum(0)
        # SGD with momentum and weight decay (PyTorch's rule)
        for k in names:
            d = G[k] + weight_decay * W[k]
            buf[k] = d.copy() if k not in buf else momentum * buf[k] + d
            W[k] -= lr * buf[k]
    return np.array(losses), W


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_mlp_losses_match_float64_reference(task):
    cfg = dict(steps=50, lr=0.05, momentum=0.9, weight_decay=1e-4, batch=64, seed=0)
    init, losses, final = train_mlp.train(task, **cfg)
    ref, ref_w = reference_train(task, init, **cfg)
    assert len(losses) == cfg["steps"]
    assert losses[-1] < 0.7 * losses[0], "the model did not learn"  # the run is a real training
    assert_close(losses, ref, "float32", what=f"{task} losses")
    for k, v in final.items():  # and the weights end where the reference's do
        assert_close(v, ref_w[k], "float32", what=k, abs_floor=1e-5 * np.abs(ref_w[k]).max())


def test_mlp_reference_detects_a_different_model():
    # The comparison can fail: the reference trained with another learning rate disagrees.
    cfg = dict(steps=20, lr=0.05, momentum=0.9, weight_decay=1e-4, batch=64, seed=0)
    init, losses, _ = train_mlp.train("regression", **cfg)
    ref, _ = reference_train("regression", init, **dict(cfg, lr=0.06))
    with pytest.raises(AssertionError):
        assert_close(losses, ref, "float32")

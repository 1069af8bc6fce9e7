#!/usr/bin/env python3
"""Train a small MLP with opsnn (the framework layer on the aclnn ops) on data generated here.

    PYTHONPATH=build/python /usr/bin/python3 examples/train_mlp.py      # from the build tree
    PYTHONPATH=dist/python  /usr/bin/python3 examples/train_mlp.py      # from the install tree

Two tasks on the same 2-D points: regression (MSELoss) of a smooth function of the point and
classification (CrossEntropyLoss) of which of three spiral arms the point lies on. The test
tests/python/test_mlp.py trains the same models from the same initial weights in numpy float64
and checks the losses agree step by step."""
import argparse

import numpy as np

import opsnn
from opsnn import nn


def make_data(n=256, seed=0):
    rng = np.random.default_rng(seed)
    arm = rng.integers(0, 3, size=n)
    r = rng.uniform(0.1, 1.0, size=n)
    theta = r * 3.0 + arm * (2 * np.pi / 3) + rng.normal(0, 0.15, size=n)
    x = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1)
    y_reg = (np.sin(3 * x[:, 0]) * np.cos(2 * x[:, 1]) + 0.5 * x[:, 0] ** 2)[:, None]
    return x.astype(np.float32), y_reg.astype(np.float32), arm.astype(np.int64)


def make_model(task, seed=0, hidden=32):
    opsnn.manual_seed(seed)
    out = 1 if task == "regression" else 3
    return nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, out))


def train(task="regression", steps=50, lr=0.05, momentum=0.9, weight_decay=1e-4, batch=64, seed=0, verbose=False,
          amp=None):
    """Returns (initial state_dict, list of per-step losses, final state_dict). amp: None (float32)
    or opsnn.bfloat16 / opsnn.float16: the forward pass under opsnn.autocast(amp), the backward
    through an opsnn.GradScaler (mixed precision)."""
    x, y_reg, y_cls = make_data(seed=seed)
    model = make_model(task, seed)
    init = {k: v.copy() for k, v in model.state_dict().items()}
    loss_fn = nn.MSELoss() if task == "regression" else nn.CrossEntropyLoss()
    opt = opsnn.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
    scaler = opsnn.GradScaler(enabled=amp is not None)
    losses = []
    n = x.shape[0]
    for step in range(steps):
        lo = (step * batch) % n
        xb = opsnn.from_numpy(x[lo:lo + batch])
        yb = opsnn.from_numpy(y_reg[lo:lo + batch] if task == "regression" else y_cls[lo:lo + batch])
        opt.zero_grad()
        with opsnn.autocast(amp or opsnn.bfloat16, enabled=amp is not None):
            loss = loss_fn(model(xb), yb)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
        if verbose and (step % 10 == 0 or step == steps - 1):
            print(f"{task:>14} step {step:3d}  loss {losses[-1]:.6f}")
    return init, losses, model.state_dict()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--amp", choices=["bfloat16", "float16"], help="mixed precision (autocast + GradScaler)")
    args = ap.parse_args()
    for task in ("regression", "classification"):
        _, losses, _ = train(task, steps=args.steps, verbose=True, amp=args.amp and opsnn.as_dtype(args.amp))
        print(f"{task}: loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    print("aclnn call path:", opsnn.call_stats())


if __name__ == "__main__":
    main()

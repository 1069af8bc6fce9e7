#!/usr/bin/env python3
"""Train a small CNN with opsnn (the framework layer on the aclnn ops) on images drawn here.

    PYTHONPATH=build/python /usr/bin/python3 examples/train_cnn.py      # from the build tree
    PYTHONPATH=dist/python  /usr/bin/python3 examples/train_cnn.py      # from the install tree

The data: 16 x 16 grey images of four procedurally drawn shapes (disc, square, triangle, cross)
of random size, position and brightness on a noisy background. The model: conv-bn-relu-pool twice
and a linear layer (Conv2d without bias: BatchNorm follows; its gradient would be 0, BatchNorm2d, ReLU, MaxPool2d, Flatten, Linear: aclnnConvolution,
aclnnBatchNorm, aclnnMaxPool2dWithIndices, ... and their backward ops), trained with Adam
(aclnnApplyAdam) on CrossEntropyLoss. tests/python/test_cnn.py trains the same model in PyTorch
1.13 from the same initial weights and batches and checks the loss curves agree step by step."""
import argparse
import time

import numpy as np

import opsnn
from opsnn import nn

SIZE = 16
CLASSES = ("disc", "square", "triangle", "cross")


def make_data(n=512, seed=0):
    """(images [n, 1, 16, 16] float32, labels [n] int64)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64) + 0.5
    x = np.empty((n, 1, SIZE, SIZE), np.float32)
    y = rng.integers(0, len(CLASSES), size=n)
    for i in range(n):
        r = rng.uniform(3.0, 6.0)
        cx, cy = rng.uniform(r, SIZE - r, size=2)
        dx, dy = xx - cx, yy - cy
        k = y[i]
        if k == 0:
            mask = dx * dx + dy * dy <= r * r
        elif k == 1:
            mask = (np.abs(dx) <= r * 0.8) & (np.abs(dy) <= r * 0.8)
        elif k == 2:
            mask = (dy <= r * 0.7) & (dy >= -r * 0.9 + 1.6 * np.abs(dx))
        else:
            w = max(r * 0.3, 1.0)
            mask = ((np.abs(dx) <= w) & (np.abs(dy) <= r)) | ((np.abs(dy) <= w) & (np.abs(dx) <= r))
        img = rng.normal(0.0, 0.15, size=(SIZE, SIZE)) + mask * rng.uniform(0.6, 1.2)
        x[i, 0] = img
    return x, y.astype(np.int64)


def make_model(seed=0, c1=8, c2=16):
    opsnn.manual_seed(seed)
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, padding=1, bias=False), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(c1, c2, 3, padding=1, bias=False), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(c2 * (SIZE // 4) ** 2, len(CLASSES)))


def batches(steps, batch=32, n=512, seed=0):
    """The (images, labels) numpy batches of every step: one shuffled pass over the data after another."""
    x, y = make_data(n, seed)
    rng = np.random.default_rng(seed + 1)
    order = np.concatenate([rng.permutation(n) for _ in range((steps * batch) // n + 1)])
    for s in range(steps):
        idx = order[s * batch:(s + 1) * batch]
        yield x[idx], y[idx]


def train(steps=200, batch=32, lr=3e-3, seed=0, verbose=False):
    """Returns (initial state_dict, per-step losses, the trained model)."""
    model = make_model(seed)
    init = {k: v.copy() for k, v in model.state_dict().items()}
    opt = opsnn.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    model.train()
    for step, (xb, yb) in enumerate(batches(steps, batch, seed=seed)):
        opt.zero_grad()
        loss = loss_fn(model(opsnn.from_numpy(xb)), opsnn.from_numpy(yb))
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if verbose and (step % 25 == 0 or step == steps - 1):
            print(f"step {step:3d}  loss {losses[-1]:.5f}")
    return init, losses, model


def accuracy(model, n=256, seed=123):
    x, y = make_data(n, seed)
    model.eval()
    with opsnn.no_grad():
        pred = model(opsnn.from_numpy(x)).numpy().argmax(axis=1)
    return float((pred == y).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()
    t0 = time.time()
    _, losses, model = train(args.steps, verbose=True)
    acc = accuracy(model)
    print(f"cnn: loss {losses[0]:.4f} -> {losses[-1]:.4f}, held-out accuracy {acc:.3f} "
          f"({args.steps} steps, {time.time() - t0:.1f} s)")
    print("aclnn call path:", opsnn.call_stats())


if __name__ == "__main__":
    main()

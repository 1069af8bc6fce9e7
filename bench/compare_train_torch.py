#!/usr/bin/env python3
"""The framework's speed proof (issue #17): one training step of examples/train_mlp.py's MLP and of
examples/train_cnn.py's CNN, and the CNN's inference, in opsnn and in PyTorch 1.13 eager, same
models, same batches, same thread count, timed alternately in one process.

    OPSNN_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 bench/compare_train_torch.py \
        [--threads 1] [--repeat 5] [--steps 50] [--batch 32]

Prints per case the milliseconds per step of each library (best of `--repeat` alternating rounds of
`--steps` steps each, after a warm-up round) and torch / opsnn (> 1: opsnn is faster), by the wall
clock and by the process's CPU time (all its threads).
Targets: training >= 1.0, CNN inference >= 1.5."""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import opsnn  # noqa: E402
import train_cnn  # noqa: E402
import train_mlp  # noqa: E402

try:
    import torch
except ImportError:
    sys.exit("compare_train_torch.py needs python3-torch (the peer)")


def torch_mlp(task):
    out = 1 if task == "regression" else 3
    return torch.nn.Sequential(torch.nn.Linear(2, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
                               torch.nn.Linear(32, out))


def torch_cnn(c1=8, c2=16):
    s = train_cnn.SIZE
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, c1, 3, padding=1, bias=False), torch.nn.BatchNorm2d(c1), torch.nn.ReLU(),
        torch.nn.MaxPool2d(2), torch.nn.Conv2d(c1, c2, 3, padding=1, bias=False), torch.nn.BatchNorm2d(c2),
        torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(c2 * (s // 4) ** 2, 4))


def load(tmodel, state):
    tmodel.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in state.items()})


def train_step(model, opt, loss_fn, x, y):
    """One training step (the same code drives both libraries: their APIs agree here)."""
    def step():
        model.train()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def inference(model, x, no_grad):
    def run():
        model.eval()
        with no_grad():
            return model(x)
    return run


def cases(batch):
    """(name, opsnn step function, torch step function, opsnn's synchronise) per case."""
    om, tm = train_mlp.make_model("classification"), torch_mlp("classification")
    load(tm, om.state_dict())
    x, _, y = train_mlp.make_data(n=max(batch, 64))
    x, y = x[:batch], y[:batch]
    oc, tc = train_cnn.make_model(), torch_cnn()
    load(tc, oc.state_dict())
    xb, yb = next(train_cnn.batches(1, batch))
    O, T = opsnn.from_numpy, torch.from_numpy
    oloss, tloss = opsnn.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    sgd = dict(lr=0.01, momentum=0.9)
    return [
        (f"MLP train step (batch {batch})",
         train_step(om, opsnn.optim.SGD(om.parameters(), **sgd), oloss, O(x), O(y)),
         train_step(tm, torch.optim.SGD(tm.parameters(), **sgd), tloss, T(x), T(y)), opsnn.synchronize),
        (f"CNN train step (batch {batch})",
         train_step(oc, opsnn.optim.Adam(oc.parameters(), lr=1e-3), oloss, O(xb), O(yb)),
         train_step(tc, torch.optim.Adam(tc.parameters(), lr=1e-3), tloss, T(xb), T(yb)), opsnn.synchronize),
        (f"CNN inference (batch {batch})", inference(oc, O(xb), opsnn.no_grad), inference(tc, T(xb), torch.no_grad),
         opsnn.synchronize),
    ]


def timed(fn, steps, sync):
    """(wall ms, process CPU ms) per step: CPU time counts every thread of the process (opsnn's stream
    worker included) and is less sensitive to a loaded machine than the wall clock."""
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        r = fn()
    sync()
    if r.dim() == 0:
        r.item()  # the last result is read back: everything before it has run
    return (time.perf_counter() - t0) / steps * 1e3, (time.process_time() - c0) / steps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=int(os.environ.get("OPSNN_NUM_THREADS", "1")))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    print(f"threads {args.threads} (OPSNN_NUM_THREADS={os.environ.get('OPSNN_NUM_THREADS', 'unset')}), "
          f"torch {torch.__version__}, best of {args.repeat} alternating rounds of {args.steps} steps")
    print(f"{'case':<32} {'opsnn ms':>9} {'torch ms':>9} {'torch/opsnn':>12} {'opsnn cpu':>10} {'torch cpu':>10} "
          f"{'cpu ratio':>10}")
    for name, o, t, sync in cases(args.batch):
        timed(o, 3, sync)
        timed(t, 3, lambda: None)
        ot, tt = [], []
        for _ in range(args.repeat):
            ot.append(timed(o, args.steps, sync))
            tt.append(timed(t, args.steps, lambda: None))
        ow, tw = min(x[0] for x in ot), min(x[0] for x in tt)
        oc, tc = min(x[1] for x in ot), min(x[1] for x in tt)
        print(f"{name:<32} {ow:9.3f} {tw:9.3f} {tw / ow:12.2f} {oc:10.3f} {tc:10.3f} {tc / oc:10.2f}")


if __name__ == "__main__":
    main()

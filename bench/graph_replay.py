#!/usr/bin/env python3
"""opsnn.graph (issue #17): peak memory of a captured step with planned memory against the same
step run eagerly, and a replay's time against an eager step's, for examples/train_mlp.py's MLP
(training with SGD + momentum) and examples/train_cnn.py's CNN (training with SGD + momentum, and
inference).

    OPSNN_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 bench/graph_replay.py \
        [--repeat 5] [--steps 50] [--batch 32]

Memory (KiB; blocks rounded to 512 B): eager = the eager step's storage peak above what was
allocated before it (memory_stats) + its largest workspace (the eager workspace arena's need);
live = the most bytes the step holds at once (no plan needs less); planned = the graph's arena;
no-plan = every block of the step summed (what a capture keeps without planning). Time: ms per
step, best of `--repeat` alternating rounds of `--steps` steps (eager steps vs replays), each round
ended by a synchronize."""
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


def training(model, x, y):
    opt = opsnn.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = opsnn.nn.CrossEntropyLoss()
    model.train()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def inference(model, x):
    model.eval()

    def run():
        with opsnn.no_grad():
            return model(x)
    return run


def cases(batch):
    x, _, y = train_mlp.make_data(n=max(batch, 64))
    xb, yb = next(train_cnn.batches(1, batch))
    O = opsnn.from_numpy
    return [
        (f"MLP train step (batch {batch})", training(train_mlp.make_model("classification"), O(x[:batch]), O(y[:batch]))),
        (f"CNN train step (batch {batch})", training(train_cnn.make_model(), O(xb), O(yb))),
        (f"CNN inference (batch {batch})", inference(train_cnn.make_model(), O(xb))),
    ]


def timed(fn, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        fn()
    opsnn.synchronize()
    return (time.perf_counter() - t0) / steps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--batch", type=int, default=32)
    args = ap.parse_args()
    print(f"OPSNN_NUM_THREADS={os.environ.get('OPSNN_NUM_THREADS', 'unset')}, best of {args.repeat} alternating "
          f"rounds of {args.steps} steps")
    print(f"{'case':<30} {'eager KiB':>9} {'live KiB':>9} {'planned KiB':>11} {'no-plan KiB':>11} "
          f"{'eager ms':>9} {'replay ms':>9} {'speed-up':>8}")
    for name, step in cases(args.batch):
        g = opsnn.graph(step)
        r = g.memory_report()
        eager_bytes = r["eager_peak_bytes"] + r["largest_workspace_bytes"]
        timed(step, 3)
        timed(g.replay, 3)
        te, tr = [], []
        for _ in range(args.repeat):
            te.append(timed(step, args.steps))
            tr.append(timed(g.replay, args.steps))
        k = 1024
        print(f"{name:<30} {eager_bytes / k:9.1f} {r['live_peak_bytes'] / k:9.1f} {r['planned_bytes'] / k:11.1f} "
              f"{r['unplanned_bytes'] / k:11.1f} {min(te):9.3f} {min(tr):9.3f} {min(te) / min(tr):8.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""nn.LSTM / nn.GRU (aclnnLSTM / aclnnGRU and their backward ops) against torch.nn.LSTM / GRU
(PyTorch 1.13 eager), same weights, same input, same thread count, timed alternately in one
process: inference (no_grad) and one forward + backward.

    OPSNN_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 bench/compare_rnn_torch.py \
        [--threads 1] [--repeat 5] [--iters 20]

Prints per case the best-of-`--repeat` milliseconds per call of each library and torch / opsnn
(> 1: opsnn is faster)."""
import argparse
import time

import numpy as np

import opsnn

try:
    import torch
except ImportError:
    raise SystemExit("compare_rnn_torch.py needs python3-torch (the peer)")

CASES = [  # kind, T, B, input, hidden, layers, bidirectional
    ("LSTM", 32, 1, 256, 256, 1, False),
    ("LSTM", 32, 16, 256, 256, 2, False),
    ("LSTM", 64, 8, 128, 128, 1, True),
    ("GRU", 32, 1, 256, 256, 1, False),
    ("GRU", 32, 16, 256, 256, 2, False),
]


def timed(fn, iters):
    fn()  # warm-up (phase 1, caches)
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t0) / iters * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--iters", type=int, default=20)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    rng = np.random.default_rng(0)
    print(f"threads {a.threads}; ms per call, best of {a.repeat} alternating rounds of {a.iters}")
    print(f"{'case':<34}{'mode':<10}{'opsnn':>9}{'torch':>9}{'torch/opsnn':>13}")
    for kind, T, B, I, H, L, bi in CASES:
        tm = getattr(torch.nn, kind)(I, H, num_layers=L, bidirectional=bi)
        om = getattr(opsnn.nn, kind)(I, H, num_layers=L, bidirectional=bi)
        om.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})
        x = rng.standard_normal((T, B, I)).astype(np.float32)
        tx, ox = torch.from_numpy(x), opsnn.from_numpy(x)
        txg = tx.clone().requires_grad_(True)
        oxg = opsnn.tensor(x, requires_grad=True)

        def t_inf():
            with torch.no_grad():
                tm(tx)

        def o_inf():
            with opsnn.no_grad():
                out = om(ox)[0]
            out.numpy()  # waits for the result

        def t_train():
            tm.zero_grad()
            tm(txg)[0].sum().backward()

        def o_train():
            om.zero_grad()
            om(oxg)[0].sum().backward()
            oxg.grad.numpy()

        name = f"{kind} T{T} B{B} I{I} H{H} L{L}{' bi' if bi else ''}"
        for mode, ofn, tfn in (("infer", o_inf, t_inf), ("train", o_train, t_train)):
            best_o, best_t = float("inf"), float("inf")
            for _ in range(a.repeat):
                best_o = min(best_o, timed(ofn, a.iters))
                best_t = min(best_t, timed(tfn, a.iters))
            print(f"{name:<34}{mode:<10}{best_o:9.3f}{best_t:9.3f}{best_t / best_o:13.2f}")


if __name__ == "__main__":
    main()

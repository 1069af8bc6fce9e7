#!/usr/bin/python3
"""The PyTorch 1.13 peer of bench/bench_sampling.cpp: top-k / top-p / q-sampling of [8, 152064] logits composed
from torch ops as a serving stack writes it (topk, softmax, cumsum, the nucleus mask, probs / q, argmax; top-p
alone sorts the whole row). Same distributions (logits ~ N(0, 4^2), q ~ Exp(1)), same dtypes (BF16 logits for
V1's cases, FLOAT for V2's). Threads: OPSNN_NUM_THREADS (default 1).
Prints one line per case: "<name> <median ms>".
"""
import os
import time

import torch

ROWS, VOCAB = 8, 152064


def sample(logits, q, k, p):
    if k > 0:
        vals, idx = torch.topk(logits, k, dim=-1)
    else:
        vals, idx = torch.sort(logits, dim=-1, descending=True)
    probs = torch.softmax(vals.float(), dim=-1)
    before = torch.cumsum(probs, dim=-1) - probs  # the mass before each token
    probs = probs.masked_fill(before >= p, 0.0)
    choice = (probs / (q[:, : probs.shape[1]] + 1e-8)).argmax(dim=-1, keepdim=True)
    return idx.gather(-1, choice)


def timed(fn, reps=30):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return sorted(ts)[len(ts) // 2]


def main():
    torch.set_num_threads(int(os.environ.get("OPSNN_NUM_THREADS", "1")))
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(ROWS, VOCAB, generator=g) * 4
    q = torch.empty(ROWS, VOCAB).exponential_(1.0, generator=g)
    bf16 = logits.to(torch.bfloat16)
    for name, x, k, p in (("TopK50TopP09Bf16", bf16, 50, 0.9), ("TopK50TopP09FloatV2", logits, 50, 0.9),
                          ("TopP09Bf16", bf16, 0, 0.9)):
        print(f"{name} {timed(lambda: sample(x, q, k, p)):.3f}")


if __name__ == "__main__":
    main()

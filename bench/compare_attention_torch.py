#!/usr/bin/python3
"""Times the cases of bench/bench_attention.cpp in PyTorch 1.13 (no scaled_dot_product_attention:
the composite softmax(q @ k^T * scale [+ causal mask]) @ v), with the thread count of
OPSNN_NUM_THREADS (default: torch's). Grouped-query heads: k / v are expanded to the 32 query heads
before the timing (free for torch). BF16 cases are not timed (torch 1.13's CPU BF16 matmul is not a
fair peer). Prints one line per case:
    <name> <milliseconds per call>
"""
import math
import os
import time

import torch

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))


def ms_per_call(fn, min_time=1.0):
    fn()
    start = time.perf_counter()
    reps = 0
    while time.perf_counter() - start < min_time or reps < 3:
        fn()
        reps += 1
    return (time.perf_counter() - start) / reps * 1e3


def case(sq, skv, causal):
    g = torch.Generator().manual_seed(1)
    n, nkv, d = 32, 8, 128
    q = torch.rand(1, n, sq, d, generator=g) * 2 - 1
    k = (torch.rand(1, nkv, skv, d, generator=g) * 2 - 1).repeat_interleave(n // nkv, dim=1)
    v = (torch.rand(1, nkv, skv, d, generator=g) * 2 - 1).repeat_interleave(n // nkv, dim=1)
    scale = 1 / math.sqrt(d)
    mask = torch.triu(torch.full((sq, skv), float("-inf")), diagonal=skv - sq + 1) if causal else None

    def fn():
        s = torch.matmul(q, k.transpose(2, 3)) * scale
        if mask is not None:
            s = s + mask
        return torch.matmul(torch.softmax(s, -1), v)

    return fn


def main():
    for name, sq, skv, causal in [("Prefill512", 512, 512, False), ("Prefill2048", 2048, 2048, False),
                                  ("Prefill2048Causal", 2048, 2048, True), ("Decode4096", 1, 4096, False)]:
        print(f"{name} {ms_per_call(case(sq, skv, causal)):.4f}", flush=True)


if __name__ == "__main__":
    main()

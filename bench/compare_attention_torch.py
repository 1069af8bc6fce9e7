#!/usr/bin/python3
"""Times the cases of bench/bench_attention.cpp in PyTorch 1.13 (no scaled_dot_product_attention:
the composite softmax(q @ k^T * scale [+ causal mask]) @ v), with the thread count of
OPSNN_NUM_THREADS (default: torch's). Grouped-query heads: k / v are expanded to the 32 query heads
before the timing (free for torch). BF16 cases are not timed (torch 1.13's CPU BF16 matmul is not a
fair peer). At S = 4096 the composite's 32 x 4096 x 4096 fp32 scores alone are 2 GiB (and softmax
writes another 2 GiB): those cases run 4 query heads on 1 KV head and report 8 x their time (the
work is per head; the peak memory of the full case is printed to stderr). Decode4096Mha: 32 KV heads.
Prints one line per case:
    <name> <milliseconds per call (wall)> <CPU milliseconds per call (process time, all threads)>
"""
import math
import os
import time

import torch

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))


def ms_per_call(fn, min_time=1.0):
    fn()
    start, cpu = time.perf_counter(), time.process_time()
    reps = 0
    while time.perf_counter() - start < min_time or reps < 3:
        fn()
        reps += 1
    return (time.perf_counter() - start) / reps * 1e3, (time.process_time() - cpu) / reps * 1e3


def case(sq, skv, causal, n=32, nkv=8):
    g = torch.Generator().manual_seed(1)
    d = 128
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
    import sys
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    cases = [("Prefill512", 512, 512, False, 32, 8), ("Prefill2048", 2048, 2048, False, 32, 8),
             ("Prefill2048Causal", 2048, 2048, True, 32, 8), ("Decode4096", 1, 4096, False, 32, 8),
             ("Decode4096Mha", 1, 4096, False, 32, 32),
             ("Prefill4096", 4096, 4096, False, 4, 1), ("Prefill4096Causal", 4096, 4096, True, 4, 1)]
    for name, sq, skv, causal, n, nkv in cases:
        if only and only not in name:
            continue
        scale = 32 // n  # heads run / heads of the case
        ms, cpu = ms_per_call(case(sq, skv, causal, n, nkv), min_time=1.0 if sq < 4096 else 0.0)
        if scale > 1:
            print(f"{name}: ran {n} of 32 heads, x{scale}; the 32-head composite holds "
                  f"{32 * sq * skv * 4 / 2**30:.1f} GiB of scores (+ as much for softmax)", file=sys.stderr)
        print(f"{name} {ms * scale:.4f} {cpu * scale:.4f}", flush=True)


if __name__ == "__main__":
    main()

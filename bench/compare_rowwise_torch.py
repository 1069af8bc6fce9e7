#!/usr/bin/python3
"""Times the cases of bench/bench_rowwise.cpp in PyTorch (Debian's python3-torch), out= where the op
has it, with the thread count of OPSNN_NUM_THREADS (default: torch's). Prints one line per case:
    <name> <milliseconds per call>
RmsNorm has no op in torch 1.13: it is timed as the composite x * rsqrt(mean(x^2) + eps) * g.
"""
import os
import time

import torch

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))


def ms_per_call(fn, min_time=0.5):
    fn()
    start = time.perf_counter()
    reps = 0
    while time.perf_counter() - start < min_time or reps < 3:
        fn()
        reps += 1
    return (time.perf_counter() - start) / reps * 1e3


def main():
    g = torch.Generator().manual_seed(1)
    rows = torch.rand(1024, 4096, generator=g) * 4 - 2
    cols = torch.rand(4096, 1024, generator=g) * 4 - 2
    flat = torch.rand(16 << 20, generator=g) * 4 - 2
    srt = torch.rand(256, 4096, generator=g) * 4 - 2
    w, b = torch.rand(4096), torch.rand(4096)
    o1, orow, oi = torch.empty(1024), torch.empty(1024, 4096), torch.empty(1024, dtype=torch.int64)
    sv, si = torch.empty(256, 4096), torch.empty(256, 4096, dtype=torch.int64)
    cases = [
        ("SumRows", lambda: torch.sum(rows, 1, out=o1)),
        ("SumCols", lambda: torch.sum(cols, 0, out=o1)),
        ("SumAll", lambda: torch.sum(flat)),
        ("AmaxRows", lambda: torch.amax(rows, 1, out=o1)),
        ("ArgMaxRows", lambda: torch.argmax(rows, 1, out=oi)),
        ("VarRows", lambda: torch.var(rows, 1, out=o1)),
        ("SoftmaxRows", lambda: torch.softmax(rows, 1)),
        ("LogSoftmaxRows", lambda: torch.log_softmax(rows, 1)),
        ("LayerNormRows", lambda: torch.nn.functional.layer_norm(rows, (4096,), w, b, 1e-5)),
        ("RmsNormRows", lambda: rows * torch.rsqrt(rows.pow(2).mean(1, keepdim=True) + 1e-6) * w),
        ("CumsumRows", lambda: torch.cumsum(rows, 1, out=orow)),
        ("SortRows", lambda: torch.sort(srt, 1, out=(sv, si))),
    ]
    for name, fn in cases:
        print(f"{name} {ms_per_call(fn):.4f}", flush=True)


if __name__ == "__main__":
    main()

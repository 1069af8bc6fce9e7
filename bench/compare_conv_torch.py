#!/usr/bin/python3
"""Times PyTorch's conv2d (Debian's python3-torch, the peer issue #16 names) on the layers of
bench/bench_conv.cpp, read from `bench_conv --list-shapes` on stdin, at batch 1 and 8, on NCHW and
channels_last tensors, with the thread count of OPSNN_NUM_THREADS (default: torch's).
Prints one line per case for `bench_conv --torch FILE`:
    <layer index> <batch> <nchw|nhwc> <milliseconds per call>
COMPARE_CPU_TIME=1 times by process CPU time (as bench_conv --cpu-time), else the wall clock.
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))
clock = time.process_time if os.environ.get("COMPARE_CPU_TIME") == "1" else time.perf_counter


def ms_per_call(fn, min_time=float(os.environ.get("COMPARE_MIN_TIME", "0.2")), reps=5):
    fn()
    iters = 1
    while True:  # as bench_conv: a batch of >= min_time, then the best of `reps` batches
        t0 = clock()
        for _ in range(iters):
            fn()
        if clock() - t0 >= min_time or iters >= 1 << 20:
            break
        iters *= 2
    best = float("inf")
    for _ in range(reps):
        t0 = clock()
        for _ in range(iters):
            fn()
        best = min(best, (clock() - t0) / iters)
    return best * 1e3


def main():
    quick = "--quick" in sys.argv
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for line in sys.stdin:
            f = line.split()
            if len(f) < 9:
                continue
            idx, cin, h, w, cout, k, s, p, groups = (int(v) for v in f[:9])
            weight = torch.rand(cout, cin // groups, k, k, generator=g) * 2 - 1
            bias = torch.rand(cout, generator=g) * 2 - 1
            for n in (1,) if quick else (1, 8):
                x = torch.rand(n, cin, h, w, generator=g) * 2 - 1
                for layout, xx, ww in (("nchw", x, weight),
                                       ("nhwc", x.contiguous(memory_format=torch.channels_last),
                                        weight.contiguous(memory_format=torch.channels_last))):
                    t = ms_per_call(lambda: F.conv2d(xx, ww, bias, s, p, 1, groups))
                    print(idx, n, layout, f"{t:.4f}", flush=True)


if __name__ == "__main__":
    main()

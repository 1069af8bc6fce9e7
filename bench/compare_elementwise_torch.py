#!/usr/bin/python3
"""Times torch.exp/sqrt/abs/tanh/sin/add/mul and a copy on contiguous float32 tensors of 1M and
16M elements (1 thread, out= preallocated) and prints GB/s (bytes read + written), the same
measure as bench/bench_elementwise. Needs Debian's python3-torch. Prints one line per case:
    <name> <n> <GB/s>
"""
import sys
import time

import torch

torch.set_num_threads(1)


def best_rate(fn, nbytes, min_time=0.5):
    """Bytes / mean time per call (the measure Google Benchmark reports)."""
    fn()  # warm up
    start = time.perf_counter()
    reps = 0
    while time.perf_counter() - start < min_time or reps < 5:
        fn()
        reps += 1
    return nbytes * reps / (time.perf_counter() - start) / 1e9


def main():
    for n in (1 << 20, 1 << 24):
        a = torch.rand(n, dtype=torch.float32) + 0.5
        b = torch.rand(n, dtype=torch.float32) + 1.5
        out = torch.empty(n, dtype=torch.float32)
        cases = [
            ("Unary/Exp", lambda: torch.exp(a, out=out), 2),
            ("Unary/Sqrt", lambda: torch.sqrt(a, out=out), 2),
            ("Unary/Abs", lambda: torch.abs(a, out=out), 2),
            ("Unary/Tanh", lambda: torch.tanh(a, out=out), 2),
            ("Unary/Sin", lambda: torch.sin(a, out=out), 2),
            ("Binary/Add", lambda: torch.add(a, b, out=out), 3),
            ("Binary/Mul", lambda: torch.mul(a, b, out=out), 3),
            ("Copy", lambda: out.copy_(a), 2),
        ]
        for name, fn, ntensors in cases:
            print(f"{name} {n} {best_rate(fn, n * 4 * ntensors):.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

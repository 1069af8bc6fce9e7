#!/usr/bin/python3
"""Times a few bench_rowwise cases in OpsNN and PyTorch in ONE process, on the SAME buffer,
alternating in short rounds, and prints the distribution of the per-round torch / OpsNN ratio.

compare_rowwise.sh runs the two libraries in separate processes, minutes apart, on different
buffers: on a shared machine the other tenants' memory traffic and last-level-cache use then decide
a memory-bound ratio (SumInner read 0.78x in one run and 1.08x in the next while both kernels stream
at the memory's pace). Here both sides see the same pages and the same neighbours within a fraction
of a second, so the median ratio is the figure to quote; its spread shows the noise left.

OpsNN is called through the Python module of the build (opsnn.functional.call: the aclnn API with
its output preallocated, as torch's out=); the input is shared with torch through DLPack.
Usage: OPSNN_NUM_THREADS=1 PYTHONPATH=<build>/python bench/compare_rowwise_inproc.py [case regex] [rounds]
(build the `opsnn_python` target first). Times are the calling thread's CPU time per call (with one
thread both libraries compute on it).
"""
import os
import re
import statistics
import sys
import time

import torch
import torch.utils.dlpack

import opsnn
from opsnn.functional import call, _new

threads = int(os.environ.get("OPSNN_NUM_THREADS", "1"))
torch.set_num_threads(threads)


def shared(t):
    return opsnn.from_dlpack(torch.utils.dlpack.to_dlpack(t))


def cases():
    g = torch.Generator().manual_seed(1)
    sq = torch.rand(4096, 4096, generator=g) * 4 - 2
    big = torch.rand(16384, 4096, generator=g) * 4 - 2
    xs, xb = shared(sq), shared(big)
    o, ob = torch.empty(4096), torch.empty(16384)
    oi, osq = torch.empty(4096, dtype=torch.int64), torch.empty(4096, 4096)
    r, rb, ri = _new((4096,), opsnn.float32), _new((16384,), opsnn.float32), _new((4096,), opsnn.int64)
    rsq = _new((4096, 4096), opsnn.float32)
    f32 = opsnn.float32.code
    return {
        "SumInner": (lambda: torch.sum(sq, 1, out=o), lambda: call("ReduceSum", xs, [1], False, f32, r)),
        "SumInnerBig": (lambda: torch.sum(big, 1, out=ob), lambda: call("ReduceSum", xb, [1], False, f32, rb)),
        "MeanInner": (lambda: torch.mean(sq, 1, out=o), lambda: call("Mean", xs, [1], False, f32, r)),
        "AmaxInner": (lambda: torch.amax(sq, 1, out=o), lambda: call("Amax", xs, [1], False, r)),
        "ArgMaxInner": (lambda: torch.argmax(sq, 1, out=oi), lambda: call("ArgMax", xs, 1, False, ri)),
        "SumOuter": (lambda: torch.sum(sq, 0, out=o), lambda: call("ReduceSum", xs, [0], False, f32, r)),
        "Transpose2d": (lambda: osq.copy_(sq.t()), lambda: call("Permute", xs, [1, 0], rsq)),
    }


def cpu_ms(fn, reps):
    c0 = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - c0) / reps * 1e3


def main():
    pattern = re.compile(sys.argv[1] if len(sys.argv) > 1 else ".")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    print(f"threads {threads}; rounds {rounds}; load {' '.join('%.2f' % x for x in os.getloadavg())}")
    print(f"{'case':14s} {'torch ms':>9s} {'OpsNN ms':>9s}   torch/OpsNN per round: {'min':>5s} {'median':>6s} {'max':>5s}")
    for name, (tf, of) in cases().items():
        if not pattern.search(name):
            continue
        tf(), of()  # warm-up (output pages touched)
        reps = max(1, int(20 / max(cpu_ms(of, 1), 0.05)))  # ~20 ms per side and round
        t, o = [], []
        for _ in range(rounds):
            t.append(cpu_ms(tf, reps))
            o.append(cpu_ms(of, reps))
        ratio = sorted(a / b for a, b in zip(t, o))
        print(f"{name:14s} {statistics.median(t):9.3f} {statistics.median(o):9.3f}   "
              f"{'':22s}{ratio[0]:5.2f} {statistics.median(ratio):6.2f} {ratio[-1]:5.2f}")


if __name__ == "__main__":
    main()

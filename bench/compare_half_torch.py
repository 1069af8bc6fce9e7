#!/usr/bin/env python3
"""FLOAT16 / BF16 element-wise ops against PyTorch 1.13 in one run: Add and Exp over 4M elements
(torch 1.13 has no half Exp on CPU: its peer is exp in float on the widened tensor, which is what a
user would do), with FLOAT beside them for scale. ms per call (best of 5 runs of 30 calls), on
OPSNN_NUM_THREADS threads (default 1).
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/compare_half_torch.py"""
import os
import time

import numpy as np
import torch

import opsnn as ops

threads = int(os.environ.setdefault("OPSNN_NUM_THREADS", "1"))
torch.set_num_threads(threads)
n = 1 << 22


def best_ms(f, k=30):
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(k):
            f()
        best = min(best, (time.perf_counter() - t) / k)
    return best * 1e3


rng = np.random.default_rng(0)
print(f"threads {threads}; load {os.getloadavg()[0]:.2f}")
print(f"{'dtype':8} {'op':4} {'torch ms':>9} {'OpsNN ms':>9} {'torch/OpsNN':>11}")
for name, tdt in (("float16", torch.float16), ("bfloat16", torch.bfloat16), ("float32", torch.float32)):
    ta, tb = (torch.from_numpy(rng.random(n, np.float32)).to(tdt) for _ in range(2))
    to = torch.empty_like(ta)
    oa, ob, oo = (ops.from_numpy(t.float().numpy()).to(getattr(ops, name)) for t in (ta, tb, to))
    add = ops._C.aclnn.Add
    exp = ops._C.aclnn.Exp
    t_add = best_ms(lambda: torch.add(ta, tb, out=to))
    o_add = best_ms(lambda: add(oa._t, ob._t, 1.0, oo._t))
    tf = ta.float()
    t_exp = best_ms(lambda: torch.exp(ta, out=to)) if tdt == torch.float32 else best_ms(lambda: torch.exp(tf).to(tdt))
    o_exp = best_ms(lambda: exp(oa._t, oo._t))
    for op, t, o in (("add", t_add, o_add), ("exp", t_exp, o_exp)):
        print(f"{name:8} {op:4} {t:9.3f} {o:9.3f} {t / o:11.2f}")

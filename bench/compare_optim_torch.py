"""The PyTorch peer of bench/bench_optim.cpp: one torch.optim.AdamW / SGD step (foreach=True; PyTorch's
fused=True is CUDA-only in 1.13) over 8 FLOAT parameters of 1M elements with the same hyper-parameters,
ms per step (best of 5 runs of 20 steps), on OPSNN_NUM_THREADS threads (default: torch's)."""
import os
import time

import torch

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))
params = [torch.full((1 << 20,), 0.5, requires_grad=True) for _ in range(8)]
for p in params:
    p.grad = torch.full_like(p, 0.01)
cases = {"FusedAdamw": torch.optim.AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01,
                                         foreach=True),
         "FusedSgd": torch.optim.SGD(params, lr=1e-3, momentum=0.9, weight_decay=0.01, foreach=True)}
for name, opt in cases.items():
    opt.step()  # state made
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(20):
            opt.step()
        best = min(best, (time.perf_counter() - t0) / 20 * 1e3)
    print(f"torch {name} {best:.3f} ms (threads {torch.get_num_threads()})")

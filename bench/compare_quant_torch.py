#!/usr/bin/python3
"""Times bench/bench_quant.cpp's case in PyTorch: per-token symmetric INT8 quantisation of a
[4096, 4096] FLOAT16 x composed as scale = x.abs().amax(-1) / 127 (FLOAT), y = round(x / scale)
clamped to [-128, 127] as INT8, with the thread count of OPSNN_NUM_THREADS (default: torch's).
Prints: DynamicQuantFp16 <wall ms per call> <thread CPU ms per call>
"""
import os
import time

import torch

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))


def dynamic_quant(x):
    scale = x.abs().amax(-1, keepdim=True).float() / 127
    y = torch.round(x.float() / scale).clamp_(-128, 127).to(torch.int8)
    return y, scale.squeeze(-1)


def main():
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(4096, 4096, generator=g) * 4 - 2).half()
    dynamic_quant(x)
    start, cpu0, reps = time.perf_counter(), time.thread_time(), 0
    while time.perf_counter() - start < 2.0 or reps < 3:
        dynamic_quant(x)
        reps += 1
    print("DynamicQuantFp16", (time.perf_counter() - start) / reps * 1e3, (time.thread_time() - cpu0) / reps * 1e3)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Times bench/bench_quant.cpp's case in PyTorch: per-token symmetric INT8 quantisation of a
[4096, 4096] FLOAT16 x composed as scale = x.abs().amax(-1) / 127 (FLOAT), y = round(x / scale)
clamped to [-128, 127] as INT8, with the thread count of OPSNN_NUM_THREADS (default: torch's).
torch 1.13's FLOAT16 abs / amax on CPU are slow, so a second line times the same composition on
x.float() (the conversion included), the faster of the two forms.
RotateQuant's case: x [2048, 4096] FLOAT16, rotation [128, 128]: (x.view(-1, 128) @ rotation).view(2048, 4096)
in FLOAT (torch 1.13 has no fast FLOAT16 CPU matmul; conversions included), then the same quantisation.
Prints: <case> <wall ms per call> <thread CPU ms per call>
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


def dynamic_quant_via_float(x):
    return dynamic_quant(x.float())


def rotate_quant(x, rot):
    m, n = x.shape
    k = rot.shape[0]
    return dynamic_quant((x.float().view(-1, k) @ rot.float()).view(m, n))


def time_case(name, fn, x):
    fn(x)
    start, cpu0, reps = time.perf_counter(), time.thread_time(), 0
    while time.perf_counter() - start < 2.0 or reps < 3:
        fn(x)
        reps += 1
    print(name, (time.perf_counter() - start) / reps * 1e3, (time.thread_time() - cpu0) / reps * 1e3)


def main():
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(4096, 4096, generator=g) * 4 - 2).half()
    time_case("DynamicQuantFp16", dynamic_quant, x)
    time_case("DynamicQuantFp16_viaFloat", dynamic_quant_via_float, x)
    xr = (torch.rand(2048, 4096, generator=g) * 4 - 2).half()
    rot = (torch.rand(128, 128, generator=g) * 2 - 1).half()
    time_case("RotateQuantFp16", lambda t: rotate_quant(t, rot), xr)


if __name__ == "__main__":
    main()

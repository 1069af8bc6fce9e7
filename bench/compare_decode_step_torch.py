#!/usr/bin/python3
"""The decode step of bench/bench_decode_step.cpp in PyTorch 1.13 eager (the client-sequence peer of
issue #13): the same configs, weights stored [out, in] and used through F.linear, the KV cache in
BNSD written at the step's position, grouped-query attention as PyTorch 1.13 writes it (no
scaled_dot_product_attention: k / v expanded to the query heads with repeat_interleave, then
softmax(q k^T * scale) v), RMS norm and rotary embedding composed from tensor ops (1.13 has neither
as one op), SwiGLU as silu(gate) * up. Thread count: OPSNN_NUM_THREADS (default: torch's).
Usage: compare_decode_step_torch.py [--config tiny|small] [--steps N] [--reps N]
Prints "torch_step_us <median microseconds per step>".
"""
import argparse
import math
import os
import time

import torch
import torch.nn.functional as F

CONFIGS = {  # hidden, heads, kv_heads, ffn, context, layers (as kConfigs in bench_decode_step.cpp)
    "tiny": (256, 4, 2, 704, 128, 8),
    "small": (1024, 16, 4, 2816, 512, 2),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="tiny", choices=sorted(CONFIGS))
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    if "OPSNN_NUM_THREADS" in os.environ:
        torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))
    hidden, heads, kv_heads, ffn, context, layers = CONFIGS[a.config]
    d = hidden // heads
    qkv_n = (heads + 2 * kv_heads) * d
    g = torch.Generator().manual_seed(1)

    def w(*shape, scale=0.02):
        return (torch.rand(*shape, generator=g) - 0.5) * scale

    blocks = [dict(norm1=torch.ones(hidden), wqkv=w(qkv_n, hidden), wo=w(hidden, hidden),
                   norm2=torch.ones(hidden), wgu=w(2 * ffn, hidden), wd=w(hidden, ffn),
                   kc=torch.zeros(1, kv_heads, context, d), vc=torch.zeros(1, kv_heads, context, d))
              for _ in range(layers)]
    cos = torch.ones(1, 1, 1, d)
    sin = torch.ones(1, 1, 1, d)
    scale = 1 / math.sqrt(d)

    def rms(x, gamma):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma

    def rope(x):  # mode 0: rotate_half
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin

    def step(x, pos):
        for b in blocks:
            xn = rms(x, b["norm1"])
            qkv = F.linear(xn, b["wqkv"])
            q = rope(qkv[:, : heads * d].view(1, 1, heads, d))
            k = rope(qkv[:, heads * d:(heads + kv_heads) * d].view(1, 1, kv_heads, d))
            v = qkv[:, (heads + kv_heads) * d:].view(1, 1, kv_heads, d)
            b["kc"][:, :, pos] = k[:, 0]
            b["vc"][:, :, pos] = v[:, 0]
            kk = b["kc"][:, :, : pos + 1].repeat_interleave(heads // kv_heads, dim=1)
            vv = b["vc"][:, :, : pos + 1].repeat_interleave(heads // kv_heads, dim=1)
            qh = q.transpose(1, 2)  # [1, heads, 1, d]
            att = torch.softmax(torch.matmul(qh, kk.transpose(2, 3)) * scale, dim=-1)
            o = F.linear(torch.matmul(att, vv).reshape(1, hidden), b["wo"])
            x2 = x + o
            gate, up = F.linear(rms(x2, b["norm2"]), b["wgu"]).chunk(2, dim=-1)
            x = x2 + F.linear(F.silu(gate) * up, b["wd"])
        return x

    x = torch.ones(1, hidden)
    first = context // 2
    pos = first
    times = []
    with torch.no_grad():
        for _ in range(3):
            step(x, pos)
        for _ in range(a.reps):
            start = time.perf_counter()
            for _ in range(a.steps):
                pos = pos + 1 if pos + 1 < context else first
                step(x, pos)
            times.append((time.perf_counter() - start) / a.steps)
    times.sort()
    print("torch_step_us %.1f" % (times[len(times) // 2] * 1e6))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Times the cases of bench/bench_einsum.cpp with torch.einsum (FLOAT, the same shapes) and of
bench/bench_fused_linear_ce.cpp with the unfused PyTorch sequence (and of bench/bench_msda.cpp with the
grid_sample composite) (matmul in fp32, then max / exp / sum /
gather and the masks; the gradient: softmax - onehot, scaled, and the two matmuls), with the thread count of
OPSNN_NUM_THREADS (default: torch's). Prints one line per case:
    <name> <milliseconds per call (wall)> <CPU milliseconds per call (process time, all threads)>
"""
import sys

import torch

# The shared timing loop (it also applies OPSNN_NUM_THREADS to torch when imported).
from compare_attention_torch import ms_per_call


def einsum_case(eq, *shapes):
    g = torch.Generator().manual_seed(1)
    ops = [torch.rand(*s, generator=g) * 2 - 1 for s in shapes]
    return lambda: torch.einsum(eq, *ops)


def online_max_sum(bt, h, v, start):
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(bt, h, generator=g) * 2 - 1).to(torch.bfloat16)
    w = (torch.rand(v, h, generator=g) * 2 - 1).to(torch.bfloat16)
    target = torch.randint(0, 4 * v, (bt,), generator=g)

    def fn():
        logits = x.float() @ w.float().t()
        mx = logits.max(dim=-1)[0]
        sub = logits - mx.unsqueeze(-1)
        sum_exp = sub.exp().sum(dim=-1)
        mask = (target < start) | (target >= start + v)
        masked = (target - start).masked_fill(mask, 0)
        pred = sub.gather(1, masked.unsqueeze(1)).squeeze(1).masked_fill(mask, 0.0)
        return mx, sum_exp, pred, mask, masked

    return fn


def linear_ce_grad(bt, h, v):
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(bt, h, generator=g) * 2 - 1).to(torch.bfloat16)
    w = (torch.rand(v, h, generator=g) * 2 - 1).to(torch.bfloat16)
    softmax = torch.softmax(torch.rand(bt, v, generator=g), -1)
    grad = torch.rand(bt, generator=g)
    mask = torch.rand(bt, generator=g) < 0.5
    masked = torch.randint(0, v, (bt,), generator=g)
    rows = torch.arange(bt)

    def fn():
        gl = softmax.clone()
        gl[rows, masked] -= (~mask).float()
        gl *= grad.unsqueeze(-1)
        return (gl @ w.float()).to(torch.bfloat16), (gl.t() @ x.float()).to(torch.bfloat16)

    return fn


def msda(grad):
    """The composite MSDeformAttn: per level, grid_sample (bilinear, zero padding, align_corners=False) of the
    value map at the points, then the weighted sum over levels and points (written here from the definition)."""
    g = torch.Generator().manual_seed(1)
    sides, heads, c, points = [64, 32, 16, 8], 8, 32, 4
    keys = sum(s * s for s in sides)
    value = (torch.rand(1, keys, heads, c, generator=g) * 2 - 1).requires_grad_(grad)
    loc = torch.rand(1, keys, heads, len(sides), points, 2, generator=g).requires_grad_(grad)
    attn = (torch.rand(1, keys, heads, len(sides), points, generator=g) * 0.1).requires_grad_(grad)
    dy = torch.rand(1, keys, heads * c, generator=g) * 2 - 1

    def forward():
        out, k0 = 0, 0
        for lvl, s in enumerate(sides):
            v = value[:, k0:k0 + s * s].permute(0, 2, 3, 1).reshape(heads, c, s, s)
            k0 += s * s
            grid = (loc[:, :, :, lvl] * 2 - 1).permute(0, 2, 1, 3, 4).reshape(heads, keys, points, 2)
            sampled = torch.nn.functional.grid_sample(v, grid, mode="bilinear", padding_mode="zeros",
                                                      align_corners=False)  # [heads, c, keys, points]
            w = attn[:, :, :, lvl].permute(0, 2, 1, 3).reshape(heads, 1, keys, points)
            out = out + (sampled * w).sum(-1)
        return out.reshape(heads * c, keys).t().unsqueeze(0)

    if not grad:
        return lambda: forward()
    return lambda: torch.autograd.grad(forward(), (value, loc, attn), dy)


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    cases = [("Bmm", einsum_case("bij,bjk->bik", (16, 256, 256), (16, 256, 256))),
             ("AttnScores", einsum_case("bhqd,bhkd->bhqk", (2, 8, 256, 64), (2, 8, 256, 64))),
             ("PermutedOut", einsum_case("ijk,jl->ilk", (64, 128, 64), (128, 256))),
             ("Bilinear", einsum_case("bn,anm,bm->ba", (256, 64), (64, 64, 64), (256, 64))),
             ("TraceSum", einsum_case("bii->b", (64, 256, 256))),
             ("OnlineMaxSumBf16", online_max_sum(512, 1024, 4096, 4096)),
             ("LinearCeGradSoftmaxBf16", linear_ce_grad(512, 1024, 4096)),
             ("MsdaForward", msda(False)), ("MsdaGrad", msda(True))]
    for name, fn in cases:
        if only and only not in name:
            continue
        ms, cpu = ms_per_call(fn)
        print(f"{name} {ms:.4f} {cpu:.4f}", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Times the cases of bench/bench_rowwise.cpp in PyTorch (Debian's python3-torch), out= where the op
has it, with the thread count of OPSNN_NUM_THREADS (default: torch's). Prints one line per case:
    <name> <wall ms per call> <thread CPU ms per call> <bytes read + written per call>
An optional argument is a regular expression: only the cases it matches run.
Softmax and log-softmax are timed through their out= overloads (torch._softmax); RmsNorm has
no op in torch 1.13: it is timed as the composite x * rsqrt(mean(x^2) + eps) * g.
With one thread torch computes on the calling thread, so the thread CPU time is the op's own CPU
time: on a loaded machine it is the steadier of the two measures.
"""
import os
import re
import sys
import time

import torch

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))


def ms_per_call(fn, min_time=0.5):
    fn()
    start, cpu0 = time.perf_counter(), time.thread_time()
    reps = 0
    while time.perf_counter() - start < min_time or reps < 3:
        fn()
        reps += 1
    return (time.perf_counter() - start) / reps * 1e3, (time.thread_time() - cpu0) / reps * 1e3


def main():
    g = torch.Generator().manual_seed(1)

    def rand(*shape):
        return torch.rand(*shape, generator=g) * 4 - 2

    sq = rand(4096, 4096)
    big = rand(16384, 4096)  # 256 MiB: SumInnerBig reads it from memory on every call
    flat = rand(16 << 20)
    srt, long_row = rand(256, 4096), rand(1 << 20)
    attn = rand(64, 32, 512, 512)
    heads = rand(64, 512, 32, 64)
    w, b = torch.rand(4096), torch.rand(4096)
    o1, osq, oi = torch.empty(4096), torch.empty(4096, 4096), torch.empty(4096, dtype=torch.int64)
    o_big = torch.empty(16384)
    oattn, oheads = torch.empty_like(attn), torch.empty(64, 32, 512, 64)
    sv, si = torch.empty(256, 4096), torch.empty(256, 4096, dtype=torch.int64)
    lv, li = torch.empty(1 << 20), torch.empty(1 << 20, dtype=torch.int64)
    tv, ti = torch.empty(16), torch.empty(16, dtype=torch.int64)
    rv, ri = torch.empty(4096, 8), torch.empty(4096, 8, dtype=torch.int64)
    n = 4096 * 4096 * 4  # bytes of the [4096, 4096] FLOAT tensor
    # Vocabulary-parallel cross-entropy (Megatron's local steps in torch ops) and the chamfer
    # gradient (gathers and scatter-adds), on bench_rowwise.cpp's shapes and index patterns.
    tgt = (torch.arange(4096) * 7919 % 8192).to(torch.int32)
    vmax, vsum, vpred, osq2 = rand(4096), torch.rand(4096) + 1, rand(4096), torch.empty(4096, 4096)
    rows = torch.arange(4096)

    def vocab_sum_exp():
        torch.sub(sq, vmax[:, None], out=osq)
        outside = (tgt < 0) | (tgt >= 4096)
        off = torch.where(outside, torch.zeros_like(tgt), tgt).long()
        pred = osq[rows, off].masked_fill_(outside, 0)
        torch.exp(osq, out=osq2)
        return pred, torch.sum(osq2, 1, out=o1), off, outside.int()

    def vocab_loss_softmax():
        loss = torch.log(vsum) - vpred
        torch.sub(sq, vmax[:, None], out=osq)
        torch.exp(osq, out=osq)
        return loss, torch.div(osq, vsum[:, None], out=osq2)

    cx1, cx2, cg1, cg2 = rand(8, 8192, 2), rand(8, 8192, 2), rand(8, 8192), rand(8, 8192)
    cidx = (torch.arange(8 * 8192) * 7919 % 8192).view(8, 8192, 1).expand(8, 8192, 2)

    def chamfer_grad():
        d1 = 2 * cg1[..., None] * (cx1 - torch.gather(cx2, 1, cidx))
        d2 = 2 * cg2[..., None] * (cx2 - torch.gather(cx1, 1, cidx))
        return d1.scatter_add(1, cidx, -d2), d2.scatter_add(1, cidx, -d1)

    cases = [
        ("SumInner", lambda: torch.sum(sq, 1, out=o1), n),
        ("SumInnerBig", lambda: torch.sum(big, 1, out=o_big), 4 * n),
        ("SumOuter", lambda: torch.sum(sq, 0, out=o1), n),
        ("MeanInner", lambda: torch.mean(sq, 1, out=o1), n),
        ("MeanOuter", lambda: torch.mean(sq, 0, out=o1), n),
        ("SumAll", lambda: torch.sum(flat), 64 << 20),
        ("AmaxInner", lambda: torch.amax(sq, 1, out=o1), n),
        ("AmaxOuter", lambda: torch.amax(sq, 0, out=o1), n),
        ("ArgMaxInner", lambda: torch.argmax(sq, 1, out=oi), n),
        ("ArgMaxOuter", lambda: torch.argmax(sq, 0, out=oi), n),
        ("VarInner", lambda: torch.var(sq, 1, out=o1), n),
        ("SoftmaxInner", lambda: torch._softmax(sq, 1, False, out=osq), 2 * n),
        ("SoftmaxAttn", lambda: torch._softmax(attn, 3, False, out=oattn), 2 * attn.numel() * 4),
        ("LogSoftmaxInner", lambda: torch._log_softmax(sq, 1, False, out=osq), 2 * n),
        ("LogSoftmaxAttn", lambda: torch._log_softmax(attn, 3, False, out=oattn), 2 * attn.numel() * 4),
        ("LayerNormInner", lambda: torch.nn.functional.layer_norm(sq, (4096,), w, b, 1e-5), 2 * n),
        ("RmsNormInner", lambda: sq * torch.rsqrt(sq.pow(2).mean(1, keepdim=True) + 1e-6) * w, 2 * n),
        ("CumsumInner", lambda: torch.cumsum(sq, 1, out=osq), 2 * n),
        ("CumsumOuter", lambda: torch.cumsum(sq, 0, out=osq), 2 * n),
        ("SortRows", lambda: torch.sort(srt, 1, out=(sv, si)), 256 * 4096 * 16),
        ("SortLong", lambda: torch.sort(long_row, 0, out=(lv, li)), (1 << 20) * 16),
        ("TopkLong", lambda: torch.topk(long_row, 16, out=(tv, ti)), (1 << 20) * 4),
        ("TopkRows", lambda: torch.topk(sq, 8, 1, out=(rv, ri)), n),
        ("Transpose2d", lambda: osq.copy_(sq.t()), 2 * n),
        ("PermuteHeads", lambda: oheads.view(64, 32, 512, 64).copy_(heads.permute(0, 2, 1, 3)), 2 * heads.numel() * 4),
        ("CopyContig", lambda: osq.copy_(sq), 2 * n),
        ("VocabSumExp", vocab_sum_exp, 2 * n),
        ("VocabLossSoftmax", vocab_loss_softmax, 2 * n),
        ("ChamferGrad", chamfer_grad, 8 * 8192 * 4 * 12),
    ]
    only = re.compile(sys.argv[1]) if len(sys.argv) > 1 else None
    for name, fn, nbytes in cases:
        if only is not None and not only.search(name):
            continue
        wall, cpu = ms_per_call(fn)
        print(f"{name} {wall:.4f} {cpu:.4f} {nbytes}", flush=True)


if __name__ == "__main__":
    main()

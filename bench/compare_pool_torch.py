#!/usr/bin/python3
"""Times the cases of bench/bench_pool.cpp in PyTorch (Debian's python3-torch), out= where the op
has it, with the thread count of OPSNN_NUM_THREADS (default: torch's). Prints one line per case:
    <name> <milliseconds per call>
_nhwc cases run on channels_last tensors.
"""
import os
import time

import torch
import torch.nn.functional as F

if "OPSNN_NUM_THREADS" in os.environ:
    torch.set_num_threads(int(os.environ["OPSNN_NUM_THREADS"]))


def ms_per_call(fn, min_time=float(os.environ.get("COMPARE_MIN_TIME", "0.5"))):
    fn()
    start = time.perf_counter()
    reps = 0
    while time.perf_counter() - start < min_time or reps < 3:
        fn()
        reps += 1
    return (time.perf_counter() - start) / reps * 1e3


def main():
    g = torch.Generator().manual_seed(1)

    def t(*shape, cl=False):
        x = torch.rand(*shape, generator=g) * 4 - 2
        return x.contiguous(memory_format=torch.channels_last) if cl else x

    stem, stem_cl = t(4, 64, 112, 112), t(4, 64, 112, 112, cl=True)
    mid, mid_cl = t(4, 64, 56, 56), t(4, 64, 56, 56, cl=True)
    wide, wide_cl = t(4, 256, 56, 56), t(4, 256, 56, 56, cl=True)
    last, last_cl = t(4, 2048, 7, 7), t(4, 2048, 7, 7, cl=True)
    _, idx = F.max_pool2d(stem, 3, 2, 1, return_indices=True)
    gout = t(4, 64, 56, 56)
    cases = [
        ("MaxPool2d_nchw", lambda: F.max_pool2d(stem, 3, 2, 1)),
        ("MaxPool2d_nhwc", lambda: F.max_pool2d(stem_cl, 3, 2, 1)),
        ("MaxPool2dWithIndices_nchw", lambda: F.max_pool2d(stem, 3, 2, 1, return_indices=True)),
        ("MaxPool2dWithIndicesBackward_nchw",
         lambda: torch.ops.aten.max_pool2d_with_indices_backward(gout, stem, [3, 3], [2, 2], [1, 1], [1, 1], False, idx)),
        ("AvgPool2d3x3_nchw", lambda: F.avg_pool2d(mid, 3, 1, 1)),
        ("AvgPool2d3x3_nhwc", lambda: F.avg_pool2d(mid_cl, 3, 1, 1)),
        ("AvgPool2d2x2_nchw", lambda: F.avg_pool2d(wide, 2, 2)),
        ("AvgPool2d2x2_nhwc", lambda: F.avg_pool2d(wide_cl, 2, 2)),
        ("AvgPool2dBackward3x3_nchw",
         lambda: torch.ops.aten.avg_pool2d_backward(mid, mid, [3, 3], [1, 1], [1, 1], False, True, None)),
        ("GlobalAvgPool_nchw", lambda: F.adaptive_avg_pool2d(last, 1)),
        ("GlobalAvgPool_nhwc", lambda: F.adaptive_avg_pool2d(last_cl, 1)),
        ("UpsampleNearest2x_nchw", lambda: F.interpolate(mid, size=(112, 112), mode="nearest")),
        ("UpsampleNearest2x_nhwc", lambda: F.interpolate(mid_cl, size=(112, 112), mode="nearest")),
        ("UpsampleBilinear2x_nchw", lambda: F.interpolate(mid, size=(112, 112), mode="bilinear")),
        ("UpsampleBilinear2x_nhwc", lambda: F.interpolate(mid_cl, size=(112, 112), mode="bilinear")),
        ("UpsampleBilinear2xBackward_nchw",
         lambda: torch.ops.aten.upsample_bilinear2d_backward(stem, [112, 112], [4, 64, 56, 56], False, None, None)),
    ]
    for name, fn in cases:
        print(f"{name} {ms_per_call(fn):.4f}", flush=True)


if __name__ == "__main__":
    main()

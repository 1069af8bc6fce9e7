// Blocked transposes of the layout family's tiled copies (a permute whose input runs along another
// dim than the output's rows): dst[j * dst_stride + i] = src[i * src_stride + j]. Each ISA tier
// moves whole square blocks in registers (AVX-512: 16 x 16 4-byte / 8 x 8 8-byte elements, one
// 64-byte line per register on both sides; AVX2: 16 x 16 4-byte as pairs of 8 x 8 transposes;
// AVX2 and AVX-512: 32 x 32 2-byte as 16 x 16 ymm transposes, two per output line;
// portable: 16 x 16 4-byte through SSE 4 x 4 transposes and an L1 buffer, and 16 x 16 1-byte by
// byte interleaves, the 1-byte form of every x86 tier); the caller walks the
// tiles and moves the edges element by element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/impl_list.h"

namespace opsnn::kernels {

// Moves the rows x cols elements of `es` bytes (both multiples of `block`), strides in elements.
// With `streaming`, output lines that start 64-byte aligned leave with non-temporal stores (the
// caller fences at the end of its task).
using TransposeBlocksFn = void (*)(const void *src, int64_t src_stride, void *dst, int64_t dst_stride, int64_t rows,
                                   int64_t cols, bool streaming);

struct TransposeKernel {
  TransposeBlocksFn blocks = nullptr;  // null: no block form (element by element)
  int block = 1;                       // edge of the square blocks
  const char *name = "scalar";         // the tier, for the verbose line
};

// Phase 1: the best tier for elements of `es` bytes (candidates avx512, avx2, portable, scalar;
// rejections go to `trace`).
TransposeKernel choose_transpose_kernel(size_t es, core::ImplTrace *trace);

// The tiers' block movers for `es`-byte elements, null when the tier has no form for that size.
TransposeBlocksFn transpose_blocks_avx512(size_t es);
TransposeBlocksFn transpose_blocks_avx2(size_t es);
TransposeBlocksFn transpose_blocks_portable(size_t es);

}  // namespace opsnn::kernels

// Pointwise (1x1, stride 1, unpadded, groups 1) FLOAT convolution on channels-first tensors whose
// spatial dims flatten to unit stride (plain NCHW / NCDHW / NCL): per image Y[C_out][P] =
// W[C_out][C_in] X[C_in][P] + bias as a GEMM whose B operand, the input, is read in place (no
// per-launch packing of the activations) and whose output rows are written once with the bias (no
// prefill pass). A register tile of MR output channels x a strip of pixel vectors accumulates over
// C_in (fixed order, then + bias): each input row segment is a vector load, each weight a
// broadcast from the weight packed once per executor in conv_direct_pack's layout
// [C_out/16][C_in][16] (+ bias). Threads split (image, pixel strip) tasks; a strip that would run
// past the image's last pixel is moved back to end on it (its overlap recomputed, the same values).
// Knows nothing of aclTensor.
#pragma once

#include <cstdint>

#include "kernels/conv/conv.h"

namespace opsnn::kernels {

// Pixels one strip of the widest unit covers: images with fewer (flattened) pixels are refused in
// phase 1 (gemm_1x1 keeps them).
constexpr int64_t kPwNchwMinPixels = 48;

// a.w is conv_direct_pack's output for a 1x1 kernel; a.in / a.out address pixel p of channel c at
// c * sc + p (the flattened spatial index at unit stride).
void conv_pw_nchw_portable(const DirectArgs &a, int threads);
void conv_pw_nchw_avx2(const DirectArgs &a, int threads);
void conv_pw_nchw_avx512(const DirectArgs &a, int threads);

}  // namespace opsnn::kernels

// Depthwise forward convolution, 3x3 at strides 1 and 2 (dilation 1) over FLOAT rows of unit
// stride read in place (the NCHW MobileNet layers): column strips walk down each plane once, every
// input row's taps feeding the output rows whose windows hold it (conv_dw_in_place_impl.h). No
// scratch. Knows nothing of aclTensor.
#pragma once

#include <cstdint>

#include "kernels/conv/conv.h"

namespace opsnn::kernels {

// Phase 1's bounds: 2-D, 3x3, strides 1x1 or 2x2, dilation 1, width padding at most this (exactly
// 1 at stride 2), FLOAT input and output rows of unit stride, output rows at least
// kDwInPlaceMinWidth wide (the widest unit's vector).
constexpr int64_t kDwInPlaceMaxPad = 1;
constexpr int64_t kDwInPlaceMinWidth = 16;

// One per ISA tier (`scratch` unused); the results are bit-identical to conv_dw_rows_* /
// conv_dw_groups_* (the same order of sums).
void conv_dw_in_place_portable(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_in_place_avx2(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_in_place_avx512(const DepthwiseArgs &a, float *scratch, int threads);

}  // namespace opsnn::kernels

// Depthwise forward convolution, 3x3 at stride 1 and dilation 1 over FLOAT rows of unit stride read
// in place (NCHW MobileNet layers): column strips walk down each plane once, every input row's taps
// feeding the three output rows whose windows hold it (conv_dw_s1_impl.h). No scratch. Knows
// nothing of aclTensor.
#pragma once

#include <cstdint>

#include "kernels/conv/conv.h"

namespace opsnn::kernels {

// Phase 1's bounds: 2-D, 3x3, strides 1, dilation 1, width padding at most this, FLOAT input and
// output rows of unit stride, output rows at least kDwS1MinWidth wide (the widest unit's vector).
constexpr int64_t kDwS1MaxPad = 1;
constexpr int64_t kDwS1MinWidth = 16;

// One per ISA tier; the results are bit-identical to conv_dw_rows_* / conv_dw_groups_*.
void conv_dw_s1_portable(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_s1_avx2(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_s1_avx512(const DepthwiseArgs &a, float *scratch, int threads);

}  // namespace opsnn::kernels

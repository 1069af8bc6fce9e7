// Depthwise forward convolution (groups = C_in, any channel multiplier, any float dtype and
// layout) over 1-D / 2-D geometries — dim 0 of the 3-D geometry unit-kernel, unit-stride,
// unpadded — with vectors along the output rows. Per (image, input channel, dim-0 slice) the input
// rows are copied once each into a ring of zero-padded fp32 rows split by the width stride into
// phases (stride 2: even / odd columns deinterleaved by two-source shuffles; FLOAT16 / BF16
// converted on the way), so every output row reads its taps as whole vectors with no border case.
// The NCHW MobileNet layers' path (conv_dw_rows_impl.h). Knows nothing of aclTensor.
#pragma once

#include <cstdint>

#include "kernels/conv/conv.h"

namespace opsnn::kernels {

// Phase 1's bounds: at most this many kernel rows / columns (the ring's tap tables are fixed arrays).
constexpr int64_t kDwRowsMaxTaps = 64;

// Floats of one thread's scratch (the ring, one output row, the weights of `mult` output channels).
int64_t conv_dw_rows_scratch_floats(const ConvGeom &g, int64_t mult);

// One per ISA tier; `scratch` holds `threads` blocks of conv_dw_rows_scratch_floats floats.
void conv_dw_rows_portable(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_rows_avx2(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_rows_avx512(const DepthwiseArgs &a, float *scratch, int threads);

// 3x3, dilation 1, row stride 1 or 2, FLOAT output rows of unit stride at least kDwGroupMinWidth
// wide (any input dtype and layout): the same ring, output rows in groups of up to 4 (AVX-512; 2
// elsewhere) x up to 4 vectors accumulated together, the same order of sums as conv_dw_rows_*
// (conv_dw_groups_impl.h). Phase 1's depthwise_row_groups.
constexpr int64_t kDwGroupMinWidth = 16;
int64_t conv_dw_groups_scratch_floats(const ConvGeom &g, int64_t mult);
void conv_dw_groups_portable(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_groups_avx2(const DepthwiseArgs &a, float *scratch, int threads);
void conv_dw_groups_avx512(const DepthwiseArgs &a, float *scratch, int threads);

}  // namespace opsnn::kernels

// The direct convolution over packed input rows, for few input channels (a network's stem:
// 3 -> 64, 7x7 stride 2): C_in * k2 is too short an inner reduction for the direct kernel's
// (tap, channel) loops and edge tiles. Each thread keeps a ring of the k1 * d1 input rows its
// output rows read, each copied once from any layout into a zero-padded channels-last row
// ([padded column][C_in], fp32), so one output pixel's k2 * C_in taps of a kernel row are contiguous
// and every pixel — border ones too — runs the same loop of contiguous loads. A register tile of
// NP output pixels x NB blocks of 16 output channels accumulates over (k1, k2, C_in) in that fixed
// order (the weight packed once per executor by conv_direct_rows_pack), then + bias. Knows nothing
// of aclTensor.
#pragma once

#include <cstdint>

#include "kernels/conv/conv.h"

namespace opsnn::kernels {

// Its limits (phase 1 checks them): 2-D geometry (dim 0 of the 3-D geometry a unit kernel, unpadded),
// unit width dilation, a packed kernel row of at most kDirectRowsMaxRowTaps floats (C_in * k2) and
// at most kDirectRowsMaxRing input rows under one output row ((k1 - 1) * d1 + 1).
constexpr int64_t kDirectRowsMaxRowTaps = 64;
constexpr int64_t kDirectRowsMaxRing = 64;

// The packed weight [k1][k2][C_in][Cp] (Cp = C_out rounded up to 16, zeros past C_out: one
// contiguous row of every output channel per tap, so a tile's channel blocks load from one
// pointer), then the bias as Cp floats (zero without one). Its floats, and the packing of a
// weight [C_out, C_in, k0 = 1, k1, k2] (any float dtype, element strides ws; optional bias, stride bs).
int64_t conv_direct_rows_packed_floats(const ConvGeom &g, int64_t c_in, int64_t c_out);
void conv_direct_rows_pack(const ConvGeom &g, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt,
                           const int64_t ws[5], const char *bias, aclDataType bias_dt, int64_t bs, float *dst);

// Per-thread scratch floats (the ring of padded rows and a channels-first output's row buffer).
int64_t conv_direct_rows_scratch_floats(const ConvGeom &g, int64_t c_in, int64_t c_out);

// One per ISA tier; `scratch` holds `threads` blocks of conv_direct_rows_scratch_floats floats.
void conv_direct_rows_portable(const DirectArgs &a, float *scratch, int threads);
void conv_direct_rows_avx2(const DirectArgs &a, float *scratch, int threads);
void conv_direct_rows_avx512(const DirectArgs &a, float *scratch, int threads);
using DirectRowsFn = void (*)(const DirectArgs &, float *, int);

// The same convolution for a channels-first output of unit pixel stride (plain NCHW): vectors along
// the output pixels, stored straight into the output planes (no row buffer, no transpose); the ring
// rows split by channel and width-stride phase. Same weight packing, same order of sums.
int64_t conv_direct_rows_nchw_scratch_floats(const ConvGeom &g, int64_t c_in, int64_t c_out);
void conv_direct_rows_nchw_portable(const DirectArgs &a, float *scratch, int threads);
void conv_direct_rows_nchw_avx2(const DirectArgs &a, float *scratch, int threads);
void conv_direct_rows_nchw_avx512(const DirectArgs &a, float *scratch, int threads);

}  // namespace opsnn::kernels

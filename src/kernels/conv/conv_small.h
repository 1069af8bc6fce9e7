// Direct convolution for very few input channels (C_in <= kSmallCinMax, groups 1, FLOAT input and
// output in any layout): vectors run along the output pixels instead of the channels, which a
// 1- to 8-channel layer cannot fill. Per image the C_in input planes are copied once into a
// zero-padded scratch whose rows are split by the innermost stride into phases (so every tap of
// every stride reads contiguous floats); output pixels of one output plane are numbered
// J = o1 * pitch + o2 over the scratch's row pitch (a "wide" plane: the columns past the last
// output are computed and thrown away), so one vector covers several short output rows. A tile of
// CB output channels x NV vectors of J accumulates in registers over (C_in, k0, k1, k2) in that
// fixed order, starting from the bias; results do not depend on the thread count.
// Knows nothing of aclTensor.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/conv/conv.h"

namespace opsnn::kernels {

constexpr int64_t kSmallCinMax = 8;

// The scratch layout of one image's padded planes, the same for every ISA unit. With stride 1 along
// dim 1 the planes are "shifted" instead: per input channel and kernel column k2, a plane of rows of
// small2 values, row (x0, x1) holding padded column o2 * s2 + k2 * d2 at o2; J is then the output
// plane's own flat index (no thrown-away columns, and dense output rows take one copy per tile).
struct SmallPlanes {
  bool shifted = false;
  int64_t e[3] = {1, 1, 1};  // padded extents along the three spatial dims (what the windows read)
  int64_t plen = 1;          // one phase row (floats) (shifted: small2)
  int64_t rlen = 1;          // one padded row = s2 phase rows (shifted: small2)
  int64_t kplane = 0;        // shifted: one kernel column's plane = e0 * e1 * small2
  int64_t plane = 1;         // one channel's plane = e0 * e1 * rlen (shifted: k2 * kplane)
  int64_t pitch = 1;         // J between output rows o1 and o1 + 1 (= s1 * rlen; shifted: small2)
  int64_t wide = 1;          // J extent of one output plane (o0 fixed): (small1 - 1) * pitch + small2
  int64_t floats = 1;        // per-thread scratch: the C_in planes plus what the last vector may over-read
};
SmallPlanes conv_small_planes(const ConvGeom &g, int64_t c_in);

// The direct kernel's arguments, with `w` the dense fp32 weight [C_out][C_in][k0][k1][k2]
// (conv_small_weights) instead of its packed layout, and the bias on its own.
struct SmallArgs : DirectArgs {
  const float *bias = nullptr;  // fp32 [C_out] (zeros without a bias)
};

// Floats of the weight block conv_small_weights writes: the weight, then the bias.
int64_t conv_small_weight_floats(const ConvGeom &g, int64_t c_in, int64_t c_out);
// The weight [C_out, C_in, k0, k1, k2] (any float dtype, element strides ws) and the optional bias
// (stride bs) as fp32 into dst (weight first, then C_out bias values).
void conv_small_weights(const ConvGeom &g, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt,
                        const int64_t ws[5], const char *bias, aclDataType bias_dt, int64_t bs, float *dst);

// One per ISA tier; `scratch` holds `threads` blocks of conv_small_planes(...).floats floats.
void conv_small_portable(const SmallArgs &a, float *scratch, int threads);
void conv_small_avx2(const SmallArgs &a, float *scratch, int threads);
void conv_small_avx512(const SmallArgs &a, float *scratch, int threads);
using SmallFn = void (*)(const SmallArgs &, float *, int);

}  // namespace opsnn::kernels

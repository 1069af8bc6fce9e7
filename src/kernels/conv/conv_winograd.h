// Winograd F(m x m, 3 x 3) convolution pieces (2-D, groups 1, stride 1, dilation 1, FLOAT), as a
// batched GEMM: each m x m output tile reads an (m + 2) x (m + 2) input patch; its T = (m + 2)^2
// transformed values V_t = (B^T d B)_t are planes [T][tiles][C_in], T GEMMs V_t @ U_t with the
// transformed weight U_t = (G g G^T)_t [C_in][C_out] give M_t [T][tiles][C_out], and the output
// transform A^T M A (+ bias) writes the tile. m = 2 (16 planes) or 4 (36 planes, fewer multiplies,
// larger rounding error). The matrices are Lavin & Gray's (points 0, +-1 for m = 2; 0, +-1, +-2 for
// m = 4). The step (ops/conv/conv_winograd_step.cpp) runs the GEMMs on the GEMM engine.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

inline int64_t wino_planes(int m) { return static_cast<int64_t>(m + 2) * (m + 2); }

// One convolution's operands and tiling. Images are FLOAT with any strides (elements).
struct WinoArgs {
  int m = 2;
  int64_t n = 0, c_in = 0, c_out = 0;
  int64_t h = 0, w = 0, oh = 0, ow = 0;  // input / output spatial size
  int64_t pad_h = 0, pad_w = 0;          // top / left padding
  int64_t tiles_h = 0, tiles_w = 0;      // output tiles per column / row: ceil(o / m)
  int64_t in_sn = 0, in_sc = 0, in_sh = 0, in_sw = 0;
  int64_t out_sn = 0, out_sc = 0, out_sh = 0, out_sw = 0;
  const float *in = nullptr;
  float *out = nullptr;
  const float *bias = nullptr;  // [C_out] fp32, or null
  int64_t tiles() const { return n * tiles_h * tiles_w; }
};

// The transformed weight's floats: T planes in the GEMM's pre-packed B layout (gemm_prepack_b:
// K = C_in, N = C_out), then C_out floats of bias.
int64_t wino_weight_plane_floats(int64_t c_in, int64_t c_out);
int64_t wino_weight_floats(int m, int64_t c_in, int64_t c_out);
// U = G g G^T (computed in double, rounded once) of w [C_out][C_in][3][3] (strides ws[0], ws[1],
// ws[3], ws[4] of the logical 5-D weight, any float dtype) and the bias (null: zeros) into dst.
void wino_transform_weight(int m, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt, const int64_t ws[5],
                           const char *bias, aclDataType bias_dt, int64_t bs, float *dst);

// Input transform of tiles [tile0, tile0 + count) into v: plane t of tile i, channel c at
// v[t * ldp + i * c_in + c] (zeros outside the image).
using WinoInputFn = void (*)(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp);
// Output transform of M (plane t of tile i, channel c at mm[t * ldp + i * c_out + c]) + bias into
// the output (only the pixels inside it).
using WinoOutputFn = void (*)(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp);

void wino_input_portable(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp);
void wino_output_portable(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp);
#if defined(__x86_64__)
void wino_input_avx2(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp);
void wino_output_avx2(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp);
void wino_input_avx512(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp);
void wino_output_avx512(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp);
#endif

}  // namespace opsnn::kernels

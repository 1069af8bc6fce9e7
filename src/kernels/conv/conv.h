// Convolution kernels over raw pointers (the GEMM does the arithmetic of most paths; these are the
// data movements around it and the direct depthwise kernel). Knows nothing of aclTensor.
//
// Geometry is always 3-D: a 1-D or 2-D convolution has leading spatial dims of size 1 (kernel 1,
// stride 1, padding 0, dilation 1). The "big" side is the convolution's input (a transposed
// convolution's output), the "small" side its output; small = floor((big + 2p - d(k-1) - 1) / s) + 1.
// Column matrices have rows j = (c, kd, kh, kw) (c outermost) and columns l = the small side's
// flattened spatial index.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct ConvGeom {
  int64_t big[3] = {1, 1, 1}, small[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t kprod() const { return k[0] * k[1] * k[2]; }
  int64_t big_n() const { return big[0] * big[1] * big[2]; }
  int64_t small_n() const { return small[0] * small[1] * small[2]; }
};

// A strided image of C channels on one side: element (c, x0, x1, x2) at base + (c*sc + sum xi*ss[i]) * esize.
struct ConvImage {
  const char *base = nullptr;
  aclDataType dtype = ACL_FLOAT;
  int64_t sc = 0, ss[3] = {0, 0, 0};
};

// im2col of C channels of the big-side image `src` for the small-side columns [l0, l0 + len):
// dst[j * ld + (l - l0)] (src's dtype, raw copy; 0 in the padding). Parallel over rows.
void conv_im2col(const ConvGeom &g, const ConvImage &src, int64_t C, int64_t l0, int64_t len, char *dst, int64_t ld);

// The same for INT8 images, the padding filled with `pad` (QuantConvolution's offsetx).
void conv_im2col_i8(const ConvGeom &g, const ConvImage &src, int64_t C, int64_t l0, int64_t len, int8_t *dst,
                    int64_t ld, int8_t pad);

// col2im: acc[c * big_n + i] += the column entries that fall on big-side position i, for the
// columns [l0, l0 + len) of col (fp32, col[j * ld + (l - l0)]). Parallel over channels.
void conv_col2im(const ConvGeom &g, const float *col, int64_t ld, int64_t C, int64_t l0, int64_t len, float *acc);

// Writes fp32 acc (C planes of n values) + bias[c] (optional, any float dtype, stride bs) to a
// strided image (dst's dtype, rounding once). n is the flattened extent of the dims `dims`.
void conv_store(const float *acc, int64_t C, const int64_t dims[3], const ConvImage &dst, const char *bias,
                aclDataType bias_dtype, int64_t bs);

// Fills a strided [rows, cols] block with bias[r] (bias in any float dtype, stride bs), in dst's
// dtype: the bias a GEMM with beta = 1 then adds its product to.
void conv_fill_rows(char *dst, aclDataType dt, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const char *bias,
                    aclDataType bias_dtype, int64_t bs);

// Copies an N-D strided tensor of float dtype into a dense fp32 buffer (row-major) / back.
void conv_to_float(const char *src, aclDataType dt, int ndim, const int64_t *dims, const int64_t *strides, float *dst);
void conv_from_float(const float *src, int ndim, const int64_t *dims, const int64_t *strides, aclDataType dt,
                     char *dst);

// Bias gradient: out[c] = sum over n and the spatial dims of src (C channels, N images of `spatial`
// positions, strides sn / sc / ss), summed in double, written in out's dtype with stride os.
void conv_bias_grad(const char *src, aclDataType dt, int64_t N, int64_t C, const int64_t spatial[3], int64_t sn,
                    int64_t sc, const int64_t ss[3], char *out, aclDataType out_dt, int64_t os);

// Direct depthwise convolution (groups = C_in, C_out = C_in * mult): per (n, c_in) the input plane
// is read in place (FLOAT rows of unit stride, width stride 1) or copied once into a zero-padded,
// phase-split fp32 scratch (scratch_floats per thread), then each of the mult
// output planes accumulates the kernel taps row by row in fp32 (fixed order: kd, kh, kw, then the bias;
// see conv_depthwise_impl.h). `threads` scratch blocks of scratch_floats floats each.
struct DepthwiseArgs {
  ConvGeom g;
  int64_t n = 0, c_in = 0, mult = 1;
  ConvImage in;                    // plus sn
  int64_t in_sn = 0;
  const char *w = nullptr;         // [C_out, 1, k...]
  aclDataType w_dtype = ACL_FLOAT;
  int64_t w_s0 = 0, w_ss[3] = {0, 0, 0};
  const char *bias = nullptr;
  aclDataType bias_dtype = ACL_FLOAT;
  int64_t bias_s = 0;
  ConvImage out;
  int64_t out_sn = 0;
  char *out_base = nullptr;
  // depthwise_nhwc's 3-wide tiles: non-temporal output stores (phase 1: an output past L2, the
  // AVX-512 tier; taken when the output rows are 64-byte aligned).
  bool stream_out = false;
};
int64_t conv_depthwise_scratch_floats(const ConvGeom &g);
// One per ISA tier (the x86-64 ones exist only there); phase 1 chooses.
void conv_depthwise_portable(const DepthwiseArgs &a, float *scratch, int threads);
void conv_depthwise_avx2(const DepthwiseArgs &a, float *scratch, int threads);
void conv_depthwise_avx512(const DepthwiseArgs &a, float *scratch, int threads);
using DepthwiseFn = void (*)(const DepthwiseArgs &, float *, int);

// Channels-last FLOAT depthwise with multiplier 1 (input and output channel stride 1): vectors
// along the channels, the weight re-laid out as [tap][C] once per launch into the scratch (one
// block of conv_depthwise_nhwc_scratch_floats, shared by the threads); threads split the output rows.
int64_t conv_depthwise_nhwc_scratch_floats(const ConvGeom &g, int64_t c);
void conv_depthwise_nhwc_portable(const DepthwiseArgs &a, float *scratch, int threads);
void conv_depthwise_nhwc_avx2(const DepthwiseArgs &a, float *scratch, int threads);
void conv_depthwise_nhwc_avx512(const DepthwiseArgs &a, float *scratch, int threads);

// Direct (implicit-GEMM) convolution, groups 1, FLOAT input and output in any layout (best
// channels-last: the output then takes whole vector stores): per output row (n, o0, o1), tiles of
// output pixels along o2 x blocks of 16 output channels accumulate in registers over the taps
// (k0, k1, k2) and C_in (fixed order), then + bias (conv_direct_impl.h). The weight is read from
// its packed copy (conv_direct_pack). Threads split (channel block groups x output rows); results
// do not depend on the thread count.
constexpr int64_t kDirectBlock = 16;
// Floats of the packed weight [ceil(C_out/16)][k0][k1][k2][C_in][16] (channels past C_out zero),
// followed by the bias as ceil(C_out/16) * 16 floats (zero without one).
int64_t conv_direct_packed_floats(const ConvGeom &g, int64_t c_in, int64_t c_out);
// Packs a weight [C_out, C_in, k0, k1, k2] (any float dtype, element strides ws) and the optional
// bias (stride bs) into dst. Parallel over the output channels.
void conv_direct_pack(const ConvGeom &g, int64_t c_in, int64_t c_out, const char *w, aclDataType w_dt,
                      const int64_t ws[5], const char *bias, aclDataType bias_dt, int64_t bs, float *dst);
struct DirectArgs {
  ConvGeom g;
  int64_t n = 0, c_in = 0, c_out = 0;
  const float *in = nullptr;
  int64_t in_sn = 0, in_sc = 1, in_ss[3] = {0, 0, 0};
  float *out = nullptr;
  int64_t out_sn = 0, out_sc = 1, out_ss[3] = {0, 0, 0};
  const float *w = nullptr;  // conv_direct_pack's layout
  // Output channel blocks per register tile group, at most the unit's widest tile (AVX-512: 4);
  // 0: the widest. Phase 1 narrows it when a group's weight slice would not stay in L2.
  int64_t group_blocks = 0;
};
void conv_direct_portable(const DirectArgs &a, int threads);
void conv_direct_avx2(const DirectArgs &a, int threads);
void conv_direct_avx512(const DirectArgs &a, int threads);
using DirectFn = void (*)(const DirectArgs &, int);

float conv_load(aclDataType dt, const char *p);
void conv_put(aclDataType dt, char *p, float v);

}  // namespace opsnn::kernels

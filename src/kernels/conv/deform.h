// Deformable convolution (DCNv2, torchvision.ops.deform_conv2d semantics) data movements around the
// GEMM: the deformable im2col (bilinear samples, zero outside the image, times the modulation mask)
// and its adjoint (gradients of the input, the offsets and the mask). Knows nothing of aclTensor.
//
// Columns: rows j = c * K + k (K = kH * kW taps, k = i * kW + j), columns l = oh * oW + ow. The
// offset tensor of one image has 3 * dg * K channels: x (width) offsets, y (height) offsets, then the
// masks, each block ordered (deformable group, tap): channel part * dg * K + g * K + k.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct DeformGeom {
  int64_t C = 0, H = 0, W = 0;          // input channels and plane
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;  // ph / pw: top / left padding
  int64_t oh = 0, ow = 0, dg = 1;       // output plane, deformable groups
  int64_t taps() const { return kh * kw; }
  int64_t L() const { return oh * ow; }
};

// A strided [C, H, W] plane set (one image) in any float dtype.
struct DeformPlanes {
  const char *base = nullptr;
  aclDataType dt = ACL_FLOAT;
  int64_t sc = 0, sh = 0, sw = 0;
};

// col[(c * K + k) * ld + (l - l0)] = mask * bilinear(x_c, position of (k, l)) for l in [l0, l0 + len),
// in fp32 (sums in double). Without `modulated` the mask is 1. Parallel over (group, tap) rows.
void deform_im2col(const DeformGeom &g, const DeformPlanes &x, const DeformPlanes &off, bool modulated, int64_t l0,
                   int64_t len, float *col, int64_t ld);

// Writes the columns [l0, l0 + len) to deformOut [C, oH * kH, oW * kW] (element (c, oh * kH + i,
// ow * kW + j) = col row c * K + i * kW + j), rounding to its dtype.
void deform_store_columns(const DeformGeom &g, const float *col, int64_t ld, int64_t l0, int64_t len,
                          const DeformPlanes &out);

// The reverse: reads deformOut's columns [l0, l0 + len) into col (fp32).
void deform_load_columns(const DeformGeom &g, const DeformPlanes &in, int64_t l0, int64_t len, float *col,
                         int64_t ld);

// The adjoint of deform_im2col for the column gradient `gcol` (same layout): gx[c * H * W + h * W + w]
// += the input gradient (parallel over channels, fixed order), and the offset / mask gradients of
// the columns [l0, l0 + len) written to `goff` (same layout as the offsets, rounded to its dtype;
// the mask rows are 0 without `modulated`). Positions outside (-1, H) x (-1, W) get zero gradients.
void deform_col2im(const DeformGeom &g, const DeformPlanes &x, const DeformPlanes &off, bool modulated,
                   const float *gcol, int64_t ld, int64_t l0, int64_t len, float *gx, const DeformPlanes &goff);

}  // namespace opsnn::kernels

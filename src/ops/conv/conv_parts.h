// The pieces the convolution ops' phase 1 is built from (internal to src/ops/conv/):
//   conv_geometry.cpp   logical [N, C, s0, s1, s2] views of tensors, the argument checks and the
//                       geometry they give (conv_shapes)
//   conv_gemm_steps.cpp the GEMM-based steps and their recording: forward, data, wgrad (candidate
//                       list: direct depthwise, 1x1 GEMM, im2col / col2im + GEMM), the bias gradient
//   conv_phase1.cpp     the plain ops (Convolution, ConvDepthwise2d, ConvTbc, their backwards,
//                       Im2col) and the dispatch of every row of conv.ops
//   conv_deformable.cpp DeformableConv2d (+Backward)
//   conv_quant.cpp      QuantConvolution
//   conv_winograd_step.cpp the Winograd F(m x m, 3 x 3) forward step
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/impl_list.h"
#include "core/op_builder.h"
#include "kernels/conv/conv.h"
#include "kernels/conv/packed_weight.h"
#include "kernels/matmul/gemm.h"
#include "ops/conv/conv_phase1.h"

namespace opsnn::ops::conv_parts {

using kernels::ConvGeom;

// Column tiles are sized so the column buffer stays within this many bytes (at least 16 columns,
// or the whole span); OPSNN_CONV_COLUMN_BYTES overrides it (tests use a tiny budget to reach many
// tiles with small shapes).
int64_t column_budget();

inline int64_t esz(aclDataType dt) { return static_cast<int64_t>(core::dtype_size(dt)); }

// A logical [N, C, s0, s1, s2] view of a tensor (leading spatial dims of size 1 added; channels-last
// formats NHWC / NDHWC read as [N, spatial..., C]).
struct Logical {
  int64_t dims[5] = {1, 1, 1, 1, 1}, strides[5] = {0, 0, 0, 0, 0};
};

bool channels_last(const aclTensor &t);
Logical logical(const aclTensor &t);
// The shape of a tensor with logical dims [N, C, spatial(nsp)] in t's format order.
core::Shape shape_in_format(const aclTensor &like, int64_t n, int64_t c, const int64_t *sp, int nsp);

// One side of the geometry at launch: where it is and its logical strides (elements).
struct Side {
  core::OperandRef ref;
  aclDataType dt = ACL_FLOAT;
  int64_t n = 0, c = 0, sp[3] = {1, 1, 1};
  int64_t sn = 0, sc = 0, ss[3] = {0, 0, 0};
  // Stride of the flattened spatial index, or -1 when the spatial dims do not nest.
  int64_t flat_stride() const {
    int64_t fs = -1, inner = 1;
    for (int i = 2; i >= 0; --i) {
      if (sp[i] == 1) continue;
      if (fs < 0) {
        fs = ss[i];
      } else if (ss[i] != fs * inner) {
        return -1;
      }
      inner *= sp[i];
    }
    return fs < 0 ? 1 : fs;
  }
  kernels::ConvImage image(const char *base, int64_t n_idx, int64_t c0) const {
    kernels::ConvImage im;
    im.base = base + esz(dt) * (n_idx * sn + c0 * sc);
    im.dtype = dt;
    im.sc = sc;
    for (int i = 0; i < 3; ++i) im.ss[i] = ss[i];
    return im;
  }
};

Side side_of(int slot, const aclTensor &t, const Logical &l);

// The weight [C_small, C_big / groups, k0, k1, k2].
struct Weight {
  core::OperandRef ref;
  aclDataType dt = ACL_FLOAT;
  int64_t dims[5] = {1, 1, 1, 1, 1}, strides[5] = {0, 0, 0, 0, 0};
  // Stride of the flattened (c, k0, k1, k2) index j, or -1 (then the step packs it to fp32).
  int64_t j_stride() const {
    int64_t fs = -1, inner = 1;
    for (int i = 4; i >= 1; --i) {
      if (dims[i] == 1) continue;
      if (fs < 0) {
        fs = strides[i];
      } else if (strides[i] != fs * inner) {
        return -1;
      }
      inner *= dims[i];
    }
    return fs < 0 ? 1 : fs;
  }
};

Weight weight_of(int slot, const aclTensor &t, const Logical &l);

struct Bias {
  core::OperandRef ref;  // slot -1: none
  aclDataType dt = ACL_FLOAT;
  int64_t stride = 0;
  bool present() const { return ref.slot >= 0; }
};

Bias bias_of(int slot, const aclTensor *t);

// The geometry of one convolution: big side = its input, small side = its output.
struct Problem {
  ConvGeom g;
  int nsp = 2;
  int64_t groups = 1;
};

// ---- Argument checks (conv_geometry.cpp) ----

// An int array of nsp values (or one, repeated, when allow_single).
std::vector<int64_t> int_array(const aclIntArray *a, const char *name, int nsp, bool allow_single);
void check_cube(int cube);
// Stride / padding / dilation / output padding into the geometry (spatial dims right-aligned).
void set_params(Problem &p, int nsp, const std::vector<int64_t> &k, const std::vector<int64_t> &s,
                const std::vector<int64_t> &pad, const std::vector<int64_t> &dil);
// The small side of a convolution from its big side.
void infer_small(Problem &p, const char *input_name);
void check_dtype_like(const aclTensor *t, const char *name, aclDataType want, const char *like);
void check_out(const aclTensor *t, const char *name, const core::Shape &shape, const ConvRule &rule);
void check_rank(const aclTensor *t, const char *name, int lo, int hi);
void check_bias(const aclTensor *bias, const char *name, int64_t channels, aclDataType in_dt);
void check_input_dtypes(const ConvRule &rule, const aclTensor *input, const char *in_name, const aclTensor *weight,
                        const char *w_name);

// The geometry and the weight checks shared by Convolution, ConvolutionBackward, ConvDepthwise2d
// and QuantConvolution.
struct ConvShapes {
  Problem p;
  int64_t c_in = 0, c_out = 0;
  core::Shape out_shape;  // the forward output's shape (in the input's format)
};

ConvShapes conv_shapes(const aclTensor *input, const char *in_name, const aclTensor *weight, const char *w_name,
                       const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                       bool transposed, const aclIntArray *output_padding, int64_t groups);

// ---- Recording (conv_gemm_steps.cpp) ----

// Notes the chosen implementation in the phase-1 trace (verbose mode) as conv:<engine>/<name>.
void record(const char *engine, const char *name, const core::ImplTrace *trace);
kernels::GemmPlan plan_gemm(const kernels::GemmDesc &d);
// small = W @ im2col(big) (+ bias), or the direct depthwise / 1x1 paths.
void record_forward(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                    const Bias &bias);
// big = col2im(W^T @ small) (+ bias).
void record_data(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                 const Bias &bias);
// gw = small @ im2col(big)^T.
void record_wgrad(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &gw);
// gradBias[c] = the sum of the gradient `go` over its N and spatial dims.
void record_bias_grad(core::OpBuilder &b, const Side &go, int slot, const aclTensor &grad_bias);

// A weight (+ bias) re-laid out for a kernel once per executor: kernels::PackedWeight keeps the
// copy while the weight is unchanged; a changed bias (its own tracker) re-packs it too. Copies of a
// step share the copy.
struct PackedConvWeight {
  std::shared_ptr<kernels::PackedWeight> weight = std::make_shared<kernels::PackedWeight>();
  std::shared_ptr<kernels::PackedWeight> bias = std::make_shared<kernels::PackedWeight>();
  // pack(weight address, bias address or null, dst of `floats`), then use(the copy).
  void with(const core::LaunchArgs &args, const Weight &w, const Bias &b, int64_t c_out, size_t floats,
            const std::function<void(const char *, const char *, float *)> &pack,
            const std::function<void(const float *)> &use) const;
};

// The Winograd F(m x m, 3 x 3) forward step (conv_winograd_step.cpp): 2-D, groups 1, FLOAT, 3x3
// stride 1 dilation 1; `tier` indexes the direct kernels' ISA tiers (avx512, avx2, portable).
// The Winograd tile (2: F(2x2, 3x3), 4: F(4x4, 3x3)) for a 2-D 3x3 stride-1 convolution of n images
// of c_in -> c_out channels, or 0 with the reason (too few channels or tiles, OPSNN_CONV_WINOGRAD=off).
// OPSNN_CONV_WINOGRAD=f2 / f4 takes that tile whatever the size (tests; measuring).
int winograd_tile(const ConvGeom &g, int64_t n, int64_t c_in, int64_t c_out, const core::Why &why);
void record_winograd(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                     const Bias &bias, int tier, int m);

// ---- The ops outside conv_phase1.cpp ----

void deformable_conv2d(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c);
void deformable_conv2d_backward(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c);
void quant_convolution(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c);

}  // namespace opsnn::ops::conv_parts

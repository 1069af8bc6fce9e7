// The phase 1 of the table-driven convolution ops (src/ops/conv/conv.ops): Convolution (1-D / 2-D /
// 3-D, groups, transposed), ConvolutionBackward, ConvDepthwise2d, ConvTbc (+Backward), Im2col (+Backward:
// col2im), DeformableConv2d (+Backward: deformable im2col / its adjoint around the same GEMMs) and
// QuantConvolution (+WeightNz: int8 im2col + the int8 GEMM engine + the quantised-matmul epilogue).
// Semantics: torch.nn.functional.conv{1,2,3}d / conv_transpose{1,2,3}d, conv_tbc, unfold / fold.
//
// Every op reduces to three GEMM-based operations over a geometry with a "big" side (a
// convolution's input) and a "small" side (its output), with the weight always [C_small,
// C_big / groups, k...]:
//   forward   small = W_g @ im2col(big) (+ bias in the GEMM epilogue)   conv; transposed conv's
//                                                                      gradInput
//   data      big = col2im(W_g^T @ small) (+ bias)                     transposed conv; conv's
//                                                                      gradInput
//   wgrad     dW_g += small_g @ im2col(big)^T                          gradWeight of both
// chosen per call from ordered candidate lists (1x1 GEMM without copies, direct depthwise,
// im2col / col2im + GEMM with a tiled column buffer in the workspace).
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class ConvKind : uint8_t {
  kConvolution,
  kConvDepthwise2d,
  kConvTbc,
  kConvolutionBackward,
  kConvTbcBackward,
  kIm2col,
  kIm2colBackward,  // col2im: the adjoint of Im2col (torch.nn.functional.fold)
  kDeformableConv2d,
  kDeformableConv2dBackward,
  kQuantConvolution,
  kQuantConvolutionWeightNz,  // the weight in FRACTAL_Z_3D (core/fractal_layout.h)
};

struct ConvRule {
  ConvKind kind;
  core::DtypeMask dtypes;
};

struct ConvCall {
  const aclTensor *input = nullptr, *weight = nullptr, *bias = nullptr, *output = nullptr;
  const aclTensor *grad_output = nullptr, *grad_input = nullptr, *grad_weight = nullptr, *grad_bias = nullptr;
  const char *input_name = "input", *weight_name = "weight", *bias_name = "bias", *output_name = "output";
  const char *grad_output_name = "gradOutput";
  const aclIntArray *stride = nullptr, *padding = nullptr, *dilation = nullptr, *output_padding = nullptr;
  const aclIntArray *kernel_size = nullptr, *bias_sizes = nullptr;
  const aclIntArray *input_size = nullptr;  // Im2colBackward: the image's (H, W)
  const aclBoolArray *output_mask = nullptr;
  bool transposed = false;
  int64_t groups = 1;
  int64_t pad = 0;  // ConvTbc
  int cube_math_type = 0;
  // DeformableConv2d (+Backward)
  const aclTensor *offset = nullptr, *deform_out = nullptr, *offset_out = nullptr, *grad_offset = nullptr;
  int64_t deformable_groups = 1;
  bool modulated = true;
  // QuantConvolution (its `offset` parameter is the reserved quantisation offset, in `offset`)
  const aclTensor *scale = nullptr;
  int64_t offsetx = 0;
  const char *round_mode = nullptr;
};

void conv_phase1(core::OpBuilder &b, const ConvRule &rule, const ConvCall &c);

}  // namespace opsnn::ops

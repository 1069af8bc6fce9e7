// The phase 1 of the table-driven resize ops (src/ops/pooling/resize.ops): nearest, nearest-exact,
// linear / bilinear / trilinear and bicubic upsampling over 1, 2 or 3 spatial dims and their
// gradients, over the resize engine (kernels/pooling/resize.h). Semantics are PyTorch's
// (aten::upsample_* with outputSize, align_corners and scales; torch.nn.functional.interpolate).
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/pooling/resize.h"

namespace opsnn::ops {

struct ResizeRule {
  kernels::ResizeMode mode;
  int spatial;             // 1, 2 or 3 (tensors have spatial + 2 dims; forward self also spatial + 1)
  bool backward;           // gradOutput -> gradInput with inputSize
  core::DtypeMask dtypes;  // accepted self / gradOutput dtypes
};

struct ResizeCall {
  const aclTensor *self = nullptr;  // self, or gradOutput for a backward op
  const char *self_name = "self";
  const aclIntArray *output_size = nullptr, *input_size = nullptr;
  const char *output_size_name = "outputSize", *input_size_name = "inputSize";
  bool align_corners = false;
  double scales[3] = {0, 0, 0};  // per spatial dim in order (D, H, W of the op's dims); <= 0: not given
  const aclTensor *out = nullptr;
  const char *out_name = "out";
};

void resize_phase1(core::OpBuilder &b, const ResizeRule &rule, const ResizeCall &c);

}  // namespace opsnn::ops

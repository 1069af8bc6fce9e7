// SwigluGroup and its gradient (SwigluGroupGrad, SwigluGroupQuantGrad) over strided rows (formulas:
// src/ops/activation/swiglu_group.ops). x's rows are its dims but the last, split into halves A | B of
// h elements; the forward in fp32, the gradient in double (silu's derivative crosses zero), the weight's
// gradient summed in double per row, so results never
// depend on the thread count. Rows at and after sum(groupIndex) are written as +0.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/tensor.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/quant/low_float.h"
#include "kernels/quant/quant_token.h"

namespace opsnn::kernels {

// A tensor seen as [rows, n]: the leading dims (x's, shared by every row tensor) with their element
// strides, and the stride along the last dim.
struct SwgRowView {
  int64_t lead[core::kMaxDims] = {};
  int64_t last = 1;
};

// A per-row FLOAT tensor of any shape holding one value per row in its row-major order.
struct SwgFlatView {
  int ndim = 0;
  int64_t dims[core::kMaxDims] = {}, strides[core::kMaxDims] = {};
};

struct SwigluGroupPlan {
  int lead_ndim = 0;
  int64_t lead_dims[core::kMaxDims] = {};
  int64_t rows = 0, h = 0;
  aclDataType dtype = ACL_FLOAT;  // x, out, gradY, yOrigin, gradX
  float clamp = 0.0f;             // > 0: clamp A above and B on both sides before the activation
  bool backward = false;
  SwgRowView x, y, dy, y_origin;  // y: out (forward) or gradXOut
  SwgFlatView weight, dweight;
  int64_t group_n = 0, group_stride = 1;
  // The forward's activation of a chunk of fp32 halves: the element-wise engine's SwiGlu / ClippedSwiglu
  // (alpha 1, limit = clamp, bias 0) in its best tier, chosen in phase 1.
  ContigKernel act = nullptr;
  OpScalars act_scalars;
  // SwigluGroupQuant: y is INT8 or FLOAT8 (blocks of quant_block along the row, one FLOAT scale each in `scale`),
  // y_origin (x's dtype) gets the unweighted activation when origin is set.
  bool quant = false, origin = false, round_scale = false;
  int64_t quant_block = 128;
  SwgRowView scale;
  // The per-token tier's INT8 kernel (chosen in phase 1) when y is contiguous along the row; null: the scalar
  // rounding and store.
  QuantInt8Fn int8 = nullptr;
  // FLOAT8 y (dstType 35 / 36): scale = a / qmax (the format's largest value; INT8: 127) and the codes of
  // v * (1 / scale) half to even, saturating (a NaN v: the NaN code).
  bool fp8 = false;
  LowFloat fp8_fmt = LowFloat::kE4M3;
  float qmax = 127.0f;
};

struct SwigluGroupArgs {
  const char *x = nullptr, *weight = nullptr, *dy = nullptr, *y_origin = nullptr;  // weight null: 1
  const int64_t *group = nullptr;                                                   // null: every row
  char *y = nullptr, *dweight = nullptr;                                           // dweight null: not computed
  char *scale = nullptr, *origin = nullptr;                                        // SwigluGroupQuant's outputs
};

// 0, or 161002 (before any write) when a group count is negative.
int swiglu_group_run(const SwigluGroupPlan &plan, const SwigluGroupArgs &args);

}  // namespace opsnn::kernels

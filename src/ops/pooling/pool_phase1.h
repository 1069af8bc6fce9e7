// The phase 1 of the table-driven pooling ops (src/ops/pooling/pooling.ops): max / average
// pooling (regular windows with kernel, stride, padding, dilation, ceil mode; adaptive windows),
// their gradients, and max-unpooling, over the pooling engine
// (kernels/pooling). Semantics are PyTorch's (torch.nn.functional.avg_pool2d / max_pool2d /
// adaptive_*_pool*d / max_unpool*d); indices are flat per-plane
// positions d * H * W + h * W + w in INT32 or INT64.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/pooling/pool.h"

namespace opsnn::ops {

enum class PoolKind : uint8_t {
  kAvg,                  // out = avg_pool(self)
  kMax,                  // out = max_pool(self)
  kMaxIndices,           // out, indicesOut = max_pool(self, return_indices)
  kAdaptiveAvg,          // out = adaptive_avg_pool(self, outputSize)
  kAdaptiveMax,          // out, indices = adaptive_max_pool(self, outputSize)
  kAvgBackward,          // gradInput from gradOutput (self gives the input shape)
  kMaxIndicesBackward,   // gradInput[indices] += gradOutput
  kAdaptiveAvgBackward,  // gradInput from gradOutput (windows from the two shapes)
  kAdaptiveMaxBackward,  // gradInput[indices] += gradOutput
  kUnpool,               // out = 0; out[indices] = self (outputSize spatial dims)
  kUnpoolBackward,       // out = gradOutput[indices] (self's shape)
  kMaxMask,              // out, mask = max_pool(self); the mask marks each output's kernel position
  kMaxMaskBackward,      // gradInput[the position the mask marks] += gradOutput
};

// The mask of aclnnMaxPool2dWithMask (our layout; the vendor's is device-specific): INT8 (or UINT8)
// [N, C, kH * kW, (ceil(Hout * Wout / 16) + 1) * 32] (no N without the batch dim). Row k of a plane
// holds two bytes per output p = oh * Wout + ow: both 1 when the maximum of output p is at kernel
// offset k = kh * kW + kw (the position PyTorch's index names), else 0; bytes past 2 * Hout * Wout
// are 0. The backward adds gradOutput[p] at the position of the first row whose byte 2 p is
// non-zero (none: nothing).
int64_t pool_mask_width(int64_t out_h, int64_t out_w);

struct PoolRule {
  PoolKind kind;
  int spatial;             // spatial dims: 2 or 3 (inputs have spatial + 2 dims, or + 1 without batch)
  core::DtypeMask dtypes;  // accepted self dtypes
  bool onnx_pads;          // aclnnMaxPool: pads of 1, 2 or 4 values (begin..., end...), ceilMode int, autoPad
};

struct PoolCall {
  const aclTensor *grad = nullptr, *self = nullptr, *indices = nullptr;
  const char *grad_name = "gradOutput", *self_name = "self", *indices_name = "indices";
  const aclIntArray *kernel = nullptr, *stride = nullptr, *padding = nullptr, *dilation = nullptr,
                    *output_size = nullptr;
  const char *kernel_name = "kernelSize", *stride_name = "stride", *padding_name = "padding",
             *dilation_name = "dilation", *output_size_name = "outputSize";
  bool has_kernel = false, has_stride = false, has_padding = false, has_dilation = false, has_output_size = false;
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor_override = 0, auto_pad = 0;
  const aclTensor *out = nullptr, *out_indices = nullptr;
  const char *out_name = "out", *out_indices_name = "indices";
};

void pool_phase1(core::OpBuilder &b, const PoolRule &rule, const PoolCall &c);

// A tensor's logical (n, c, d, h, w) dims and element strides (shared with the resize phase 1):
// NCHW-like (ND, NCHW, NCL, NCDHW) or channels-last when its format says so (NHWC with 2 spatial
// dims, NDHWC with 3); without the batch dim (spatial + 1 dims) n = 1; `nsp` is 1, 2 or 3.
struct PoolLogical {
  kernels::PoolView v;
  bool batched = true, channels_last = false;
};
PoolLogical pool_logical(const aclTensor &t, const char *name, int nsp);
// The dims a tensor like `like` (same format and batching) has for logical dims `dims`.
std::vector<int64_t> pool_physical_dims(const PoolLogical &like, const int64_t *dims, int nsp);
// `t` has the logical dims `dims` (in its own format, with `like`'s batching), else 161002.
void pool_check_dims(const aclTensor &t, const char *name, const PoolLogical &like, const int64_t *dims, int nsp);

// Where an operand lives at launch (shared with the resize phase 1): its slot (in place when FLOAT
// and dense in the layout, `cl` channels-last) or a staging block of the workspace that
// kernels::pool_load / pool_store fill and drain.
struct PoolOperand {
  int slot = -1;
  kernels::PoolView v;
  int64_t offset_bytes = 0;
  bool direct = false;
  core::WsKey ws;
  char *base(const core::LaunchArgs &a) const { return static_cast<char *>(a.addrs[slot]) + offset_bytes; }
  template <class T>
  T *buffer(const core::LaunchArgs &a) const {
    return reinterpret_cast<T *>(direct ? base(a) : a.get(ws));
  }
};
// A FLOAT-computed operand of slot `slot` (logical view `l`); its staging block `ws_name` is booked
// unless `may_direct` and the view is usable in place.
PoolOperand pool_float_operand(core::OpBuilder &b, int slot, const PoolLogical &l, bool cl, const char *ws_name,
                               bool may_direct);

}  // namespace opsnn::ops

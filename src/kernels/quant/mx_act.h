// The gated activations fused before an MX quantisation (ops/quant/mx_quant_phase1.h, kinds kSwiglu /
// kSwigluDual / kSitu): x as lines [pre, 2h, post] around the activated dim (any strides) to a contiguous FLOAT
// scratch [pre, h, post], which mx_quant_run then quantises like any FLOAT x. The formulas are the activation
// family's functors (kernels/elementwise/functors/activation.h), not a copy of them.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/quant/mx_quant.h"

namespace opsnn::kernels {

enum class MxGate : uint8_t {
  kSwiglu,         // silu(glu) * linear, halves (activateLeft: the glu half is the first)
  kClippedPairs,   // swigluMode 1: interleaved (glu, linear) pairs, clamped, glu * sigmoid(alpha glu) * (linear + bias)
  kClippedHalves,  // swigluMode 2: mode 1's formula on the halves
  kClippedPost,    // swigluMode 3: min(silu(glu), limit) * clamp(linear, -limit, limit) on the halves
  kSitu,           // beta tanh(g / beta) sigmoid(g) * (linearBeta > 0 ? linearBeta tanh(u / linearBeta) : u)
  kSwigluGrad,     // kSwiglu's gradient from dy: d glu = dy linear silu'(glu), d linear = dy silu(glu), in x's places
};

struct MxActPlan {
  MxLines x;  // around the activated dim: n = 2h
  aclDataType x_dtype = ACL_FLOAT16;
  MxLines dy;  // kSwigluGrad: the forward's output gradient, n = h, x's dtype
  MxGate gate = MxGate::kSwiglu;
  bool left = true;              // the halves' glu (gate) half is the first
  float p[3] = {1.0f, 0.0f, 0.0f};  // kClipped*: alpha, limit, bias; kSitu: beta, linearBeta
  int64_t tasks = 1;             // ranges of pre, each with 3h floats of buffer
  int64_t valid_pre = -1;        // lines from this one on are zeros (a group index's row count); -1: none
};

// act [pre, h, post] (kSwigluGrad: [pre, 2h, post]), contiguous FLOAT; buf: tasks * 3h floats.
void mx_act_run(const MxActPlan &p, const char *x, const char *dy, float *act, float *buf);

}  // namespace opsnn::kernels

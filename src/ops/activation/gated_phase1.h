// The phase 1 of the gated (GLU) activation table (src/ops/activation/gated.ops): the forward ops
// (Glu, SwiGlu, GeGlu(V3), GeluMul, FatreluMul, ClippedSwiglu(V2), SituGlu) and their gradients.
// Checks every argument (161002 naming it, or the row's status for shapes), plans the two halves of
// x as strided views (front / back along dim, or even / odd over the dims from dim on flattened) and
// records one element-wise pass per term; with a group index, one step that computes the rows
// before sum(groupIndex) and zeroes the others.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

// A term's operands: the incoming gradient, the halves in the row's order (a, b), GeGlu's saved
// GELU output, FatreluMul's one-element threshold (broadcast).
enum class GatedOperand : uint8_t { kGrad, kA, kB, kGelu, kThreshold };

struct GatedTerm {
  int target = 0;         // forward: 0 out, 1 outGelu; gradient: 0 the gradient of half a, 1 of half b
  bool use_gate = false;  // the functor is the call's gate (chosen by an attribute), else `op`
  kernels::EwOp op = kernels::EwOp::kIdentity;
  int nops = 0;
  GatedOperand operands[3] = {};
};

struct GatedRule {
  core::DtypeMask dtypes = 0;  // x's dtypes (the gradient's tensors follow x; a forward out may be wider)
  bool backward = false;
  int status = 0;              // of a shape error or a failed `require`
  int nterms = 0;
  GatedTerm terms[2] = {};
};

using GatedArg = core::NamedTensor;

struct GatedCall {
  GatedArg x, grad, gelu, threshold, group, out, out_gelu;
  int64_t dim = -1;
  bool interleaved = false;
  bool a_first = true;  // operand a is the first half, else the second
  kernels::EwOp gate = kernels::EwOp::kIdentity;
  double scalars[3] = {};
  int nscalars = 0;
};

void gated_phase1(core::OpBuilder &b, const GatedRule &rule, const GatedCall &c);

}  // namespace opsnn::ops

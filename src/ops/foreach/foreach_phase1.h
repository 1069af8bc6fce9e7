// The phase 1 of the table-driven foreach ops (src/ops/foreach/foreach.ops): torch._foreach_* over
// tensor lists, each entry one element-wise pass of the engine's vectorised kernels
// (ops/elementwise/elementwise_step.h), all recorded in one executor.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

// What an op does with each entry: one element-wise pass of `op`, the same with the functor picked
// by roundMode, a p-norm into a one-element output, or AMP's non-finite check and unscale.
enum class ForeachKind { kMap, kRound, kNorm, kUnscale };

struct ForeachRule {
  ForeachKind kind = ForeachKind::kMap;
  kernels::EwOp op = kernels::EwOp::kIdentity;
  core::DtypeMask dtypes = 0;  // x's entries' dtypes (every list entry has x[i]'s dtype)
  double s0 = 1;               // the functor's s0 when no parameter gives it (Add's alpha: 1)
  bool scalar_first = false;   // the scalar is the functor's first operand (scalar ** x[i])
  bool scalar_is_value = false;  // scalar / scalars are the functor's s0 (addcmul's value), not an operand
};

// The arguments by role; null when the prototype has no such parameter.
struct ForeachCall {
  const aclTensorList *x = nullptr, *x2 = nullptr, *x3 = nullptr, *out = nullptr;  // out null: x in place
  const char *x_name = "x", *x2_name = "x2", *x3_name = "x3", *out_name = "out";
  const aclTensor *alpha_t = nullptr, *scalar_t = nullptr, *scalars_t = nullptr, *round_t = nullptr;
  const char *alpha_t_name = "alpha", *scalar_t_name = "scalar", *scalars_t_name = "scalars",
             *round_t_name = "roundMode";
  const aclScalar *alpha = nullptr, *scalar = nullptr, *round = nullptr;
  const char *scalar_name = "scalar";
  const aclScalarList *scalars = nullptr;
  // NonFiniteCheckAndUnscale: set to 1 when an entry holds an inf / NaN; the grads' multiplier.
  const aclTensor *found_inf = nullptr, *inv_scale = nullptr;
  const char *found_inf_name = "foundInf", *inv_scale_name = "invScale";
  int x_ir = 0;  // x's position among the input arguments (PowScalarAndTensor: after the scalar)
};

void foreach_phase1(core::OpBuilder &b, const ForeachRule &rule, const ForeachCall &c);

}  // namespace opsnn::ops

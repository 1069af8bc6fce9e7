// Records an element-wise kernel call: the shared phase-1 plan for every element-wise op
// (arithmetic, cast, copy, fill, activations). Operands are tensor slots or scalar constants
// (stored in the step, broadcast with stride 0), all broadcast to the output's shape.
#pragma once

#include <vector>

#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

struct EwInput {
  int slot = -1;                // tensor input, or
  const aclScalar *scalar = nullptr;  // a scalar value converted to the compute type
  static EwInput tensor(int s) { return EwInput{s, nullptr}; }
  static EwInput constant(const aclScalar *v) { return EwInput{-1, v}; }
};

struct EwSpec {
  kernels::EwOp op = kernels::EwOp::kIdentity;
  aclDataType compute_dtype = ACL_FLOAT;  // the promoted dtype; computation in its compute type
  kernels::OpScalars scalars;             // op parameters (alpha, ...), filled by set_scalar
  void set_scalar(int k, const aclScalar *s);
  void set_scalar(int k, double v);
};

// Validates the output for writing, plans the loop over `out_slot` and `inputs`, and adds the step.
// Throws 561003 when no kernel exists for the op in that compute type.
void record_elementwise(core::OpBuilder &b, const EwSpec &spec, int out_slot, const std::vector<EwInput> &inputs);

}  // namespace opsnn::ops

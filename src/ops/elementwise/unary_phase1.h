// The phase 1 of every table-driven unary element-wise op (src/ops/math/unary_math.ops,
// src/ops/activation/unary_activation.ops): self -> out, or in place on self. The entry points
// are generated from the tables (tools/gen_ops.py --entry); each fills a UnaryCall from its row
// (UnaryRule) and its arguments, after the null checks in prototype order.
#pragma once

#include "common/error.h"
#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

// A table row's dtype rule and kernel.
struct UnaryRule {
  kernels::EwOp kernel;
  core::DtypeMask dtypes;          // accepted input dtypes
  core::DtypeMask inplace_dtypes;  // accepted by the in-place twin
  // Integers and BOOL compute in FLOAT and the output must be floating (exp, sin, ...); otherwise
  // the result has the input's dtype.
  bool float_result;
  bool out_same_dtype;  // the output must have the input's dtype (else: any the result casts to)
  aclDataType compute_integral;  // integer inputs compute in this dtype (ACL_DT_UNDEFINED: their own)
};

struct UnaryCall {
  explicit UnaryCall(const UnaryRule &r) : rule(r), kernel(r.kernel) {}
  const UnaryRule &rule;
  kernels::EwOp kernel;  // the row's, or the one an attribute chose
  const aclTensor *self = nullptr;
  const char *self_name = "self";
  const aclTensor *out = nullptr;  // null in place
  const char *out_name = "out";
  bool inplace = false;
  double scalars[3] = {0, 0, 0};  // the functor's s0..s2
  int nscalars = 0;
};

// 161001 naming `name` when null (the generated entry points check in prototype order).
void unary_check_tensor(const aclTensor *t, const char *name);

// Dtype rule, output checks (shape, dtype the result can be cast to), registration in prototype
// order, one element-wise step. A dtype the rule accepts but no kernel computes is a 161002 too.
void unary_phase1(core::OpBuilder &b, const UnaryCall &c);

}  // namespace opsnn::ops

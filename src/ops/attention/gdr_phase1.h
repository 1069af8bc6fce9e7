// The phase 1 of the table-driven gated delta rule (src/ops/attention/delta_rule.ops):
// aclnnRecurrentGatedDeltaRule on kernels/attention/gated_delta_rule.h. Checks every argument
// (161001 for a missing required one, 161002 naming the argument otherwise), reads the packed
// [T, heads, dim] views and records one step; the device lengths and indices are checked at launch.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

struct GdrRule {
  core::DtypeMask dtypes;  // query / key / value / out dtypes
};

using GdrArg = core::NamedTensor;

struct GdrCall {
  GdrArg query, key, value, beta, state, act_len, state_idx, g, gk, accepted, out;
  float scale = 1.0f;
};

void gdr_phase1(core::OpBuilder &b, const GdrRule &rule, const GdrCall &c);

}  // namespace opsnn::ops

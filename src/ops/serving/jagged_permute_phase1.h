// The phase 1 of the jagged-permute table (src/ops/serving/jagged_permute.ops): aclnnExpandIntoJaggedPermute on
// kernels/serving/jagged_permute. Checks every argument (161001 for a null tensor, 161002 naming the argument
// otherwise) and records one step.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct JaggedRule {
  core::DtypeMask dtypes;  // the one dtype of every tensor
};

using JaggedArg = core::NamedTensor;

struct JaggedCall {
  JaggedArg permute, in_offsets, out_offsets, out;
  int64_t output_size = 0;
};

void jagged_permute_phase1(core::OpBuilder &b, const JaggedRule &rule, const JaggedCall &c);

}  // namespace opsnn::ops

// The phase 1 of the advance-step table (src/ops/serving/advance_step.ops): aclnnAdvanceStep and its
// speculative-decoding form aclnnAdvanceStepV2 on kernels/serving/advance_step. Checks every argument
// (161001 for a null tensor, 161002 naming the argument otherwise) and records one step.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "core/op_checks.h"

namespace opsnn::ops {

struct AdvanceStepRule {
  core::DtypeMask dtypes;  // the one dtype of every tensor
};

using AdvanceStepArg = core::NamedTensor;

struct AdvanceStepCall {
  AdvanceStepArg tokens, sampled, positions, seq_lens, slots, block_tables;
  // AdvanceStepV2's (the V2 entry names them, so a null one is still recognised as V2's and rejected).
  AdvanceStepArg spec_tokens, accepted;
  int64_t num_seqs = 0, num_queries = 0, block_size = 0;
};

void advance_step_phase1(core::OpBuilder &b, const AdvanceStepRule &rule, const AdvanceStepCall &c);

}  // namespace opsnn::ops

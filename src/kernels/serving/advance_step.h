// vLLM's advance_step over strided INT64 views (formulas: src/ops/serving/advance_step.ops): every query's
// block index is checked before anything is written, so a bad seqLens entry fails the launch (161002) with
// the tensors untouched and nothing read outside blockTables.
#pragma once

#include <cstdint>

namespace opsnn::kernels {

struct AdvanceStepPlan {
  int64_t num_queries = 0, block_size = 0, max_blocks = 0;
  // Element strides of inputTokens, sampledTokenIds, inputPositions, seqLens, slotMapping; blockTables' two.
  int64_t tokens = 1, sampled = 1, positions = 1, seq_lens = 1, slots = 1, bt[2] = {};
};

struct AdvanceStepArgs {
  int64_t *tokens = nullptr, *positions = nullptr, *seq_lens = nullptr, *slots = nullptr;
  const int64_t *sampled = nullptr, *block_tables = nullptr;
};

// Returns 0, or 161002 after opsnn::set_last_error (nothing written).
int advance_step_run(const AdvanceStepPlan &plan, const AdvanceStepArgs &args);

}  // namespace opsnn::kernels

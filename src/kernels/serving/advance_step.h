// vLLM's advance_step over strided INT64 views (formulas: src/ops/serving/advance_step.ops), and its
// speculative-decoding form (AdvanceStepV2): every query's block index is checked before anything is
// written, so a bad seqLens / inputPositions entry fails the launch (161002) with the tensors untouched
// and nothing read outside blockTables.
#pragma once

#include <cstdint>

namespace opsnn::kernels {

struct AdvanceStepPlan {
  int64_t num_queries = 0, block_size = 0, max_blocks = 0;
  // Element strides of inputTokens, sampledTokenIds, inputPositions, seqLens, slotMapping; blockTables' two.
  int64_t tokens = 1, sampled = 1, positions = 1, seq_lens = 1, slots = 1, bt[2] = {};
  // AdvanceStepV2: specNum, and the (sequence, token) element strides of inputTokens, sampledTokenIds,
  // inputPositions, seqLens, slotMapping, then specToken's and acceptedNum's.
  int64_t spec_num = 0;
  int64_t tok_tokens[2] = {}, tok_sampled[2] = {}, tok_positions[2] = {}, tok_seq_lens[2] = {}, tok_slots[2] = {},
          spec[2] = {}, accepted = 1;
};

struct AdvanceStepArgs {
  int64_t *tokens = nullptr, *positions = nullptr, *seq_lens = nullptr, *slots = nullptr;
  const int64_t *sampled = nullptr, *block_tables = nullptr;
};

struct AdvanceStepSpecArgs {
  AdvanceStepArgs base;
  const int64_t *spec_tokens = nullptr, *accepted = nullptr;
};

// Returns 0, or 161002 after opsnn::set_last_error (nothing written).
int advance_step_run(const AdvanceStepPlan &plan, const AdvanceStepArgs &args);
// AdvanceStepV2, per sequence i < numQueries and token j <= specNum (T = specNum + 1 tokens a sequence):
// p = inputPositions[i, j] + acceptedNum[i] + 1; inputPositions[i, j] = p; seqLens[i, j] = p + 1;
// slotMapping[i, j] = blockTables[i, p / blockSize] * blockSize + p % blockSize; inputTokens[i, 0] = the
// last accepted token of sampledTokenIds' row i (before its first -1; -1 if it starts with -1),
// inputTokens[i, 1 + k] = specToken[i, k]. Same return as advance_step_run.
int advance_step_spec_run(const AdvanceStepPlan &plan, const AdvanceStepSpecArgs &args);

}  // namespace opsnn::kernels

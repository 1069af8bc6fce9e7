#include "kernels/serving/advance_step.h"

#include "aclnn/aclnn_base.h"
#include "common/error.h"

namespace opsnn::kernels {
namespace {

// A new token's position p of sequence i must have its block in blockTables (else 161002 naming `what`).
int check_position(const AdvanceStepPlan &P, int64_t p, bool valid, const char *what, int64_t i, int64_t j) {
  if (valid && p >= 0 && p / P.block_size < P.max_blocks) return 0;
  return fail(ACLNN_ERR_PARAM_INVALID,
              "%s of sequence %lld (token %lld) puts the next token at position %lld, in block %lld; blockTables has "
              "%lld blocks per sequence",
              what, static_cast<long long>(i), static_cast<long long>(j), static_cast<long long>(p),
              static_cast<long long>(p < 0 ? -1 : p / P.block_size), static_cast<long long>(P.max_blocks));
}

// The KV-cache slot of position p of sequence i.
int64_t slot_of(const AdvanceStepPlan &P, const AdvanceStepArgs &a, int64_t i, int64_t p) {
  return a.block_tables[i * P.bt[0] + (p / P.block_size) * P.bt[1]] * P.block_size + p % P.block_size;
}

}  // namespace

int advance_step_run(const AdvanceStepPlan &P, const AdvanceStepArgs &a) {
  for (int64_t i = 0; i < P.num_queries; ++i)  // validate first: nothing written on failure
    if (const int rc = check_position(P, a.seq_lens[i * P.seq_lens], true, "seqLens", i, 0)) return rc;
  for (int64_t i = 0; i < P.num_queries; ++i) {
    const int64_t p = a.seq_lens[i * P.seq_lens];
    a.tokens[i * P.tokens] = a.sampled[i * P.sampled];
    a.seq_lens[i * P.seq_lens] = p + 1;
    a.positions[i * P.positions] = p;
    a.slots[i * P.slots] = slot_of(P, a, i, p);
  }
  return 0;
}

int advance_step_spec_run(const AdvanceStepPlan &P, const AdvanceStepSpecArgs &s) {
  const AdvanceStepArgs &a = s.base;
  const int64_t t = P.spec_num + 1;
  auto at = [](const int64_t *st, int64_t i, int64_t j) { return i * st[0] + j * st[1]; };
  auto next = [&](int64_t i, int64_t j, int64_t *p) {  // inputPositions + acceptedNum + 1, without overflow
    return !__builtin_add_overflow(a.positions[at(P.tok_positions, i, j)], s.accepted[i * P.accepted], p) &&
           !__builtin_add_overflow(*p, int64_t{1}, p);
  };
  for (int64_t i = 0; i < P.num_queries; ++i)  // validate first: nothing written on failure
    for (int64_t j = 0; j <= P.spec_num; ++j) {
      int64_t p = 0;
      const bool ok = next(i, j, &p);
      if (const int rc = check_position(P, p, ok, "inputPositions + acceptedNum + 1", i, j)) return rc;
    }
  for (int64_t i = 0; i < P.num_queries; ++i) {
    for (int64_t j = 0; j <= P.spec_num; ++j) {
      int64_t p = 0;
      next(i, j, &p);
      a.positions[at(P.tok_positions, i, j)] = p;
      a.seq_lens[at(P.tok_seq_lens, i, j)] = p + 1;
      a.slots[at(P.tok_slots, i, j)] = slot_of(P, a, i, p);
    }
    // The last accepted sampled token (the one before the row's first -1; -1 when the row starts with
    // -1), then the speculative tokens.
    int64_t m = 0;
    while (m < t && a.sampled[at(P.tok_sampled, i, m)] != -1) ++m;
    a.tokens[at(P.tok_tokens, i, 0)] = m == 0 ? -1 : a.sampled[at(P.tok_sampled, i, m - 1)];
    for (int64_t k = 0; k < P.spec_num; ++k)
      a.tokens[at(P.tok_tokens, i, k + 1)] = s.spec_tokens[i * P.spec[0] + k * P.spec[1]];
  }
  return 0;
}

}  // namespace opsnn::kernels

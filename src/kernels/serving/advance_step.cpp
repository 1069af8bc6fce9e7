#include "kernels/serving/advance_step.h"

#include "aclnn/aclnn_base.h"
#include "common/error.h"

namespace opsnn::kernels {

int advance_step_run(const AdvanceStepPlan &P, const AdvanceStepArgs &a) {
  for (int64_t i = 0; i < P.num_queries; ++i) {  // validate first: nothing written on failure
    const int64_t p = a.seq_lens[i * P.seq_lens];
    if (p < 0 || p / P.block_size >= P.max_blocks)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "seqLens[%lld] = %lld puts the next token in block %lld; blockTables has %lld blocks per sequence",
                  static_cast<long long>(i), static_cast<long long>(p),
                  static_cast<long long>(p < 0 ? -1 : p / P.block_size), static_cast<long long>(P.max_blocks));
  }
  for (int64_t i = 0; i < P.num_queries; ++i) {
    const int64_t p = a.seq_lens[i * P.seq_lens];
    a.tokens[i * P.tokens] = a.sampled[i * P.sampled];
    a.seq_lens[i * P.seq_lens] = p + 1;
    a.positions[i * P.positions] = p;
    const int64_t block = a.block_tables[i * P.bt[0] + (p / P.block_size) * P.bt[1]];
    a.slots[i * P.slots] = block * P.block_size + p % P.block_size;
  }
  return 0;
}

}  // namespace opsnn::kernels

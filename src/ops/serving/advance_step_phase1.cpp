#include "ops/serving/advance_step_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/serving/advance_step.h"

namespace opsnn::ops {
namespace {

struct AdvanceStepStep final : core::Step {
  kernels::AdvanceStepPlan plan;
  core::OperandRef tokens, sampled, positions, seq_lens, slots, block_tables;
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return reinterpret_cast<int64_t *>(r.address(args)); };
    kernels::AdvanceStepArgs a;
    a.tokens = at(tokens);
    a.sampled = at(sampled);
    a.positions = at(positions);
    a.seq_lens = at(seq_lens);
    a.slots = at(slots);
    a.block_tables = at(block_tables);
    return kernels::advance_step_run(plan, a);
  }
};

// A 1-D tensor of n elements.
void check_vector(const AdvanceStepArg &a, int64_t n, const char *n_name) {
  if (a.t->ndim != 1 || a.t->dims[0] != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%s] = [%lld]", a.name,
                core::shape_string(*a.t).c_str(), n_name, static_cast<long long>(n));
}

}  // namespace

void advance_step_phase1(core::OpBuilder &b, const AdvanceStepRule &rule, const AdvanceStepCall &c) {
  const AdvanceStepArg *all[6] = {&c.tokens, &c.sampled, &c.positions, &c.seq_lens, &c.slots, &c.block_tables};
  for (const AdvanceStepArg *a : all) core::check_not_null(a->t, a->name);
  for (const AdvanceStepArg *a : all) core::check_dtype_in(a->t, a->name, rule.dtypes);
  if (c.num_seqs <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numSeqs must be > 0, got %lld", static_cast<long long>(c.num_seqs));
  if (c.num_queries <= 0 || c.num_queries > c.num_seqs)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numQueries must be in [1, numSeqs = %lld], got %lld",
                static_cast<long long>(c.num_seqs), static_cast<long long>(c.num_queries));
  if (c.block_size <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "blockSize must be > 0, got %lld", static_cast<long long>(c.block_size));
  for (const AdvanceStepArg *a : {&c.tokens, &c.positions, &c.seq_lens, &c.slots}) check_vector(*a, c.num_seqs, "numSeqs");
  const aclTensor &s = *c.sampled.t;
  if (!((s.ndim == 2 && s.dims[1] == 1) || s.ndim == 1) || s.dims[0] != c.num_queries)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [numQueries, 1] = [%lld, 1] or [%lld]",
                c.sampled.name, core::shape_string(s).c_str(), static_cast<long long>(c.num_queries),
                static_cast<long long>(c.num_queries));
  const aclTensor &bt = *c.block_tables.t;
  if (bt.ndim != 2 || bt.dims[0] != c.num_seqs || bt.dims[1] < 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [numSeqs = %lld, maxBlocks >= 1]",
                c.block_tables.name, core::shape_string(bt).c_str(), static_cast<long long>(c.num_seqs));
  core::check_outputs_apart<AdvanceStepArg>({&c.tokens, &c.positions, &c.seq_lens, &c.slots},
                                            {all[0], all[1], all[2], all[3], all[4], all[5]});
  // Registration in prototype order; the written ones in place.
  auto &st = b.add_step<AdvanceStepStep>();
  kernels::AdvanceStepPlan &P = st.plan;
  P.num_queries = c.num_queries;
  P.block_size = c.block_size;
  P.max_blocks = bt.dims[1];
  auto reg = [&](const AdvanceStepArg &a, bool written, core::OperandRef *r, int64_t *stride) {
    const int slot = written ? b.inout(a.t) : b.input(a.t);
    *r = core::OperandRef::of_slot(slot, b.tensor(slot));
    *stride = b.tensor(slot).strides[0];
  };
  reg(c.tokens, true, &st.tokens, &P.tokens);
  reg(c.sampled, false, &st.sampled, &P.sampled);
  reg(c.positions, true, &st.positions, &P.positions);
  reg(c.seq_lens, true, &st.seq_lens, &P.seq_lens);
  reg(c.slots, true, &st.slots, &P.slots);
  reg(c.block_tables, false, &st.block_tables, &P.bt[0]);
  P.bt[1] = b.tensor(st.block_tables.slot).strides[1];
}

}  // namespace opsnn::ops

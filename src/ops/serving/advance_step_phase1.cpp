#include "ops/serving/advance_step_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/serving/advance_step.h"

namespace opsnn::ops {
namespace {

struct AdvanceStepStep final : core::Step {
  kernels::AdvanceStepPlan plan;
  core::OperandRef tokens, sampled, positions, seq_lens, slots, block_tables, spec_tokens, accepted;
  bool spec = false;  // AdvanceStepV2
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return reinterpret_cast<int64_t *>(r.address(args)); };
    kernels::AdvanceStepSpecArgs s;
    kernels::AdvanceStepArgs &a = s.base;
    a.tokens = at(tokens);
    a.sampled = at(sampled);
    a.positions = at(positions);
    a.seq_lens = at(seq_lens);
    a.slots = at(slots);
    a.block_tables = at(block_tables);
    if (!spec) return kernels::advance_step_run(plan, a);
    s.spec_tokens = at(spec_tokens);
    s.accepted = at(accepted);
    return kernels::advance_step_spec_run(plan, s);
  }
};

// A 1-D tensor of n elements.
void check_vector(const AdvanceStepArg &a, int64_t n, const char *n_name) {
  if (a.t->ndim != 1 || a.t->dims[0] != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%s] = [%lld]", a.name,
                core::shape_string(*a.t).c_str(), n_name, static_cast<long long>(n));
}

// V2: T tokens per sequence, [n * T] or [n, T]; returns its (sequence, token) element strides.
void per_token(const AdvanceStepArg &a, int64_t n, int64_t t, int64_t *st) {
  const aclTensor &x = *a.t;
  if (x.ndim == 1 && x.dims[0] == n * t) {
    st[0] = t * x.strides[0];
    st[1] = x.strides[0];
  } else if (x.ndim == 2 && x.dims[0] == n && x.dims[1] == t) {
    st[0] = x.strides[0];
    st[1] = x.strides[1];
  } else {
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [numSeqs * (specNum + 1)] = [%lld] or [%lld, %lld]",
                a.name, core::shape_string(x).c_str(), static_cast<long long>(n * t), static_cast<long long>(n),
                static_cast<long long>(t));
  }
}

// A 2-D [rows, cols] tensor (cols < 0: any cols >= 1).
void check_matrix(const AdvanceStepArg &a, int64_t rows, int64_t cols, const char *what) {
  const aclTensor &x = *a.t;
  if (x.ndim != 2 || x.dims[0] != rows || (cols >= 0 ? x.dims[1] != cols : x.dims[1] < 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s", a.name, core::shape_string(x).c_str(), what);
}

}  // namespace

void advance_step_phase1(core::OpBuilder &b, const AdvanceStepRule &rule, const AdvanceStepCall &c) {
  const bool v2 = *c.spec_tokens.name != '\0';  // the V2 entry names its specToken role
  const AdvanceStepArg *all[8] = {&c.tokens, &c.sampled, &c.positions, &c.seq_lens,
                                  &c.slots,  &c.block_tables, &c.spec_tokens, &c.accepted};
  const int count = v2 ? 8 : 6;
  for (int k = 0; k < count; ++k) core::check_not_null(all[k]->t, all[k]->name);
  for (int k = 0; k < count; ++k) core::check_dtype_in(all[k]->t, all[k]->name, rule.dtypes);
  if (c.num_seqs <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "numSeqs must be > 0, got %lld", static_cast<long long>(c.num_seqs));
  if (v2 ? c.num_queries != c.num_seqs : (c.num_queries <= 0 || c.num_queries > c.num_seqs))
    throw_error(ACLNN_ERR_PARAM_INVALID, v2 ? "numQueries must equal numSeqs = %lld, got %lld"
                                            : "numQueries must be in [1, numSeqs = %lld], got %lld",
                static_cast<long long>(c.num_seqs), static_cast<long long>(c.num_queries));
  if (c.block_size <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "blockSize must be > 0, got %lld", static_cast<long long>(c.block_size));
  auto &st = b.add_step<AdvanceStepStep>();
  kernels::AdvanceStepPlan &P = st.plan;
  const int64_t n = c.num_seqs;
  if (v2) {
    check_matrix(c.spec_tokens, n, -1, "[numSeqs, specNum >= 1]");
    check_vector(c.accepted, n, "numSeqs");
    P.spec_num = c.spec_tokens.t->dims[1];
    const int64_t t = P.spec_num + 1;
    per_token(c.tokens, n, t, P.tok_tokens);
    check_matrix(c.sampled, n, t, "[numQueries, specNum + 1]");
    per_token(c.positions, n, t, P.tok_positions);
    per_token(c.seq_lens, n, t, P.tok_seq_lens);
    per_token(c.slots, n, t, P.tok_slots);
  } else {
    for (const AdvanceStepArg *a : {&c.tokens, &c.positions, &c.seq_lens, &c.slots}) check_vector(*a, n, "numSeqs");
    const aclTensor &s = *c.sampled.t;
    if (!((s.ndim == 2 && s.dims[1] == 1) || s.ndim == 1) || s.dims[0] != c.num_queries)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [numQueries, 1] = [%lld, 1] or [%lld]",
                  c.sampled.name, core::shape_string(s).c_str(), static_cast<long long>(c.num_queries),
                  static_cast<long long>(c.num_queries));
  }
  check_matrix(c.block_tables, n, -1, "[numSeqs, maxBlocks >= 1]");
  core::check_outputs_apart<AdvanceStepArg>({&c.tokens, &c.positions, &c.seq_lens, &c.slots},
                                            {all[0], all[1], all[2], all[3], all[4], all[5], all[6], all[7]});
  // Registration in prototype order; the written ones in place.
  st.spec = v2;
  P.num_queries = c.num_queries;
  P.block_size = c.block_size;
  P.max_blocks = c.block_tables.t->dims[1];
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
  if (!v2) return;
  reg(c.spec_tokens, false, &st.spec_tokens, &P.spec[0]);
  P.spec[1] = b.tensor(st.spec_tokens.slot).strides[1];
  reg(c.accepted, false, &st.accepted, &P.accepted);
  P.tok_sampled[0] = b.tensor(st.sampled.slot).strides[0];
  P.tok_sampled[1] = b.tensor(st.sampled.slot).strides[1];
}

}  // namespace opsnn::ops

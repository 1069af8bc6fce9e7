#include "ops/loss/vocab_ce_step.h"

#include <algorithm>
#include <string>

#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"

namespace opsnn::ops {
namespace {

struct VocabCeStep final : core::Step {
  kernels::VocabCePlan plan;
  VocabCeOperands refs;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    kernels::VocabCeArgs a;
    for (int k = 0; k < kernels::kVcRoleCount; ++k)
      if (plan.has[k]) a.p[k] = refs.ref[k].address(args);
    a.workspace = args.get(ws);
    kernels::vocab_ce_run(plan, a);
    return 0;
  }
};

}  // namespace

void set_vocab_operand(core::OpBuilder &b, kernels::VocabCePlan &plan, VocabCeOperands &refs, int role, int slot,
                       int lead) {
  if (slot < 0) return;
  const aclTensor &t = b.tensor(slot);
  kernels::VocabOperand &o = plan.op[role];
  o.dtype = t.dtype;
  o.outer = lead >= 1 && t.ndim >= 1 ? t.strides[0] : 0;
  o.inner = lead == 2 ? t.strides[1] : 0;
  o.col = t.ndim > lead ? t.strides[t.ndim - 1] : 0;
  refs.ref[role] = core::OperandRef::of_slot(slot, t);
  plan.has[role] = true;
}

void record_vocab_ce(core::OpBuilder &b, const kernels::VocabCePlan &plan, const VocabCeOperands &refs) {
  auto &st = b.add_step<VocabCeStep>();
  st.plan = plan;
  st.refs = refs;
  kernels::VocabCePlan &P = st.plan;
  if (core::current_phase1_trace() != nullptr) {
    core::ImplTrace trace;
    const char *tier = kernels::choose_vocab_tier(P, &trace);
    core::record_choice(std::string("vocab_ce:") + tier, &trace);
  } else {
    kernels::choose_vocab_tier(P, nullptr);
  }
  const bool big = P.rows * std::max<int64_t>(P.vocab, 1) >= 32768;
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(P.rows, big ? core::num_threads() : 1)));
  st.ws = b.book("vocab_ce.rows", P.workspace_bytes());
}

}  // namespace opsnn::ops

#include "ops/attention/gdr_phase1.h"

#include <algorithm>
#include <initializer_list>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/outputs_apart.h"
#include "core/thread_pool.h"
#include "kernels/attention/gated_delta_rule.h"

namespace opsnn::ops {
namespace {

using kernels::GdrOperand;

struct GdrStep final : core::Step {
  kernels::GdrPlan plan;
  core::OperandRef q, k, v, beta, state, act_len, state_idx, g, gk, accepted, out;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    auto in = [&](const core::OperandRef &r) -> const char * { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::GdrArgs a;
    a.q = in(q);
    a.k = in(k);
    a.v = in(v);
    a.beta = in(beta);
    a.g = in(g);
    a.gk = in(gk);
    a.act_len = in(act_len);
    a.accepted = in(accepted);
    a.state_idx = in(state_idx);
    a.state = state.address(args);
    a.out = out.address(args);
    a.work = args.get(ws);
    return kernels::gated_delta_rule_run(plan, a);
  }
};

// `t` has exactly the dims `want`; 161002 naming it otherwise.
void check_dims(const GdrArg &a, std::initializer_list<int64_t> want) {
  core::Shape s;
  s.ndim = static_cast<int>(want.size());
  std::copy(want.begin(), want.end(), s.dims);
  if (!(core::Shape::of(*a.t) == s))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; expected %s", a.name, core::shape_string(*a.t).c_str(),
                s.str().c_str());
}

void check_ndim(const GdrArg &a, int ndim, const char *what) {
  if (a.t->ndim != ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be %s, got shape %s", a.name, what, core::shape_string(*a.t).c_str());
  for (int d = 0; d < ndim; ++d)
    if (a.t->dims[d] == 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty (shape %s); empty tensors are not supported", a.name,
                  core::shape_string(*a.t).c_str());
}

GdrOperand operand(const aclTensor &t) {
  GdrOperand o;
  o.dtype = t.dtype;
  for (int d = 0; d < t.ndim; ++d) o.s[d] = t.strides[d];
  return o;
}

}  // namespace

void gdr_phase1(core::OpBuilder &b, const GdrRule &rule, const GdrCall &c) {
  // Presence in prototype order (g and gk may be null: no decay).
  for (const GdrArg *a : {&c.query, &c.key, &c.value, &c.beta, &c.state, &c.act_len, &c.state_idx, &c.accepted, &c.out})
    core::check_not_null(a->t, a->name);
  // Dtypes.
  core::check_dtype_in(c.query.t, c.query.name, rule.dtypes);
  const aclDataType dt = c.query.t->dtype;
  for (const GdrArg *a : {&c.key, &c.value, &c.out}) core::check_dtype_in(a->t, a->name, {dt});
  for (const GdrArg *a : {&c.beta, &c.g, &c.gk})
    if (a->t != nullptr) core::check_dtype_in(a->t, a->name, {dt, ACL_FLOAT});
  core::check_dtype_in(c.state.t, c.state.name, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT});
  for (const GdrArg *a : {&c.act_len, &c.state_idx, &c.accepted}) core::check_dtype_in(a->t, a->name, {ACL_INT32});
  // Shapes: query / key [T, Nk, Dk], value / out [T, Nv, Dv], beta / g [T, Nv], gk [T, Nv, Dk],
  // stateRef [blocks, Nv, Dv, Dk], lengths / accepted [B], indices [T].
  check_ndim(c.query, 3, "[T, Nk, Dk]");
  const int64_t T = c.query.t->dims[0], nk = c.query.t->dims[1], dk = c.query.t->dims[2];
  check_dims(c.key, {T, nk, dk});
  check_ndim(c.value, 3, "[T, Nv, Dv]");
  const int64_t nv = c.value.t->dims[1], dv = c.value.t->dims[2];
  check_dims(c.value, {T, nv, dv});
  if (nv % nk != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld heads, not a multiple of %s's %lld", c.value.name,
                static_cast<long long>(nv), c.query.name, static_cast<long long>(nk));
  check_dims(c.beta, {T, nv});
  if (c.g.t != nullptr) check_dims(c.g, {T, nv});
  if (c.gk.t != nullptr) check_dims(c.gk, {T, nv, dk});
  check_ndim(c.state, 4, "[BlockNum, Nv, Dv, Dk]");
  const int64_t blocks = c.state.t->dims[0];
  check_dims(c.state, {blocks, nv, dv, dk});
  check_ndim(c.act_len, 1, "[B]");
  const int64_t batch = c.act_len.t->dims[0];
  check_dims(c.state_idx, {T});
  check_dims(c.accepted, {batch});
  check_dims(c.out, {T, nv, dv});
  // Written memory: no element twice, and apart from every other argument.
  core::check_outputs_apart<GdrArg>({&c.state, &c.out}, {&c.query, &c.key, &c.value, &c.beta, &c.state, &c.act_len,
                                                          &c.state_idx, &c.g, &c.gk, &c.accepted, &c.out});

  // Registration in prototype order.
  auto &st = b.add_step<GdrStep>();
  auto reg = [&](const GdrArg &a, core::OperandRef *r, GdrOperand *o, bool inout = false) {
    const int slot = inout ? b.inout(a.t) : b.input(a.t);
    if (slot < 0) return;
    *r = core::OperandRef::of_slot(slot, b.tensor(slot));
    *o = operand(b.tensor(slot));
  };
  kernels::GdrPlan &P = st.plan;
  reg(c.query, &st.q, &P.q);
  reg(c.key, &st.k, &P.k);
  reg(c.value, &st.v, &P.v);
  reg(c.beta, &st.beta, &P.beta);
  reg(c.state, &st.state, &P.state, true);
  reg(c.act_len, &st.act_len, &P.act_len);
  reg(c.state_idx, &st.state_idx, &P.state_idx);
  reg(c.g, &st.g, &P.g);
  reg(c.gk, &st.gk, &P.gk);
  reg(c.accepted, &st.accepted, &P.accepted);
  const int os = b.output(c.out.t);
  st.out = core::OperandRef::of_slot(os, b.tensor(os));
  P.out = operand(b.tensor(os));
  P.t = T;
  P.nk = nk;
  P.nv = nv;
  P.dk = dk;
  P.dv = dv;
  P.batch = batch;
  P.blocks = blocks;
  P.scale = c.scale;
  P.workers = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), batch * nv));
  st.ws = b.book("gdr.state", static_cast<uint64_t>(P.workspace_bytes()));
}

}  // namespace opsnn::ops

#include "ops/loss/ctc_loss_phase1.h"

#include <algorithm>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "kernels/loss/ctc_loss.h"

namespace opsnn::ops {
namespace {

struct CtcStep final : core::Step {
  kernels::CtcPlan plan;
  core::OperandRef lp, targets, nll_in, alpha_in, gout, nll_out, alpha_out, out;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::CtcArgs a;
    a.lp = at(lp);
    a.targets = at(targets);
    a.nll_in = at(nll_in);
    a.alpha_in = at(alpha_in);
    a.gout = at(gout);
    a.nll_out = at(nll_out);
    a.alpha_out = at(alpha_out);
    a.out = at(out);
    a.workspace = args.get(ws);
    return kernels::ctc_run(plan, a);
  }
};

}  // namespace

void ctc_phase1(core::OpBuilder &b, const CtcRule &rule, const CtcCall &c) {
  // Null and dtype checks in prototype order.
  if (rule.backward) core::check_dtype_in(c.gout, c.gout_name, rule.dtypes);
  core::check_dtype_in(c.lp, c.lp_name, rule.dtypes);
  core::check_dtype_in(c.targets, c.targets_name, rule.target_dtypes);
  core::check_not_null(c.input_lengths, c.input_lengths_name);
  core::check_not_null(c.target_lengths, c.target_lengths_name);
  if (rule.backward) {
    core::check_dtype_in(c.nll_in, c.nll_in_name, rule.dtypes);
    core::check_dtype_in(c.alpha_in, c.alpha_in_name, rule.dtypes);
    core::check_dtype_in(c.out, c.out_name, rule.dtypes);
  } else {
    core::check_dtype_in(c.nll_out, c.nll_out_name, rule.dtypes);
    core::check_dtype_in(c.alpha_out, c.alpha_out_name, rule.dtypes);
  }
  const aclTensor &lp = *c.lp;
  if (lp.ndim != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [T, N, C], got shape %s", c.lp_name, core::shape_string(lp).c_str());
  const int64_t T = lp.dims[0], N = lp.dims[1], C = lp.dims[2];
  if (C < 1) throw_error(ACLNN_ERR_PARAM_INVALID, "%s has no classes (shape %s)", c.lp_name, core::shape_string(lp).c_str());
  if (c.blank < 0 || c.blank >= C)
    throw_error(ACLNN_ERR_PARAM_INVALID, "blank %lld is out of range [0, %lld)", static_cast<long long>(c.blank),
                static_cast<long long>(C));
  const auto &il = c.input_lengths->values, &tl = c.target_lengths->values;
  if (static_cast<int64_t>(il.size()) != N)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one length per batch (%lld), got %zu", c.input_lengths_name,
                static_cast<long long>(N), il.size());
  if (static_cast<int64_t>(tl.size()) != N)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one length per batch (%lld), got %zu", c.target_lengths_name,
                static_cast<long long>(N), tl.size());
  for (size_t i = 0; i < il.size(); ++i)
    if (il[i] < 0 || il[i] > T)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%zu] = %lld is out of range [0, %lld] (T)", c.input_lengths_name, i,
                  static_cast<long long>(il[i]), static_cast<long long>(T));
  const aclTensor &tg = *c.targets;
  if (tg.ndim != 1 && tg.ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [N, S] or 1-d (concatenated), got shape %s", c.targets_name,
                core::shape_string(tg).c_str());
  if (tg.ndim == 2 && tg.dims[0] != N)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s must have N = %lld rows", c.targets_name,
                core::shape_string(tg).c_str(), static_cast<long long>(N));
  kernels::CtcPlan P;
  int64_t sum = 0;
  for (size_t i = 0; i < tl.size(); ++i) {
    const int64_t limit = tg.ndim == 2 ? tg.dims[1] : tg.dims[0] - sum;
    if (tl[i] < 0 || tl[i] > limit)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%zu] = %lld is out of range [0, %lld] (what %s holds)",
                  c.target_lengths_name, i, static_cast<long long>(tl[i]), static_cast<long long>(limit), c.targets_name);
    P.target_offsets.push_back(tg.ndim == 2 ? static_cast<int64_t>(i) * tg.strides[0] : sum * tg.strides[0]);
    sum += tl[i];
    P.max_len = std::max(P.max_len, tl[i]);
  }
  P.target_step = tg.strides[tg.ndim - 1];
  core::Shape nshape, ashape;
  nshape.dims[nshape.ndim++] = N;
  ashape.dims[ashape.ndim++] = N;
  ashape.dims[ashape.ndim++] = T;
  ashape.dims[ashape.ndim++] = 2 * P.max_len + 1;
  if (rule.backward) {
    core::check_shape_equals(*c.gout, c.gout_name, nshape);
    core::check_shape_equals(*c.nll_in, c.nll_in_name, nshape);
    core::check_shape_equals(*c.alpha_in, c.alpha_in_name, ashape);
    core::check_shape_equals(*c.out, c.out_name, core::Shape::of(lp));
    core::check_no_internal_overlap(*c.out, c.out_name);
  } else {
    core::check_shape_equals(*c.nll_out, c.nll_out_name, nshape);
    core::check_shape_equals(*c.alpha_out, c.alpha_out_name, ashape);
    core::check_no_internal_overlap(*c.nll_out, c.nll_out_name);
    core::check_no_internal_overlap(*c.alpha_out, c.alpha_out_name);
  }
  // Registration in prototype order.
  const int sg = rule.backward ? b.input(c.gout) : -1;
  const int sl = b.input(c.lp), st_ = b.input(c.targets);
  const int sn = rule.backward ? b.input(c.nll_in) : b.output(c.nll_out);
  const int sa = rule.backward ? b.input(c.alpha_in) : b.output(c.alpha_out);
  const int so = rule.backward ? b.output(c.out) : -1;
  auto &st = b.add_step<CtcStep>();
  P.backward = rule.backward;
  P.T = T;
  P.N = N;
  P.C = C;
  P.blank = c.blank;
  P.zero_infinity = c.zero_infinity;
  P.input_lengths.assign(il.begin(), il.end());
  P.target_lengths.assign(tl.begin(), tl.end());
  const aclTensor &lv = b.tensor(sl), &tv = b.tensor(st_), &nv = b.tensor(sn), &av = b.tensor(sa);
  P.lp_dtype = lv.dtype;
  for (int d = 0; d < 3; ++d) P.lp_strides[d] = lv.strides[d];
  P.target_dtype = tv.dtype;
  P.nll_dtype = nv.dtype;
  P.nll_stride = nv.strides[0];
  P.alpha_dtype = av.dtype;
  for (int d = 0; d < 3; ++d) P.alpha_strides[d] = av.strides[d];
  st.lp = core::OperandRef::of_slot(sl, lv);
  st.targets = core::OperandRef::of_slot(st_, tv);
  if (rule.backward) {
    const aclTensor &gv = b.tensor(sg), &ov = b.tensor(so);
    P.gout_dtype = gv.dtype;
    P.gout_stride = gv.strides[0];
    P.out_dtype = ov.dtype;
    for (int d = 0; d < 3; ++d) P.out_strides[d] = ov.strides[d];
    st.gout = core::OperandRef::of_slot(sg, gv);
    st.nll_in = core::OperandRef::of_slot(sn, nv);
    st.alpha_in = core::OperandRef::of_slot(sa, av);
    st.out = core::OperandRef::of_slot(so, ov);
  } else {
    st.nll_out = core::OperandRef::of_slot(sn, nv);
    st.alpha_out = core::OperandRef::of_slot(sa, av);
  }
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(N, 16)));
  st.plan = P;
  st.ws = b.book("ctc", P.workspace_bytes());
}

}  // namespace opsnn::ops

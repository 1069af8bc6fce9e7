// The tensor-list optimiser rules of the optim table: FusedAdamw (torch._fused_adamw_, every entry
// ApplyAdamWV2's update on kernels/optim/adam) and FusedSgd (torch._fused_sgd_, kernels/optim/sgd).
// Semantics at the top of src/ops/optim/optim.ops.
#include <string>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/elementwise/convert.h"
#include "kernels/optim/adam.h"
#include "kernels/optim/sgd.h"
#include "ops/optim/optim_phase1.h"

namespace opsnn::ops {
namespace {

std::string entry_name(const char *list, size_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// A required list: given (161001), as long as paramsRef (161002; paramsRef itself not empty), every
// entry given (161001).
void check_list(const aclTensorList *l, const char *name, size_t n, const char *params_name) {
  if (l == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null", name);
  if (l->tensors.empty() && n == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty", name);
  if (l->tensors.size() != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors, %s has %zu: the lists must have one length", name,
                l->tensors.size(), params_name, n);
  for (size_t i = 0; i < n; ++i)
    if (l->tensors[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s[%zu] is null", name, i);
}

// A one-element tensor of one of `dtypes` (a step, gradScale, foundInf).
void check_one_element(const aclTensor *t, const char *name, std::initializer_list<aclDataType> dtypes) {
  core::check_dtype_in(t, name, dtypes);
  if (t->numel() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one element, got shape %s", name,
                core::shape_string(*t).c_str());
}

// The plan's shape, dtype and the strides of the registered views (slots, -1: none) as operands 0...
template <class Plan>
void set_shape(core::OpBuilder &b, Plan &P, const std::vector<int> &slots) {
  const aclTensor &first = b.tensor(slots[0]);
  P.ndim = first.ndim;
  P.dtype = first.dtype;
  P.numel = first.numel();
  for (int d = 0; d < first.ndim; ++d) P.dims[d] = first.dims[d];
  for (size_t k = 0; k < slots.size(); ++k)
    if (slots[k] >= 0)
      for (int d = 0; d < first.ndim; ++d) P.strides[k][d] = b.tensor(slots[k]).strides[d];
}

core::OperandRef ref_of(core::OpBuilder &b, int slot) {
  return slot >= 0 ? core::OperandRef::of_slot(slot, b.tensor(slot)) : core::OperandRef{};
}

// A param's dtype (one of the rule's) and rank (at most the kernels' dims).
void check_param(const aclTensor *p, const std::string &name, const OptimRule &rule) {
  core::check_dtype_in(p, name.c_str(), rule.dtypes);
  if (p->ndim > kernels::kOptimMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; at most %d are supported", name.c_str(), p->ndim,
                kernels::kOptimMaxDims);
}

// ---- FusedAdamw

struct FusedAdamwStep final : core::Step {
  std::vector<kernels::AdamPlan> plans;
  // Per entry: param, expAvg, expAvgSq, grad, maxExpAvgSq (AdamArgs' order), stateStep.
  std::vector<core::OperandRef> param, m, v, grad, max_v, step;
  std::vector<aclDataType> step_dtypes;
  core::OperandRef grad_scale, found_inf;
  int run(const core::LaunchArgs &args) const override {
    // torch skips the whole step when foundInf holds 1 (an overflow was found while unscaling).
    if (found_inf.slot >= 0 && kernels::load_one(ACL_FLOAT, found_inf.address(args), 0) == 1.0) return 0;
    const double divisor = grad_scale.slot >= 0 ? kernels::load_one(ACL_FLOAT, grad_scale.address(args), 0) : 1.0;
    for (size_t i = 0; i < plans.size(); ++i) {  // every step checked before anything is written
      const double t = kernels::load_one(step_dtypes[i], step[i].address(args), 0);
      if (!(t > 0)) return fail(ACLNN_ERR_PARAM_INVALID, "stateSteps[%zu] must be > 0, got %g", i, t);
    }
    for (size_t i = 0; i < plans.size(); ++i) {
      kernels::AdamArgs a;
      a.var = param[i].address(args);
      a.m = m[i].address(args);
      a.v = v[i].address(args);
      a.grad = grad[i].address(args);
      a.max_v = max_v[i].slot >= 0 ? max_v[i].address(args) : nullptr;
      a.step = step[i].address(args);
      a.grad_divisor = divisor;
      if (const int rc = kernels::adam_run(plans[i], a)) return rc;
    }
    return 0;
  }
};

void fused_adamw_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  if (c.params == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null", c.params_name);
  const size_t n = c.params->tensors.size();
  check_list(c.params, c.params_name, n, c.params_name);
  check_list(c.grads, c.grads_name, n, c.params_name);
  check_list(c.exp_avgs, c.exp_avgs_name, n, c.params_name);
  check_list(c.exp_avg_sqs, c.exp_avg_sqs_name, n, c.params_name);
  if (c.amsgrad) check_list(c.max_exp_avg_sqs, c.max_exp_avg_sqs_name, n, c.params_name);
  check_list(c.steps, c.steps_name, n, c.params_name);
  for (size_t i = 0; i < n; ++i) {
    const std::string pn = entry_name(c.params_name, i), gn = entry_name(c.grads_name, i),
                      mn = entry_name(c.exp_avgs_name, i), vn = entry_name(c.exp_avg_sqs_name, i),
                      xn = entry_name(c.max_exp_avg_sqs_name, i), sn = entry_name(c.steps_name, i);
    const aclTensor *p = c.params->tensors[i];
    check_param(p, pn, rule);
    OptimCall e;  // the entry as one ApplyAdamWV2 call, for the shared state checks
    e.var = p;
    e.grad = c.grads->tensors[i];
    e.m = c.exp_avgs->tensors[i];
    e.v = c.exp_avg_sqs->tensors[i];
    e.max_v = c.amsgrad ? c.max_exp_avg_sqs->tensors[i] : nullptr;
    e.var_name = pn.c_str();
    e.grad_name = gn.c_str();
    e.m_name = mn.c_str();
    e.v_name = vn.c_str();
    e.max_v_name = xn.c_str();
    for (const auto &[t, name] : {std::pair{e.grad, e.grad_name}, std::pair{e.m, e.m_name}, std::pair{e.v, e.v_name},
                                  std::pair{e.max_v, e.max_v_name}})
      if (t != nullptr) core::check_dtype_in(t, name, {p->dtype});
    check_one_element(c.steps->tensors[i], sn.c_str(), {ACL_INT64, ACL_FLOAT});
    check_optim_state(e, c.amsgrad, c.amsgrad);
  }
  if (c.grad_scale != nullptr) check_one_element(c.grad_scale, c.grad_scale_name, {ACL_FLOAT});
  if (c.found_inf != nullptr) check_one_element(c.found_inf, c.found_inf_name, {ACL_FLOAT});
  // Registration in prototype order.
  const auto sp = b.inout_list(0, c.params), sg = b.input_list(1, c.grads), sm = b.inout_list(2, c.exp_avgs),
             sv = b.inout_list(3, c.exp_avg_sqs), sx = b.inout_list(4, c.max_exp_avg_sqs),
             ss = b.input_list(5, c.steps);
  const int sscale = b.input(c.grad_scale), sinf = b.input(c.found_inf);
  auto &st = b.add_step<FusedAdamwStep>();
  st.grad_scale = ref_of(b, sscale);
  st.found_inf = ref_of(b, sinf);
  for (size_t i = 0; i < n; ++i) {
    kernels::AdamPlan P;
    P.adamw = true;
    P.v2 = true;
    P.amsgrad = c.amsgrad;
    P.maximize = c.maximize;
    const double hyper[5] = {c.lr_f, c.wd_f, c.b1_f, c.b2_f, c.eps_f};
    for (int k = 0; k < 5; ++k) P.hyper[k] = hyper[k];
    P.step_dtype = b.tensor(ss[i]).dtype;
    const int max_slot = c.amsgrad ? sx[i] : -1;
    set_shape(b, P, {sp[i], sm[i], sv[i], sg[i], max_slot});
    st.plans.push_back(P);
    st.param.push_back(ref_of(b, sp[i]));
    st.m.push_back(ref_of(b, sm[i]));
    st.v.push_back(ref_of(b, sv[i]));
    st.grad.push_back(ref_of(b, sg[i]));
    st.max_v.push_back(ref_of(b, max_slot));
    st.step.push_back(ref_of(b, ss[i]));
    st.step_dtypes.push_back(P.step_dtype);
  }
}

// ---- FusedSgd

struct FusedSgdStep final : core::Step {
  std::vector<kernels::SgdPlan> plans;
  std::vector<core::OperandRef> param, grad, buf;
  core::OperandRef grad_scale;
  int run(const core::LaunchArgs &args) const override {
    kernels::SgdArgs a;
    if (grad_scale.slot >= 0) {
      a.grad_divisor = kernels::load_one(ACL_FLOAT, grad_scale.address(args), 0);
      a.write_grad = true;
    }
    for (size_t i = 0; i < plans.size(); ++i) {
      a.param = param[i].address(args);
      a.grad = grad[i].address(args);
      a.buf = buf[i].slot >= 0 ? buf[i].address(args) : nullptr;
      kernels::sgd_run(plans[i], a);
    }
    return 0;
  }
};

// t written: no internal overlap; a and b (both written) apart.
void check_written(const aclTensor *t, const std::string &name) { core::check_no_internal_overlap(*t, name.c_str()); }
void check_apart(const aclTensor *a, const std::string &an, const aclTensor *b2, const std::string &bn) {
  if (core::memory_overlap(*a, *b2) != core::Overlap::kNone)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s overlap in memory; each needs its own", an.c_str(), bn.c_str());
}

void fused_sgd_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  if (c.params == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null", c.params_name);
  const size_t n = c.params->tensors.size();
  check_list(c.params, c.params_name, n, c.params_name);
  check_list(c.grads, c.grads_name, n, c.params_name);
  const bool use_buf = c.momentum_f != 0;
  if (use_buf) check_list(c.momenta, c.momenta_name, n, c.params_name);
  const bool write_grad = c.grad_scale != nullptr;
  for (size_t i = 0; i < n; ++i) {
    const std::string pn = entry_name(c.params_name, i), gn = entry_name(c.grads_name, i),
                      bn = entry_name(c.momenta_name, i);
    const aclTensor *p = c.params->tensors[i], *g = c.grads->tensors[i],
                    *m = use_buf ? c.momenta->tensors[i] : nullptr;
    check_param(p, pn, rule);
    const core::Shape shape = core::Shape::of(*p);
    core::check_dtype_in(g, gn.c_str(), {p->dtype});
    core::check_shape_equals(*g, gn.c_str(), shape);
    check_written(p, pn);
    if (write_grad) {
      check_written(g, gn);
      check_apart(p, pn, g, gn);
    }
    if (m != nullptr) {
      core::check_dtype_in(m, bn.c_str(), {p->dtype});
      core::check_shape_equals(*m, bn.c_str(), shape);
      check_written(m, bn);
      check_apart(p, pn, m, bn);
      if (write_grad) check_apart(g, gn, m, bn);
    }
  }
  if (c.grad_scale != nullptr) check_one_element(c.grad_scale, c.grad_scale_name, {ACL_FLOAT});
  const auto sp = b.inout_list(0, c.params), sg = b.inout_list(1, c.grads), sb = b.inout_list(2, c.momenta);
  const int sscale = b.input(c.grad_scale);
  auto &st = b.add_step<FusedSgdStep>();
  st.grad_scale = ref_of(b, sscale);
  for (size_t i = 0; i < n; ++i) {
    kernels::SgdPlan P;
    P.lr = c.lr_f;
    P.weight_decay = c.wd_f;
    P.momentum = c.momentum_f;
    P.dampening = c.dampening_f;
    P.nesterov = c.nesterov;
    P.maximize = c.maximize;
    P.first_step = c.first_step;
    P.use_buffer = use_buf;
    const int buf_slot = use_buf ? sb[i] : -1;
    set_shape(b, P, {sp[i], sg[i], buf_slot});
    st.plans.push_back(P);
    st.param.push_back(ref_of(b, sp[i]));
    st.grad.push_back(ref_of(b, sg[i]));
    st.buf.push_back(ref_of(b, buf_slot));
  }
}

}  // namespace

void optim_lists_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  if (rule.kind == OptimKind::kFusedAdamw)
    fused_adamw_phase1(b, rule, c);
  else
    fused_sgd_phase1(b, rule, c);
}

}  // namespace opsnn::ops

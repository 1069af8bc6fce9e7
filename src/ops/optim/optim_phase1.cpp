#include "ops/optim/optim_phase1.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/optim/adam.h"

namespace opsnn::ops {
namespace {

struct AdamStep final : core::Step {
  kernels::AdamPlan plan;
  core::OperandRef var, m, v, grad, max_v, scalars[7], step, s;
  int run(const core::LaunchArgs &args) const override {
    kernels::AdamArgs a;
    a.var = var.address(args);
    a.m = m.address(args);
    a.v = v.address(args);
    a.grad = grad.address(args);
    a.max_v = max_v.slot >= 0 ? max_v.address(args) : nullptr;
    for (int k = 0; k < 7; ++k) a.scalars[k] = scalars[k].slot >= 0 ? scalars[k].address(args) : nullptr;
    if (plan.v2 || plan.ema) a.step = step.address(args);
    if (plan.ema) a.s = s.address(args);
    return kernels::adam_run(plan, a);
  }
};

// A hyper-parameter: one element ([1], 0-d or any all-ones shape), var's dtype, FLOAT or DOUBLE.
void check_hyper(const aclTensor *t, const char *name, aclDataType var_dtype) {
  core::check_dtype_in(t, name, {var_dtype, ACL_FLOAT, ACL_DOUBLE});
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->dims[d];
  if (n != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one element (shape [1]), got shape %s", name,
                core::shape_string(*t).c_str());
}

}  // namespace

void check_optim_state(const OptimCall &c, bool check_max, bool max_written) {
  const aclTensor &var = *c.var;
  if (var.ndim > kernels::kAdamMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; at most %d are supported", c.var_name, var.ndim,
                kernels::kAdamMaxDims);
  const core::Shape shape = core::Shape::of(var);
  core::check_shape_equals(*c.m, c.m_name, shape);
  core::check_shape_equals(*c.v, c.v_name, shape);
  core::check_shape_equals(*c.grad, c.grad_name, shape);
  if (check_max && c.max_v != nullptr) core::check_shape_equals(*c.max_v, c.max_v_name, shape);
  if (c.s != nullptr) core::check_shape_equals(*c.s, c.s_name, shape);
  const aclTensor *state[4] = {c.var, c.m, c.v, c.s != nullptr ? c.s : max_written ? c.max_v : nullptr};
  const char *state_names[4] = {c.var_name, c.m_name, c.v_name, c.s != nullptr ? c.s_name : c.max_v_name};
  for (int i = 0; i < 4 && state[i] != nullptr; ++i) core::check_no_internal_overlap(*state[i], state_names[i]);
  for (int i = 0; i < 4 && state[i] != nullptr; ++i)
    for (int j = i + 1; j < 4 && state[j] != nullptr; ++j)
      if (core::memory_overlap(*state[i], *state[j]) != core::Overlap::kNone)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s overlap in memory; each state tensor needs its own",
                    state_names[i], state_names[j]);
}

namespace {

// The plan's shape and the strides / operands of var, m, v, grad, maxGradNorm, s (slots, -1: none).
void set_state(core::OpBuilder &b, AdamStep &st, const aclTensor &var, const int (&slots)[6]) {
  kernels::AdamPlan &P = st.plan;
  P.ndim = var.ndim;
  P.dtype = var.dtype;
  P.numel = 1;
  for (int d = 0; d < var.ndim; ++d) {
    P.dims[d] = var.dims[d];
    P.numel *= var.dims[d];
  }
  core::OperandRef *refs[6] = {&st.var, &st.m, &st.v, &st.grad, &st.max_v, &st.s};
  for (int t = 0; t < 6; ++t) {
    if (slots[t] < 0) continue;
    const aclTensor &tv = b.tensor(slots[t]);
    for (int d = 0; d < var.ndim; ++d) P.strides[t][d] = tv.strides[d];
    *refs[t] = core::OperandRef::of_slot(slots[t], tv);
  }
}

// The step of ApplyAdamWV2 / ApplyFusedEmaAdam: one INT64 or FLOAT element.
void check_step_tensor(const OptimCall &c) {
  core::check_dtype_in(c.step, c.step_name, {ACL_INT64, ACL_FLOAT});
  int64_t n = 1;
  for (int d = 0; d < c.step->ndim; ++d) n *= c.step->dims[d];
  if (n != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one element, got shape %s", c.step_name,
                core::shape_string(*c.step).c_str());
}

// V2 / FusedEmaAdam: the hyper-parameters given as attributes, the step read at launch from its slot.
void set_attribute_hypers(core::OpBuilder &b, AdamStep &st, const OptimCall &c, int step_slot) {
  const double hyper[5] = {c.lr_f, c.wd_f, c.b1_f, c.b2_f, c.eps_f};
  for (int k = 0; k < 5; ++k) st.plan.hyper[k] = hyper[k];
  st.plan.step_dtype = b.tensor(step_slot).dtype;
  st.step = core::OperandRef::of_slot(step_slot, b.tensor(step_slot));
}

// ApplyAdamWV2: var, m, v, maxGradNormOptionalRef updated in place, grad, the step (one INT64 or FLOAT
// element), float hyper-parameters.
void adamw_v2_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  core::check_dtype_in(c.var, c.var_name, rule.dtypes);
  const aclDataType dt = c.var->dtype;
  core::check_dtype_in(c.m, c.m_name, {dt});
  core::check_dtype_in(c.v, c.v_name, {dt});
  if (c.amsgrad && c.max_v == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null when amsgrad is true", c.max_v_name);
  if (c.max_v != nullptr) core::check_dtype_in(c.max_v, c.max_v_name, {dt});
  core::check_dtype_in(c.grad, c.grad_name, {dt});
  check_step_tensor(c);
  check_optim_state(c, c.amsgrad, c.amsgrad);
  const int sv = b.inout(c.var), sm = b.inout(c.m), sv2 = b.inout(c.v), sx = b.inout(c.max_v);
  const int sg = b.input(c.grad), ss = b.input(c.step);
  auto &st = b.add_step<AdamStep>();
  kernels::AdamPlan &P = st.plan;
  P.adamw = true;
  P.v2 = true;
  P.amsgrad = c.amsgrad;
  P.maximize = c.maximize;
  set_attribute_hypers(b, st, c, ss);
  set_state(b, st, *c.var, {sv, sm, sv2, sg, c.amsgrad ? sx : -1, -1});
}

// ApplyFusedEmaAdam: grad, then var, m, v, s updated in place, the step (one INT64 or FLOAT element),
// double hyper-parameters, mode 0 or 1.
void ema_adam_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  core::check_dtype_in(c.grad, c.grad_name, rule.dtypes);
  const aclDataType dt = c.grad->dtype;
  for (const auto &[t, name] : {std::pair{c.var, c.var_name}, std::pair{c.m, c.m_name}, std::pair{c.v, c.v_name},
                                std::pair{c.s, c.s_name}})
    core::check_dtype_in(t, name, {dt});
  check_step_tensor(c);
  if (c.mode != 0 && c.mode != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "mode must be 0 (weight decay in the gradient) or 1 (in the update), got %lld",
                static_cast<long long>(c.mode));
  check_optim_state(c, false, false);
  const int sg = b.input(c.grad), sv = b.inout(c.var), sm = b.inout(c.m), sv2 = b.inout(c.v), ss = b.inout(c.s);
  const int sstep = b.input(c.step);
  auto &st = b.add_step<AdamStep>();
  kernels::AdamPlan &P = st.plan;
  P.ema = true;
  P.mode = static_cast<int>(c.mode);
  P.bias_correction = c.bias_corr;
  P.ema_decay = c.ema_f;
  set_attribute_hypers(b, st, c, sstep);
  set_state(b, st, *c.var, {sv, sm, sv2, sg, -1, ss});
}

}  // namespace

void optim_phase1(core::OpBuilder &b, const OptimRule &rule, const OptimCall &c) {
  if (rule.kind == OptimKind::kAdamWQuant) {
    adamw_quant_phase1(b, rule, c);
    return;
  }
  if (rule.kind == OptimKind::kFusedAdamw || rule.kind == OptimKind::kFusedSgd) {
    optim_lists_phase1(b, rule, c);
    return;
  }
  if (rule.kind == OptimKind::kAdamWV2) {
    adamw_v2_phase1(b, rule, c);
    return;
  }
  if (rule.kind == OptimKind::kEmaAdam) {
    ema_adam_phase1(b, rule, c);
    return;
  }
  const bool adamw = rule.kind == OptimKind::kAdamW;
  // Null and dtype checks in prototype order.
  core::check_dtype_in(c.var, c.var_name, rule.dtypes);
  const aclDataType dt = c.var->dtype;
  core::check_dtype_in(c.m, c.m_name, {dt});
  core::check_dtype_in(c.v, c.v_name, {dt});
  check_hyper(c.b1p, c.b1p_name, dt);
  check_hyper(c.b2p, c.b2p_name, dt);
  check_hyper(c.lr, c.lr_name, dt);
  if (adamw) check_hyper(c.wd, c.wd_name, dt);
  check_hyper(c.b1, c.b1_name, dt);
  check_hyper(c.b2, c.b2_name, dt);
  check_hyper(c.eps, c.eps_name, dt);
  core::check_dtype_in(c.grad, c.grad_name, {dt});
  const bool use_max = adamw && c.amsgrad;
  if (use_max && c.max_v == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null when amsgrad is true", c.max_v_name);
  if (adamw && c.max_v != nullptr) core::check_dtype_in(c.max_v, c.max_v_name, {dt});
  check_optim_state(c, adamw, false);
  // Registration in prototype order: var, m, v written in place (ApplyAdam's const m / v too).
  const int sv = b.inout(c.var), sm = b.inout(c.m), sv2 = b.inout(c.v);
  int sc[7];
  sc[0] = b.input(c.b1p);
  sc[1] = b.input(c.b2p);
  sc[2] = b.input(c.lr);
  sc[3] = adamw ? b.input(c.wd) : -1;
  sc[4] = b.input(c.b1);
  sc[5] = b.input(c.b2);
  sc[6] = b.input(c.eps);
  const int sg = b.input(c.grad);
  const int sx = adamw ? b.input(c.max_v) : -1;
  auto &st = b.add_step<AdamStep>();
  kernels::AdamPlan &P = st.plan;
  P.adamw = adamw;
  P.amsgrad = use_max;
  P.maximize = adamw && c.maximize;
  P.nesterov = !adamw && c.nesterov;
  set_state(b, st, *c.var, {sv, sm, sv2, sg, sx, -1});
  for (int k = 0; k < 7; ++k) {
    if (sc[k] < 0) continue;
    const aclTensor &tv = b.tensor(sc[k]);
    P.scalar_dtypes[k] = tv.dtype;
    st.scalars[k] = core::OperandRef::of_slot(sc[k], tv);
  }
}

}  // namespace opsnn::ops

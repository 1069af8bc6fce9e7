#include "ops/vfusion/modulate_phase1.h"

#include "common/error.h"
#include "core/outputs_apart.h"
#include "kernels/vfusion/modulate.h"

namespace opsnn::ops {
namespace {

struct ModulateStep final : core::Step {
  kernels::ModulatePlan plan;
  core::OperandRef x, scale, shift, y, dy, dscale, dshift;  // slot -1: not given
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::ModulateArgs a;
    a.x = at(x);
    a.scale = at(scale);
    a.shift = at(shift);
    a.dy = at(dy);
    a.y = at(y);
    a.dscale = at(dscale);
    a.dshift = at(dshift);
    kernels::modulate_run(plan, a);
    return 0;
  }
};

// A per-(batch, feature) tensor: [B, 1, D] or [B, D]; its (B, D) strides.
void check_bd(const ModulateArg &a, int64_t B, int64_t D, int64_t *strides) {
  const aclTensor &t = *a.t;
  const bool three = t.ndim == 3 && t.dims[0] == B && t.dims[1] == 1 && t.dims[2] == D;
  const bool two = t.ndim == 2 && t.dims[0] == B && t.dims[1] == D;
  if (!three && !two)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%lld, 1, %lld] or [%lld, %lld]", a.name,
                core::shape_string(t).c_str(), static_cast<long long>(B), static_cast<long long>(D),
                static_cast<long long>(B), static_cast<long long>(D));
  strides[0] = t.strides[0];
  strides[1] = t.strides[t.ndim - 1];
}

}  // namespace

void modulate_phase1(core::OpBuilder &b, const ModulateRule &rule, const ModulateCall &c) {
  const ModulateArg &y = rule.backward ? c.dx : c.out;
  const ModulateArg *required[3] = {rule.backward ? &c.dy : &c.x, rule.backward ? &c.x : nullptr, &y};
  for (const ModulateArg *a : required)
    if (a != nullptr) core::check_not_null(a->t, a->name);
  const ModulateArg &lead = rule.backward ? c.dy : c.x;
  core::check_dtype_in(lead.t, lead.name, rule.dtypes);
  const aclDataType dt = lead.t->dtype;
  const ModulateArg *all[8] = {&c.x, &c.scale, &c.shift, &c.out, &c.dy, &c.dx, &c.dscale, &c.dshift};
  for (const ModulateArg *a : all)
    if (a->t != nullptr) core::check_dtype_in(a->t, a->name, {dt});
  const aclTensor &lt = *lead.t;
  if (lt.ndim != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [batch, seq_len, hidden] (3 dims), got shape %s", lead.name,
                core::shape_string(lt).c_str());
  const core::Shape shape = core::Shape::of(lt);
  const int64_t B = lt.dims[0], D = lt.dims[2];
  kernels::ModulatePlan P;
  P.B = B;
  P.L = lt.dims[1];
  P.D = D;
  P.dtype = dt;
  P.backward = rule.backward;
  for (const ModulateArg *a : {&c.x, &y, rule.backward ? &c.dy : nullptr})
    if (a != nullptr) core::check_shape_equals(*a->t, a->name, shape);
  for (const auto &[a, s] : {std::pair{&c.scale, P.scale}, std::pair{&c.shift, P.shift},
                             std::pair{&c.dscale, P.dscale}, std::pair{&c.dshift, P.dshift}})
    if (a->t != nullptr) check_bd(*a, B, D, s);
  core::check_outputs_apart<ModulateArg>({&y, &c.dscale, &c.dshift}, {all[0], all[1], all[2], all[3], all[4],
                                                                      all[5], all[6], all[7]});
  // Registration in prototype order: forward self, scale, shift, out; backward grad_output, input,
  // scale, shift, then the three gradients.
  auto &st = b.add_step<ModulateStep>();
  auto reg = [&](const ModulateArg &a, bool out, core::OperandRef *r, int64_t *strides3) {
    const int slot = out ? b.output(a.t) : b.input(a.t);
    if (slot < 0) return;
    *r = core::OperandRef::of_slot(slot, b.tensor(slot));
    if (strides3 != nullptr)
      for (int d = 0; d < 3; ++d) strides3[d] = b.tensor(slot).strides[d];
  };
  if (rule.backward) {
    reg(c.dy, false, &st.dy, P.dy);
    reg(c.x, false, &st.x, P.x);
    reg(c.scale, false, &st.scale, nullptr);
    reg(c.shift, false, &st.shift, nullptr);
    reg(c.dx, true, &st.y, P.y);
    reg(c.dscale, true, &st.dscale, nullptr);
    reg(c.dshift, true, &st.dshift, nullptr);
    st.shift = {};  // no gradient reads shift
  } else {
    reg(c.x, false, &st.x, P.x);
    reg(c.scale, false, &st.scale, nullptr);
    reg(c.shift, false, &st.shift, nullptr);
    reg(c.out, true, &st.y, P.y);
  }
  st.plan = P;
}

}  // namespace opsnn::ops

#include "ops/position/rope_grad_phase1.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "core/outputs_apart.h"
#include "kernels/position/rope_grad.h"

namespace opsnn::ops {
namespace {

struct RopeGradStep final : core::Step {
  kernels::RopeGradPlan plan;
  core::OperandRef dy, cos, sin, x, dx, dcos, dsin;
  int run(const core::LaunchArgs &args) const override {
    kernels::RopeGradArgs a;
    a.dy = dy.address(args);
    a.cos = cos.address(args);
    a.sin = sin.address(args);
    a.dx = dx.address(args);
    if (plan.grads) {
      a.x = x.address(args);
      a.dcos = dcos.address(args);
      a.dsin = dsin.address(args);
    }
    kernels::rope_grad_run(plan, a);
    return 0;
  }
};

void check_shape(const RopeGradArg &a, const core::Shape &want, const char *like) {
  if (!(core::Shape::of(*a.t) == want))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must have %s's shape %s", a.name,
                core::shape_string(*a.t).c_str(), like, want.str().c_str());
}

}  // namespace

void rope_grad_phase1(core::OpBuilder &b, const RopeGradRule &rule, const RopeGradCall &c) {
  for (const RopeGradArg *a : {&c.dy, &c.cos, &c.sin, &c.dx, &c.dcos, &c.dsin}) core::check_not_null(a->t, a->name);
  core::check_dtype_in(c.dy.t, c.dy.name, rule.dtypes);
  const aclDataType dt = c.dy.t->dtype;
  for (const RopeGradArg *a : {&c.cos, &c.sin, &c.x, &c.dx, &c.dcos, &c.dsin})
    if (a->t != nullptr) core::check_dtype_in(a->t, a->name, {dt});
  if (c.mode == 2 || c.mode == 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "mode %lld (%s) is not supported; 0 (half) and 1 (interleave) are",
                static_cast<long long>(c.mode), c.mode == 2 ? "quarter" : "interleave-half");
  if (c.mode != 0 && c.mode != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "mode must be 0 (half) or 1 (interleave), got %lld",
                static_cast<long long>(c.mode));
  const aclTensor &dy = *c.dy.t;
  const int nd = dy.ndim;
  if (nd < 1 || nd > kernels::kRopeGradMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have 1 to %d dims, got shape %s", c.dy.name,
                kernels::kRopeGradMaxDims, core::shape_string(dy).c_str());
  const int64_t n = dy.dims[nd - 1];
  if (n % 2 != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s's last dim %lld must be even (the rotation pairs its elements)",
                c.dy.name, static_cast<long long>(n));
  // cos / sin: one shape, broadcast to dy with the last dim in full, at most dy's dims.
  const core::Shape ys = core::Shape::of(dy), cs = core::Shape::of(*c.cos.t);
  if (cs.ndim < 1 || cs.ndim > nd || cs.dims[cs.ndim - 1] != n ||
      !(core::broadcast_shapes(cs, c.cos.name, ys, c.dy.name) == ys))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to %s of shape %s (the last dim in full)",
                c.cos.name, cs.str().c_str(), c.dy.name, ys.str().c_str());
  check_shape(c.sin, cs, c.cos.name);
  if (c.x.t != nullptr) check_shape(c.x, ys, c.dy.name);
  check_shape(c.dx, ys, c.dy.name);
  check_shape(c.dcos, cs, c.cos.name);
  check_shape(c.dsin, cs, c.cos.name);
  core::check_outputs_apart<RopeGradArg>({&c.dx, &c.dcos, &c.dsin},
                                         {&c.dy, &c.cos, &c.sin, &c.x, &c.dx, &c.dcos, &c.dsin});

  // Registration in prototype order.
  auto &st = b.add_step<RopeGradStep>();
  kernels::RopeGradPlan &P = st.plan;
  P.ndim = nd;
  P.dtype = dt;
  P.mode = c.mode;
  P.grads = c.x.t != nullptr;
  const int pad = nd - cs.ndim;  // cos's dims right-aligned to dy's
  for (int d = 0; d < nd; ++d) {
    P.dims[d] = ys.dims[d];
    P.cs_dims[d] = d < pad ? 1 : cs.dims[d - pad];
  }
  auto reg = [&](const aclTensor *t, bool out, core::OperandRef *r, int64_t *strides, bool broadcast) {
    const int slot = out ? b.output(t) : b.input(t);
    if (slot < 0) return;
    const aclTensor &v = b.tensor(slot);
    *r = core::OperandRef::of_slot(slot, v);
    if (broadcast) {
      core::broadcast_strides(v, ys, strides);
    } else {
      const int vp = nd - v.ndim;
      for (int d = 0; d < nd; ++d) strides[d] = d < vp ? 0 : v.strides[d - vp];
    }
  };
  reg(c.dy.t, false, &st.dy, P.dy, false);
  reg(c.cos.t, false, &st.cos, P.cos, true);
  reg(c.sin.t, false, &st.sin, P.sin, true);
  reg(c.x.t, false, &st.x, P.x, false);
  reg(c.dx.t, true, &st.dx, P.dx, false);
  reg(c.dcos.t, true, &st.dcos, P.dcos, false);
  reg(c.dsin.t, true, &st.dsin, P.dsin, false);
}

}  // namespace opsnn::ops

#include "ops/norm/norm_grad_phase1.h"

#include <algorithm>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/norm/row_norm_grad.h"

namespace opsnn::ops {
namespace {

using kernels::NormGradPlan;

struct NormGradStep final : core::Step {
  NormGradPlan plan;
  core::OperandRef x, dy, gamma, mean, rstd, dx, dgamma, dbeta;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::NormGradArgs a;
    a.x = at(x);
    a.dy = at(dy);
    a.gamma = at(gamma);
    a.mean = at(mean);
    a.rstd = at(rstd);
    a.dx = at(dx);
    a.dgamma = at(dgamma);
    a.dbeta = at(dbeta);
    a.workspace = args.get(ws);
    kernels::norm_grad_run(plan, a);
    return 0;
  }
};

bool mask_bit(const aclBoolArray *m, size_t i) { return m == nullptr || m->values[i]; }

void row_vector(const aclTensor &t, const char *name, int64_t rows, kernels::NormGradRowVector *v) {
  if (t.numel() != rows)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one value per row (%lld), got shape %s", name,
                static_cast<long long>(rows), core::shape_string(t).c_str());
  v->dtype = t.dtype;
  v->ndim = 0;
  for (int d = 0; d < t.ndim; ++d) {
    v->shape[v->ndim] = t.dims[d];
    v->strides[v->ndim++] = t.strides[d];
  }
}

}  // namespace

void norm_grad_phase1(core::OpBuilder &b, const NormGradRule &rule, const NormGradCall &c) {
  if (c.output_mask != nullptr && c.output_mask->values.size() != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask must hold 3 values, got %zu", c.output_mask->values.size());
  const bool want_dx = mask_bit(c.output_mask, 0), want_dg = mask_bit(c.output_mask, 1),
             want_db = c.has_dbeta && mask_bit(c.output_mask, 2);
  core::check_dtype_in(c.dy, c.dy_name, rule.dtypes);
  core::check_dtype_in(c.x, c.x_name, rule.dtypes);
  if (rule.kind != NormGradKind::kRms) core::check_dtype_in(c.mean, c.mean_name, rule.dtypes);
  core::check_dtype_in(c.rstd, c.rstd_name, rule.dtypes);
  if (c.gamma != nullptr || !c.gamma_optional) core::check_dtype_in(c.gamma, c.gamma_name, rule.dtypes);
  if (want_dx) core::check_dtype_in(c.dx, c.dx_name, rule.dtypes);
  if (want_dg) core::check_dtype_in(c.dgamma, c.dgamma_name, rule.dtypes);
  if (want_db) core::check_dtype_in(c.dbeta, c.dbeta_name, rule.dtypes);
  const aclTensor &x = *c.x;
  core::check_shape_equals(*c.dy, c.dy_name, core::Shape::of(x));
  if (want_dx) core::check_shape_equals(*c.dx, c.dx_name, core::Shape::of(x));

  NormGradPlan P;
  P.rms = rule.kind == NormGradKind::kRms;
  core::Shape gshape;  // gamma's (and dgamma's) shape
  if (rule.kind == NormGradKind::kGroup) {
    if (x.ndim < 2 || x.dims[0] != c.n || x.dims[1] != c.c || c.group <= 0 || c.c % c.group != 0 ||
        x.numel() != c.n * c.c * c.hxw)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s of shape %s does not match N = %lld, C = %lld, HxW = %lld, group = %lld (C divisible by group)",
                  c.x_name, core::shape_string(x).c_str(), static_cast<long long>(c.n), static_cast<long long>(c.c),
                  static_cast<long long>(c.hxw), static_cast<long long>(c.group));
    const int64_t cg = c.c / c.group;
    P.nouter = 2;
    P.outer_shape[0] = c.n;
    P.outer_shape[1] = c.group;
    P.inner_shape[P.ninner++] = cg;
    for (int d = 2; d < x.ndim; ++d) P.inner_shape[P.ninner++] = x.dims[d];
    gshape.ndim = 1;
    gshape.dims[0] = c.c;
  } else {
    int k = 0;
    if (rule.kind == NormGradKind::kLayer) {
      if (c.normalized_shape == nullptr) core::check_not_null(c.normalized_shape, "normalizedShape");
      k = static_cast<int>(c.normalized_shape->values.size());
    } else {
      if (c.gamma == nullptr) core::check_not_null(c.gamma, c.gamma_name);
      k = c.gamma->ndim;
    }
    if (k < 1 || k > x.ndim)
      throw_error(ACLNN_ERR_PARAM_INVALID, "the normalised dims (%d) must be 1 to %s's %d dims", k, c.x_name, x.ndim);
    for (int d = 0; d < k; ++d) {
      const int64_t want = x.dims[x.ndim - k + d];
      if (rule.kind == NormGradKind::kLayer && c.normalized_shape->values[static_cast<size_t>(d)] != want)
        throw_error(ACLNN_ERR_PARAM_INVALID, "normalizedShape does not match the trailing dims of %s (shape %s)",
                    c.x_name, core::shape_string(x).c_str());
      gshape.dims[gshape.ndim++] = want;
    }
    for (int d = 0; d < x.ndim - k; ++d) P.outer_shape[P.nouter++] = x.dims[d];
    for (int d = x.ndim - k; d < x.ndim; ++d) P.inner_shape[P.ninner++] = x.dims[d];
  }
  if (P.nouter > kernels::kMaxLoopDims || P.ninner > kernels::kMaxLoopDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has too many dims", c.x_name);
  P.rows = 1;
  P.len = 1;
  for (int d = 0; d < P.nouter; ++d) P.rows *= P.outer_shape[d];
  for (int d = 0; d < P.ninner; ++d) P.len *= P.inner_shape[d];
  if (c.gamma != nullptr) core::check_shape_equals(*c.gamma, c.gamma_name, gshape);
  if (want_dg) core::check_shape_equals(*c.dgamma, c.dgamma_name, gshape);
  if (want_db) core::check_shape_equals(*c.dbeta, c.dbeta_name, gshape);

  // Registration in prototype order: dy, x, mean, rstd, gamma (beta), then dx, dgamma (dbeta).
  const bool layer_order = rule.kind != NormGradKind::kRms;  // RmsNormGrad: dy, x, rstd, gamma
  const int sdy = b.input(c.dy), sx = b.input(c.x);
  const int smean = layer_order ? b.input(c.mean) : -1;
  const int srstd = b.input(c.rstd);
  const int sgamma = b.input(c.gamma);
  if (rule.kind == NormGradKind::kLayer) b.input(c.beta);
  const int sdx = b.output(want_dx ? c.dx : nullptr);
  const int sdg = b.output(want_dg ? c.dgamma : nullptr);
  const int sdb = c.has_dbeta ? b.output(want_db ? c.dbeta : nullptr) : -1;

  auto &st = b.add_step<NormGradStep>();
  // Element strides of a tensor of x's layout along the outer and inner dims.
  auto split = [&](const aclTensor &t, kernels::NormGradOperand *o) {
    o->dtype = t.dtype;
    if (rule.kind == NormGradKind::kGroup) {
      const int64_t cg = c.c / c.group;
      o->outer[0] = t.strides[0];
      o->outer[1] = t.strides[1] * cg;
      o->inner[0] = t.strides[1];
      for (int d = 2; d < t.ndim; ++d) o->inner[d - 1] = t.strides[d];
    } else {
      for (int d = 0; d < P.nouter; ++d) o->outer[d] = t.strides[d];
      for (int d = 0; d < P.ninner; ++d) o->inner[d] = t.strides[P.nouter + d];
    }
  };
  split(b.tensor(sx), &P.x);
  split(b.tensor(sdy), &P.dy);
  st.x = core::OperandRef::of_slot(sx, b.tensor(sx));
  st.dy = core::OperandRef::of_slot(sdy, b.tensor(sdy));
  if (sdx >= 0) {
    split(b.tensor(sdx), &P.dx);
    st.dx = core::OperandRef::of_slot(sdx, b.tensor(sdx));
    P.has_dx = true;
  }
  // gamma and the accumulators: per gamma element (group norm: per channel of the row's group).
  int64_t dense[kernels::kMaxLoopDims];
  dense[gshape.ndim - 1] = 1;
  for (int d = gshape.ndim - 2; d >= 0; --d) dense[d] = dense[d + 1] * gshape.dims[d + 1];
  auto gamma_like = [&](const int64_t *strides, kernels::NormGradOperand *o) {
    if (rule.kind == NormGradKind::kGroup) {
      o->outer[1] = strides[0] * (c.c / c.group);
      o->inner[0] = strides[0];
    } else {
      for (int d = 0; d < P.ninner; ++d) o->inner[d] = strides[d];
    }
  };
  gamma_like(dense, &P.acc);
  P.acc_size = 1;
  for (int d = 0; d < gshape.ndim; ++d) P.acc_size *= gshape.dims[d];
  if (sgamma >= 0) {
    const aclTensor &g = b.tensor(sgamma);
    gamma_like(g.strides, &P.gamma);
    P.gamma.dtype = g.dtype;
    st.gamma = core::OperandRef::of_slot(sgamma, g);
    P.has_gamma = true;
  }
  if (smean >= 0) {
    row_vector(b.tensor(smean), c.mean_name, P.rows, &P.mean);
    st.mean = core::OperandRef::of_slot(smean, b.tensor(smean));
    P.has_mean = true;
  }
  row_vector(b.tensor(srstd), c.rstd_name, P.rows, &P.rstd);
  st.rstd = core::OperandRef::of_slot(srstd, b.tensor(srstd));
  P.ngamma = gshape.ndim;
  for (int d = 0; d < gshape.ndim; ++d) P.gshape[d] = gshape.dims[d];
  if (sdg >= 0) {
    const aclTensor &t = b.tensor(sdg);
    for (int d = 0; d < t.ndim; ++d) P.dgamma_strides[d] = t.strides[d];
    P.dgamma_dtype = t.dtype;
    st.dgamma = core::OperandRef::of_slot(sdg, t);
    P.has_dgamma = true;
  }
  if (sdb >= 0) {
    const aclTensor &t = b.tensor(sdb);
    for (int d = 0; d < t.ndim; ++d) P.dbeta_strides[d] = t.strides[d];
    P.dbeta_dtype = t.dtype;
    st.dbeta = core::OperandRef::of_slot(sdb, t);
    P.has_dbeta = true;
  }
  // A fixed number of row ranges (not the thread count): the partial sums' order is fixed.
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(P.rows, 16)));
  st.plan = P;
  st.ws = b.book("norm_grad", P.workspace_bytes());
}

}  // namespace opsnn::ops

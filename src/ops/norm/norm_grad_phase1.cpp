#include "ops/norm/norm_grad_phase1.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/norm/row_norm_grad.h"

namespace opsnn::ops {
namespace {

using kernels::NormGradPlan;
constexpr int kRoles = static_cast<int>(NgRole::kCount);

struct NormGradStep final : core::Step {
  NormGradPlan plan;
  core::OperandRef io[kernels::kNgCount], mean, rstd, dgamma, dbeta, quant_scale, quant_offset;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::NormGradArgs a;
    for (int k = 0; k < kernels::kNgCount; ++k) {
      a.in[k] = at(io[k]);
      a.out[k] = at(io[k]);
    }
    a.mean = at(mean);
    a.rstd = at(rstd);
    a.dgamma = at(dgamma);
    a.dbeta = at(dbeta);
    a.quant_scale = at(quant_scale);
    a.quant_offset = at(quant_offset);
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

// RmsNormGradQuant's quantisation: quantMode "static", scalesX (FLOAT or x's dtype) and offsetXOptional
// (INT32) one element each, dxOut INT8 (HIFLOAT8 is not supported).
void check_quant(const NormGradCall &c, const aclTensor *dx) {
  core::check_not_null(c.quant_mode, "quantMode");
  if (std::string(c.quant_mode) != "static")
    throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode must be \"static\", got \"%s\"", c.quant_mode);
  core::check_dtype_in(c.scales_x, c.scales_x_name, {ACL_FLOAT, c.x != nullptr ? c.x->dtype : ACL_FLOAT});
  if (c.offset_x != nullptr) core::check_dtype_in(c.offset_x, c.offset_x_name, {ACL_INT32});
  for (const auto &[t, name] : {std::pair{c.scales_x, c.scales_x_name}, std::pair{c.offset_x, c.offset_x_name}})
    if (t != nullptr && t->numel() != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold one value (shape [1]), got shape %s", name,
                  core::shape_string(*t).c_str());
  core::check_not_null(dx, c.dx_name);
  if (dx->dtype == ACL_HIFLOAT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s HIFLOAT8 is not supported yet; INT8 is", c.dx_name);
  core::check_dtype_in(dx, c.dx_name, {ACL_INT8});
}

}  // namespace

void norm_grad_phase1(core::OpBuilder &b, const NormGradRule &rule, const NormGradCall &c) {
  if (c.output_mask != nullptr && c.output_mask->values.size() != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask must hold 3 values, got %zu", c.output_mask->values.size());
  bool in_proto[kRoles] = {};
  for (int i = 0; i < c.norder; ++i) in_proto[static_cast<int>(c.order[i])] = true;
  auto has = [&](NgRole r) { return in_proto[static_cast<int>(r)]; };
  const bool want_dx = mask_bit(c.output_mask, 0);
  const bool want_dg = c.dgamma_required >= 0 ? c.dgamma_required != 0 : mask_bit(c.output_mask, 1);
  const bool want_db = has(NgRole::kDbeta) && (c.dbeta_required >= 0 ? c.dbeta_required != 0 : mask_bit(c.output_mask, 2));
  const bool ada = has(NgRole::kScale);

  // Each role: its tensor, name, whether the prototype requires it, and whether it is an output.
  struct Role {
    const aclTensor *t;
    const char *name;
    bool required, output;
  };
  Role R[kRoles] = {
      {c.dy, c.dy_name, true, false},
      {c.x, c.x_name, true, false},
      {c.x2, c.x2_name, true, false},
      {c.mean, c.mean_name, rule.kind != NormGradKind::kRms, false},
      {c.rstd, c.rstd_name, true, false},
      {c.gamma, c.gamma_name, !c.gamma_optional, false},
      {c.beta, c.beta_name, !c.beta_optional, false},
      {c.scale, c.scale_name, true, false},
      {c.shift, c.shift_name, true, false},
      {c.dsum, c.dsum_name, !c.dsum_optional, false},
      {c.scales_x, c.scales_x_name, true, false},
      {c.offset_x, c.offset_x_name, !c.offset_x_optional, false},
      {want_dx ? c.dx : nullptr, c.dx_name, want_dx, true},
      {c.dx2, c.dx2_name, true, true},
      {c.dscale, c.dscale_name, true, true},
      {c.dshift, c.dshift_name, true, true},
      {want_dg ? c.dgamma : nullptr, c.dgamma_name, want_dg, true},
      {want_db ? c.dbeta : nullptr, c.dbeta_name, want_db, true},
  };
  // Null and dtype checks in prototype order.
  for (int i = 0; i < c.norder; ++i) {
    const NgRole e = c.order[i];
    const Role &r = R[static_cast<int>(e)];
    const bool quant_role = e == NgRole::kScalesX || e == NgRole::kOffsetX || (c.has_quant && e == NgRole::kDx);
    if (!quant_role && (r.required || r.t != nullptr)) core::check_dtype_in(r.t, r.name, rule.dtypes);
  }
  if (c.has_quant) check_quant(c, R[static_cast<int>(NgRole::kDx)].t);
  const std::string fmt = c.data_format != nullptr ? c.data_format : "NCHW";
  if (rule.kind == NormGradKind::kGroup && fmt != "NCHW" && fmt != "ND" && fmt != "NCL" && fmt != "NCDHW")
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s '%s' is not supported: NCHW / NCL / NCDHW / ND (channels at dim 1)",
                c.data_format_name, fmt.c_str());
  const aclTensor &x = *c.x;
  const core::Shape xs = core::Shape::of(x);
  for (NgRole e : {NgRole::kDy, NgRole::kX2, NgRole::kDsum, NgRole::kDx, NgRole::kDx2}) {
    const Role &r = R[static_cast<int>(e)];
    if (has(e) && r.t != nullptr) core::check_shape_equals(*r.t, r.name, xs);
  }

  NormGradPlan P;
  P.rms = rule.kind == NormGradKind::kRms;
  P.alpha = c.alpha;
  P.swish = c.swish;
  P.swish_scale = c.swish_scale;
  core::Shape gshape;  // gamma's (and dgamma's) shape
  if (rule.kind == NormGradKind::kGroup) {
    int64_t n = c.n, ch = c.c, hxw = c.hxw;
    if (c.shape_from_input && x.ndim >= 2) {
      n = x.dims[0];
      ch = x.dims[1];
      hxw = 1;
      for (int d = 2; d < x.ndim; ++d) hxw *= x.dims[d];
    }
    if (c.group <= 0 || ch <= 0 || ch % c.group != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "group = %lld must be positive and divide C = %lld",
                  static_cast<long long>(c.group), static_cast<long long>(ch));
    if (x.ndim < 2 || x.dims[0] != n || x.dims[1] != ch || x.numel() != n * ch * hxw)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s of shape %s does not match N = %lld, C = %lld, HxW = %lld, group = %lld (C divisible by group)",
                  c.x_name, core::shape_string(x).c_str(), static_cast<long long>(n), static_cast<long long>(ch),
                  static_cast<long long>(hxw), static_cast<long long>(c.group));
    const int64_t cg = ch / c.group;
    P.nouter = 2;
    P.outer_shape[0] = n;
    P.outer_shape[1] = c.group;
    P.inner_shape[P.ninner++] = cg;
    for (int d = 2; d < x.ndim; ++d) P.inner_shape[P.ninner++] = x.dims[d];
    gshape.ndim = 1;
    gshape.dims[0] = ch;
  } else {
    int k = 0;
    if (c.has_normalized_shape) {
      core::check_not_null(c.normalized_shape, "normalizedShape");
      k = static_cast<int>(c.normalized_shape->values.size());
    } else {
      if (c.gamma == nullptr) core::check_not_null(c.gamma, c.gamma_name);
      k = c.gamma->ndim;
    }
    if (k < 1 || k > x.ndim)
      throw_error(ACLNN_ERR_PARAM_INVALID, "the normalised dims (%d) must be 1 to %s's %d dims", k, c.x_name, x.ndim);
    if (ada && (k != 1 || x.ndim < 2))
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "normalizedShape must be [H] and %s [B..., S, H] (the last dim normalised), got %d dims and shape %s",
                  c.x_name, k, core::shape_string(x).c_str());
    for (int d = 0; d < k; ++d) {
      const int64_t want = x.dims[x.ndim - k + d];
      if (c.has_normalized_shape && c.normalized_shape->values[static_cast<size_t>(d)] != want)
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
  for (NgRole e : {NgRole::kGamma, NgRole::kBeta, NgRole::kDgamma, NgRole::kDbeta}) {
    const Role &r = R[static_cast<int>(e)];
    if (has(e) && r.t != nullptr) core::check_shape_equals(*r.t, r.name, gshape);
  }
  // AdaLayerNorm's scale / shift: [B..., H] or [B..., 1, H] for x [B..., S, H]; their gradients alike.
  if (ada) {
    const int nd = x.ndim;
    for (NgRole e : {NgRole::kScale, NgRole::kShift}) {
      const aclTensor &t = *R[static_cast<int>(e)].t;
      bool ok = (t.ndim == nd - 1 || t.ndim == nd) && t.dims[t.ndim - 1] == x.dims[nd - 1];
      for (int d = 0; ok && d < nd - 2; ++d) ok = t.dims[d] == x.dims[d];
      if (ok && t.ndim == nd) ok = t.dims[nd - 2] == 1;
      if (!ok)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; for %s of shape %s it must be [B..., H] or [B..., 1, H]",
                    R[static_cast<int>(e)].name, core::shape_string(t).c_str(), c.x_name, core::shape_string(x).c_str());
    }
    const core::Shape ss = core::Shape::of(*c.scale);
    core::check_shape_equals(*c.shift, c.shift_name, ss);
    core::check_shape_equals(*c.dscale, c.dscale_name, ss);
    core::check_shape_equals(*c.dshift, c.dshift_name, ss);
  }
  for (int e = static_cast<int>(NgRole::kDx); e < kRoles; ++e)
    if (R[e].t != nullptr) core::check_no_internal_overlap(*R[e].t, R[e].name);

  // Registration in prototype order.
  int slot[kRoles];
  std::fill(slot, slot + kRoles, -1);
  for (int i = 0; i < c.norder; ++i) {
    const int e = static_cast<int>(c.order[i]);
    slot[e] = R[e].output ? b.output(R[e].t) : b.input(R[e].t);
  }
  auto &st = b.add_step<NormGradStep>();
  // Element strides of a tensor of x's layout along the outer and inner dims.
  auto split = [&](const aclTensor &t, kernels::NormGradOperand *o) {
    if (rule.kind == NormGradKind::kGroup) {
      const int64_t cg = x.dims[1] / c.group;
      o->outer[0] = t.strides[0];
      o->outer[1] = t.strides[1] * cg;
      o->inner[0] = t.strides[1];
      for (int d = 2; d < t.ndim; ++d) o->inner[d - 1] = t.strides[d];
    } else {
      for (int d = 0; d < P.nouter; ++d) o->outer[d] = t.strides[d];
      for (int d = 0; d < P.ninner; ++d) o->inner[d] = t.strides[P.nouter + d];
    }
  };
  // gamma-shaped operands (and the accumulators): per gamma element (group norm: per channel of the row's group).
  auto gamma_like = [&](const int64_t *strides, kernels::NormGradOperand *o) {
    if (rule.kind == NormGradKind::kGroup) {
      o->outer[1] = strides[0] * (x.dims[1] / c.group);
      o->inner[0] = strides[0];
    } else {
      for (int d = 0; d < P.ninner; ++d) o->inner[d] = strides[d];
    }
  };
  // scale-shaped operands: the batch dims, 0 along S, the last dim.
  auto scale_like = [&](const aclTensor &t, kernels::NormGradOperand *o) {
    for (int d = 0; d < x.ndim - 2; ++d) o->outer[d] = t.strides[d];
    o->outer[x.ndim - 2] = 0;
    o->inner[0] = t.strides[t.ndim - 1];
  };
  const struct {
    NgRole role;
    int io;
    int shape;  // 0: like x, 1: like gamma, 2: like scale
  } operands[] = {{NgRole::kX, kernels::kNgX, 0},          {NgRole::kX2, kernels::kNgX2, 0},
                  {NgRole::kDy, kernels::kNgDy, 0},        {NgRole::kDsum, kernels::kNgDsum, 0},
                  {NgRole::kGamma, kernels::kNgGamma, 1},  {NgRole::kScale, kernels::kNgScale, 2},
                  {NgRole::kDx, kernels::kNgDx, 0},        {NgRole::kDx2, kernels::kNgDx2, 0},
                  {NgRole::kDscale, kernels::kNgDscale, 2}, {NgRole::kDshift, kernels::kNgDshift, 2},
                  {NgRole::kBeta, kernels::kNgBeta, 1}};
  const bool reads_beta = c.swish || ada;
  for (const auto &o : operands) {
    const int s = slot[static_cast<int>(o.role)];
    if (s < 0 || (o.role == NgRole::kBeta && !reads_beta)) continue;
    const aclTensor &t = b.tensor(s);
    auto &op = P.io[o.io];
    op.present = true;
    op.dtype = t.dtype;
    if (o.shape == 0) split(t, &op);
    else if (o.shape == 1) gamma_like(t.strides, &op);
    else scale_like(t, &op);
    st.io[o.io] = core::OperandRef::of_slot(s, t);
  }
  int64_t dense[kernels::kMaxLoopDims];
  dense[gshape.ndim - 1] = 1;
  for (int d = gshape.ndim - 2; d >= 0; --d) dense[d] = dense[d + 1] * gshape.dims[d + 1];
  P.io[kernels::kNgAcc].present = true;
  gamma_like(dense, &P.io[kernels::kNgAcc]);
  P.acc_size = 1;
  for (int d = 0; d < gshape.ndim; ++d) P.acc_size *= gshape.dims[d];
  if (const int s = slot[static_cast<int>(NgRole::kMean)]; s >= 0 && !P.rms) {
    row_vector(b.tensor(s), c.mean_name, P.rows, &P.mean);
    st.mean = core::OperandRef::of_slot(s, b.tensor(s));
    P.has_mean = true;
  }
  {
    const int s = slot[static_cast<int>(NgRole::kRstd)];
    row_vector(b.tensor(s), c.rstd_name, P.rows, &P.rstd);
    st.rstd = core::OperandRef::of_slot(s, b.tensor(s));
  }
  P.ngamma = gshape.ndim;
  for (int d = 0; d < gshape.ndim; ++d) P.gshape[d] = gshape.dims[d];
  if (const int s = slot[static_cast<int>(NgRole::kDgamma)]; s >= 0) {
    const aclTensor &t = b.tensor(s);
    for (int d = 0; d < t.ndim; ++d) P.dgamma_strides[d] = t.strides[d];
    P.dgamma_dtype = t.dtype;
    st.dgamma = core::OperandRef::of_slot(s, t);
    P.has_dgamma = true;
  }
  if (const int s = slot[static_cast<int>(NgRole::kDbeta)]; s >= 0) {
    const aclTensor &t = b.tensor(s);
    for (int d = 0; d < t.ndim; ++d) P.dbeta_strides[d] = t.strides[d];
    P.dbeta_dtype = t.dtype;
    st.dbeta = core::OperandRef::of_slot(s, t);
    P.has_dbeta = true;
  }
  // Batches: rows sharing scale / shift (AdaLayerNorm: the S rows of one batch index), else one row each.
  if (ada) {
    P.batch_rows = P.outer_shape[P.nouter - 1];
    P.batches = 1;
    for (int d = 0; d < P.nouter - 1; ++d) P.batches *= P.outer_shape[d];
  } else {
    P.batch_rows = 1;
    P.batches = P.rows;
  }
  // A fixed number of batch ranges (not the thread count): the partial sums' order is fixed.
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(P.batches, 16)));
  if (c.has_quant) {
    const int s = slot[static_cast<int>(NgRole::kScalesX)], o = slot[static_cast<int>(NgRole::kOffsetX)];
    P.quant = true;
    P.quant_div = c.div_mode;
    P.quant_scale_dtype = b.tensor(s).dtype;
    st.quant_scale = core::OperandRef::of_slot(s, b.tensor(s));
    if (o >= 0) st.quant_offset = core::OperandRef::of_slot(o, b.tensor(o));
  }
  st.plan = P;
  st.ws = b.book("norm_grad", P.workspace_bytes());
}

}  // namespace opsnn::ops

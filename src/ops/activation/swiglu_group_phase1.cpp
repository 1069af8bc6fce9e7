#include "ops/activation/swiglu_group_phase1.h"

#include <cstring>
#include <string>

#include "common/error.h"
#include "core/outputs_apart.h"
#include "core/verbose.h"
#include "kernels/activation/swiglu_group.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {
namespace {

struct SwigluGroupStep final : core::Step {
  kernels::SwigluGroupPlan plan;
  core::OperandRef x, weight, group, dy, y_origin, y, dweight, scale, origin;  // slot -1: not given
  int run(const core::LaunchArgs &args) const override {
    auto at = [&](const core::OperandRef &r) { return r.slot >= 0 ? r.address(args) : nullptr; };
    kernels::SwigluGroupArgs a;
    a.x = at(x);
    a.weight = at(weight);
    a.group = reinterpret_cast<const int64_t *>(at(group));
    a.dy = at(dy);
    a.y_origin = at(y_origin);
    a.y = at(y);
    a.dweight = at(dweight);
    a.scale = at(scale);
    a.origin = at(origin);
    return kernels::swiglu_group_run(plan, a);
  }
};

// A tensor with x's leading dims: its row strides and its last-dim stride.
kernels::SwgRowView row_view(const aclTensor &t) {
  kernels::SwgRowView v;
  for (int d = 0; d + 1 < t.ndim; ++d) v.lead[d] = t.strides[d];
  v.last = t.strides[t.ndim - 1];
  return v;
}

// One FLOAT value per row: numel = rows, read in its own row-major order.
kernels::SwgFlatView per_row(const SwigluGroupArg &a, int64_t rows) {
  const aclTensor &t = *a.t;
  core::check_dtype_in(a.t, a.name, {ACL_FLOAT});
  if (t.numel() != rows)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s (%lld elements); it must hold one value per row of x (%lld)",
                a.name, core::shape_string(t).c_str(), static_cast<long long>(t.numel()), static_cast<long long>(rows));
  kernels::SwgFlatView v;
  v.ndim = t.ndim;
  for (int d = 0; d < t.ndim; ++d) {
    v.dims[d] = t.dims[d];
    v.strides[d] = t.strides[d];
  }
  return v;
}

long long ll(int64_t v) { return static_cast<long long>(v); }

// SwigluGroupQuant's own rules (swiglu_group_phase1.h): quantMode 0 with an INT8 / FLOAT8 yOut, the MX /
// HIFLOAT8 modes refused; its three outputs' dtypes and shapes (half: x's shape with the last dim halved).
void check_quant(const SwigluGroupCall &c, const core::Shape &half) {
  const aclTensor &x = *c.x.t;
  if (c.quant_mode >= 1 && c.quant_mode <= 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode %lld (%s) is not supported yet; 0 (block quant) with dstType 2 "
                "(INT8) is", ll(c.quant_mode), c.quant_mode == 1 ? "MX, FLOAT8" : "HIFLOAT8");
  if (c.quant_mode != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode must be 0, 1, 2 or 3, got %lld", ll(c.quant_mode));
  if (c.dst_type == 34)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dstType 34 (HIFLOAT8) is not supported (OpsNN has no HIFLOAT8 codec)");
  if (c.dst_type != 2 && c.dst_type != 35 && c.dst_type != 36)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dstType must be 2 (INT8), 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN), got %lld",
                ll(c.dst_type));
  if (c.block_size != 0 && c.block_size != 128)
    throw_error(ACLNN_ERR_PARAM_INVALID, "blockSize must be 0 or 128 for quantMode 0, got %lld", ll(c.block_size));
  if (x.ndim < 2 || x.ndim > 8 || x.dims[x.ndim - 1] % 256 != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must have 2 to 8 dims and a last dim divisible by 256",
                c.x.name, core::shape_string(x).c_str());
  if (c.scale.t != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is read by quantMode 2 (HIFLOAT8, static) only; pass null", c.scale.name);
  core::Shape ss = half;
  ss.dims[ss.ndim - 1] = (half.dims[half.ndim - 1] + 127) / 128;
  const struct {
    const SwigluGroupArg *arg;
    aclDataType dt;
    const core::Shape *shape;
  } outs[] = {{&c.out, c.dst_type == 2 ? ACL_INT8 : static_cast<aclDataType>(c.dst_type), &half},
              {&c.y_scale, ACL_FLOAT, &ss}, {&c.origin_out, x.dtype, &half}};
  for (const auto &o : outs) {
    core::check_dtype_in(o.arg->t, o.arg->name, {o.dt});
    core::check_shape_equals(*o.arg->t, o.arg->name, *o.shape);
    core::check_no_internal_overlap(*o.arg->t, o.arg->name);
  }
}

}  // namespace

void swiglu_group_phase1(core::OpBuilder &b, const SwigluGroupRule &rule, const SwigluGroupCall &c) {
  const bool backward = c.dy.t != nullptr || *c.dy.name != '\0';
  // -- check: the pointers in prototype order (161001 for a missing required one), each given tensor's format
  const SwigluGroupArg *proto[] = {&c.dy,  &c.x,       &c.weight,     &c.y_origin, &c.group, &c.scale,
                                   &c.out, &c.y_scale, &c.origin_out, &c.dx,       &c.dweight};
  const bool quant = *c.y_scale.name != '\0';  // SwigluGroupQuant
  for (const SwigluGroupArg *a : proto) {
    if (*a->name == '\0') continue;  // not in this op's prototype
    const bool optional = std::strstr(a->name, "Optional") != nullptr;
    if (a->t == nullptr && optional) continue;
    if (quant && a == &c.out) core::check_not_null(a->t, a->name);  // (FLOAT8 possible: check_quant checks it)
    else core::check_tensor(a->t, a->name);
  }
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const aclTensor &x = *c.x.t;
  const aclDataType dt = x.dtype;
  if (x.ndim == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; its last dim is split in two halves", c.x.name);
  if (x.dims[x.ndim - 1] % 2 != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has an odd last dim (%lld); it must split in two equal halves", c.x.name,
                static_cast<long long>(x.dims[x.ndim - 1]));
  if (!(c.clamp_limit > 0.0) && c.clamp_limit != -1.0 && c.clamp_limit != 0.0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "clampLimit must be > 0 (clamp) or -1 (no clamp), got %g", c.clamp_limit);
  core::Shape half = core::Shape::of(x);
  half.dims[x.ndim - 1] /= 2;
  const SwigluGroupArg &y = backward ? c.dx : c.out;
  for (const SwigluGroupArg *a : {&c.dy, &c.y_origin, &y})  // (the quantising forward's INT8 yOut: check_quant)
    if (a->t != nullptr && !(quant && a == &y)) core::check_dtype_in(a->t, a->name, {dt});
  if (quant) {
    check_quant(c, half);
  } else if (backward) {
    core::check_shape_equals(*c.dy.t, c.dy.name, half);
    if (c.y_origin.t != nullptr) core::check_shape_equals(*c.y_origin.t, c.y_origin.name, half);
    core::check_shape_equals(*c.dx.t, c.dx.name, core::Shape::of(x));
    if (c.dweight.t != nullptr && c.y_origin.t == nullptr)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given but yOriginOptional is null; the weight's gradient is the sum "
                  "of gradY * yOrigin over each row", c.dweight.name);
  } else {
    core::check_shape_equals(*c.out.t, c.out.name, half);
  }
  kernels::SwigluGroupPlan P;
  P.lead_ndim = x.ndim - 1;
  P.rows = 1;
  for (int d = 0; d + 1 < x.ndim; ++d) {
    P.lead_dims[d] = x.dims[d];
    P.rows *= x.dims[d];
  }
  P.h = x.dims[x.ndim - 1] / 2;
  P.dtype = dt;
  P.clamp = c.clamp_limit > 0.0 ? static_cast<float>(c.clamp_limit) : 0.0f;
  P.backward = backward;
  if (c.weight.t != nullptr) P.weight = per_row(c.weight, P.rows);
  if (c.dweight.t != nullptr) {
    P.dweight = per_row(c.dweight, P.rows);
    if (c.weight.t != nullptr) core::check_shape_equals(*c.dweight.t, c.dweight.name, core::Shape::of(*c.weight.t));
  }
  if (c.group.t != nullptr) {
    const aclTensor &g = *c.group.t;
    if (g.dtype != ACL_INT64 || g.ndim != 1 || g.dims[0] == 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be a non-empty 1-D INT64 tensor of group token counts (got %s of "
                  "shape %s)", c.group.name, core::dtype_name(g.dtype), core::shape_string(g).c_str());
    P.group_n = g.dims[0];
    P.group_stride = g.strides[0];
  }
  core::check_outputs_apart<SwigluGroupArg>(
      {&y, &c.dweight, &c.y_scale, &c.origin_out},
      {&c.x, &c.weight, &c.group, &c.scale, &c.dy, &c.y_origin, &y, &c.dweight, &c.y_scale, &c.origin_out});

  // -- register in prototype order: forward x, weight, groupIndex, out; backward gradY, x, weight, yOrigin,
  // groupIndex, gradXOut, gradWeightOut
  auto &st = b.add_step<SwigluGroupStep>();
  auto reg = [&](const SwigluGroupArg &a, bool out, core::OperandRef *r) {
    const int slot = out ? b.output(a.t) : b.input(a.t);
    if (slot >= 0) *r = core::OperandRef::of_slot(slot, b.tensor(slot));
    return slot;
  };
  if (backward) reg(c.dy, false, &st.dy);
  reg(c.x, false, &st.x);
  reg(c.weight, false, &st.weight);
  if (backward) reg(c.y_origin, false, &st.y_origin);
  reg(c.group, false, &st.group);
  core::OperandRef unread;  // scaleOptional: always null here (check_quant)
  if (quant) reg(c.scale, false, &unread);
  reg(y, true, &st.y);
  if (backward) reg(c.dweight, true, &st.dweight);
  if (quant) {
    reg(c.y_scale, true, &st.scale);
    reg(c.origin_out, true, &st.origin);
    P.quant = true;
    P.origin = c.output_origin;
    P.round_scale = c.round_scale;
    if (c.dst_type != 2) {
      P.fp8 = true;
      kernels::low_float_of(static_cast<aclDataType>(c.dst_type), &P.fp8_fmt);
      P.qmax = kernels::low_float_spec(P.fp8_fmt).max;
    }
    P.scale = row_view(*c.y_scale.t);
    P.y_origin = row_view(*c.origin_out.t);
  }
  const char *quant_tier = "scalar";
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  if (quant && c.dst_type == 2 && c.out.t->strides[x.ndim - 1] == 1) {  // the per-token tier's INT8 rounding
    kernels::QuantTokenKernels token{};
    quant_tier = kernels::choose_quant_token_tier(&token, traced ? &trace : nullptr);
    P.int8 = token.int8;
  } else if (quant && traced) {
    trace.add("token int8", "yOut not contiguous along the last dim");
  }
  P.x = row_view(x);
  P.y = row_view(*y.t);
  if (backward) P.dy = row_view(*c.dy.t);
  if (c.y_origin.t != nullptr) P.y_origin = row_view(*c.y_origin.t);
  if (!backward) {  // the forward's activation: the element-wise engine's functor over fp32 chunks
    const kernels::EwOp op = P.clamp > 0.0f ? kernels::EwOp::kClippedSwiglu : kernels::EwOp::kSwiGlu;
    P.act = kernels::ew_kernel(op, core::ComputeType::kFloat);
    if (P.act == nullptr)
      throw_error(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "no %s kernel computes in FLOAT", kernels::ew_op_name(op));
    P.act_scalars.f[0] = 1.0;  // alpha
    P.act_scalars.f[1] = P.clamp;
    P.act_scalars.f[2] = 0.0;  // bias
  }
  st.plan = P;
  if (core::current_phase1_trace() != nullptr)
    core::record_choice(std::string("swiglu_group:rows/") +
                            (backward ? "backward/double"
                             : quant  ? std::string("forward_quant/ew_chunks+int8_") + quant_tier
                                      : "forward/ew_chunks"),
                        &trace);
}

}  // namespace opsnn::ops

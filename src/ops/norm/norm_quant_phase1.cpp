#include "ops/norm/norm_quant_phase1.h"

#include <algorithm>
#include <memory>
#include <string>

#include "common/error.h"
#include "core/outputs_apart.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "ops/norm/norm_quant_step.h"
#include "ops/quant/mx_quant_phase1.h"

namespace opsnn::ops {
namespace {

using core::NamedTensor;
using kernels::DimwiseLoop;

long long ll(int64_t v) { return static_cast<long long>(v); }

// A block of fp32 rows per task: with the rows it reads and writes it stays in a core's L2.
constexpr uint64_t kBlockBytes = 128 << 10;

uint64_t round64(uint64_t v) { return (v + 63) / 64 * 64; }

bool is_output(NqRole r) { return r >= kNqY1; }

const core::DtypeMask kFloating =
    core::dtype_bit(ACL_FLOAT) | core::dtype_bit(ACL_FLOAT16) | core::dtype_bit(ACL_BF16);

void check_dtype(const NamedTensor &t, core::DtypeMask ok, const char *what) {
  if (!core::dtype_in(t.t->dtype, ok))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s", t.name, core::dtype_name(t.t->dtype), what);
}

// A parameter along x's last dim (n values, or 1 when per_tensor may be): every other dim 1. Fills the
// operand's dtype and element step (0: one value).
void along_last(const NamedTensor &p, int64_t n, bool per_tensor, QuantOperand *op) {
  const aclTensor &t = *p.t;
  bool ok = true;
  for (int d = 0; d + 1 < t.ndim; ++d) ok = ok && t.dims[d] == 1;
  const int64_t last = t.ndim == 0 ? 1 : t.dims[t.ndim - 1];
  ok = ok && (last == n || (per_tensor && last == 1));
  if (!ok)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must hold %s along x's last dim (%lld), every other dim 1",
                p.name, core::shape_string(t).c_str(), per_tensor ? "1 or n values" : "n values", ll(n));
  op->dt = t.dtype;
  op->step = last == 1 && n != 1 ? 0 : (t.ndim == 0 ? 0 : t.strides[t.ndim - 1]);
}

// An operand addressed by x's rows (dims before the last): its dims and strides, the last dim padded
// for per-row outputs shaped like x without its last dim.
void rows_of(const aclTensor &x, const aclTensor &t, QuantOperand *op) {
  op->dt = t.dtype;
  op->nd = x.ndim;
  for (int d = 0; d < x.ndim; ++d) {
    op->dims[d] = x.dims[d];
    op->strides[d] = d < t.ndim ? t.strides[d] : 0;
  }
}

// Group norm's quantised output as rows (sample, group) of cg * hxw evenly spaced elements: dims
// [N, group, cg * hxw] with their strides.
void group_rows_of(const aclTensor &x, const NamedTensor &y, int64_t cg, int64_t group, QuantOperand *op) {
  const aclTensor &t = *y.t;
  const int nd = t.ndim;
  bool even = true;  // each spatial / channel dim nests in the one before it
  for (int d = nd - 1; d >= 2; --d) even = even && (t.dims[d] == 1 || t.strides[d - 1] == t.strides[d] * t.dims[d]);
  if (!even)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has strides %s: the elements of one group must be evenly spaced (e.g. "
                "contiguous)", y.name, core::shape_string(t.strides, nd).c_str());
  op->dt = t.dtype;
  op->nd = 3;
  op->dims[0] = x.dims[0];
  op->dims[1] = group;
  op->dims[2] = x.numel() / std::max<int64_t>(x.dims[0] * group, 1);
  op->strides[0] = t.strides[0];
  op->strides[1] = t.strides[1] * cg;
  op->strides[2] = t.strides[nd - 1];
}

// Per-row outputs: x's shape with the last dim 1, or (scales) without it.
void check_per_row(const aclTensor &x, const NamedTensor &t, bool may_drop_last) {
  core::Shape with_one = core::Shape::of(x), without = core::Shape::of(x);
  with_one.dims[x.ndim - 1] = 1;
  without.ndim = x.ndim - 1;
  const core::Shape s = core::Shape::of(*t.t);
  if (!(s == with_one) && !(may_drop_last && s == without))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s%s%s", t.name, core::shape_string(*t.t).c_str(),
                with_one.str().c_str(), may_drop_last ? " or " : "", may_drop_last ? without.str().c_str() : "");
  check_dtype(t, core::dtype_bit(ACL_FLOAT), "FLOAT");
  core::check_no_internal_overlap(*t.t, t.name);
}

}  // namespace

void norm_quant_phase1(core::OpBuilder &b, const NormQuantRule &rule, const NormQuantCall &c) {
  // The mode; with quantMode dynamic the scale inputs take the smooth scales' roles.
  bool dynamic = rule.mode == NormQuantMode::kDynamic;
  if (dynamic && c.given.quant_mode_name) {  // AdaLayerNormQuant: the dynamic mode only
    core::check_not_null(c.quant_mode_name, "quantMode");
    if (std::string(c.quant_mode_name) != "dynamic")
      throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode must be \"dynamic\" (the only mode of this op), got \"%s\"",
                  c.quant_mode_name);
  }
  if (rule.mode == NormQuantMode::kByAttr) {
    if (c.given.quant_mode_name) {
      core::check_not_null(c.quant_mode_name, "quantMode");
      const std::string m = c.quant_mode_name;
      if (m != "static" && m != "dynamic")
        throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode must be \"static\" or \"dynamic\", got \"%s\"", m.c_str());
      dynamic = m == "dynamic";
    } else {
      if (c.quant_mode != 0 && c.quant_mode != 1)
        throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode must be 0 (static) or 1 (dynamic), got %lld", ll(c.quant_mode));
      dynamic = c.quant_mode == 1;
    }
  }
  NamedTensor t[kNqRoles];
  std::copy(c.t, c.t + kNqRoles, t);
  NqRole order[kNqRoles];
  std::copy(c.order, c.order + c.norder, order);
  bool in_proto[kNqRoles] = {};
  for (int i = 0; i < c.norder; ++i) in_proto[order[i]] = true;
  if (dynamic && rule.mode == NormQuantMode::kByAttr) {
    for (int i = 0; i < c.norder; ++i) {
      if (order[i] == kNqScale1 || order[i] == kNqScale2) {
        const NqRole to = order[i] == kNqScale1 ? kNqSmooth1 : kNqSmooth2;
        t[to] = t[order[i]];
        t[order[i]] = NamedTensor{};
        in_proto[order[i]] = false;
        in_proto[to] = true;
        order[i] = to;
      }
    }
  }
  const bool divide = c.div_mode || rule.divides;
  const bool mx = rule.mode == NormQuantMode::kMx;

  // Which outputs are written: the first quantised output always (unless the mask says not), the second
  // with scales2 / smoothScale2 (or as the mask says), rstd when outputRstd.
  bool active[2] = {true, dynamic ? t[kNqSmooth2].t != nullptr : t[kNqScale2].t != nullptr};
  if (c.output_mask != nullptr) {
    if (c.output_mask->values.size() != 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask has %zu values; it must have 2 (y1Out, y2Out)",
                  c.output_mask->values.size());
    active[0] = c.output_mask->values[0];
    active[1] = c.output_mask->values[1];
  } else if (dynamic && in_proto[kNqSmooth2] && t[kNqSmooth2].t != nullptr && t[kNqSmooth1].t == nullptr) {
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given without %s", t[kNqSmooth2].name, t[kNqSmooth1].name);
  }
  bool written[kNqRoles] = {};
  written[kNqY1] = active[0];
  written[kNqY2] = active[1];
  written[kNqScaleOut1] = active[0] && dynamic;
  written[kNqScaleOut2] = active[1] && dynamic;
  written[kNqXsum] = c.additional_output;
  written[kNqNormOut] = written[kNqMean] = true;
  written[kNqOffsetOut] = false;  // reserved
  written[kNqRstd] = c.output_rstd;
  written[kNqMxScale] = mx;

  // Null checks in prototype order: names without "Optional" are required (outputs: when written).
  for (int i = 0; i < c.norder; ++i) {
    const NqRole r = order[i];
    const std::string name = t[r].name;
    const bool optional = name.size() > 8 && name.compare(name.size() - 8, 8, "Optional") == 0;
    // (scales1Optional: optional by name, needed by the static mode)
    const bool required = (!optional && (!is_output(r) || written[r]) && !(r == kNqScale2 || r == kNqOffset2)) ||
                          (r == kNqScale1 && !dynamic);
    // (the MX rows' beta: optional, as the docs and PyTorch binding say, though not named so)
    if (mx && r == kNqBeta && t[r].t == nullptr) continue;
    if (required && t[r].t == nullptr && r == kNqScale1 && optional)
      throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s must not be null when quantMode is static", t[r].name);
    if (!(required || (t[r].t != nullptr && (written[r] || !is_output(r))))) continue;
    // (yOut / mxscaleOut may hold the low-float dtypes check_tensor refuses: their dtype and format are checked
    // with the outputs)
    if (r == kNqY1 || r == kNqMxScale) core::check_not_null(t[r].t, t[r].name);
    else core::check_tensor(t[r].t, t[r].name);
  }
  if (!in_proto[kNqY2]) active[1] = false;
  for (int k = 0; k < 2; ++k) {
    const NqRole yr = k == 0 ? kNqY1 : kNqY2;
    if (!in_proto[yr] || t[yr].t == nullptr) {
      if (active[k] && in_proto[yr]) core::check_tensor(t[yr].t, t[yr].name);
      active[k] = false;
    }
  }
  // The dynamic rows' destination: INT8, or (dstType 35 / 36) FLOAT8 with max|in| / FP8_MAX scales.
  aclDataType y_dtype = ACL_INT8;
  if (!mx && c.given.dst_type && c.dst_type != 2) {
    if (c.dst_type == 34)
      throw_error(ACLNN_ERR_PARAM_INVALID, "dstType 34 (HIFLOAT8) is not supported (OpsNN has no HIFLOAT8 codec); 2 "
                  "(INT8), 35 (FLOAT8_E5M2) and 36 (FLOAT8_E4M3FN) are");
    if (c.dst_type != 35 && c.dst_type != 36)
      throw_error(ACLNN_ERR_PARAM_INVALID, "dstType must be 2 (INT8), 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN), got %lld",
                  ll(c.dst_type));
    y_dtype = static_cast<aclDataType>(c.dst_type);
  }
  const std::string y_want = std::string(core::dtype_name(y_dtype)) + " (dstType " +
                             std::to_string(y_dtype == ACL_INT8 ? 2 : static_cast<int>(y_dtype)) + ")";

  // x (and x2): the rows along the last dim.
  const aclTensor &x = *t[kNqX].t;
  core::check_dtype_in(&x, t[kNqX].name, rule.dtypes);
  const bool grouped = rule.norm == NormQuantNorm::kGroup;
  if (x.ndim < (grouped ? 2 : 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least %s, got shape %s", t[kNqX].name,
                grouped ? "2 dims [N, C, ...]" : "1 dim (rows along the last)", core::shape_string(x).c_str());
  const core::Shape xs = core::Shape::of(x);
  const int nd = x.ndim;
  MxLastDim mx_settings;
  if (mx) mx_settings = mx_last_dim_settings(c.dst_type, c.scale_alg, c.round_mode, t[kNqX]);
  // Rows: along the last dim; group norm: (sample, group) with cg channels x hxw positions each.
  int64_t n = x.dims[nd - 1], rows = 0, outer = 1, chans = 0, cg = 1, hxw = 1;
  if (grouped) {
    chans = x.dims[1];
    for (int d = 2; d < nd; ++d) hxw *= x.dims[d];
    if (c.group <= 0 || chans % c.group != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "group = %lld must be positive and divide C = %lld", ll(c.group),
                  ll(chans));
    cg = chans / c.group;
    n = cg * hxw;
    outer = x.dims[0] * c.group;
  } else {
    for (int d = 0; d + 1 < nd; ++d) outer *= x.dims[d];
  }
  rows = n == 0 ? 0 : outer;
  if (n == 0 && outer > 0 && nd > 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has empty rows (shape %s): their statistics are undefined",
                t[kNqX].name, core::shape_string(x).c_str());
  if (c.given.axis && c.axis != -1 && c.axis != nd - 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "axis %lld is not supported: the quantisation parameters run along the last "
                "dim (-1 or %d)", ll(c.axis), nd - 1);
  auto same_as_x = [&](NqRole r) {
    if (t[r].t->dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", t[r].name,
                  core::dtype_name(t[r].t->dtype), t[kNqX].name, core::dtype_name(x.dtype));
    core::check_shape_equals(*t[r].t, t[r].name, xs);
  };
  if (in_proto[kNqX2]) same_as_x(kNqX2);

  auto step = std::make_unique<NormQuantStep>();
  NormQuantStep &st = *step;
  st.rows = rows;
  st.n = n;
  st.groups = grouped ? c.group : 1;
  st.cg = cg;
  st.hxw = hxw;
  st.dynamic = dynamic;
  if (y_dtype != ACL_INT8) {
    st.fp8 = true;
    kernels::low_float_of(y_dtype, &st.fp8_fmt);
    st.qmax = kernels::low_float_spec(st.fp8_fmt).max;
  }
  st.divide = divide;
  const bool beta_after = rule.norm_out_before_beta && t[kNqBeta].t != nullptr;
  QuantOperand gamma_op, beta_op, bias_op;
  // Group norm's parameters: 1-D, C values (or 1 where per_tensor may be); else along the last dim.
  auto param_shape = [&](const NamedTensor &p, bool per_tensor, QuantOperand *op) {
    if (!grouped) return along_last(p, n, per_tensor, op);
    const aclTensor &u = *p.t;
    if (u.ndim != 1 || (u.dims[0] != chans && !(per_tensor && u.dims[0] == 1)))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [C] = [%lld]%s", p.name,
                  core::shape_string(u).c_str(), ll(chans), per_tensor ? " or [1]" : "");
    op->dt = u.dtype;
    op->step = u.dims[0] == 1 && chans != 1 ? 0 : u.strides[0];
  };
  auto floating_param = [&](NqRole r, QuantOperand *op) {
    if (t[r].t->dtype != x.dtype && t[r].t->dtype != ACL_FLOAT)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s's dtype %s or FLOAT", t[r].name,
                  core::dtype_name(t[r].t->dtype), t[kNqX].name, core::dtype_name(x.dtype));
    param_shape(t[r], false, op);
  };
  if (t[kNqGamma].t != nullptr) floating_param(kNqGamma, &gamma_op);
  if (t[kNqBeta].t != nullptr) floating_param(kNqBeta, beta_after ? &st.param[NormQuantStep::kBeta] : &beta_op);
  const core::DtypeMask offset_dtypes = kFloating | core::dtype_bit(ACL_INT8) | core::dtype_bit(ACL_INT32);
  if (t[kNqBias].t != nullptr) floating_param(kNqBias, &bias_op);
  if (!dynamic) {
    for (int k = 0; k < 2; ++k) {
      const NqRole sr = k == 0 ? kNqScale1 : kNqScale2, orr = k == 0 ? kNqOffset1 : kNqOffset2;
      if (t[sr].t != nullptr) {
        check_dtype(t[sr], kFloating, "FLOAT, FLOAT16 or BF16");
        const int pi = k == 0 ? NormQuantStep::kScale1 : NormQuantStep::kScale2;
        param_shape(t[sr], true, &st.param[pi]);
        st.per_channel[pi] = grouped && st.param[pi].step != 0;
      }
      if (t[orr].t != nullptr) {
        if (t[sr].t == nullptr)
          throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given without %s", t[orr].name, t[sr].name);
        check_dtype(t[orr], offset_dtypes, "FLOAT, FLOAT16, BF16, INT8 or INT32");
        along_last(t[orr], n, true, &st.param[k == 0 ? NormQuantStep::kOffset1 : NormQuantStep::kOffset2]);
      }
    }
  } else {
    for (int k = 0; k < 2; ++k) {
      const NqRole r = k == 0 ? kNqSmooth1 : kNqSmooth2;
      if (t[r].t == nullptr) continue;
      check_dtype(t[r], kFloating, "FLOAT, FLOAT16 or BF16");
      along_last(t[r], n, false, &st.param[k == 0 ? NormQuantStep::kSmooth1 : NormQuantStep::kSmooth2]);
    }
  }

  // Outputs.
  for (int k = 0; k < 2; ++k) {
    const NqRole yr = k == 0 ? kNqY1 : kNqY2, sr = k == 0 ? kNqScaleOut1 : kNqScaleOut2;
    if (!active[k]) continue;
    if (mx) {
      check_mx_last_dim_outputs(t[kNqX], c.dst_type, t[yr], t[kNqMxScale]);
      continue;
    }
    check_dtype(t[yr], core::dtype_bit(y_dtype), c.given.dst_type ? y_want.c_str() : "INT8");
    core::check_dtype_in(t[yr].t, t[yr].name, {y_dtype});  // (its format)
    core::check_shape_equals(*t[yr].t, t[yr].name, xs);
    core::check_no_internal_overlap(*t[yr].t, t[yr].name);
    if (grouped) group_rows_of(x, t[yr], cg, c.group, &st.y[k]);
    else rows_of(x, *t[yr].t, &st.y[k]);
    if (dynamic) {
      core::check_tensor(t[sr].t, t[sr].name);
      check_per_row(x, t[sr], true);
      rows_of(x, *t[sr].t, &st.scale_out[k]);
    }
  }
  for (NqRole r : {kNqXsum, kNqNormOut}) {
    if (t[r].t == nullptr || !written[r]) continue;
    same_as_x(r);
    core::check_no_internal_overlap(*t[r].t, t[r].name);
  }
  if (grouped) {
    for (NqRole r : {kNqMean, kNqRstd}) {
      if (t[r].t == nullptr) continue;
      core::Shape stats;
      stats.ndim = 2;
      stats.dims[0] = x.dims[0];
      stats.dims[1] = c.group;
      core::check_shape_equals(*t[r].t, t[r].name, stats);
      if (t[r].t->dtype != x.dtype && t[r].t->dtype != ACL_FLOAT)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s's dtype %s or FLOAT", t[r].name,
                    core::dtype_name(t[r].t->dtype), t[kNqX].name, core::dtype_name(x.dtype));
      core::check_no_internal_overlap(*t[r].t, t[r].name);
    }
  } else if (t[kNqRstd].t != nullptr && written[kNqRstd]) {
    check_per_row(x, t[kNqRstd], false);
  }
  core::check_outputs_apart<NamedTensor>(
      {&t[kNqY1], &t[kNqY2], &t[kNqXsum], &t[kNqMean], &t[kNqRstd], &t[kNqNormOut], &t[kNqScaleOut1], &t[kNqScaleOut2],
       &t[kNqMxScale]},
      {&t[kNqX], &t[kNqX2], &t[kNqGamma], &t[kNqBeta], &t[kNqBias], &t[kNqScale1], &t[kNqScale2], &t[kNqOffset1], &t[kNqOffset2],
       &t[kNqSmooth1], &t[kNqSmooth2], &t[kNqModScale], &t[kNqModShift], &t[kNqY1], &t[kNqY2], &t[kNqXsum], &t[kNqMean], &t[kNqRstd],
       &t[kNqNormOut], &t[kNqScaleOut1], &t[kNqScaleOut2], &t[kNqMxScale]});

  // Registration in prototype order.
  core::OperandRef ref[kNqRoles];
  for (int i = 0; i < c.norder; ++i) {
    const NqRole r = order[i];
    if (t[r].t == nullptr) continue;
    const int slot = is_output(r) ? b.output(t[r].t) : b.input(t[r].t);
    ref[r] = mx && r == kNqY1 ? mx_operand_ref(b, slot, t[r]) : core::OperandRef::of_slot(slot, *t[r].t);
  }
  auto set_ref = [&](QuantOperand &op, NqRole r) {
    op.present = true;
    op.ref = ref[r];
  };
  const NqRole param_role[NormQuantStep::kParams] = {kNqBeta, kNqScale1, kNqScale2, kNqOffset1, kNqOffset2,
                                                     kNqSmooth1, kNqSmooth2};
  for (int i = 0; i < NormQuantStep::kParams; ++i)
    if (st.param[i].dt != ACL_DT_UNDEFINED) set_ref(st.param[i], param_role[i]);
  for (int k = 0; k < 2; ++k) {
    st.active[k] = active[k];
    if (!active[k]) continue;
    set_ref(st.y[k], k == 0 ? kNqY1 : kNqY2);
    if (dynamic) set_ref(st.scale_out[k], k == 0 ? kNqScaleOut1 : kNqScaleOut2);
  }

  // The norm: the dim-wise engine's kNormalize lines over x's rows (outer dims: all but the last).
  DimwiseLoop &L = st.loop;
  L.op = kernels::DimwiseOp::kNormalize;
  L.compute = core::ComputeType::kFloat;
  L.params.eps = c.eps;
  L.params.rms = rule.norm == NormQuantNorm::kRms;
  L.params.add_input = in_proto[kNqX2];
  L.params.silu = grouped && c.activate;
  // Outer dims: x's all but the last (group norm: N and the groups); line: the last (group norm: the
  // group's channels, then the spatial dims).
  L.nouter = grouped ? 2 : nd - 1;
  L.nline = grouped ? nd - 1 : 1;
  if (L.nouter > kernels::kMaxLoopDims || L.nline > kernels::kMaxLoopDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has too many dims (%d)", t[kNqX].name, nd);
  if (grouped) {
    L.outer_shape[0] = x.dims[0];
    L.outer_shape[1] = c.group;
    L.line_shape[0] = cg;
    for (int d = 2; d < nd; ++d) L.line_shape[d - 1] = x.dims[d];
  } else {
    for (int d = 0; d < L.nouter; ++d) L.outer_shape[d] = x.dims[d];
    L.line_shape[0] = n;
  }
  auto esize = [](const aclTensor &u) { return static_cast<int64_t>(core::dtype_size(u.dtype)); };
  L.nin = 0;
  // An operand shaped like x, or a parameter (element step along the last dim / the channels).
  auto add_in = [&](NqRole r, bool param, int64_t step) {
    const int k = L.nin++;
    const aclTensor &u = *t[r].t;
    const int64_t es = esize(u);
    st.in[k] = ref[r];
    L.in_dtype[k] = u.dtype;
    if (grouped) {
      L.in_outer[k][0] = param ? 0 : u.strides[0] * es;
      L.in_outer[k][1] = (param ? step : u.strides[1]) * cg * es;
      L.in_line[k][0] = (param ? step : u.strides[1]) * es;
      for (int d = 2; d < nd; ++d) L.in_line[k][d - 1] = param ? 0 : u.strides[d] * es;
    } else {
      for (int d = 0; d < L.nouter; ++d) L.in_outer[k][d] = param ? 0 : u.strides[d] * es;
      L.in_line[k][0] = (param ? step : u.strides[nd - 1]) * es;
    }
    return k;
  };
  add_in(kNqX, false, 0);
  if (in_proto[kNqX2]) add_in(kNqX2, false, 0);
  if (t[kNqGamma].t != nullptr) L.params.gamma_in = add_in(kNqGamma, true, gamma_op.step);
  if (t[kNqBeta].t != nullptr && !beta_after) L.params.beta_in = add_in(kNqBeta, true, beta_op.step);
  if (t[kNqBias].t != nullptr) L.params.bias_in = add_in(kNqBias, true, bias_op.step);
  // AdaLayerNormQuant's modulation: [B..., H] or [B..., 1, H] for x [B..., S, H], the same along S.
  auto modulation = [&](NqRole r) {
    const aclTensor &u = *t[r].t;
    if (u.dtype != x.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", t[r].name,
                  core::dtype_name(u.dtype), t[kNqX].name, core::dtype_name(x.dtype));
    bool ok = nd >= 2 && (u.ndim == nd - 1 || u.ndim == nd) && u.dims[u.ndim - 1] == n;
    for (int d = 0; ok && d < nd - 2; ++d) ok = u.dims[d] == x.dims[d];
    if (ok && u.ndim == nd) ok = u.dims[nd - 2] == 1;
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; for %s of shape %s it must be [B..., H] or [B..., 1, H]",
                  t[r].name, core::shape_string(u).c_str(), t[kNqX].name, core::shape_string(x).c_str());
    const int k = L.nin++;
    st.in[k] = ref[r];
    L.in_dtype[k] = u.dtype;
    for (int d = 0; d < nd - 2; ++d) L.in_outer[k][d] = u.strides[d] * esize(u);
    L.in_outer[k][nd - 2] = 0;  // S
    L.in_line[k][0] = u.strides[u.ndim - 1] * esize(u);
    return k;
  };
  if (in_proto[kNqModScale]) L.params.scale_in = modulation(kNqModScale);
  if (in_proto[kNqModShift]) L.params.shift_in = modulation(kNqModShift);
  // Outputs: 0 the block (fp32 rows, contiguous), then rmsNormOut, rstd, xOut as given.
  L.nout = 1;
  L.out_dtype[0] = ACL_FLOAT;
  L.out_src[0] = 0;
  L.out_len[0] = n;
  for (int64_t d = L.nline - 1, inner = 4; d >= 0; inner *= L.line_shape[d], --d) L.out_line[0][d] = inner;
  for (int64_t d = L.nouter - 1, inner = n * 4; d >= 0; inner *= L.outer_shape[d], --d) L.out_outer[0][d] = inner;
  auto add_out = [&](NqRole r, int src, bool per_row) {
    const int k = L.nout++;
    const aclTensor &u = *t[r].t;
    st.out[k] = ref[r];
    L.out_dtype[k] = u.dtype;
    L.out_src[k] = src;
    L.out_len[k] = per_row ? 1 : n;
    for (int d = 0; d < L.nouter; ++d) L.out_outer[k][d] = u.strides[d] * esize(u);
    L.out_line[k][0] = per_row ? 0 : u.strides[nd - 1] * esize(u);
  };
  if (grouped) {  // meanOut / rstdOut [N, group]
    for (NqRole r : {kNqMean, kNqRstd})
      if (t[r].t != nullptr) add_out(r, r == kNqMean ? 1 : 2, true);
  }
  if (t[kNqNormOut].t != nullptr) add_out(kNqNormOut, 0, false);
  if (!grouped && t[kNqRstd].t != nullptr && written[kNqRstd]) add_out(kNqRstd, 2, true);
  if (t[kNqXsum].t != nullptr && written[kNqXsum]) add_out(kNqXsum, 3, false);
  kernels::finish_dimwise_plan(L, 1);

  // Kernels: the dim-wise tier, the per-token quant tier (dynamic), the task split and block size.
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = kernels::choose_dimwise_tier(L, traced ? &trace : nullptr);
  L.stream_out = false;  // the block is read back at once: no non-temporal stores
  const char *qtier = kernels::choose_quant_token_tier(&st.token, traced ? &trace : nullptr);
  if (!dynamic) qtier = "static_rows";
  if (mx && active[0]) {
    NormQuantStep::Mx &m = st.mx;
    m.on = true;
    qtier = kernels::choose_mx_row_tier(&m.rows, traced ? &trace : nullptr);
    m.fmt = mx_settings.fmt;
    m.round = mx_settings.round;
    m.rule = mx_settings.rule;
    m.y = ref[kNqY1];
    m.scale = ref[kNqMxScale];
    m.y_row = kernels::low_float_spec(m.fmt).bits == 4 ? n / 2 : n;
    m.scale_row = ((n + 31) / 32 + 1) / 2 * 2;
  }
  // Staging: FLOAT16 / BF16 rows of x (and x2) unit-stride along the last dim go through the token tier's
  // vector conversion into fp32 rows (the engine's gather converts element by element: 44 % of
  // AddRmsNormDynamicQuant's time, docs/PERFORMANCE.md); other layouts are gathered by the engine.
  const char *stage = "engine_gather";
  const bool half = x.dtype == ACL_FLOAT16 || x.dtype == ACL_BF16;
  const bool unit = x.strides[nd - 1] == 1 && (!in_proto[kNqX2] || t[kNqX2].t->strides[nd - 1] == 1);
  if (half && unit && !grouped) {
    stage = "vector_rows";
    for (NqRole r : {kNqX, kNqX2}) {
      if (r == kNqX2 && !in_proto[kNqX2]) continue;
      const int k = st.nstaged++;
      rows_of(x, *t[r].t, &st.staged_src[k]);
      st.staged_src[k].present = true;
      st.staged_src[k].ref = ref[r];
      L.in_dtype[k] = ACL_FLOAT;
      for (int64_t d = L.nouter - 1, inner = n * 4; d >= 0; inner *= L.outer_shape[d], --d) L.in_outer[k][d] = inner;
      L.in_line[k][0] = 4;
    }
  } else if (traced) {
    trace.add("vector_rows", !half ? "x is not FLOAT16 / BF16" : grouped ? "group norm lines" : "x not unit-stride");
  }
  st.tasks = std::max<int64_t>(1, std::min<int64_t>(rows, core::num_threads()));
  const int64_t per_task = (rows + st.tasks - 1) / std::max<int64_t>(st.tasks, 1);
  st.block_rows = std::max<int64_t>(1, std::min<int64_t>(per_task, static_cast<int64_t>(kBlockBytes) / std::max<int64_t>(n * 4, 1)));
  if (traced)
    core::record_choice(std::string("norm_quant:dimwise/") + tier + "/stage/" + stage + "/quant/" + qtier + "/tasks=" +
                            std::to_string(st.tasks) + "/block_rows=" + std::to_string(st.block_rows),
                        &trace);
  if (rows == 0) return;
  const uint64_t nb = static_cast<uint64_t>(n) * 4;
  st.block_offset = round64(L.scratch_bytes_per_task);
  st.row_offset = st.block_offset + round64(static_cast<uint64_t>(st.block_rows) * nb);
  st.q_offset = st.row_offset + round64(nb);
  st.line_offset = st.q_offset + round64(nb);
  st.stage_offset[0] = st.line_offset + round64(grouped ? nb : 0);
  st.stage_offset[1] = st.stage_offset[0] + round64(st.nstaged > 0 ? static_cast<uint64_t>(st.block_rows) * nb : 0);
  st.task_bytes = st.stage_offset[1] + round64(st.nstaged > 1 ? static_cast<uint64_t>(st.block_rows) * nb : 0);
  st.param_len = std::max(n, chans);
  st.params_ws = b.book("norm_quant.params", NormQuantStep::kParams * static_cast<uint64_t>(st.param_len) * 4);
  st.tasks_ws = b.book("norm_quant.blocks", static_cast<uint64_t>(st.tasks) * st.task_bytes);
  b.add_step<NormQuantStep>(std::move(st));
}

}  // namespace opsnn::ops

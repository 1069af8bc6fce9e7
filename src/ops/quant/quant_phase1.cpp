#include "ops/quant/quant_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/outputs_apart.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/quant/mx_quant.h"
#include "ops/quant/quant_step.h"

namespace opsnn::ops {
namespace {

using core::NamedTensor;
using core::Shape;
using kernels::QuantRound;

long long ll(int64_t v) { return static_cast<long long>(v); }

// dstType -> the integer destination (2 INT8, 3 INT32 of eight INT4, 29 INT4).
aclDataType int_dst(int64_t dst, const char *name) {
  if (dst == 2) return ACL_INT8;
  if (dst == 3) return ACL_INT32;
  if (dst == 29) return ACL_INT4;
  if (dst == 34 || dst == 35 || dst == 36)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %lld (%s) is not supported yet; 2 (INT8), 3 (INT32) and 29 (INT4) are",
                name, ll(dst), dst == 34 ? "HIFLOAT8" : dst == 35 ? "FLOAT8_E5M2" : "FLOAT8_E4M3FN");
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 2 (INT8), 3 (INT32) or 29 (INT4), got %lld", name, ll(dst));
}

QuantRound round_of(const char *mode, const char *name) {
  if (std::strcmp(mode, "round") == 0) return QuantRound::kHalfEven;
  if (std::strcmp(mode, "floor") == 0) return QuantRound::kFloor;
  if (std::strcmp(mode, "ceil") == 0) return QuantRound::kCeil;
  if (std::strcmp(mode, "trunc") == 0) return QuantRound::kTrunc;
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be \"round\", \"floor\", \"ceil\" or \"trunc\", got \"%s\"", name, mode);
}

void require(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void require(bool ok, const char *fmt, ...) {
  if (ok) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  throw_error(ACLNN_ERR_PARAM_INVALID, "%s", msg);
}

std::string shape_of(const aclTensor *t) { return core::shape_string(*t); }

// Registers t (input or output) into op; INT4 views start at a byte.
void reg(core::OpBuilder &b, const NamedTensor &nt, bool out, QuantOperand *op) {
  if (nt.t == nullptr) return;
  const int slot = out ? b.output(nt.t) : b.input(nt.t);
  if (slot < 0) return;
  const aclTensor &v = b.tensor(slot);
  op->present = true;
  op->ref = core::OperandRef::of_slot(slot, v);
  if (v.dtype == ACL_INT4) op->ref.offset_bytes = v.offset / 2;
  op->dt = v.dtype;
  op->nd = v.ndim;
  for (int d = 0; d < v.ndim; ++d) {
    op->dims[d] = v.dims[d];
    op->strides[d] = v.strides[d];
  }
  if (v.ndim == 0) {  // a 0-d tensor: one row of one element
    op->nd = 1;
    op->dims[0] = 1;
    op->strides[0] = 1;
  }
}

// A packed (INT4 / INT32-of-INT4) tensor must be contiguous from a byte.
void require_packed_layout(const NamedTensor &t) {
  require(t.t->is_contiguous() && (t.t->dtype != ACL_INT4 || t.t->offset % 2 == 0),
          "%s (%s, packed INT4) must be contiguous and start at a byte", t.name, core::dtype_name(t.t->dtype));
}

// The logical shape of x's quantised result y: x's, the last dim / 8 for INT32 (eight INT4 a word).
Shape packed_shape(const Shape &logical, aclDataType dt) {
  Shape s = logical;
  if (dt == ACL_INT32 && s.ndim > 0) s.dims[s.ndim - 1] /= 8;
  return s;
}

void check_int_y(const NamedTensor &x, const NamedTensor &y, aclDataType dst, const char *dst_name) {
  core::check_dtype_in(y.t, y.name, {ACL_INT8, ACL_INT4, ACL_INT32});
  require(y.t->dtype == dst, "%s has dtype %s; %s asks for %s", y.name, core::dtype_name(y.t->dtype), dst_name,
          core::dtype_name(dst));
  const Shape xs = Shape::of(*x.t);
  const int64_t last = xs.ndim > 0 ? xs.dims[xs.ndim - 1] : 1;
  if (dst == ACL_INT32) require(last % 8 == 0, "%s's last dim %lld must be a multiple of 8 for INT32 (eight INT4) output", x.name, ll(last));
  if (dst == ACL_INT4) require(last % 2 == 0, "%s's last dim %lld must be even for INT4 output", x.name, ll(last));
  core::check_shape_equals(*y.t, y.name, packed_shape(xs, dst));
  if (dst != ACL_INT8) require_packed_layout(y);
  core::check_no_internal_overlap(*y.t, y.name);
}

bool is_fp8_dst(int64_t dst) { return dst == ACL_FLOAT8_E5M2 || dst == ACL_FLOAT8_E4M3FN; }

void refuse_hifloat8(int64_t dst) {
  require(dst != 34, "dstType 34 (HIFLOAT8) is not supported (OpsNN has no HIFLOAT8 codec)");
}

// A FLOAT8 destination (dstType 35 / 36): y of that dtype and x's shape (any strides); the step's codec and
// qmax (the format's largest value).
void plan_fp8_y(const NamedTensor &x, const NamedTensor &y, aclDataType dst, QuantStep &st) {
  require(y.t->dtype == dst, "%s has dtype %s; dstType asks for %s", y.name, core::dtype_name(y.t->dtype),
          core::dtype_name(dst));
  core::check_shape_equals(*y.t, y.name, Shape::of(*x.t));
  core::check_no_internal_overlap(*y.t, y.name);
  kernels::low_float_of(dst, &st.y_fmt);
  st.y_fp8 = true;
  st.qmax = kernels::low_float_spec(st.y_fmt).max;
}

// A parameter along `axis` of x: 1-D of 1 or x.shape[axis], or x's rank with 1 but (1 or x.shape[axis])
// at axis. Sets op->step (0: one value). Returns the number of values.
int64_t check_param(const NamedTensor &p, const aclTensor &x, int axis, QuantOperand *op) {
  const int64_t want = x.ndim == 0 ? 1 : x.dims[axis];
  int64_t count = -1, stride = 0;
  if (p.t->ndim <= 1) {
    count = p.t->ndim == 0 ? 1 : p.t->dims[0];
    stride = p.t->ndim == 0 ? 0 : p.t->strides[0];
  } else if (p.t->ndim == x.ndim) {
    bool ok = true;
    for (int d = 0; d < x.ndim; ++d)
      if (d != axis && p.t->dims[d] != 1) ok = false;
    if (ok) {
      count = p.t->dims[axis];
      stride = p.t->strides[axis];
    }
  }
  require(count == 1 || (count == want && count >= 0),
          "%s has shape %s; expected (1,) or (%lld,) (x's dim %d), or x's rank with 1 in every other dim", p.name,
          shape_of(p.t).c_str(), ll(want), axis);
  op->step = count == 1 ? 0 : stride;
  return count;
}

// x as rows along its last dim (n: the logical last dim; a 0-d x is one row of one).
void plan_rows(QuantStep &st, const aclTensor &x, int64_t n) {
  st.n = n;
  st.rows = 1;
  for (int d = 0; d + 1 < x.ndim; ++d) st.rows *= x.dims[d];
}

// The row coordinate along axis (< last): (r / inner) % dims[axis].
void plan_row_axis(QuantStep &st, const aclTensor &x, int axis) {
  st.along = QuantAlong::kRowAxis;
  st.axis_inner = 1;
  for (int d = axis + 1; d + 1 < x.ndim; ++d) st.axis_inner *= x.dims[d];
  st.axis_size = x.dims[axis];
}

void book(core::OpBuilder &b, QuantStep &st) {
  // (DequantSwigluQuant: x's two halves, the quant rows and the weight scale / bias rows: 9 rows of n)
  const uint64_t rows_of_n = st.kind == QuantKind::kDequantSwiGluQuant ? 9 : 7;
  uint64_t floats = static_cast<uint64_t>(st.tasks * std::max<int64_t>(st.n, 1)) * rows_of_n;
  if (st.kind == QuantKind::kFlatQuant)  // per task one row of integers (run_flat; its GEMM scratch: flat_quant)
    floats = static_cast<uint64_t>(st.tasks * std::max<int64_t>(st.n, 1));
  st.ws = b.book("quant.rows", floats * sizeof(float));
}

// The per-token kernels' tier (st.token, st.token_fast) when `rows_ok` (the operands they read and write are
// contiguous along the last dim; else `why_not` is traced), recorded as "quant:<what>/<tier>/tasks=N".
void plan_token_tier(QuantStep &st, bool rows_ok, const char *why_not, const char *what) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const char *tier = "generic";
  if (rows_ok)
    tier = kernels::choose_quant_token_tier(&st.token, traced ? &trace : nullptr);
  else if (traced)
    trace.add("token", why_not);
  st.token_fast = rows_ok;
  if (traced)
    core::record_choice(std::string("quant:") + what + "/" + tier + "/tasks=" + std::to_string(st.tasks), &trace);
}

// Per-token DynamicQuant: row blocks over the pool, and the tier's kernels when x (and the smooth
// rows) are contiguous along the last dim.
void plan_token(QuantStep &st, const QuantCall &c) {
  st.tasks = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), st.rows));
  const bool x_rows = c.x.t->strides[c.x.t->ndim - 1] == 1 || st.n <= 1;
  const bool s_rows = c.smooth.t == nullptr || c.smooth.t->strides[c.smooth.t->ndim - 1] == 1 || st.n <= 1;
  plan_token_tier(st, x_rows && s_rows, "x or smoothScalesOptional not contiguous along the last dim", "dynamic");
}

// ---- the kinds

void ascend_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const core::DtypeMask floating = core::dtype_bit(ACL_FLOAT) | core::dtype_bit(ACL_FLOAT16) | core::dtype_bit(ACL_BF16);
  core::check_dtype_in(c.scale.t, c.scale.name, x.dtype == ACL_FLOAT ? floating : core::dtype_bit(x.dtype));
  if (c.offset.t != nullptr) core::check_dtype_in(c.offset.t, c.offset.name, {c.scale.t->dtype});
  require(x.ndim >= 1 && x.ndim <= 8, "%s must have 1 to 8 dims, got %s", c.x.name, shape_of(c.x.t).c_str());
  const int axis = core::wrap_dim(c.axis, x.ndim, "axis");
  require(axis >= x.ndim - 2, "axis %lld must be one of %s's last two dims", ll(c.axis), c.x.name);
  st.round = round_of(c.round_mode, "roundMode");
  const aclDataType dst = int_dst(c.dst_type, "dstType");
  check_int_y(c.x, c.y, dst, "dstType");
  check_param(c.scale, x, axis, &st.scale);
  if (c.offset.t != nullptr) check_param(c.offset, x, axis, &st.offset);
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.x, &c.scale, &c.offset, &c.y});
  st.sqrt_mode = c.sqrt_mode;
  st.lo = dst == ACL_INT8 ? -128 : -8;
  st.hi = dst == ACL_INT8 ? 127 : 7;
  st.y_packed = dst != ACL_INT8;
  plan_rows(st, x, x.dims[x.ndim - 1]);
  if (axis == x.ndim - 1)
    st.along = QuantAlong::kLast;
  else
    plan_row_axis(st, x, axis);
}

void anti_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, {ACL_INT8, ACL_INT4, ACL_INT32});
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT, ACL_BF16});
  if (c.offset.t != nullptr) core::check_dtype_in(c.offset.t, c.offset.name, {c.scale.t->dtype});
  require(c.dst_type == 1 || c.dst_type == 27, "dstType must be 1 (FLOAT16) or 27 (BF16), got %lld", ll(c.dst_type));
  const aclDataType dst = c.dst_type == 1 ? ACL_FLOAT16 : ACL_BF16;
  core::check_dtype_in(c.y.t, c.y.name, {dst});
  require(x.ndim >= 1 && x.ndim <= 8, "%s must have 1 to 8 dims, got %s", c.x.name, shape_of(c.x.t).c_str());
  Shape ys = Shape::of(x);
  if (x.dtype == ACL_INT32) ys.dims[ys.ndim - 1] *= 8;
  const int64_t n = ys.dims[ys.ndim - 1];
  core::check_shape_equals(*c.y.t, c.y.name, ys);
  if (x.dtype != ACL_INT8) require_packed_layout(c.x);
  for (const NamedTensor *p : {&c.scale, &c.offset}) {
    if (p->t == nullptr) continue;
    require(p->t->ndim == 1 && (p->t->dims[0] == 1 || p->t->dims[0] == n),
            "%s has shape %s; expected (1,) or (%lld,) (x's last dim%s)", p->name, shape_of(p->t).c_str(), ll(n),
            x.dtype == ACL_INT32 ? " times 8" : "");
  }
  if (c.offset.t != nullptr)
    require(c.offset.t->dims[0] == c.scale.t->dims[0], "%s has shape %s; it must have %s's shape %s", c.offset.name,
            shape_of(c.offset.t).c_str(), c.scale.name, shape_of(c.scale.t).c_str());
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.x, &c.scale, &c.offset, &c.y});
  st.sqrt_mode = c.sqrt_mode;
  st.x_packed = x.dtype != ACL_INT8;
  st.scale.step = c.scale.t->dims[0] == 1 ? 0 : c.scale.t->strides[0];
  if (c.offset.t != nullptr) st.offset.step = c.offset.t->dims[0] == 1 ? 0 : c.offset.t->strides[0];
  plan_rows(st, x, n);
  st.along = QuantAlong::kLast;
  (void)rule;
  (void)b;
}

void quantize(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT});
  if (c.offset.t != nullptr) core::check_dtype_in(c.offset.t, c.offset.name, {ACL_INT8, ACL_UINT8, ACL_INT32, ACL_FLOAT});
  require(c.dst_dtype == ACL_INT8 || c.dst_dtype == ACL_UINT8 || c.dst_dtype == ACL_INT32,
          "dtype must be INT8, UINT8 or INT32, got %s", core::dtype_name(c.dst_dtype));
  core::check_dtype_in(c.y.t, c.y.name, {c.dst_dtype});
  const int axis = core::wrap_dim(c.axis, std::max(x.ndim, 1), "axis");
  core::check_shape_equals(*c.y.t, c.y.name, Shape::of(x));
  const aclTensor &xv = x;
  const int64_t ns = check_param(c.scale, xv, x.ndim == 0 ? 0 : axis, &st.scale);
  if (c.offset.t != nullptr) {
    const int64_t no = check_param(c.offset, xv, x.ndim == 0 ? 0 : axis, &st.offset);
    require(no == ns, "%s has %lld values and %s %lld; they must match", c.offset.name, ll(no), c.scale.name, ll(ns));
  }
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.x, &c.scale, &c.offset, &c.y});
  st.lo = c.dst_dtype == ACL_INT8 ? -128 : c.dst_dtype == ACL_UINT8 ? 0 : INT32_MIN;
  st.hi = c.dst_dtype == ACL_INT8 ? 127 : c.dst_dtype == ACL_UINT8 ? 255 : INT32_MAX;
  plan_rows(st, x, x.ndim == 0 ? 1 : x.dims[x.ndim - 1]);
  if (ns == 1)
    st.along = QuantAlong::kOne;
  else if (axis == x.ndim - 1)
    st.along = QuantAlong::kLast;
  else
    plan_row_axis(st, x, axis);
  (void)b;
}

void dynamic(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  require(x.ndim >= 2 && x.ndim <= 8, "%s must have 2 to 8 dims, got %s", c.x.name, shape_of(c.x.t).c_str());
  const int64_t n = x.dims[x.ndim - 1];
  if (c.smooth.t != nullptr) core::check_dtype_in(c.smooth.t, c.smooth.name, {x.dtype});
  if (c.group.t != nullptr) {
    core::check_dtype_in(c.group.t, c.group.name, {ACL_INT32, ACL_INT64});
    require(c.smooth.t != nullptr, "%s needs smoothScalesOptional (it picks its rows)", c.group.name);
    require(c.group.t->ndim == 1 && c.group.t->dims[0] >= 1, "%s must be 1-D and not empty, got %s", c.group.name,
            shape_of(c.group.t).c_str());
  }
  // The destination: dstType (V2+), or y's dtype (V1).
  if (!c.given.dst_type) core::check_dtype_in(c.y.t, c.y.name, {ACL_INT8, ACL_INT4, ACL_INT32});
  // V2+: FLOAT8 (35 / 36) besides the integer destinations.
  const bool fp8 = c.given.dst_type && is_fp8_dst(c.dst_type);
  if (c.given.dst_type) refuse_hifloat8(c.dst_type);
  const aclDataType dst = fp8 ? static_cast<aclDataType>(c.dst_type)
                              : c.given.dst_type ? int_dst(c.dst_type, "dstType") : c.y.t->dtype;
  // The mode.
  DynMode mode = DynMode::kPerToken;
  if (c.given.quant_mode) {
    if (std::strcmp(c.quant_mode, "pertoken") == 0)
      mode = DynMode::kPerToken;
    else if (std::strcmp(c.quant_mode, "pertensor") == 0)
      mode = DynMode::kPerTensor;
    else if (std::strcmp(c.quant_mode, "perchannel") == 0)
      mode = DynMode::kPerChannel;
    else
      throw_error(ACLNN_ERR_PARAM_INVALID, "quantMode must be \"pertoken\", \"pertensor\" or \"perchannel\", got \"%s\"",
                  c.quant_mode);
    require(mode == DynMode::kPerToken || c.group.t == nullptr,
            "quantMode \"%s\" with %s is not supported (groups apply per token)", c.quant_mode, c.group.name);
  }
  bool symmetric = c.given.symmetric ? c.symmetric : c.offset_out.t == nullptr;
  if (c.given.symmetric && !symmetric) core::check_not_null(c.offset_out.t, c.offset_out.name);
  const int32_t hi = dst == ACL_INT8 ? 127 : 7, lo = dst == ACL_INT8 ? -128 : -8;
  st.qmax = static_cast<float>(hi);
  if (fp8) {
    require(symmetric, "dstType %lld (%s) takes the symmetric quantisation only: %s must be %s", ll(c.dst_type),
            core::dtype_name(dst), c.given.symmetric ? "isSymmetrical" : c.offset_out.name,
            c.given.symmetric ? "true" : "null");
    plan_fp8_y(c.x, c.y, dst, st);
  } else {
    check_int_y(c.x, c.y, dst, c.given.dst_type ? "dstType" : "yOut's dtype");
  }
  const float qmax = st.qmax;
  if (c.given.dst_type_max)
    require(c.dst_type_max == 0.0 || c.dst_type_max == qmax,
            "dstTypeMax %g applies to the HIFLOAT8 destination; for %s it must be 0 or %g", c.dst_type_max,
            core::dtype_name(dst), static_cast<double>(qmax));
  if (c.smooth.t != nullptr) {
    const aclTensor &s = *c.smooth.t;
    if (c.group.t != nullptr)
      require(s.ndim == 2 && s.dims[1] == n && s.dims[0] == c.group.t->dims[0],
              "%s has shape %s; with %s of %lld groups it must be (%lld, %lld)", c.smooth.name, shape_of(&s).c_str(),
              c.group.name, ll(c.group.t->dims[0]), ll(c.group.t->dims[0]), ll(n));
    else
      require(s.ndim == 1 && s.dims[0] == n, "%s has shape %s; expected (%lld,) (x's last dim)", c.smooth.name,
              shape_of(&s).c_str(), ll(n));
  }
  Shape ss;
  if (mode == DynMode::kPerToken) {
    ss = Shape::of(x);
    ss.ndim -= 1;
  } else {
    ss.ndim = 1;
    ss.dims[0] = mode == DynMode::kPerTensor ? 1 : n;
  }
  for (const NamedTensor *o : {&c.scale_out, &c.offset_out}) {
    if (o->t == nullptr) continue;
    core::check_dtype_in(o->t, o->name, {ACL_FLOAT});
    core::check_shape_equals(*o->t, o->name, ss);
    require(o->t->is_contiguous(), "%s must be contiguous", o->name);
  }
  core::check_outputs_apart<NamedTensor>({&c.y, &c.scale_out, &c.offset_out},
                         {&c.x, &c.smooth, &c.group, &c.y, &c.scale_out, &c.offset_out});
  st.dyn = mode;
  st.symmetric = symmetric;
  st.lo = lo;
  st.hi = hi;
  st.y_packed = dst == ACL_INT4 || dst == ACL_INT32;
  st.groups = c.group.t != nullptr ? c.group.t->dims[0] : 0;
  if (c.group.t != nullptr) st.group.step = c.group.t->strides[0];
  plan_rows(st, x, n);
  if (mode == DynMode::kPerToken) plan_token(st, c);
  (void)b;
}

void fake_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT});
  core::check_dtype_in(c.offset.t, c.offset.name, {ACL_INT32});
  core::check_dtype_in(c.y.t, c.y.name, {x.dtype});
  core::check_dtype_in(c.mask.t, c.mask.name, {ACL_BOOL});
  require(c.quant_min <= c.quant_max, "quantMin %lld must not exceed quantMax %lld", ll(c.quant_min), ll(c.quant_max));
  core::check_shape_equals(*c.y.t, c.y.name, Shape::of(x));
  core::check_shape_equals(*c.mask.t, c.mask.name, Shape::of(x));
  if (rule.kind == QuantKind::kFakeTensor) {
    for (const NamedTensor *p : {&c.scale, &c.offset})
      require(p->t->numel() == 1 && p->t->ndim <= 1, "%s has shape %s; expected one value ([] or [1])", p->name,
              shape_of(p->t).c_str());
    st.along = QuantAlong::kOne;
    st.enabled = c.enabled >= 1.0;
  } else {
    require(x.ndim >= 1, "%s must have at least 1 dim for a per-channel fake quantisation", c.x.name);
    const int axis = core::wrap_dim(c.axis, x.ndim, "axis");
    for (const NamedTensor *p : {&c.scale, &c.offset})
      require(p->t->ndim == 1 && p->t->dims[0] == x.dims[axis], "%s has shape %s; expected (%lld,) (self's dim %d)",
              p->name, shape_of(p->t).c_str(), ll(x.dims[axis]), axis);
    if (axis == x.ndim - 1)
      st.along = QuantAlong::kLast;
    else
      plan_row_axis(st, x, axis);
  }
  st.scale.step = c.scale.t->ndim == 1 ? c.scale.t->strides[0] : 0;
  st.offset.step = c.offset.t->ndim == 1 ? c.offset.t->strides[0] : 0;
  if (st.along == QuantAlong::kOne) st.scale.step = st.offset.step = 0;
  core::check_outputs_apart<NamedTensor>({&c.y, &c.mask}, {&c.x, &c.scale, &c.offset, &c.y, &c.mask});
  st.quant_min = c.quant_min;
  st.quant_max = c.quant_max;
  plan_rows(st, x, x.ndim == 0 ? 1 : x.dims[x.ndim - 1]);
  (void)b;
}

void dequant_bias(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, {ACL_INT32});
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT, ACL_BF16});
  if (c.act_scale.t != nullptr) core::check_dtype_in(c.act_scale.t, c.act_scale.name, {ACL_FLOAT});
  if (c.bias.t != nullptr) core::check_dtype_in(c.bias.t, c.bias.name, {ACL_FLOAT, ACL_BF16, ACL_FLOAT16, ACL_INT32});
  require(c.dst_type == 1 || c.dst_type == 27, "outputDtype must be 1 (FLOAT16) or 27 (BF16), got %lld",
          ll(c.dst_type));
  const aclDataType dst = c.dst_type == 1 ? ACL_FLOAT16 : ACL_BF16;
  require((c.scale.t->dtype == ACL_FLOAT) == (dst == ACL_FLOAT16),
          "outputDtype %lld does not go with %s's dtype %s (FLOAT takes 1, BF16 takes 27)", ll(c.dst_type),
          c.scale.name, core::dtype_name(c.scale.t->dtype));
  core::check_dtype_in(c.y.t, c.y.name, {dst});
  require(x.ndim == 2, "%s must be 2-D [M, N], got %s", c.x.name, shape_of(c.x.t).c_str());
  const int64_t m = x.dims[0], n = x.dims[1];
  require(c.scale.t->ndim == 1 && c.scale.t->dims[0] == n, "%s has shape %s; expected (%lld,) (x's N)", c.scale.name,
          shape_of(c.scale.t).c_str(), ll(n));
  if (c.act_scale.t != nullptr)
    require(c.act_scale.t->ndim == 1 && c.act_scale.t->dims[0] == m, "%s has shape %s; expected (%lld,) (x's M)",
            c.act_scale.name, shape_of(c.act_scale.t).c_str(), ll(m));
  if (c.bias.t != nullptr)
    require(c.bias.t->ndim == 1 && c.bias.t->dims[0] == n, "%s has shape %s; expected (%lld,) (x's N)", c.bias.name,
            shape_of(c.bias.t).c_str(), ll(n));
  core::check_shape_equals(*c.y.t, c.y.name, Shape::of(x));
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.x, &c.scale, &c.act_scale, &c.bias, &c.y});
  st.scale.step = c.scale.t->strides[0];
  if (c.act_scale.t != nullptr) st.act_scale.step = c.act_scale.t->strides[0];
  if (c.bias.t != nullptr) st.bias.step = c.bias.t->strides[0];
  plan_rows(st, x, n);
  (void)rule;
  (void)b;
}

void group_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
  core::check_dtype_in(c.group.t, c.group.name, {ACL_INT32, ACL_INT64});
  if (c.offset.t != nullptr) core::check_dtype_in(c.offset.t, c.offset.name, {c.scale.t->dtype});
  require(x.ndim == 2, "%s must be 2-D [S, H], got %s", c.x.name, shape_of(c.x.t).c_str());
  const int64_t h = x.dims[1];
  require(c.scale.t->ndim == 2 && c.scale.t->dims[1] == h && c.scale.t->dims[0] >= 1,
          "%s has shape %s; expected (E, %lld) with E >= 1", c.scale.name, shape_of(c.scale.t).c_str(), ll(h));
  require(c.group.t->ndim == 1 && c.group.t->dims[0] == c.scale.t->dims[0], "%s has shape %s; expected (%lld,) (%s's E)",
          c.group.name, shape_of(c.group.t).c_str(), ll(c.scale.t->dims[0]), c.scale.name);
  if (c.offset.t != nullptr)
    require(c.offset.t->numel() == 1 && c.offset.t->ndim <= 1, "%s has shape %s; expected one value", c.offset.name,
            shape_of(c.offset.t).c_str());
  const aclDataType dst = int_dst(c.dst_type, "dstType");
  check_int_y(c.x, c.y, dst, "dstType");
  core::check_outputs_apart<NamedTensor>({&c.y}, {&c.x, &c.scale, &c.group, &c.offset, &c.y});
  st.lo = dst == ACL_INT8 ? -128 : -8;
  st.hi = dst == ACL_INT8 ? 127 : 7;
  st.y_packed = dst != ACL_INT8;
  st.groups = c.group.t->dims[0];
  st.group.step = c.group.t->strides[0];
  plan_rows(st, x, h);
  (void)b;
}

// One of the documented sizes (GroupedDynamicBlockQuant's block sizes).
void require_one_of(int64_t v, std::initializer_list<int64_t> allowed, const char *name) {
  std::string list;
  for (int64_t a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
  require(std::find(allowed.begin(), allowed.end(), v) != allowed.end(), "%s must be one of %s, got %lld", name,
          list.c_str(), ll(v));
}

// DynamicBlockQuant (V2): one scale per rowBlockSize x colBlockSize block of each [M, N] matrix of x;
// GroupedDynamicBlockQuant (V2): the same inside groupList's row groups.
void block_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  const bool grouped = rule.kind == QuantKind::kGroupedBlockQuant;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  require(x.ndim == 2 || x.ndim == 3, "%s must be [M, N] or [B, M, N], got %s", c.x.name, shape_of(c.x.t).c_str());
  require(c.min_scale >= 0.0, "minScale must be >= 0, got %g", c.min_scale);
  require(c.round_mode == nullptr || std::strcmp(c.round_mode, "rint") == 0,
          "roundModeOptional must be \"rint\" (or null) for an INT8 / FLOAT8 yOut, got \"%s\"", c.round_mode);
  refuse_hifloat8(c.dst_type);
  const bool fp8 = is_fp8_dst(c.dst_type);  // FLOAT8 (35 / 36) besides INT8
  const aclDataType dst = fp8 ? static_cast<aclDataType>(c.dst_type) : int_dst(c.dst_type, "dstType");
  require(dst == ACL_INT8 || fp8, "dstType must be 2 (INT8), 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN) here, got %lld",
          ll(c.dst_type));
  if (grouped) {
    require_one_of(c.row_block, {1, 128, 256, 512}, "rowBlockSize");
    require_one_of(c.col_block, {64, 128, 192, 256}, "colBlockSize");
    require(c.group_list_type == 0, "groupListType must be 0 (cumulative row ends), got %lld", ll(c.group_list_type));
    core::check_dtype_in(c.group.t, c.group.name, {ACL_INT32});
    require(c.group.t->ndim == 1 && c.group.t->dims[0] >= 1, "%s must be 1-D and not empty, got %s", c.group.name,
            shape_of(c.group.t).c_str());
  }
  require(c.row_block >= 1, "rowBlockSize must be positive, got %lld", ll(c.row_block));
  require(c.col_block >= 1, "colBlockSize must be positive, got %lld", ll(c.col_block));
  st.qmax = 127.0f;
  if (fp8) plan_fp8_y(c.x, c.y, dst, st);
  else check_int_y(c.x, c.y, dst, "dstType");
  if (c.given.dst_type_max)
    require(c.dst_type_max == 0.0 || c.dst_type_max == st.qmax,
            "dstTypeMax %g applies to the HIFLOAT8 destination; for %s it must be 0 or %g", c.dst_type_max,
            core::dtype_name(dst), static_cast<double>(st.qmax));
  const int64_t m = x.dims[x.ndim - 2], n = x.dims[x.ndim - 1];
  const int64_t groups = grouped ? c.group.t->dims[0] : 0;
  Shape ss = Shape::of(x);
  // (ceil divisions that cannot overflow: the block sizes may be anything up to INT64_MAX)
  auto blocks = [](int64_t len, int64_t block) { return len / block + (len % block != 0 ? 1 : 0); };
  ss.dims[x.ndim - 2] = grouped ? m / c.row_block + groups : blocks(m, c.row_block);
  ss.dims[x.ndim - 1] = blocks(n, c.col_block);
  core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT});
  core::check_shape_equals(*c.scale_out.t, c.scale_out.name, ss);
  core::check_outputs_apart<NamedTensor>({&c.y, &c.scale_out}, {&c.x, &c.group, &c.y, &c.scale_out});
  st.lo = -128;
  st.hi = 127;
  st.blk_rows = c.row_block;
  st.blk_cols = c.col_block;
  st.blk_m = m;
  st.groups = groups;
  if (grouped) st.group.step = c.group.t->strides[0];
  st.scale_cap = c.min_scale > 0.0 ? static_cast<float>(1.0 / c.min_scale) : std::numeric_limits<float>::infinity();
  plan_rows(st, x, n);
  // Tasks over the block rows (each owns its blocks: no two tasks write one scale); grouped: at most
  // M / rowBlockSize + g block rows per matrix.
  const int64_t block_rows = (x.ndim == 3 ? x.dims[0] : 1) * ss.dims[x.ndim - 2];
  st.tasks = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), block_rows));
  // The per-token kernels per block segment when x and y are contiguous along the last dim.
  const bool rows_ok = (x.strides[x.ndim - 1] == 1 && c.y.t->strides[x.ndim - 1] == 1) || n <= 1;
  plan_token_tier(st, rows_ok, "x or yOut not contiguous along the last dim", grouped ? "grouped_block" : "block");
  (void)b;
}

// FlatQuant's two GEMMs for `batch` slices: T = x[k] @ P2 and R = P1 @ T, T and R fp32 [batch, M, N]. When x's
// slices follow each other the first is one GEMM of batch * M rows.
void plan_flat_gemms(const aclTensor &x, const aclTensor &p1, const aclTensor &p2, int64_t batch,
                     kernels::GemmPlan *x_p2, kernels::GemmPlan *p1_t) {
  const int64_t m = x.dims[1], n = x.dims[2];
  const bool rows = x.strides[0] == m * x.strides[1];
  kernels::GemmDesc d;
  d.batch = rows ? 1 : batch;
  d.m = rows ? batch * m : m;
  d.n = n;
  d.k = n;
  d.a = {x.dtype, x.strides[1], x.strides[2], rows ? 0 : x.strides[0]};
  d.b = {p2.dtype, p2.strides[0], p2.strides[1], 0};
  d.c = {ACL_FLOAT, n, 1, m * n};
  kernels::GemmDesc e = d;
  e.batch = batch;
  e.m = m;
  e.k = m;
  e.a = {p1.dtype, p1.strides[0], p1.strides[1], 0};
  e.b = d.c;
  if (!kernels::gemm_plan(d, x_p2) || !kernels::gemm_plan(e, p1_t))
    throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
}

// FlatQuant: x [K, M, N] and its two Kronecker factors; the GEMM engine over chunks of slices (about 4 MB of fp32
// scratch for T and R each), tasks over a chunk's slices for the quantisation.
void flat_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  require(x.ndim == 3, "%s must be [K, M, N], got %s", c.x.name, shape_of(c.x.t).c_str());
  const int64_t k = x.dims[0], m = x.dims[1], n = x.dims[2];
  for (const auto &[p, size] : {std::pair{&c.p1, m}, std::pair{&c.p2, n}}) {
    core::check_dtype_in(p->t, p->name, {x.dtype});
    require(p->t->ndim == 2 && p->t->dims[0] == size && p->t->dims[1] == size, "%s has shape %s; it must be [%lld, %lld]",
            p->name, shape_of(p->t).c_str(), ll(size), ll(size));
  }
  require(c.clip_ratio > 0.0 && c.clip_ratio <= 1.0, "clipRatio must be in (0, 1], got %g", c.clip_ratio);
  require(k >= 1 && k <= 262144 && m >= 1 && m <= 256 && n >= 1 && n <= 256,
          "%s has shape %s; K must be in [1, 262144], M and N in [1, 256]", c.x.name, shape_of(c.x.t).c_str());
  if (c.given.dst_type_max)
    require(c.dst_type_max == 0.0, "dstTypeMax %g applies to a FLOAT4_E2M1 out only; for INT4 / INT32 it must be 0",
            c.dst_type_max);
  if (c.group.t != nullptr) {
    core::check_dtype_in(c.group.t, c.group.name, {ACL_INT64});
    require(c.group_list_type >= 0 && c.group_list_type <= 2,
            "groupListType must be 0 (cumulative ends), 1 (counts) or 2 (index, count pairs), got %lld",
            ll(c.group_list_type));
    const aclTensor &g = *c.group.t;
    const bool pairs = c.group_list_type == 2;
    require(g.ndim == (pairs ? 2 : 1) && g.dims[0] >= 1 && g.dims[0] <= 1024 && (!pairs || g.dims[1] == 2),
            "%s has shape %s; with groupListType %lld it must be [G]%s with 1 <= G <= 1024", c.group.name,
            shape_of(c.group.t).c_str(), ll(c.group_list_type), pairs ? ", 2" : "");
    st.groups = g.dims[0];
    st.group.step = g.strides[0];
    st.flat_pair_step = pairs ? g.strides[1] : 0;
    st.group_list_type = c.group_list_type;
  }
  if (c.y.t->dtype == ACL_FLOAT4_E2M1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s FLOAT4_E2M1 (the per-group MX mode) is not supported yet; INT4 / INT32 are",
                c.y.name);
  core::check_dtype_in(c.y.t, c.y.name, {ACL_INT4, ACL_INT32});
  check_int_y(c.x, c.y, c.y.t->dtype, "out's dtype");
  core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT});
  Shape ks;
  ks.ndim = 1;
  ks.dims[0] = k;
  core::check_shape_equals(*c.scale_out.t, c.scale_out.name, ks);
  core::check_outputs_apart<NamedTensor>({&c.y, &c.scale_out}, {&c.x, &c.p1, &c.p2, &c.group, &c.y, &c.scale_out});
  st.lo = -8;
  st.hi = 7;
  st.y_packed = true;
  st.flat_m = m;
  st.clip_ratio = static_cast<float>(c.clip_ratio);
  plan_rows(st, x, n);
  st.flat_chunk = std::min<int64_t>(k, std::max<int64_t>(1, (int64_t{1} << 20) / (m * n)));
  st.tasks = std::max<int64_t>(1, std::min<int64_t>(core::num_threads(), st.flat_chunk));
  auto gemms = std::make_shared<QuantStep::FlatGemms>();
  plan_flat_gemms(x, *c.p1.t, *c.p2.t, st.flat_chunk, &gemms->x_p2[0], &gemms->p1_t[0]);
  if (k % st.flat_chunk != 0) plan_flat_gemms(x, *c.p1.t, *c.p2.t, k % st.flat_chunk, &gemms->x_p2[1], &gemms->p1_t[1]);
  size_t gemm_ws = 0;
  for (const kernels::GemmPlan &p : {gemms->x_p2[0], gemms->p1_t[0], gemms->x_p2[1], gemms->p1_t[1]})
    gemm_ws = std::max(gemm_ws, p.workspace_bytes);
  st.flat = std::move(gemms);
  st.flat_scratch = b.book("quant.flat", static_cast<uint64_t>(2 * st.flat_chunk * m * n) * sizeof(float));
  st.flat_gemm_ws = b.book("quant.flat.gemm", std::max<size_t>(gemm_ws, 64));
}

// QuantMax: y = cast(x * scale) to FLOAT8 as aclnnCast (half to even, not saturating), amax = max |x| (NaN if any);
// GroupedQuantMax: the same per group of dim-0 slices (groupList: INT64 cumulative ends, read at launch), with the
// group's scale and amax.
struct QuantMaxStep final : core::Step {
  kernels::MxLines x, y;  // rows along the last dim
  int64_t rows_per_slice = 1, dim0 = 1, groups = 1, group_stride = 1;  // rows of one dim-0 index
  aclDataType x_dtype = ACL_FLOAT;
  kernels::LowFloat fmt = kernels::LowFloat::kE4M3;
  core::OperandRef xr, sr, gr, yr, ar;  // gr.slot < 0: one group
  core::WsKey ws;
  int run(const core::LaunchArgs &a) const override {
    const auto *scale = reinterpret_cast<const float *>(sr.address(a));
    const auto *ends = gr.slot >= 0 ? reinterpret_cast<const int64_t *>(gr.address(a)) : nullptr;
    int64_t prev = 0;
    for (int64_t g = 0; ends != nullptr && g < groups; ++g) {  // validated before anything is written
      const int64_t e = ends[g * group_stride];
      if (e < prev || (g == groups - 1 && e != dim0))
        return fail(ACLNN_ERR_PARAM_INVALID, "groupList[%lld] = %lld: the group ends must be non-decreasing, >= 0 and "
                    "end at x's dim 0 (%lld)", ll(g), ll(e), ll(dim0));
      prev = e;
    }
    const int64_t es = static_cast<int64_t>(core::dtype_size(x_dtype));
    float *row = reinterpret_cast<float *>(a.get(ws)), *amax = row + std::max<int64_t>(x.n, 1);
    std::fill(amax, amax + groups, 0.0f);
    auto *y8 = reinterpret_cast<uint8_t *>(yr.address(a));
    int64_t g = 0;
    for (int64_t r = 0; r < x.pre; ++r) {
      while (ends != nullptr && g < groups - 1 && r / rows_per_slice >= ends[g * group_stride]) ++g;
      kernels::quant_load_row(xr.address(a) + x.offset(r, 0) * es, x_dtype, x.axis_stride, x.n, row);
      const int64_t yo = y.offset(r, 0);
      for (int64_t j = 0; j < x.n; ++j) {
        const float v = std::fabs(row[j]);
        if (amax[g] == amax[g] && (v > amax[g] || v != v)) amax[g] = v;  // a NaN stays
        y8[yo + j * y.axis_stride] = kernels::lf_encode(row[j] * scale[g], fmt, kernels::LfRound::kRint, false);
      }
    }
    for (int64_t k = 0; k < groups; ++k)
      kernels::quant_store_floats(amax + k, 1, x_dtype, ar.address(a) + k * amax_stride * es, 1);
    return 0;
  }
  int64_t amax_stride = 1;
};

void quant_max(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c) {
  const bool grouped = *c.group.name != '\0';
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const aclTensor &x = *c.x.t;
  require(x.ndim >= (grouped ? 2 : 1) && x.ndim <= 8, "%s has %d dims; it must have %d to 8", c.x.name, x.ndim,
          grouped ? 2 : 1);
  core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT});
  int64_t groups = 1;
  if (grouped) {
    core::check_dtype_in(c.group.t, c.group.name, {ACL_INT64});
    groups = c.group.t->ndim == 1 ? c.group.t->dims[0] : 0;
    require(groups >= 1 && groups <= 384, "%s has shape %s; it must be 1-D with 1 to 384 group ends", c.group.name,
            shape_of(c.group.t).c_str());
  }
  require(c.scale.t->ndim == 1 && c.scale.t->dims[0] == groups, "%s has shape %s; expected (%lld,)", c.scale.name,
          shape_of(c.scale.t).c_str(), ll(groups));
  if (c.dst_type == 34)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dstType 34 (HIFLOAT8) is not supported yet (OpsNN has no HIFLOAT8 codec)");
  if (c.dst_type != 35 && c.dst_type != 36)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dstType must be 34 (HIFLOAT8), 35 (FLOAT8_E5M2) or 36 (FLOAT8_E4M3FN), got %lld",
                ll(c.dst_type));
  const aclDataType dst = static_cast<aclDataType>(c.dst_type);
  require(c.round_mode != nullptr && std::strcmp(c.round_mode, "rint") == 0,
          "roundMode must be \"rint\" for dstType %lld (FLOAT8), got \"%s\"", ll(c.dst_type),
          c.round_mode != nullptr ? c.round_mode : "(null)");
  core::check_dtype_in(c.y.t, c.y.name, {dst});
  core::check_shape_equals(*c.y.t, c.y.name, Shape::of(x));
  core::check_dtype_in(c.amax.t, c.amax.name, {x.dtype});
  require(c.amax.t->ndim == 1 && c.amax.t->dims[0] == groups, "%s has shape %s; expected (%lld,)", c.amax.name,
          shape_of(c.amax.t).c_str(), ll(groups));
  core::check_outputs_apart<NamedTensor>({&c.y, &c.amax}, {&c.x, &c.scale, &c.group, &c.y, &c.amax});
  auto &st = b.add_step<QuantMaxStep>();  // prototype order: x, scale, (groupList,) y, amax
  st.xr = core::OperandRef::of_slot(b.input(c.x.t), x);
  st.sr = core::OperandRef::of_slot(b.input(c.scale.t), *c.scale.t);
  if (grouped) st.gr = core::OperandRef::of_slot(b.input(c.group.t), *c.group.t);
  st.yr = core::OperandRef::of_slot(b.output(c.y.t), *c.y.t);
  st.ar = core::OperandRef::of_slot(b.output(c.amax.t), *c.amax.t);
  st.x = kernels::mx_lines(x, x.ndim - 1);
  st.y = kernels::mx_lines(*c.y.t, c.y.t->ndim - 1);
  st.dim0 = x.ndim > 0 ? x.dims[0] : 1;
  st.rows_per_slice = std::max<int64_t>(1, x.ndim > 1 ? st.x.pre / std::max<int64_t>(st.dim0, 1) : 1);
  st.groups = groups;
  st.group_stride = grouped ? c.group.t->strides[0] : 1;
  st.amax_stride = c.amax.t->strides[0];
  st.x_dtype = x.dtype;
  st.fmt = dst == ACL_FLOAT8_E5M2 ? kernels::LowFloat::kE5M2 : kernels::LowFloat::kE4M3;
  st.ws = b.book("quant_max.row", static_cast<uint64_t>(std::max<int64_t>(st.x.n, 1) + groups) * sizeof(float));
  if (core::current_phase1_trace() != nullptr) core::record_choice("quant:quant_max/rows/scalar", nullptr);
}

void gelu_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  require(x.ndim >= 1, "%s must have at least 1 dim (rows along the last), got a 0-d tensor", c.x.name);
  const std::string approx = c.approximate, mode = c.quant_mode, rmode = c.round_mode;
  require(approx == "none" || approx == "tanh", "approximate must be \"none\" or \"tanh\", got \"%s\"",
          approx.c_str());
  require(mode == "static" || mode == "dynamic", "quantMode must be \"static\" or \"dynamic\", got \"%s\"",
          mode.c_str());
  st.round = rmode == "rint" ? QuantRound::kHalfEven : round_of(c.round_mode, "roundMode");
  if (int_dst(c.dst_type, "dstType") != ACL_INT8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "dstType must be 2 (INT8), got %lld", ll(c.dst_type));
  check_int_y(c.x, c.y, ACL_INT8, "dstType");
  st.gelu_tanh = approx == "tanh";
  st.gelu_dynamic = mode == "dynamic";
  const int last = x.ndim - 1;
  if (!st.gelu_dynamic) core::check_not_null(c.scale.t, c.scale.name);  // (161001: static needs it)
  for (const NamedTensor *p : {&c.scale, &c.offset}) {
    if (p->t == nullptr) continue;
    core::check_dtype_in(p->t, p->name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
    check_param(*p, x, last, p == &c.scale ? &st.scale : &st.offset);
  }
  if (st.gelu_dynamic) {
    core::check_not_null(c.scale_out.t, c.scale_out.name);
    Shape ss = Shape::of(x);
    ss.ndim -= 1;
    core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT});
    core::check_shape_equals(*c.scale_out.t, c.scale_out.name, ss);
    require(c.scale_out.t->is_contiguous(), "%s must be contiguous", c.scale_out.name);
  }
  core::check_outputs_apart<NamedTensor>({&c.y, &c.scale_out}, {&c.x, &c.scale, &c.offset, &c.y, &c.scale_out});
  st.lo = -128;
  st.hi = 127;
  plan_rows(st, x, x.dims[last]);
  (void)b;
}

// A SwiGluQuant parameter: [G, h] / [G] / [G, 1] with G groups, or [h] / [1, h] / [1] without; step 0: one
// value per group.
void check_group_param(const NamedTensor &p, int64_t groups, int64_t h, QuantOperand *op) {
  const aclTensor &t = *p.t;
  core::check_dtype_in(p.t, p.name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
  const int64_t lead = groups > 0 ? groups : 1;
  bool ok = false;
  int64_t last = 1;
  if (t.ndim == 1) {
    last = groups > 0 ? 1 : t.dims[0];
    ok = groups > 0 ? t.dims[0] == groups : (t.dims[0] == h || t.dims[0] == 1);
  } else if (t.ndim == 2) {
    last = t.dims[1];
    ok = t.dims[0] == lead && (last == h || last == 1);
  }
  require(ok, "%s has shape %s; with %lld group(s) of rows of %lld it must be [%lld, %lld], [%lld] or [%lld, 1]%s",
          p.name, shape_of(p.t).c_str(), ll(lead), ll(h), ll(lead), ll(h), ll(lead), ll(lead),
          groups > 0 ? "" : " (without a group index also [h])");
  op->step = last == 1 && h != 1 ? 0 : t.strides[t.ndim - 1];
}

// DequantSituQuant's own rules (quant_phase1.h): which dequantisation inputs each x dtype takes, [2H] or [1]
// weightScale / bias, [1] activationScale, no group index, beta != 0; trunc rounding, the static map divides.
void situ_checks(const QuantCall &c, QuantStep &st) {
  const aclDataType xt = c.x.t->dtype;
  require(c.situ_beta != 0.0, "beta must not be 0 (the gate divides by it)");
  require(xt == ACL_INT8 ? c.x.t->ndim >= 2 : c.x.t->ndim == 2, "%s (%s) must have %s dims, got %s", c.x.name,
          core::dtype_name(xt), xt == ACL_INT8 ? "2 or more" : "2", shape_of(c.x.t).c_str());
  require(c.group.t == nullptr, "%s is not supported (the documentation does not say what it selects)", c.group.name);
  const bool floating = xt == ACL_FLOAT16 || xt == ACL_BF16;
  if (!floating) core::check_not_null(c.scale.t, c.scale.name);
  if (xt == ACL_INT32) core::check_not_null(c.act_scale.t, c.act_scale.name);
  for (const NamedTensor *t : {&c.scale, &c.act_scale, &c.bias})
    require(t->t == nullptr || (!floating && (t != &c.act_scale || xt == ACL_INT32)),
            "%s is not used with a %s x; pass null", t->name, core::dtype_name(xt));
  for (const NamedTensor *t : {&c.smooth, &c.offset})
    require(t->t == nullptr || xt != ACL_INT32, "%s is not used with an INT32 x; pass null", t->name);
  const int64_t full = c.x.t->dims[c.x.t->ndim - 1];
  for (const NamedTensor *t : {&c.scale, &c.bias, &c.act_scale}) {
    if (t->t == nullptr) continue;
    core::check_dtype_in(t->t, t->name, {ACL_FLOAT});
    const bool one = t->t->ndim == 1 && t->t->dims[0] == 1;
    require(one || (t != &c.act_scale && t->t->ndim == 1 && t->t->dims[0] == full),
            "%s has shape %s; it must be [%lld] or [1]%s", t->name, shape_of(t->t).c_str(), ll(full),
            t == &c.act_scale ? " (only [1])" : "");
    QuantOperand &op = t == &c.scale ? st.scale : t == &c.bias ? st.bias : st.act_scale;
    op.step = one ? 0 : t->t->strides[0];
  }
  st.situ = true;
  st.situ_beta = static_cast<float>(c.situ_beta);
  st.situ_linear_beta = static_cast<float>(c.situ_linear_beta);
  st.round = QuantRound::kTrunc;
}

void swiglu_quant(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c, QuantStep &st) {
  const aclTensor &x = *c.x.t;
  const bool dequant = rule.kind == QuantKind::kDequantSwiGluQuant;
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  require(x.ndim >= 1 && x.dims[x.ndim - 1] % 2 == 0, "%s must have an even last dim (its two halves), got %s",
          c.x.name, shape_of(c.x.t).c_str());
  const int64_t h = x.dims[x.ndim - 1] / 2;
  // The quantisation parameters: SwiGluQuant's smooth scales came as `scale`, DequantSwigluQuant's as `smooth`.
  const NamedTensor &qscale = dequant ? c.smooth : c.scale;
  QuantOperand &qop = dequant ? st.smooth : st.scale;
  const bool situ = c.given.situ_beta;
  if (situ) situ_checks(c, st);
  if (dequant && !situ) {
    if (c.given.activate_dim)
      require(c.activate_dim == -1 || c.activate_dim == x.ndim - 1,
              "activateDim %lld is not supported: the halves are split along the last dim (-1 or %d)",
              ll(c.activate_dim), x.ndim - 1);
    if (c.given.swiglu_mode)
      require(c.swiglu_mode == 0 || c.swiglu_mode == 1, "swigluMode must be 0 (halves) or 1 (interleaved, clamped), "
              "got %lld", ll(c.swiglu_mode));
    st.swiglu_clamped = c.swiglu_mode == 1;
    st.clamp_limit = static_cast<float>(c.clamp_limit);
    st.glu_alpha = static_cast<float>(c.glu_alpha);
    st.glu_bias = static_cast<float>(c.glu_bias);
    if (c.given.round_mode && c.round_mode != nullptr)
      st.round = std::string(c.round_mode) == "rint" ? QuantRound::kHalfEven : round_of(c.round_mode, "roundModeOptional");
    const int64_t full = 2 * h;
    if (c.scale.t != nullptr) {  // weightScaleOptional [2H]
      core::check_dtype_in(c.scale.t, c.scale.name, {ACL_FLOAT});
      require(c.scale.t->ndim == 1 && c.scale.t->dims[0] == full, "%s has shape %s; it must be [%lld] (x's last dim)",
              c.scale.name, shape_of(c.scale.t).c_str(), ll(full));
      st.scale.step = c.scale.t->strides[0];
    }
    if (c.bias.t != nullptr) {  // biasOptional [2H]
      core::check_dtype_in(c.bias.t, c.bias.name, {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16});
      require(c.bias.t->ndim == 1 && c.bias.t->dims[0] == full, "%s has shape %s; it must be [%lld] (x's last dim)",
              c.bias.name, shape_of(c.bias.t).c_str(), ll(full));
      st.bias.step = c.bias.t->strides[0];
    }
    if (c.act_scale.t != nullptr) {  // activationScaleOptional: one per row
      core::check_dtype_in(c.act_scale.t, c.act_scale.name, {ACL_FLOAT});
      Shape with_one = Shape::of(x), without = Shape::of(x);
      with_one.dims[with_one.ndim - 1] = 1;
      without.ndim -= 1;
      const Shape as = Shape::of(*c.act_scale.t);
      require((as == with_one || as == without) && c.act_scale.t->is_contiguous(),
              "%s has shape %s; it must be %s or %s, contiguous", c.act_scale.name, shape_of(c.act_scale.t).c_str(),
              with_one.str().c_str(), without.str().c_str());
      st.act_scale.step = 1;
    }
  }
  const std::string mode = c.quant_mode != nullptr ? c.quant_mode : "dynamic";
  const char *mode_name = situ ? "quantTypeOptional" : "quantModeOptional";
  require(mode == "static" || mode == "dynamic", "%s must be \"static\" or \"dynamic\", got \"%s\"", mode_name,
          mode.c_str());
  st.swiglu_static = mode == "static";
  st.activate_left = c.activate_left;
  if (c.given.group_list_type)
    require(c.group_list_type == 0 || c.group_list_type == 1,
            "groupListType must be 0 (cumulative row ends) or 1 (row counts), got %lld", ll(c.group_list_type));
  st.group_counts = c.group_list_type == 1;
  const aclDataType dst = c.given.dst_type ? int_dst(c.dst_type, "dstType") : ACL_INT8;
  require(dst != ACL_INT32, "dstType 3 (INT32) is not supported by this op; 2 (INT8) and 29 (INT4) are");
  // y: x's shape with the last dim halved, INT4 packed (even h, contiguous).
  Shape ys = Shape::of(x);
  ys.dims[ys.ndim - 1] = h;
  require(c.y.t->dtype == dst, "%s has dtype %s; %s", c.y.name, core::dtype_name(c.y.t->dtype),
          c.given.dst_type ? "dstType asks for another" : "it must be INT8");
  if (dst == ACL_INT4) {
    require(h % 2 == 0, "%s's half last dim %lld must be even for INT4 output", c.x.name, ll(h));
    require_packed_layout(c.y);
  }
  core::check_shape_equals(*c.y.t, c.y.name, ys);
  core::check_no_internal_overlap(*c.y.t, c.y.name);
  int64_t groups = 0;
  if (c.group.t != nullptr) {
    core::check_dtype_in(c.group.t, c.group.name, {ACL_INT32, ACL_INT64});
    require(c.group.t->ndim == 1 && c.group.t->dims[0] >= 1, "%s must be 1-D and not empty, got %s", c.group.name,
            shape_of(c.group.t).c_str());
    groups = c.group.t->dims[0];
    st.group.step = c.group.t->strides[0];
  }
  if (st.swiglu_static && (!dequant || situ)) core::check_not_null(qscale.t, qscale.name);  // (161001: the static scale)
  if (qscale.t != nullptr) check_group_param(qscale, groups, h, &qop);
  if (c.offset.t != nullptr) {
    require(st.swiglu_static, "%s applies to %s \"static\" only", c.offset.name, mode_name);
    check_group_param(c.offset, groups, h, &st.offset);
  }
  if (!st.swiglu_static) {
    Shape ss = Shape::of(x);
    ss.ndim -= 1;
    core::check_dtype_in(c.scale_out.t, c.scale_out.name, {ACL_FLOAT});
    core::check_shape_equals(*c.scale_out.t, c.scale_out.name, ss);
    require(c.scale_out.t->is_contiguous(), "%s must be contiguous", c.scale_out.name);
  }
  core::check_outputs_apart<NamedTensor>(
      {&c.y, &c.scale_out}, {&c.x, &c.scale, &c.offset, &c.smooth, &c.act_scale, &c.bias, &c.group, &c.y, &c.scale_out});
  st.groups = groups;
  st.lo = dst == ACL_INT8 ? -128 : -8;
  st.hi = dst == ACL_INT8 ? 127 : 7;
  st.y_packed = dst == ACL_INT4;
  plan_rows(st, x, h);
  (void)b;
}

}  // namespace

void quant_phase1(core::OpBuilder &b, const QuantRule &rule, const QuantCall &c) {
  if (rule.kind == QuantKind::kQuantMax) return quant_max(b, rule, c);
  QuantStep plan;
  plan.kind = rule.kind;
  switch (rule.kind) {
    case QuantKind::kAscendQuant: ascend_quant(b, rule, c, plan); break;
    case QuantKind::kAntiQuant: anti_quant(b, rule, c, plan); break;
    case QuantKind::kQuantize: quantize(b, rule, c, plan); break;
    case QuantKind::kDynamic: dynamic(b, rule, c, plan); break;
    case QuantKind::kFakeTensor:
    case QuantKind::kFakeChannel: fake_quant(b, rule, c, plan); break;
    case QuantKind::kDequantBias: dequant_bias(b, rule, c, plan); break;
    case QuantKind::kGroupQuant: group_quant(b, rule, c, plan); break;
    case QuantKind::kQuantMax: break;
    case QuantKind::kGeluQuant: gelu_quant(b, rule, c, plan); break;
    case QuantKind::kSwiGluQuant:
    case QuantKind::kDequantSwiGluQuant: swiglu_quant(b, rule, c, plan); break;
    case QuantKind::kBlockQuant:
    case QuantKind::kGroupedBlockQuant: block_quant(b, rule, c, plan); break;
    case QuantKind::kFlatQuant: flat_quant(b, rule, c, plan); break;
  }
  // Registration in prototype order (inputs, then outputs), keeping the planned steps.
  QuantStep &st = b.add_step<QuantStep>(plan);
  reg(b, c.x, false, &st.x);
  reg(b, c.p1, false, &st.p1);  // FlatQuant's Kronecker factors (null for the other kinds)
  reg(b, c.p2, false, &st.p2);
  const int64_t ss = st.scale.step, os = st.offset.step, as = st.act_scale.step, bs = st.bias.step,
                gs = st.group.step;
  const int64_t ms = st.smooth.step;
  reg(b, c.scale, false, &st.scale);
  if (rule.kind == QuantKind::kDequantSwiGluQuant) {  // its prototype's order
    reg(b, c.act_scale, false, &st.act_scale);
    reg(b, c.bias, false, &st.bias);
    reg(b, c.smooth, false, &st.smooth);
    reg(b, c.offset, false, &st.offset);
    reg(b, c.group, false, &st.group);
  } else {
    if (rule.kind == QuantKind::kGroupQuant) reg(b, c.group, false, &st.group);  // before offsetOptional
    reg(b, c.offset, false, &st.offset);
    reg(b, c.smooth, false, &st.smooth);
    if (rule.kind != QuantKind::kGroupQuant) reg(b, c.group, false, &st.group);
    reg(b, c.act_scale, false, &st.act_scale);
    reg(b, c.bias, false, &st.bias);
  }
  st.smooth.step = ms;
  st.scale.step = ss;
  st.offset.step = os;
  st.act_scale.step = as;
  st.bias.step = bs;
  st.group.step = gs;
  reg(b, c.y, true, &st.y);
  reg(b, c.scale_out, true, &st.scale_out);
  reg(b, c.offset_out, true, &st.offset_out);
  reg(b, c.mask, true, &st.mask);
  book(b, st);
}

}  // namespace opsnn::ops

#include "ops/norm/channel_norm_phase1.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"

namespace opsnn::ops {
namespace {

using kernels::ChanNormMode;
using kernels::ChanNormPlan;

// Position dims that nest in every operand become one line (NCHW's H and W: lines of H * W instead
// of W, each line paying the walk's step), up to 16384 elements (a line buffer per operand).
void merge_lines(ChanNormPlan &P) {
  while (P.npos >= 2) {
    const int d = P.npos - 2;
    if (P.pos_shape[d] * P.pos_shape[d + 1] > 16384) return;
    auto nests = [&](const kernels::ChanTensor &t, bool present) {
      return !present || t.pos[d] == t.pos[d + 1] * P.pos_shape[d + 1];
    };
    if (!nests(P.x, true) || !nests(P.dy, P.has_dy) || !nests(P.y, P.has_y)) return;
    P.pos_shape[d] *= P.pos_shape[d + 1];
    P.x.pos[d] = P.x.pos[d + 1];
    P.dy.pos[d] = P.dy.pos[d + 1];
    P.y.pos[d] = P.y.pos[d + 1];
    --P.npos;
  }
}

struct ChanNormStep final : core::Step {
  ChanNormPlan plan;
  core::OperandRef x, dy, y, vec[kernels::kChanVecCount];
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    kernels::ChanNormArgs a;
    if (x.slot >= 0) a.x = x.address(args);
    if (dy.slot >= 0) a.dy = dy.address(args);
    if (y.slot >= 0) a.y = y.address(args);
    for (int k = 0; k < kernels::kChanVecCount; ++k)
      if (vec[k].slot >= 0) a.vec[k] = vec[k].address(args);
    a.workspace = args.get(ws);
    kernels::chan_norm_run(plan, a);
    return 0;
  }
};

// The integer range of a quantised dtype.
void quant_range(aclDataType dt, double *lo, double *hi) {
  *lo = dt == ACL_INT8 ? -128.0 : dt == ACL_UINT8 ? 0.0 : -2147483648.0;
  *hi = dt == ACL_INT8 ? 127.0 : dt == ACL_UINT8 ? 255.0 : 2147483647.0;
}

// QuantizedBatchNorm's scalars: finite scales (the output's non-zero), integral zero points within
// the range of the tensor they belong to.
void set_quantisation(ChanNormPlan &P, const ChanNormCall &c, const aclTensor *x) {
  P.in_scale = core::scalar_value(c.input_scale, "inputScale");
  P.in_zp = core::scalar_value(c.input_zero_point, "inputZeroPoint");
  P.out_scale = core::scalar_value(c.output_scale, "outputScale");
  P.out_zp = core::scalar_value(c.output_zero_point, "outputZeroPoint");
  if (!std::isfinite(P.in_scale))
    throw_error(ACLNN_ERR_PARAM_INVALID, "inputScale must be finite, got %g", P.in_scale);
  if (!std::isfinite(P.out_scale) || P.out_scale == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputScale must be finite and non-zero, got %g", P.out_scale);
  quant_range(x->dtype, &P.qmin, &P.qmax);  // the output has the input's dtype
  const struct { double v; const char *name; } zps[] = {{P.in_zp, "inputZeroPoint"}, {P.out_zp, "outputZeroPoint"}};
  for (const auto &z : zps)
    if (!(z.v >= P.qmin && z.v <= P.qmax) || z.v != std::floor(z.v))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be an integer within %s's range [%.0f, %.0f], got %g", z.name,
                  core::dtype_name(x->dtype), P.qmin, P.qmax, z.v);
}

bool mask_bit(const aclBoolArray *m, size_t i) { return m == nullptr || (i < m->values.size() && m->values[i]); }

}  // namespace

void chan_norm_phase1(core::OpBuilder &b, const ChanNormRule &rule, const ChanNormCall &c) {
  using kernels::ChanVec;
  const bool backward = rule.mode == ChanNormMode::kBackward;
  if (c.output_mask != nullptr && c.output_mask->values.size() != 3)
    throw_error(ACLNN_ERR_PARAM_INVALID, "outputMask must hold 3 values (gradInput, gradWeight, gradBias), got %zu",
                c.output_mask->values.size());
  // Which outputs are wanted, and which inputs the chosen formula needs.
  auto wanted = [&](const ChanNormArg &a) {
    if (a.access != ChanNormArg::kOut) return true;
    if (a.role == ChanNormArg::kY) return !backward || (mask_bit(c.output_mask, 0) && c.input_g);
    if (a.role == kernels::kGradWeight) return mask_bit(c.output_mask, 1) && c.weight_g;
    if (a.role == kernels::kGradBias) return mask_bit(c.output_mask, 2) && c.bias_g;
    if (a.role == kernels::kSumDyOut || a.role == kernels::kSumDyXmuOut) return c.input_g;
    return true;
  };
  const bool quant = rule.mode == ChanNormMode::kQuantForward;  // inference from the running statistics
  const bool eval = quant || (!c.training && (rule.mode == ChanNormMode::kForward || backward));
  auto required = [&](const ChanNormArg &a) {
    if (a.role == kernels::kRunMean || a.role == kernels::kRunVar) return eval || !a.optional;
    if (backward && (a.role == kernels::kMeanIn || a.role == kernels::kInvstdIn)) return !eval;
    if (a.access == ChanNormArg::kOut) return wanted(a) && !a.optional;
    return !a.optional;
  };
  const bool sync = rule.mode == ChanNormMode::kSyncGather;
  const aclTensor *x = nullptr;
  const char *x_name = c.args[0].name;
  for (const ChanNormArg &a : c.args) {
    if (a.t == nullptr) {
      if (required(a)) core::check_not_null(a.t, a.name);
      continue;
    }
    // The sync gather's sample counts may also be integers (documented).
    const bool int_counts = sync && a.role == kernels::kCounts;
    const core::DtypeMask allowed = quant && a.role >= 0 ? core::dtype_bit(ACL_FLOAT)
                                    : int_counts         ? rule.dtypes | core::dtype_bit(ACL_INT32)
                                                         : rule.dtypes;
    core::check_dtype_in(a.t, a.name, allowed);
    if (a.role == ChanNormArg::kX) {
      x = a.t;
      x_name = a.name;
    }
  }

  // Shapes: x is [N, C, ...] (or channels last); per-element operands have x's shape, per-channel
  // ones C elements ([G, C] / G for the gathers' statistics and counts). Without x (the sync
  // gather) C comes from the first per-group sum.
  ChanNormPlan P;
  P.mode = rule.mode;
  int cdim = 1;
  int64_t C = 0, groups = 0;
  const aclTensor *cref = x;
  const char *c_from = x_name;
  if (sync) {
    for (const ChanNormArg &a : c.args)
      if (a.role == kernels::kSumIn && cref == nullptr) {
        cref = a.t;
        c_from = a.name;
      }
    if (cref->ndim != 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 2-d ([G, C]: per-group sums), got shape %s", c_from,
                  core::shape_string(*cref).c_str());
    C = cref->dims[1];
  } else if (x != nullptr) {
    if (x->ndim < 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least 2 dims ([N, C, ...]), got shape %s", x_name,
                  core::shape_string(*x).c_str());
    if (x->ndim > kernels::kMaxLoopDims)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has too many dims (%d)", x_name, x->ndim);
    if (quant && x->ndim != 4)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 4-d (NCHW), got shape %s", x_name, core::shape_string(*x).c_str());
    const bool channels_last = x->format == ACL_FORMAT_NHWC || x->format == ACL_FORMAT_NDHWC;
    cdim = channels_last && !quant ? x->ndim - 1 : 1;
    C = x->dims[cdim];
  }
  auto per_group = [&](const ChanNormArg &a) {
    if (rule.mode == ChanNormMode::kGather) return a.role == kernels::kMeanIn || a.role == kernels::kInvstdIn;
    return sync && (a.role == kernels::kSumIn || a.role == kernels::kSqSumIn);
  };
  const char *counts_name = "counts";
  for (const ChanNormArg &a : c.args) {
    if (a.t == nullptr || a.role < 0 || cref == nullptr) continue;
    if (a.role == kernels::kCounts) {
      if (a.t->ndim != 1 || (sync && a.t->dims[0] == 0))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 1-d (one count per group, at least one), got shape %s",
                    a.name, core::shape_string(*a.t).c_str());
      if (groups == 0) groups = a.t->dims[0];
      counts_name = a.name;
    } else if (per_group(a)) {
      if (a.t->ndim != 2 || a.t->dims[1] != C)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [G, %lld] (per-group statistics; C from %s), got shape %s",
                    a.name, static_cast<long long>(C), c_from, core::shape_string(*a.t).c_str());
    } else if (!(a.t->ndim == 1 && a.t->dims[0] == C)) {
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [%lld] (one value per channel of %s), got shape %s", a.name,
                  static_cast<long long>(C), c_from, core::shape_string(*a.t).c_str());
    }
  }
  for (const ChanNormArg &a : c.args) {
    if (a.t != nullptr && per_group(a) && a.t->dims[0] != groups)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld groups; %s has %lld", a.name,
                  static_cast<long long>(a.t->dims[0]), counts_name, static_cast<long long>(groups));
    if (a.t != nullptr && a.role < 0 && a.role != ChanNormArg::kX)
      core::check_shape_equals(*a.t, a.name, core::Shape::of(*x));
    if (quant && a.t != nullptr && a.role == ChanNormArg::kY && a.t->dtype != x->dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %s's dtype %s, got %s", a.name, x_name,
                  core::dtype_name(x->dtype), core::dtype_name(a.t->dtype));
  }
  if (!(c.eps >= 0)) throw_error(ACLNN_ERR_PARAM_INVALID, "eps must be >= 0, got %g", c.eps);
  if (quant) set_quantisation(P, c, x);

  // Registration in prototype order: the inputs (and updated tensors), then the outputs.
  int slot[32];
  const size_t nargs = c.args.size();
  if (nargs > 32) throw_error(ACLNN_ERR_PARAM_INVALID, "too many tensor arguments");
  for (size_t i = 0; i < nargs; ++i) {
    const ChanNormArg &a = c.args[i];
    if (a.access == ChanNormArg::kOut) continue;
    // An updated tensor takes an input and an output index even when null (as every optional one
    // does), so the indices of the later tensors do not depend on which optional ones are given.
    slot[i] = a.access == ChanNormArg::kInOut ? b.inout(a.t) : b.input(a.t);
  }
  for (size_t i = 0; i < nargs; ++i)
    if (c.args[i].access == ChanNormArg::kOut) slot[i] = wanted(c.args[i]) ? b.output(c.args[i].t) : b.output(nullptr);

  auto &st = b.add_step<ChanNormStep>();
  P.channels = C;
  P.eps = c.eps;
  P.momentum = c.momentum;
  P.groups = groups;
  bool given = false;  // the op takes the statistics as inputs (BatchNormElemt)
  for (const ChanNormArg &a : c.args) given = given || (a.role == kernels::kMeanIn && rule.mode == ChanNormMode::kForward);
  P.stats = rule.mode == ChanNormMode::kForward && c.training && !given ? ChanNormPlan::Stats::kFromData
            : eval                                            ? ChanNormPlan::Stats::kRunning
                                                              : ChanNormPlan::Stats::kGiven;
  P.training_grad = !eval;
  for (size_t i = 0; i < nargs; ++i) {
    const ChanNormArg &a = c.args[i];
    if (slot[i] < 0) continue;
    const aclTensor &t = b.tensor(slot[i]);
    const core::OperandRef ref = core::OperandRef::of_slot(slot[i], t);
    if (a.role >= 0) {
      st.vec[a.role] = ref;
      P.has[a.role] = true;
      P.vec[a.role].dtype = t.dtype;
      P.vec[a.role].stride = t.strides[t.ndim - 1];
      P.vec[a.role].row = t.ndim == 2 ? t.strides[0] : 0;
      if (a.role == kernels::kCounts) {  // counts: one per group, read as [G] rows
        P.vec[a.role].row = t.strides[0];
        P.vec[a.role].stride = 0;
      }
      continue;
    }
    kernels::ChanTensor &ct = a.role == ChanNormArg::kX ? P.x : a.role == ChanNormArg::kDy ? P.dy : P.y;
    (a.role == ChanNormArg::kX ? st.x : a.role == ChanNormArg::kDy ? st.dy : st.y) = ref;
    ct.dtype = t.dtype;
    ct.chan = t.strides[cdim];
    for (int d = 0, k = 0; d < t.ndim; ++d)
      if (d != cdim) ct.pos[k++] = t.strides[d];
    if (a.role == ChanNormArg::kDy) P.has_dy = true;
    if (a.role == ChanNormArg::kY) P.has_y = true;
  }
  // Running statistics are updated by a training forward pass (and the gather) when given.
  P.update_running = (P.stats == ChanNormPlan::Stats::kFromData && rule.mode == ChanNormMode::kForward) ||
                     rule.mode == ChanNormMode::kGather || sync;
  P.update_running = P.update_running && P.has[kernels::kRunMean] && P.has[kernels::kRunVar];
  if (P.has[kernels::kRunMean] != P.has[kernels::kRunVar])
    throw_error(ACLNN_ERR_PARAM_INVALID, "runningMean and runningVar must both be given or both be null");
  if (x != nullptr) {
    P.m = 1;
    for (int d = 0; d < x->ndim; ++d)
      if (d != cdim) P.pos_shape[P.npos++] = x->dims[d];
    for (int d = 0; d < P.npos; ++d) P.m *= P.pos_shape[d];
    merge_lines(P);
    P.line = P.npos > 0 ? std::max<int64_t>(1, P.pos_shape[P.npos - 1]) : 1;
  }
  if (core::current_phase1_trace() != nullptr) {
    core::ImplTrace trace;
    const char *tier = kernels::choose_chan_norm_tier(P, &trace);
    core::record_choice(std::string("chan_norm:") + tier, &trace);
  } else {
    kernels::choose_chan_norm_tier(P, nullptr);
  }
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(C, core::num_threads())));
  st.plan = P;
  st.ws = b.book("channel_norm.lines", P.workspace_bytes());
}

}  // namespace opsnn::ops

#include "ops/loss/class_loss_phase1.h"

#include <cstring>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "kernels/loss/class_loss.h"
#include "ops/dimwise/dimwise_phase1.h"

namespace opsnn::ops {
namespace {

using kernels::ClassLossMode;
using kernels::ClassLossPlan;

struct ClassLossStep final : core::Step {
  ClassLossPlan plan;
  core::OperandRef x, target, weight, grad, total_in, out, total_out;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    kernels::ClassLossArgs a;
    auto in = [&](const core::OperandRef &r) -> const char * {
      return r.slot >= 0 || r.ws.booked() ? r.address(args) : nullptr;
    };
    a.x = in(x);
    a.target = in(target);
    a.weight = in(weight);
    a.grad = in(grad);
    a.total_in = in(total_in);
    a.out = out.address(args);
    a.total_out = total_out.slot >= 0 ? total_out.address(args) : nullptr;
    a.workspace = args.get(ws);
    return kernels::class_loss_run(plan, a);
  }
};

bool single(const aclTensor &t) { return t.ndim == 0 || (t.ndim == 1 && t.dims[0] == 1); }

struct MultilabelStep final : core::Step {
  ClassLossPlan plan;
  core::OperandRef x, target, out, is_target;
  core::WsKey ws;
  int run(const core::LaunchArgs &args) const override {
    kernels::ClassLossArgs a;
    a.x = x.address(args);
    a.target = target.address(args);
    a.out = out.address(args);
    a.workspace = args.get(ws);
    return kernels::multilabel_margin_run(plan, a, is_target.address(args));
  }
};

void require_single(const aclTensor &t, const char *name, const char *what) {
  if (!single(t))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 0-d or [1] (%s), got shape %s", name, what,
                core::shape_string(t).c_str());
}

int parse_reduction(const ClassLossCall &c) {
  if (!c.reduction_is_text) {
    if (c.reduction < 0 || c.reduction > 2)
      throw_error(ACLNN_ERR_PARAM_INVALID, "reduction must be 0 (none), 1 (mean) or 2 (sum), got %lld",
                  static_cast<long long>(c.reduction));
    return static_cast<int>(c.reduction);
  }
  if (c.reduction_text == nullptr || std::strcmp(c.reduction_text, "mean") == 0) return 1;
  if (std::strcmp(c.reduction_text, "none") == 0) return 0;
  if (std::strcmp(c.reduction_text, "sum") == 0) return 2;
  throw_error(ACLNN_ERR_PARAM_INVALID, "reductionOptional must be \"none\", \"mean\" or \"sum\", got \"%s\"",
              c.reduction_text);
}

// Log-softmax of x's rows (dim 1 of [N, C]) into each of `outs` (1 or 2 operands with their dtypes
// and element strides), on the dim-wise engine.
void record_log_softmax(core::OpBuilder &b, const aclTensor &x, int x_slot, int nout, const core::OperandRef *outs,
                        const aclDataType *out_dtype, const int64_t (*out_strides)[2]) {
  kernels::DimwiseLoop L;
  L.op = kernels::DimwiseOp::kLogSoftmax;
  L.compute = x.dtype == ACL_DOUBLE ? core::ComputeType::kDouble : core::ComputeType::kFloat;
  L.nin = 1;
  L.nout = nout;
  L.in_dtype[0] = x.dtype;
  L.nouter = 1;
  L.outer_shape[0] = x.dims[0];
  L.nline = 1;
  L.line_shape[0] = x.dims[1];
  const int64_t xes = static_cast<int64_t>(core::dtype_size(x.dtype));
  L.in_outer[0][0] = x.strides[0] * xes;
  L.in_line[0][0] = x.strides[1] * xes;
  for (int k = 0; k < nout; ++k) {
    const int64_t es = static_cast<int64_t>(core::dtype_size(out_dtype[k]));
    L.out_dtype[k] = out_dtype[k];
    L.out_src[k] = 0;
    L.out_len[k] = x.dims[1];
    L.out_outer[k][0] = out_strides[k][0] * es;
    L.out_line[k][0] = out_strides[k][1] * es;
  }
  const core::OperandRef in = core::OperandRef::of_slot(x_slot, x);
  record_dimwise(b, L, &in, outs);
}

// MultilabelMarginLoss: self [C] or [N, C], target of the same shape (class indices ended by -1),
// out [N] (reduction none; 0-d or [1] for a 1-d self) or one value, isTarget shaped like self.
void multilabel_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c) {
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.target, c.target_name, rule.target_dtypes);
  core::check_dtype_in(c.out, c.out_name, rule.dtypes);
  core::check_dtype_in(c.is_target, c.is_target_name, rule.dtypes);
  const int reduction = parse_reduction(c);
  const aclTensor &x = *c.self;
  if (x.ndim != 1 && x.ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [C] or [N, C], got shape %s", c.self_name,
                core::shape_string(x).c_str());
  const int64_t classes = x.dims[x.ndim - 1], rows = x.ndim == 2 ? x.dims[0] : 1;
  if (classes == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has no classes (shape %s)", c.self_name, core::shape_string(x).c_str());
  const core::Shape xs = core::Shape::of(x);
  core::check_shape_equals(*c.target, c.target_name, xs);
  core::check_shape_equals(*c.is_target, c.is_target_name, xs);
  core::check_no_internal_overlap(*c.is_target, c.is_target_name);
  if (reduction == 0 && x.ndim == 2) {
    core::Shape n;
    n.dims[n.ndim++] = rows;
    core::check_shape_equals(*c.out, c.out_name, n);
    core::check_no_internal_overlap(*c.out, c.out_name);
  } else {
    require_single(*c.out, c.out_name, reduction == 0 ? "the loss of a 1-d self" : "the reduced loss");
  }
  const int s = b.input(c.self), t = b.input(c.target), o = b.output(c.out), it = b.output(c.is_target);
  auto &st = b.add_step<MultilabelStep>();
  ClassLossPlan &P = st.plan;
  const aclTensor &sx = b.tensor(s), &tx = b.tensor(t), &ox = b.tensor(o), &ix = b.tensor(it);
  P.reduction = reduction;
  P.classes = classes;
  P.positions = rows;
  P.npos = x.ndim - 1;
  P.x_dtype = sx.dtype;
  P.x_class = sx.strides[sx.ndim - 1];
  P.x_pos[0] = sx.ndim == 2 ? sx.strides[0] : 0;
  P.target_dtype = tx.dtype;
  P.target_class = tx.strides[tx.ndim - 1];
  P.target_pos[0] = tx.ndim == 2 ? tx.strides[0] : 0;
  P.out_dtype = ox.dtype;
  P.out_pos[0] = reduction == 0 && ox.ndim == 1 ? ox.strides[0] : 0;
  P.is_target_dtype = ix.dtype;
  P.is_target_class = ix.strides[ix.ndim - 1];
  P.is_target_pos = ix.ndim == 2 ? ix.strides[0] : 0;
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(rows, core::num_threads())));
  st.x = core::OperandRef::of_slot(s, sx);
  st.target = core::OperandRef::of_slot(t, tx);
  st.out = core::OperandRef::of_slot(o, ox);
  st.is_target = core::OperandRef::of_slot(it, ix);
  st.ws = b.book("multilabel_margin", kernels::multilabel_workspace_bytes(P));
}

}  // namespace

void class_loss_phase1(core::OpBuilder &b, const ClassLossRule &rule, const ClassLossCall &c) {
  if (rule.kind == ClassLossKind::kMultilabelMargin) {
    multilabel_phase1(b, rule, c);
    return;
  }
  if (rule.kind == ClassLossKind::kVocabSumExp || rule.kind == ClassLossKind::kVocabLoss) {
    vocab_ce_phase1(b, rule, c);
    return;
  }
  if (rule.kind == ClassLossKind::kChamferBackward) {
    chamfer_grad_phase1(b, rule, c);
    return;
  }
  const bool forward = rule.kind == ClassLossKind::kNll || rule.kind == ClassLossKind::kCrossEntropy;
  const bool nll = rule.kind == ClassLossKind::kNll || rule.kind == ClassLossKind::kNllBackward;
  if (!forward) core::check_dtype_in(c.grad, c.grad_name, rule.dtypes);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.target, c.target_name, rule.target_dtypes);
  if (c.weight != nullptr) core::check_dtype_in(c.weight, c.weight_name, rule.dtypes);
  if (nll) core::check_dtype_in(c.total, c.total_name, rule.dtypes);
  core::check_dtype_in(c.out, c.out_name, rule.dtypes);
  if (rule.kind == ClassLossKind::kCrossEntropy && c.log_prob != nullptr)
    core::check_dtype_in(c.log_prob, c.log_prob_name, rule.dtypes);
  const int reduction = parse_reduction(c);

  // Shapes: self [N, C, d...] ([C] for 1-d NLLLoss); positions are every dim but the class dim.
  const aclTensor &x = *c.self;
  if (rule.self_ndim == 0 ? (x.ndim != 1 && x.ndim != 2) : x.ndim != rule.self_ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have %s dims, got shape %s", c.self_name,
                rule.self_ndim == 0 ? "1 ([C]) or 2 ([N, C])" : std::to_string(rule.self_ndim).c_str(),
                core::shape_string(x).c_str());
  const int cdim = x.ndim == 1 ? 0 : 1;
  const int64_t classes = x.dims[cdim];
  core::Shape pos;
  for (int d = 0; d < x.ndim; ++d)
    if (d != cdim) pos.dims[pos.ndim++] = x.dims[d];
  int64_t positions = 1;
  for (int d = 0; d < pos.ndim; ++d) positions *= pos.dims[d];
  if (classes == 0 && positions > 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has no classes (shape %s)", c.self_name, core::shape_string(x).c_str());
  core::check_shape_equals(*c.target, c.target_name, pos);
  if (c.weight != nullptr && !(c.weight->ndim == 1 && c.weight->dims[0] == classes))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be [%lld] (one weight per class), got shape %s", c.weight_name,
                static_cast<long long>(classes), core::shape_string(*c.weight).c_str());
  if (!(c.smoothing >= 0 && c.smoothing <= 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "labelSmoothing must be in [0, 1], got %g", c.smoothing);
  if (rule.kind == ClassLossKind::kCrossEntropy && c.return_zloss)
    throw_error(ACLNN_ERR_PARAM_INVALID, "returnZloss = true is not supported (z-loss outputs are not computed)");
  if (rule.kind == ClassLossKind::kCrossEntropyGrad && c.zloss_scale != 0 && c.grad_zloss != nullptr)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s with lseSquareScaleForZloss = %g is not supported (z-loss gradients are not computed)",
                c.grad_zloss_name, c.zloss_scale);
  if (nll) require_single(*c.total, c.total_name, "the summed weight of the counted targets");
  if (forward) {
    if (reduction == 0) core::check_shape_equals(*c.out, c.out_name, pos);
    else require_single(*c.out, c.out_name, "the reduced loss");
    if (c.log_prob != nullptr) core::check_shape_equals(*c.log_prob, c.log_prob_name, core::Shape::of(x));
  } else {
    core::check_shape_equals(*c.out, c.out_name, core::Shape::of(x));
    if (reduction == 0) core::check_shape_equals(*c.grad, c.grad_name, pos);
    else require_single(*c.grad, c.grad_name, "the gradient of the reduced loss");
  }

  // Registration in prototype order: inputs, then outputs.
  const int g = forward ? -1 : b.input(c.grad);
  const int s = b.input(c.self);
  const int t = b.input(c.target);
  const int w = b.input(c.weight);
  int total_in = -1, total_out = -1, o = -1, lp = -1;
  if (rule.kind == ClassLossKind::kNllBackward) total_in = b.input(c.total);
  if (rule.kind == ClassLossKind::kCrossEntropyGrad) {
    b.input(c.grad_zloss);
    b.input(c.lse_in);
  }
  o = b.output(c.out);
  if (rule.kind == ClassLossKind::kNll) total_out = b.output(c.total);
  if (rule.kind == ClassLossKind::kCrossEntropy) {
    lp = b.output(c.log_prob);
    b.output(c.zloss);
    b.output(c.lse_out);
  }

  auto &step_ref = [&]() -> ClassLossStep & {
    // Cross-entropy: log-softmax first; the loss reads it (logProbOut, or its FLOAT copy).
    if (rule.kind != ClassLossKind::kCrossEntropy) return b.add_step<ClassLossStep>();
    core::OperandRef outs[2];
    aclDataType dts[2];
    int64_t strides[2][2];
    int nout = 0;
    if (lp >= 0) {
      const aclTensor &v = b.tensor(lp);
      outs[nout] = core::OperandRef::of_slot(lp, v);
      dts[nout] = v.dtype;
      strides[nout][0] = v.strides[0];
      strides[nout][1] = v.strides[1];
      ++nout;
    }
    const bool exact = lp >= 0 && (b.tensor(lp).dtype == ACL_FLOAT || b.tensor(lp).dtype == ACL_DOUBLE);
    core::OperandRef copy = exact ? outs[0] : core::OperandRef{};
    aclDataType copy_dt = exact ? b.tensor(lp).dtype : (x.dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT);
    if (!exact) {
      copy.ws = b.book("cross_entropy.log_prob",
                       static_cast<uint64_t>(positions * classes) * core::dtype_size(copy_dt) + 1);
      outs[nout] = copy;
      dts[nout] = copy_dt;
      strides[nout][0] = classes;
      strides[nout][1] = 1;
      ++nout;
    }
    if (positions * classes > 0) record_log_softmax(b, b.tensor(s), s, nout, outs, dts, strides);
    auto &st = b.add_step<ClassLossStep>();
    st.x = copy;
    st.plan.x_dtype = copy_dt;
    st.plan.x_pos[0] = exact ? b.tensor(lp).strides[0] : classes;
    st.plan.x_class = exact ? b.tensor(lp).strides[1] : 1;
    return st;
  }();
  ClassLossStep &st = step_ref;
  ClassLossPlan &P = st.plan;
  P.mode = forward ? ClassLossMode::kForward
           : nll   ? ClassLossMode::kNllBackward
                   : ClassLossMode::kCrossEntropyBackward;
  P.reduction = reduction;
  P.ignore_index = c.ignore_index;
  P.smoothing = nll ? 0.0 : c.smoothing;
  P.classes = classes;
  P.positions = positions;
  P.npos = pos.ndim;
  for (int d = 0; d < pos.ndim; ++d) P.pos_shape[d] = pos.dims[d];
  const aclTensor &xs = b.tensor(s);
  if (rule.kind != ClassLossKind::kCrossEntropy) {
    st.x = core::OperandRef::of_slot(s, xs);
    P.x_dtype = xs.dtype;
    P.x_class = xs.strides[cdim];
    for (int d = 0, k = 0; d < xs.ndim; ++d)
      if (d != cdim) P.x_pos[k++] = xs.strides[d];
  }
  const aclTensor &ts = b.tensor(t);
  st.target = core::OperandRef::of_slot(t, ts);
  P.target_dtype = ts.dtype;
  for (int d = 0; d < pos.ndim; ++d) P.target_pos[d] = ts.strides[d];
  if (w >= 0) {
    st.weight = core::OperandRef::of_slot(w, b.tensor(w));
    P.has_weight = true;
    P.weight_dtype = b.tensor(w).dtype;
    P.weight_stride = b.tensor(w).strides[0];
  }
  if (g >= 0) {
    const aclTensor &gs = b.tensor(g);
    st.grad = core::OperandRef::of_slot(g, gs);
    P.grad_dtype = gs.dtype;
    if (reduction == 0)
      for (int d = 0; d < pos.ndim; ++d) P.grad_pos[d] = gs.strides[d];
  }
  if (total_in >= 0) {
    st.total_in = core::OperandRef::of_slot(total_in, b.tensor(total_in));
    P.total_dtype = b.tensor(total_in).dtype;
  }
  if (total_out >= 0) {
    st.total_out = core::OperandRef::of_slot(total_out, b.tensor(total_out));
    P.total_dtype = b.tensor(total_out).dtype;
    P.has_total_out = true;
  }
  const aclTensor &os = b.tensor(o);
  st.out = core::OperandRef::of_slot(o, os);
  P.out_dtype = os.dtype;
  if (forward) {
    if (reduction == 0)
      for (int d = 0; d < pos.ndim; ++d) P.out_pos[d] = os.strides[d];
  } else {
    P.out_class = os.strides[cdim];
    for (int d = 0, k = 0; d < os.ndim; ++d)
      if (d != cdim) P.out_pos[k++] = os.strides[d];
  }
  const bool lines = !forward || P.smoothing != 0;
  P.tasks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(positions, lines ? core::num_threads() : 1)));
  if (forward && !lines && positions >= 4096) P.tasks = std::min(core::num_threads(), 8);
  st.ws = b.book("class_loss", P.workspace_bytes());
}

}  // namespace opsnn::ops

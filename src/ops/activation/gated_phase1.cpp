#include "ops/activation/gated_phase1.h"

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "common/error.h"
#include "core/executor.h"
#include "core/op_checks.h"
#include "kernels/elementwise/elementwise.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

namespace {

using core::dtype_name;
using core::shape_string;

// sum(groupIndex) clamped to [0, rows], rows = the product of view's dims [0, row_dims).
int64_t group_rows(const core::LaunchArgs &args, int group_slot, const aclTensor &group, const aclTensor &view,
                   int row_dims) {
  const auto *gi = reinterpret_cast<const int64_t *>(core::view_base(args, group_slot, group, 8));
  int64_t sum = 0;
  for (int64_t i = 0; i < group.dims[0]; ++i) sum += gi[i * group.strides[0]];
  int64_t rows = 1;
  for (int d = 0; d < row_dims; ++d) rows *= view.dims[d];
  return sum < 0 ? 0 : sum > rows ? rows : sum;
}

// One term of the grouped form: out = kernel(operands), every view with the same dims.
struct GroupTerm {
  int nops = 0;                                   // out + inputs
  int slots[kernels::kMaxOperands] = {};
  aclTensor views[kernels::kMaxOperands] = {};
  kernels::ContigKernel kernel = nullptr, fill = nullptr;
  aclDataType round_through = ACL_DT_UNDEFINED;
};

// With groupIndexOptional: at run time, sum(groupIndex) = v rows (dims [0, row_dims) of every view,
// row-major) are computed, the others zeroed. The prefix of rows [0, v) and the rest are each a union
// of at most row_dims boxes (mixed-radix digits of v), each planned and run as one element-wise loop
// per term.
class GroupedGatedStep final : public core::Step {
 public:
  int group_slot = -1;
  aclTensor group{};
  int row_dims = 0, nterms = 0;
  GroupTerm terms[2];
  kernels::OpScalars scalars;
  core::ComputeType ct = core::ComputeType::kFloat;

  int run(const core::LaunchArgs &args) const override {
    const aclTensor &out = terms[0].views[0];
    const int64_t valid = group_rows(args, group_slot, group, out, row_dims);
    int64_t rows = 1;
    for (int d = 0; d < row_dims; ++d) rows *= out.dims[d];
    if (valid <= 0 || valid >= rows) {
      run_box(args, nullptr, nullptr, 0, valid > 0);
      return 0;
    }
    int64_t digit[core::kMaxDims] = {}, start[core::kMaxDims] = {}, len[core::kMaxDims] = {};
    for (int64_t d = row_dims - 1, rem = valid; d >= 0; --d) {
      digit[d] = rem % out.dims[d];
      rem /= out.dims[d];
    }
    // Level i: dims before i fixed at the digits of v; dim i runs over [0, digit) (rows before v)
    // or [digit + 1, size) ([digit, size) at the last level, which holds row v itself).
    for (int i = 0; i < row_dims; ++i) {
      if (i > 0) {
        start[i - 1] = digit[i - 1];
        len[i - 1] = 1;
      }
      start[i] = 0;
      len[i] = digit[i];
      if (len[i] > 0) run_box(args, start, len, i + 1, true);
      start[i] = i == row_dims - 1 ? digit[i] : digit[i] + 1;
      len[i] = out.dims[i] - start[i];
      if (len[i] > 0) run_box(args, start, len, i + 1, false);
    }
    return 0;
  }

 private:
  // Runs every term (compute) or writes zeros to its output over the box: dims k < nfix restricted
  // to [start[k], start[k] + len[k]), the others whole. (No allocation: this runs on the stream.)
  void run_box(const core::LaunchArgs &args, const int64_t *start, const int64_t *len, int nfix, bool compute) const {
    for (int t = 0; t < nterms; ++t) {
      const GroupTerm &term = terms[t];
      const aclTensor &out = term.views[0];
      const int nops = compute ? term.nops : 1;
      int64_t shape[kernels::kMaxLoopDims];
      int64_t strides[kernels::kMaxOperands][kernels::kMaxLoopDims] = {};
      aclDataType dtypes[kernels::kMaxOperands];
      char *base[kernels::kMaxOperands];
      for (int d = 0; d < out.ndim; ++d) shape[d] = d < nfix ? len[d] : out.dims[d];
      for (int op = 0; op < nops; ++op) {
        const aclTensor &v = term.views[op];
        int64_t off = v.offset;
        for (int d = 0; d < nfix && d < v.ndim; ++d) off += start[d] * v.strides[d];
        for (int d = 0; d < v.ndim; ++d) strides[op][d] = v.strides[d];
        dtypes[op] = v.dtype;
        base[op] = static_cast<char *>(args.addrs[term.slots[op]]) + off * static_cast<int64_t>(core::dtype_size(v.dtype));
      }
      kernels::ElementwiseLoop loop = kernels::plan_elementwise_loop(out.ndim, shape, nops, strides, dtypes, ct);
      if (compute) {
        loop.round_through = term.round_through;
        kernels::run_elementwise(loop, base, term.kernel, scalars);
      } else {
        kernels::run_elementwise(loop, base, term.fill, kernels::OpScalars{});  // +0.0
      }
    }
  }
};

// Flattens dims [dim, ndim) of `t` into one (they must nest like a contiguous block), or returns false.
bool merge_tail(const aclTensor &t, int dim, aclTensor *merged) {
  aclTensor m = t;
  int64_t size = 1, stride = 1;
  bool have = false;
  for (int k = t.ndim - 1; k >= dim; --k) {
    if (t.dims[k] == 1) continue;
    if (!have) {
      stride = t.strides[k];
      have = true;
    } else if (t.strides[k] != stride * size) {
      return false;
    }
    size *= t.dims[k];
  }
  m.ndim = dim + 1;
  m.dims[dim] = size;
  m.strides[dim] = have ? stride : 1;
  if (t.numel() == 0) {  // any descriptor of an empty tensor will do
    size = 1;
    for (int k = dim; k < t.ndim; ++k) size *= t.dims[k];
    m.dims[dim] = size;
    m.strides[dim] = 1;
  }
  *merged = m;
  return true;
}

void check_shape(const GatedArg &a, const core::Shape &want, int status, const char *what) {
  if (a.t != nullptr && !(core::Shape::of(*a.t) == want))
    throw_error(status, "%s has shape %s; expected %s (%s)", a.name, shape_string(*a.t).c_str(), want.str().c_str(),
                what);
}

void check_same_dtype(const GatedArg &a, const GatedArg &x) {
  if (a.t != nullptr && a.t->dtype != x.t->dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", a.name,
                dtype_name(a.t->dtype), x.name, dtype_name(x.t->dtype));
}

// A registered tensor's planned descriptor.
struct Planned {
  int slot = -1;
  aclTensor view{};
};

}  // namespace

void gated_phase1(core::OpBuilder &b, const GatedRule &rule, const GatedCall &c) {
  // -- check
  core::check_dtype_in(c.x.t, c.x.name, rule.dtypes);
  const aclTensor &x = *c.x.t;
  const aclDataType dt = x.dtype;
  for (const GatedArg *a : {&c.grad, &c.gelu, &c.out}) {
    if (rule.backward) check_same_dtype(*a, c.x);
  }
  if (c.threshold.t != nullptr) {
    core::check_dtype_in(c.threshold.t, c.threshold.name, rule.dtypes);
    if (c.threshold.t->numel() != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold exactly one element, got shape %s", c.threshold.name,
                  shape_string(*c.threshold.t).c_str());
  }
  if (!rule.backward) {
    for (const GatedArg *a : {&c.out, &c.out_gelu}) {
      if (a->t != nullptr && (!core::is_floating(a->t->dtype) || !core::can_cast(dt, a->t->dtype)))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which cannot hold the %s result of %s", a->name,
                    dtype_name(a->t->dtype), dtype_name(dt), c.x.name);
    }
  }
  if (c.group.t != nullptr && (c.group.t->dtype != ACL_INT64 || c.group.t->ndim != 1))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be a 1-D INT64 tensor (got %s of %d dims)", c.group.name,
                dtype_name(c.group.t->dtype), c.group.t->ndim);
  if (x.ndim == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; it needs a dimension to split in two halves", c.x.name);
  const int dim = core::wrap_dim(c.dim, x.ndim, "dim");
  if (x.dims[dim] % 2 != 0)
    throw_error(rule.status, "%s has size %lld along dim %d, which is odd; it must split in two equal halves",
                c.x.name, static_cast<long long>(x.dims[dim]), dim);
  core::Shape half = core::Shape::of(x);
  half.dims[dim] /= 2;
  char what[160];
  std::snprintf(what, sizeof what, "%s halved along dim %d", c.x.name, dim);
  if (rule.backward) {
    check_shape(c.grad, half, rule.status, what);
    check_shape(c.gelu, half, rule.status, what);
    std::snprintf(what, sizeof what, "the shape of %s", c.x.name);
    check_shape(c.out, core::Shape::of(x), rule.status, what);
  } else {
    check_shape(c.out, half, rule.status, what);
    check_shape(c.out_gelu, half, rule.status, what);
  }

  // -- register, in prototype order (gradient, input, group index, saved GELU / threshold, outputs)
  Planned grad, xs, gelu, thr, out, out_gelu;
  int group_slot = -1;
  if (c.grad.t != nullptr) grad.slot = b.input(c.grad.t);
  xs.slot = b.input(c.x.t);
  if (*c.group.name != '\0') group_slot = b.input(c.group.t);
  if (c.gelu.t != nullptr) gelu.slot = b.input(c.gelu.t);
  if (c.threshold.t != nullptr) thr.slot = b.input(c.threshold.t);
  out.slot = b.output(c.out.t);
  if (c.out_gelu.t != nullptr) out_gelu.slot = b.output(c.out_gelu.t);

  // -- plan: the views (the tail from dim on merged into one dim when interleaved), then the halves
  std::pair<Planned *, const char *> planned[] = {{&xs, c.x.name},     {&grad, c.grad.name}, {&gelu, c.gelu.name},
                                                  {&out, c.out.name}, {&out_gelu, c.out_gelu.name}};
  for (auto &[p, name] : planned) {
    if (p->slot < 0) continue;
    p->view = b.tensor(p->slot);
    if (c.interleaved && !merge_tail(p->view, dim, &p->view))
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s must be contiguous from dim %d on: an interleaved split takes the even / odd elements of "
                  "those dims flattened",
                  name, dim);
  }
  if (thr.slot >= 0) {
    thr.view = b.tensor(thr.slot);  // its one element, as a 0-d view broadcast to the output
    thr.view.ndim = 0;
  }
  const int64_t h = xs.view.dims[dim] / 2;
  auto halves = [&](const aclTensor &t, aclTensor *ab) {
    const aclTensor first = c.interleaved ? narrow_view(t, dim, 0, h, 2) : narrow_view(t, dim, 0, h);
    const aclTensor second = c.interleaved ? narrow_view(t, dim, 1, h, 2) : narrow_view(t, dim, h, h);
    ab[0] = c.a_first ? first : second;
    ab[1] = c.a_first ? second : first;
  };
  aclTensor x_ab[2], out_ab[2];
  halves(xs.view, x_ab);
  for (const Planned *p : {&out, &out_gelu})
    if (p->slot >= 0) core::check_no_internal_overlap(p->view, p == &out ? c.out.name : c.out_gelu.name);
  if (rule.backward) halves(out.view, out_ab);

  // -- record: one element-wise pass per term, or the grouped step
  EwSpec spec;
  spec.compute_dtype = dt;
  for (int i = 0; i < c.nscalars; ++i) spec.set_scalar(i, c.scalars[i]);
  auto target = [&](const GatedTerm &t) {
    if (rule.backward) return EwInput::tensor_view(out.slot, out_ab[t.target]);
    const Planned &o = t.target == 0 ? out : out_gelu;
    return EwInput::tensor_view(o.slot, o.view);
  };
  auto operand = [&](GatedOperand o) {
    switch (o) {
      case GatedOperand::kGrad: return EwInput::tensor_view(grad.slot, grad.view);
      case GatedOperand::kA: return EwInput::tensor_view(xs.slot, x_ab[0]);
      case GatedOperand::kB: return EwInput::tensor_view(xs.slot, x_ab[1]);
      case GatedOperand::kGelu: return EwInput::tensor_view(gelu.slot, gelu.view);
      case GatedOperand::kThreshold: break;
    }
    return EwInput::tensor_view(thr.slot, thr.view);
  };
  if (group_slot < 0) {
    for (int i = 0; i < rule.nterms; ++i) {
      const GatedTerm &t = rule.terms[i];
      std::vector<EwInput> in;
      for (int k = 0; k < t.nops; ++k) in.push_back(operand(t.operands[k]));
      spec.op = t.use_gate ? c.gate : t.op;
      record_elementwise(b, spec, target(t), in);
    }
    return;
  }
  if (out.view.numel() == 0) return;
  const core::ComputeType ct = core::compute_type_of(dt);
  auto &s = b.add_step<GroupedGatedStep>();
  s.group_slot = group_slot;
  s.group = b.tensor(group_slot);
  s.row_dims = dim;
  s.nterms = rule.nterms;
  s.scalars = spec.scalars;
  s.ct = ct;
  const bool narrow = dt == ACL_FLOAT16 || dt == ACL_BF16;
  for (int i = 0; i < rule.nterms; ++i) {
    const GatedTerm &t = rule.terms[i];
    GroupTerm &g = s.terms[i];
    const EwInput o = target(t);
    g.slots[0] = o.slot;
    g.views[0] = o.view;
    g.nops = 1 + t.nops;
    for (int k = 0; k < t.nops; ++k) {
      const EwInput in = operand(t.operands[k]);
      g.slots[k + 1] = in.slot;
      g.views[k + 1] = in.view;
    }
    const kernels::EwOp op = t.use_gate ? c.gate : t.op;
    g.kernel = kernels::ew_kernel(op, ct);
    g.fill = kernels::ew_kernel(kernels::EwOp::kFill, ct);
    if (g.kernel == nullptr || g.fill == nullptr)
      throw_error(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "no %s kernel computes in %s", kernels::ew_op_name(op),
                  dtype_name(dt));
    // As record_elementwise: a FLOAT16 / BF16 result written to a wider out takes its dtype's value first.
    if (g.views[0].dtype != dt && narrow) g.round_through = dt;
  }
}

}  // namespace opsnn::ops

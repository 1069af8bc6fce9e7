#include "ops/activation/activation_grad_common.h"

#include <cstring>

#include "common/error.h"
#include "core/op_checks.h"

namespace opsnn::ops {

using core::dtype_name;

namespace {

std::string dtype_list(const std::vector<aclDataType> &dts) {
  std::string s;
  for (aclDataType d : dts) s += std::string(s.empty() ? "" : ", ") + dtype_name(d);
  return s;
}

bool contains(const std::vector<aclDataType> &dts, aclDataType d) {
  for (aclDataType x : dts)
    if (x == d) return true;
  return false;
}

// Flattens dims [dim, ndim) of `t` into one (they must nest like a contiguous block), or returns
// false.
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

// Zeroes the rows p >= min(sum(groupIndex), rows) of the gradient (ClippedSwigluGrad).
class ZeroRowsAfterGroupsStep final : public core::Step {
 public:
  int group_slot = -1, out_slot = -1;
  aclTensor group, out;  // out: the (merged) gradient; rows = product of dims [0, row_dims)
  int row_dims = 0;

  int run(const core::LaunchArgs &args) const override {
    const int64_t valid = group_index_rows(args, group_slot, group, out, row_dims);
    int64_t rows = 1;
    for (int d = 0; d < row_dims; ++d) rows *= out.dims[d];
    const size_t es = core::dtype_size(out.dtype);
    char *base = core::view_base(args, out_slot, out, es);
    for (int64_t p = valid; p < rows; ++p) {
      int64_t off = 0, rem = p;
      for (int d = row_dims - 1; d >= 0; --d) {
        off += (rem % out.dims[d]) * out.strides[d];
        rem /= out.dims[d];
      }
      // The row: dims [row_dims, ndim).
      int64_t inner = 1;
      for (int d = row_dims; d < out.ndim; ++d) inner *= out.dims[d];
      for (int64_t q = 0; q < inner; ++q) {
        int64_t o = off, r = q;
        for (int d = out.ndim - 1; d >= row_dims; --d) {
          o += (r % out.dims[d]) * out.strides[d];
          r /= out.dims[d];
        }
        std::memset(base + o * static_cast<int64_t>(es), 0, es);  // +0.0 in every float dtype
      }
    }
    return 0;
  }
};

}  // namespace

int64_t group_index_rows(const core::LaunchArgs &args, int group_slot, const aclTensor &group, const aclTensor &view,
                         int row_dims) {
  const auto *gi = reinterpret_cast<const int64_t *>(core::view_base(args, group_slot, group, 8));
  int64_t sum = 0;
  for (int64_t i = 0; i < group.dims[0]; ++i) sum += gi[i * group.strides[0]];
  int64_t rows = 1;
  for (int d = 0; d < row_dims; ++d) rows *= view.dims[d];
  return sum < 0 ? 0 : sum > rows ? rows : sum;
}

void check_grad_tensor(const aclTensor *t, const char *name, const std::vector<aclDataType> &dtypes) {
  core::check_tensor(t, name);
  if (!contains(dtypes, t->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; expected one of %s", name, dtype_name(t->dtype),
                dtype_list(dtypes).c_str());
}

GluGradPlan glu_grad_prepare(core::OpBuilder &b, const GluGradArgs &a) {
  core::check_tensor(a.grad, a.grad_name);
  core::check_tensor(a.x, a.x_name);
  if (a.extra_name) core::check_tensor(a.extra, a.extra_name);
  if (a.group_index) core::check_tensor(a.group_index, "groupIndexOptional");
  core::check_tensor(a.out, a.out_name);
  check_grad_tensor(a.x, a.x_name, a.dtypes);
  check_grad_tensor(a.grad, a.grad_name, a.dtypes);
  check_grad_tensor(a.out, a.out_name, a.dtypes);
  if (a.extra_name) check_grad_tensor(a.extra, a.extra_name, a.dtypes);
  const aclDataType dt = a.x->dtype;
  auto same = [&](const aclTensor *t, const char *name) {
    if (t->dtype != dt)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must equal %s dtype %s", name, dtype_name(t->dtype),
                  a.x_name, dtype_name(dt));
  };
  same(a.grad, a.grad_name);
  same(a.out, a.out_name);
  if (a.extra_name) same(a.extra, a.extra_name);
  if (a.group_index) {
    if (a.group_index->dtype != ACL_INT64 || a.group_index->ndim != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "groupIndexOptional must be a 1-D INT64 tensor (got %s of %d dims)",
                  dtype_name(a.group_index->dtype), a.group_index->ndim);
  }

  if (a.x->ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s must have at least one dimension", a.x_name);
  const int dim = core::wrap_dim(a.dim, a.x->ndim, "dim");
  if (a.x->dims[dim] % 2 != 0)
    throw_error(a.shape_error, "%s has size %lld in dim %d, which is not even", a.x_name,
                static_cast<long long>(a.x->dims[dim]), dim);
  core::Shape half = core::Shape::of(*a.x);
  half.dims[dim] /= 2;
  if (!(core::Shape::of(*a.grad) == half))
    throw_error(a.shape_error, "%s has shape %s; expected %s (%s halved in dim %d)", a.grad_name,
                core::shape_string(*a.grad).c_str(), half.str().c_str(), a.x_name, dim);
  if (a.extra_name && !(core::Shape::of(*a.extra) == half))
    throw_error(a.shape_error, "%s has shape %s; expected %s (the shape of %s)", a.extra_name,
                core::shape_string(*a.extra).c_str(), half.str().c_str(), a.grad_name);
  if (!(core::Shape::of(*a.out) == core::Shape::of(*a.x)))
    throw_error(a.shape_error, "%s has shape %s; expected %s (the shape of %s)", a.out_name,
                core::shape_string(*a.out).c_str(), core::shape_string(*a.x).c_str(), a.x_name);

  GluGradPlan p;
  p.dtype = dt;
  p.grad_slot = b.input(a.grad);
  p.x_slot = b.input(a.x);
  if (a.group_arg) p.group_slot = b.input(a.group_index);
  if (a.extra_name) p.extra_slot = b.input(a.extra);
  p.out_slot = b.output(a.out);
  p.empty = a.x->numel() == 0;

  aclTensor x = b.tensor(p.x_slot), out = b.tensor(p.out_slot);
  p.grad = b.tensor(p.grad_slot);
  if (p.extra_slot >= 0) p.extra = b.tensor(p.extra_slot);
  p.split_dim = dim;
  if (a.merge_tail) {
    bool ok = merge_tail(x, dim, &x) && merge_tail(out, dim, &out) && merge_tail(p.grad, dim, &p.grad);
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s, %s and %s must each be contiguous from dim %d on (this op splits the flattened tail)",
                  a.x_name, a.grad_name, a.out_name, dim);
  }
  const int64_t h = x.dims[dim] / 2;
  for (int k = 0; k < 2; ++k) {
    p.x_half[k] = a.interleaved ? narrow_view(x, dim, k, h, 2) : narrow_view(x, dim, k * h, h);
    p.out_half[k] = a.interleaved ? narrow_view(out, dim, k, h, 2) : narrow_view(out, dim, k * h, h);
  }
  core::check_no_internal_overlap(out, a.out_name);
  p.out_full = out;
  return p;
}

void glu_grad_record(core::OpBuilder &b, const GluGradPlan &plan, EwSpec spec, int which, bool swap) {
  spec.compute_dtype = plan.dtype;
  record_elementwise(b, spec, EwInput::tensor_view(plan.out_slot, plan.out_half[which]),
                     {EwInput::tensor_view(plan.grad_slot, plan.grad),
                      EwInput::tensor_view(plan.x_slot, plan.x_half[swap ? 1 : 0]),
                      EwInput::tensor_view(plan.x_slot, plan.x_half[swap ? 0 : 1])});
}

void glu_grad_record_with_extra(core::OpBuilder &b, const GluGradPlan &plan, EwSpec spec, int which) {
  spec.compute_dtype = plan.dtype;
  record_elementwise(b, spec, EwInput::tensor_view(plan.out_slot, plan.out_half[which]),
                     {EwInput::tensor_view(plan.grad_slot, plan.grad), EwInput::tensor_view(plan.extra_slot, plan.extra)});
}

void glu_grad_zero_rows_after_groups(core::OpBuilder &b, const GluGradPlan &plan) {
  if (plan.group_slot < 0 || plan.empty) return;
  auto &s = b.add_step<ZeroRowsAfterGroupsStep>();
  s.group_slot = plan.group_slot;
  s.group = b.tensor(plan.group_slot);
  s.out_slot = plan.out_slot;
  s.out = plan.out_full;  // merged like the halves: rows are the dims before the split dim
  s.row_dims = plan.split_dim;
}

}  // namespace opsnn::ops

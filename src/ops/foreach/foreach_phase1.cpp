#include "ops/foreach/foreach_phase1.h"

#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/elementwise/convert.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

using kernels::EwOp;

size_t list_size(const aclTensorList *l) { return l == nullptr ? 0 : l->tensors.size(); }

// Every entry given, and as many entries as x.
void check_list(const aclTensorList *l, const char *name, size_t n, const char *x_name) {
  if (l == nullptr) return;
  if (l->tensors.size() != n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors, %s has %zu: the lists must have one length", name,
                l->tensors.size(), x_name, n);
  for (size_t i = 0; i < n; ++i)
    if (l->tensors[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s[%zu] is null", name, i);
}

// list[i] has x[i]'s shape and dtype.
void check_entry_like(const aclTensorList *l, const char *name, const aclTensorList *x, const char *x_name) {
  if (l == nullptr) return;
  for (size_t i = 0; i < x->tensors.size(); ++i) {
    const aclTensor &t = *l->tensors[i], &ref = *x->tensors[i];
    const std::string what = std::string(name) + "[" + std::to_string(i) + "]";
    core::check_tensor(&t, what.c_str());
    if (t.dtype != ref.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, %s[%zu] has %s: they must be equal", what.c_str(),
                  core::dtype_name(t.dtype), x_name, i, core::dtype_name(ref.dtype));
    core::check_shape_equals(t, what.c_str(), core::Shape::of(ref));
  }
}

int64_t numel_of(const aclTensor &t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.dims[d];
  return n;
}

// Storage element offset of the k-th element (row-major) of t's view.
int64_t element_offset(const aclTensor &t, int64_t k) {
  int64_t off = t.offset;
  for (int d = t.ndim - 1; d >= 0; --d) {
    off += (k % t.dims[d]) * t.strides[d];
    k /= t.dims[d];
  }
  return off;
}

void check_real_tensor(const aclTensor *t, const char *name, int64_t want_numel) {
  core::check_tensor(t, name);
  if (numel_of(*t) != want_numel)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold %lld element(s), got shape %s", name,
                static_cast<long long>(want_numel), core::shape_string(*t).c_str());
}

// RoundOffNumber's roundMode (the vendor's rounding modes): 1 half to even, 2 floor, 3 ceil, 5 trunc.
EwOp round_kernel(int64_t mode, const char *name) {
  switch (mode) {
    case 1: return EwOp::kRound;
    case 2: return EwOp::kFloor;
    case 3: return EwOp::kCeil;
    case 5: return EwOp::kTrunc;
    default:
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 1 (half to even), 2 (floor), 3 (ceil) or 5 (trunc), got %lld",
                  name, static_cast<long long>(mode));
  }
}

// A 0-d view of one element of a registered tensor: broadcast to any entry's shape.
aclTensor element_view(const aclTensor &t) {
  aclTensor v = t;
  v.ndim = 0;
  return v;
}

// Norm: out[i] = ||x[i]||_p (kernels::ReduceOp::kNorm over every dim, in double), written to a 0-d view
// of the one-element out[i]. An empty entry's norm is 0 for every p (the inf norm's max has no
// identity; a norm of no gradient is 0).
void record_norms(core::OpBuilder &b, const std::vector<int> &xs, const std::vector<int> &outs, double p) {
  for (size_t i = 0; i < xs.size(); ++i) {
    if (numel_of(b.tensor(xs[i])) == 0) {
      EwSpec zero;
      zero.op = EwOp::kFill;
      zero.compute_dtype = b.tensor(outs[i]).dtype;
      zero.set_scalar(0, 0.0);
      record_elementwise(b, zero, outs[i], {});
      continue;
    }
    ReduceSpec spec;
    spec.op = kernels::ReduceOp::kNorm;
    spec.params.p = p;
    const int ndim = b.tensor(xs[i]).ndim;
    const uint32_t mask = ndim == 0 ? 0u : static_cast<uint32_t>((uint64_t{1} << ndim) - 1);
    record_reduction(b, spec, EwInput::tensor(xs[i]), mask, false,
                     {EwInput::tensor_view(outs[i], element_view(b.tensor(outs[i])))});
  }
}

// torch._amp_foreach_non_finite_check_and_unscale_: foundInf = 1 when any entry holds an inf / NaN
// (else unchanged), then every entry *= invScale (also when one was found, as PyTorch). The check
// reads the entries before they are scaled: each entry's 1-norm in double (inf or NaN exactly when
// the entry holds one; finite values cannot overflow it) into a workspace vector, their sum,
// IsFinite of the sum, and foundInf = where(finite, foundInf, 1).
void record_unscale(core::OpBuilder &b, const std::vector<int> &xs, aclDataType dt, int found_slot, int inv_slot) {
  const int64_t n = static_cast<int64_t>(xs.size());
  core::Shape vec;
  vec.ndim = 1;
  vec.dims[0] = n;
  const EwInput norms = EwInput::scratch(b, "foreach.entry_norms", vec, ACL_DOUBLE);
  for (int64_t i = 0; i < n; ++i) {
    ReduceSpec spec;
    spec.op = kernels::ReduceOp::kNorm;
    spec.params.p = 1;
    EwInput one = norms;
    one.view.ndim = 0;
    one.view.offset = i;
    const int ndim = b.tensor(xs[static_cast<size_t>(i)]).ndim;
    const uint32_t mask = ndim == 0 ? 0u : static_cast<uint32_t>((uint64_t{1} << ndim) - 1);
    record_reduction(b, spec, EwInput::tensor(xs[static_cast<size_t>(i)]), mask, false, {one});
  }
  const EwInput total = EwInput::scratch(b, "foreach.total_norm", core::Shape{}, ACL_DOUBLE);
  ReduceSpec sum;
  sum.op = kernels::ReduceOp::kSum;
  record_reduction(b, sum, norms, 1u, false, {total});
  const EwInput finite = EwInput::scratch(b, "foreach.total_finite", core::Shape{}, ACL_DOUBLE);
  EwSpec is_finite;
  is_finite.op = EwOp::kIsFinite;
  is_finite.compute_dtype = ACL_DOUBLE;
  record_elementwise(b, is_finite, finite, {total});
  aclScalar one_value;
  one_value.dtype = ACL_DOUBLE;
  const double one = 1;
  std::memcpy(one_value.bytes, &one, sizeof one);
  EwSpec where;
  where.op = EwOp::kWhere;
  where.compute_dtype = ACL_FLOAT;
  const EwInput found = EwInput::tensor_view(found_slot, element_view(b.tensor(found_slot)));
  record_elementwise(b, where, found, {finite, found, EwInput::constant(&one_value)});
  for (int x : xs) {
    EwSpec mul;
    mul.op = EwOp::kMul;
    mul.compute_dtype = dt;
    record_elementwise(b, mul, x, {EwInput::tensor(x), EwInput::tensor_view(inv_slot, element_view(b.tensor(inv_slot)))});
  }
}

}  // namespace

void foreach_phase1(core::OpBuilder &b, const ForeachRule &rule, const ForeachCall &c) {
  // Check: lengths, entries, dtypes and shapes, then the scalar parameters.
  const size_t n = list_size(c.x);
  if (n == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is an empty list: it must hold at least one tensor", c.x_name);
  check_list(c.x, c.x_name, n, c.x_name);
  check_list(c.x2, c.x2_name, n, c.x_name);
  check_list(c.x3, c.x3_name, n, c.x_name);
  check_list(c.out, c.out_name, n, c.x_name);
  const aclDataType dt = c.x->tensors[0]->dtype;
  for (size_t i = 0; i < n; ++i) {
    const aclTensor *t = c.x->tensors[i];
    const std::string what = std::string(c.x_name) + "[" + std::to_string(i) + "]";
    core::check_dtype_in(t, what.c_str(), rule.dtypes);
    if (t->dtype != dt)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, %s[0] has %s: every tensor of the list must have one dtype",
                  what.c_str(), core::dtype_name(t->dtype), c.x_name, core::dtype_name(dt));
  }
  check_entry_like(c.x2, c.x2_name, c.x, c.x_name);
  check_entry_like(c.x3, c.x3_name, c.x, c.x_name);
  if (rule.kind == ForeachKind::kNorm) {
    for (size_t i = 0; i < n; ++i) {  // one element of x[i]'s dtype
      const std::string what = std::string(c.out_name) + "[" + std::to_string(i) + "]";
      check_real_tensor(c.out->tensors[i], what.c_str(), 1);
      if (c.out->tensors[i]->dtype != dt)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, %s[%zu] has %s: they must be equal", what.c_str(),
                    core::dtype_name(c.out->tensors[i]->dtype), c.x_name, i, core::dtype_name(dt));
    }
  } else {
    check_entry_like(c.out, c.out_name, c.x, c.x_name);
  }
  if (rule.kind == ForeachKind::kUnscale) {
    check_real_tensor(c.found_inf, c.found_inf_name, 1);
    check_real_tensor(c.inv_scale, c.inv_scale_name, 1);
    core::check_dtype_in(c.found_inf, c.found_inf_name, {ACL_FLOAT});
    core::check_dtype_in(c.inv_scale, c.inv_scale_name, {ACL_FLOAT});
  }
  if (c.alpha_t != nullptr) check_real_tensor(c.alpha_t, c.alpha_t_name, 1);
  if (c.scalar_t != nullptr) check_real_tensor(c.scalar_t, c.scalar_t_name, 1);
  if (c.scalars_t != nullptr) check_real_tensor(c.scalars_t, c.scalars_t_name, static_cast<int64_t>(n));
  if (c.scalars != nullptr) {
    if (c.scalars->scalars.size() != n)
      throw_error(ACLNN_ERR_PARAM_INVALID, "scalars has %zu values, %s has %zu tensors: one value per tensor",
                  c.scalars->scalars.size(), c.x_name, n);
    for (size_t i = 0; i < n; ++i)
      if (c.scalars->scalars[i] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "scalars[%zu] is null", i);
  }
  EwOp op = rule.op;
  if (rule.kind == ForeachKind::kRound) {
    // roundMode is a host-side value (the vendor's documentation): read here, it picks the kernel.
    if (c.round_t != nullptr) {
      check_real_tensor(c.round_t, c.round_t_name, 1);
      core::check_dtype_in(c.round_t, c.round_t_name, {ACL_INT8, ACL_INT32, ACL_INT64});
      if (c.round_t->data == nullptr)
        throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s has no data: its value is read in phase 1", c.round_t_name);
      b.depends_on_tensor_values();
      op = round_kernel(static_cast<int64_t>(kernels::load_one(
                            c.round_t->dtype, static_cast<const char *>(c.round_t->data), c.round_t->offset)),
                        c.round_t_name);
    } else {
      op = round_kernel(c.round->to_int64(), "roundMode");
    }
  }

  // Register in prototype order: the input lists, the scalar tensor, the output list.
  const bool in_place = c.out == nullptr;
  const std::vector<int> xs = in_place ? b.inout_list(static_cast<size_t>(c.x_ir), c.x)
                                       : b.input_list(static_cast<size_t>(c.x_ir), c.x);
  const std::vector<int> x2s = c.x2 ? b.input_list(static_cast<size_t>(c.x_ir) + 1, c.x2) : std::vector<int>{};
  const std::vector<int> x3s = c.x3 ? b.input_list(static_cast<size_t>(c.x_ir) + 2, c.x3) : std::vector<int>{};
  const aclTensor *param_t = c.alpha_t ? c.alpha_t : c.scalar_t ? c.scalar_t : c.scalars_t ? c.scalars_t : c.round_t;
  const int param_slot = param_t != nullptr ? b.input(param_t) : -1;
  if (rule.kind == ForeachKind::kUnscale) {
    const int found_slot = b.inout(c.found_inf);
    record_unscale(b, xs, dt, found_slot, b.input(c.inv_scale));
    return;
  }
  const std::vector<int> outs = in_place ? xs : b.output_list(0, c.out);
  if (rule.kind == ForeachKind::kNorm) {
    record_norms(b, xs, outs, c.scalar->to_double());
    return;
  }

  // Record one element-wise pass per entry, computing in the entries' dtype.
  for (size_t i = 0; i < n; ++i) {
    EwSpec spec;
    spec.op = op;
    spec.compute_dtype = dt;
    spec.set_scalar(0, rule.s0);
    std::vector<EwInput> in;
    if (kernels::ew_op_arity(op) > 0) in.push_back(EwInput::tensor(xs[i]));
    if (c.x2) in.push_back(EwInput::tensor(x2s[i]));
    if (c.x3) in.push_back(EwInput::tensor(x3s[i]));
    if (c.alpha) spec.set_scalar(0, c.alpha);
    if (c.alpha_t) spec.launch_s0 = {param_slot, b.tensor(param_slot).offset, c.alpha_t->dtype};
    const aclScalar *value = c.scalar ? c.scalar : c.scalars ? c.scalars->scalars[i] : nullptr;
    if (rule.scalar_is_value) {
      if (value != nullptr) spec.set_scalar(0, value);
      const aclTensor *vt = c.scalar_t ? c.scalar_t : c.scalars_t;
      if (vt != nullptr) {
        const int64_t k = c.scalars_t ? static_cast<int64_t>(i) : 0;
        spec.launch_s0 = {param_slot, element_offset(b.tensor(param_slot), k), vt->dtype};
      }
    } else if (value != nullptr || c.scalar_t != nullptr) {
      const EwInput s = value != nullptr ? EwInput::constant(value)
                                         : EwInput::tensor_view(param_slot, element_view(b.tensor(param_slot)));
      if (rule.scalar_first) in.insert(in.begin(), s);
      else in.push_back(s);
    }
    record_elementwise(b, spec, outs[i], in);
  }
}

}  // namespace opsnn::ops

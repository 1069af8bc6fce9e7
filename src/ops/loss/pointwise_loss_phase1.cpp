#include "ops/loss/pointwise_loss_phase1.h"

#include <cstring>

#include "common/error.h"
#include "core/op_checks.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3;

// A [1] or 0-d tensor (the reduced loss, or its gradient).
bool single(const aclTensor &t) { return t.ndim == 0 || (t.ndim == 1 && t.dims[0] == 1); }

void check_broadcasts_to(const aclTensor *t, const char *name, const core::Shape &shape) {
  if (t != nullptr && !(core::broadcast_shapes(core::Shape::of(*t), name, shape, "self") == shape))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to the loss's shape %s", name,
                core::shape_string(*t).c_str(), shape.str().c_str());
}

// The value 1 as an element-wise constant operand (a missing weight or posWeight).
const aclScalar &one_scalar() {
  static const aclScalar one = [] {
    aclScalar s;
    s.dtype = ACL_DOUBLE;
    const double v = 1.0;
    std::memcpy(s.bytes, &v, sizeof v);
    return s;
  }();
  return one;
}

}  // namespace

void pointwise_loss_phase1(core::OpBuilder &b, const PointwiseLossRule &rule, const PointwiseLossCall &c) {
  if (rule.backward) core::check_tensor(c.grad, c.grad_name);
  core::check_tensor(c.self, c.self_name);
  core::check_tensor(c.target, c.target_name);
  core::check_tensor(c.out, c.out_name);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.target, c.target_name, rule.dtypes);
  if (rule.backward) core::check_dtype_in(c.grad, c.grad_name, rule.dtypes);
  if (c.weight != nullptr) core::check_dtype_in(c.weight, c.weight_name, rule.dtypes);
  if (c.pos_weight != nullptr) core::check_dtype_in(c.pos_weight, c.pos_weight_name, rule.dtypes);
  if (c.reduction != kNone && c.reduction != kMean && c.reduction != kSum &&
      !(rule.batchmean && c.reduction == kBatchMean))
    throw_error(ACLNN_ERR_PARAM_INVALID, "reduction must be 0 (none), 1 (mean)%s 2 (sum)%s, got %lld",
                rule.batchmean ? "," : " or", rule.batchmean ? " or 3 (batchmean)" : "",
                static_cast<long long>(c.reduction));
  if (c.has_beta && !(c.beta >= 0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "beta must be >= 0, got %g", c.beta);
  core::ResultType rt;
  rt.add_tensor(c.self->dtype, c.self->ndim);
  rt.add_tensor(c.target->dtype, c.target->ndim);
  if (rule.backward) rt.add_tensor(c.grad->dtype, c.grad->ndim);
  for (const aclTensor *t : {c.weight, c.pos_weight})
    if (t != nullptr) rt.add_tensor(t->dtype, t->ndim);
  const aclDataType compute = rt.get();
  if (!core::can_cast(compute, c.out->dtype) || !core::is_floating(c.out->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; the result is %s", c.out_name,
                core::dtype_name(c.out->dtype), core::dtype_name(compute));
  const core::Shape shape = core::broadcast_shapes(core::Shape::of(*c.self), c.self_name, core::Shape::of(*c.target),
                                                   c.target_name);
  int64_t n = 1;
  for (int d = 0; d < shape.ndim; ++d) n *= shape.dims[d];

  check_broadcasts_to(c.weight, c.weight_name, shape);
  check_broadcasts_to(c.pos_weight, c.pos_weight_name, shape);
  if (rule.backward) {  // gradOutput has the loss's shape: broadcast to it, or the one reduced value
    if (c.reduction == kNone) {
      if (!(core::broadcast_shapes(core::Shape::of(*c.grad), c.grad_name, shape, c.self_name) == shape))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to %s", c.grad_name,
                    core::shape_string(*c.grad).c_str(), shape.str().c_str());
    } else if (c.grad->numel() != 1) {
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold the one reduced loss's gradient, got shape %s", c.grad_name,
                  core::shape_string(*c.grad).c_str());
    }
  }
  const bool reduced = !rule.backward && c.reduction != kNone;
  if (!reduced) core::check_shape_equals(*c.out, c.out_name, shape);
  else if (!single(*c.out))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 0-d or [1] for reduction %lld, got shape %s", c.out_name,
                static_cast<long long>(c.reduction), core::shape_string(*c.out).c_str());
  // The gradient's scale: 1 / N for mean, 1 / batch for batchmean; a forward batchmean (KL
  // divergence, the only row accepting it) scales its terms by 1 / batch and sums them.
  const int64_t batch = c.self->ndim > 0 ? c.self->dims[0] : 1;
  const double scale = c.reduction == kBatchMean && batch > 0 ? 1.0 / static_cast<double>(batch)
                       : !rule.backward                        ? 1.0
                       : c.reduction == kMean && n > 0          ? 1.0 / static_cast<double>(n)
                                                                : 1.0;

  // Registration in prototype order: gradOutput, self, target, weight, posWeight, then the output.
  const int g = rule.backward ? b.input(c.grad) : -1;
  const int s = b.input(c.self), t = b.input(c.target);
  const int w = c.has_weight ? b.input(c.weight) : -1, pw = c.has_pos_weight ? b.input(c.pos_weight) : -1;
  const int o = b.output(c.out);
  EwInput gin = EwInput::tensor(g);
  if (rule.backward && c.reduction != kNone) {  // the single gradient, broadcast (stride 0) to every element
    aclTensor v = b.tensor(g);
    v.ndim = 0;
    gin = EwInput::tensor_view(g, v);
  }
  aclTensor ov = b.tensor(o);  // the reduced loss as a 0-d view
  ov.ndim = 0;
  ReduceSpec red;
  red.op = c.reduction == kMean ? kernels::ReduceOp::kMean : kernels::ReduceOp::kSum;
  uint32_t mask = 0;
  for (int d = 0; d < shape.ndim; ++d) mask |= 1u << d;

  EwSpec spec;
  spec.op = rule.op;
  spec.compute_dtype = compute;
  spec.set_scalar(0, c.has_beta ? c.beta : c.log_target ? 1.0 : 0.0);
  spec.set_scalar(1, scale);
  const aclDataType unrounded = compute == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  if (!rule.weighted) {
    // gradInput = gradOutput * d(term)/d(self) * scale; the term itself; or the terms in double in
    // the workspace, then their sum or mean into out.
    if (rule.backward) return record_elementwise(b, spec, o, {gin, EwInput::tensor(s), EwInput::tensor(t)});
    if (!reduced) return record_elementwise(b, spec, o, {EwInput::tensor(s), EwInput::tensor(t)});
    const EwInput terms = EwInput::scratch(b, "loss.terms", shape, ACL_DOUBLE);
    spec.compute_dtype = unrounded;  // terms unrounded (FLOAT16 / BF16 too)
    record_elementwise(b, spec, terms, {EwInput::tensor(s), EwInput::tensor(t)});
    return record_reduction(b, red, terms, mask, false, {EwInput::tensor_view(o, ov)});
  }
  // Weighted: the term or derivative of (self, target, posWeight) unrounded in the workspace, then
  // (gradOutput *) value * weight (* scale) into out, or into the terms that are then reduced.
  const EwInput one = EwInput::constant(&one_scalar());
  const EwInput win = w >= 0 ? EwInput::tensor(w) : one, pwin = pw >= 0 ? EwInput::tensor(pw) : one;
  const EwInput values = EwInput::scratch(b, "loss.values", shape, reduced ? ACL_DOUBLE : unrounded);
  spec.compute_dtype = unrounded;
  std::vector<EwInput> args = {EwInput::tensor(s), EwInput::tensor(t), pwin};
  args.resize(static_cast<size_t>(kernels::ew_op_arity(rule.op)));
  record_elementwise(b, spec, values, args);
  EwSpec product;
  product.op = kernels::EwOp::kLossProduct;
  product.compute_dtype = reduced ? unrounded : compute;
  product.set_scalar(0, scale);
  if (rule.backward) return record_elementwise(b, product, o, {gin, values, win});
  if (!reduced) return record_elementwise(b, product, o, {values, win, one});
  record_elementwise(b, product, values, {values, win, one});
  record_reduction(b, red, values, mask, false, {EwInput::tensor_view(o, ov)});
}

}  // namespace opsnn::ops

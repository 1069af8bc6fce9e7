#include "ops/loss/pointwise_loss_phase1.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

constexpr int64_t kNone = 0, kMean = 1, kSum = 2, kBatchMean = 3;

// A [1] or 0-d tensor (the reduced loss, or its gradient).
bool single(const aclTensor &t) { return t.ndim == 0 || (t.ndim == 1 && t.dims[0] == 1); }

}  // namespace

void pointwise_loss_phase1(core::OpBuilder &b, const PointwiseLossRule &rule, const PointwiseLossCall &c) {
  if (rule.backward) core::check_tensor(c.grad, c.grad_name);
  core::check_tensor(c.self, c.self_name);
  core::check_tensor(c.target, c.target_name);
  core::check_tensor(c.out, c.out_name);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.target, c.target_name, rule.dtypes);
  if (rule.backward) core::check_dtype_in(c.grad, c.grad_name, rule.dtypes);
  if (c.reduction != kNone && c.reduction != kMean && c.reduction != kSum &&
      !(rule.batchmean && c.reduction == kBatchMean))
    throw_error(ACLNN_ERR_PARAM_INVALID, "reduction must be 0 (none), 1 (mean)%s 2 (sum)%s, got %lld",
                rule.batchmean ? "," : " or", rule.batchmean ? " or 3 (batchmean)" : "",
                static_cast<long long>(c.reduction));
  if (!rule.backward && c.reduction == kBatchMean)  // no forward row takes it: its scale is not planned here
    throw_error(ACLNN_ERR_PARAM_INVALID, "reduction 3 (batchmean) is not supported by this op");
  if (c.has_beta && !(c.beta >= 0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "beta must be >= 0, got %g", c.beta);
  core::ResultType rt;
  rt.add_tensor(c.self->dtype, c.self->ndim);
  rt.add_tensor(c.target->dtype, c.target->ndim);
  if (rule.backward) rt.add_tensor(c.grad->dtype, c.grad->ndim);
  const aclDataType compute = rt.get();
  if (!core::can_cast(compute, c.out->dtype) || !core::is_floating(c.out->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; the result is %s", c.out_name,
                core::dtype_name(c.out->dtype), core::dtype_name(compute));
  const core::Shape shape = core::broadcast_shapes(core::Shape::of(*c.self), c.self_name, core::Shape::of(*c.target),
                                                   c.target_name);
  int64_t n = 1;
  for (int d = 0; d < shape.ndim; ++d) n *= shape.dims[d];

  EwSpec spec;
  spec.op = rule.op;
  spec.compute_dtype = compute;
  spec.set_scalar(0, c.has_beta ? c.beta : c.log_target ? 1.0 : 0.0);
  if (rule.backward) {
    // gradInput = gradOutput * d(term)/d(self) (/ N for mean); gradOutput has the loss's shape.
    if (c.reduction == kNone) {
      if (!(core::broadcast_shapes(core::Shape::of(*c.grad), c.grad_name, shape, c.self_name) == shape))
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to %s", c.grad_name,
                    core::shape_string(*c.grad).c_str(), shape.str().c_str());
    } else if (c.grad->numel() != 1) {
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must hold the one reduced loss's gradient, got shape %s", c.grad_name,
                  core::shape_string(*c.grad).c_str());
    }
    core::check_shape_equals(*c.out, c.out_name, shape);
    const int64_t batch = c.self->ndim > 0 ? c.self->dims[0] : 1;
    spec.set_scalar(1, c.reduction == kMean && n > 0            ? 1.0 / static_cast<double>(n)
                       : c.reduction == kBatchMean && batch > 0 ? 1.0 / static_cast<double>(batch)
                                                                : 1.0);
    const int g = b.input(c.grad), s = b.input(c.self), t = b.input(c.target), o = b.output(c.out);
    EwInput gin = EwInput::tensor(g);
    if (c.reduction != kNone) {  // the single gradient, broadcast (stride 0) to every element
      aclTensor v = b.tensor(g);
      v.ndim = 0;
      gin = EwInput::tensor_view(g, v);
    }
    record_elementwise(b, spec, o, {gin, EwInput::tensor(s), EwInput::tensor(t)});
    return;
  }
  const int s = b.input(c.self), t = b.input(c.target), o = b.output(c.out);
  if (c.reduction == kNone) {
    core::check_shape_equals(*c.out, c.out_name, shape);
    record_elementwise(b, spec, o, {EwInput::tensor(s), EwInput::tensor(t)});
    return;
  }
  if (!single(*c.out))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 0-d or [1] for reduction %lld, got shape %s", c.out_name,
                static_cast<long long>(c.reduction), core::shape_string(*c.out).c_str());
  // The terms in double in the workspace, then their sum or mean into out.
  const EwInput terms = EwInput::scratch(b, "loss.terms", shape, ACL_DOUBLE);
  spec.compute_dtype = compute == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;  // terms unrounded (FLOAT16 / BF16 too)
  record_elementwise(b, spec, terms, {EwInput::tensor(s), EwInput::tensor(t)});
  ReduceSpec red;
  red.op = c.reduction == kMean ? kernels::ReduceOp::kMean : kernels::ReduceOp::kSum;
  uint32_t mask = 0;
  for (int d = 0; d < shape.ndim; ++d) mask |= 1u << d;
  aclTensor ov = b.tensor(o);
  ov.ndim = 0;
  record_reduction(b, red, terms, mask, false, {EwInput::tensor_view(o, ov)});
}

}  // namespace opsnn::ops

// aclnnPreluBackward: gradInput = self > 0 ? gradOutput : weight * gradOutput (weight per channel, dim 1,
// or a single value), gradWeight[c] = sum over every element of channel c of (self > 0 ? 0 : gradOutput * self).
//
// The weight gradient is a reduction: the summands are written in double to the workspace, then
// reduced by the reduction engine (deterministic for any thread count).
#include <vector>

#include "aclnnop/aclnn_prelu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"
#include "ops/reduction/reduce_step.h"

using namespace opsnn;
using kernels::EwOp;

namespace {

// The element stride of a tensor holding `n` elements along one dim (others of size 1).
int64_t single_dim_stride(const aclTensor &t) {
  for (int d = 0; d < t.ndim; ++d)
    if (t.dims[d] > 1) return t.strides[d];
  return 1;
}

void prelu_backward_phase1(core::OpBuilder &b, const aclTensor *gradOutput, const aclTensor *self,
                           const aclTensor *weight, aclTensor *gradInput, aclTensor *gradWeight) {
  const std::vector<aclDataType> dts = ops::kGradFloatTypes;
  ops::check_grad_tensor(gradOutput, "gradOutput", dts);
  ops::check_grad_tensor(self, "self", dts);
  ops::check_grad_tensor(weight, "weight", dts);
  ops::check_grad_tensor(gradInput, "gradInput", dts);
  ops::check_grad_tensor(gradWeight, "gradWeight", dts);
  core::ResultType rt;
  rt.add_tensor(gradOutput->dtype, gradOutput->ndim);
  rt.add_tensor(self->dtype, self->ndim);
  rt.add_tensor(weight->dtype, weight->ndim);
  const aclDataType result = rt.get();
  for (const aclTensor *o : {static_cast<const aclTensor *>(gradInput), static_cast<const aclTensor *>(gradWeight)})
    if (!core::can_cast(result, o->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "the result dtype %s cannot be written to %s of dtype %s",
                  core::dtype_name(result), o == gradInput ? "gradInput" : "gradWeight", core::dtype_name(o->dtype));

  const core::Shape xs = core::Shape::of(*self);
  core::check_shape_equals(*gradOutput, "gradOutput", xs);
  core::check_shape_equals(*gradInput, "gradInput", xs);
  core::check_shape_equals(*gradWeight, "gradWeight", core::Shape::of(*weight));
  const int64_t wn = weight->numel();
  const int64_t channels = self->ndim >= 2 ? self->dims[1] : 1;
  int64_t weight_nontrivial = 0;
  for (int d = 0; d < weight->ndim; ++d) weight_nontrivial += weight->dims[d] > 1 ? 1 : 0;
  if (wn != 1 && (wn != channels || weight_nontrivial > 1))
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "weight has %lld elements (shape %s); expected 1 or the number of channels of self (dim 1: %lld)",
                static_cast<long long>(wn), core::shape_string(*weight).c_str(), static_cast<long long>(channels));

  const int g = b.input(gradOutput), x = b.input(self), w = b.input(weight);
  const int gi = b.output(gradInput), gw = b.output(gradWeight);
  core::check_no_internal_overlap(b.tensor(gw), "gradWeight");
  const int64_t c_used = wn == 1 ? 1 : channels;

  // gradInput: the weight viewed as [1, C, 1, ...] (or a broadcast single value).
  aclTensor wv = b.tensor(w);
  wv.ndim = self->ndim;
  for (int d = 0; d < wv.ndim; ++d) {
    wv.dims[d] = (d == 1 && c_used > 1) ? channels : 1;
    wv.strides[d] = (d == 1 && c_used > 1) ? single_dim_stride(b.tensor(w)) : 0;
  }
  ops::EwSpec in_spec;
  in_spec.op = EwOp::kPreluBackwardInput;
  in_spec.compute_dtype = result;
  ops::record_elementwise(b, in_spec, gi,
                          {ops::EwInput::tensor(g), ops::EwInput::tensor(x), ops::EwInput::tensor_view(w, wv)});

  // gradWeight: the summands (double, contiguous, self's shape) reduced over every dim but the
  // channel dim (every dim for a single weight).
  const ops::EwInput terms = ops::EwInput::scratch(b, "prelu_backward.terms", xs, ACL_DOUBLE);
  ops::EwSpec term_spec;
  term_spec.op = EwOp::kPreluBackwardWeightTerm;
  term_spec.compute_dtype = ACL_DOUBLE;
  ops::record_elementwise(b, term_spec, terms,
                          {ops::EwInput::tensor(g), ops::EwInput::tensor(x)});
  uint32_t mask = 0;
  for (int d = 0; d < self->ndim; ++d)
    if (c_used == 1 || d != 1) mask |= 1u << d;
  aclTensor gw_view = b.tensor(gw);  // gradWeight as [C], or as a single value
  gw_view.ndim = c_used > 1 ? 1 : 0;
  gw_view.dims[0] = channels;
  gw_view.strides[0] = single_dim_stride(b.tensor(gw));
  ops::ReduceSpec sum;
  sum.op = kernels::ReduceOp::kSum;
  ops::record_reduction(b, sum, terms, mask, false,
                        {ops::EwInput::tensor_view(gw, gw_view)});
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnPreluBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *weight, aclTensor *gradInput,
    aclTensor *gradWeight, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnPreluBackward", workspaceSize, executor, [&](core::OpBuilder &b) {
    prelu_backward_phase1(b, gradOutput, self, weight, gradInput, gradWeight);
  });
}
OPSNN_DEFINE_LAUNCH(PreluBackward)

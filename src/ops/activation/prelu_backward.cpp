// aclnnPreluBackward: gradInput = self > 0 ? gradOutput : weight * gradOutput (weight per channel, dim 1,
// or a single value), gradWeight[c] = sum over every element of channel c of (self > 0 ? 0 : gradOutput * self).
//
// The weight gradient is a reduction. It is computed deterministically (bit-identical for any thread
// count): the summands are written in double to the workspace, then each channel is cut into fixed
// blocks of kBlock elements whose partial sums (in order) are computed in parallel, and the partials
// of a channel are added in block order.
#include <algorithm>
#include <vector>

#include "aclnnop/aclnn_prelu_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {

constexpr int64_t kBlock = 16384;

class PreluWeightReduceStep final : public core::Step {
 public:
  uint64_t terms_offset = 0, partial_offset = 0;  // workspace: [outer, C, inner] doubles, [C, nblocks] doubles
  int64_t outer = 1, channels = 1, inner = 1, nblocks = 0;
  int out_slot = -1;
  aclTensor out;  // gradWeight; element c at c * out_stride
  int64_t out_stride = 1;

  int run(const core::LaunchArgs &args) const override {
    const int64_t per_channel = outer * inner;
    const auto *terms = reinterpret_cast<const double *>(args.workspace + terms_offset);
    auto *partial = reinterpret_cast<double *>(args.workspace + partial_offset);
    if (per_channel > 0) {
      core::parallel_for(channels * nblocks, 1, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          const int64_t c = t / nblocks, blk = t % nblocks;
          const int64_t j0 = blk * kBlock, j1 = std::min(per_channel, j0 + kBlock);
          double acc = 0;
          for (int64_t j = j0; j < j1;) {  // j = o * inner + i, walked one inner row piece at a time
            const int64_t o = j / inner, i = j % inner;
            const int64_t n = std::min(j1 - j, inner - i);
            const double *p = terms + (o * channels + c) * inner + i;
            for (int64_t k = 0; k < n; ++k) acc += p[k];
            j += n;
          }
          partial[t] = acc;
        }
      });
    }
    const size_t es = core::dtype_size(out.dtype);
    char *base = core::view_base(args, out_slot, out, es);
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0;
      for (int64_t blk = 0; blk < nblocks; ++blk) sum += partial[c * nblocks + blk];
      kernels::store_from<double>(&sum, out.dtype, base + c * out_stride * static_cast<int64_t>(es), 0, 1);
    }
    return 0;
  }
};

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

  // gradWeight: summands (double, contiguous [outer, C, inner]) then the ordered reduction.
  const int64_t n = self->numel();
  int64_t outer = 1, inner = 1;
  if (c_used > 1) {
    outer = self->dims[0];
    for (int d = 2; d < self->ndim; ++d) inner *= self->dims[d];
  } else {
    inner = n;
  }
  auto step = std::make_unique<PreluWeightReduceStep>();
  step->outer = outer;
  step->channels = c_used;
  step->inner = inner;
  step->nblocks = (outer * inner + kBlock - 1) / kBlock;
  step->terms_offset = b.book_workspace(static_cast<uint64_t>(n) * sizeof(double));
  step->partial_offset = b.book_workspace(static_cast<uint64_t>(c_used * std::max<int64_t>(step->nblocks, 1)) *
                                          sizeof(double));
  aclTensor terms = *self;
  terms.dtype = ACL_DOUBLE;
  terms.offset = 0;
  int64_t s = 1;
  for (int d = terms.ndim - 1; d >= 0; --d) {
    terms.strides[d] = s;
    s *= terms.dims[d];
  }
  ops::EwSpec term_spec;
  term_spec.op = EwOp::kPreluBackwardWeightTerm;
  term_spec.compute_dtype = ACL_DOUBLE;
  ops::record_elementwise(b, term_spec, ops::EwInput::workspace(step->terms_offset, terms),
                          {ops::EwInput::tensor(g), ops::EwInput::tensor(x)});
  step->out_slot = gw;
  step->out = b.tensor(gw);
  step->out_stride = single_dim_stride(b.tensor(gw));
  b.add_step<PreluWeightReduceStep>(std::move(*step));
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

#include "ops/activation/channel_phase1.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/activation/rrelu_noise.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/reduction/reduce_step.h"

namespace opsnn::ops {
namespace {

using kernels::EwOp;

int64_t channels_of(const aclTensor &self) { return self.ndim >= 2 ? self.dims[1] : 1; }

// The weight's checks: 1 value, or one per channel along a single dim (Prelu: a 0-D or 1-D
// weight, as torch.nn.functional.prelu).
struct WeightLayout {
  bool per_channel = false;  // C > 1 values, else one
  int64_t stride = 0;        // the element stride between the channel values
};
WeightLayout check_weight(const ChannelArg &self, const ChannelArg &weight, bool any_rank) {
  const aclTensor &w = *weight.t;
  if (!any_rank && w.ndim > 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 0-D or 1-D, got shape %s", weight.name,
                core::shape_string(w).c_str());
  const int64_t n = w.numel(), c = channels_of(*self.t);
  int64_t stride = 0, long_dims = 0;
  for (int d = 0; d < w.ndim; ++d)
    if (w.dims[d] > 1) {
      stride = w.strides[d];
      ++long_dims;
    }
  if (n != 1 && (n != c || long_dims > 1))
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s has shape %s (%lld elements); it must hold 1 value or one per channel of %s %s "
                "(dim 1: %lld channels)",
                weight.name, core::shape_string(w).c_str(), static_cast<long long>(n), self.name,
                core::shape_string(*self.t).c_str(), static_cast<long long>(c));
  return {n != 1, n == 1 ? 0 : stride};
}

// A per-channel tensor (the weight) as a view of self's dims: stride 0 but along the channel dim.
aclTensor channel_view(const aclTensor &t, const aclTensor &self, WeightLayout layout) {
  aclTensor v = t;
  v.ndim = self.ndim;
  for (int d = 0; d < v.ndim; ++d) {
    const bool channel = d == 1 && layout.per_channel;
    v.dims[d] = channel ? self.dims[1] : 1;
    v.strides[d] = channel ? layout.stride : 0;
  }
  return v;
}

void check_out(const ChannelArg &out, const ChannelArg &self, aclDataType result) {
  core::check_shape_equals(*out.t, out.name, core::Shape::of(*self.t));
  if (!core::is_floating(out.t->dtype) || !core::can_cast(result, out.t->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; the result (%s) cannot be written to it", out.name,
                core::dtype_name(out.t->dtype), core::dtype_name(result));
}

void prelu(core::OpBuilder &b, const ChannelRule &rule, const ChannelCall &c) {
  for (const ChannelArg *a : {&c.self, &c.weight, &c.out}) core::check_dtype_in(a->t, a->name, rule.dtypes);
  const WeightLayout wl = check_weight(c.self, c.weight, false);
  check_out(c.out, c.self, c.self.t->dtype);
  const int x = b.input(c.self.t), w = b.input(c.weight.t), o = b.output(c.out.t);
  EwSpec spec;
  spec.op = EwOp::kPrelu;
  spec.compute_dtype = c.self.t->dtype;
  record_elementwise(b, spec, o,
                     {EwInput::tensor(x), EwInput::tensor_view(w, channel_view(b.tensor(w), *c.self.t, wl))});
}

void prelu_backward(core::OpBuilder &b, const ChannelRule &rule, const ChannelCall &c) {
  const ChannelArg *all[] = {&c.gradOutput, &c.self, &c.weight, &c.gradInput, &c.gradWeight};
  for (const ChannelArg *a : all) core::check_dtype_in(a->t, a->name, rule.dtypes);
  core::ResultType rt;
  for (const ChannelArg *a : {&c.gradOutput, &c.self, &c.weight}) rt.add_tensor(a->t->dtype, a->t->ndim);
  const aclDataType result = rt.get();
  const core::Shape xs = core::Shape::of(*c.self.t);
  core::check_shape_equals(*c.gradOutput.t, c.gradOutput.name, xs);
  const WeightLayout wl = check_weight(c.self, c.weight, true);
  check_out(c.gradInput, c.self, result);
  core::check_shape_equals(*c.gradWeight.t, c.gradWeight.name, core::Shape::of(*c.weight.t));
  if (!core::can_cast(result, c.gradWeight.t->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; the result (%s) cannot be written to it", c.gradWeight.name,
                core::dtype_name(c.gradWeight.t->dtype), core::dtype_name(result));

  const int g = b.input(c.gradOutput.t), x = b.input(c.self.t), w = b.input(c.weight.t);
  const int gi = b.output(c.gradInput.t), gw = b.output(c.gradWeight.t);
  core::check_no_internal_overlap(b.tensor(gw), c.gradWeight.name);
  EwSpec in_spec;
  in_spec.op = EwOp::kPreluBackwardInput;
  in_spec.compute_dtype = result;
  record_elementwise(b, in_spec, gi,
                     {EwInput::tensor(g), EwInput::tensor(x),
                      EwInput::tensor_view(w, channel_view(b.tensor(w), *c.self.t, wl))});

  // gradWeight: one channel-keeping reduction of the map (gradOutput, self) -> self > 0 ? 0 :
  // gradOutput * self, over every dim but dim 1 (every dim for a single weight).
  const bool per_channel = wl.per_channel;
  uint32_t mask = 0;
  for (int d = 0; d < c.self.t->ndim; ++d)
    if (!per_channel || d != 1) mask |= 1u << d;
  aclTensor gw_view = b.tensor(gw);  // gradWeight as [C], or as one value
  gw_view.ndim = per_channel ? 1 : 0;
  if (per_channel) {
    gw_view.dims[0] = channels_of(*c.self.t);
    gw_view.strides[0] = check_weight(c.self, c.gradWeight, true).stride;
  }
  ReduceSpec sum;
  sum.op = kernels::ReduceOp::kSum;
  record_mapped_reduction(b, sum, kernels::ReduceMap::kMulUnlessPositive, EwInput::tensor(g), EwInput::tensor(x),
                          mask, false, {EwInput::tensor_view(gw, gw_view)});
}

struct RReluNoiseStep final : core::Step {
  kernels::RReluNoisePlan plan;
  core::OperandRef self, noise;
  int run(const core::LaunchArgs &args) const override {
    kernels::rrelu_noise_run(plan, self.address(args), noise.address(args));
    return 0;
  }
};

void rrelu(core::OpBuilder &b, const ChannelRule &rule, const ChannelCall &c) {
  const bool inplace = c.out.t == nullptr;
  core::check_dtype_in(c.self.t, c.self.name, rule.dtypes);
  core::check_dtype_in(c.noise.t, c.noise.name, rule.dtypes);
  const double lo = core::scalar_value(c.lower.s, c.lower.name), hi = core::scalar_value(c.upper.s, c.upper.name);
  if (!(lo <= hi))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s (%g) must not exceed %s (%g): the slopes are drawn from [%s, %s]",
                c.lower.name, lo, c.upper.name, hi, c.lower.name, c.upper.name);
  const aclTensor &self = *c.self.t, &noise = *c.noise.t;
  const core::Shape xs = core::Shape::of(self);
  const bool same_shape = core::Shape::of(noise) == xs;
  if (noise.numel() < self.numel())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %s has fewer elements than %s %s", c.noise.name,
                core::shape_string(noise).c_str(), c.self.name, core::shape_string(self).c_str());
  if (c.training && !same_shape && !noise.is_contiguous())
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s of shape %s (not %s's shape %s) must be contiguous: its first elements are written in order",
                c.noise.name, core::shape_string(noise).c_str(), c.self.name, core::shape_string(self).c_str());
  if (!inplace) check_out(c.out, c.self, self.dtype);

  const int x = inplace ? b.inout(c.self.t) : b.input(c.self.t);
  const int n = c.training ? b.inout(c.noise.t) : b.input(c.noise.t);
  const int o = inplace ? x : b.output(c.out.t);
  EwSpec spec;
  spec.compute_dtype = self.dtype;
  if (!c.training) {
    spec.op = EwOp::kLeakyRelu;
    spec.set_scalar(0, (lo + hi) / 2);
    record_elementwise(b, spec, o, {EwInput::tensor(x)});
    return;
  }
  if (c.training) core::check_no_internal_overlap(b.tensor(n), c.noise.name);
  if (!inplace && core::memory_overlap(b.tensor(n), b.tensor(o)) != core::Overlap::kNone)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s overlaps %s in memory", c.noise.name, c.out.name);
  // noise in self's shape: itself, or its first numel(self) elements in row-major order.
  aclTensor nv = b.tensor(n);
  if (!same_shape) core::set_contiguous(nv, xs);
  auto &draw = b.add_step<RReluNoiseStep>();
  kernels::RReluNoisePlan &P = draw.plan;
  P.ndim = self.ndim;
  const aclTensor &sv = b.tensor(x);
  for (int d = 0; d < self.ndim; ++d) {
    P.dims[d] = self.dims[d];
    P.self_strides[d] = sv.strides[d];
    P.noise_strides[d] = nv.strides[d];
  }
  P.self_dtype = self.dtype;
  P.noise_dtype = noise.dtype;
  P.lower = lo;
  P.upper = hi;
  P.seed = static_cast<uint64_t>(c.seed);
  P.offset = static_cast<uint64_t>(c.offset);
  draw.self = core::OperandRef::of_slot(x, sv);
  draw.noise = core::OperandRef::of_slot(n, nv);
  spec.op = EwOp::kRReluNoise;
  record_elementwise(b, spec, o, {EwInput::tensor(x), EwInput::tensor_view(n, nv)});
}

}  // namespace

void channel_phase1(core::OpBuilder &b, const ChannelRule &rule, const ChannelCall &c) {
  switch (rule.op) {
    case ChannelOp::kPrelu: return prelu(b, rule, c);
    case ChannelOp::kPreluBackward: return prelu_backward(b, rule, c);
    case ChannelOp::kRRelu: return rrelu(b, rule, c);
  }
}

}  // namespace opsnn::ops

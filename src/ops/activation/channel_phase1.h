// The phase 1 of the channel-activation table (src/ops/activation/channel_act.ops): activations
// with a per-channel parameter or a per-element random slope — aclnnPrelu, aclnnPreluBackward,
// aclnnRReluWithNoise and its in-place twin. The channel dim is dim 1 of self (a self of fewer dims
// has one channel, as torch.nn.functional.prelu); a weight holds 1 or C values. Checks every
// argument (161001 for a missing one, 161002 naming the argument otherwise) and records:
//   Prelu          one element-wise pass, the weight a strided view of self's dims (stride 0 but
//                  along the channel dim);
//   PreluBackward  gradInput element-wise as above; gradWeight one mapped reduction of
//                  (gradOutput, self) -> self > 0 ? 0 : gradOutput * self over every dim but the
//                  channel dim (all dims for a single weight), split into blocks in phase 1;
//   RReluWithNoise training: noise written with slopes drawn from (seed, offset)
//                  (kernels/activation/rrelu_noise.h), then out = self > 0 ? self : self * noise;
//                  eval: out = leaky_relu(self, (lower + upper) / 2), noise untouched.
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/op_builder.h"

namespace opsnn::ops {

enum class ChannelOp : uint8_t { kPrelu, kPreluBackward, kRRelu };

struct ChannelRule {
  core::DtypeMask dtypes;  // every floating tensor's accepted dtypes
  ChannelOp op;
};

using ChannelArg = core::NamedTensor;

struct ChannelScalarArg {
  const aclScalar *s = nullptr;
  const char *name = "";
};

// The arguments by role (a role the prototype lacks keeps an empty name; RRelu without `out` is the
// in-place twin, writing self).
struct ChannelCall {
  ChannelArg self, weight, out, gradOutput, gradInput, gradWeight, noise;
  ChannelScalarArg lower, upper;
  bool training = false;
  int64_t seed = 0, offset = 0;
};

void channel_phase1(core::OpBuilder &b, const ChannelRule &rule, const ChannelCall &c);

}  // namespace opsnn::ops

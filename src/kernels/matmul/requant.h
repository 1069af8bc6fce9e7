// OpsNN's int8 re-quantisation rule, shared by every op with an INT8 output computed in fp32
// (WeightQuantBatchMatmulV2's quantScaleOptional output, QuantMatmulV3/V4's INT8 out):
//   q -> saturate_int8(round_half_even(q)), NaN -> 0.
// The vendor documentation does not state the rounding; this is our documented choice.
#pragma once

#include <cstdint>

namespace opsnn::kernels {

inline int8_t requant_int8(float q) {
  q = q != q ? 0.0f : q;
  q = q < -128.0f ? -128.0f : q;
  q = q > 127.0f ? 127.0f : q;
  // |q| <= 128 < 2^22: adding and removing 1.5 * 2^23 rounds to an integer in the current rounding
  // mode (to nearest even by default), exactly as nearbyint, in a form compilers vectorise.
  const float r = (q + 12582912.0f) - 12582912.0f;
  return static_cast<int8_t>(static_cast<int32_t>(r));
}

}  // namespace opsnn::kernels

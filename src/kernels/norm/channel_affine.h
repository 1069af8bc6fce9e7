// The channel norm's dense FLOAT forward line, compiled once per ISA unit (channel_norm.cpp
// portable, channel_norm_avx2.cpp, channel_norm_avx512.cpp; internal linkage). Double arithmetic,
// rounded once: what the op's other paths compute.
#pragma once

#include <cstdint>

namespace opsnn::kernels {
namespace {

inline void chan_affine_body(const float *x, float *y, int64_t n, double scale, double shift) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<double>(x[i]) * scale + shift);
}

}  // namespace
}  // namespace opsnn::kernels

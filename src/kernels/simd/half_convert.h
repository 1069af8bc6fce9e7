// Runs of FLOAT16 / BF16 <-> float on AVX2 + F16C, bit-identical to the scalar conversions of
// common/half.h (round to nearest even, NaN kept quiet with its payload's top bits, subnormals
// exact). Defined in half_convert_avx2.cpp; call only when cpu_features() reports AVX2 and F16C
// (half_convert_available()).
#pragma once

#include <cstdint>

#include "core/cpu_features.h"

namespace opsnn::kernels {

#if defined(__x86_64__)
void f16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n);
void f32_to_f16_avx2(const float *src, uint16_t *dst, int64_t n);
void bf16_to_f32_avx2(const uint16_t *src, float *dst, int64_t n);
void f32_to_bf16_avx2(const float *src, uint16_t *dst, int64_t n);
#endif

// Whether the runs above may be called now (the OPSNN_MAX_ISA cap applies).
inline bool half_convert_available() {
#if defined(__x86_64__)
  const core::CpuFeatures &f = core::cpu_features();
  return f.best >= core::Isa::kAvx2 && f.f16c;
#else
  return false;
#endif
}

}  // namespace opsnn::kernels

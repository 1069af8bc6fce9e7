// IEEE binary16 and bfloat16 <-> float conversions (round to nearest even, NaN preserved).
// Scalar and portable; vector kernels use F16C / AVX-512 conversions where available.
#pragma once

#include <cstdint>
#include <cstring>

namespace opsnn {

static inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static inline float bf16_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

static inline uint16_t float_to_bf16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

static inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  // Inf / NaN; a NaN comes out quiet (as F16C's conversion gives it, so vector and scalar agree).
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13) | (man != 0 ? 0x400000u : 0u));
  if (exp == 0) {
    if (man == 0) return bits_float(sign);
    // subnormal: value = man * 2^-24
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline uint16_t float_to_half(float f) {
  uint32_t u = float_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  u &= 0x7fffffffu;
  if (u > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((u >> 13) & 0x3ffu));  // NaN
  if (u >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow (after rounding) -> Inf
  if (u < 0x38800000u) {
    // result is subnormal or zero: round |f| * 2^24 to an integer, ties to even
    float a = bits_float(u) * 16777216.0f;
    // magic-number rounding to nearest even
    float r = (a + 8388608.0f) - 8388608.0f;
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(r));
  }
  // normal: rebias exponent and round mantissa to 10 bits, ties to even
  uint32_t rounded = u + 0xfffu + ((u >> 13) & 1u);
  return static_cast<uint16_t>(sign | (((rounded >> 13) - (112u << 10)) & 0x7fffu));
}

}  // namespace opsnn

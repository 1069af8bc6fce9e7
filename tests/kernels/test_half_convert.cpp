// The FLOAT16 / BF16 <-> float runs of kernels/simd/half_convert.h and the element-wise engine's
// converters that use them (load_as / store_from on contiguous half runs), against decoders and a
// nearest-value criterion written here (ldexp in double), not against the library's scalar code:
//   - every one of the 65536 FLOAT16 and BF16 bit patterns widens to its exact value (NaN: a NaN
//     with the same sign and payload, quieted from FLOAT16 as F16C does);
//   - floats (every exponent, mantissas around the rounding points, subnormals, overflow
//     boundaries, infinities, NaN payloads) narrow to the nearest representable value, ties to the
//     even one, overflow to infinity, NaN to a quiet NaN keeping the payload's top bits;
//   - the runs give the same bits as the element-at-a-time path (lengths around the vector width,
//     where tails take the scalar path), in every ISA tier the CPU has.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/cpu_features.h"
#include "kernels/elementwise/convert.h"
#include "kernels/simd/half_convert.h"

namespace opsnn::kernels {
namespace {

float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The value of a binary16 / bfloat16 pattern: NaN as NaN, else exact in double.
double decode(uint16_t h, bool bf16) {
  const int mant_bits = bf16 ? 7 : 10, exp_bits = bf16 ? 8 : 5, bias = (1 << (exp_bits - 1)) - 1;
  const int sign = h >> 15, e = (h >> mant_bits) & ((1 << exp_bits) - 1), m = h & ((1 << mant_bits) - 1);
  double v;
  if (e == (1 << exp_bits) - 1) v = m == 0 ? INFINITY : NAN;
  else if (e == 0) v = std::ldexp(m, 1 - bias - mant_bits);
  else v = std::ldexp(m + (1 << mant_bits), e - bias - mant_bits);
  return sign ? -v : v;
}

bool is_nan16(uint16_t h, bool bf16) { return std::isnan(decode(h, bf16)); }

// Whether h is x rounded to nearest even in the format (x not NaN).
bool nearest_even(float x, uint16_t h, bool bf16) {
  const double v = decode(h, bf16), xd = x;
  if (std::isnan(v)) return false;
  if (std::signbit(v) != std::signbit(xd)) return false;
  const uint16_t mag = h & 0x7fff, sign = h & 0x8000;
  const uint16_t inf = bf16 ? 0x7f80 : 0x7c00;
  if (std::isinf(xd)) return mag == inf;
  const double ax = std::fabs(xd);
  // Neighbours of |h| in magnitude: below (mag - 1) and above (mag + 1, the largest finite's
  // neighbour above being where rounding overflows to infinity).
  const double here = std::fabs(v);
  const double below = mag == 0 ? -1.0 : std::fabs(decode(static_cast<uint16_t>(mag - 1), bf16));
  const uint16_t max_finite = static_cast<uint16_t>(inf - 1);
  const double above = mag >= max_finite ? 2 * std::fabs(decode(max_finite, bf16)) -
                                               std::fabs(decode(static_cast<uint16_t>(max_finite - 1), bf16))
                                         : std::fabs(decode(static_cast<uint16_t>(mag + 1), bf16));
  (void)sign;
  if (mag == inf) {  // overflow: |x| at least halfway past the largest finite value
    const double big = std::fabs(decode(max_finite, bf16)), step = big - std::fabs(decode(max_finite - 1, bf16));
    return ax >= big + step / 2;
  }
  const double d = std::fabs(ax - here);
  if (mag > 0 && d > std::fabs(ax - below)) return false;
  if (d > std::fabs(above - ax)) return false;
  const bool tie = (mag > 0 && d == std::fabs(ax - below)) || d == std::fabs(above - ax);
  return !tie || (mag & 1) == 0;
}

std::vector<float> narrowing_inputs() {
  std::vector<float> v;
  for (uint32_t e = 0; e < 256; ++e)
    for (uint32_t m : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu, 0x8000u, 0x8001u, 0x18000u,
                       0x7fffffu, 0x400000u, 0x7fe000u, 0x7ff000u})
      for (uint32_t s : {0u, 0x80000000u}) v.push_back(bits_to_float(s | (e << 23) | m));
  std::mt19937 g(11);
  for (int i = 0; i < 20000; ++i) v.push_back(bits_to_float(static_cast<uint32_t>(g())));
  for (float f : {65504.0f, 65519.99f, 65520.0f, 65536.0f, 5.96e-8f, 2.98e-8f, 2.99e-8f, 6.1e-5f, 3.3895e38f})
    for (float s : {1.0f, -1.0f}) v.push_back(s * f);
  return v;
}

class HalfConvert : public ::testing::TestWithParam<bool> {};  // the parameter: BF16 (else FLOAT16)

TEST_P(HalfConvert, WideningIsExactForEveryPattern) {
  const bool bf16 = GetParam();
  std::vector<uint16_t> h(65536);
  for (uint32_t i = 0; i < 65536; ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> f(h.size());
  load_as<float>(bf16 ? ACL_BF16 : ACL_FLOAT16, reinterpret_cast<const char *>(h.data()), 2, f.data(),
                 static_cast<int64_t>(f.size()));
  for (uint32_t i = 0; i < 65536; ++i) {
    const double want = decode(h[i], bf16);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f[i])) << std::hex << i;
      ASSERT_EQ(std::signbit(f[i]), (i & 0x8000) != 0) << std::hex << i;
      // FLOAT16: quieted (F16C's conversion sets the quiet bit; the scalar path does the same);
      // BF16: the bits move unchanged.
      const uint32_t payload = float_to_bits(f[i]) & 0x7fffff, mant = i & (bf16 ? 0x7f : 0x3ff);
      ASSERT_EQ(payload, (mant << (bf16 ? 16 : 13)) | (bf16 ? 0u : 0x400000u)) << std::hex << i;
    } else {
      ASSERT_EQ(static_cast<double>(f[i]), want) << std::hex << i;
      ASSERT_EQ(std::signbit(f[i]), std::signbit(want)) << std::hex << i;
    }
  }
}

TEST_P(HalfConvert, NarrowingRoundsToNearestEven) {
  const bool bf16 = GetParam();
  const std::vector<float> x = narrowing_inputs();
  std::vector<uint16_t> h(x.size());
  store_from<float>(x.data(), bf16 ? ACL_BF16 : ACL_FLOAT16, reinterpret_cast<char *>(h.data()), 2,
                    static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      ASSERT_TRUE(is_nan16(h[i], bf16)) << std::hex << float_to_bits(x[i]);
      const int mant_bits = bf16 ? 7 : 10;
      ASSERT_TRUE((h[i] >> (mant_bits - 1)) & 1) << "quiet bit, input " << std::hex << float_to_bits(x[i]);
      const uint32_t top = (float_to_bits(x[i]) & 0x7fffff) >> (23 - mant_bits);
      ASSERT_EQ(h[i] & ((1u << (mant_bits - 1)) - 1), top & ((1u << (mant_bits - 1)) - 1))
          << "payload, input " << std::hex << float_to_bits(x[i]);
      ASSERT_EQ((h[i] & 0x8000) != 0, std::signbit(x[i]));
    } else {
      ASSERT_TRUE(nearest_even(x[i], h[i], bf16))
          << "input " << std::hex << float_to_bits(x[i]) << " (" << x[i] << ") gave " << h[i];
    }
  }
}

// The vector runs and the element-at-a-time path (one element per call: below the run length)
// give the same bits, for every length around the vector width and every tier the CPU has.
TEST_P(HalfConvert, RunsEqualElementAtATimeInEveryTier) {
  const bool bf16 = GetParam();
  const aclDataType dt = bf16 ? ACL_BF16 : ACL_FLOAT16;
  const std::vector<float> x = narrowing_inputs();
  for (const char *isa : {"portable", "avx2", static_cast<const char *>(nullptr)}) {
    core::reset_kernel_env_for_testing(isa, nullptr);
    for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 33, 100, 1031}) {
      std::vector<uint16_t> run(static_cast<size_t>(n)), one(static_cast<size_t>(n));
      store_from<float>(x.data(), dt, reinterpret_cast<char *>(run.data()), 2, n);
      for (int64_t i = 0; i < n; ++i)
        store_from<float>(x.data() + i, dt, reinterpret_cast<char *>(one.data() + i), 2, 1);
      ASSERT_EQ(run, one) << "narrowing, n " << n << " isa " << (isa ? isa : "default");
      std::vector<float> wide_run(static_cast<size_t>(n)), wide_one(static_cast<size_t>(n));
      load_as<float>(dt, reinterpret_cast<const char *>(run.data()), 2, wide_run.data(), n);
      for (int64_t i = 0; i < n; ++i)
        load_as<float>(dt, reinterpret_cast<const char *>(run.data() + i), 2, wide_one.data() + i, 1);
      ASSERT_EQ(0, std::memcmp(wide_run.data(), wide_one.data(), wide_run.size() * 4)) << "widening, n " << n;
    }
  }
  // Widening every pattern (signalling NaNs included) in runs and one at a time.
  std::vector<uint16_t> all(65536);
  for (uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> wide_run(all.size()), wide_one(all.size());
  load_as<float>(dt, reinterpret_cast<const char *>(all.data()), 2, wide_run.data(), 65536);
  for (size_t i = 0; i < all.size(); ++i)
    load_as<float>(dt, reinterpret_cast<const char *>(all.data() + i), 2, wide_one.data() + i, 1);
  EXPECT_EQ(0, std::memcmp(wide_run.data(), wide_one.data(), wide_run.size() * 4));
  core::reset_kernel_env_for_testing(nullptr, nullptr);
  EXPECT_EQ(half_convert_available(), core::cpu_features().avx2 && core::cpu_features().f16c);
}

INSTANTIATE_TEST_SUITE_P(Formats, HalfConvert, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &i) { return i.param ? "BF16" : "FLOAT16"; });

}  // namespace
}  // namespace opsnn::kernels

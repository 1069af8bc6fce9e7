// The low-precision float codecs of kernels/quant/low_float.h against references written here in double:
//   - every code of FLOAT8_E4M3FN / FLOAT8_E5M2 (256) and FLOAT4_E2M1 / FLOAT4_E1M2 (16) decodes to the value
//     the format's definition gives (E2M1 / E1M2: the documented value lists; FLOAT8: sign, exponent and
//     mantissa fields with their bias, subnormals, E4M3FN's NaN, E5M2's infinities and NaNs); E8M0 likewise;
//   - encode(decode(c)) == c for every non-NaN code in every rounding mode;
//   - every mode on the points between neighbours (the midpoints, a float either side of them), random
//     floats over and beyond the range, float subnormals, infinities and NaN: the code of the value a
//     nearest / directed search over the format's value list picks (ties: even mantissa for rint, away from
//     zero for round), saturated to the largest finite value, or inf / NaN when not saturating.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/cpu_features.h"
#include "kernels/quant/low_float.h"
#include "kernels/quant/mx_rows.h"
#include "low_float_ref.h"

namespace opsnn::kernels {
namespace {
namespace lfref = ::opsnn::test::lfref;

struct Fmt {
  LowFloat f;
  const char *name;
  lfref::Fmt ref;
  int bits;
};
const Fmt kFmts[] = {{LowFloat::kE4M3, "E4M3FN", lfref::fmt_of(ACL_FLOAT8_E4M3FN), 8},
                     {LowFloat::kE5M2, "E5M2", lfref::fmt_of(ACL_FLOAT8_E5M2), 8},
                     {LowFloat::kE2M1, "E2M1", lfref::fmt_of(ACL_FLOAT4_E2M1), 4},
                     {LowFloat::kE1M2, "E1M2", lfref::fmt_of(ACL_FLOAT4_E1M2), 4}};
constexpr LfRound kModes[] = {LfRound::kRint, LfRound::kRound, LfRound::kFloor, LfRound::kCeil, LfRound::kTrunc};

double ref_value(const Fmt &m, int c) { return lfref::value(m.ref, c); }
int ref_encode(const Fmt &m, double v, LfRound mode, bool saturate) {
  return lfref::encode(m.ref, v, static_cast<lfref::Mode>(mode), saturate);
}

std::vector<double> probe_points(const Fmt &m, std::mt19937_64 &g) {
  std::vector<double> pts;
  std::vector<double> vals;
  for (int c = 0; c < (1 << (m.bits - 1)); ++c)
    if (std::isfinite(ref_value(m, c))) vals.push_back(ref_value(m, c));
  std::sort(vals.begin(), vals.end());
  const double mx = vals.back();
  for (size_t i = 0; i + 1 < vals.size(); ++i) {
    const float mid = static_cast<float>((vals[i] + vals[i + 1]) / 2);
    for (float p : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY), static_cast<float>(vals[i]),
                    std::nextafter(static_cast<float>(vals[i + 1]), 0.0f)})
      pts.push_back(p);
  }
  const double ulp_top = vals.back() - vals[vals.size() - 2];
  for (double p : {mx + ulp_top / 2, mx + ulp_top / 4, mx + ulp_top, 2 * mx, 1e30, 3e38})
    pts.push_back(static_cast<float>(p));
  for (float p : {1e-45f, 1e-40f, 1.17e-38f, 1e-20f, 0.0f}) pts.push_back(p);
  std::uniform_real_distribution<double> u(0, 1.5 * mx);
  for (int i = 0; i < 2000; ++i) pts.push_back(static_cast<float>(u(g)));
  for (int i = 0; i < 500; ++i) pts.push_back(static_cast<float>(std::ldexp(u(g) / mx, -static_cast<int>(g() % 30))));
  std::vector<double> both;
  for (double p : pts) {
    both.push_back(p);
    both.push_back(-p);
  }
  both.push_back(INFINITY);
  both.push_back(-INFINITY);
  both.push_back(NAN);
  return both;
}

TEST(LowFloat, EveryCodeDecodesToItsDocumentedValue) {
  for (const Fmt &m : kFmts)
    for (int c = 0; c < 256; ++c) {
      const double want = ref_value(m, m.bits == 4 ? (c & 0xF) : c);
      const float got = lf_decode(static_cast<uint8_t>(c), m.f);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << m.name << " code " << c;
      } else {
        EXPECT_EQ(static_cast<double>(got), want) << m.name << " code " << c;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << m.name << " code " << c;
      }
    }
  EXPECT_EQ(low_float_spec(LowFloat::kE4M3).max, 448.0f);
  EXPECT_EQ(low_float_spec(LowFloat::kE5M2).max, 57344.0f);
  EXPECT_EQ(low_float_spec(LowFloat::kE2M1).max, 6.0f);
  EXPECT_EQ(low_float_spec(LowFloat::kE1M2).max, 1.75f);
}

TEST(LowFloat, E8M0IsAPureExponent) {
  for (int c = 0; c < 255; ++c) EXPECT_EQ(static_cast<double>(e8m0_decode(static_cast<uint8_t>(c))), std::pow(2.0, c - 127));
  EXPECT_TRUE(std::isnan(e8m0_decode(255)));
  for (int e = -140; e <= 140; ++e)
    EXPECT_EQ(e8m0_of_exp(e), std::min(254, std::max(0, e + 127))) << e;
}

TEST(LowFloat, EveryNonNanCodeRoundTripsInEveryMode) {
  for (const Fmt &m : kFmts)
    for (int c = 0; c < (1 << m.bits); ++c) {
      const double v = ref_value(m, c);
      if (std::isnan(v)) continue;
      for (LfRound mode : kModes)
        for (bool sat : {true, false}) {
          if (std::isinf(v) && sat) continue;  // saturating: inf becomes the largest finite value
          EXPECT_EQ(lf_encode(static_cast<float>(v), m.f, mode, sat), c) << m.name << " code " << c;
        }
    }
}

TEST(LowFloat, EncodeMatchesTheNearestAndDirectedSearch) {
  std::mt19937_64 g(20261203);
  for (const Fmt &m : kFmts) {
    const auto pts = probe_points(m, g);
    for (double v : pts)
      for (LfRound mode : kModes)
        for (bool sat : {true, false}) {
          const int want = ref_encode(m, v, mode, sat);
          const int got = lf_encode(static_cast<float>(v), m.f, mode, sat);
          ASSERT_EQ(got, want) << m.name << " v " << v << " mode " << static_cast<int>(mode) << " saturate " << sat;
        }
  }
}

// The bit-level rint row (the MX kernels' path) gives lf_encode's codes: every probe point times power-of-two
// multipliers (the block scales' inverses), NaN and infinities included.
TEST(LowFloat, RintRowMatchesTheScalarEncoder) {
  std::mt19937_64 g(7);
  for (const Fmt &m : kFmts) {
    std::vector<float> v;
    for (double p : probe_points(m, g)) v.push_back(static_cast<float>(p));
    std::vector<uint8_t> got(v.size());
    for (int e : {0, -3, 5, -20, 40, 126, -126}) {
      const float mul = std::ldexp(1.0f, e);
      lf_encode_rint_row(v.data(), static_cast<int64_t>(v.size()), mul, m.f, got.data());
      for (size_t i = 0; i < v.size(); ++i)
        ASSERT_EQ(got[i], lf_encode(v[i] * mul, m.f, LfRound::kRint)) << m.name << " v " << v[i] << " mul 2^" << e;
    }
  }
}

#if defined(__x86_64__)
// The avx512 tier of the MX block kernels gives the portable build's results: codes on every probe point and
// block scale (lengths around the 16-lane steps), and the block max with and without NaN.
TEST(LowFloat, Avx512RowKernelsMatchThePortableBuild) {
  const auto &cpu = core::cpu_features();
  if (!(cpu.avx512f && cpu.avx512bw && cpu.avx512vl && cpu.avx512dq)) GTEST_SKIP() << "no AVX-512 on this CPU";
  std::mt19937_64 g(11);
  for (const Fmt &m : kFmts) {
    std::vector<float> v;
    for (double p : probe_points(m, g)) v.push_back(static_cast<float>(p));
    std::vector<uint8_t> want(v.size()), got(v.size());
    for (int e : {0, -3, 7, -126, 126})
      for (int64_t n : {int64_t{1}, int64_t{15}, int64_t{16}, int64_t{17}, int64_t{33}, static_cast<int64_t>(v.size())}) {
        const float mul = std::ldexp(1.0f, e);
        lf_encode_rint_row(v.data(), n, mul, m.f, want.data());
        lf_encode_rint_row_avx512(v.data(), n, mul, m.f, got.data());
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << m.name << " v " << v[i] << " mul 2^" << e;
      }
  }
  std::uniform_real_distribution<float> u(-100, 100);
  for (int64_t n : {1, 16, 31, 32, 47, 1024}) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto &e : v) e = u(g);
    EXPECT_EQ(mx_amax_avx512(v.data(), n), mx_amax_portable(v.data(), n)) << n;
    v[static_cast<size_t>(g() % static_cast<uint64_t>(n))] = NAN;
    EXPECT_TRUE(std::isnan(mx_amax_avx512(v.data(), n))) << n;
  }
}
#endif

TEST(LowFloat, TiesAndSaturationSpotChecks) {
  // E2M1: 2.5 is halfway between 2 (mantissa 0) and 3: rint keeps 2, round goes to 3; 5 -> 4 (rint), 6 (round)
  EXPECT_EQ(lf_decode(lf_encode(2.5f, LowFloat::kE2M1, LfRound::kRint), LowFloat::kE2M1), 2.0f);
  EXPECT_EQ(lf_decode(lf_encode(2.5f, LowFloat::kE2M1, LfRound::kRound), LowFloat::kE2M1), 3.0f);
  EXPECT_EQ(lf_decode(lf_encode(5.0f, LowFloat::kE2M1, LfRound::kRint), LowFloat::kE2M1), 4.0f);
  EXPECT_EQ(lf_decode(lf_encode(-5.0f, LowFloat::kE2M1, LfRound::kRound), LowFloat::kE2M1), -6.0f);
  EXPECT_EQ(lf_decode(lf_encode(-0.1f, LowFloat::kE2M1, LfRound::kFloor), LowFloat::kE2M1), -0.5f);
  EXPECT_EQ(lf_decode(lf_encode(100.0f, LowFloat::kE2M1, LfRound::kRint), LowFloat::kE2M1), 6.0f);
  EXPECT_EQ(lf_encode(1000.0f, LowFloat::kE4M3, LfRound::kRint), 0x7E);  // 448
  EXPECT_EQ(lf_encode(1000.0f, LowFloat::kE4M3, LfRound::kRint, false), 0x7F);
  EXPECT_EQ(lf_encode(-1e6f, LowFloat::kE5M2, LfRound::kRint, false), 0xFC);
  EXPECT_EQ(lf_encode(std::ldexp(1.0f, -10), LowFloat::kE4M3, LfRound::kRint), 0x00);  // half of 2^-9: to even 0
  EXPECT_EQ(lf_encode(std::ldexp(3.0f, -10), LowFloat::kE4M3, LfRound::kRint), 0x02);  // 1.5 * 2^-9 -> 2 * 2^-9
  EXPECT_EQ(lf_encode(-0.0f, LowFloat::kE5M2, LfRound::kRint), 0x80);
}

}  // namespace
}  // namespace opsnn::kernels

// vec_exp.h's exp for softmax's x - max (x <= 0), as this unit compiles it (the generic vector
// form: the AVX-512 form runs under the ops suite's softmax cases), against std::exp in double over
// a dense sweep of [-110, 0] and every exponent of small arguments: a few ULP where the result is
// normal, 0 or below 2^-126 where it is not, and the special values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/simd/vec_exp.h"

namespace opsnn::test {
namespace {

namespace vec = kernels::vec;

std::vector<float> exp_of(const std::vector<float> &x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); i += vec::kF32) {
    float part[vec::kF32] = {};
    for (size_t k = 0; k < vec::kF32 && i + k < x.size(); ++k) part[k] = x[i + k];
    const vec::f32v e = vec::exp_nonpos(vec::load(part));
    for (size_t k = 0; k < vec::kF32 && i + k < x.size(); ++k) y[i + k] = e[k];
  }
  return y;
}

TEST(VecExp, NonPositiveArgumentsWithinFourUlp) {
  std::vector<float> x;
  for (int i = 0; i <= 1100000; ++i) x.push_back(-110.0f * static_cast<float>(i) / 1100000.0f);
  for (float m = 1e-30f; m < 1.0f; m *= 1.01f) x.push_back(-m);  // every exponent near 0
  const std::vector<float> y = exp_of(x);
  double worst_ulp = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double ref = std::exp(static_cast<double>(x[i]));
    if (ref < 0x1p-126) {  // flushed or gradual: no relative claim, only that it is tiny and not negative
      EXPECT_GE(y[i], 0.0f) << x[i];
      EXPECT_LE(y[i], 0x1p-125f) << x[i];
      continue;
    }
    const double ulp = std::ldexp(1.0, std::ilogb(ref) - 23);
    worst_ulp = std::max(worst_ulp, std::fabs(y[i] - ref) / ulp);
  }
  std::printf("exp_nonpos: max error %.2f ULP over %zu arguments\n", worst_ulp, x.size());
  EXPECT_LE(worst_ulp, 4.0);
}

TEST(VecExp, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> y = exp_of({0.0f, -0.0f, -inf, nan, -1e30f, -87.5f, -200.0f});
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_LE(y[5], 0x1p-125f);
  EXPECT_EQ(y[6], 0.0f);
}

}  // namespace
}  // namespace opsnn::test

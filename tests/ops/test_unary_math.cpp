// Unary math cases beyond the op tables' generic harness (tests/ops/test_op_table_unary.cpp runs
// every dtype, view, special value and error of every table op): trigonometric arguments beyond
// 2^20 (the exact path), Frac's infinities, RoundDecimals with non-zero decimals.
#include <cmath>
#include <string>

#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_frac.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_tan.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Phase1 = aclnnStatus (*)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// Exactly representable within the tolerance of a 3e-7 relative error (denormals absolute).
bool same_value(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (std::isnan(got) || std::isinf(got)) return false;
  if (want == 0) return got == 0 && std::signbit(got) == std::signbit(want);
  return std::fabs(got - want) <= tol * std::fabs(want) || std::fabs(got - want) < 1e-44;
}

TEST(UnaryMathTrig, LargeArgumentsTakeTheExactPath) {
  // one element beyond 2^20 sends its chunk through libm; the others stay accurate too
  std::vector<double> v;
  for (int i = 0; i < 1500; ++i) v.push_back(round_to(ACL_FLOAT, std::sin(i * 0.7) * 50));
  v[700] = round_to(ACL_FLOAT, 1.2345e7);
  v[701] = round_to(ACL_FLOAT, -3.0e38);
  v[702] = round_to(ACL_FLOAT, 1048576.0);
  v[1400] = round_to(ACL_FLOAT, 7.77e20);
  const std::pair<Phase1, Phase2> ops[] = {{aclnnSinGetWorkspaceSize, aclnnSin}, {aclnnCosGetWorkspaceSize, aclnnCos},
                                           {aclnnTanGetWorkspaceSize, aclnnTan}};
  double (*refs[])(double) = {[](double x) { return std::sin(x); }, [](double x) { return std::cos(x); },
                              [](double x) { return std::tan(x); }};
  for (int k = 0; k < 3; ++k) {
    DeviceTensor in({1500}, ACL_FLOAT), out({1500}, ACL_FLOAT);
    in.set_values(v);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return ops[k].first(in, out, w, e); }, ops[k].second), 0);
    auto got = out.values();
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_TRUE(same_value(got[i], round_to(ACL_FLOAT, refs[k](v[i])), 3e-7)) << k << " x=" << v[i] << " got " << got[i];
  }
  // in place: the exact path reads each element before writing it
  DeviceTensor io({1500}, ACL_FLOAT);
  io.set_values(v);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceSinGetWorkspaceSize(io, w, e); }, aclnnInplaceSin), 0);
  auto got = io.values();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(same_value(got[i], round_to(ACL_FLOAT, std::sin(v[i])), 3e-7));
}

TEST(UnaryMathFrac, FloatsOnly) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    DeviceTensor in({200}, dt), out({200}, dt);
    in.fill_random(-50, 50);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFracGetWorkspaceSize(in, out, w, e); }, aclnnFrac), 0);
    auto v = in.values();
    for (auto &x : v) x = round_to(dt, x - std::trunc(x));
    EXPECT_TRUE(meets_precision(dt, out.values(), v));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceFracGetWorkspaceSize(in, w, e); }, aclnnInplaceFrac), 0);
    EXPECT_TRUE(meets_precision(dt, in.values(), v));
  }
  DeviceTensor s({3}, ACL_FLOAT), so({3}, ACL_FLOAT), i({3}, ACL_INT32), io({3}, ACL_INT32);
  s.set_values({INFINITY, -1.5, NAN});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFracGetWorkspaceSize(s, so, w, e); }, aclnnFrac), 0);
  auto g = so.values();
  EXPECT_TRUE(std::isnan(g[0]));  // inf - trunc(inf), as PyTorch
  EXPECT_EQ(g[1], -0.5);
  EXPECT_TRUE(std::isnan(g[2]));
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnFracGetWorkspaceSize(i, io, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "INT32"}));
}

TEST(UnaryMathRoundDecimals, FloatsAndIntegers) {
  reseed_for_current_test();
  for (int64_t d : {-2, -1, 0, 1, 3}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
      SCOPED_TRACE(::testing::Message() << "decimals " << d << " dtype " << dt);
      DeviceTensor in({300}, dt), out({300}, dt);
      in.fill_random(-1000, 1000);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRoundDecimalsGetWorkspaceSize(in, d, out, w, e); },
                       aclnnRoundDecimals),
                0);
      auto v = in.values();
      const double p = std::pow(10.0, std::abs(static_cast<double>(d)));
      // the reference in the compute precision (float for FLOAT/FLOAT16), as torch.round does
      for (auto &x : v) {
        if (dt == ACL_DOUBLE) x = d < 0 ? std::nearbyint(x / p) * p : std::nearbyint(x * p) / p;
        else {
          const float xf = static_cast<float>(x), pf = static_cast<float>(p);
          x = round_to(dt, d < 0 ? std::nearbyint(xf / pf) * pf : std::nearbyint(xf * pf) / pf);
        }
      }
      EXPECT_TRUE(meets_precision(dt, out.values(), v));
    }
  }
  DeviceTensor i({5}, ACL_INT32), io({5}, ACL_INT32);
  i.set_values({15, 25, -35, 1234, 7});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRoundDecimalsGetWorkspaceSize(i, -1, io, w, e); },
                   aclnnRoundDecimals),
            0);
  EXPECT_EQ(io.values(), (std::vector<double>{20, 20, -40, 1230, 10}));  // half to even
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceRoundDecimalsGetWorkspaceSize(i, 2, w, e); },
                   aclnnInplaceRoundDecimals),
            0);
  EXPECT_EQ(i.values(), (std::vector<double>{15, 25, -35, 1234, 7}));
  DeviceTensor f({2}, ACL_FLOAT);
  f.set_values({1.2345, -2.5});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceRoundDecimalsGetWorkspaceSize(f, 2, w, e); },
                   aclnnInplaceRoundDecimals),
            0);
  EXPECT_NEAR(f.values()[0], 1.23, 1e-6);
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor b({2}, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnRoundDecimalsGetWorkspaceSize(b, 1, b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"BOOL"}));
}

}  // namespace
}  // namespace opsnn::test

// BinaryCrossEntropyWithLogitsTargetBackward beyond the pointwise-loss harness: float64 references written
// here, central finite differences in the target, every reduction with and without weight, errors.
#include <cmath>
#include <functional>
#include <memory>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

TEST(ActivationBackwardBce, TargetGradientEveryReductionAndOptionalWeight) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (int64_t reduction : {0, 1, 2}) {
      for (int variant = 0; variant < 4; ++variant) {  // bit 0: weight, bit 1: posWeight
        SCOPED_TRACE(::testing::Message() << "dtype " << dt << " reduction " << reduction << " variant " << variant);
        const std::vector<int64_t> shape{3, 4, 5};
        DeviceTensor g(reduction == 0 ? shape : std::vector<int64_t>{1}, dt), x(shape, dt), t(shape, dt),
            w({4, 1}, dt), pw({5}, dt), out(shape, dt);
        g.fill_random(-2, 2);
        x.fill_random(-4, 4);
        t.fill_random(0, 1);
        w.fill_random(0.2, 2);
        pw.fill_random(0.5, 3);
        out.poison();
        aclTensor *wt = (variant & 1) ? w.get() : nullptr, *pwt = (variant & 2) ? pw.get() : nullptr;
        ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
                    return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(g, x, t, wt, pwt, reduction,
                                                                                            out, ws, e);
                  }, aclnnBinaryCrossEntropyWithLogitsTargetBackward), 0) << aclGetRecentErrMsg();
        auto gv = g.values(), xv = x.values(), wv = w.values(), pv = pw.values();
        std::vector<double> ref(xv.size());
        for (size_t i = 0; i < ref.size(); ++i) {
          auto idx = unravel(static_cast<int64_t>(i), shape);
          const double gg = reduction == 0 ? gv[i] : gv[0];
          const double ww = (variant & 1) ? wv[static_cast<size_t>(idx[1])] : 1.0;
          const double pp = (variant & 2) ? pv[static_cast<size_t>(idx[2])] : 1.0;
          const double s = 1.0 / (1.0 + std::exp(-xv[i]));
          // d/dt of -w [p t log s + (1 - t) log(1 - s)]
          double d = -ww * (pp * std::log(s) - std::log1p(-s));
          if (reduction == 1) d /= 60.0;
          ref[i] = gg * d;
        }
        EXPECT_TRUE(meets_precision(dt, out.values(), ref));
      }
    }
  }
}

TEST(ActivationBackwardBce, FiniteDifferenceInTheTarget) {
  reseed_for_current_test();
  DeviceTensor g({6}, ACL_FLOAT), x({6}, ACL_FLOAT), t({6}, ACL_FLOAT), w({6}, ACL_FLOAT), pw({6}, ACL_FLOAT),
      out({6}, ACL_FLOAT);
  g.set_values(std::vector<double>(6, 1.0));
  x.fill_random(-3, 3);
  t.fill_random(0, 1);
  w.fill_random(0.5, 1.5);
  pw.fill_random(0.5, 2);
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) {
              return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(g, x, t, w, pw, 0, out, ws, e);
            }, aclnnBinaryCrossEntropyWithLogitsTargetBackward), 0) << aclGetRecentErrMsg();
  auto xv = x.values(), tv = t.values(), wv = w.values(), pv = pw.values(), o = out.values();
  for (size_t i = 0; i < 6; ++i) {
    auto loss = [&](double tt) {
      const double s = 1.0 / (1.0 + std::exp(-xv[i]));
      return -wv[i] * (pv[i] * tt * std::log(s) + (1 - tt) * std::log(1 - s));
    };
    const double fd = (loss(tv[i] + 1e-6) - loss(tv[i] - 1e-6)) / 2e-6;
    EXPECT_NEAR(o[i], fd, 2e-4 * std::max(1.0, std::fabs(fd)));
  }
}

TEST(ActivationBackwardBce, Errors) {
  DeviceTensor g({3, 4}, ACL_FLOAT), x({3, 4}, ACL_FLOAT), t({3, 4}, ACL_FLOAT), out({3, 4}, ACL_FLOAT);
  DeviceTensor t_bad({4, 3}, ACL_FLOAT), w_bad({3, 5}, ACL_FLOAT), g_big({2, 3, 4}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto p1 = [&](aclTensor *gg, aclTensor *tt, aclTensor *w, int64_t red, aclTensor *o) {
    return aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(gg, x, tt, w, nullptr, red, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(p1(g, nullptr, nullptr, 0, out), ACLNN_ERR_PARAM_NULLPTR, {"target"}));
  EXPECT_TRUE(fails_with(p1(g, t, nullptr, 3, out), ACLNN_ERR_PARAM_INVALID, {"reduction"}));
  EXPECT_TRUE(fails_with(p1(g, t_bad, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID, {"target", "[4, 3]"}));
  EXPECT_TRUE(fails_with(p1(g, t, w_bad, 0, out), ACLNN_ERR_PARAM_INVALID, {"weightOptional"}));
  EXPECT_TRUE(fails_with(p1(g_big, t, nullptr, 0, out), ACLNN_ERR_PARAM_INVALID, {"gradOutput"}));
  EXPECT_TRUE(fails_with(p1(g, t, nullptr, 0, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"gradTarget"}));
}

}  // namespace
}  // namespace opsnn::test

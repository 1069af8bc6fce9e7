// PreluBackward and BinaryCrossEntropyWithLogitsTargetBackward: float64 references written here,
// central finite differences, every dtype, determinism of the weight reduction, errors. (The GLU
// gradients run the gated harness: tests/ops/test_op_table_gated.cpp.)
#include <cmath>
#include <functional>
#include <memory>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "aclnnop/aclnn_prelu_backward.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

// ---- PreluBackward ----

void check_prelu(aclDataType dt, const std::vector<int64_t> &shape, int64_t wn) {
  DeviceTensor g(shape, dt), x(shape, dt), w({wn}, dt), gi(shape, dt), gw({wn}, dt);
  g.fill_random(-2, 2);
  x.fill_random(-2, 2);
  w.fill_random(-0.5, 0.5);
  gi.poison();
  gw.poison();
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnPreluBackwardGetWorkspaceSize(g, x, w, gi, gw, ws, e); },
                   aclnnPreluBackward), 0) << aclGetRecentErrMsg();
  auto gv = g.values(), xv = x.values(), wv = w.values();
  std::vector<double> ref_in(gv.size()), ref_w(static_cast<size_t>(wn), 0.0);
  for (int64_t i = 0; i < g.numel(); ++i) {
    auto idx = unravel(i, shape);
    const int64_t c = wn == 1 ? 0 : idx[1];
    const double xi = xv[static_cast<size_t>(i)], gg = gv[static_cast<size_t>(i)];
    ref_in[static_cast<size_t>(i)] = xi > 0 ? gg : wv[static_cast<size_t>(c)] * gg;
    if (xi <= 0) ref_w[static_cast<size_t>(c)] += gg * xi;
  }
  for (auto &v : ref_in) v = round_to(dt, v);  // tiny products land in FLOAT16 subnormals
  EXPECT_TRUE(meets_precision(dt, gi.values(), ref_in));
  EXPECT_TRUE(meets_precision(dt, gw.values(), ref_w));
  EXPECT_TRUE(gw.untouched_outside_view());
}

TEST(ActivationBackwardPrelu, ChannelAndSingleWeightEveryDtype) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    check_prelu(dt, {3, 4, 5, 6}, 4);
    check_prelu(dt, {3, 4, 5, 6}, 1);
    check_prelu(dt, {7}, 1);
  }
  check_prelu(ACL_FLOAT, {2, 3, 40000}, 3);  // several reduction blocks per channel
}

TEST(ActivationBackwardPrelu, FiniteDifferenceAndDeterminism) {
  reseed_for_current_test();
  // L = sum(g * prelu(x, w)); dL/dw by central differences in double.
  const std::vector<int64_t> shape{2, 3, 50};
  DeviceTensor g(shape, ACL_FLOAT), x(shape, ACL_FLOAT), w({3}, ACL_FLOAT), gi(shape, ACL_FLOAT), gw({3}, ACL_FLOAT);
  g.fill_random(-1, 1);
  x.fill_random(-2, 2);
  w.set_values({0.25, -0.1, 0.6});
  auto gv = g.values(), xv = x.values(), wv = w.values();
  auto loss = [&](int c, double dw) {
    double l = 0;
    for (int64_t i = 0; i < g.numel(); ++i) {
      const int64_t ch = unravel(i, shape)[1];
      const double wc = wv[static_cast<size_t>(ch)] + (ch == c ? dw : 0.0), xi = xv[static_cast<size_t>(i)];
      l += gv[static_cast<size_t>(i)] * (xi > 0 ? xi : wc * xi);
    }
    return l;
  };
  std::vector<double> first;
  for (int rep = 0; rep < 3; ++rep) {
    gw.poison();
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnPreluBackwardGetWorkspaceSize(g, x, w, gi, gw, ws, e); },
                     aclnnPreluBackward), 0) << aclGetRecentErrMsg();
    auto got = gw.values();
    if (rep == 0) first = got;
    EXPECT_EQ(got, first);  // bit-identical from run to run
  }
  for (int c = 0; c < 3; ++c) {
    const double fd = (loss(c, 1e-5) - loss(c, -1e-5)) / 2e-5;
    EXPECT_NEAR(first[static_cast<size_t>(c)], fd, 1e-4 * std::max(1.0, std::fabs(fd)));
  }
}

TEST(ActivationBackwardPrelu, Errors) {
  DeviceTensor g({2, 3, 4}, ACL_FLOAT), x({2, 3, 4}, ACL_FLOAT), w({3}, ACL_FLOAT), w2({2}, ACL_FLOAT);
  DeviceTensor gi({2, 3, 4}, ACL_FLOAT), gw({3}, ACL_FLOAT), gw2({2}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnPreluBackwardGetWorkspaceSize(g, x, nullptr, gi, gw, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                         {"weight"}));
  EXPECT_TRUE(fails_with(aclnnPreluBackwardGetWorkspaceSize(g, x, w2, gi, gw2, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"weight", "channels"}));
  EXPECT_TRUE(fails_with(aclnnPreluBackwardGetWorkspaceSize(g, x, w, gi, gw2, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"gradWeight", "[2]"}));
}

// ---- BinaryCrossEntropyWithLogitsTargetBackward ----

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

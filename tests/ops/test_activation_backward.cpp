// The "gradOutput + self (or result) -> gradInput" activation gradients: every documented dtype
// against a float64 analytic derivative written here, a central finite-difference check of that
// derivative and of the library's FLOAT result against the forward formula, broadcasting, strided
// views, zero-size tensors, special values and error cases.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "aclnnop/aclnn_elu_backward.h"
#include "aclnnop/aclnn_fast_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_hardshrink_backward.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "aclnnop/aclnn_hardswish_backward.h"
#include "aclnnop/aclnn_hardswish_backward_v2.h"
#include "aclnnop/aclnn_hardtanh_backward.h"
#include "aclnnop/aclnn_leaky_relu_backward.h"
#include "aclnnop/aclnn_logsigmoid_backward.h"
#include "aclnnop/aclnn_mish_backward.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "aclnnop/aclnn_sigmoid_backward.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "aclnnop/aclnn_softplus_backward.h"
#include "aclnnop/aclnn_softshrink_backward.h"
#include "aclnnop/aclnn_swish_backward.h"
#include "aclnnop/aclnn_threshold_backward.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Phase1 = std::function<int(aclTensor *g, aclTensor *x, aclTensor *out, uint64_t *ws, aclOpExecutor **ex)>;
using Phase2 = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

double sigm(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }
constexpr double kPi = 3.14159265358979323846;
constexpr double kSeluAlpha = 1.6732632423543772848170429916717, kSeluScale = 1.0507009873554804934193349852946;

struct Scalar {
  aclScalar *s;
  explicit Scalar(double v) {
    float f = static_cast<float>(v);
    s = aclCreateScalar(&f, ACL_FLOAT);
  }
  ~Scalar() { aclDestroyScalar(s); }
  operator aclScalar *() const { return s; }
};

// One op: the forward formula f(x), the derivative written independently, and how to call it.
struct GradOp {
  const char *name;
  Phase1 phase1;
  Phase2 phase2;
  std::function<double(double)> forward;
  std::function<double(double)> derivative;  // d forward / dx at x
  double lo = -4, hi = 4;                     // where x is drawn
  std::vector<double> kinks;                  // points where the finite difference is skipped
  bool from_result = false;                   // the op takes the forward result y = f(x)
  std::function<double(double)> derivative_of_result;  // with from_result: d f / dx as a function of y
  bool broadcast = true;
};

Scalar s_lambd(0.5), s_min(-1.25), s_max(0.75), s_slope(0.1), s_beta(1.5), s_threshold(2.0), s_th(0.25);
Scalar s_alpha(1.3), s_scale(1.1), s_iscale(0.8), s_swish_beta(0.7), s_one(1.0);

std::vector<GradOp> &ops() {
  static std::vector<GradOp> v = [] {
    std::vector<GradOp> r;
    auto gelu = [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
    auto gelu_d = [](double x) {
      if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;  // the limits
      return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-x * x / 2) / std::sqrt(2 * kPi);
    };
    auto gelu_tanh = [](double x) {
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x)));
    };
    auto gelu_tanh_d = [](double x) {
      if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;  // the limits
      const double k = std::sqrt(2 / kPi), u = k * (x + 0.044715 * x * x * x), t = std::tanh(u);
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x);
    };
    r.push_back({"GeluBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnGeluBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnGeluBackward, gelu, gelu_d});
    r.push_back({"GeluBackwardV2(none)",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   char mode[] = "none";
                   return aclnnGeluBackwardV2GetWorkspaceSize(g, x, mode, o, w, e);
                 },
                 aclnnGeluBackwardV2, gelu, gelu_d});
    r.push_back({"GeluBackwardV2(tanh)",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   char mode[] = "tanh";
                   return aclnnGeluBackwardV2GetWorkspaceSize(g, x, mode, o, w, e);
                 },
                 aclnnGeluBackwardV2, gelu_tanh, gelu_tanh_d});
    r.push_back({"FastGeluBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnFastGeluBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnFastGeluBackward,
                 [](double x) { return x / (1 + std::exp(-1.702 * std::fabs(x))) * std::exp(0.851 * (x - std::fabs(x))); },
                 [](double x) {
                   const double s = sigm(1.702 * x);
                   return s + 1.702 * x * s * (1 - s);
                 }});
    r.push_back({"HardshrinkBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnHardshrinkBackwardGetWorkspaceSize(g, x, s_lambd, o, w, e);
                 },
                 aclnnHardshrinkBackward, [](double x) { return std::fabs(x) > 0.5 ? x : 0.0; },
                 [](double x) { return (x >= -0.5 && x <= 0.5) ? 0.0 : 1.0; }, -2, 2, {-0.5, 0.5}});
    r.push_back({"SoftshrinkBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSoftshrinkBackwardGetWorkspaceSize(g, x, s_lambd, o, w, e);
                 },
                 aclnnSoftshrinkBackward,
                 [](double x) { return x > 0.5 ? x - 0.5 : (x < -0.5 ? x + 0.5 : 0.0); },
                 [](double x) { return (x >= -0.5 && x <= 0.5) ? 0.0 : 1.0; }, -2, 2, {-0.5, 0.5}});
    r.push_back({"HardsigmoidBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnHardsigmoidBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnHardsigmoidBackward, [](double x) { return std::min(1.0, std::max(0.0, x / 6 + 0.5)); },
                 [](double x) { return std::fabs(x) < 3 ? 1.0 / 6 : 0.0; }, -5, 5, {-3, 3}});
    auto hswish = [](double x) { return x * std::min(6.0, std::max(0.0, x + 3)) / 6; };
    r.push_back({"HardswishBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnHardswishBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnHardswishBackward, hswish,
                 [](double x) { return x < -3 ? 0.0 : (x <= 3 ? (2 * x + 3) / 6 : 1.0); }, -5, 5, {-3, 3}});
    r.push_back({"HardswishBackwardV2",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnHardswishBackwardV2GetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnHardswishBackwardV2, hswish,
                 [](double x) { return x <= -3 ? 0.0 : (x < 3 ? (2 * x + 3) / 6 : 1.0); }, -5, 5, {-3, 3}, false,
                 {}, false});
    r.push_back({"HardtanhBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnHardtanhBackwardGetWorkspaceSize(g, x, s_min, s_max, o, w, e);
                 },
                 aclnnHardtanhBackward, [](double x) { return std::min(0.75, std::max(-1.25, x)); },
                 [](double x) { return (x <= -1.25 || x >= 0.75) ? 0.0 : 1.0; }, -2, 2, {-1.25, 0.75}, false, {},
                 false});
    r.push_back({"LeakyReluBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnLeakyReluBackwardGetWorkspaceSize(g, x, s_slope, false, o, w, e);
                 },
                 aclnnLeakyReluBackward, [](double x) { return x > 0 ? x : 0.1 * x; },
                 [](double x) { return x > 0 ? 1.0 : 0.1; }, -3, 3, {0}});
    r.push_back({"LeakyReluBackward(selfIsResult)",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnLeakyReluBackwardGetWorkspaceSize(g, x, s_slope, true, o, w, e);
                 },
                 aclnnLeakyReluBackward, [](double x) { return x > 0 ? x : 0.1 * x; },
                 [](double x) { return x > 0 ? 1.0 : 0.1; }, -3, 3, {0}, true,
                 [](double y) { return y > 0 ? 1.0 : 0.1; }});
    r.push_back({"LogSigmoidBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnLogSigmoidBackwardGetWorkspaceSize(g, x, x, o, w, e);  // buffer: any tensor
                 },
                 aclnnLogSigmoidBackward, [](double x) { return -softplus(-x); },
                 [](double x) { return 1.0 / (1.0 + std::exp(x)); }, -8, 8});
    r.push_back({"MishBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnMishBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnMishBackward, [](double x) { return x * std::tanh(softplus(x)); },
                 [](double x) {
                   const double t = std::tanh(softplus(x));
                   return t + x * sigm(x) * (1 - t * t);
                 },
                 -6, 6});
    r.push_back({"SigmoidBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSigmoidBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnSigmoidBackward, sigm, [](double x) { return sigm(x) * (1 - sigm(x)); }, -6, 6, {}, true,
                 [](double y) { return y * (1 - y); }});
    r.push_back({"SiluBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSiluBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnSiluBackward, [](double x) { return x * sigm(x); },
                 [](double x) { return sigm(x) * (1 + x * (1 - sigm(x))); }, -6, 6});
    r.push_back({"SwishBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSwishBackwardGetWorkspaceSize(g, x, s_swish_beta, o, w, e);
                 },
                 aclnnSwishBackward, [](double x) { return x * sigm(0.7 * x); },
                 [](double x) { return sigm(0.7 * x) + 0.7 * x * sigm(0.7 * x) * (1 - sigm(0.7 * x)); }, -6, 6, {},
                 false, {}, false});
    r.push_back({"SwishBackward(beta null)",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSwishBackwardGetWorkspaceSize(g, x, nullptr, o, w, e);
                 },
                 aclnnSwishBackward, [](double x) { return x * sigm(x); },
                 [](double x) { return sigm(x) * (1 + x * (1 - sigm(x))); }, -6, 6, {}, false, {}, false});
    r.push_back({"SoftplusBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSoftplusBackwardGetWorkspaceSize(g, x, s_beta, s_threshold, o, w, e);
                 },
                 aclnnSoftplusBackward,
                 [](double x) { return 1.5 * x > 2 ? x : std::log1p(std::exp(1.5 * x)) / 1.5; },
                 [](double x) { return 1.5 * x > 2 ? 1.0 : sigm(1.5 * x); }, -5, 5, {2.0 / 1.5}});
    r.push_back({"ThresholdBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnThresholdBackwardGetWorkspaceSize(g, x, s_th, o, w, e);
                 },
                 aclnnThresholdBackward, [](double x) { return x <= 0.25 ? -7.0 : x; },
                 [](double x) { return x <= 0.25 ? 0.0 : 1.0; }, -2, 2, {0.25}});
    auto elu = [](double x) { return x > 0 ? 1.1 * x : 1.1 * 1.3 * (std::exp(0.8 * x) - 1); };
    r.push_back({"EluBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnEluBackwardGetWorkspaceSize(g, s_alpha, s_scale, s_iscale, false, x, o, w, e);
                 },
                 aclnnEluBackward, elu, [](double x) { return x <= 0 ? 1.1 * 1.3 * 0.8 * std::exp(0.8 * x) : 1.1; },
                 -4, 3, {0}, false, {}, false});
    r.push_back({"EluBackward(isResult)",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnEluBackwardGetWorkspaceSize(g, s_alpha, s_scale, s_iscale, true, x, o, w, e);
                 },
                 aclnnEluBackward, elu, [](double x) { return x > 0 ? 1.1 : 1.1 * 1.3 * 0.8 * std::exp(0.8 * x); },
                 -4, 3, {0}, true, [](double y) { return y <= 0 ? 0.8 * (y + 1.3 * 1.1) : 1.1; }, false});
    r.push_back({"SeluBackward",
                 [](aclTensor *g, aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
                   return aclnnSeluBackwardGetWorkspaceSize(g, x, o, w, e);
                 },
                 aclnnSeluBackward,
                 [](double x) { return kSeluScale * (x > 0 ? x : kSeluAlpha * (std::exp(x) - 1)); },
                 [](double x) { return kSeluScale * (x > 0 ? 1.0 : kSeluAlpha * std::exp(x)); }, -4, 3, {0}, true,
                 [](double y) { return y <= 0 ? y + kSeluScale * kSeluAlpha : kSeluScale; }});
    return r;
  }();
  return v;
}

double ref_grad(const GradOp &op, double g, double v) {
  return g * (op.from_result ? op.derivative_of_result(v) : op.derivative(v));
}

// Fills x with values of the op's domain (forward results for from_result ops), in the dtype's precision.
void fill_input(const GradOp &op, DeviceTensor &x) {
  x.fill_random(op.lo, op.hi);
  if (op.from_result) {
    auto v = x.values();
    for (auto &e : v) e = op.forward(e);
    x.set_values(v);
  }
}

int run(const GradOp &op, aclTensor *g, aclTensor *x, aclTensor *o) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return op.phase1(g, x, o, w, e); }, op.phase2);
}

TEST(ActivationBackward, EveryDtypeAgainstAnalyticDerivative) {
  reseed_for_current_test();
  for (const GradOp &op : ops()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      SCOPED_TRACE(::testing::Message() << op.name << " dtype " << dt);
      DeviceTensor g({3, 5, 7}, dt), x({3, 5, 7}, dt), out({3, 5, 7}, dt);
      g.fill_random(-2, 2);
      fill_input(op, x);
      out.poison();
      ASSERT_EQ(run(op, g, x, out), 0) << aclGetRecentErrMsg();
      auto gv = g.values(), xv = x.values();
      std::vector<double> ref(gv.size());
      for (size_t i = 0; i < ref.size(); ++i) ref[i] = ref_grad(op, gv[i], xv[i]);
      EXPECT_TRUE(meets_precision(dt, out.values(), ref));
      EXPECT_TRUE(out.untouched_outside_view());
    }
  }
}

// The analytic derivative of the test and the op's FLOAT result both match a central difference of
// the forward formula (in double) at random points away from kinks.
TEST(ActivationBackward, FiniteDifferenceOfTheForward) {
  reseed_for_current_test();
  std::uniform_real_distribution<double> u(0, 1);
  for (const GradOp &op : ops()) {
    SCOPED_TRACE(op.name);
    std::vector<double> xs;
    while (xs.size() < 16) {
      const double x = static_cast<double>(static_cast<float>(op.lo + (op.hi - op.lo) * u(rng())));
      bool near = false;
      for (double k : op.kinks) near |= std::fabs(x - k) < 1e-2;
      if (!near) xs.push_back(x);
    }
    const int n = static_cast<int>(xs.size());
    DeviceTensor g({n}, ACL_FLOAT), x({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
    g.set_values(std::vector<double>(xs.size(), 1.0));
    std::vector<double> in(xs);
    if (op.from_result)
      for (auto &e : in) e = op.forward(e);
    x.set_values(in);
    auto stored = x.values();
    ASSERT_EQ(run(op, g, x, out), 0) << aclGetRecentErrMsg();
    auto got = out.values();
    for (int i = 0; i < n; ++i) {
      const double xi = xs[static_cast<size_t>(i)], h = 1e-6 * std::max(1.0, std::fabs(xi));
      const double fd = (op.forward(xi + h) - op.forward(xi - h)) / (2 * h);
      EXPECT_NEAR(op.derivative(xi), fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "x = " << xi;
      // The op saw x (or f(x)) rounded to FLOAT; allow for that and for float arithmetic.
      const double tol = 2e-4 * std::max(1.0, std::fabs(fd)) + std::fabs(stored[static_cast<size_t>(i)] - in[static_cast<size_t>(i)]) * 10;
      EXPECT_NEAR(got[static_cast<size_t>(i)], fd, tol) << "x = " << xi;
    }
  }
}

TEST(ActivationBackward, BroadcastingAndDtypePromotion) {
  reseed_for_current_test();
  for (const GradOp &op : ops()) {
    if (!op.broadcast) continue;
    SCOPED_TRACE(op.name);
    // gradOutput broadcasts over dim 0, self over dim 1; gradOutput FLOAT16 promotes with FLOAT self.
    DeviceTensor g({1, 4, 6}, ACL_FLOAT16), x({3, 1, 6}, ACL_FLOAT), out({3, 4, 6}, ACL_FLOAT);
    g.fill_random(-2, 2);
    fill_input(op, x);
    out.poison();
    ASSERT_EQ(run(op, g, x, out), 0) << aclGetRecentErrMsg();
    auto gv = g.values(), xv = x.values();
    std::vector<double> ref(static_cast<size_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) {
      auto idx = unravel(i, {3, 4, 6});
      ref[static_cast<size_t>(i)] = ref_grad(op, gv[static_cast<size_t>(broadcast_source(idx, {3, 4, 6}, {1, 4, 6}))],
                                             xv[static_cast<size_t>(broadcast_source(idx, {3, 4, 6}, {3, 1, 6}))]);
    }
    EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), ref));
  }
}

TEST(ActivationBackward, StridedViews) {
  reseed_for_current_test();
  for (const GradOp &op : ops()) {
    SCOPED_TRACE(op.name);
    const std::vector<int64_t> shape{4, 5, 3};
    // x transposed (reversed storage order) with an offset, gradOutput with a padded row stride,
    // out every other element.
    DeviceTensor g(shape, ACL_BF16, {20, 4, 1}, 2);
    DeviceTensor x(shape, ACL_BF16, {1, 4, 20}, 5);
    DeviceTensor out(shape, ACL_BF16, {30, 6, 2}, 1);
    g.fill_random(-2, 2);
    fill_input(op, x);
    out.poison();
    ASSERT_EQ(run(op, g, x, out), 0) << aclGetRecentErrMsg();
    auto gv = g.values(), xv = x.values();
    std::vector<double> ref(gv.size());
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = ref_grad(op, gv[i], xv[i]);
    EXPECT_TRUE(meets_precision(ACL_BF16, out.values(), ref));
    EXPECT_TRUE(out.untouched_outside_view());
  }
}

TEST(ActivationBackward, ZeroSize) {
  for (const GradOp &op : ops()) {
    SCOPED_TRACE(op.name);
    DeviceTensor g({0, 3}, ACL_FLOAT), x({0, 3}, ACL_FLOAT), out({0, 3}, ACL_FLOAT);
    EXPECT_EQ(run(op, g, x, out), 0) << aclGetRecentErrMsg();
  }
}

TEST(ActivationBackward, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> xs{0.0, -0.0, 1e-40, -1e-40, 3.0, -3.0, 0.5, -0.5, 0.25, 80.0, -80.0, 1e30, -1e30,
                               inf, -inf, nan};
  const int n = static_cast<int>(xs.size());
  for (const GradOp &op : ops()) {
    SCOPED_TRACE(op.name);
    DeviceTensor g({n}, ACL_FLOAT), x({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
    g.set_values(std::vector<double>(xs.size(), 1.5));
    x.set_values(xs);
    out.poison();
    ASSERT_EQ(run(op, g, x, out), 0) << aclGetRecentErrMsg();
    auto xv = x.values();
    std::vector<double> ref(xs.size());
    // As stored in FLOAT (a finite double beyond the FLOAT range is an infinity there).
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = round_to(ACL_FLOAT, ref_grad(op, 1.5, xv[i]));
    EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), ref));
  }
}

TEST(ActivationBackward, Errors) {
  for (const GradOp &op : ops()) {
    SCOPED_TRACE(op.name);
    DeviceTensor g({2, 3}, ACL_FLOAT), x({2, 3}, ACL_FLOAT), out({2, 3}, ACL_FLOAT);
    DeviceTensor xi({2, 3}, ACL_INT64), bad({3, 2}, ACL_FLOAT), bigger({4, 2, 3}, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_TRUE(fails_with(op.phase1(nullptr, x, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"null"}));
    EXPECT_TRUE(fails_with(op.phase1(g, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"null"}));
    EXPECT_TRUE(fails_with(op.phase1(g, x, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"null"}));
    if (std::string(op.name) != "ThresholdBackward")
      EXPECT_TRUE(fails_with(op.phase1(g, xi, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"INT64"}));
    EXPECT_TRUE(fails_with(op.phase1(g, bad, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"[3, 2]"}));
    EXPECT_TRUE(fails_with(op.phase1(g, x, bigger, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"[4, 2, 3]"}));
  }
}

TEST(ActivationBackward, OpSpecificErrors) {
  DeviceTensor g({4}, ACL_FLOAT), x({4}, ACL_FLOAT), out({4}, ACL_FLOAT), gh({4}, ACL_FLOAT16);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  char bad_mode[] = "erf";
  EXPECT_TRUE(fails_with(aclnnGeluBackwardV2GetWorkspaceSize(g, x, bad_mode, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"approximate", "erf"}));
  EXPECT_TRUE(fails_with(aclnnGeluBackwardV2GetWorkspaceSize(g, x, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                         {"approximate"}));
  Scalar neg(-0.5);
  EXPECT_TRUE(fails_with(aclnnLeakyReluBackwardGetWorkspaceSize(g, x, neg, true, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"negativeSlope"}));
  EXPECT_TRUE(fails_with(aclnnEluBackwardGetWorkspaceSize(g, neg, s_scale, s_iscale, true, x, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"alpha"}));
  EXPECT_TRUE(fails_with(aclnnEluBackwardGetWorkspaceSize(gh, s_alpha, s_scale, s_iscale, false, x, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"gradOutput", "FLOAT16"}));
  EXPECT_TRUE(fails_with(aclnnEluBackwardGetWorkspaceSize(g, nullptr, s_scale, s_iscale, false, x, out, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"alpha"}));
  EXPECT_TRUE(fails_with(aclnnHardtanhBackwardGetWorkspaceSize(g, x, s_min, nullptr, out, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"max"}));
  EXPECT_TRUE(fails_with(aclnnSoftplusBackwardGetWorkspaceSize(g, x, s_beta, nullptr, out, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"threshold"}));
  EXPECT_TRUE(fails_with(aclnnLogSigmoidBackwardGetWorkspaceSize(g, x, nullptr, out, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"buffer"}));
  EXPECT_TRUE(fails_with(aclnnSwishBackwardGetWorkspaceSize(gh, x, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"gradOutput", "self"}));
  // A floating result cannot be written to an integer output.
  DeviceTensor oi({4}, ACL_INT32);
  EXPECT_TRUE(fails_with(aclnnGeluBackwardGetWorkspaceSize(g, x, oi, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"gradInput", "INT32"}));
}

TEST(ActivationBackward, ThresholdBackwardOnIntegers) {
  reseed_for_current_test();
  DeviceTensor g({40}, ACL_INT32), x({40}, ACL_INT32), out({40}, ACL_INT32);
  g.fill_random(-100, 100);
  x.fill_random(-5, 5);
  Scalar th(1.0);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnThresholdBackwardGetWorkspaceSize(g, x, th, out, w, e); },
                   aclnnThresholdBackward), 0) << aclGetRecentErrMsg();
  auto gv = g.values(), xv = x.values();
  std::vector<double> ref(gv.size());
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = xv[i] <= 1 ? 0 : gv[i];
  EXPECT_TRUE(meets_precision(ACL_INT32, out.values(), ref));
}

TEST(ActivationBackward, LeakyReluBackwardDouble) {
  reseed_for_current_test();
  DeviceTensor g({50}, ACL_DOUBLE), x({50}, ACL_DOUBLE), out({50}, ACL_DOUBLE);
  g.fill_random(-2, 2);
  x.fill_random(-2, 2);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
              return aclnnLeakyReluBackwardGetWorkspaceSize(g, x, s_slope, false, out, w, e);
            }, aclnnLeakyReluBackward), 0) << aclGetRecentErrMsg();
  auto gv = g.values(), xv = x.values();
  std::vector<double> ref(gv.size());
  for (size_t i = 0; i < ref.size(); ++i) ref[i] = xv[i] > 0 ? gv[i] : gv[i] * static_cast<double>(0.1f);
  EXPECT_TRUE(meets_precision(ACL_DOUBLE, out.values(), ref));
}

}  // namespace
}  // namespace opsnn::test

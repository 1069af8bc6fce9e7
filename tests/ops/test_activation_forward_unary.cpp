// Forward unary activations (and their in-place forms): every documented dtype on transposed
// views, special values (NaN / +-Inf / huge / denormal), in place, zero-size, errors. The golden
// values are computed in double with <cmath>, independently of the kernels.
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "aclnnop/aclnn_celu.h"
#include "aclnnop/aclnn_elu.h"
#include "aclnnop/aclnn_fast_gelu.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_hardshrink.h"
#include "aclnnop/aclnn_hardsigmoid.h"
#include "aclnnop/aclnn_hardswish.h"
#include "aclnnop/aclnn_hardtanh.h"
#include "aclnnop/aclnn_leaky_relu.h"
#include "aclnnop/aclnn_logsigmoid.h"
#include "aclnnop/aclnn_mish.h"
#include "aclnnop/aclnn_selu.h"
#include "aclnnop/aclnn_shrink.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softplus.h"
#include "aclnnop/aclnn_softshrink.h"
#include "aclnnop/aclnn_squared_relu.h"
#include "aclnnop/aclnn_swish.h"
#include "aclnnop/aclnn_threshold.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Phase1 = std::function<int(aclTensor *self, aclTensor *out, uint64_t *, aclOpExecutor **)>;
using Inplace1 = std::function<int(aclTensor *self, uint64_t *, aclOpExecutor **)>;
using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct ScalarHolder {  // FLOAT aclScalars destroyed at exit
  std::vector<aclScalar *> s;
  aclScalar *operator()(float v) {
    s.push_back(aclCreateScalar(&v, ACL_FLOAT));
    return s.back();
  }
  ~ScalarHolder() {
    for (auto *p : s) aclDestroyScalar(p);
  }
};
ScalarHolder &sc() {
  static ScalarHolder h;
  return h;
}

const double kPi = 3.14159265358979323846;
double sigm(double x) { return 1 / (1 + std::exp(-x)); }
// log(sigmoid(x)) without overflow or cancellation for large |x|.
double logsig(double x) { return x < 0 ? x - std::log1p(std::exp(x)) : -std::log1p(std::exp(-x)); }

struct UnaryCase {
  std::string name;
  Phase1 phase1;
  Launch launch;
  Inplace1 inplace;  // may be empty
  Launch inplace_launch;
  std::function<double(double)> ref;
  double lo, hi;  // random input range
};

std::vector<UnaryCase> cases() {
  std::vector<UnaryCase> c;
  auto add = [&](std::string n, Phase1 p, Launch l, Inplace1 ip, Launch il, std::function<double(double)> r,
                 double lo = -6, double hi = 6) { c.push_back({std::move(n), p, l, ip, il, r, lo, hi}); };
  add("Gelu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnGeluGetWorkspaceSize(x, o, w, e); },
      aclnnGelu, nullptr, nullptr,
      [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x))); }, -3, 6);
  add("GeluV2.none", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnGeluV2GetWorkspaceSize(x, 0, o, w, e); },
      aclnnGeluV2, nullptr, nullptr, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -3, 6);
  add("GeluV2.tanh", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnGeluV2GetWorkspaceSize(x, 1, o, w, e); },
      aclnnGeluV2, nullptr, nullptr,
      [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / kPi) * (x + 0.044715 * x * x * x))); }, -3, 6);
  add("FastGelu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnFastGeluGetWorkspaceSize(x, o, w, e); },
      aclnnFastGelu, nullptr, nullptr, [](double x) { return x / (1 + std::exp(-1.702 * x)); });
  add("Silu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSiluGetWorkspaceSize(x, o, w, e); },
      aclnnSilu, nullptr, nullptr, [](double x) { return x * sigm(x); });
  add("Swish.beta1.5", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSwishGetWorkspaceSize(x, sc()(1.5f), o, w, e); },
      aclnnSwish, nullptr, nullptr, [](double x) { return x * sigm(1.5 * x); });
  add("Swish.null", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSwishGetWorkspaceSize(x, nullptr, o, w, e); },
      aclnnSwish, nullptr, nullptr, [](double x) { return x * sigm(x); });
  add("Sigmoid", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSigmoidGetWorkspaceSize(x, o, w, e); },
      aclnnSigmoid, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceSigmoidGetWorkspaceSize(x, w, e); },
      aclnnInplaceSigmoid, sigm, -10, 10);
  add("LogSigmoid", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnLogSigmoidGetWorkspaceSize(x, o, w, e); },
      aclnnLogSigmoid, nullptr, nullptr, logsig, -20, 20);
  add("LogSigmoidForward", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnLogSigmoidForwardGetWorkspaceSize(x, o, nullptr, w, e); },
      aclnnLogSigmoidForward, nullptr, nullptr, logsig, -20, 20);
  add("Hardsigmoid", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnHardsigmoidGetWorkspaceSize(x, o, w, e); },
      aclnnHardsigmoid, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceHardsigmoidGetWorkspaceSize(x, w, e); },
      aclnnInplaceHardsigmoid, [](double x) { return std::isnan(x) ? x : x <= -3 ? 0.0 : x >= 3 ? 1.0 : x / 6 + 0.5; });
  add("Hardswish", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnHardswishGetWorkspaceSize(x, o, w, e); },
      aclnnHardswish, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceHardswishGetWorkspaceSize(x, w, e); },
      aclnnInplaceHardswish, [](double x) { return x <= -3 ? 0.0 : x >= 3 ? x : x * (x + 3) / 6; });
  add("Hardtanh", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnHardtanhGetWorkspaceSize(x, sc()(-1.5f), sc()(2.0f), o, w, e); },
      aclnnHardtanh, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceHardtanhGetWorkspaceSize(x, sc()(-1.5f), sc()(2.0f), w, e); },
      aclnnInplaceHardtanh, [](double x) { return std::isnan(x) ? x : x < -1.5 ? -1.5 : x > 2 ? 2.0 : x; });
  add("Hardshrink", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnHardshrinkGetWorkspaceSize(x, sc()(0.5f), o, w, e); },
      aclnnHardshrink, nullptr, nullptr, [](double x) { return std::fabs(x) > 0.5 || std::isnan(x) ? x : 0.0; }, -2, 2);
  add("Softshrink", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSoftshrinkGetWorkspaceSize(x, sc()(0.5f), o, w, e); },
      aclnnSoftshrink, nullptr, nullptr, [](double x) { return std::isnan(x) ? x : x > 0.5 ? x - 0.5 : x < -0.5 ? x + 0.5 : 0.0; }, -2, 2);
  add("Shrink", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnShrinkGetWorkspaceSize(x, sc()(0.5f), sc()(0.25f), o, w, e); },
      aclnnShrink, nullptr, nullptr, [](double x) { return std::isnan(x) ? x : x > 0.5 ? x - 0.25 : x < -0.5 ? x + 0.25 : 0.0; }, -2, 2);
  add("Threshold", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnThresholdGetWorkspaceSize(x, sc()(0.5f), sc()(-3.0f), o, w, e); },
      aclnnThreshold, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceThresholdGetWorkspaceSize(x, sc()(0.5f), sc()(-3.0f), w, e); },
      aclnnInplaceThreshold, [](double x) { return std::isnan(x) ? x : x > 0.5 ? x : -3.0; });
  add("Elu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnEluGetWorkspaceSize(x, sc()(0.75f), sc()(1.25f), sc()(2.0f), o, w, e); },
      aclnnElu, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceEluGetWorkspaceSize(x, sc()(0.75f), sc()(1.25f), sc()(2.0f), w, e); },
      aclnnInplaceElu, [](double x) { return x > 0 ? 1.25 * x : 0.75 * 1.25 * std::expm1(2 * x); });
  add("Celu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnCeluGetWorkspaceSize(x, sc()(1.5f), o, w, e); },
      aclnnCelu, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceCeluGetWorkspaceSize(x, sc()(1.5f), w, e); },
      aclnnInplaceCelu, [](double x) { return x > 0 ? x : 1.5 * std::expm1(x / 1.5); });
  add("Selu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSeluGetWorkspaceSize(x, o, w, e); },
      aclnnSelu, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceSeluGetWorkspaceSize(x, w, e); },
      aclnnInplaceSelu, [](double x) {
        const double a = 1.6732632423543772848170429916717, s = 1.0507009873554804934193349852946;
        return x > 0 ? s * x : s * a * std::expm1(x);
      });
  add("LeakyRelu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnLeakyReluGetWorkspaceSize(x, sc()(0.125f), o, w, e); },
      aclnnLeakyRelu, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceLeakyReluGetWorkspaceSize(x, sc()(0.125f), w, e); },
      aclnnInplaceLeakyRelu, [](double x) { return x > 0 ? x : 0.125 * x; });
  add("Mish", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnMishGetWorkspaceSize(x, o, w, e); },
      aclnnMish, [](aclTensor *x, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceMishGetWorkspaceSize(x, w, e); },
      aclnnInplaceMish, [](double x) { return x > 40 ? x : x * std::tanh(std::log1p(std::exp(x))); }, -8, 30);
  add("Softplus", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSoftplusGetWorkspaceSize(x, sc()(2.0f), sc()(20.0f), o, w, e); },
      aclnnSoftplus, nullptr, nullptr, [](double x) { return 2 * x > 20 ? x : std::log(1 + std::exp(2 * x)) / 2; }, -5, 15);
  add("SquaredRelu", [](aclTensor *x, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnSquaredReluGetWorkspaceSize(x, o, w, e); },
      aclnnSquaredRelu, nullptr, nullptr, [](double x) { return x > 0 || std::isnan(x) ? x * x : 0.0; });
  return c;
}

std::unique_ptr<DeviceTensor> transposed(const std::vector<int64_t> &shape, aclDataType dt) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, 5);
}

TEST(ActivationForward, EveryOpEveryFloatDtypeOnViews) {
  reseed_for_current_test();
  for (const auto &c : cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
      auto in = transposed({6, 5, 7}, dt);
      in->fill_random(c.lo, c.hi);
      DeviceTensor out({6, 5, 7}, dt);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(*in, out, w, e); }, c.launch), 0)
          << aclGetRecentErrMsg();
      // The golden value as the output dtype holds it: tiny results (e.g. LogSigmoid(17) ~ -4e-8)
      // fall in FLOAT16's subnormal range, where one rounding alone exceeds the relative bound.
      auto gold = in->values();
      for (auto &v : gold) v = round_to(dt, c.ref(v));
      EXPECT_TRUE(meets_precision(dt, out.values(), gold));
      EXPECT_TRUE(out.untouched_outside_view());
      if (c.inplace) {
        ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.inplace(*in, w, e); }, c.inplace_launch), 0)
            << aclGetRecentErrMsg();
        EXPECT_TRUE(meets_precision(dt, in->values(), gold));
        EXPECT_TRUE(in->untouched_outside_view());
      }
    }
  }
}

TEST(ActivationForward, SpecialValues) {
  const std::vector<double> x = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-40, -1e-40, 60, -60, 1e30, -1e30, 0.5, -0.5};
  for (const auto &c : cases()) {
    SCOPED_TRACE(c.name);
    DeviceTensor in({static_cast<int64_t>(x.size())}, ACL_FLOAT), out({static_cast<int64_t>(x.size())}, ACL_FLOAT);
    in.set_values(x);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(in, out, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    auto got = out.values(), xin = in.values();
    for (size_t i = 0; i < x.size(); ++i) {
      const double g = round_to(ACL_FLOAT, c.ref(xin[i]));
      SCOPED_TRACE(::testing::Message() << "x = " << xin[i] << " got " << got[i] << " want " << g);
      if (std::isnan(g)) {
        EXPECT_TRUE(std::isnan(got[i]));
      } else if (std::isinf(g) || g == 0) {
        EXPECT_EQ(got[i], g);
      } else {
        EXPECT_NEAR(got[i], g, std::fabs(g) * 1e-5 + 1e-37);
      }
    }
  }
}

TEST(ActivationForward, ZeroSizeAndErrors) {
  uint64_t ws;
  aclOpExecutor *ex;
  for (const auto &c : cases()) {
    SCOPED_TRACE(c.name);
    DeviceTensor e0({0, 3}, ACL_FLOAT), e1({0, 3}, ACL_FLOAT);
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(e0, e1, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    DeviceTensor f({4}, ACL_FLOAT), i32({4}, ACL_BOOL), bad({5}, ACL_FLOAT);
    EXPECT_TRUE(fails_with(c.phase1(i32, f, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"BOOL"}));
    EXPECT_TRUE(fails_with(c.phase1(f, bad, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[5]", "[4]"}));
    EXPECT_EQ(c.phase1(nullptr, f, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
    EXPECT_EQ(c.phase1(f, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  }
  DeviceTensor f({4}, ACL_FLOAT), o({4}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnGeluV2GetWorkspaceSize(f, 2, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"approximate"}));
  EXPECT_TRUE(fails_with(aclnnLeakyReluGetWorkspaceSize(f, nullptr, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"negativeSlope"}));
  EXPECT_TRUE(fails_with(aclnnShrinkGetWorkspaceSize(f, sc()(-1.0f), sc()(0.0f), o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"lambd"}));
  EXPECT_TRUE(fails_with(aclnnCeluGetWorkspaceSize(f, sc()(0.0f), o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"alpha"}));
  EXPECT_TRUE(fails_with(aclnnSoftplusGetWorkspaceSize(f, sc()(0.0f), sc()(20.0f), o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"beta"}));
}

TEST(ActivationForward, IntegerDtypes) {
  // Hardtanh / Threshold on integers compute exactly; Hardsigmoid on INT32 gives the truncated value.
  DeviceTensor x({6}, ACL_INT32), o({6}, ACL_INT32);
  x.set_values({-7, -3, -1, 0, 2, 9});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnHardtanhGetWorkspaceSize(x, sc()(-2.0f), sc()(3.0f), o, w, e); }, aclnnHardtanh), 0);
  EXPECT_EQ(o.values(), (std::vector<double>{-2, -2, -1, 0, 2, 3}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnThresholdGetWorkspaceSize(x, sc()(0.0f), sc()(5.0f), o, w, e); }, aclnnThreshold), 0);
  EXPECT_EQ(o.values(), (std::vector<double>{5, 5, 5, 5, 2, 9}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnHardsigmoidGetWorkspaceSize(x, o, w, e); }, aclnnHardsigmoid), 0);
  EXPECT_EQ(o.values(), (std::vector<double>{0, 0, 0, 0, 0, 1}));
}

}  // namespace
}  // namespace opsnn::test

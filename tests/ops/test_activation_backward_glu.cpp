// GLU-family gradients (GluBackward, GeGluBackward, GeGluV3Backward, SwiGluGrad, SituGluGrad,
// ClippedSwigluGrad) and BinaryCrossEntropyWithLogitsTargetBackward: float64
// references written here, central finite differences of the forward in double, every dtype,
// split dims, strided views, groupIndex, determinism of the weight reduction, errors.
#include <cmath>
#include <functional>
#include <memory>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "aclnnop/aclnn_clipped_swiglu_grad.h"
#include "aclnnop/aclnn_geglu_backward.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "aclnnop/aclnn_situ_glu_grad.h"
#include "aclnnop/aclnn_swi_glu_grad.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

double sigm(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double gelu_erf(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

// A GLU-type op: y = fwd(first, second) per element pair; the gradient wrt both halves.
struct GluCase {
  const char *name;
  std::function<double(double, double)> fwd;
  // d y / d first, d y / d second
  std::function<double(double, double)> d_first, d_second;
  // Runs the op: gradOutput, x, gelu (forward activation output, or null), out, dim.
  std::function<int(aclTensor *, aclTensor *, aclTensor *, aclTensor *, int64_t, uint64_t *, aclOpExecutor **)> phase1;
  int (*phase2)(void *, uint64_t, aclOpExecutor *, aclrtStream);
  std::function<double(double, double)> gelu_input;  // GeGlu: the `gelu` tensor's value from (first, second)
  bool interleaved = false;
};

std::vector<GluCase> glu_cases() {
  std::vector<GluCase> r;
  r.push_back({"GluBackward", [](double a, double b) { return a * sigm(b); }, [](double, double b) { return sigm(b); },
               [](double a, double b) { return a * sigm(b) * (1 - sigm(b)); },
               [](aclTensor *g, aclTensor *x, aclTensor *, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                 return aclnnGluBackwardGetWorkspaceSize(g, x, d, o, w, e);
               },
               aclnnGluBackward});
  // GeGlu: y = first * gelu(second) (activation on the right half).
  r.push_back({"GeGluBackward(tanh)", [](double a, double b) { return a * gelu_tanh(b); },
               [](double, double b) { return gelu_tanh(b); },
               [](double a, double b) {
                 const double k = 0.7978845608028654, t = std::tanh(k * (b + 0.044715 * b * b * b));
                 return a * (0.5 * (1 + t) + 0.5 * b * (1 - t * t) * k * (1 + 3 * 0.044715 * b * b));
               },
               [](aclTensor *g, aclTensor *x, aclTensor *gl, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                 return aclnnGeGluBackwardGetWorkspaceSize(g, x, gl, d, 1, o, w, e);
               },
               aclnnGeGluBackward, [](double, double b) { return gelu_tanh(b); }});
  r.push_back({"GeGluV3Backward(erf, activateLeft)", [](double a, double b) { return gelu_erf(a) * b; },
               [](double a, double b) {
                 return b * (0.5 * (1 + std::erf(a / std::sqrt(2.0))) + a * std::exp(-a * a / 2) / std::sqrt(2 * M_PI));
               },
               [](double a, double) { return gelu_erf(a); },
               [](aclTensor *g, aclTensor *x, aclTensor *gl, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                 return aclnnGeGluV3BackwardGetWorkspaceSize(g, x, gl, d, 0, true, o, w, e);
               },
               aclnnGeGluV3Backward, [](double a, double) { return gelu_erf(a); }});
  r.push_back({"SwiGluGrad", [](double a, double b) { return a * sigm(a) * b; },
               [](double a, double b) { return b * sigm(a) * (1 + a * (1 - sigm(a))); },
               [](double a, double) { return a * sigm(a); },
               [](aclTensor *g, aclTensor *x, aclTensor *, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                 return aclnnSwiGluGradGetWorkspaceSize(g, x, d, o, w, e);
               },
               aclnnSwiGluGrad});
  // SiTU with activateLeft = false: first = up, second = gate; beta 1.5, linearBeta 2.
  auto situ = [](double up, double gate) {
    return 1.5 * std::tanh(gate / 1.5) * sigm(gate) * 2.0 * std::tanh(up / 2.0);
  };
  r.push_back({"SituGluGrad(right, linearBeta)", situ,
               [](double up, double gate) {
                 const double t = std::tanh(up / 2.0);
                 return 1.5 * std::tanh(gate / 1.5) * sigm(gate) * (1 - t * t);
               },
               [](double up, double gate) {
                 const double t = std::tanh(gate / 1.5), s = sigm(gate);
                 return 2.0 * std::tanh(up / 2.0) * s * ((1 - t * t) + 1.5 * t * (1 - s));
               },
               [](aclTensor *g, aclTensor *x, aclTensor *, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                 return aclnnSituGluGradGetWorkspaceSize(g, x, d, 1.5, 2.0, false, o, w, e);
               },
               aclnnSituGluGrad});
  r.push_back({"SituGluGrad(left, linear)", [](double gate, double up) { return 0.8 * std::tanh(gate / 0.8) * sigm(gate) * up; },
               [](double gate, double up) {
                 const double t = std::tanh(gate / 0.8), s = sigm(gate);
                 return up * s * ((1 - t * t) + 0.8 * t * (1 - s));
               },
               [](double gate, double) { return 0.8 * std::tanh(gate / 0.8) * sigm(gate); },
               [](aclTensor *g, aclTensor *x, aclTensor *, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                 return aclnnSituGluGradGetWorkspaceSize(g, x, d, 0.8, -1.0, true, o, w, e);
               },
               aclnnSituGluGrad});
  // Clipped SwiGLU, alpha 1.702, limit 1.5, bias 1 (limit small so that clamping is exercised).
  auto clip_fwd = [](double x0, double x1) {
    const double a = std::min(x0, 1.5), b = std::min(std::max(x1, -1.5), 1.5);
    return a * sigm(1.702 * a) * (b + 1.0);
  };
  auto clip_d0 = [](double x0, double x1) {
    if (x0 > 1.5) return 0.0;
    const double b = std::min(std::max(x1, -1.5), 1.5), s = sigm(1.702 * x0);
    return (b + 1.0) * (s + 1.702 * x0 * s * (1 - s));
  };
  auto clip_d1 = [](double x0, double x1) {
    if (x1 < -1.5 || x1 > 1.5) return 0.0;
    const double a = std::min(x0, 1.5);
    return a * sigm(1.702 * a);
  };
  for (bool inter : {false, true}) {
    GluCase c{inter ? "ClippedSwigluGrad(interleaved)" : "ClippedSwigluGrad", clip_fwd, clip_d0, clip_d1,
              [inter](aclTensor *g, aclTensor *x, aclTensor *, aclTensor *o, int64_t d, uint64_t *w, aclOpExecutor **e) {
                return aclnnClippedSwigluGradGetWorkspaceSize(g, x, nullptr, d, 1.702, 1.5, 1.0, inter, o, w, e);
              },
              aclnnClippedSwigluGrad};
    c.interleaved = inter;
    r.push_back(c);
  }
  return r;
}

// Index of the first / second half element of x for gradient element `idx` (shape of grad) along dim.
std::vector<int64_t> half_index(std::vector<int64_t> idx, int dim, int64_t h, int which, bool interleaved) {
  idx[static_cast<size_t>(dim)] = interleaved ? 2 * idx[static_cast<size_t>(dim)] + which
                                              : idx[static_cast<size_t>(dim)] + which * h;
  return idx;
}
int64_t linear(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t l = 0;
  for (size_t i = 0; i < shape.size(); ++i) l = l * shape[i] + idx[i];
  return l;
}

void check_glu(const GluCase &c, aclDataType dt, const std::vector<int64_t> &xshape, int dim, bool strided) {
  std::vector<int64_t> gshape = xshape;
  const int64_t h = xshape[static_cast<size_t>(dim)] / 2;
  gshape[static_cast<size_t>(dim)] = h;
  std::unique_ptr<DeviceTensor> x, out;
  if (strided) {  // x with reversed storage order, out with a gap after every element
    std::vector<int64_t> xs(xshape.size()), os(xshape.size());
    int64_t acc = 1;
    for (size_t i = 0; i < xshape.size(); ++i) xs[i] = acc, acc *= xshape[i];
    acc = 2;
    for (size_t i = xshape.size(); i-- > 0;) os[i] = acc, acc *= xshape[i];
    x = std::make_unique<DeviceTensor>(xshape, dt, xs, 3);
    out = std::make_unique<DeviceTensor>(xshape, dt, os, 1);
  } else {
    x = std::make_unique<DeviceTensor>(xshape, dt);
    out = std::make_unique<DeviceTensor>(xshape, dt);
  }
  DeviceTensor g(gshape, dt), gl(gshape, dt);
  x->fill_random(-3, 3);
  g.fill_random(-2, 2);
  auto xv = x->values(), gv = g.values();
  if (c.gelu_input) {
    std::vector<double> glv(gv.size());
    for (int64_t i = 0; i < g.numel(); ++i) {
      auto idx = unravel(i, gshape);
      glv[static_cast<size_t>(i)] = c.gelu_input(xv[static_cast<size_t>(linear(half_index(idx, dim, h, 0, c.interleaved), xshape))],
                                                 xv[static_cast<size_t>(linear(half_index(idx, dim, h, 1, c.interleaved), xshape))]);
    }
    gl.set_values(glv);
  }
  auto glv = gl.values();
  out->poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(g, *x, c.gelu_input ? gl.get() : nullptr, *out, dim, w, e); },
                   c.phase2), 0) << aclGetRecentErrMsg();
  std::vector<double> ref(xv.size());
  for (int64_t i = 0; i < g.numel(); ++i) {
    auto idx = unravel(i, gshape);
    const int64_t i0 = linear(half_index(idx, dim, h, 0, c.interleaved), xshape);
    const int64_t i1 = linear(half_index(idx, dim, h, 1, c.interleaved), xshape);
    const double a = xv[static_cast<size_t>(i0)], b = xv[static_cast<size_t>(i1)], gg = gv[static_cast<size_t>(i)];
    ref[static_cast<size_t>(i0)] = gg * c.d_first(a, b);
    ref[static_cast<size_t>(i1)] = gg * c.d_second(a, b);
    if (c.gelu_input) {  // the linear half uses the given gelu tensor (rounded to dt)
      const bool act_left = std::string(c.name).find("activateLeft") != std::string::npos;
      ref[static_cast<size_t>(act_left ? i1 : i0)] = gg * glv[static_cast<size_t>(i)];
    }
  }
  EXPECT_TRUE(meets_precision(dt, out->values(), ref));
  EXPECT_TRUE(out->untouched_outside_view());
}

TEST(ActivationBackwardGlu, EveryDtypeDimAndLayout) {
  reseed_for_current_test();
  for (const GluCase &c : glu_cases()) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      for (int dim : {2, 1, 0}) {
        for (bool strided : {false, true}) {
          // ClippedSwiglu interleaves the flattened tail: exercised with the split dim last.
          if (c.interleaved && dim != 2) continue;
          SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " dim " << dim << " strided " << strided);
          check_glu(c, dt, {4, 6, 8}, dim, strided && !c.interleaved);
        }
      }
    }
  }
}

// The derivatives used above agree with central differences of the forward in double, and the
// op's FLOAT result with them.
TEST(ActivationBackwardGlu, FiniteDifferenceOfTheForward) {
  reseed_for_current_test();
  std::uniform_real_distribution<double> u(-2.5, 2.5);
  for (const GluCase &c : glu_cases()) {
    SCOPED_TRACE(c.name);
    for (int k = 0; k < 12; ++k) {
      const double a = static_cast<float>(u(rng())), b = static_cast<float>(u(rng()));
      if (std::fabs(a - 1.5) < 1e-2 || std::fabs(std::fabs(b) - 1.5) < 1e-2) continue;  // clamp kinks
      const double h = 1e-6;
      const double fa = (c.fwd(a + h, b) - c.fwd(a - h, b)) / (2 * h), fb = (c.fwd(a, b + h) - c.fwd(a, b - h)) / (2 * h);
      EXPECT_NEAR(c.d_first(a, b), fa, 1e-5 * std::max(1.0, std::fabs(fa)));
      EXPECT_NEAR(c.d_second(a, b), fb, 1e-5 * std::max(1.0, std::fabs(fb)));
      DeviceTensor x({2}, ACL_FLOAT), g({1}, ACL_FLOAT), gl({1}, ACL_FLOAT), out({2}, ACL_FLOAT);
      x.set_values({a, b});
      g.set_values({1.0});
      if (c.gelu_input) gl.set_values({c.gelu_input(a, b)});
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(g, x, c.gelu_input ? gl.get() : nullptr, out, -1, w, e); },
                       c.phase2), 0) << aclGetRecentErrMsg();
      auto o = out.values();
      EXPECT_NEAR(o[0], fa, 2e-4 * std::max(1.0, std::fabs(fa))) << a << " " << b;
      EXPECT_NEAR(o[1], fb, 2e-4 * std::max(1.0, std::fabs(fb))) << a << " " << b;
    }
  }
}

TEST(ActivationBackwardGlu, GluBackwardDouble) {
  reseed_for_current_test();
  check_glu(glu_cases()[0], ACL_DOUBLE, {3, 10}, 1, true);
}

TEST(ActivationBackwardGlu, ClippedSwigluInterleavedFlattensTheTail) {
  // x [2, 4, 3] split at dim 1 with interleaving: the tail [4, 3] is flattened to 12 and split into
  // its even / odd positions.
  reseed_for_current_test();
  DeviceTensor x({2, 4, 3}, ACL_FLOAT), g({2, 2, 3}, ACL_FLOAT), out({2, 4, 3}, ACL_FLOAT);
  x.fill_random(-2, 2);
  g.fill_random(-1, 1);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
              return aclnnClippedSwigluGradGetWorkspaceSize(g, x, nullptr, 1, 1.702, 1.5, 1.0, true, out, w, e);
            }, aclnnClippedSwigluGrad), 0) << aclGetRecentErrMsg();
  auto c = glu_cases().back();
  auto xv = x.values(), gv = g.values();
  std::vector<double> ref(xv.size());
  for (int p = 0; p < 2; ++p)
    for (int hh = 0; hh < 6; ++hh) {
      const double a = xv[static_cast<size_t>(p * 12 + 2 * hh)], b = xv[static_cast<size_t>(p * 12 + 2 * hh + 1)];
      const double gg = gv[static_cast<size_t>(p * 6 + hh)];
      ref[static_cast<size_t>(p * 12 + 2 * hh)] = gg * c.d_first(a, b);
      ref[static_cast<size_t>(p * 12 + 2 * hh + 1)] = gg * c.d_second(a, b);
    }
  EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), ref));
}

TEST(ActivationBackwardGlu, ClippedSwigluGroupIndexZeroesTrailingRows) {
  reseed_for_current_test();
  DeviceTensor x({5, 8}, ACL_FLOAT), g({5, 4}, ACL_FLOAT), out({5, 8}, ACL_FLOAT), gi({2}, ACL_INT64);
  x.fill_random(-2, 2);
  g.fill_random(-1, 1);
  gi.set_values({1, 2});  // 3 valid rows
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
              return aclnnClippedSwigluGradGetWorkspaceSize(g, x, gi, -1, 1.702, 1.5, 1.0, false, out, w, e);
            }, aclnnClippedSwigluGrad), 0) << aclGetRecentErrMsg();
  auto c = glu_cases()[glu_cases().size() - 2];
  auto xv = x.values(), gv = g.values();
  std::vector<double> ref(xv.size(), 0.0);
  for (int p = 0; p < 3; ++p)
    for (int hh = 0; hh < 4; ++hh) {
      const double a = xv[static_cast<size_t>(p * 8 + hh)], b = xv[static_cast<size_t>(p * 8 + 4 + hh)];
      ref[static_cast<size_t>(p * 8 + hh)] = gv[static_cast<size_t>(p * 4 + hh)] * c.d_first(a, b);
      ref[static_cast<size_t>(p * 8 + 4 + hh)] = gv[static_cast<size_t>(p * 4 + hh)] * c.d_second(a, b);
    }
  auto o = out.values();
  for (size_t i = 24; i < 40; ++i) EXPECT_EQ(o[i], 0.0) << i;
  EXPECT_TRUE(meets_precision(ACL_FLOAT, o, ref));
}

TEST(ActivationBackwardGlu, Errors) {
  DeviceTensor x({4, 6}, ACL_FLOAT), g({4, 3}, ACL_FLOAT), out({4, 6}, ACL_FLOAT), godd({4, 2}, ACL_FLOAT);
  DeviceTensor x5({4, 5}, ACL_FLOAT), gh({4, 3}, ACL_FLOAT16), out_bad({4, 7}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnGluBackwardGetWorkspaceSize(nullptr, x, -1, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                         {"gradOut"}));
  EXPECT_TRUE(fails_with(aclnnGluBackwardGetWorkspaceSize(g, x, 2, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"dim", "out of range"}));
  EXPECT_TRUE(fails_with(aclnnGluBackwardGetWorkspaceSize(g, x5, -1, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"self", "not even"}));
  EXPECT_TRUE(fails_with(aclnnGluBackwardGetWorkspaceSize(godd, x, -1, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"gradOut", "[4, 2]", "[4, 3]"}));
  EXPECT_TRUE(fails_with(aclnnGluBackwardGetWorkspaceSize(gh, x, -1, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"gradOut", "FLOAT16"}));
  EXPECT_TRUE(fails_with(aclnnGluBackwardGetWorkspaceSize(g, x, -1, out_bad, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"out", "[4, 7]"}));
  EXPECT_TRUE(fails_with(aclnnGeGluBackwardGetWorkspaceSize(g, x, g, -1, 2, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"approximate"}));
  EXPECT_TRUE(fails_with(aclnnGeGluBackwardGetWorkspaceSize(g, x, nullptr, -1, 1, out, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"gelu"}));
  EXPECT_TRUE(fails_with(aclnnGeGluBackwardGetWorkspaceSize(g, x, godd, -1, 1, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"gelu", "[4, 2]"}));
  EXPECT_TRUE(fails_with(aclnnSwiGluGradGetWorkspaceSize(g, x, -3, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"dim"}));
  EXPECT_TRUE(fails_with(aclnnSituGluGradGetWorkspaceSize(g, nullptr, -1, 1, 0, true, out, &ws, &ex),
                         ACLNN_ERR_PARAM_NULLPTR, {"x"}));
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGradGetWorkspaceSize(godd, x, nullptr, -1, 1.7, 7, 1, false, out, &ws, &ex),
                         ACLNN_ERR_INNER_TILING_ERROR, {"gradY"}));
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGradGetWorkspaceSize(g, x, nullptr, -1, 1.7, 0, 1, false, out, &ws, &ex),
                         ACLNN_ERR_INNER_TILING_ERROR, {"limit"}));
  DeviceTensor gi32({2}, ACL_INT32);
  EXPECT_TRUE(fails_with(aclnnClippedSwigluGradGetWorkspaceSize(g, x, gi32, -1, 1.7, 7, 1, false, out, &ws, &ex),
                         ACLNN_ERR_PARAM_INVALID, {"groupIndexOptional", "INT64"}));
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

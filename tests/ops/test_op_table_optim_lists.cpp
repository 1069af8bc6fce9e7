// The test harness of the optimiser table's tensor-list rows (src/ops/optim/optim.ops): FusedAdamw and
// FusedSgd against float64 re-implementations of torch.optim.AdamW / SGD's update written here:
//   - every dtype, lists of 1-4 entries of random shapes on contiguous, transposed + offset and padded
//     views, every flag, with and without gradScale (and foundInf), several steps in a row (each step's
//     reference from the values the previous one stored); nothing written outside the views;
//   - foundInf = 1 skips the step; a step <= 0 fails the launch before anything is written;
//   - the errors with their code and the argument named.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"  // aclTensorList's entries: a null entry (aclCreateTensorList refuses one)
#include "device_lists.h"
#include "optim_table_case.h"

namespace opsnn::test {
namespace {

const OptimTableCase &case_of(const char *update) {
  static const std::vector<OptimTableCase> all = optim_table_cases();
  for (const auto &c : all)
    if (c.update == update) return c;
  throw std::runtime_error(std::string("no ") + update + " row in optim.ops");
}

using Tensors = std::vector<std::unique_ptr<DeviceTensor>>;

// Layout k % 3: contiguous, transposed + offset, padded rows.
std::unique_ptr<DeviceTensor> view_of(const std::vector<int64_t> &shape, aclDataType dt, int k) {
  if (k % 3 == 1 && shape.size() >= 2) return transposed_view(shape, dt);
  if (k % 3 == 2 && !shape.empty()) return padded_view(shape, dt, 2);
  return std::make_unique<DeviceTensor>(shape, dt);
}

// The lists of one call: params, grads, and up to three state lists (Adam: m, v, max; SGD: buf).
struct Lists {
  Tensors p, g, s[3], steps;
  std::shared_ptr<aclTensorList> lp, lg, ls[3], lsteps;
  std::unique_ptr<DeviceTensor> scale, found_inf;
  void make(std::mt19937_64 &r, const std::vector<std::vector<int64_t>> &shapes, aclDataType dt, int nstates) {
    int k = static_cast<int>(r() % 3);
    for (const auto &sh : shapes) {
      p.push_back(view_of(sh, dt, k++));
      g.push_back(view_of(sh, dt, k++));
      p.back()->fill_random(-2, 2);
      g.back()->fill_random(-1, 1);
      for (int j = 0; j < nstates; ++j) {
        s[j].push_back(view_of(sh, dt, k++));
        s[j].back()->fill_random(j == 0 ? -0.5 : 0, j == 0 ? 0.5 : 1);
      }
      steps.push_back(std::make_unique<DeviceTensor>(k % 2 ? std::vector<int64_t>{} : std::vector<int64_t>{1},
                                                     k % 2 ? ACL_FLOAT : ACL_INT64));
    }
    lp = list_of(p);
    lg = list_of(g);
    for (int j = 0; j < nstates; ++j) ls[j] = list_of(s[j]);
    lsteps = list_of(steps);
  }
  void set_steps(double t) {
    for (auto &st : steps) st->set_values({t});
  }
  void set_scale(double v) {
    scale = std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, ACL_FLOAT);
    scale->set_values({v});
  }
  void set_found_inf(double v) {
    found_inf = std::make_unique<DeviceTensor>(std::vector<int64_t>{}, ACL_FLOAT);
    found_inf->set_values({v});
  }
};

std::vector<std::vector<int64_t>> random_shapes(std::mt19937_64 &r) {
  std::vector<std::vector<int64_t>> shapes(1 + r() % 4);
  for (auto &sh : shapes) {
    const int nd = 1 + static_cast<int>(r() % 3);
    for (int d = 0; d < nd; ++d) sh.push_back(1 + static_cast<int64_t>(r() % 9));
  }
  return shapes;
}

int run(const OptimTableCase &c, const OptimArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// ---- FusedAdamw

struct AdamwHyper {
  double lr, b1, b2, wd, eps;
};

OptimArgs adamw_args(Lists &L, const AdamwHyper &h, bool amsgrad, bool maximize) {
  OptimArgs a;
  a.params = L.lp.get();
  a.grads = L.lg.get();
  a.exp_avgs = L.ls[0].get();
  a.exp_avg_sqs = L.ls[1].get();
  a.max_exp_avg_sqs = L.ls[2].get();
  a.steps = L.lsteps.get();
  a.grad_scale = L.scale ? L.scale->get() : nullptr;
  a.found_inf = L.found_inf ? L.found_inf->get() : nullptr;
  a.lr_f = h.lr;
  a.b1_f = h.b1;
  a.b2_f = h.b2;
  a.wd_f = h.wd;
  a.eps_f = h.eps;
  a.amsgrad = amsgrad;
  a.maximize = maximize;
  return a;
}

// One AdamW step of torch.optim.AdamW (decoupled weight decay, bias corrections of step t) in double.
void adamw_reference(double &p, double &m, double &v, double &mx, double g, double t, const AdamwHyper &h,
                     bool amsgrad, bool maximize) {
  if (maximize) g = -g;
  p *= 1.0 - h.lr * h.wd;
  m = h.b1 * m + (1.0 - h.b1) * g;
  v = h.b2 * v + (1.0 - h.b2) * g * g;
  const double step_size = h.lr / (1.0 - std::pow(h.b1, t)), bc2_sqrt = std::sqrt(1.0 - std::pow(h.b2, t));
  if (amsgrad) mx = std::max(mx, v);
  const double denom = std::sqrt(amsgrad ? mx : v) / bc2_sqrt + h.eps;
  p -= step_size * m / denom;
}

// Runs one step at step count t and checks every entry against the reference.
void check_adamw_step(const OptimTableCase &c, Lists &L, aclDataType dt, const AdamwHyper &h, double t, bool amsgrad,
                      bool maximize) {
  L.set_steps(t);
  const double scale = L.scale ? L.scale->values()[0] : 1.0;
  std::vector<std::vector<double>> p0, g0, s0[3];
  for (size_t i = 0; i < L.p.size(); ++i) {
    p0.push_back(L.p[i]->values());
    g0.push_back(L.g[i]->values());
    for (int j = 0; j < 3; ++j) s0[j].push_back(L.s[j][i]->values());
  }
  ASSERT_EQ(run(c, adamw_args(L, h, amsgrad, maximize)), 0) << aclGetRecentErrMsg();
  for (size_t i = 0; i < L.p.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "entry " << i);
    std::vector<double> wp, wm, wv, wx;
    for (size_t e = 0; e < p0[i].size(); ++e) {
      double p = p0[i][e], m = s0[0][i][e], v = s0[1][i][e], mx = s0[2][i][e];
      adamw_reference(p, m, v, mx, g0[i][e] / scale, t, h, amsgrad, maximize);
      wp.push_back(round_to(dt, p));
      wm.push_back(round_to(dt, m));
      wv.push_back(round_to(dt, v));
      wx.push_back(round_to(dt, mx));
    }
    EXPECT_TRUE(meets_precision(dt, L.p[i]->values(), wp)) << "paramsRef";
    EXPECT_TRUE(meets_precision(dt, L.s[0][i]->values(), wm)) << "expAvgsRef";
    EXPECT_TRUE(meets_precision(dt, L.s[1][i]->values(), wv)) << "expAvgSqsRef";
    if (amsgrad) EXPECT_TRUE(meets_precision(dt, L.s[2][i]->values(), wx)) << "maxExpAvgSqsRef";
    else EXPECT_EQ(L.s[2][i]->values(), s0[2][i]) << "maxExpAvgSqsRef untouched without amsgrad";
    EXPECT_EQ(L.g[i]->values(), g0[i]) << "grads are const";
    for (const Tensors *ts : {&L.p, &L.s[0], &L.s[1], &L.s[2]}) EXPECT_TRUE((*ts)[i]->untouched_outside_view());
  }
}

AdamwHyper random_adamw_hyper(std::mt19937_64 &r) {
  std::uniform_real_distribution<double> u(0, 1);
  AdamwHyper h{0.001 + 0.05 * u(r), 0.5 + 0.49 * u(r), 0.9 + 0.0999 * u(r), 0.2 * u(r), u(r) < 0.5 ? 1e-8 : 1e-3};
  return h;
}

TEST(OpTableOptimFusedAdamw, EveryDtypeFlagAndSeveralSteps) {
  reseed_for_current_test();
  const OptimTableCase &c = case_of("kFusedAdamw");
  auto &r = rng();
  for (aclDataType dt : c.dtypes)
    for (int f = 0; f < 8; ++f) {
      const bool amsgrad = f & 1, maximize = f & 2, scaled = f & 4;
      const auto shapes = random_shapes(r);
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " flags " << f << " entries " << shapes.size());
      Lists L;
      L.make(r, shapes, dt, 3);
      if (scaled) {
        L.set_scale(f & 1 ? 1024.0 : 0.37);
        L.set_found_inf(0.0);
      }
      const AdamwHyper h = random_adamw_hyper(r);
      for (int t = 1; t <= 3; ++t) {
        SCOPED_TRACE(::testing::Message() << "step " << t);
        for (auto &g : L.g) g->fill_random(-1, 1);
        check_adamw_step(c, L, dt, h, t + (f & 1) * 10, amsgrad, maximize);
      }
    }
}

TEST(OpTableOptimFusedAdamw, EntriesOfSeveralDtypes) {
  reseed_for_current_test();
  const OptimTableCase &c = case_of("kFusedAdamw");
  auto &r = rng();
  Lists a, b;
  a.make(r, {{5, 7}, {3}}, ACL_FLOAT, 3);
  b.make(r, {{4, 2}, {6}}, ACL_BF16, 3);
  // Entry 1 of a's lists becomes b's BF16 entry 1 (each entry's states have its param's dtype).
  std::swap(a.lp->tensors[1], b.lp->tensors[1]);
  std::swap(a.lg->tensors[1], b.lg->tensors[1]);
  for (int j = 0; j < 3; ++j) std::swap(a.ls[j]->tensors[1], b.ls[j]->tensors[1]);
  a.set_steps(2);
  b.set_steps(2);
  std::vector<double> p0 = b.p[1]->values(), m0 = b.s[0][1]->values(), v0 = b.s[1][1]->values(),
                      g0 = b.g[1]->values();
  const AdamwHyper h = random_adamw_hyper(r);
  ASSERT_EQ(run(c, adamw_args(a, h, false, false)), 0) << aclGetRecentErrMsg();
  std::vector<double> wp;
  for (size_t e = 0; e < p0.size(); ++e) {
    double p = p0[e], m = m0[e], v = v0[e], mx = 0;
    adamw_reference(p, m, v, mx, g0[e], 2, h, false, false);
    wp.push_back(round_to(ACL_BF16, p));
  }
  EXPECT_TRUE(meets_precision(ACL_BF16, b.p[1]->values(), wp));
}

TEST(OpTableOptimFusedAdamw, FoundInfSkipsTheStepAndBadStepsFailTheLaunch) {
  reseed_for_current_test();
  const OptimTableCase &c = case_of("kFusedAdamw");
  auto &r = rng();
  Lists L;
  L.make(r, {{4, 5}, {7}}, ACL_FLOAT, 3);
  const AdamwHyper h = random_adamw_hyper(r);
  L.set_steps(1);
  L.set_scale(2.0);
  L.set_found_inf(1.0);
  const auto p0 = L.p[0]->values(), m0 = L.s[0][1]->values();
  ASSERT_EQ(run(c, adamw_args(L, h, true, false)), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(L.p[0]->values(), p0);
  EXPECT_EQ(L.s[0][1]->values(), m0);
  L.found_inf.reset();
  for (double t : {0.0, -2.0}) {
    L.steps[1]->set_values({t});  // the second entry's step: the first is not written either
    EXPECT_EQ(run(c, adamw_args(L, h, false, false)), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("stateSteps[1]"), std::string::npos) << aclGetRecentErrMsg();
    EXPECT_EQ(L.p[0]->values(), p0) << "nothing written";
  }
}

TEST(OpTableOptimFusedAdamw, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const OptimTableCase &c = case_of("kFusedAdamw");
  const char *api = c.api.c_str();
  auto &r = rng();
  Lists L, other;
  L.make(r, {{3, 4}, {5}}, ACL_FLOAT, 3);
  other.make(r, {{3, 4}, {5}}, ACL_FLOAT16, 3);
  L.set_steps(1);
  const AdamwHyper h = random_adamw_hyper(r);
  const OptimArgs good = adamw_args(L, h, true, false);
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  std::vector<std::pair<const char *, aclTensorList *OptimArgs::*>> lists = {
      {"paramsRef", &OptimArgs::params},     {"grads", &OptimArgs::grads},
      {"expAvgsRef", &OptimArgs::exp_avgs},  {"expAvgSqsRef", &OptimArgs::exp_avg_sqs},
      {"stateSteps", &OptimArgs::steps},     {"maxExpAvgSqsRef", &OptimArgs::max_exp_avg_sqs}};
  Lists short_lists;
  short_lists.make(r, {{3, 4}}, ACL_FLOAT, 3);
  std::shared_ptr<aclTensorList> empty(aclCreateTensorList(nullptr, 0), [](aclTensorList *l) { aclDestroyTensorList(l); });
  for (const auto &[name, f] : lists) {
    OptimArgs a = good;
    a.*f = nullptr;  // null list (maxExpAvgSqsRef: with amsgrad)
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = f == &OptimArgs::params ? empty.get() : short_lists.lp.get();  // empty / of another length
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name;
    aclTensorList *l = good.*f;  // a null entry
    aclTensor *keep = l->tensors[1];
    l->tensors[1] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, (std::string(name) + "[1]").c_str()}))
        << name;
    l->tensors[1] = keep;
  }
  {  // without amsgrad the maximum list may be null
    OptimArgs a = good;
    a.amsgrad = false;
    a.max_exp_avg_sqs = nullptr;
    EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  }
  // An entry of another dtype than its param (FLOAT16 vs FLOAT) or of another shape.
  for (const auto &[name, f] : {std::pair{"grads", &OptimArgs::grads}, std::pair{"expAvgsRef", &OptimArgs::exp_avgs},
                                std::pair{"expAvgSqsRef", &OptimArgs::exp_avg_sqs},
                                std::pair{"maxExpAvgSqsRef", &OptimArgs::max_exp_avg_sqs}}) {
    aclTensorList *l = good.*f;
    const std::string entry = std::string(name) + "[0]";
    std::swap(l->tensors[0], other.lp->tensors[0]);  // FLOAT16 [3, 4]
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, entry.c_str(), "dtype"})) << name;
    std::swap(l->tensors[0], other.lp->tensors[0]);
    std::swap(l->tensors[0], l->tensors[1]);  // [5] where [3, 4] is expected
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, entry.c_str()})) << name;
    std::swap(l->tensors[0], l->tensors[1]);
  }
  {  // a param dtype outside the row's
    Lists ints;
    ints.make(r, {{3, 4}, {5}}, ACL_INT32, 3);
    std::swap(good.params->tensors[0], ints.lp->tensors[0]);
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "paramsRef[0]", "dtype"}));
    std::swap(good.params->tensors[0], ints.lp->tensors[0]);
  }
  DeviceTensor two({2}, ACL_FLOAT), i32({1}, ACL_INT32);
  for (aclTensor *bad : {two.get(), i32.get()}) {  // steps, gradScale, foundInf: one FLOAT (step: or INT64) element
    std::swap(good.steps->tensors[1], bad);
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "stateSteps[1]"}));
    std::swap(good.steps->tensors[1], bad);
    OptimArgs a = good;
    a.grad_scale = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "gradScaleOptional"}));
    a = good;
    a.found_inf = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "foundInfOptional"}));
  }
  {  // an entry's states must not share memory with its param
    const aclTensor *p0 = good.params->tensors[0];
    aclTensor *alias = aclCreateTensor(p0->dims, static_cast<uint64_t>(p0->ndim), p0->dtype, p0->strides, p0->offset,
                                       p0->format, p0->storage_dims, static_cast<uint64_t>(p0->storage_ndim), p0->data);
    std::swap(good.exp_avgs->tensors[0], alias);  // expAvgsRef[0] views paramsRef[0]'s memory
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "overlap"}));
    std::swap(good.exp_avgs->tensors[0], alias);
    aclDestroyTensor(alias);
  }
}

// ---- FusedSgd

struct SgdHyper {
  double wd, momentum, lr, dampening;  // as the float arguments hold them
};

OptimArgs sgd_args(Lists &L, const SgdHyper &h, bool nesterov, bool maximize, bool first) {
  OptimArgs a;
  a.params = L.lp.get();
  a.grads = L.lg.get();
  a.momenta = L.ls[0].get();
  a.grad_scale = L.scale ? L.scale->get() : nullptr;
  a.wd_f = h.wd;
  a.momentum_f = h.momentum;
  a.lr_f = h.lr;
  a.dampening_f = h.dampening;
  a.nesterov = nesterov;
  a.maximize = maximize;
  a.first_step = first;
  return a;
}

// One step of torch.optim.SGD in double; g is the (unscaled) gradient.
void sgd_reference(double &p, double &buf, double g, const SgdHyper &h, bool nesterov, bool maximize, bool first) {
  if (maximize) g = -g;
  if (h.wd != 0) g += h.wd * p;
  if (h.momentum != 0) {
    buf = first ? g : h.momentum * buf + (1.0 - h.dampening) * g;
    g = nesterov ? g + h.momentum * buf : buf;
  }
  p -= h.lr * g;
}

TEST(OpTableOptimFusedSgd, EveryDtypeFlagAndSeveralSteps) {
  reseed_for_current_test();
  const OptimTableCase &c = case_of("kFusedSgd");
  auto &r = rng();
  std::uniform_real_distribution<double> u(0, 1);
  for (aclDataType dt : c.dtypes)
    for (int f = 0; f < 16; ++f) {
      const bool nesterov = f & 1, maximize = f & 2, scaled = f & 4, no_momentum = f & 8;
      const auto shapes = random_shapes(r);
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " flags " << f << " entries " << shapes.size());
      Lists L;
      L.make(r, shapes, dt, 1);
      if (scaled) L.set_scale(f & 1 ? 512.0 : 0.61);
      SgdHyper h{f % 3 ? static_cast<float>(0.1 * u(r)) : 0.0, no_momentum ? 0.0 : static_cast<float>(0.5 + 0.45 * u(r)),
                 static_cast<float>(0.01 + 0.1 * u(r)), nesterov ? 0.0 : static_cast<float>(0.3 * u(r))};
      for (int step = 0; step < 3; ++step) {
        SCOPED_TRACE(::testing::Message() << "step " << step);
        const bool first = step == 0;
        for (auto &g : L.g) g->fill_random(-1, 1);
        std::vector<std::vector<double>> p0, g0, b0;
        for (size_t i = 0; i < L.p.size(); ++i) {
          p0.push_back(L.p[i]->values());
          g0.push_back(L.g[i]->values());
          b0.push_back(L.s[0][i]->values());
        }
        ASSERT_EQ(run(c, sgd_args(L, h, nesterov, maximize, first)), 0) << aclGetRecentErrMsg();
        const double scale = L.scale ? L.scale->values()[0] : 1.0;
        for (size_t i = 0; i < L.p.size(); ++i) {
          SCOPED_TRACE(::testing::Message() << "entry " << i);
          std::vector<double> wp, wb, wg;
          for (size_t e = 0; e < p0[i].size(); ++e) {
            double p = p0[i][e], b = b0[i][e];
            sgd_reference(p, b, g0[i][e] / scale, h, nesterov, maximize, first);
            wp.push_back(round_to(dt, p));
            wb.push_back(round_to(dt, b));
            wg.push_back(round_to(dt, g0[i][e] / scale));
          }
          EXPECT_TRUE(meets_precision(dt, L.p[i]->values(), wp)) << "paramsRef";
          if (h.momentum != 0) EXPECT_TRUE(meets_precision(dt, L.s[0][i]->values(), wb)) << "momentum buffer";
          else EXPECT_EQ(L.s[0][i]->values(), b0[i]) << "buffers untouched without momentum";
          if (scaled) EXPECT_TRUE(meets_precision(dt, L.g[i]->values(), wg)) << "gradsRef unscaled in place";
          else EXPECT_EQ(L.g[i]->values(), g0[i]) << "gradsRef untouched without gradScale";
          for (const Tensors *ts : {&L.p, &L.g, &L.s[0]}) EXPECT_TRUE((*ts)[i]->untouched_outside_view());
        }
      }
    }
}

TEST(OpTableOptimFusedSgd, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const OptimTableCase &c = case_of("kFusedSgd");
  const char *api = c.api.c_str();
  auto &r = rng();
  Lists L, other, short_lists;
  L.make(r, {{3, 4}, {5}}, ACL_FLOAT, 1);
  other.make(r, {{3, 4}, {5}}, ACL_BF16, 1);
  short_lists.make(r, {{3, 4}}, ACL_FLOAT, 1);
  const SgdHyper h{0.01f, 0.9f, 0.1f, 0.0};
  const OptimArgs good = sgd_args(L, h, false, false, false);
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  std::shared_ptr<aclTensorList> empty(aclCreateTensorList(nullptr, 0), [](aclTensorList *l) { aclDestroyTensorList(l); });
  for (const auto &[name, f] : {std::pair{"paramsRef", &OptimArgs::params}, std::pair{"gradsRef", &OptimArgs::grads},
                                std::pair{"momentumBufferListOptionalRef", &OptimArgs::momenta}}) {
    OptimArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = f == &OptimArgs::params ? empty.get() : short_lists.lp.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name;
    if (f == &OptimArgs::params) continue;
    const std::string entry = std::string(name) + "[1]";
    aclTensorList *l = good.*f;
    std::swap(l->tensors[1], other.lp->tensors[1]);  // BF16 where FLOAT is expected
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, entry.c_str(), "dtype"})) << name;
    std::swap(l->tensors[1], other.lp->tensors[1]);
    std::swap(l->tensors[0], l->tensors[1]);  // shapes swapped: entry 0 is the first of another shape
    const std::string entry0 = std::string(name) + "[0]";
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, entry0.c_str(), "shape"}))
        << name;
    std::swap(l->tensors[0], l->tensors[1]);
  }
  {  // without momentum the buffer list may be null
    OptimArgs a = sgd_args(L, {0.01, 0.0, 0.1, 0.0}, false, false, false);
    a.momenta = nullptr;
    EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  }
  DeviceTensor two({2}, ACL_FLOAT), i32({1}, ACL_INT32);
  for (aclTensor *bad : {two.get(), i32.get()}) {
    OptimArgs a = good;
    a.grad_scale = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "gradScaleOptional"}));
  }
  {  // a param dtype outside the row's
    Lists ints;
    ints.make(r, {{3, 4}, {5}}, ACL_INT32, 1);
    std::swap(good.params->tensors[0], ints.lp->tensors[0]);
    EXPECT_TRUE(fails_with(c.phase1(good, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "paramsRef[0]", "dtype"}));
    std::swap(good.params->tensors[0], ints.lp->tensors[0]);
  }
}

}  // namespace
}  // namespace opsnn::test

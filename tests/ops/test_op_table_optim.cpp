// The test harness of the table-driven optimiser updates (src/ops/optim/optim.ops), cases registered
// from the table by tools/gen_ops.py --tests (optim_table_cases.inc):
//   - every dtype on contiguous, transposed + offset and padded views of var / m / v / grad (and
//     maxGradNorm), random shapes, hyper-parameters of shape [1] or 0-d in var's dtype, FLOAT or DOUBLE,
//     every flag (amsgrad, maximize; useNesterov), against the float64 reference (refs::adamw_ref /
//     refs::apply_adam_ref) with the precision standard; nothing written outside the views;
//   - repeated steps feeding the written state back; empty tensors;
//   - the errors with their code and the argument named;
//   - ApplyAdamWV2 (own suite): float hyper-parameters and a step tensor against the same reference
//     with beta powers beta^(t-1), the amsgrad maximum written back, a step <= 0 failing the launch;
//   - ApplyFusedEmaAdam (own suite): both modes, with and without bias correction, against a float64
//     reference of the documented formula written here; its errors.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "optim_table_case.h"

namespace opsnn::test {
namespace {


// The cases with tensor hyper-parameters; ApplyAdamWV2 has its own suite at the end.
const std::vector<OptimTableCase> &all_cases() {
  static const std::vector<OptimTableCase> c = [] {
    std::vector<OptimTableCase> v;
    for (auto &e : harness::sampled(optim_table_cases()))
      if (e.update == "kAdamW" || e.update == "kAdam") v.push_back(e);
    return v;
  }();
  return c;
}

enum class Layout { kContiguous, kTransposed, kPadded };

// A view of `shape` in one of the layouts: transposed (last two dims swapped in storage) + offset, or
// rows padded.
std::unique_ptr<DeviceTensor> make_view(const std::vector<int64_t> &shape, aclDataType dt, Layout layout) {
  const size_t n = shape.size();
  if (layout == Layout::kContiguous || n == 0) return std::make_unique<DeviceTensor>(shape, dt);
  std::vector<int64_t> strides(n);
  if (layout == Layout::kPadded) {
    int64_t s = 1;
    for (size_t d = n; d-- > 0;) {
      strides[d] = s;
      s *= shape[d] + (d == n - 1 ? 3 : 0);
    }
    return std::make_unique<DeviceTensor>(shape, dt, strides, 2);
  }
  // Transposed: the storage is row-major with the last two dims swapped.
  std::vector<int64_t> perm(shape);
  if (n >= 2) std::swap(perm[n - 1], perm[n - 2]);
  const auto ps = contiguous_strides(perm);
  strides = ps;
  if (n >= 2) std::swap(strides[n - 1], strides[n - 2]);
  return std::make_unique<DeviceTensor>(shape, dt, strides, 5);
}

struct Hyper {
  double b1p, b2p, lr, wd, b1, b2, eps;
};

struct Problem {
  std::unique_ptr<DeviceTensor> var, m, v, grad, max_v, h[7];
  Hyper hv{};
};

// Fills a problem: var in [-2, 2], m in [-0.5, 0.5], v in [0, 1], grad in [-1, 1], maxGradNorm in
// [0, 1.2]; hyper-parameters each in hdt (one-element [1] or 0-d).
void make_problem(const OptimTableCase &c, std::mt19937_64 &g, const std::vector<int64_t> &shape, aclDataType dt,
                  Layout layout, aclDataType hdt, bool zero_dim_hyper, Problem *p) {
  p->var = make_view(shape, dt, layout);
  p->m = make_view(shape, dt, layout == Layout::kTransposed ? Layout::kPadded : layout);
  p->v = make_view(shape, dt, layout);
  p->grad = make_view(shape, dt, layout == Layout::kPadded ? Layout::kTransposed : layout);
  p->max_v = make_view(shape, dt, layout);
  p->var->fill_random(-2, 2);
  p->m->fill_random(-0.5, 0.5);
  p->v->fill_random(0, 1);
  p->grad->fill_random(-1, 1);
  p->max_v->fill_random(0, 1.2);
  std::uniform_real_distribution<double> u(0, 1);
  Hyper &h = p->hv;
  if (c.adamw) {
    h.b1p = 0.05 + 0.95 * u(g);  // beta^(t-1)
    h.b2p = 0.05 + 0.95 * u(g);
  } else {
    h.b1p = 0.1 + 0.8 * u(g);  // beta^t < 1
    h.b2p = 0.1 + 0.85 * u(g);
  }
  h.lr = 0.001 + 0.05 * u(g);
  h.wd = 0.2 * u(g);
  h.b1 = 0.5 + 0.49 * u(g);
  h.b2 = 0.9 + 0.0999 * u(g);
  h.eps = u(g) < 0.5 ? 1e-8 : 1e-3;
  const double vals[7] = {h.b1p, h.b2p, h.lr, h.wd, h.b1, h.b2, h.eps};
  double *dst[7] = {&h.b1p, &h.b2p, &h.lr, &h.wd, &h.b1, &h.b2, &h.eps};
  for (int k = 0; k < 7; ++k) {
    p->h[k] = std::make_unique<DeviceTensor>(zero_dim_hyper ? std::vector<int64_t>{} : std::vector<int64_t>{1}, hdt);
    p->h[k]->set_values({vals[k]});
    *dst[k] = p->h[k]->values()[0];  // as stored
  }
}

OptimArgs args_of(const Problem &p, bool amsgrad, bool maximize, bool nesterov) {
  OptimArgs a;
  a.var = *p.var;
  a.m = *p.m;
  a.v = *p.v;
  a.grad = *p.grad;
  a.max_v = *p.max_v;
  a.b1p = *p.h[0];
  a.b2p = *p.h[1];
  a.lr = *p.h[2];
  a.wd = *p.h[3];
  a.b1 = *p.h[4];
  a.b2 = *p.h[5];
  a.eps = *p.h[6];
  a.amsgrad = amsgrad;
  a.maximize = maximize;
  a.nesterov = nesterov;
  return a;
}

// Runs one update and checks var / m / v against the reference from the stored inputs.
void check_step(const OptimTableCase &c, Problem &p, aclDataType dt, bool amsgrad, bool maximize, bool nesterov) {
  const auto var0 = p.var->values(), m0 = p.m->values(), v0 = p.v->values(), g0 = p.grad->values(),
             x0 = p.max_v->values();
  const OptimArgs a = args_of(p, amsgrad, maximize, nesterov);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  std::vector<double> wv, wm, wvv;
  const Hyper &h = p.hv;
  for (size_t i = 0; i < var0.size(); ++i) {
    const refs::AdamElem r = c.adamw ? refs::adamw_ref(var0[i], m0[i], v0[i], g0[i], x0[i], h.b1p, h.b2p, h.lr, h.wd,
                                                       h.b1, h.b2, h.eps, amsgrad, maximize)
                                     : refs::apply_adam_ref(var0[i], m0[i], v0[i], g0[i], h.b1p, h.b2p, h.lr, h.b1,
                                                            h.b2, h.eps, nesterov);
    wv.push_back(round_to(dt, r.var));
    wm.push_back(round_to(dt, r.m));
    wvv.push_back(round_to(dt, r.v));
  }
  EXPECT_TRUE(meets_precision(dt, p.var->values(), wv)) << "var";
  EXPECT_TRUE(meets_precision(dt, p.m->values(), wm)) << "m";
  EXPECT_TRUE(meets_precision(dt, p.v->values(), wvv)) << "v";
  EXPECT_TRUE(p.var->untouched_outside_view());
  EXPECT_TRUE(p.m->untouched_outside_view());
  EXPECT_TRUE(p.v->untouched_outside_view());
  EXPECT_EQ(p.max_v->values(), x0) << "maxGradNorm is read, not written";
  EXPECT_EQ(p.grad->values(), g0);
}

// 1-d to 4-d, each dim 1..7.
std::vector<int64_t> random_state_shape(std::mt19937_64 &g) {
  std::vector<int64_t> shape;
  const int nd = 1 + static_cast<int>(g() % 4);
  for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % 7));
  return shape;
}

// Every dtype x layout x four flag values (two bits of f), k counting the calls, a random state shape.
template <class Body>
void each_dtype_layout_and_flags(const OptimTableCase &c, std::mt19937_64 &g, const Body &body) {
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (Layout layout : {Layout::kContiguous, Layout::kTransposed, Layout::kPadded})
      for (int f = 0; f < 4; ++f, ++k) body(dt, layout, f, k, random_state_shape(g));
}

class OpTableOptim : public ::testing::TestWithParam<OptimTableCase> {};

TEST_P(OpTableOptim, EveryDtypeLayoutAndFlag) {
  reseed_for_current_test();
  const OptimTableCase &c = GetParam();
  auto &g = rng();
  each_dtype_layout_and_flags(c, g, [&](aclDataType dt, Layout layout, int f, int k,
                                        const std::vector<int64_t> &shape) {
    const aclDataType hdts[3] = {dt, ACL_FLOAT, ACL_DOUBLE};
    const aclDataType hdt = hdts[k % 3];
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " layout " << static_cast<int>(layout)
                                      << " flags " << f << " hyper dtype " << hdt << " shape "
                                      << ::testing::PrintToString(shape));
    Problem p;
    make_problem(c, g, shape, dt, layout, hdt, k % 2 == 1, &p);
    check_step(c, p, dt, (f & 1) != 0, (f & 2) != 0, (f & 1) != 0);
  });
}

TEST_P(OpTableOptim, RepeatedStepsAndLargeTensors) {
  reseed_for_current_test();
  const OptimTableCase &c = GetParam();
  auto &g = rng();
  Problem p;
  make_problem(c, g, {67, 129}, ACL_FLOAT, Layout::kTransposed, ACL_DOUBLE, false, &p);  // many threads' chunks
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE(::testing::Message() << c.name << " step " << step);
    p.grad->fill_random(-1, 1);
    check_step(c, p, ACL_FLOAT, step == 1, false, step == 2);
  }
}

TEST_P(OpTableOptim, EmptyTensors) {
  const OptimTableCase &c = GetParam();
  Problem p;
  make_problem(c, rng(), {0, 3}, ACL_FLOAT, Layout::kContiguous, ACL_FLOAT, false, &p);
  const OptimArgs a = args_of(p, false, false, false);
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
}

TEST_P(OpTableOptim, ErrorsNameTheArgument) {
  const OptimTableCase &c = GetParam();
  const char *api = c.api.c_str();
  Problem p;
  make_problem(c, rng(), {3, 4}, ACL_FLOAT, Layout::kContiguous, ACL_FLOAT, false, &p);
  const OptimArgs good = args_of(p, false, false, false);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  std::vector<std::pair<std::string, aclTensor *OptimArgs::*>> tensors = {
      {"var", &OptimArgs::var}, {"m", &OptimArgs::m},     {"v", &OptimArgs::v},   {"b1p", &OptimArgs::b1p},
      {"b2p", &OptimArgs::b2p}, {"lr", &OptimArgs::lr},   {"b1", &OptimArgs::b1}, {"b2", &OptimArgs::b2},
      {"eps", &OptimArgs::eps}, {"grad", &OptimArgs::grad}};
  if (c.adamw) tensors.push_back({"wd", &OptimArgs::wd});
  for (const auto &[role, f] : tensors) {
    const std::string name = c.name_of(role);
    OptimArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name.c_str()})) << name;
  }
  if (c.adamw) {  // amsgrad needs the running maximum; without amsgrad it may be null
    OptimArgs a = good;
    a.max_v = nullptr;
    a.amsgrad = true;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "maxGradNormOptional"}));
    a.amsgrad = false;
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
  DeviceTensor half({3, 4}, ACL_FLOAT16), wrong({4, 3}, ACL_FLOAT), two({2}, ACL_FLOAT), hint({1}, ACL_INT32),
      ivar({3, 4}, ACL_INT32), dvar({3, 4}, ACL_DOUBLE);
  for (const auto &[role, f] : {std::pair{std::string("m"), &OptimArgs::m}, std::pair{std::string("v"), &OptimArgs::v},
                                std::pair{std::string("grad"), &OptimArgs::grad}}) {
    const std::string name = c.name_of(role);
    OptimArgs a = good;
    a.*f = half;  // not var's dtype
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name.c_str(), "dtype"})) << name;
    a.*f = wrong;  // not var's shape
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name.c_str()})) << name;
  }
  for (aclTensor *bad : {ivar.get(), dvar.get()}) {
    OptimArgs a = good;
    a.var = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "varRef", "dtype"}));
  }
  for (const auto &[role, f] : {std::pair{std::string("lr"), &OptimArgs::lr}, std::pair{std::string("b1p"), &OptimArgs::b1p},
                                std::pair{std::string("eps"), &OptimArgs::eps}}) {
    const std::string name = c.name_of(role);
    OptimArgs a = good;
    a.*f = two;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name.c_str(), "one element"}))
        << name;
    a.*f = hint;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name.c_str(), "dtype"})) << name;
  }
  {  // the state tensors must not share memory
    OptimArgs a = good;
    a.m = a.var;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "varRef", "overlap"}));
  }
  {  // a written tensor without internal overlap
    DeviceTensor bcast({3, 4}, ACL_FLOAT, {0, 1}, 0, 4);
    OptimArgs a = good;
    a.v = bcast;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("v").c_str()}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableOptim, ::testing::ValuesIn(all_cases()), harness::case_name<OptimTableCase>);

// ---- ApplyAdamWV2: float hyper-parameters, the step as a tensor, maxGradNorm updated with amsgrad.

const OptimTableCase &v2_case() {
  static const std::vector<OptimTableCase> all = optim_table_cases();
  for (const auto &c : all)
    if (c.v2) return c;
  throw std::runtime_error("no kAdamWV2 row in optim.ops");
}

// The problem's tensors with V2's arguments: the step tensor (INT64 or FLOAT) and the float values
// (the reference takes them as the op receives them, rounded to float).
OptimArgs v2_args(const Problem &p, const DeviceTensor &step, bool amsgrad, bool maximize) {
  OptimArgs a;
  a.var = *p.var;
  a.m = *p.m;
  a.v = *p.v;
  a.max_v = *p.max_v;
  a.grad = *p.grad;
  a.step = step;
  a.lr_f = p.hv.lr;
  a.b1_f = p.hv.b1;
  a.b2_f = p.hv.b2;
  a.wd_f = p.hv.wd;
  a.eps_f = p.hv.eps;
  a.amsgrad = amsgrad;
  a.maximize = maximize;
  return a;
}

TEST(OpTableOptimV2, EveryDtypeLayoutFlagAndStepDtype) {
  reseed_for_current_test();
  const OptimTableCase &c = v2_case();
  auto &g = rng();
  each_dtype_layout_and_flags(c, g, [&](aclDataType dt, Layout layout, int f, int k,
                                        const std::vector<int64_t> &shape) {
    const bool amsgrad = (f & 1) != 0, maximize = (f & 2) != 0;
    const aclDataType sdt = k % 2 ? ACL_FLOAT : ACL_INT64;
    const double t = static_cast<double>(1 + g() % 20);
    SCOPED_TRACE(::testing::Message() << "dtype " << dt << " layout " << static_cast<int>(layout) << " flags " << f
                                      << " step " << t << " (" << sdt << ") shape "
                                      << ::testing::PrintToString(shape));
    Problem p;
    make_problem(c, g, shape, dt, layout, ACL_DOUBLE, false, &p);
    Hyper &h = p.hv;
    for (double *x : {&h.lr, &h.b1, &h.b2, &h.wd, &h.eps}) *x = static_cast<float>(*x);  // the float arguments
    DeviceTensor step(k % 3 == 0 ? std::vector<int64_t>{} : std::vector<int64_t>{1}, sdt);
    step.set_values({t});
    const auto var0 = p.var->values(), m0 = p.m->values(), v0 = p.v->values(), g0 = p.grad->values(),
               x0 = p.max_v->values();
    const OptimArgs a = v2_args(p, step, amsgrad, maximize);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    std::vector<double> wv, wm, wvv, wx;
    for (size_t i = 0; i < var0.size(); ++i) {
      const refs::AdamElem r = refs::adamw_ref(var0[i], m0[i], v0[i], g0[i], x0[i], std::pow(h.b1, t - 1),
                                               std::pow(h.b2, t - 1), h.lr, h.wd, h.b1, h.b2, h.eps, amsgrad,
                                               maximize);
      wv.push_back(round_to(dt, r.var));
      wm.push_back(round_to(dt, r.m));
      wvv.push_back(round_to(dt, r.v));
      wx.push_back(round_to(dt, std::max(x0[i], r.v)));
    }
    EXPECT_TRUE(meets_precision(dt, p.var->values(), wv)) << "varRef";
    EXPECT_TRUE(meets_precision(dt, p.m->values(), wm)) << "mRef";
    EXPECT_TRUE(meets_precision(dt, p.v->values(), wvv)) << "vRef";
    if (amsgrad) EXPECT_TRUE(meets_precision(dt, p.max_v->values(), wx)) << "maxGradNormOptionalRef";
    else EXPECT_EQ(p.max_v->values(), x0) << "maxGradNormOptionalRef untouched without amsgrad";
    EXPECT_TRUE(p.var->untouched_outside_view());
    EXPECT_TRUE(p.max_v->untouched_outside_view());
    EXPECT_EQ(p.grad->values(), g0);
  });
}

TEST(OpTableOptimV2, StepNotPositiveFailsTheLaunch) {
  const OptimTableCase &c = v2_case();
  auto &g = rng();
  for (double t : {0.0, -3.0}) {
    Problem p;
    make_problem(c, g, {3, 4}, ACL_FLOAT, Layout::kContiguous, ACL_DOUBLE, false, &p);
    DeviceTensor step({1}, ACL_INT64);
    step.set_values({t});
    const auto var0 = p.var->values();
    const OptimArgs a = v2_args(p, step, false, false);
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("step"), std::string::npos) << aclGetRecentErrMsg();
    EXPECT_EQ(p.var->values(), var0) << "nothing written";
  }
}

TEST(OpTableOptimV2, ErrorsNameTheArgument) {
  const OptimTableCase &c = v2_case();
  const char *api = c.api.c_str();
  auto &g = rng();
  Problem p;
  make_problem(c, g, {2, 3}, ACL_FLOAT, Layout::kContiguous, ACL_DOUBLE, false, &p);
  DeviceTensor step({1}, ACL_INT64), step2({2}, ACL_INT64), step32({1}, ACL_INT32), wrong({2, 4}, ACL_FLOAT),
      f16({2, 3}, ACL_FLOAT16);
  step.set_values({1});
  const OptimArgs good = v2_args(p, step, true, false);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const std::pair<aclTensor *OptimArgs::*, const char *> fields[] = {
      {&OptimArgs::var, "varRef"}, {&OptimArgs::m, "mRef"},         {&OptimArgs::v, "vRef"},
      {&OptimArgs::max_v, "maxGradNormOptionalRef"}, {&OptimArgs::grad, "grad"}, {&OptimArgs::step, "step"}};
  for (const auto &[f, name] : fields) {
    SCOPED_TRACE(name);
    OptimArgs a = good;
    a.*f = nullptr;  // maxGradNorm: required with amsgrad
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name}));
    if (f == &OptimArgs::step || f == &OptimArgs::var) continue;
    a.*f = wrong;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name}));
    a.*f = f16;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"}));
  }
  OptimArgs a = good;
  a.step = step2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "step", "one element"}));
  a.step = step32;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "step", "dtype"}));
  a = good;
  a.amsgrad = false;  // then maxGradNorm may be null
  a.max_v = nullptr;
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  a = good;
  a.m = a.var;  // state tensors sharing memory
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "overlap"}));
}

// ---- ApplyFusedEmaAdam: EMA of the parameters, weight decay in the gradient (mode 0) or the update (1).

const OptimTableCase &ema_case() {
  static const std::vector<OptimTableCase> all = optim_table_cases();
  for (const auto &c : all)
    if (c.ema) return c;
  throw std::runtime_error("no kEmaAdam row in optim.ops");
}

struct EmaElem {
  double var, m, v, s;
};

// The documented update in float64, one element.
EmaElem ema_adam_ref(double var, double m, double v, double s, double grad, double t, double lr, double ema, double b1,
                     double b2, double eps, int64_t mode, bool bias_correction, double wd) {
  const double c1 = bias_correction ? 1 - std::pow(b1, t) : 1, c2 = bias_correction ? 1 - std::pow(b2, t) : 1;
  const double g = mode == 0 ? grad + wd * var : grad;
  EmaElem r;
  r.m = b1 * m + (1 - b1) * g;
  r.v = b2 * v + (1 - b2) * g * g;
  const double update = (r.m / c1) / (std::sqrt(r.v / c2) + eps) + (mode == 1 ? wd * var : 0);
  r.var = var - lr * update;
  r.s = ema * s + (1 - ema) * r.var;
  return r;
}

struct EmaProblem {
  Problem p;
  std::unique_ptr<DeviceTensor> s, step;
  OptimArgs args() const {
    OptimArgs a;
    a.grad = *p.grad;
    a.var = *p.var;
    a.m = *p.m;
    a.v = *p.v;
    a.s = *s;
    a.step = *step;
    a.lr_f = p.hv.lr;
    a.ema_f = 0.9;
    a.b1_f = p.hv.b1;
    a.b2_f = p.hv.b2;
    a.eps_f = p.hv.eps;
    a.wd_f = p.hv.wd;
    return a;
  }
};

void make_ema_problem(const OptimTableCase &c, std::mt19937_64 &g, const std::vector<int64_t> &shape, aclDataType dt,
                      Layout layout, aclDataType step_dt, double t, EmaProblem *e) {
  make_problem(c, g, shape, dt, layout, ACL_DOUBLE, false, &e->p);
  e->s = make_view(shape, dt, layout == Layout::kContiguous ? Layout::kPadded : Layout::kContiguous);
  e->s->fill_random(-2, 2);
  e->step = std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, step_dt);
  e->step->set_values({t});
}

TEST(OpTableOptimEma, EveryDtypeLayoutModeAndBiasCorrection) {
  reseed_for_current_test();
  const OptimTableCase &c = ema_case();
  auto &g = rng();
  each_dtype_layout_and_flags(c, g, [&](aclDataType dt, Layout layout, int f, int k,
                                        const std::vector<int64_t> &shape) {
    const int64_t mode = f & 1;
    const bool bias = (f & 2) != 0;
    const double t = static_cast<double>(1 + g() % 20);
    SCOPED_TRACE(::testing::Message() << "dtype " << dt << " layout " << static_cast<int>(layout) << " mode " << mode
                                      << " biasCorrection " << bias << " step " << t << " shape "
                                      << ::testing::PrintToString(shape));
    EmaProblem e;
    make_ema_problem(c, g, shape, dt, layout, k % 2 ? ACL_FLOAT : ACL_INT64, t, &e);
    OptimArgs a = e.args();
    a.mode = mode;
    a.bias_corr = bias;
    a.ema_f = 0.5 + 0.49 * std::uniform_real_distribution<double>(0, 1)(g);
    const auto var0 = e.p.var->values(), m0 = e.p.m->values(), v0 = e.p.v->values(), g0 = e.p.grad->values(),
               s0 = e.s->values();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **ex) { return c.phase1(a, w, ex); }, c.launch), 0)
        << aclGetRecentErrMsg();
    std::vector<double> wv, wm, wvv, ws;
    for (size_t i = 0; i < var0.size(); ++i) {
      const EmaElem r = ema_adam_ref(var0[i], m0[i], v0[i], s0[i], g0[i], t, a.lr_f, a.ema_f, a.b1_f, a.b2_f,
                                     a.eps_f, mode, bias, a.wd_f);
      wv.push_back(round_to(dt, r.var));
      wm.push_back(round_to(dt, r.m));
      wvv.push_back(round_to(dt, r.v));
      ws.push_back(round_to(dt, r.s));
    }
    EXPECT_TRUE(meets_precision(dt, e.p.var->values(), wv)) << "varRef";
    EXPECT_TRUE(meets_precision(dt, e.p.m->values(), wm)) << "mRef";
    EXPECT_TRUE(meets_precision(dt, e.p.v->values(), wvv)) << "vRef";
    EXPECT_TRUE(meets_precision(dt, e.s->values(), ws)) << "sRef";
    EXPECT_TRUE(e.p.var->untouched_outside_view());
    EXPECT_TRUE(e.s->untouched_outside_view());
    EXPECT_EQ(e.p.grad->values(), g0);
  });
}

TEST(OpTableOptimEma, RepeatedStepsOnALargeTensor) {
  reseed_for_current_test();
  const OptimTableCase &c = ema_case();
  auto &g = rng();
  EmaProblem e;
  make_ema_problem(c, g, {67, 129}, ACL_FLOAT, Layout::kTransposed, ACL_INT64, 1, &e);  // many threads' chunks
  for (int t = 1; t <= 3; ++t) {
    SCOPED_TRACE(::testing::Message() << "step " << t);
    e.step->set_values({static_cast<double>(t)});
    e.p.grad->fill_random(-1, 1);
    OptimArgs a = e.args();
    a.bias_corr = true;
    a.mode = t % 2;
    const auto var0 = e.p.var->values(), m0 = e.p.m->values(), v0 = e.p.v->values(), g0 = e.p.grad->values(),
               s0 = e.s->values();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **ex) { return c.phase1(a, w, ex); }, c.launch), 0)
        << aclGetRecentErrMsg();
    std::vector<double> wv, ws;
    for (size_t i = 0; i < var0.size(); ++i) {
      const EmaElem r = ema_adam_ref(var0[i], m0[i], v0[i], s0[i], g0[i], t, a.lr_f, a.ema_f, a.b1_f, a.b2_f, a.eps_f,
                                     a.mode, true, a.wd_f);
      wv.push_back(round_to(ACL_FLOAT, r.var));
      ws.push_back(round_to(ACL_FLOAT, r.s));
    }
    EXPECT_TRUE(meets_precision(ACL_FLOAT, e.p.var->values(), wv)) << "varRef";
    EXPECT_TRUE(meets_precision(ACL_FLOAT, e.s->values(), ws)) << "sRef";
  }
}

TEST(OpTableOptimEma, ErrorsNameTheArgument) {
  const OptimTableCase &c = ema_case();
  const char *api = c.api.c_str();
  auto &g = rng();
  EmaProblem e;
  make_ema_problem(c, g, {2, 3}, ACL_FLOAT, Layout::kContiguous, ACL_INT64, 2, &e);
  const OptimArgs good = e.args();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **ex) { return c.phase1(good, w, ex); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor step2({2}, ACL_INT64), step32({1}, ACL_INT32), wrong({2, 4}, ACL_FLOAT), f16({2, 3}, ACL_FLOAT16),
      i32({2, 3}, ACL_INT32);
  const std::pair<aclTensor *OptimArgs::*, const char *> fields[] = {
      {&OptimArgs::grad, "grad"}, {&OptimArgs::var, "varRef"}, {&OptimArgs::m, "mRef"},
      {&OptimArgs::v, "vRef"},    {&OptimArgs::s, "sRef"},     {&OptimArgs::step, "step"}};
  for (const auto &[f, name] : fields) {
    SCOPED_TRACE(name);
    OptimArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name}));
    if (f == &OptimArgs::step || f == &OptimArgs::grad) continue;
    if (f != &OptimArgs::var) {  // var's shape is the reference the others are held to
      a.*f = wrong;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name}));
    }
    a.*f = f16;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"}));
  }
  OptimArgs a = good;
  a.grad = i32;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "grad", "dtype"}));
  a = good;
  a.step = step2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "step", "one element"}));
  a.step = step32;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "step", "dtype"}));
  for (int64_t mode : {-1, 2}) {
    a = good;
    a.mode = mode;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "mode"}));
  }
  a = good;
  a.s = a.var;  // state tensors sharing memory
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "overlap"}));
  {  // step <= 0 with bias correction fails the launch and writes nothing; without it the step is unused
    e.step->set_values({0});
    a = good;
    a.bias_corr = true;
    const auto var0 = e.p.var->values();
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(a, w, x); }, c.launch),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("step"), std::string::npos) << aclGetRecentErrMsg();
    EXPECT_EQ(e.p.var->values(), var0) << "nothing written";
    a.bias_corr = false;
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(a, w, x); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
}

}  // namespace
}  // namespace opsnn::test

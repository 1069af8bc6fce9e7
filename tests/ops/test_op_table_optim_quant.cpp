// The test harness of the optimiser table's ApplyAdamWQuant row (src/ops/optim/optim.ops): bitsandbytes'
// 8-bit blockwise AdamW against a float64 reference written here (dequantise by code book and block absmax,
// AdamW step, new absmax, nearest code by a linear scan of the code book): every dtype, block sizes that do
// and do not divide the element count, contiguous and strided views, several steps; a step <= 0 failing the
// launch; the errors with their code and argument.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "optim_table_case.h"

namespace opsnn::test {
namespace {

const OptimTableCase &quant_case() {
  static const std::vector<OptimTableCase> all = optim_table_cases();
  for (const auto &c : all)
    if (c.update == "kAdamWQuant") return c;
  throw std::runtime_error("no kAdamWQuant row in optim.ops");
}

// Ascending code books: m's signed cubes of [-1, 1], v's squares of [0, 1].
std::vector<double> code_book(bool is_signed) {
  std::vector<double> q(256);
  for (int k = 0; k < 256; ++k) {
    const double x = is_signed ? -1.0 + 2.0 * k / 255.0 : k / 255.0;
    q[k] = static_cast<float>(is_signed ? x * x * x : x * x);
  }
  return q;
}

int nearest_by_scan(const std::vector<double> &q, double x) {
  int best = 0;
  for (int k = 1; k < 256; ++k)
    if (std::fabs(q[k] - x) < std::fabs(q[best] - x)) best = k;
  return best;
}

struct Problem {
  std::unique_ptr<DeviceTensor> var, grad, m, v, qm, qv, am, av, step;
  int64_t block = 0;
  double lr = 0.01, b1 = 0.9, b2 = 0.999, wd = 0.05, eps = 1e-8, gnorm = 0.5;
  OptimArgs args() const {
    OptimArgs a;
    a.var = *var;
    a.grad = *grad;
    a.m = *m;
    a.v = *v;
    a.qmap_m = *qm;
    a.qmap_v = *qv;
    a.absmax_m = *am;
    a.absmax_v = *av;
    a.step = *step;
    a.lr_f = lr;
    a.b1_f = b1;
    a.b2_f = b2;
    a.wd_f = wd;
    a.eps_f = eps;
    a.gnorm_f = gnorm;
    a.block_size = block;
    return a;
  }
};

Problem make_problem(const std::vector<int64_t> &shape, aclDataType dt, int64_t block, bool strided) {
  Problem p;
  p.block = block;
  auto view = [&](aclDataType d, bool s) {
    return s ? padded_view(shape, d, 2) : std::make_unique<DeviceTensor>(shape, d);
  };
  p.var = view(dt, strided);
  p.grad = view(dt, !strided);
  p.m = view(ACL_UINT8, strided);
  p.v = view(ACL_UINT8, !strided);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const int64_t blocks = (n + block - 1) / block;
  p.qm = std::make_unique<DeviceTensor>(std::vector<int64_t>{256}, ACL_FLOAT);
  p.qv = std::make_unique<DeviceTensor>(std::vector<int64_t>{256}, ACL_FLOAT);
  p.qm->set_values(code_book(true));
  p.qv->set_values(code_book(false));
  p.am = std::make_unique<DeviceTensor>(std::vector<int64_t>{blocks}, ACL_FLOAT);
  p.av = std::make_unique<DeviceTensor>(std::vector<int64_t>{blocks}, ACL_FLOAT);
  p.step = std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, ACL_INT64);
  p.var->fill_random(-2, 2);
  p.grad->fill_random(-1, 1);
  p.m->fill_random(0, 255);
  p.v->fill_random(0, 255);
  p.am->fill_random(0.1, 2);
  p.av->fill_random(0.01, 1);
  return p;
}

// One launch at step t against the reference from the stored inputs.
void check_step(const OptimTableCase &c, Problem &p, aclDataType dt, double t) {
  p.step->set_values({t});
  const auto var0 = p.var->values(), g0 = p.grad->values(), m0 = p.m->values(), v0 = p.v->values(),
             am0 = p.am->values(), av0 = p.av->values(), qm = p.qm->values(), qv = p.qv->values();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(p.args(), w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const size_t n = var0.size();
  std::vector<double> want_var(n), want_m(n), want_v(n), want_am(am0.size()), want_av(av0.size());
  std::vector<double> mm(n), vv(n);
  const double bc1 = 1 - std::pow(p.b1, t), bc2 = 1 - std::pow(p.b2, t);
  for (size_t i = 0; i < n; ++i) {
    const size_t blk = i / static_cast<size_t>(p.block);
    const double g = g0[i] * p.gnorm;
    mm[i] = p.b1 * qm[static_cast<size_t>(m0[i])] * am0[blk] + (1.0 - p.b1) * g;
    vv[i] = p.b2 * qv[static_cast<size_t>(v0[i])] * av0[blk] + (1.0 - p.b2) * g * g;
    want_var[i] = round_to(dt, var0[i] - p.lr * p.wd * var0[i] - p.lr * (mm[i] / bc1) / (std::sqrt(vv[i] / bc2) + p.eps));
    want_am[blk] = std::max(want_am[blk], std::fabs(mm[i]));
    want_av[blk] = std::max(want_av[blk], std::fabs(vv[i]));
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t blk = i / static_cast<size_t>(p.block);
    want_m[i] = nearest_by_scan(qm, want_am[blk] > 0 ? mm[i] / want_am[blk] : 0.0);
    want_v[i] = nearest_by_scan(qv, want_av[blk] > 0 ? vv[i] / want_av[blk] : 0.0);
  }
  for (auto *w : {&want_am, &want_av})
    for (double &x : *w) x = round_to(ACL_FLOAT, x);
  EXPECT_TRUE(meets_precision(dt, p.var->values(), want_var)) << "varRef";
  EXPECT_EQ(p.m->values(), want_m) << "mRef codes";
  EXPECT_EQ(p.v->values(), want_v) << "vRef codes";
  EXPECT_TRUE(meets_precision(ACL_FLOAT, p.am->values(), want_am)) << "absmaxMRef";
  EXPECT_TRUE(meets_precision(ACL_FLOAT, p.av->values(), want_av)) << "absmaxVRef";
  for (DeviceTensor *d : {p.var.get(), p.m.get(), p.v.get()}) EXPECT_TRUE(d->untouched_outside_view());
  EXPECT_EQ(p.grad->values(), g0);
}

TEST(OpTableOptimAdamWQuant, EveryDtypeBlockSizeAndLayoutOverSteps) {
  reseed_for_current_test();
  const OptimTableCase &c = quant_case();
  auto &g = rng();
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (int64_t block : {1, 7, 64, 256}) {
      const std::vector<int64_t> shape = {1 + static_cast<int64_t>(g() % 9), 1 + static_cast<int64_t>(g() % 70)};
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " block " << block << " shape "
                                        << ::testing::PrintToString(shape));
      Problem p = make_problem(shape, dt, block, (k++ % 2) == 1);
      for (int t = 1; t <= 3; ++t) {
        SCOPED_TRACE(::testing::Message() << "step " << t);
        p.grad->fill_random(-1, 1);
        check_step(c, p, dt, t);
      }
    }
}

TEST(OpTableOptimAdamWQuant, StepNotPositiveFailsAndErrorsNameTheArgument) {
  const OptimTableCase &c = quant_case();
  const char *api = c.api.c_str();
  Problem p = make_problem({4, 8}, ACL_FLOAT, 16, false);
  p.step->set_values({0});
  const auto var0 = p.var->values();
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(p.args(), w, e); }, c.launch),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(p.var->values(), var0) << "nothing written";
  p.step->set_values({1});
  const OptimArgs good = p.args();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *OptimArgs::*;
  const std::vector<std::pair<const char *, F>> tensors = {
      {"varRef", &OptimArgs::var},        {"grad", &OptimArgs::grad},         {"mRef", &OptimArgs::m},
      {"vRef", &OptimArgs::v},            {"qmapM", &OptimArgs::qmap_m},      {"qmapV", &OptimArgs::qmap_v},
      {"absmaxMRef", &OptimArgs::absmax_m}, {"absmaxVRef", &OptimArgs::absmax_v}, {"step", &OptimArgs::step}};
  DeviceTensor i32({4, 8}, ACL_INT32), i32v({256}, ACL_INT32), wrong({3, 8}, ACL_FLOAT), short_map({255}, ACL_FLOAT);
  for (const auto &[name, f] : tensors) {
    OptimArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = f == &OptimArgs::qmap_m || f == &OptimArgs::qmap_v ? i32v.get() : i32.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name;
  }
  for (const auto &[name, f] : {std::pair{"grad", &OptimArgs::grad}, std::pair{"qmapM", &OptimArgs::qmap_m},
                                std::pair{"absmaxVRef", &OptimArgs::absmax_v}}) {
    OptimArgs a = good;
    a.*f = f == &OptimArgs::grad ? wrong.get() : short_map.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "shape"})) << name;
  }
  {
    OptimArgs a = good;
    a.block_size = 0;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "blockSize"}));
    a = good;
    char mode[] = "ROWWISE";
    a.quant_mode = mode;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "quantModeOptional"}));
    char ok[] = "BLOCKWISE";
    a.quant_mode = ok;
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    a = good;
    a.absmax_v = a.absmax_m;  // written tensors apart
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "overlaps"}));
  }
}

}  // namespace
}  // namespace opsnn::test

// The test harness of the table-driven class-index losses (src/ops/loss/class_losses.ops): every
// op runs the same suites, registered from the table by tools/gen_ops.py --tests
// (closs_table_cases.inc in the build tree):
//   - every accepted dtype and target dtype, the three reductions, with and without class
//     weights, an ignored index (outside the classes, or one of them), label smoothing for
//     cross-entropy, random shapes, contiguous and transposed self, against the float64
//     reference (tests/common/float64_refs.h closs_forward_ref / closs_grad_ref);
//   - empty batches;
//   - a target out of range fails the launch (161002) naming the target;
//   - phase-1 errors with their code and the argument named.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ClossArgs {
  aclTensor *grad = nullptr, *self = nullptr, *target = nullptr, *weight = nullptr, *total = nullptr,
            *out = nullptr, *log_prob = nullptr, *zloss = nullptr, *lse_out = nullptr, *grad_zloss = nullptr,
            *lse_in = nullptr, *is_target = nullptr;
  int64_t reduction = 1;
  char *reduction_text = nullptr;
  int64_t ignore_index = -100;
  double smoothing = 0;
  double zloss_scale = 0;
  bool return_zloss = false;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct ClossTableCase {
  std::string name, api, kind;  // kind: nll, nll_backward, cross_entropy, cross_entropy_grad
  int self_ndim = 0;
  std::vector<aclDataType> dtypes, targets;
  bool text_reduction = false;
  int (*phase1)(const ClossArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool forward() const { return kind == "nll" || kind == "cross_entropy"; }
  bool cross_entropy() const { return kind == "cross_entropy" || kind == "cross_entropy_grad"; }
};
void PrintTo(const ClossTableCase &c, std::ostream *os) { *os << c.name; }

#include "closs_table_cases.inc"

// The NLL / cross-entropy cases; MultilabelMarginLoss has its own suites below.
const std::vector<ClossTableCase> &all_cases() {
  static const std::vector<ClossTableCase> c = [] {
    std::vector<ClossTableCase> v;
    for (auto &e : harness::sampled(closs_table_cases()))
      if (e.kind != "multilabel_margin") v.push_back(e);
    return v;
  }();
  return c;
}
const std::vector<ClossTableCase> &multilabel_cases() {
  static const std::vector<ClossTableCase> c = [] {
    std::vector<ClossTableCase> v;
    for (auto &e : harness::sampled(closs_table_cases()))
      if (e.kind == "multilabel_margin") v.push_back(e);
    return v;
  }();
  return c;
}

char *reduction_text(int r) {
  static char none[] = "none", mean[] = "mean", sum[] = "sum";
  return r == 0 ? none : r == 1 ? mean : sum;
}

void set_reduction(const ClossTableCase &c, ClossArgs &a, int r) {
  a.reduction = r;
  a.reduction_text = c.text_reduction ? reduction_text(r) : nullptr;
}

struct Sample {
  aclDataType dt = ACL_FLOAT, tdt = ACL_INT64;
  int reduction = 1;
  bool weighted = false;
  double smoothing = 0;
  int64_t ignore = -100;
  std::vector<int64_t> shape;
  bool transposed = false;  // self (and a gradient output) as a column-major view
};

std::vector<int64_t> positions_of(const std::vector<int64_t> &shape) {
  std::vector<int64_t> p;
  for (size_t d = 0; d < shape.size(); ++d)
    if (d != (shape.size() == 1 ? 0 : 1)) p.push_back(shape[d]);
  return p;
}

// A view of `shape` whose dims are laid out in reverse order (column-major), at offset 2.
std::vector<int64_t> reversed_strides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> rev(shape.rbegin(), shape.rend());
  auto st = contiguous_strides(rev);
  return std::vector<int64_t>(st.rbegin(), st.rend());
}

void check(const ClossTableCase &c, const Sample &s) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << s.dt << " target " << s.tdt << " reduction "
                                    << s.reduction << (s.weighted ? " weighted" : "") << " smoothing " << s.smoothing
                                    << " ignore " << s.ignore << " shape " << ::testing::PrintToString(s.shape)
                                    << (s.transposed ? " transposed" : ""));
  auto &r = rng();
  const int cdim = s.shape.size() == 1 ? 0 : 1;
  const int64_t C = s.shape[static_cast<size_t>(cdim)], N = s.shape.size() == 1 ? 1 : s.shape[0];
  const int64_t inner = numel_of(s.shape) / std::max<int64_t>(1, N * C);
  const std::vector<int64_t> pos = positions_of(s.shape);
  const std::vector<int64_t> single = {};

  DeviceTensor x = s.transposed ? DeviceTensor(s.shape, s.dt, reversed_strides(s.shape), 2) : DeviceTensor(s.shape, s.dt);
  if (c.kind == "cross_entropy_grad") {  // log-probabilities of random logits, as stored
    std::vector<double> logits(static_cast<size_t>(numel_of(s.shape)));
    for (double &v : logits) v = std::uniform_real_distribution<double>(-3, 3)(r);
    x.set_values(refs::log_softmax_rows_ref(logits, N, C));
  } else {
    x.fill_random(c.kind == "cross_entropy" ? -3 : -4, c.kind == "cross_entropy" ? 3 : 0);
  }
  DeviceTensor t(pos, s.tdt);
  std::vector<double> tv(static_cast<size_t>(numel_of(pos)));
  for (double &v : tv) {
    v = static_cast<double>(C > 0 ? static_cast<int64_t>(r() % static_cast<uint64_t>(C)) : 0);
    if (s.ignore < 0 && r() % 5 == 0) v = static_cast<double>(s.ignore);
  }
  t.set_values(tv);
  const std::vector<int64_t> targets(tv.begin(), tv.end());
  DeviceTensor w({C}, s.dt);
  w.fill_random(0.25, 2);
  std::vector<double> wv = s.weighted ? w.values() : std::vector<double>{};

  ClossArgs a;
  set_reduction(c, a, s.reduction);
  a.self = x;
  a.target = t;
  a.weight = s.weighted ? w.get() : nullptr;
  a.ignore_index = s.ignore;
  a.smoothing = s.smoothing;
  const auto xv = x.values();
  const std::vector<double> lp = c.kind == "cross_entropy" ? refs::log_softmax_rows_ref(xv, N, C) : xv;

  if (c.forward()) {
    DeviceTensor out(s.reduction == 0 ? pos : single, s.dt), total(single, s.dt), logp(s.shape, s.dt);
    out.poison();
    total.poison();
    logp.poison();
    a.out = out;
    a.total = total;
    a.log_prob = logp;
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(a, ws, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    const auto ref = refs::closs_forward_ref(lp, N, C, inner, targets, wv, s.reduction, s.ignore, s.smoothing);
    std::vector<double> want;
    for (double v : ref.out) want.push_back(round_to(s.dt, v));
    EXPECT_TRUE(meets_precision(s.dt, out.values(), want));
    EXPECT_TRUE(out.untouched_outside_view());
    if (c.cross_entropy()) {
      std::vector<double> wl;
      for (double v : lp) wl.push_back(round_to(s.dt, v));
      EXPECT_TRUE(meets_precision(s.dt, logp.values(), wl));
    } else {
      EXPECT_TRUE(meets_precision(s.dt, total.values(), {round_to(s.dt, ref.total)}));
    }
    return;
  }
  DeviceTensor g(s.reduction == 0 ? pos : single, s.dt);
  g.fill_random(-2, 2);
  const auto full = refs::closs_forward_ref(lp, N, C, inner, targets, wv, 2, s.ignore, 0);
  DeviceTensor total(single, s.dt);
  total.set_values({full.total});
  DeviceTensor out = s.transposed ? DeviceTensor(s.shape, s.dt, reversed_strides(s.shape), 1) : DeviceTensor(s.shape, s.dt);
  out.poison();
  a.grad = g;
  a.total = total;
  a.out = out;
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(a, ws, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto want_raw = refs::closs_grad_ref(c.cross_entropy(), lp, N, C, inner, targets, wv, g.values(), s.reduction,
                                             s.ignore, s.smoothing, total.values()[0]);
  std::vector<double> want;
  for (double v : want_raw) want.push_back(round_to(s.dt, v));
  EXPECT_TRUE(meets_precision(s.dt, out.values(), want));
  EXPECT_TRUE(out.untouched_outside_view());
}

std::vector<int64_t> random_shape(const ClossTableCase &c, std::mt19937_64 &r, bool allow_1d) {
  auto d = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(r() % static_cast<uint64_t>(hi - lo + 1)); };
  if (c.self_ndim == 4) return {d(1, 3), d(1, 6), d(1, 5), d(1, 5)};
  if (allow_1d && c.self_ndim == 0 && r() % 4 == 0) return {d(1, 9)};
  return {d(1, 9), d(1, 40)};
}

class OpTableCloss : public ::testing::TestWithParam<ClossTableCase> {};

TEST_P(OpTableCloss, EveryDtypeReductionAndWeight) {
  reseed_for_current_test();
  const ClossTableCase &c = GetParam();
  auto &r = rng();
  size_t k = 0;
  for (aclDataType dt : c.dtypes)
    for (int reduction : {0, 1, 2})
      for (bool weighted : {false, true}) {
        Sample s;
        s.dt = dt;
        s.tdt = c.targets[k++ % c.targets.size()];
        s.reduction = reduction;
        s.weighted = weighted;
        s.ignore = (s.tdt == ACL_UINT8 || k % 3 == 0) ? 1 : -100;
        s.smoothing = c.cross_entropy() && k % 2 == 0 ? 0.2 : 0.0;
        s.shape = random_shape(c, r, true);
        s.transposed = k % 4 == 1 && s.shape.size() > 1;
        check(c, s);
      }
}

TEST_P(OpTableCloss, LongRowsAndFullSmoothing) {
  reseed_for_current_test();
  const ClossTableCase &c = GetParam();
  Sample s;
  s.shape = c.self_ndim == 4 ? std::vector<int64_t>{2, 37, 9, 11} : std::vector<int64_t>{5, 3001};
  s.weighted = true;
  s.reduction = 1;
  check(c, s);
  if (c.cross_entropy()) {
    s.smoothing = 1.0;
    s.transposed = true;
    check(c, s);
  }
}

TEST_P(OpTableCloss, EmptyBatch) {
  const ClossTableCase &c = GetParam();
  for (int reduction : {0, 1, 2}) {
    Sample s;
    s.reduction = reduction;
    s.shape = c.self_ndim == 4 ? std::vector<int64_t>{0, 3, 2, 2} : std::vector<int64_t>{0, 4};
    check(c, s);  // mean of nothing: 0 / 0 = NaN, as PyTorch
  }
}

TEST_P(OpTableCloss, TargetOutOfRangeFailsTheLaunch) {
  const ClossTableCase &c = GetParam();
  const std::vector<int64_t> shape = c.self_ndim == 4 ? std::vector<int64_t>{1, 3, 1, 2} : std::vector<int64_t>{2, 3};
  const std::vector<int64_t> pos = positions_of(shape), single = {};
  for (double bad : {3.0, -1.0}) {
    if (bad < 0 && c.targets.front() == ACL_UINT8) continue;
    DeviceTensor x(shape, ACL_FLOAT), t(pos, c.targets.front()), g(single, ACL_FLOAT), total(single, ACL_FLOAT),
        out(c.forward() ? single : shape, ACL_FLOAT), logp(shape, ACL_FLOAT);
    x.fill_random(-2, 0);
    g.fill_random(-1, 1);
    total.set_values({1.0});
    t.set_values({0, bad});
    ClossArgs a;
    set_reduction(c, a, 1);
    a.self = x;
    a.target = t;
    a.grad = g;
    a.total = total;
    a.out = out;
    a.log_prob = logp;
    EXPECT_TRUE(fails_with(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(a, ws, e); }, c.launch),
                           ACLNN_ERR_PARAM_INVALID, {"target", "out of range"}));
  }
}

TEST_P(OpTableCloss, ErrorsNameTheArgument) {
  const ClossTableCase &c = GetParam();
  const std::vector<int64_t> shape = c.self_ndim == 4 ? std::vector<int64_t>{2, 3, 2, 2} : std::vector<int64_t>{4, 3};
  const std::vector<int64_t> pos = positions_of(shape), single = {};
  DeviceTensor x(shape, ACL_FLOAT), t(pos, c.targets.front()), w({3}, ACL_FLOAT), g(single, ACL_FLOAT),
      total(single, ACL_FLOAT), out(c.forward() ? single : shape, ACL_FLOAT), logp(shape, ACL_FLOAT);
  x.fill_random(-2, 0);
  t.set_values(std::vector<double>(static_cast<size_t>(numel_of(pos)), 1.0));
  w.fill_random(0.5, 1);
  g.fill_random(-1, 1);
  total.set_values({1.0});
  ClossArgs good;
  set_reduction(c, good, 1);
  good.self = x;
  good.target = t;
  good.weight = w;
  good.grad = g;
  good.total = total;
  good.out = out;
  good.log_prob = logp;
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return c.phase1(good, s, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  ClossArgs a = good;
  a.self = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  a = good;
  a.target = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "target"}));
  a = good;
  a.out = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  a = good;
  if (c.text_reduction) {
    static char bad[] = "average";
    a.reduction_text = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "reductionOptional", "average"}));
  } else {
    a.reduction = 3;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "reduction"}));
  }
  DeviceTensor w4({4}, ACL_FLOAT);
  a = good;
  a.weight = w4;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "eight", "[4]"}));
  std::vector<int64_t> bad_pos = pos;
  bad_pos[0] += 1;
  DeviceTensor t2(bad_pos, c.targets.front());
  a = good;
  a.target = t2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "target"}));
  DeviceTensor tf(pos, ACL_FLOAT);
  a = good;
  a.target = tf;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "target", "dtype"}));
  DeviceTensor xi(shape, ACL_INT32);
  a = good;
  a.self = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  DeviceTensor x5({2, 3, 2, 2, 1}, ACL_FLOAT);
  a = good;
  a.self = x5;
  EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  if (c.forward()) {
    DeviceTensor o2({2}, ACL_FLOAT);
    a = good;
    a.out = o2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "[2]"}));
  } else {
    DeviceTensor g2({2}, ACL_FLOAT);  // the gradient of a reduced loss holds one value
    a = good;
    a.grad = g2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "grad"}));
  }
  if (c.cross_entropy()) {
    a = good;
    a.smoothing = 1.5;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "labelSmoothing"}));
  }
  if (c.kind == "cross_entropy") {
    a = good;
    a.return_zloss = true;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "returnZloss"}));
  }
  if (c.kind == "cross_entropy_grad") {
    a = good;
    a.grad_zloss = g;
    a.zloss_scale = 0.5;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "gradZlossOptional"}));
  }
  if (!c.forward() && !c.cross_entropy()) {
    DeviceTensor tw({2}, ACL_FLOAT);
    a = good;
    a.total = tw;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "totalWeight"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableCloss, ::testing::ValuesIn(all_cases()), harness::case_name<ClossTableCase>);

// ---- MultilabelMarginLoss: self [C] or [N, C], target class indices ended by -1, out, isTarget.

struct MlSample {
  aclDataType dt = ACL_FLOAT, tdt = ACL_INT64, it_dt = ACL_FLOAT;
  int reduction = 1;
  std::vector<int64_t> shape;
  bool transposed = false;
  bool special = false;  // NaN / inf in self
};

// Random targets per row: k class indices (repeats allowed), then -1, then any values in [-1, C).
std::vector<double> random_targets(const std::vector<int64_t> &shape) {
  auto &g = rng();
  const int64_t C = shape.back(), N = numel_of(shape) / std::max<int64_t>(C, 1);
  std::vector<double> t;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t k = static_cast<int64_t>(g() % static_cast<uint64_t>(C + 1));
    for (int64_t j = 0; j < C; ++j) {
      if (j < k) t.push_back(static_cast<double>(g() % static_cast<uint64_t>(C)));
      else if (j == k) t.push_back(-1);
      else t.push_back(static_cast<double>(static_cast<int64_t>(g() % static_cast<uint64_t>(C + 1)) - 1));
    }
  }
  return t;
}

void check_multilabel(const ClossTableCase &c, const MlSample &s) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << s.dt << " target " << s.tdt << " isTarget " << s.it_dt
                                    << " reduction " << s.reduction << " shape " << ::testing::PrintToString(s.shape)
                                    << (s.transposed ? " transposed" : "") << (s.special ? " special" : ""));
  const bool two = s.shape.size() == 2;
  const int64_t C = s.shape.back(), N = two ? s.shape[0] : 1;
  DeviceTensor x = s.transposed && two ? DeviceTensor(s.shape, s.dt, {1, s.shape[0]}, 1) : DeviceTensor(s.shape, s.dt);
  DeviceTensor target(s.shape, s.tdt), is_target(s.shape, s.it_dt);
  const std::vector<int64_t> out_shape = s.reduction == 0 && two ? std::vector<int64_t>{N} : std::vector<int64_t>{};
  DeviceTensor out(out_shape, s.dt);
  x.fill_random(-2, 2);
  if (s.special) {
    auto v = x.values();
    const double sp[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < v.size(); i += 3) v[i] = sp[(i / 3) % 3];
    x.set_values(v);
  }
  target.set_values(random_targets(s.shape));
  out.poison();
  is_target.poison();
  ClossArgs a;
  a.self = x;
  a.target = target;
  a.reduction = s.reduction;
  a.out = out;
  a.is_target = is_target;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto xv = x.values(), tv = target.values();
  std::vector<double> terms, counts;
  for (int64_t n = 0; n < N; ++n) {
    std::vector<double> row(xv.begin() + n * C, xv.begin() + (n + 1) * C), cnt;
    std::vector<int64_t> trow;
    for (int64_t j = 0; j < C; ++j) trow.push_back(static_cast<int64_t>(tv[static_cast<size_t>(n * C + j)]));
    terms.push_back(refs::multilabel_margin_ref(row, trow, &cnt));
    for (double e : cnt) counts.push_back(round_to(s.it_dt, e));
  }
  std::vector<double> want;
  if (s.reduction == 0) {
    for (double t : terms) want.push_back(round_to(s.dt, t));
  } else {
    long double sum = 0;
    for (double t : terms) sum += t;
    want.push_back(round_to(s.dt, static_cast<double>(s.reduction == 1 ? sum / N : sum)));
  }
  EXPECT_TRUE(meets_precision(s.dt, out.values(), want)) << "out";
  EXPECT_TRUE(meets_precision(s.it_dt, is_target.values(), counts)) << "isTarget";
  EXPECT_TRUE(out.untouched_outside_view());
  EXPECT_TRUE(is_target.untouched_outside_view());
}

class OpTableClossMultilabel : public ::testing::TestWithParam<ClossTableCase> {};

TEST_P(OpTableClossMultilabel, EveryDtypeReductionAndShape) {
  reseed_for_current_test();
  const ClossTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (aclDataType tdt : c.targets)
      for (int r = 0; r < 3; ++r, ++v) {
        MlSample s;
        s.dt = dt;
        s.tdt = tdt;
        s.it_dt = v % 2 ? dt : ACL_FLOAT;
        s.reduction = r;
        const int64_t C = 1 + static_cast<int64_t>(g() % 9);
        s.shape = v % 4 == 3 ? std::vector<int64_t>{C} : std::vector<int64_t>{1 + static_cast<int64_t>(g() % 6), C};
        s.transposed = v % 3 == 1;
        check_multilabel(c, s);
      }
}

TEST_P(OpTableClossMultilabel, SpecialValuesLongRowsAndEmptyBatch) {
  reseed_for_current_test();
  const ClossTableCase &c = GetParam();
  for (int r = 0; r < 3; ++r) {
    MlSample s;
    s.reduction = r;
    s.special = true;
    s.shape = {4, 7};
    check_multilabel(c, s);
    s.special = false;
    s.shape = {3, 300};
    check_multilabel(c, s);
    s.shape = {0, 5};  // mean of no samples: NaN
    check_multilabel(c, s);
  }
}

TEST_P(OpTableClossMultilabel, TargetOutOfRangeFailsTheLaunch) {
  const ClossTableCase &c = GetParam();
  for (double bad : {4.0, -2.0}) {
    DeviceTensor x({2, 4}, ACL_FLOAT), target({2, 4}, ACL_INT64), out({}, ACL_FLOAT), is_target({2, 4}, ACL_FLOAT);
    x.fill_random(-1, 1);
    target.set_values({0, 2, -1, 3, 1, -1, bad, 0});  // after the -1, still checked (PyTorch's rule)
    out.poison();
    is_target.poison();
    ClossArgs a;
    a.self = x;
    a.target = target;
    a.reduction = 2;
    a.out = out;
    a.is_target = is_target;
    const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
    EXPECT_EQ(rc, ACLNN_ERR_PARAM_INVALID) << bad;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("target"), std::string::npos) << aclGetRecentErrMsg();
    EXPECT_TRUE(std::isnan(out.values()[0])) << "nothing written";  // still the poison
  }
}

TEST_P(OpTableClossMultilabel, ErrorsNameTheArgument) {
  const ClossTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({2, 4}, ACL_FLOAT), target({2, 4}, ACL_INT64), out({2}, ACL_FLOAT), is_target({2, 4}, ACL_FLOAT);
  x.fill_random(-1, 1);
  target.set_values({0, 2, -1, 3, 1, -1, 0, 0});
  ClossArgs good;
  good.self = x;
  good.target = target;
  good.reduction = 0;
  good.out = out;
  good.is_target = is_target;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ClossArgs a = good;
  for (aclTensor *ClossArgs::*f : {&ClossArgs::self, &ClossArgs::target, &ClossArgs::out, &ClossArgs::is_target}) {
    a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  }
  a = good;
  a.is_target = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "isTarget"}));
  a = good;
  a.reduction = 3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "reduction"}));
  DeviceTensor x3({2, 4, 1}, ACL_FLOAT), t3({2, 4, 1}, ACL_INT64), i3({2, 4, 1}, ACL_FLOAT);
  a = good;
  a.self = x3;
  a.target = t3;
  a.is_target = i3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self"}));
  DeviceTensor t5({2, 5}, ACL_INT64), i5({2, 5}, ACL_FLOAT), o3({3}, ACL_FLOAT), o1({1}, ACL_FLOAT), x0({2, 0}, ACL_FLOAT);
  a = good;
  a.target = t5;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "target"}));
  a = good;
  a.is_target = i5;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "isTarget"}));
  a = good;
  a.out = o3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out"}));
  a = good;
  a.reduction = 1;
  a.out = o3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out"}));
  a.out = o1;
  EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
  ex = nullptr;
  DeviceTensor tf({2, 4}, ACL_FLOAT), xi({2, 4}, ACL_INT32), t16({2, 4}, ACL_INT16);
  a = good;
  a.target = tf;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "target", "dtype"}));
  a.target = t16;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "target", "dtype"}));
  a = good;
  a.self = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "dtype"}));
  DeviceTensor t0({2, 0}, ACL_INT64), i0({2, 0}, ACL_FLOAT);
  a = good;
  a.self = x0;
  a.target = t0;
  a.is_target = i0;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "no classes"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableClossMultilabel, ::testing::ValuesIn(multilabel_cases()),
                         harness::case_name<ClossTableCase>);

}  // namespace
}  // namespace opsnn::test

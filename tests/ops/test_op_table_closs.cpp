// The test harness of the table-driven class-index losses (src/ops/loss/class_losses.ops): every
// op runs the same suites, registered from the table by tools/gen_ops.py --tests
// (closs_table_cases.inc in the build tree):
//   - every accepted dtype and target dtype, the three reductions, with and without class
//     weights, an ignored index (outside the classes, or one of them), label smoothing for
//     cross-entropy, random shapes, contiguous and transposed self, against the float64
//     reference (tests/common/float64_refs.h closs_forward_ref / closs_grad_ref);
//   - empty batches;
//   - a target out of range fails the launch (161002) naming the target;
//   - phase-1 errors with their code and the argument named;
//   - the vocabulary-parallel cross-entropy halves (own suites at the end): every dtype, 2-d and
//     3-d shards, targets inside and outside the shard, strided views, and both halves composed
//     over a split vocabulary against the float64 cross-entropy of the whole rows;
//   - the chamfer distance's gradient (own suite): every dtype and layout against central
//     differences of the float64 loss, indices out of range fail the launch, errors.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
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
  aclTensor *row_max = nullptr, *predicted = nullptr, *sum_exp = nullptr, *exp_out = nullptr, *target_offset = nullptr,
            *target_mask = nullptr, *softmax_out = nullptr, *matmul_input = nullptr, *matmul_weight = nullptr;
  int64_t vocab_start = 0, vocab_end = 0;
  aclTensor *xyz1 = nullptr, *xyz2 = nullptr, *idx1 = nullptr, *idx2 = nullptr, *grad_dist1 = nullptr,
            *grad_dist2 = nullptr, *grad_xyz1 = nullptr, *grad_xyz2 = nullptr;
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

bool own_suite(const ClossTableCase &c) {
  return c.kind == "multilabel_margin" || c.kind == "vocab_sum_exp" || c.kind == "vocab_loss" ||
         c.kind == "chamfer_backward";
}

// The NLL / cross-entropy cases; MultilabelMarginLoss and the vocabulary-parallel halves have
// their own suites below.
const std::vector<ClossTableCase> &all_cases() {
  static const std::vector<ClossTableCase> c = [] {
    std::vector<ClossTableCase> v;
    for (auto &e : harness::sampled(closs_table_cases()))
      if (!own_suite(e)) v.push_back(e);
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

// ---- Vocabulary-parallel cross-entropy: CrossEntropySumExpAndIndexLogit (vocab_sum_exp) and
// FusedCrossEntropyLossWithMaxSum (vocab_loss).

const ClossTableCase &kind_case(const char *kind) {
  static const std::vector<ClossTableCase> all = closs_table_cases();
  for (const auto &c : all)
    if (c.kind == kind) return c;
  throw std::runtime_error(std::string("no ") + kind + " row in class_losses.ops");
}

std::unique_ptr<DeviceTensor> view_of(const std::vector<int64_t> &shape, aclDataType dt, int layout) {
  if (layout == 1) return std::make_unique<DeviceTensor>(shape, dt, reversed_strides(shape), 2);
  if (layout == 2) return padded_view(shape, dt);
  return std::make_unique<DeviceTensor>(shape, dt);
}

struct VocabSample {
  aclDataType dt = ACL_FLOAT;
  std::vector<int64_t> shape;  // logits: [N, V] or [S, B, V]
  int64_t start = 0;
  int layout = 0;  // 0 contiguous, 1 column-major, 2 padded (inputs and outputs)
};

// The float64 reference of the sum-exp half, from the documented formulas.
struct VocabSumExpRef {
  std::vector<double> predicted, sum_exp, exp, offset, mask;
};
VocabSumExpRef vocab_sum_exp_ref(const std::vector<double> &x, const std::vector<double> &target,
                                 const std::vector<double> &max, int64_t V, int64_t start) {
  VocabSumExpRef r;
  for (size_t i = 0; i < target.size(); ++i) {
    const bool outside = target[i] < static_cast<double>(start) || target[i] >= static_cast<double>(start + V);
    const int64_t off = outside ? 0 : static_cast<int64_t>(target[i]) - start;
    long double sum = 0;
    for (int64_t j = 0; j < V; ++j) {
      const double e = std::exp(x[i * static_cast<size_t>(V) + static_cast<size_t>(j)] - max[i]);
      r.exp.push_back(e);
      sum += e;
    }
    r.predicted.push_back(outside ? 0.0 : x[i * static_cast<size_t>(V) + static_cast<size_t>(off)] - max[i]);
    r.sum_exp.push_back(static_cast<double>(sum));
    r.offset.push_back(static_cast<double>(off));
    r.mask.push_back(outside ? 1.0 : 0.0);
  }
  return r;
}

// Runs the sum-exp half on (x, target, max) given as values; returns the outputs as values.
VocabSumExpRef run_vocab_sum_exp(const VocabSample &s, const std::vector<double> &xv, const std::vector<double> &tv,
                                 const std::vector<double> &mv) {
  const ClossTableCase &c = kind_case("vocab_sum_exp");
  const std::vector<int64_t> rows(s.shape.begin(), s.shape.end() - 1);
  const int64_t V = s.shape.back();
  auto x = view_of(s.shape, s.dt, s.layout), t = view_of(rows, ACL_INT32, s.layout), m = view_of(rows, s.dt, s.layout);
  auto pred = view_of(rows, ACL_FLOAT, s.layout), sum = view_of(rows, ACL_FLOAT, s.layout),
       ex = view_of(s.shape, ACL_FLOAT, s.layout), off = view_of(rows, ACL_INT32, s.layout),
       mask = view_of(rows, ACL_INT32, s.layout);
  x->set_values(xv);
  t->set_values(tv);
  m->set_values(mv);
  for (auto *o : {pred.get(), sum.get(), ex.get(), off.get(), mask.get()}) o->poison();
  ClossArgs a;
  a.self = *x;
  a.target = *t;
  a.row_max = *m;
  a.vocab_start = s.start;
  a.vocab_end = s.start + V;
  a.predicted = *pred;
  a.sum_exp = *sum;
  a.exp_out = *ex;
  a.target_offset = *off;
  a.target_mask = *mask;
  VocabSumExpRef got;
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  got.predicted = pred->values();
  got.sum_exp = sum->values();
  got.exp = ex->values();
  got.offset = off->values();
  got.mask = mask->values();
  for (auto *o : {pred.get(), sum.get(), ex.get(), off.get(), mask.get()}) EXPECT_TRUE(o->untouched_outside_view());
  return got;
}

// Random logits (as the dtype stores them), targets around the shard (some outside, some
// negative), and a row max at or above every logit of the row.
void random_vocab_inputs(const VocabSample &s, std::vector<double> *x, std::vector<double> *t, std::vector<double> *m) {
  auto &g = rng();
  const int64_t V = s.shape.back(), n = numel_of(s.shape) / V;
  std::uniform_real_distribution<double> u(-2, 2);
  x->clear();
  t->clear();
  m->clear();
  for (int64_t i = 0; i < n; ++i) {
    double mx = -1e300;
    for (int64_t j = 0; j < V; ++j) {
      x->push_back(round_to(s.dt, u(g)));
      mx = std::max(mx, x->back());
    }
    m->push_back(round_to(s.dt, mx + (i % 3 == 0 ? 0.0 : 0.75)));  // rounding keeps it >= mx
    t->push_back(static_cast<double>(s.start - 3 + static_cast<int64_t>(g() % static_cast<uint64_t>(V + 6))));
  }
}

TEST(OpTableClossVocab, SumExpEveryDtypeShapeAndLayout) {
  reseed_for_current_test();
  const ClossTableCase &c = kind_case("vocab_sum_exp");
  auto &g = rng();
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (int variant = 0; variant < 6; ++variant, ++k) {
      VocabSample s;
      s.dt = dt;
      const int64_t V = variant == 5 ? 3000 : 1 + static_cast<int64_t>(g() % 40);
      s.shape = variant % 2 ? std::vector<int64_t>{1 + static_cast<int64_t>(g() % 4), 1 + static_cast<int64_t>(g() % 5), V}
                            : std::vector<int64_t>{1 + static_cast<int64_t>(g() % 9), V};
      s.start = variant == 0 ? 0 : static_cast<int64_t>(g() % 100);
      s.layout = k % 3;
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " shape " << ::testing::PrintToString(s.shape) << " start "
                                        << s.start << " layout " << s.layout);
      std::vector<double> x, t, m;
      random_vocab_inputs(s, &x, &t, &m);
      const VocabSumExpRef want = vocab_sum_exp_ref(x, t, m, V, s.start);
      const VocabSumExpRef got = run_vocab_sum_exp(s, x, t, m);
      auto f32 = [](std::vector<double> v) {
        for (double &e : v) e = round_to(ACL_FLOAT, e);
        return v;
      };
      EXPECT_TRUE(meets_precision(ACL_FLOAT, got.predicted, f32(want.predicted))) << "predictedLogitsOut";
      EXPECT_TRUE(meets_precision(ACL_FLOAT, got.sum_exp, f32(want.sum_exp))) << "sumExpLogitsOut";
      EXPECT_TRUE(meets_precision(ACL_FLOAT, got.exp, f32(want.exp))) << "expLogitsOut";
      EXPECT_EQ(got.offset, want.offset) << "targetOffsetOut";
      EXPECT_EQ(got.mask, want.mask) << "targetMaskOut";
    }
}

// Runs the loss half; `x` null: no logits and no softmax.
void run_vocab_loss(aclDataType dt, int layout, const std::vector<double> &max, const std::vector<double> &sum,
                    const std::vector<double> &pred, const std::vector<double> *x, int64_t V, std::vector<double> *loss,
                    std::vector<double> *softmax) {
  const ClossTableCase &c = kind_case("vocab_loss");
  const int64_t n = static_cast<int64_t>(max.size());
  auto m = view_of({n}, ACL_FLOAT, layout), s = view_of({n}, ACL_FLOAT, layout), p = view_of({n}, ACL_FLOAT, layout),
       l = view_of({n}, ACL_FLOAT, layout);
  std::unique_ptr<DeviceTensor> xv, sm;
  m->set_values(max);
  s->set_values(sum);
  p->set_values(pred);
  l->poison();
  ClossArgs a;
  a.row_max = *m;
  a.sum_exp = *s;
  a.predicted = *p;
  a.out = *l;
  if (x != nullptr) {
    xv = view_of({n, V}, dt, layout);
    sm = view_of({n, V}, ACL_FLOAT, layout);
    xv->set_values(*x);
    sm->poison();
    a.self = *xv;
    a.softmax_out = *sm;
  }
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  *loss = l->values();
  EXPECT_TRUE(l->untouched_outside_view());
  if (x != nullptr) {
    *softmax = sm->values();
    EXPECT_TRUE(sm->untouched_outside_view());
  }
}

TEST(OpTableClossVocab, LossEveryDtypeWithAndWithoutSoftmax) {
  reseed_for_current_test();
  const ClossTableCase &c = kind_case("vocab_loss");
  auto &g = rng();
  std::uniform_real_distribution<double> u(-2, 2), us(0.5, 50), up(-5, 0);
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (int variant = 0; variant < 4; ++variant, ++k) {
      const int64_t n = 1 + static_cast<int64_t>(g() % 9), V = variant == 3 ? 2500 : 1 + static_cast<int64_t>(g() % 30);
      const int layout = k % 3;
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " rows " << n << " V " << V << " layout " << layout);
      std::vector<double> max, sum, pred, x;
      for (int64_t i = 0; i < n; ++i) {
        max.push_back(round_to(ACL_FLOAT, u(g)));
        sum.push_back(round_to(ACL_FLOAT, us(g)));
        pred.push_back(round_to(ACL_FLOAT, up(g)));
        for (int64_t j = 0; j < V; ++j) x.push_back(round_to(dt, u(g)));
      }
      const bool with_logits = variant != 1;
      std::vector<double> loss, softmax, want_loss, want_softmax;
      run_vocab_loss(dt, layout, max, sum, pred, with_logits ? &x : nullptr, V, &loss, &softmax);
      for (int64_t i = 0; i < n; ++i) {
        want_loss.push_back(round_to(ACL_FLOAT, std::log(sum[static_cast<size_t>(i)]) - pred[static_cast<size_t>(i)]));
        for (int64_t j = 0; j < V; ++j)
          want_softmax.push_back(round_to(
              ACL_FLOAT, std::exp(x[static_cast<size_t>(i * V + j)] - max[static_cast<size_t>(i)]) / sum[static_cast<size_t>(i)]));
      }
      EXPECT_TRUE(meets_precision(ACL_FLOAT, loss, want_loss)) << "lossOut";
      if (with_logits) EXPECT_TRUE(meets_precision(ACL_FLOAT, softmax, want_softmax)) << "softMaxOutOptional";
    }
}

// Both halves over a vocabulary split in shards, the all-reduces done here: the per-row loss is
// the float64 cross-entropy of the whole rows (logsumexp(x) - x[target]) and the softmax pieces
// are the whole rows' softmax.
TEST(OpTableClossVocab, HalvesComposeToCrossEntropyOverTheWholeVocabulary) {
  reseed_for_current_test();
  auto &g = rng();
  const int64_t n = 6, shards = 3, V = 17, total = shards * V;
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<double> logits, targets;
  for (int64_t i = 0; i < n * total; ++i) logits.push_back(round_to(ACL_FLOAT, u(g)));
  for (int64_t i = 0; i < n; ++i) targets.push_back(static_cast<double>(g() % static_cast<uint64_t>(total)));
  std::vector<double> gmax(static_cast<size_t>(n), -1e300);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < total; ++j)
      gmax[static_cast<size_t>(i)] = std::max(gmax[static_cast<size_t>(i)], logits[static_cast<size_t>(i * total + j)]);
  std::vector<double> sum(static_cast<size_t>(n), 0.0), pred(static_cast<size_t>(n), 0.0);
  std::vector<std::vector<double>> shard_x(static_cast<size_t>(shards));
  for (int64_t r = 0; r < shards; ++r) {
    VocabSample s;
    s.shape = {n, V};
    s.start = r * V;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < V; ++j) shard_x[static_cast<size_t>(r)].push_back(logits[static_cast<size_t>(i * total + r * V + j)]);
    const VocabSumExpRef got = run_vocab_sum_exp(s, shard_x[static_cast<size_t>(r)], targets, gmax);
    for (int64_t i = 0; i < n; ++i) {  // all_reduce(SUM)
      sum[static_cast<size_t>(i)] += got.sum_exp[static_cast<size_t>(i)];
      pred[static_cast<size_t>(i)] += got.predicted[static_cast<size_t>(i)];
    }
  }
  std::vector<double> want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    long double se = 0;
    for (int64_t j = 0; j < total; ++j) se += std::exp(logits[static_cast<size_t>(i * total + j)] - gmax[static_cast<size_t>(i)]);
    want[static_cast<size_t>(i)] = round_to(
        ACL_FLOAT, static_cast<double>(logl(se) + gmax[static_cast<size_t>(i)] -
                                       logits[static_cast<size_t>(i * total) + static_cast<size_t>(targets[static_cast<size_t>(i)])]));
  }
  for (int64_t r = 0; r < shards; ++r) {
    std::vector<double> loss, softmax;
    run_vocab_loss(ACL_FLOAT, 0, gmax, sum, pred, &shard_x[static_cast<size_t>(r)], V, &loss, &softmax);
    EXPECT_TRUE(meets_precision(ACL_FLOAT, loss, want)) << "shard " << r;
    std::vector<double> want_sm;
    for (int64_t i = 0; i < n; ++i) {
      long double se = 0;
      for (int64_t j = 0; j < total; ++j) se += std::exp(logits[static_cast<size_t>(i * total + j)]);
      for (int64_t j = 0; j < V; ++j)
        want_sm.push_back(round_to(ACL_FLOAT, static_cast<double>(std::exp(logits[static_cast<size_t>(i * total + r * V + j)]) / se)));
    }
    EXPECT_TRUE(meets_precision(ACL_FLOAT, softmax, want_sm)) << "softmax of shard " << r;
  }
}

TEST(OpTableClossVocab, SumExpErrorsNameTheArgument) {
  const ClossTableCase &c = kind_case("vocab_sum_exp");
  const char *api = c.api.c_str();
  DeviceTensor x({3, 8}, ACL_FLOAT), t({3}, ACL_INT32), m({3}, ACL_FLOAT), pred({3}, ACL_FLOAT), sum({3}, ACL_FLOAT),
      ex({3, 8}, ACL_FLOAT), off({3}, ACL_INT32), mask({3}, ACL_INT32);
  x.fill_random(-1, 1);
  t.set_values({0, 4, 9});
  m.set_values({1, 1, 1});
  ClossArgs good;
  good.self = x;
  good.target = t;
  good.row_max = m;
  good.vocab_start = 2;
  good.vocab_end = 10;
  good.predicted = pred;
  good.sum_exp = sum;
  good.exp_out = ex;
  good.target_offset = off;
  good.target_mask = mask;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex_ = nullptr;
  const std::pair<aclTensor *ClossArgs::*, const char *> fields[] = {
      {&ClossArgs::self, "vocabParallelLogits"}, {&ClossArgs::target, "target"},
      {&ClossArgs::row_max, "globalLogitsMax"},  {&ClossArgs::predicted, "predictedLogitsOut"},
      {&ClossArgs::sum_exp, "sumExpLogitsOut"},  {&ClossArgs::exp_out, "expLogitsOut"},
      {&ClossArgs::target_offset, "targetOffsetOut"}, {&ClossArgs::target_mask, "targetMaskOut"}};
  DeviceTensor wrong_rows({4}, ACL_FLOAT), wrong_rows_i({4}, ACL_INT32), wrong_x({3, 9}, ACL_FLOAT), f16({3}, ACL_FLOAT16);
  for (const auto &[f, name] : fields) {
    SCOPED_TRACE(name);
    ClossArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_NULLPTR, {api, name}));
    if (f == &ClossArgs::self) continue;
    a = good;
    const bool ints = f == &ClossArgs::target || f == &ClossArgs::target_offset || f == &ClossArgs::target_mask;
    a.*f = f == &ClossArgs::exp_out ? wrong_x.get() : ints ? wrong_rows_i.get() : wrong_rows.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_INVALID, {api, name}));
    if (f == &ClossArgs::exp_out) continue;
    a = good;
    a.*f = f16;  // FLOAT16 is none of their dtypes
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"}));
  }
  DeviceTensor x1({8}, ACL_FLOAT), x4({1, 1, 3, 8}, ACL_FLOAT), mb({3}, ACL_BF16);
  ClossArgs a = good;
  a.self = x1;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_INVALID, {api, "vocabParallelLogits"}));
  a.self = x4;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_INVALID, {api, "vocabParallelLogits"}));
  a = good;
  a.row_max = mb;  // not the logits' dtype
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_INVALID, {api, "globalLogitsMax", "dtype"}));
  for (auto range : {std::pair<int64_t, int64_t>{-1, 7}, {5, 5}, {6, 2}, {2, 11}}) {
    a = good;
    a.vocab_start = range.first;
    a.vocab_end = range.second;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex_), ACLNN_ERR_PARAM_INVALID, {api, "vocab"}))
        << range.first << ", " << range.second;
  }
}

TEST(OpTableClossVocab, LossErrorsNameTheArgument) {
  const ClossTableCase &c = kind_case("vocab_loss");
  const char *api = c.api.c_str();
  DeviceTensor m({3}, ACL_FLOAT), s({3}, ACL_FLOAT), p({3}, ACL_FLOAT), l({3}, ACL_FLOAT), x({3, 5}, ACL_BF16),
      sm({3, 5}, ACL_FLOAT), unused({2}, ACL_FLOAT);
  m.fill_random(0, 1);
  s.fill_random(1, 2);
  p.fill_random(-1, 0);
  x.fill_random(-1, 1);
  ClossArgs good;
  good.row_max = m;
  good.sum_exp = s;
  good.predicted = p;
  good.out = l;
  good.self = x;
  good.softmax_out = sm;
  good.matmul_input = unused;  // accepted, never read
  good.matmul_weight = unused;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const std::pair<aclTensor *ClossArgs::*, const char *> fields[] = {{&ClossArgs::row_max, "logitsMax"},
                                                                     {&ClossArgs::sum_exp, "sumExpLogits"},
                                                                     {&ClossArgs::predicted, "predictedLogits"},
                                                                     {&ClossArgs::out, "lossOut"}};
  DeviceTensor four({4}, ACL_FLOAT), f16({3}, ACL_FLOAT16);
  for (const auto &[f, name] : fields) {
    SCOPED_TRACE(name);
    ClossArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name}));
    a.*f = f16;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"}));
    if (f == &ClossArgs::row_max) continue;  // its length sets the others'
    a.*f = four;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name}));
  }
  ClossArgs a = good;
  a.smoothing = 0.1;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "labelSmoothing"}));
  a = good;
  a.self = nullptr;  // a softmax needs the logits
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "softMaxOutOptional"}));
  DeviceTensor x4({4, 5}, ACL_FLOAT), sm6({3, 6}, ACL_FLOAT), m2({3, 1}, ACL_FLOAT), xi({3, 5}, ACL_INT32);
  a = good;
  a.self = x4;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "vocabParallelLogitsOptional"}));
  a.self = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "vocabParallelLogitsOptional", "dtype"}));
  a = good;
  a.softmax_out = sm6;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "softMaxOutOptional"}));
  a = good;
  a.row_max = m2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "logitsMax"}));
  a = good;  // the loss alone
  a.self = nullptr;
  a.softmax_out = nullptr;
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
}

// ---- ChamferDistanceBackward: xyz1 [B, N, 2], xyz2 [B, M, 2], idx1 [B, N], idx2 [B, M].

struct ChamferData {
  int64_t B = 0, N = 0, M = 0;
  std::vector<double> xyz1, xyz2, idx1, idx2, g1, g2;
};

// L = sum g1 |xyz1[i] - xyz2[idx1[i]]|^2 + sum g2 |xyz2[j] - xyz1[idx2[j]]|^2, the chamfer
// distances weighted by their gradients, in float64.
double chamfer_weighted_loss(const ChamferData &d, const std::vector<double> &x1, const std::vector<double> &x2) {
  long double L = 0;
  auto sq = [](const std::vector<double> &a, size_t i, const std::vector<double> &b, size_t k) {
    const long double dx = a[2 * i] - b[2 * k], dy = a[2 * i + 1] - b[2 * k + 1];
    return dx * dx + dy * dy;
  };
  for (int64_t b = 0; b < d.B; ++b) {
    for (int64_t i = 0; i < d.N; ++i) {
      const size_t p = static_cast<size_t>(b * d.N + i);
      L += d.g1[p] * sq(x1, p, x2, static_cast<size_t>(b * d.M + static_cast<int64_t>(d.idx1[p])));
    }
    for (int64_t j = 0; j < d.M; ++j) {
      const size_t p = static_cast<size_t>(b * d.M + j);
      L += d.g2[p] * sq(x2, p, x1, static_cast<size_t>(b * d.N + static_cast<int64_t>(d.idx2[p])));
    }
  }
  return static_cast<double>(L);
}

// The gradients by central differences of that loss: exact up to rounding, as it is quadratic in
// every coordinate (an independent route to the analytic gradient the op computes).
void chamfer_grad_ref(const ChamferData &d, std::vector<double> *gx1, std::vector<double> *gx2) {
  const double h = 0.25;  // a power of two: x +- h is exact
  std::vector<double> x1 = d.xyz1, x2 = d.xyz2;
  for (int set = 0; set < 2; ++set) {
    std::vector<double> &x = set == 0 ? x1 : x2;
    std::vector<double> &g = set == 0 ? *gx1 : *gx2;
    g.assign(x.size(), 0.0);
    for (size_t k = 0; k < x.size(); ++k) {
      const double v = x[k];
      x[k] = v + h;
      const double up = chamfer_weighted_loss(d, x1, x2);
      x[k] = v - h;
      const double down = chamfer_weighted_loss(d, x1, x2);
      x[k] = v;
      g[k] = (up - down) / (2 * h);
    }
  }
}

// Random points and gradients; idx1 / idx2 the true nearest points (ties to the lowest index) or,
// with `random_idx`, any valid index.
ChamferData random_chamfer(int64_t B, int64_t N, int64_t M, aclDataType dt, bool random_idx) {
  auto &g = rng();
  std::uniform_real_distribution<double> u(-1, 1);
  ChamferData d;
  d.B = B;
  d.N = N;
  d.M = M;
  for (int64_t i = 0; i < B * N * 2; ++i) d.xyz1.push_back(round_to(dt, u(g)));
  for (int64_t i = 0; i < B * M * 2; ++i) d.xyz2.push_back(round_to(dt, u(g)));
  for (int64_t i = 0; i < B * N; ++i) d.g1.push_back(round_to(dt, u(g)));
  for (int64_t i = 0; i < B * M; ++i) d.g2.push_back(round_to(dt, u(g)));
  auto nearest = [&](const std::vector<double> &from, int64_t fb, const std::vector<double> &to, int64_t P) {
    int64_t best = 0;
    double bd = 1e300;
    for (int64_t k = 0; k < P; ++k) {
      const double dx = from[static_cast<size_t>(2 * fb)] - to[static_cast<size_t>(2 * k)],
                   dy = from[static_cast<size_t>(2 * fb + 1)] - to[static_cast<size_t>(2 * k + 1)];
      if (dx * dx + dy * dy < bd) bd = dx * dx + dy * dy, best = k;
    }
    return best;
  };
  for (int64_t b = 0; b < B; ++b) {
    const std::vector<double> p1(d.xyz1.begin() + b * N * 2, d.xyz1.begin() + (b + 1) * N * 2),
        p2(d.xyz2.begin() + b * M * 2, d.xyz2.begin() + (b + 1) * M * 2);
    for (int64_t i = 0; i < N; ++i)
      d.idx1.push_back(static_cast<double>(random_idx ? static_cast<int64_t>(g() % static_cast<uint64_t>(M))
                                                      : nearest(p1, i, p2, M)));
    for (int64_t j = 0; j < M; ++j)
      d.idx2.push_back(static_cast<double>(random_idx ? static_cast<int64_t>(g() % static_cast<uint64_t>(N))
                                                      : nearest(p2, j, p1, N)));
  }
  return d;
}

struct ChamferTensors {
  std::unique_ptr<DeviceTensor> t[8];  // xyz1, xyz2, idx1, idx2, gradDist1, gradDist2, gradXyz1, gradXyz2
  ClossArgs args() const {
    ClossArgs a;
    aclTensor **f[8] = {&a.xyz1, &a.xyz2, &a.idx1, &a.idx2, &a.grad_dist1, &a.grad_dist2, &a.grad_xyz1, &a.grad_xyz2};
    for (int k = 0; k < 8; ++k) *f[k] = t[k]->get();
    return a;
  }
};

ChamferTensors chamfer_tensors(const ChamferData &d, aclDataType dt, int layout) {
  ChamferTensors ts;
  const std::vector<int64_t> shapes[8] = {{d.B, d.N, 2}, {d.B, d.M, 2}, {d.B, d.N}, {d.B, d.M},
                                          {d.B, d.N},    {d.B, d.M},    {d.B, d.N, 2}, {d.B, d.M, 2}};
  const std::vector<double> *values[6] = {&d.xyz1, &d.xyz2, &d.idx1, &d.idx2, &d.g1, &d.g2};
  for (int k = 0; k < 8; ++k) {
    ts.t[k] = view_of(shapes[k], k == 2 || k == 3 ? ACL_INT32 : dt, layout);
    if (k < 6) ts.t[k]->set_values(*values[k]);
    else ts.t[k]->poison();
  }
  return ts;
}

TEST(OpTableClossChamfer, EveryDtypeAndLayoutAgainstCentralDifferences) {
  reseed_for_current_test();
  const ClossTableCase &c = kind_case("chamfer_backward");
  auto &g = rng();
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (int variant = 0; variant < 6; ++variant, ++k) {
      const int64_t B = 1 + static_cast<int64_t>(g() % 3), N = variant == 5 ? 300 : 1 + static_cast<int64_t>(g() % 12),
                    M = variant == 5 ? 257 : 1 + static_cast<int64_t>(g() % 12);
      const int layout = k % 3;
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " B " << B << " N " << N << " M " << M << " layout "
                                        << layout << (variant % 2 ? " random indices" : " nearest indices"));
      const ChamferData d = random_chamfer(B, N, M, dt, variant % 2 == 1);
      ChamferTensors ts = chamfer_tensors(d, dt, layout);
      const ClossArgs a = ts.args();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
          << aclGetRecentErrMsg();
      std::vector<double> gx1, gx2;
      chamfer_grad_ref(d, &gx1, &gx2);
      for (double &v : gx1) v = round_to(dt, v);
      for (double &v : gx2) v = round_to(dt, v);
      EXPECT_TRUE(meets_precision(dt, ts.t[6]->values(), gx1)) << "gradXyz1";
      EXPECT_TRUE(meets_precision(dt, ts.t[7]->values(), gx2)) << "gradXyz2";
      EXPECT_TRUE(ts.t[6]->untouched_outside_view());
      EXPECT_TRUE(ts.t[7]->untouched_outside_view());
    }
}

TEST(OpTableClossChamfer, IndexOutOfRangeFailsTheLaunch) {
  const ClossTableCase &c = kind_case("chamfer_backward");
  for (int which = 0; which < 4; ++which) {
    ChamferData d = random_chamfer(2, 3, 4, ACL_FLOAT, true);
    const char *name = which < 2 ? "idx1" : "idx2";
    std::vector<double> &idx = which < 2 ? d.idx1 : d.idx2;
    idx[idx.size() - 1] = which == 0 ? 4 : which == 2 ? 3 : -1;  // one past the other set, or negative
    ChamferTensors ts = chamfer_tensors(d, ACL_FLOAT, 0);
    const ClossArgs a = ts.args();
    SCOPED_TRACE(name);
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(name), std::string::npos) << aclGetRecentErrMsg();
    for (int k : {6, 7})
      for (double v : ts.t[k]->values()) EXPECT_TRUE(std::isnan(v)) << "nothing written";
  }
}

TEST(OpTableClossChamfer, ErrorsNameTheArgument) {
  const ClossTableCase &c = kind_case("chamfer_backward");
  const char *api = c.api.c_str();
  const ChamferData d = random_chamfer(2, 3, 4, ACL_FLOAT, false);
  ChamferTensors ts = chamfer_tensors(d, ACL_FLOAT, 0);
  const ClossArgs good = ts.args();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclTensor *ClossArgs::*fields[8] = {&ClossArgs::xyz1,       &ClossArgs::xyz2,       &ClossArgs::idx1,
                                      &ClossArgs::idx2,       &ClossArgs::grad_dist1, &ClossArgs::grad_dist2,
                                      &ClossArgs::grad_xyz1,  &ClossArgs::grad_xyz2};
  const char *names[8] = {"xyz1", "xyz2", "idx1", "idx2", "gradDist1", "gradDist2", "gradXyz1", "gradXyz2"};
  for (int k = 0; k < 8; ++k) {
    SCOPED_TRACE(names[k]);
    ClossArgs a = good;
    a.*fields[k] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, names[k]}));
    const bool index = k == 2 || k == 3;
    DeviceTensor wrong_dtype(ts.t[k]->shape(), index ? ACL_INT64 : ACL_FLOAT16);  // FLOAT16 is not xyz1's FLOAT
    a.*fields[k] = wrong_dtype;
    if (k != 0) EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, names[k], "dtype"}));
    auto sh = ts.t[k]->shape();
    sh[1] += 1;  // one point more than its set has
    DeviceTensor wrong_shape(sh, index ? ACL_INT32 : ACL_FLOAT);
    a.*fields[k] = wrong_shape;
    if (k > 1) EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, names[k]}));
  }
  DeviceTensor three_d({2, 3, 3}, ACL_FLOAT), batch({3, 4, 2}, ACL_FLOAT), xi({2, 3, 2}, ACL_INT32);
  ClossArgs a = good;
  a.xyz1 = three_d;  // 3-d points
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "xyz1"}));
  a = good;
  a.xyz2 = batch;  // another batch size
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "xyz2"}));
  a = good;
  a.xyz1 = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "xyz1", "dtype"}));
}

}  // namespace
}  // namespace opsnn::test

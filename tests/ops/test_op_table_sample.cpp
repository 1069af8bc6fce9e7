// The test harness of the sampling table (src/ops/layout/sampling.ops), cases registered from the table by
// tools/gen_ops.py --tests (sample_table_cases.inc). Every op runs against the float64 reference written
// here from the definitions in src/ops/layout/sample_phase1.h (a full stable sort of each row, the filters
// applied literally; the op itself selects a prefix with a heap and grows it):
//   - every accepted dtype, random shapes (vocabularies up to 4000 so the heap path and the top-p prefix
//     growth run), ties, every scenario (top-k / top-p / min-p each on, off, out of range, q given or
//     not, each output flag), contiguous and strided inputs, padded outputs (nothing written outside
//     them, nothing at all in an output a flag leaves unwritten); indices exactly, FLOAT outputs to
//     precision.md's FLOAT rule;
//   - NaN / +inf / all -inf rows (the first of the order selected);
//   - the errors: each argument named (null, dtype, shape, attribute ranges).
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "error_cases.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct SampleArgs {
  aclTensor *logits = nullptr, *top_k = nullptr, *top_p = nullptr, *q = nullptr, *min_ps = nullptr;
  double eps = 1e-8;
  bool need_logits = false;
  int64_t guess = 32, ks_max = 1024;
  bool input_is_logits = true, need_sample_result = false;
  aclTensor *select_idx = nullptr, *select_logits = nullptr, *logits_idx = nullptr, *sort_masked = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct SampleTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  bool v2 = false;
  int (*phase1)(const SampleArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const SampleTableCase &c, std::ostream *os) { *os << c.name; }

#include "sample_table_cases.inc"

const std::vector<SampleTableCase> &all_cases() {
  static const std::vector<SampleTableCase> c = harness::sampled(sample_table_cases());
  return c;
}

int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }
double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng()); }

// One row's expected results.
struct RowRef {
  int64_t select = 0;
  std::vector<double> select_logits, sort_masked;
  std::vector<int64_t> idx;
};

struct RowParams {
  int64_t k = 0, cap = 1024;
  double p = 1, min_p = 0, eps = 1e-8;
  bool v2 = false, input_is_logits = true;
};

// The definitions, literally: a full stable descending sort, the candidates, their probabilities, the
// top-p / min-p cuts, the q-sample.
RowRef sample_ref(const std::vector<double> &x, const RowParams &rp, const std::vector<double> *q) {
  const auto v = static_cast<int64_t>(x.size());
  std::vector<int64_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x[a] > x[b]; });
  const bool top_k = rp.k >= 1 && rp.k <= std::min(v, rp.cap);
  const int64_t cand = top_k ? rp.k : v;
  std::vector<double> prob(static_cast<size_t>(cand));
  const double m = x[order[0]];
  double s = 0;  // summed in the order the op sums (candidates in order; the whole row by index)
  if (top_k)
    for (int64_t j = 0; j < cand; ++j) s += std::exp(x[order[j]] - m);
  else
    for (int64_t i = 0; i < v; ++i) s += std::exp(x[i] - m);
  for (int64_t j = 0; j < cand; ++j) prob[j] = rp.input_is_logits ? std::exp(x[order[j]] - m) / s : x[order[j]];
  int64_t kept = cand;
  if (rp.p < 1) {
    if (rp.p <= 0) {
      kept = 1;
    } else {
      double mass = 0;
      int64_t j = 0;
      while (j < cand && (j == 0 || mass < rp.p)) mass += prob[j++];
      kept = j;
    }
  }
  if (rp.min_p > 0) {
    if (rp.min_p >= 1) {
      kept = 1;
    } else {
      const double thr = prob[0] * rp.min_p;
      int64_t j = 1;
      while (j < kept && prob[j] >= thr) ++j;
      kept = j;
    }
  }
  RowRef r;
  int64_t best = 0;
  if (q != nullptr) {
    double norm = 0;
    for (int64_t j = 0; j < kept; ++j) norm += prob[j];
    if (rp.v2) norm = 1;
    double top = 0;
    for (int64_t j = 0; j < kept; ++j) {
      const double score = prob[j] / norm / ((*q)[j] + rp.eps);
      if (j == 0 || score > top) {
        top = score;
        best = j;
      }
    }
  }
  r.select = order[best];
  r.select_logits.assign(x.size(), rp.input_is_logits ? -INFINITY : 0.0);
  std::vector<bool> is_kept(x.size());
  for (int64_t j = 0; j < kept; ++j) {
    r.select_logits[order[j]] = static_cast<float>(x[order[j]]);
    is_kept[order[j]] = true;
    r.idx.push_back(order[j]);
    r.sort_masked.push_back(prob[j]);
  }
  for (int64_t i = 0; i < v; ++i)
    if (!is_kept[i]) {
      r.idx.push_back(i);
      r.sort_masked.push_back(0);
    }
  return r;
}

using Dev = std::unique_ptr<DeviceTensor>;

Dev input(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  return strided ? transposed_view(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
}
Dev output(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  Dev t = strided ? padded_view(shape, dt, 5) : std::make_unique<DeviceTensor>(shape, dt);
  t->poison();
  return t;
}

// A per-row value: inside the enabled range, or one that turns the filter off / to "largest only".
double pick_k(int64_t v, int64_t cap) {
  switch (uniform(0, 5)) {
    case 0: return 0;
    case 1: return -3;
    case 2: return static_cast<double>(std::min(v, cap) + uniform(1, 5));  // past the range: skipped
    default: return static_cast<double>(uniform(1, std::min<int64_t>({v, cap, 64})));
  }
}
double pick_fraction() {
  switch (uniform(0, 6)) {
    case 0: return 0;
    case 1: return -0.25;
    case 2: return 1;
    case 3: return 1.5;
    default: return real(0.02, 0.98);
  }
}

struct Problem {
  int64_t rows = 0, v = 0;
  aclDataType dt = ACL_FLOAT16;
  Dev logits, top_k, top_p, q, min_ps, select_idx, select_logits, logits_idx, sort_masked;
  SampleArgs a;
  std::vector<RowRef> golden;
};

Problem make_problem(const SampleTableCase &c, aclDataType dt, bool strided) {
  Problem p;
  p.dt = dt;
  p.rows = uniform(1, 4);
  p.v = uniform(0, 3) == 0 ? uniform(500, 4000) : uniform(1, 40);
  SampleArgs &a = p.a;
  a.eps = uniform(0, 1) ? 1e-8 : 0.5;
  a.guess = uniform(1, 8);
  a.need_logits = uniform(0, 1) == 1;
  if (c.v2) {
    a.ks_max = uniform(0, 2) == 0 ? uniform(1, 20) : 1024;
    a.input_is_logits = uniform(0, 3) != 0;
    a.need_sample_result = uniform(0, 2) == 0;
  }
  const int64_t cap = c.v2 ? std::min<int64_t>((a.ks_max + 7) / 8 * 8, 1024) : 1024;
  p.logits = input({p.rows, p.v}, dt, strided);
  if (a.input_is_logits) p.logits->fill_random(-4, 4);
  else p.logits->fill_random(0, uniform(0, 1) ? 1.0 : 0.02);  // small values: the top-p prefix grows from the guess
  if (uniform(0, 3) == 0) {  // ties
    std::vector<double> w = p.logits->values();
    for (double &x : w) x = std::round(x * 2) / 2;
    p.logits->set_values(w);
  }
  std::vector<double> kv, pv, mv;
  for (int64_t r = 0; r < p.rows; ++r) {
    kv.push_back(pick_k(p.v, cap));
    pv.push_back(pick_fraction());
    mv.push_back(pick_fraction());
  }
  p.top_k = input({p.rows}, ACL_INT32, strided);
  p.top_k->set_values(kv);
  p.top_p = input({p.rows}, dt, strided);
  p.top_p->set_values(pv);
  pv = p.top_p->values();  // as stored
  const bool with_min_p = c.v2 && uniform(0, 2) != 0;
  if (with_min_p) {
    p.min_ps = input({p.rows}, dt, strided);
    p.min_ps->set_values(mv);
    mv = p.min_ps->values();
  }
  const bool with_q = !a.need_sample_result && uniform(0, 2) != 0;
  if (with_q) {
    p.q = input({p.rows, p.v}, ACL_FLOAT, strided);
    p.q->fill_random(0.01, 5);
  }
  // Every output exists (the unwritten ones must stay untouched).
  p.select_idx = output({p.rows}, ACL_INT64, strided);
  p.select_logits = output({p.rows, p.v}, ACL_FLOAT, strided);
  if (c.v2) {
    p.logits_idx = output({p.rows, p.v}, ACL_INT64, strided);
    p.sort_masked = output({p.rows, p.v}, ACL_FLOAT, strided);
  }
  const std::vector<double> x = p.logits->values(), qv = with_q ? p.q->values() : std::vector<double>{};
  for (int64_t r = 0; r < p.rows; ++r) {
    RowParams rp;
    rp.k = static_cast<int64_t>(kv[r]);
    rp.cap = cap;
    rp.p = pv[r];
    rp.min_p = with_min_p ? mv[r] : 0;
    rp.eps = a.eps;
    rp.v2 = c.v2;
    rp.input_is_logits = a.input_is_logits;
    const std::vector<double> row(x.begin() + r * p.v, x.begin() + (r + 1) * p.v);
    const std::vector<double> qr = with_q ? std::vector<double>(qv.begin() + r * p.v, qv.begin() + (r + 1) * p.v)
                                          : std::vector<double>{};
    p.golden.push_back(sample_ref(row, rp, with_q ? &qr : nullptr));
  }
  a.logits = *p.logits;
  a.top_k = *p.top_k;
  a.top_p = *p.top_p;
  a.q = p.q ? p.q->get() : nullptr;
  a.min_ps = p.min_ps ? p.min_ps->get() : nullptr;
  a.select_idx = *p.select_idx;
  a.select_logits = *p.select_logits;
  a.logits_idx = p.logits_idx ? p.logits_idx->get() : nullptr;
  a.sort_masked = p.sort_masked ? p.sort_masked->get() : nullptr;
  return p;
}

int run(const SampleTableCase &c, const SampleArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// The whole view still poisoned (NaN / 0xFF...: every element compares unequal or equals the pattern).
::testing::AssertionResult never_written(const DeviceTensor &t) {
  if (!t.untouched_outside_view()) return ::testing::AssertionFailure() << "written outside its view";
  DeviceTensor fresh(t.shape(), t.dtype());
  fresh.poison();
  const std::vector<double> a = t.values(), b = fresh.values();
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
      return ::testing::AssertionFailure() << "element " << i << " written";
  return ::testing::AssertionSuccess();
}

void check(const SampleTableCase &c, Problem &p) {
  ASSERT_EQ(run(c, p.a), 0) << aclGetRecentErrMsg();
  std::vector<double> sel, logits, idx, sorted;
  for (const RowRef &r : p.golden) {
    sel.push_back(static_cast<double>(r.select));
    logits.insert(logits.end(), r.select_logits.begin(), r.select_logits.end());
    idx.insert(idx.end(), r.idx.begin(), r.idx.end());
    sorted.insert(sorted.end(), r.sort_masked.begin(), r.sort_masked.end());
  }
  if (p.a.need_sample_result) {
    EXPECT_TRUE(never_written(*p.select_idx));
    EXPECT_EQ(p.logits_idx->values(), idx) << "logitsIdx";
    EXPECT_TRUE(meets_precision(ACL_FLOAT, p.sort_masked->values(), sorted)) << "logitsSortMasked";
    EXPECT_TRUE(p.logits_idx->untouched_outside_view());
    EXPECT_TRUE(p.sort_masked->untouched_outside_view());
  } else {
    EXPECT_EQ(p.select_idx->values(), sel) << "logitsSelectIdx";
    EXPECT_TRUE(p.select_idx->untouched_outside_view());
    if (p.logits_idx) {
      EXPECT_TRUE(never_written(*p.logits_idx));
      EXPECT_TRUE(never_written(*p.sort_masked));
    }
  }
  if (p.a.need_logits) {
    EXPECT_EQ(p.select_logits->values(), logits) << "logitsTopKPSelect";
    EXPECT_TRUE(p.select_logits->untouched_outside_view());
  } else {
    EXPECT_TRUE(never_written(*p.select_logits));
  }
}

class OpTableSample : public ::testing::TestWithParam<SampleTableCase> {};

TEST_P(OpTableSample, EveryScenarioEveryDtype) {
  reseed_for_current_test();
  const SampleTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int trial = 0; trial < 40; ++trial) {
      Problem p = make_problem(c, dt, trial % 3 == 2);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " trial " << trial << " shape [" << p.rows
                                        << ", " << p.v << "]");
      check(c, p);
    }
}

// A large vocabulary: top-k 50 / top-p 0.9, top-p alone (the binned bound), min-p alone (counted over the
// row), nothing (the whole row sorted), V2's raw probabilities with top-p (the prefix grows from the guess
// through the heap to the radix sort), each with q.
TEST_P(OpTableSample, LargeVocabulary) {
  reseed_for_current_test();
  const SampleTableCase &c = GetParam();
  const int64_t rows = 2, v = 20000;
  struct Setting {
    double k, p, min_p;
    bool raw = false;  // V2's inputIsLogits false: small probabilities, so the top-p prefix grows from the guess
  };
  for (const Setting &s : {Setting{50, 0.9, 0}, Setting{0, 0.6, 0}, Setting{0, 1, 0.3}, Setting{0, 1, 0},
                           Setting{0, 0.5, 0, true}}) {
    if (!c.v2 && (s.min_p != 0 || s.raw)) continue;
    Problem p;
    p.rows = rows;
    p.v = v;
    p.logits = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows, v}, c.dtypes.front());
    p.logits->fill_random(s.raw ? 0 : -2, s.raw ? 0.001 : 9);
    p.top_k = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows}, ACL_INT32);
    p.top_k->set_values({s.k, s.k});
    p.top_p = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows}, c.dtypes.front());
    p.top_p->set_values({s.p, s.p});
    p.q = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows, v}, ACL_FLOAT);
    p.q->fill_random(0.01, 5);
    p.select_idx = output({rows}, ACL_INT64, false);
    p.select_logits = output({rows, v}, ACL_FLOAT, false);
    p.a.logits = *p.logits;
    p.a.top_k = *p.top_k;
    p.a.top_p = *p.top_p;
    p.a.q = *p.q;
    p.a.guess = 4;
    p.a.input_is_logits = !s.raw;
    p.a.need_logits = true;
    p.a.select_idx = *p.select_idx;
    p.a.select_logits = *p.select_logits;
    if (c.v2) {
      p.min_ps = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows}, c.dtypes.front());
      p.min_ps->set_values({s.min_p, s.min_p});
      p.a.min_ps = *p.min_ps;
    }
    const std::vector<double> x = p.logits->values(), qv = p.q->values(), pv = p.top_p->values();
    const std::vector<double> mv = p.min_ps ? p.min_ps->values() : std::vector<double>{0, 0};
    for (int64_t r = 0; r < rows; ++r) {
      RowParams rp;
      rp.k = static_cast<int64_t>(s.k);
      rp.p = pv[r];
      rp.min_p = mv[r];
      rp.v2 = c.v2;
      rp.input_is_logits = !s.raw;
      const std::vector<double> row(x.begin() + r * v, x.begin() + (r + 1) * v), qr(qv.begin() + r * v, qv.begin() + (r + 1) * v);
      p.golden.push_back(sample_ref(row, rp, &qr));
    }
    SCOPED_TRACE(::testing::Message() << "k " << s.k << " p " << s.p << " min-p " << s.min_p);
    check(c, p);
  }
}

// NaN, +inf and all -inf rows: the softmax is undefined (NaN probabilities), so every cut keeps the first
// token of the order - the first NaN, else the first +inf, else index 0 - and that one is selected.
TEST_P(OpTableSample, NaNAndInfinityRowsSelectTheFirstOfTheOrder) {
  reseed_for_current_test();
  const SampleTableCase &c = GetParam();
  const int64_t rows = 3, v = 300;
  for (int trial = 0; trial < 12; ++trial) {
    DeviceTensor logits({rows, v}, c.dtypes.front()), top_k({rows}, ACL_INT32), top_p({rows}, c.dtypes.front()),
        q({rows, v}, ACL_FLOAT), sel({rows}, ACL_INT64);
    logits.fill_random(-3, 3);
    std::vector<double> x = logits.values();
    const int64_t nan_at = uniform(0, v - 2), inf_at = uniform(0, v - 3);
    x[static_cast<size_t>(nan_at)] = NAN;
    x[static_cast<size_t>(nan_at + 1)] = NAN;
    x[static_cast<size_t>(v + inf_at)] = INFINITY;
    x[static_cast<size_t>(v + inf_at + 2)] = INFINITY;
    for (int64_t i = 0; i < v; ++i) x[static_cast<size_t>(2 * v + i)] = -INFINITY;
    logits.set_values(x);
    top_k.set_values({pick_k(v, 1024), pick_k(v, 1024), pick_k(v, 1024)});
    top_p.set_values({pick_fraction(), pick_fraction(), pick_fraction()});
    q.fill_random(0.01, 5);
    SampleArgs a;
    a.logits = logits;
    a.top_k = top_k;
    a.top_p = top_p;
    a.q = trial % 2 ? q.get() : nullptr;
    a.select_idx = sel;
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(sel.values(), (std::vector<double>{static_cast<double>(nan_at), static_cast<double>(inf_at), 0.0}));
  }
}

TEST_P(OpTableSample, ErrorsNameTheArgument) {
  const SampleTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const aclDataType dt = c.dtypes.front();
  const int64_t rows = 3, v = 7;
  DeviceTensor logits({rows, v}, dt), top_k({rows}, ACL_INT32), top_p({rows}, dt), q({rows, v}, ACL_FLOAT),
      min_ps({rows}, dt), sel({rows}, ACL_INT64), sel_logits({rows, v}, ACL_FLOAT), idx({rows, v}, ACL_INT64),
      sorted({rows, v}, ACL_FLOAT);
  logits.fill_random(-1, 1);
  top_k.set_values({2, 0, 5});
  top_p.set_values({0.5, 1, 0.9});
  min_ps.set_values({0.1, 0, 0.2});
  q.fill_random(0.1, 2);
  SampleArgs good;
  good.logits = logits;
  good.top_k = top_k;
  good.top_p = top_p;
  good.q = q;
  good.need_logits = true;
  good.select_idx = sel;
  good.select_logits = sel_logits;
  if (c.v2) {
    good.min_ps = min_ps;
    good.logits_idx = idx;
    good.sort_masked = sorted;
  }
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto phase1 = [&](const SampleArgs &a, uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); };
  using harness::ArgField;
  using F = std::vector<ArgField<SampleArgs>>;
  // Nulls: the required ones fail, q / minPs are optional.
  F nulls = {{&SampleArgs::logits, "logits"},           {&SampleArgs::top_k, "topK"},
             {&SampleArgs::top_p, "topP"},              {&SampleArgs::q, "q", true},
             {&SampleArgs::select_idx, "logitsSelectIdx"}, {&SampleArgs::select_logits, "logitsTopKPSelect"}};
  if (c.v2) nulls.push_back({&SampleArgs::min_ps, "minPs", true});
  harness::expect_each_rejected(api, good, nulls, {}, ACLNN_ERR_PARAM_NULLPTR, nullptr, phase1);
  // Wrong dtypes.
  const aclDataType other = dt == ACL_FLOAT16 ? ACL_BF16 : ACL_FLOAT16;
  DeviceTensor l_int({rows, v}, ACL_INT32), l_double({rows, v}, ACL_DOUBLE), k_f({rows}, ACL_FLOAT),
      k_64({rows}, ACL_INT64), p_o({rows}, other), q_h({rows, v}, ACL_FLOAT16), m_o({rows}, other),
      sel_32({rows}, ACL_INT32), sl_h({rows, v}, ACL_FLOAT16), idx_32({rows, v}, ACL_INT32), sm_h({rows, v}, ACL_FLOAT16);
  F typed = {{&SampleArgs::logits, "logits"}, {&SampleArgs::logits, "logits"}, {&SampleArgs::top_k, "topK"},
             {&SampleArgs::top_k, "topK"},     {&SampleArgs::top_p, "topP"},     {&SampleArgs::q, "q"},
             {&SampleArgs::select_idx, "logitsSelectIdx"}, {&SampleArgs::select_logits, "logitsTopKPSelect"}};
  std::vector<aclTensor *> bad = {l_int, l_double, k_f, k_64, p_o, q_h, sel_32, sl_h};
  if (c.v2) {
    typed.push_back({&SampleArgs::min_ps, "minPs"});
    bad.push_back(m_o);
  }
  harness::expect_each_rejected(api, good, typed, bad, ACLNN_ERR_PARAM_INVALID, "dtype", phase1);
  if (!c.v2) {  // FLOAT logits are V2's only
    DeviceTensor lf({rows, v}, ACL_FLOAT), pf({rows}, ACL_FLOAT);
    SampleArgs a = good;
    a.logits = lf;
    a.top_p = pf;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "logits"}));
  }
  // Wrong shapes (and empty logits).
  DeviceTensor l3({rows, v, 1}, dt), l_empty({rows, 0}, dt), l_rows0({0, v}, dt), k4({rows + 1}, ACL_INT32),
      k2({rows, 2}, ACL_INT32), p4({rows + 1}, dt), q8({rows, v + 1}, ACL_FLOAT), m4({rows + 1}, dt),
      sel4({rows + 1}, ACL_INT64), sl8({rows, v + 1}, ACL_FLOAT), idx8({rows, v + 1}, ACL_INT64);
  F shaped = {{&SampleArgs::logits, "logits"}, {&SampleArgs::logits, "logits"}, {&SampleArgs::logits, "logits"},
              {&SampleArgs::top_k, "topK"},     {&SampleArgs::top_k, "topK"},     {&SampleArgs::top_p, "topP"},
              {&SampleArgs::q, "q"},            {&SampleArgs::select_idx, "logitsSelectIdx"},
              {&SampleArgs::select_logits, "logitsTopKPSelect"}};
  bad = {l3, l_empty, l_rows0, k4, k2, p4, q8, sel4, sl8};
  if (c.v2) {
    shaped.push_back({&SampleArgs::min_ps, "minPs"});
    bad.push_back(m4);
  }
  harness::expect_each_rejected(api, good, shaped, bad, ACLNN_ERR_PARAM_INVALID, nullptr, phase1);
  // Attributes.
  for (double eps : {-1.0, double{NAN}, double{INFINITY}}) {
    SampleArgs a = good;
    a.eps = eps;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "eps"})) << eps;
  }
  {  // topKGuess: V1 needs a positive one; V2 takes any (a hint)
    SampleArgs a = good;
    a.guess = 0;
    if (c.v2) {
      EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    } else {
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "topKGuess"}));
    }
  }
  {  // logitsTopKPSelect may be null without isNeedLogits
    SampleArgs a = good;
    a.need_logits = false;
    a.select_logits = nullptr;
    EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  }
  if (!c.v2) return;
  for (int64_t ks : {0, -1, 1025}) {
    SampleArgs a = good;
    a.ks_max = ks;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "ksMax"})) << ks;
  }
  SampleArgs sr = good;  // the intermediate outputs: q must be null; logitsSelectIdx may be
  sr.need_sample_result = true;
  EXPECT_TRUE(fails_with(c.phase1(sr, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "q", "isNeedSampleResult"}));
  sr.q = nullptr;
  sr.select_idx = nullptr;
  EXPECT_EQ(run(c, sr), 0) << aclGetRecentErrMsg();
  harness::expect_each_rejected(api, sr, F{{&SampleArgs::logits_idx, "logitsIdx"}, {&SampleArgs::sort_masked, "logitsSortMasked"}},
                                {}, ACLNN_ERR_PARAM_NULLPTR, nullptr, phase1);
  harness::expect_each_rejected(api, sr, F{{&SampleArgs::logits_idx, "logitsIdx"}, {&SampleArgs::sort_masked, "logitsSortMasked"}},
                                {idx_32, sm_h}, ACLNN_ERR_PARAM_INVALID, "dtype", phase1);
  harness::expect_each_rejected(api, sr, F{{&SampleArgs::logits_idx, "logitsIdx"}, {&SampleArgs::sort_masked, "logitsSortMasked"}},
                                {idx8, sl8}, ACLNN_ERR_PARAM_INVALID, "shape", phase1);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableSample, ::testing::ValuesIn(all_cases()), harness::case_name<SampleTableCase>);

}  // namespace
}  // namespace opsnn::test

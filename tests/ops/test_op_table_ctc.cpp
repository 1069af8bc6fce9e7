// The test harness of the table-driven CTC losses (src/ops/loss/ctc_loss.ops), cases registered from
// the table by tools/gen_ops.py --tests (ctc_table_cases.inc):
//   - the float64 forward reference (ctc_forward_ref) against a brute-force sum over every alignment;
//   - CtcLoss: every dtype and target dtype, padded and concatenated targets, random lengths (0
//     included), repeated labels, a strided logProbs view, impossible alignments (inf), against the
//     reference (logAlpha in full, -inf where undefined);
//   - CtcLossBackward: against central differences of the reference's loss (plus PyTorch's exp(lp)
//     term), with and without zeroInfinity on an impossible batch;
//   - a target value out of range fails the launch; phase-1 errors with the argument named.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct CtcArgs {
  aclTensor *gout = nullptr, *lp = nullptr, *targets = nullptr, *nll_in = nullptr, *alpha_in = nullptr,
            *nll_out = nullptr, *alpha_out = nullptr, *out = nullptr;
  aclIntArray *input_lengths = nullptr, *target_lengths = nullptr;
  int64_t blank = 0;
  bool zero_infinity = false;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct CtcTableCase {
  std::string name, api;
  bool backward = false;
  std::vector<aclDataType> dtypes, targets;
  int (*phase1)(const CtcArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const CtcTableCase &c, std::ostream *os) { *os << c.name; }

#include "ctc_table_cases.inc"

const std::vector<CtcTableCase> &all_cases() {
  static const std::vector<CtcTableCase> c = harness::sampled(ctc_table_cases());
  return c;
}

// One problem: lp [T, N, C] (log-softmax rows), targets per batch, lengths.
struct CtcProblem {
  int64_t T = 0, N = 0, C = 0, blank = 0;
  std::vector<int64_t> il;
  std::vector<std::vector<int64_t>> tg;
  std::vector<double> lp;  // [T][N][C]
  int64_t max_len() const {
    int64_t m = 0;
    for (const auto &t : tg) m = std::max<int64_t>(m, static_cast<int64_t>(t.size()));
    return m;
  }
  std::vector<double> batch_lp(int64_t b) const {  // [T][C]
    std::vector<double> v;
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c) v.push_back(lp[static_cast<size_t>((t * N + b) * C + c)]);
    return v;
  }
};

CtcProblem random_problem(std::mt19937_64 &g, int64_t T, int64_t N, int64_t C) {
  CtcProblem p;
  p.T = T;
  p.N = N;
  p.C = C;
  p.blank = static_cast<int64_t>(g() % static_cast<uint64_t>(C));
  std::uniform_real_distribution<double> u(-2, 2);
  for (int64_t r = 0; r < T * N; ++r) {  // log-softmax rows
    std::vector<double> z(static_cast<size_t>(C));
    double m = -1e300, s = 0;
    for (double &e : z) m = std::max(m, e = u(g));
    for (double e : z) s += std::exp(e - m);
    for (double e : z) p.lp.push_back(e - m - std::log(s));
  }
  for (int64_t b = 0; b < N; ++b) {
    p.il.push_back(static_cast<int64_t>(g() % static_cast<uint64_t>(T + 1)));
    const int64_t L = static_cast<int64_t>(g() % static_cast<uint64_t>(std::min<int64_t>(T, 4) + 1));
    std::vector<int64_t> t;
    for (int64_t j = 0; j < L; ++j) {
      int64_t v = static_cast<int64_t>(g() % static_cast<uint64_t>(C));
      if (v == p.blank && C > 1) v = (v + 1) % C;
      if (C == 1) break;
      t.push_back(v);
    }
    p.tg.push_back(t);
  }
  return p;
}

// Device tensors of a problem: lp (optionally a strided [N, T, C]-stored view), targets (padded or
// concatenated), the lengths arrays.
struct CtcDevice {
  std::unique_ptr<DeviceTensor> lp, targets;
  aclIntArray *il = nullptr, *tl = nullptr;
  ~CtcDevice() {
    aclDestroyIntArray(il);
    aclDestroyIntArray(tl);
  }
};

void make_device(const CtcProblem &p, aclDataType dt, aclDataType tdt, bool padded, bool strided, CtcDevice *d) {
  if (strided)
    d->lp = std::make_unique<DeviceTensor>(std::vector<int64_t>{p.T, p.N, p.C}, dt,
                                           std::vector<int64_t>{p.C, p.T * p.C, 1}, 3);
  else
    d->lp = std::make_unique<DeviceTensor>(std::vector<int64_t>{p.T, p.N, p.C}, dt);
  d->lp->set_values(p.lp);
  std::vector<double> tv;
  std::vector<int64_t> tl;
  const int64_t S = std::max<int64_t>(p.max_len() + 1, 1);
  for (const auto &t : p.tg) {
    tl.push_back(static_cast<int64_t>(t.size()));
    for (int64_t v : t) tv.push_back(static_cast<double>(v));
    if (padded)
      for (int64_t j = static_cast<int64_t>(t.size()); j < S; ++j) tv.push_back(p.blank);  // padding: never read
  }
  d->targets = std::make_unique<DeviceTensor>(padded ? std::vector<int64_t>{p.N, S} : std::vector<int64_t>{
                                                                                         static_cast<int64_t>(tv.size())},
                                              tdt);
  d->targets->set_values(tv);
  d->il = aclCreateIntArray(p.il.data(), p.il.size());
  d->tl = aclCreateIntArray(tl.data(), tl.size());
}

class OpTableCtc : public ::testing::TestWithParam<CtcTableCase> {};

TEST_P(OpTableCtc, ReferenceMatchesBruteForce) {
  reseed_for_current_test();
  auto &g = rng();
  for (int k = 0; k < 30; ++k) {
    const int64_t T = 1 + static_cast<int64_t>(g() % 6), C = 1 + static_cast<int64_t>(g() % 4);
    CtcProblem p = random_problem(g, T, 1, C);
    const auto lp = p.batch_lp(0);
    const int64_t sa = 2 * p.max_len() + 1;
    const auto r = refs::ctc_forward_ref(lp, T, C, p.il[0], p.tg[0], p.blank, sa);
    const double brute = refs::ctc_brute_nll(lp, C, p.il[0], p.tg[0], p.blank);
    if (std::isinf(brute)) EXPECT_TRUE(std::isinf(r.nll) && r.nll > 0) << k;
    else EXPECT_NEAR(r.nll, brute, 1e-9 * (1 + std::fabs(brute))) << k;
  }
}

void check_forward(const CtcTableCase &c, const CtcProblem &p, aclDataType dt, aclDataType tdt, bool padded,
                   bool strided) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " targets " << tdt << (padded ? " padded" : " 1-d")
                                    << (strided ? " strided" : "") << " T " << p.T << " N " << p.N << " C " << p.C);
  CtcDevice d;
  make_device(p, dt, tdt, padded, strided, &d);
  const int64_t sa = 2 * p.max_len() + 1;
  DeviceTensor nll({p.N}, dt), alpha({p.N, p.T, sa}, dt);
  nll.poison();
  alpha.poison();
  CtcArgs a;
  a.lp = *d.lp;
  a.targets = *d.targets;
  a.input_lengths = d.il;
  a.target_lengths = d.tl;
  a.blank = p.blank;
  a.nll_out = nll;
  a.alpha_out = alpha;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto lpv = d.lp->values();
  CtcProblem q = p;
  q.lp = lpv;  // as stored
  std::vector<double> wn, wa;
  for (int64_t b = 0; b < p.N; ++b) {
    const auto r = refs::ctc_forward_ref(q.batch_lp(b), p.T, p.C, p.il[static_cast<size_t>(b)],
                                         p.tg[static_cast<size_t>(b)], p.blank, sa);
    wn.push_back(round_to(dt, r.nll));
    for (double v : r.alpha) wa.push_back(round_to(dt, v));
  }
  EXPECT_TRUE(meets_precision(dt, nll.values(), wn)) << "negLogLikelihoodOut";
  EXPECT_TRUE(meets_precision(dt, alpha.values(), wa)) << "logAlphaOut";
}

// The gradient: PyTorch's exp(lp) - posterior, i.e. exp(lp) * gradOut + d(nll)/d(lp) * gradOut, the
// derivative by central differences of the reference loss; zeroInfinity zeroes an infinite batch.
void check_backward(const CtcTableCase &c, const CtcProblem &p, aclDataType dt, aclDataType tdt, bool padded,
                    bool strided, bool zero_inf) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " targets " << tdt << (padded ? " padded" : " 1-d")
                                    << (strided ? " strided" : "") << (zero_inf ? " zeroInfinity" : "") << " T "
                                    << p.T << " N " << p.N << " C " << p.C);
  CtcDevice d;
  make_device(p, dt, tdt, padded, strided, &d);
  const int64_t sa = 2 * p.max_len() + 1;
  CtcProblem q = p;
  q.lp = d.lp->values();
  DeviceTensor gout({p.N}, dt), nll({p.N}, ACL_DOUBLE), alpha({p.N, p.T, sa}, ACL_DOUBLE), out({p.T, p.N, p.C}, dt);
  gout.fill_random(0.5, 1.5);
  std::vector<double> nv, av;
  for (int64_t b = 0; b < p.N; ++b) {
    const auto r = refs::ctc_forward_ref(q.batch_lp(b), p.T, p.C, p.il[static_cast<size_t>(b)],
                                         p.tg[static_cast<size_t>(b)], p.blank, sa);
    nv.push_back(r.nll);
    av.insert(av.end(), r.alpha.begin(), r.alpha.end());
  }
  nll.set_values(nv);
  alpha.set_values(av);
  out.poison();
  CtcArgs a;
  a.gout = gout;
  a.lp = *d.lp;
  a.targets = *d.targets;
  a.input_lengths = d.il;
  a.target_lengths = d.tl;
  a.nll_in = nll;
  a.alpha_in = alpha;
  a.blank = p.blank;
  a.zero_infinity = zero_inf;
  a.out = out;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto gv = gout.values();
  std::vector<double> want(static_cast<size_t>(p.T * p.N * p.C), 0.0);
  for (int64_t b = 0; b < p.N; ++b) {
    const int64_t tb = p.il[static_cast<size_t>(b)];
    const auto &tg = p.tg[static_cast<size_t>(b)];
    auto lpb = q.batch_lp(b);
    const double n0 = nv[static_cast<size_t>(b)], gr = gv[static_cast<size_t>(b)];
    for (int64_t t = 0; t < tb; ++t)
      for (int64_t cc = 0; cc < p.C; ++cc) {
        double v;
        if (std::isinf(n0)) {
          v = zero_inf ? 0.0 : NAN;  // exp(lp) - exp(-inf + inf - lp)
        } else {
          const size_t i = static_cast<size_t>(t * p.C + cc);
          const double h = 1e-5, x0 = lpb[i];
          lpb[i] = x0 + h;
          const double up = refs::ctc_forward_ref(lpb, p.T, p.C, tb, tg, p.blank, sa).nll;
          lpb[i] = x0 - h;
          const double dn = refs::ctc_forward_ref(lpb, p.T, p.C, tb, tg, p.blank, sa).nll;
          lpb[i] = x0;
          v = (std::exp(x0) + (up - dn) / (2 * h)) * gr;
        }
        want[static_cast<size_t>((t * p.N + b) * p.C + cc)] = round_to(dt, v);
      }
  }
  // Central differences are good to ~1e-9 absolute: compare with a bound on top of the standard.
  const auto got = out.values();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], 1e-7 + 2 * precision_threshold(dt) * std::fabs(want[i])) << "element " << i;
  }
}

TEST_P(OpTableCtc, EveryDtypeAndTargetForm) {
  reseed_for_current_test();
  const CtcTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (aclDataType tdt : c.targets)
      for (int k = 0; k < 3; ++k, ++v) {
        const int64_t T = 1 + static_cast<int64_t>(g() % 8), N = 1 + static_cast<int64_t>(g() % 3),
                      C = 2 + static_cast<int64_t>(g() % 4);
        const CtcProblem p = random_problem(g, T, N, C);
        if (c.backward) check_backward(c, p, dt, tdt, v % 2 == 0, v % 3 == 1, v % 4 == 0);
        else check_forward(c, p, dt, tdt, v % 2 == 0, v % 3 == 1);
      }
}

TEST_P(OpTableCtc, RepeatsImpossibleAndEmpty) {
  reseed_for_current_test();
  const CtcTableCase &c = GetParam();
  auto &g = rng();
  CtcProblem p = random_problem(g, 6, 4, 4);
  p.blank = 0;
  p.tg = {{1, 1, 2}, {3, 3, 3, 3}, {}, {2}};  // batch 1 needs 7 steps: impossible (inf)
  p.il = {6, 6, 0, 6};
  for (bool zi : {false, true}) {
    if (c.backward) check_backward(c, p, ACL_FLOAT, ACL_INT64, true, false, zi);
    else check_forward(c, p, ACL_FLOAT, ACL_INT64, !zi, zi);
  }
  CtcProblem e = random_problem(g, 3, 0, 3);  // no batches
  if (c.backward) check_backward(c, e, ACL_FLOAT, ACL_INT64, true, false, false);
  else check_forward(c, e, ACL_FLOAT, ACL_INT64, true, false);
}

TEST_P(OpTableCtc, ErrorsNameTheArgument) {
  const CtcTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor lp({4, 2, 3}, ACL_FLOAT), tg({2, 2}, ACL_INT64), gout({2}, ACL_FLOAT), nll({2}, ACL_FLOAT),
      alpha({2, 4, 5}, ACL_FLOAT), out({4, 2, 3}, ACL_FLOAT);
  lp.fill_random(-2, -0.5);
  tg.set_values({1, 2, 2, 1});
  gout.fill_random(1, 1);
  nll.fill_random(1, 2);
  alpha.fill_random(-3, -1);
  const int64_t il[] = {4, 3}, tl[] = {2, 1};
  aclIntArray *ila = aclCreateIntArray(il, 2), *tla = aclCreateIntArray(tl, 2);
  CtcArgs good;
  good.gout = gout;
  good.lp = lp;
  good.targets = tg;
  good.input_lengths = ila;
  good.target_lengths = tla;
  good.nll_in = nll;
  good.alpha_in = alpha;
  good.nll_out = nll;
  good.alpha_out = alpha;
  good.out = out;
  good.blank = 0;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  CtcArgs a = good;
  std::vector<std::pair<const char *, aclTensor *CtcArgs::*>> nulls = {{"logProbs", &CtcArgs::lp},
                                                                      {"targets", &CtcArgs::targets}};
  if (c.backward) {
    nulls.push_back({"gradOut", &CtcArgs::gout});
    nulls.push_back({"negLogLikelihood", &CtcArgs::nll_in});
    nulls.push_back({"logAlpha", &CtcArgs::alpha_in});
    nulls.push_back({"out", &CtcArgs::out});
  } else {
    nulls.push_back({"negLogLikelihoodOut", &CtcArgs::nll_out});
    nulls.push_back({"logAlphaOut", &CtcArgs::alpha_out});
  }
  for (const auto &[name, f] : nulls) {
    a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
  }
  a = good;
  a.input_lengths = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "inputLengths"}));
  a = good;
  a.blank = 3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "blank"}));
  const int64_t il_bad[] = {5, 3}, il_short[] = {4}, tl_bad[] = {3, 1};
  aclIntArray *a1 = aclCreateIntArray(il_bad, 2), *a2 = aclCreateIntArray(il_short, 1), *a3 = aclCreateIntArray(tl_bad, 2);
  a = good;
  a.input_lengths = a1;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "inputLengths"}));
  a.input_lengths = a2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "inputLengths"}));
  a = good;
  a.target_lengths = a3;  // more than the padded targets hold
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "ngths[0] = 3"}));
  DeviceTensor lp2({4, 3}, ACL_FLOAT), tgf({2, 2}, ACL_FLOAT), alpha2({2, 4, 7}, ACL_FLOAT), lpi({4, 2, 3}, ACL_INT32);
  a = good;
  a.lp = lp2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "logProbs"}));
  a = good;
  a.lp = lpi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "logProbs", "dtype"}));
  a = good;
  a.targets = tgf;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "targets", "dtype"}));
  a = good;
  (c.backward ? a.alpha_in : a.alpha_out) = alpha2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.backward ? "logAlpha" : "logAlphaOut"}));
  // A target value out of range fails the launch, nothing written.
  DeviceTensor tg_bad({2, 2}, ACL_INT64);
  tg_bad.set_values({1, 3, 2, 1});
  a = good;
  a.targets = tg_bad;
  out.poison();
  nll.poison();
  const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  EXPECT_EQ(rc, ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("targets"), std::string::npos) << aclGetRecentErrMsg();
  EXPECT_TRUE(std::isnan((c.backward ? out : nll).values()[0]));
  for (aclIntArray *x : {ila, tla, a1, a2, a3}) aclDestroyIntArray(x);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableCtc, ::testing::ValuesIn(all_cases()), harness::case_name<CtcTableCase>);

}  // namespace
}  // namespace opsnn::test

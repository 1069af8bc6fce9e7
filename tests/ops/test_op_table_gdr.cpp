// The test harness of the table-driven gated delta rule (src/ops/attention/delta_rule.ops), cases
// registered from the table by tools/gen_ops.py --tests (gdr_table_cases.inc). Against the float64
// reference gated_delta_rule_ref (tests/common/float64_refs.h), every dtype:
//   - random problems: 1-4 sequences of 0-8 tokens (tokens after the last sequence too), grouped
//     heads (Nv a multiple of Nk), odd head dims, accepted counts, shuffled state slots (a sequence
//     may reuse its own slot), stateRef FLOAT / FLOAT16 / BF16, beta / g / gk in query's dtype or
//     FLOAT, g / gk null or given;
//   - strided + offset views of every operand (a transposed state, padded rows), nothing written
//     outside the views, state slots no token writes left unchanged;
//   - NaN propagation; the same launch twice (the state evolves from the first run's result);
//   - errors: each argument named (null, dtype, shape, heads, overlap), and bad device lengths /
//     accepted counts / indices failing the launch with nothing written.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "error_cases.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct GdrArgs {
  aclTensor *query = nullptr, *key = nullptr, *value = nullptr, *beta = nullptr, *state = nullptr;
  aclTensor *act_len = nullptr, *state_idx = nullptr, *g = nullptr, *gk = nullptr, *accepted = nullptr;
  float scale = 1.0f;
  aclTensor *out = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct GdrTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const GdrArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const GdrTableCase &c, std::ostream *os) { *os << c.name; }

#include "gdr_table_cases.inc"

const std::vector<GdrTableCase> &all_cases() {
  static const std::vector<GdrTableCase> c = harness::sampled(gdr_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

int64_t pick(std::mt19937_64 &g, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1));
}

// A tensor of `shape`: contiguous, or (strided) with padded innermost rows and an offset, the last
// two dims stored transposed when `transposed`.
Dev make(std::vector<int64_t> shape, aclDataType dt, bool strided, bool transposed = false) {
  if (!strided) return std::make_unique<DeviceTensor>(shape, dt);
  const size_t n = shape.size();
  std::vector<int64_t> st(n);
  if (transposed && n >= 2) {
    // Stored [..., last, second-to-last] with a padded row.
    const int64_t r = shape[n - 2] + 1;
    st[n - 2] = 1;
    st[n - 1] = r;
    int64_t s = r * shape[n - 1];
    for (size_t d = n - 2; d-- > 0;) {
      st[d] = s;
      s *= shape[d];
    }
  } else {
    int64_t s = 2;  // every innermost element two apart
    for (size_t d = n; d-- > 0;) {
      st[d] = s;
      s *= shape[d] + (d + 1 == n ? 0 : 1);
    }
  }
  return std::make_unique<DeviceTensor>(shape, dt, st, 3);
}

Dev ints(const std::vector<int64_t> &v, bool strided) {
  Dev d = strided ? std::make_unique<DeviceTensor>(std::vector<int64_t>{static_cast<int64_t>(v.size())}, ACL_INT32,
                                                   std::vector<int64_t>{3}, 1)
                  : std::make_unique<DeviceTensor>(std::vector<int64_t>{static_cast<int64_t>(v.size())}, ACL_INT32);
  d->set_values(std::vector<double>(v.begin(), v.end()));
  return d;
}

// got vs want: |got - want| <= T (|want| + mag / 8), T the dtype's threshold, mag the reference's sum
// of absolute terms (an output near 0 is a sum of larger ones: precision.md's absolute bound); NaN
// and infinities exactly.
::testing::AssertionResult close(aclDataType dt, const std::vector<double> &got, const std::vector<double> &want,
                                 const std::vector<double> &mag) {
  const double T = precision_threshold(dt);
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) || std::isinf(w)) {
      if (std::isnan(w) ? !std::isnan(g) : g != w)
        return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << w;
      continue;
    }
    if (!(std::fabs(g - w) <= T * (std::fabs(w) + mag[i] / 8)))
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", expected " << w << " (scale "
                                           << mag[i] << ")";
  }
  return ::testing::AssertionSuccess();
}

struct Problem {
  refs::GdrProblem p;
  int64_t blocks = 0;
  aclDataType dt = ACL_FLOAT, state_dt = ACL_FLOAT, beta_dt = ACL_FLOAT, g_dt = ACL_FLOAT;
  bool has_g = true, has_gk = true, strided = false, nan = false;
  int runs = 1;
};

// A random problem: lengths, accepted counts, shuffled distinct slots (or a slot reused within a
// sequence).
Problem random_problem(std::mt19937_64 &g, aclDataType dt, int v) {
  Problem pr;
  pr.dt = dt;
  refs::GdrProblem &p = pr.p;
  const int64_t B = pick(g, 1, 4);
  for (int64_t b = 0; b < B; ++b) p.len.push_back(v % 7 == 3 && b == 0 ? 0 : pick(g, 1, 8));
  for (int64_t L : p.len) p.accepted.push_back(L == 0 ? pick(g, -3, 3) : pick(g, 1, L));
  const int64_t used = std::accumulate(p.len.begin(), p.len.end(), int64_t{0});
  p.t = used + (v % 3 == 2 ? pick(g, 1, 3) : 0);
  p.nk = pick(g, 1, 3);
  p.nv = p.nk * pick(g, 1, 3);
  p.dk = v % 5 == 4 ? pick(g, 60, 80) : pick(g, 1, 24);
  p.dv = pick(g, 1, 24);
  p.scale = 1.0 / std::sqrt(static_cast<double>(p.dk));
  pr.blocks = p.t + pick(g, 0, 4);
  std::vector<int64_t> slots(static_cast<size_t>(pr.blocks));
  std::iota(slots.begin(), slots.end(), 0);
  std::shuffle(slots.begin(), slots.end(), g);
  p.idx.assign(slots.begin(), slots.begin() + p.t);
  if (v % 4 == 1 && p.len.back() >= 2) p.idx[static_cast<size_t>(used - 1)] = p.idx[static_cast<size_t>(used - 2)];
  static const aclDataType states[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  pr.state_dt = states[v % 3];
  pr.beta_dt = v % 2 == 0 ? dt : ACL_FLOAT;
  pr.g_dt = v % 4 < 2 ? ACL_FLOAT : dt;
  pr.has_g = v % 5 != 1;
  pr.has_gk = v % 3 != 0;
  pr.strided = v % 2 == 1;
  return pr;
}

void run_problem(const GdrTableCase &c, const Problem &pr) {
  const refs::GdrProblem &p = pr.p;
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << pr.dt << " state " << pr.state_dt << " T " << p.t
                                    << " B " << p.len.size() << " Nk " << p.nk << " Nv " << p.nv << " Dk " << p.dk
                                    << " Dv " << p.dv << (pr.strided ? " strided" : "") << (pr.has_g ? " g" : "")
                                    << (pr.has_gk ? " gk" : ""));
  const bool s = pr.strided;
  Dev q = make({p.t, p.nk, p.dk}, pr.dt, s), k = make({p.t, p.nk, p.dk}, pr.dt, s, true),
      v = make({p.t, p.nv, p.dv}, pr.dt, s), beta = make({p.t, p.nv}, pr.beta_dt, s),
      g = make({p.t, p.nv}, pr.g_dt, s), gk = make({p.t, p.nv, p.dk}, pr.g_dt, s),
      state = make({pr.blocks, p.nv, p.dv, p.dk}, pr.state_dt, s, s), out = make({p.t, p.nv, p.dv}, pr.dt, s);
  q->fill_random(-1, 1);
  k->fill_random(-1, 1);
  v->fill_random(-2, 2);
  beta->fill_random(0.05, 0.95);
  g->fill_random(-1, -0.01);
  gk->fill_random(-0.5, -0.01);
  state->fill_random(-1, 1);
  if (pr.nan) {
    auto vv = v->values();
    vv[vv.size() / 2] = NAN;
    v->set_values(vv);
  }
  Dev len = ints(p.len, s), acc = ints(p.accepted, s), idx = ints(p.idx, !s);
  std::vector<double> want_state = state->values();
  GdrArgs a;
  a.query = q->get();
  a.key = k->get();
  a.value = v->get();
  a.beta = beta->get();
  a.state = state->get();
  a.act_len = len->get();
  a.state_idx = idx->get();
  a.g = pr.has_g ? g->get() : nullptr;
  a.gk = pr.has_gk ? gk->get() : nullptr;
  a.accepted = acc->get();
  a.scale = static_cast<float>(p.scale);
  a.out = out->get();
  refs::GdrProblem rp = p;
  rp.scale = static_cast<double>(a.scale);
  std::vector<double> smag, want, omag;
  for (int r = 0; r < pr.runs; ++r) {
    out->poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    // The reference starts from the state as stored (the previous run's rounded result).
    refs::gated_delta_rule_ref(rp, q->values(), k->values(), v->values(), beta->values(),
                               pr.has_g ? g->values() : std::vector<double>{},
                               pr.has_gk ? gk->values() : std::vector<double>{}, &want_state, &smag, &want, &omag);
    for (double &x : want) x = round_to(pr.dt, x);
    EXPECT_TRUE(close(pr.dt, out->values(), want, omag)) << "out, run " << r;
    EXPECT_TRUE(close(pr.state_dt, state->values(), want_state, smag)) << "stateRef, run " << r;
    EXPECT_TRUE(out->untouched_outside_view());
    EXPECT_TRUE(state->untouched_outside_view());
    want_state = state->values();
  }
}

class OpTableGdr : public ::testing::TestWithParam<GdrTableCase> {};

TEST_P(OpTableGdr, RandomProblems) {
  reseed_for_current_test();
  const GdrTableCase &c = GetParam();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int n = 0; n < 10; ++n, ++v) run_problem(c, random_problem(rng(), dt, v));
}

TEST_P(OpTableGdr, NanPropagatesAndRepeatedLaunchesChainTheState) {
  reseed_for_current_test();
  const GdrTableCase &c = GetParam();
  int v = 0;
  for (aclDataType dt : c.dtypes) {
    Problem pr = random_problem(rng(), dt, v++);
    pr.nan = true;
    run_problem(c, pr);
    pr = random_problem(rng(), dt, v++);
    pr.runs = 2;
    run_problem(c, pr);
  }
}

TEST_P(OpTableGdr, ErrorsNameTheArgument) {
  const GdrTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const int64_t T = 4, Nk = 2, Nv = 4, Dk = 3, Dv = 5;
  DeviceTensor q({T, Nk, Dk}, ACL_FLOAT), k({T, Nk, Dk}, ACL_FLOAT), v({T, Nv, Dv}, ACL_FLOAT), beta({T, Nv}, ACL_FLOAT),
      state({6, Nv, Dv, Dk}, ACL_FLOAT), len({2}, ACL_INT32), idx({T}, ACL_INT32), g({T, Nv}, ACL_FLOAT),
      gk({T, Nv, Dk}, ACL_FLOAT), acc({2}, ACL_INT32), out({T, Nv, Dv}, ACL_FLOAT);
  for (DeviceTensor *t : {&q, &k, &v, &beta, &state, &g, &gk}) t->fill_random(-0.5, 0.5);
  len.set_values({1, 3});
  idx.set_values({5, 0, 2, 1});
  acc.set_values({1, 2});
  GdrArgs good{q, k, v, beta, state, len, idx, g, gk, acc, 0.5f, out};
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return c.phase1(good, ws, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto phase1 = [&](const GdrArgs &a, uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); };
  auto fails = [&](const GdrArgs &a, int code, std::initializer_list<const char *> needles) {
    return fails_with(c.phase1(a, &ws, &ex), code, needles);
  };
  using F = harness::ArgField<GdrArgs>;
  const std::vector<F> fields = {{&GdrArgs::query, "query"}, {&GdrArgs::key, "key"}, {&GdrArgs::value, "value"},
                                 {&GdrArgs::beta, "beta"}, {&GdrArgs::state, "stateRef"},
                                 {&GdrArgs::act_len, "actualSeqLengths"}, {&GdrArgs::state_idx, "ssmStateIndices"},
                                 {&GdrArgs::g, "g", true}, {&GdrArgs::gk, "gk", true},
                                 {&GdrArgs::accepted, "numAcceptedTokens"}, {&GdrArgs::out, "out"}};
  harness::expect_each_rejected(api, good, fields, {}, ACLNN_ERR_PARAM_NULLPTR, nullptr, phase1);
  // A wrong dtype for each argument.
  DeviceTensor qd({T, Nk, Dk}, ACL_DOUBLE), kh({T, Nk, Dk}, ACL_FLOAT16), vh({T, Nv, Dv}, ACL_FLOAT16),
      bi({T, Nv}, ACL_INT32), sd({6, Nv, Dv, Dk}, ACL_DOUBLE), l64({2}, ACL_INT64), i64({T}, ACL_INT64),
      gh({T, Nv}, ACL_DOUBLE), gkh({T, Nv, Dk}, ACL_INT8), a64({2}, ACL_INT64), oh({T, Nv, Dv}, ACL_BF16);
  harness::expect_each_rejected(api, good, fields, {qd, kh, vh, bi, sd, l64, i64, gh, gkh, a64, oh},
                                ACLNN_ERR_PARAM_INVALID, "dtype", phase1);
  // A wrong shape for each argument (query's changes T: key then mismatches it).
  DeviceTensor q2({T, Nk}, ACL_FLOAT), k3({T, Nk, Dk + 1}, ACL_FLOAT), v3({T + 1, Nv, Dv}, ACL_FLOAT),
      b3({T, Nv + 1}, ACL_FLOAT), s3({6, Nv, Dv, Dk + 1}, ACL_FLOAT), l2({2, 1}, ACL_INT32), i3({T + 1}, ACL_INT32),
      g3({T, 1}, ACL_FLOAT), gk3({T, Nv, Dv}, ACL_FLOAT), a3({3}, ACL_INT32), o3({T, Nv, Dk}, ACL_FLOAT);
  harness::expect_each_rejected(api, good, fields, {q2, k3, v3, b3, s3, l2, i3, g3, gk3, a3, o3},
                                ACLNN_ERR_PARAM_INVALID, nullptr, phase1);
  DeviceTensor v5({T, 5, Dv}, ACL_FLOAT), b5({T, 5}, ACL_FLOAT);
  GdrArgs a = good;
  a.value = v5;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "value", "multiple"}));
  DeviceTensor q0({0, Nk, Dk}, ACL_FLOAT);
  a = good;
  a.query = q0;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "query", "empty"}));
  // Written memory shared with another argument.
  a = good;
  a.out = v;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "out", "overlaps"}));
  DeviceTensor s_bcast({6, Nv, Dv, Dk}, ACL_FLOAT, {0, Dv * Dk, Dk, 1}, 0);
  a = good;
  a.state = s_bcast;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "stateRef"}));
  // Bad device values fail the launch and write nothing.
  struct Bad {
    std::vector<double> len, acc, idx;
    const char *needle;
  };
  const Bad bads[] = {{{2, 3}, {1, 2}, {5, 0, 2, 1}, "actualSeqLengths[1]"},
                      {{-1, 3}, {1, 2}, {5, 0, 2, 1}, "actualSeqLengths[0]"},
                      {{1, 3}, {0, 2}, {5, 0, 2, 1}, "numAcceptedTokens[0]"},
                      {{1, 3}, {1, 4}, {5, 0, 2, 1}, "numAcceptedTokens[1]"},
                      {{1, 3}, {1, 2}, {5, 6, 2, 1}, "ssmStateIndices[1]"},
                      {{1, 3}, {1, 2}, {5, 0, -1, 1}, "ssmStateIndices[2]"},
                      {{1, 3}, {1, 2}, {5, 5, 2, 1}, "ssmStateIndices[1]"}};
  for (const Bad &bd : bads) {
    DeviceTensor l({2}, ACL_INT32), ac({2}, ACL_INT32), ix({T}, ACL_INT32);
    l.set_values(bd.len);
    ac.set_values(bd.acc);
    ix.set_values(bd.idx);
    a = good;
    a.act_len = l;
    a.accepted = ac;
    a.state_idx = ix;
    out.poison();
    const std::vector<double> before = state.values();
    const int rc = run_op([&](uint64_t *w2, aclOpExecutor **e) { return c.phase1(a, w2, e); }, c.launch);
    EXPECT_EQ(rc, ACLNN_ERR_PARAM_INVALID) << bd.needle;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(bd.needle), std::string::npos) << aclGetRecentErrMsg();
    for (double x : out.values()) EXPECT_TRUE(std::isnan(x));
    EXPECT_EQ(state.values(), before) << bd.needle;
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableGdr, ::testing::ValuesIn(all_cases()), harness::case_name<GdrTableCase>);

}  // namespace
}  // namespace opsnn::test

// The test harness of the gated activation table (src/ops/activation/gated.ops), cases registered
// from the table by tools/gen_ops.py --tests (gated_table_cases.inc): one case per row and sample.
// Against the rows' float64 references (tests/common/float64_refs.h):
//   - forward: every dtype on random shapes (1-4 dims), every split dim (passed negative too),
//     contiguous / transposed / padded + offset inputs and outputs (nothing written outside the
//     views), interleaved halves over the flattened tail, a wider output, special values, empty
//     tensors; GeGlu's outGelu;
//   - gradients: the same shapes and views against the row's d y / d a, d y / d b times the incoming
//     gradient; those references and the op against central differences of the forward row's ref;
//   - groupIndexOptional (ClippedSwiglu(V2), ClippedSwigluGrad): every row count, past the end,
//     negative, over several row dims and strided views; the rows at and after the sum are +0;
//   - errors with their code and the argument named: each null tensor, dtypes, 0-d input, odd split
//     size, dim out of range, wrong shapes of every tensor, a non-mergeable interleaved tail, the
//     threshold's size, the group index's dtype / rank, the rows' rejected attribute values.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct GatedArgs {
  aclTensor *x = nullptr, *grad = nullptr, *gelu = nullptr, *threshold = nullptr, *group = nullptr, *out = nullptr,
            *out_gelu = nullptr;
  int64_t dim = -1;
  // The attributes, by parameter name.
  int64_t approximate = 0, clampMode = 0;
  char *approximateOptional = nullptr;
  bool activateLeft = false, interleaved = false;
  double alpha = 0, limit = 0, bias = 0, beta = 0, linearBeta = 0;
  double threshold_value = 0;  // the sample's threshold (a one-element tensor)
};

using Ref2 = std::function<double(double, double)>;
using Ref3 = std::function<double(double, double, double)>;

struct GatedReject {
  void (*set)(GatedArgs &);
  int code;
  std::string word;
};

struct GatedTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  bool backward = false, has_dim = true, has_group = false, interleaved = false, a_first = true;
  int status = ACLNN_ERR_PARAM_INVALID;              // of a shape error
  std::vector<std::pair<std::string, std::string>> names;  // role -> argument name
  std::vector<std::string> required;                 // the roles that must not be null
  void (*set)(GatedArgs &) = nullptr;                // the sample's attribute values
  std::vector<GatedReject> rejects;
  Ref2 ref_out, ref_out_gelu;  // forward: y(a, b), GeGlu's gelu(a)
  Ref3 ref_a, ref_b;           // gradient: d y / d a, d y / d b (a, b, the saved gelu)
  Ref2 fwd, gelu_of;           // gradient: the forward row's y and outGelu
  double threshold = 0;
  int (*phase1)(const GatedArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  harness::Launch launch = nullptr;

  std::string arg(const std::string &role) const {
    for (const auto &[r, n] : names)
      if (r == role) return n;
    return "";
  }
  bool has(const std::string &role) const { return !arg(role).empty(); }
};
void PrintTo(const GatedTableCase &c, std::ostream *os) { *os << c.name; }

using namespace refs;  // the rows' reference expressions
#include "gated_table_cases.inc"

const std::vector<GatedTableCase> &all_cases() {
  static const std::vector<GatedTableCase> c = harness::sampled(gated_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;
using Shape = std::vector<int64_t>;

int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng()() % static_cast<uint64_t>(hi - lo + 1)); }

// View kinds: 0 contiguous; 1 transposed (reversed storage order, offset 3); 2 the dims before
// `tail` strided with a one-element gap, with an offset of 2 (the dims from `tail` on stay contiguous, so an
// interleaved split can flatten them; tail = ndim pads every dim).
Dev make(const Shape &shape, aclDataType dt, int kind, size_t tail) {
  if (kind == 1) return transposed_view(shape, dt);
  if (kind == 0) return std::make_unique<DeviceTensor>(shape, dt);
  std::vector<int64_t> st(shape.size());
  int64_t s = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (d < tail) ++s;  // a one-element gap after each step of this dim
    st[d] = s;
    s *= shape[d];
  }
  return std::make_unique<DeviceTensor>(shape, dt, st, 2);
}

// For element i (row-major) of the halved shape: the row-major indices of its a and b in x.
std::vector<std::pair<int64_t, int64_t>> pairs(const Shape &xs, int dim, bool interleaved, bool a_first) {
  Shape hs = xs;
  hs[static_cast<size_t>(dim)] /= 2;
  const int64_t n = numel_of(hs), h = hs[static_cast<size_t>(dim)];
  int64_t tail = 1;
  for (size_t d = static_cast<size_t>(dim); d < xs.size(); ++d) tail *= xs[d];
  std::vector<std::pair<int64_t, int64_t>> r(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t f, s;
    if (interleaved) {
      const int64_t o = i / (tail / 2), t = i % (tail / 2);
      f = o * tail + 2 * t;
      s = f + 1;
    } else {
      auto idx = unravel(i, hs);
      auto lin = [&](const Shape &k) {
        int64_t l = 0;
        for (size_t d = 0; d < xs.size(); ++d) l = l * xs[d] + k[d];
        return l;
      };
      f = lin(idx);
      idx[static_cast<size_t>(dim)] += h;
      s = lin(idx);
    }
    r[static_cast<size_t>(i)] = a_first ? std::make_pair(f, s) : std::make_pair(s, f);
  }
  return r;
}

// A random problem: 1-4 dims of 1-5 elements, an even size of 2-8 along the split dim.
struct Problem {
  Shape xs, hs;
  int dim = 0;
  int64_t dim_arg = -1;  // as passed (negative half of the time)
};
Problem random_problem(const GatedTableCase &c) {
  Problem p;
  const int nd = static_cast<int>(pick(1, 4));
  for (int d = 0; d < nd; ++d) p.xs.push_back(pick(1, 5));
  p.dim = c.has_dim ? static_cast<int>(pick(0, nd - 1)) : nd - 1;
  p.xs[static_cast<size_t>(p.dim)] = 2 * pick(1, 4);
  p.dim_arg = c.has_dim && pick(0, 1) ? p.dim - nd : p.dim;
  p.hs = p.xs;
  p.hs[static_cast<size_t>(p.dim)] /= 2;
  return p;
}

// The tensors of one call, made for a problem, and the arguments pointing at them.
struct Call {
  Dev x, grad, gelu, threshold, group, out, out_gelu;
  GatedArgs a;
  int run(const GatedTableCase &c) const {
    return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  }
};

Call make_call(const GatedTableCase &c, const Problem &p, aclDataType dt, int xkind, int okind,
               aclDataType out_dt = ACL_DT_UNDEFINED) {
  Call k;
  c.set(k.a);
  const size_t tail = c.interleaved ? static_cast<size_t>(p.dim) : p.xs.size();
  if (c.interleaved) xkind = xkind == 1 ? 2 : xkind, okind = okind == 1 ? 2 : okind;  // the tail must nest
  if (out_dt == ACL_DT_UNDEFINED) out_dt = dt;
  k.x = make(p.xs, dt, xkind, tail);
  k.x->fill_random(-4, 4);
  if (c.backward) {
    k.grad = make(p.hs, dt, okind, tail);
    k.grad->fill_random(-2, 2);
    k.out = make(p.xs, dt, okind, tail);
    if (c.has("gelu")) {
      k.gelu = make(p.hs, dt, xkind, tail);
      auto xv = k.x->values();
      auto pr = pairs(p.xs, p.dim, c.interleaved, c.a_first);
      std::vector<double> gv(pr.size());
      for (size_t i = 0; i < pr.size(); ++i)
        gv[i] = c.gelu_of(xv[static_cast<size_t>(pr[i].first)], xv[static_cast<size_t>(pr[i].second)]);
      k.gelu->set_values(gv);
    }
  } else {
    k.out = make(p.hs, out_dt, okind, tail);
    if (c.has("out_gelu")) k.out_gelu = make(p.hs, out_dt, xkind, tail);
    if (c.has("threshold")) {
      k.threshold = std::make_unique<DeviceTensor>(Shape{1}, dt);
      k.threshold->set_values({c.threshold});
    }
  }
  k.out->poison();
  if (k.out_gelu) k.out_gelu->poison();
  k.a.x = *k.x;
  k.a.out = *k.out;
  if (k.grad) k.a.grad = *k.grad;
  if (k.gelu) k.a.gelu = *k.gelu;
  if (k.out_gelu) k.a.out_gelu = *k.out_gelu;
  if (k.threshold) k.a.threshold = *k.threshold;
  k.a.dim = p.dim_arg;
  return k;
}

// The expected outputs (row-major) of a call: forward {out, outGelu}, gradient {out}.
std::vector<std::vector<double>> expected(const GatedTableCase &c, const Problem &p, const Call &k) {
  const auto xv = k.x->values();
  const auto pr = pairs(p.xs, p.dim, c.interleaved, c.a_first);
  std::vector<std::vector<double>> r;
  if (c.backward) {
    const auto gv = k.grad->values();
    const auto glv = k.gelu ? k.gelu->values() : std::vector<double>(gv.size(), 0.0);
    std::vector<double> o(xv.size());
    for (size_t i = 0; i < pr.size(); ++i) {
      const double a = xv[static_cast<size_t>(pr[i].first)], b = xv[static_cast<size_t>(pr[i].second)];
      o[static_cast<size_t>(pr[i].first)] = gv[i] * c.ref_a(a, b, glv[i]);
      o[static_cast<size_t>(pr[i].second)] = gv[i] * c.ref_b(a, b, glv[i]);
    }
    r.push_back(o);
    return r;
  }
  std::vector<double> o(pr.size()), og(pr.size());
  for (size_t i = 0; i < pr.size(); ++i) {
    const double a = xv[static_cast<size_t>(pr[i].first)], b = xv[static_cast<size_t>(pr[i].second)];
    o[i] = round_to(k.x->dtype(), c.ref_out(a, b));  // computed in x's dtype
    if (c.ref_out_gelu) og[i] = round_to(k.x->dtype(), c.ref_out_gelu(a, b));
  }
  r.push_back(o);
  r.push_back(og);
  return r;
}

void check_outputs(const GatedTableCase &c, const Problem &p, const Call &k) {
  const auto want = expected(c, p, k);
  EXPECT_TRUE(meets_precision(k.out->dtype(), k.out->values(), want[0]));
  EXPECT_TRUE(k.out->untouched_outside_view());
  if (k.out_gelu) {
    EXPECT_TRUE(meets_precision(k.out_gelu->dtype(), k.out_gelu->values(), want[1]));
    EXPECT_TRUE(k.out_gelu->untouched_outside_view());
  }
}

void check_grouped(const GatedTableCase &c, const Problem &p, aclDataType dt, int xkind, int okind, int64_t sum,
                   DeviceTensor &gi, aclDataType out_dt = ACL_DT_UNDEFINED);

// Every row runs OpTableGated; the forward rows also OpTableGatedForward, the gradient rows
// OpTableGatedGrad, the rows with a group index OpTableGatedGroup.
class OpTableGated : public ::testing::TestWithParam<GatedTableCase> {};
class OpTableGatedForward : public ::testing::TestWithParam<GatedTableCase> {};
class OpTableGatedGrad : public ::testing::TestWithParam<GatedTableCase> {};
class OpTableGatedGroup : public ::testing::TestWithParam<GatedTableCase> {};

std::vector<GatedTableCase> cases_where(bool (*keep)(const GatedTableCase &)) {
  std::vector<GatedTableCase> v;
  for (const GatedTableCase &c : all_cases())
    if (keep(c)) v.push_back(c);
  return v;
}

TEST_P(OpTableGated, EveryDtypeDimAndView) {
  const GatedTableCase &c = GetParam();
  reseed_for_current_test();
  for (aclDataType dt : c.dtypes) {
    for (int trial = 0; trial < 12; ++trial) {
      const Problem p = random_problem(c);
      const int xkind = trial % 3, okind = (trial / 3) % 3;
      SCOPED_TRACE(::testing::Message() << "dtype " << dt << " x " << ::testing::PrintToString(p.xs) << " dim "
                                        << p.dim_arg << " views " << xkind << okind);
      Call k = make_call(c, p, dt, xkind, okind);
      ASSERT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
      check_outputs(c, p, k);
    }
  }
}

TEST_P(OpTableGatedForward, WiderOutputTakesTheInputDtypeFirst) {  // (gradients write x's dtype: Errors)
  const GatedTableCase &c = GetParam();
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    const Problem p = random_problem(c);
    Call k = make_call(c, p, dt, 0, 0, ACL_FLOAT);
    ASSERT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
    for (double v : k.out->values()) EXPECT_EQ(v, round_to(dt, v));
    check_outputs(c, p, k);
    if (c.has_group) {  // the grouped step rounds through x's dtype too
      Problem pg;
      pg.xs = {4, 8};
      pg.hs = {4, 4};
      pg.dim = 1;
      pg.dim_arg = -1;
      DeviceTensor gi({1}, ACL_INT64);
      gi.set_values({3});
      check_grouped(c, pg, dt, 0, 0, 3, gi, ACL_FLOAT);
    }
  }
}

TEST_P(OpTableGated, SpecialValues) {
  const GatedTableCase &c = GetParam();
  const double sp[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-40, 1.0, -1.0, 1.5, -2.5, 10.0, -10.0, 88.5, -87.0, 1e30,
                       -1e38};
  const int64_t n = sizeof(sp) / sizeof(sp[0]);
  Problem p;
  p.xs = {n * n, 2};
  p.hs = {n * n, 1};
  p.dim = 1;
  p.dim_arg = -1;
  Call k = make_call(c, p, ACL_FLOAT, 0, 0);
  std::vector<double> xv;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) xv.push_back(sp[i]), xv.push_back(sp[j]);
  k.x->set_values(xv);
  if (c.backward) {
    k.grad->set_values(std::vector<double>(static_cast<size_t>(n * n), 1.0));
    if (k.gelu) {
      std::vector<double> gv;
      for (size_t i = 0; i < xv.size(); i += 2)
        gv.push_back(c.gelu_of(c.a_first ? xv[i] : xv[i + 1], c.a_first ? xv[i + 1] : xv[i]));
      k.gelu->set_values(gv);
    }
  }
  ASSERT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
  const auto want = expected(c, p, k)[0];
  const auto got = k.out->values();
  for (size_t i = 0; i < got.size(); ++i) {
    const size_t pair = c.backward ? i / 2 : i;
    EXPECT_TRUE(harness::same_special(got[i], round_to(ACL_FLOAT, want[i]), 1e-4, false))
        << "first, second = " << xv[2 * pair] << ", " << xv[2 * pair + 1] << ": got " << got[i] << ", want " << want[i];
  }
}

TEST_P(OpTableGated, EmptyTensors) {
  const GatedTableCase &c = GetParam();
  for (int which = 0; which < 2; ++which) {
    Problem p;
    p.xs = which == 0 ? Shape{0, 4} : Shape{3, 0};  // an empty row dim, an empty split dim
    p.dim = 1;
    p.dim_arg = -1;
    p.hs = {p.xs[0], p.xs[1] / 2};
    Call k = make_call(c, p, ACL_FLOAT, 0, 0);
    EXPECT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
  }
}

// The rows' references against central differences of the forward row's reference (in double), and
// the op's FLOAT gradient against both. Points near a kink (one-sided differences that disagree) are
// skipped.
TEST_P(OpTableGatedGrad, GradientIsTheDerivativeOfTheForward) {
  const GatedTableCase &c = GetParam();
  reseed_for_current_test();
  std::uniform_real_distribution<double> u(-2.5, 2.5);
  int checked = 0;
  for (int k = 0; k < 40 && checked < 12; ++k) {
    const double a = static_cast<float>(u(rng())), b = static_cast<float>(u(rng()));
    const double h = 1e-6;
    auto fd = [&](bool wrt_a, int side) {
      const double da = wrt_a ? h : 0, db = wrt_a ? 0 : h;
      if (side > 0) return (c.fwd(a + da, b + db) - c.fwd(a, b)) / h;
      if (side < 0) return (c.fwd(a, b) - c.fwd(a - da, b - db)) / h;
      return (c.fwd(a + da, b + db) - c.fwd(a - da, b - db)) / (2 * h);
    };
    if (std::fabs(fd(true, 1) - fd(true, -1)) > 1e-3 || std::fabs(fd(false, 1) - fd(false, -1)) > 1e-3) continue;
    ++checked;
    const double gelu = c.gelu_of ? c.gelu_of(a, b) : 0.0;
    const double fa = fd(true, 0), fb = fd(false, 0);
    EXPECT_NEAR(c.ref_a(a, b, gelu), fa, 1e-5 * std::max(1.0, std::fabs(fa))) << a << " " << b;
    EXPECT_NEAR(c.ref_b(a, b, gelu), fb, 1e-5 * std::max(1.0, std::fabs(fb))) << a << " " << b;
    Problem p;
    p.xs = {1, 2};
    p.hs = {1, 1};
    p.dim = 1;
    Call call = make_call(c, p, ACL_FLOAT, 0, 0);
    call.x->set_values(c.a_first ? std::vector<double>{a, b} : std::vector<double>{b, a});
    call.grad->set_values({1.0});
    if (call.gelu) call.gelu->set_values({gelu});
    ASSERT_EQ(call.run(c), 0) << aclGetRecentErrMsg();
    const auto o = call.out->values();
    const double ga = c.a_first ? o[0] : o[1], gb = c.a_first ? o[1] : o[0];
    EXPECT_NEAR(ga, fa, 2e-4 * std::max(1.0, std::fabs(fa))) << a << " " << b;
    EXPECT_NEAR(gb, fb, 2e-4 * std::max(1.0, std::fabs(fb))) << a << " " << b;
  }
  EXPECT_GE(checked, 6);
}

// groupIndexOptional: rows (indices of the dims before dim, row-major) below sum(groupIndex) get the
// op, the rest +0; the sum is clamped to [0, rows].
void check_grouped(const GatedTableCase &c, const Problem &p, aclDataType dt, int xkind, int okind, int64_t sum,
                   DeviceTensor &gi, aclDataType out_dt) {
  Call k = make_call(c, p, dt, xkind, okind, out_dt);
  k.a.group = gi;
  ASSERT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
  auto want = expected(c, p, k)[0];
  int64_t rows = 1;
  for (int d = 0; d < p.dim; ++d) rows *= p.xs[static_cast<size_t>(d)];
  const int64_t valid = std::max<int64_t>(0, std::min(sum, rows));
  const int64_t per_row = static_cast<int64_t>(want.size()) / std::max<int64_t>(rows, 1);
  for (size_t i = 0; i < want.size(); ++i)
    if (static_cast<int64_t>(i) / per_row >= valid) want[i] = 0.0;
  const auto got = k.out->values();
  EXPECT_TRUE(meets_precision(dt, got, want));
  for (double v : got) EXPECT_EQ(v, round_to(dt, v));  // a wider out holds x's dtype's values
  for (size_t i = 0; i < got.size(); ++i)
    if (static_cast<int64_t>(i) / per_row >= valid) EXPECT_TRUE(got[i] == 0.0 && !std::signbit(got[i])) << i;
  EXPECT_TRUE(k.out->untouched_outside_view());
}

TEST_P(OpTableGatedGroup, GroupIndexEverySum) {
  const GatedTableCase &c = GetParam();
  reseed_for_current_test();
  Problem p;  // two row dims (2 x 3 rows)
  p.xs = {2, 3, 8};
  p.hs = {2, 3, 4};
  p.dim = 2;
  p.dim_arg = -1;
  DeviceTensor gi({3}, ACL_INT64);
  for (int64_t sum : {0, 1, 2, 3, 4, 5, 6, 7, 100, -2}) {
    SCOPED_TRACE(::testing::Message() << "sum " << sum);
    gi.set_values({1, static_cast<double>(sum - 1), 0});
    check_grouped(c, p, ACL_FLOAT, 0, 0, sum, gi);
  }
}

TEST_P(OpTableGatedGroup, GroupIndexDtypesDimsViews) {
  const GatedTableCase &c = GetParam();
  reseed_for_current_test();
  DeviceTensor gi({2}, ACL_INT64, {2}, 1);  // a strided group index
  for (aclDataType dt : c.dtypes) {
    for (int dim : {0, 1, 2}) {
      Problem p;
      p.xs = {2, 4, 6};
      p.dim = dim;
      p.dim_arg = dim - 3;
      p.hs = p.xs;
      p.hs[static_cast<size_t>(dim)] /= 2;
      int64_t rows = 1;
      for (int d = 0; d < dim; ++d) rows *= p.xs[static_cast<size_t>(d)];
      for (int64_t sum : {int64_t{0}, rows * 5 / 8, rows}) {
        SCOPED_TRACE(::testing::Message() << "dtype " << dt << " dim " << dim << " sum " << sum);
        gi.set_values({static_cast<double>(sum / 2), static_cast<double>(sum - sum / 2)});
        check_grouped(c, p, dt, 1, 2, sum, gi);
      }
    }
  }
}

// ---- errors

::testing::AssertionResult fails(const GatedTableCase &c, const GatedArgs &a, int code,
                                 std::initializer_list<const char *> words) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int st = c.phase1(a, &ws, &ex);
  if (st == 0) aclDestroyAclOpExecutor(ex);
  std::vector<const char *> w(words);
  w.insert(w.begin(), c.api.c_str());
  auto r = fails_with(st, code, {});
  if (!r) return r;
  const std::string msg = aclGetRecentErrMsg();
  for (const char *s : w)
    if (msg.find(s) == std::string::npos) return ::testing::AssertionFailure() << "message '" << msg << "' lacks '" << s << "'";
  return ::testing::AssertionSuccess();
}

TEST_P(OpTableGated, Errors) {
  const GatedTableCase &c = GetParam();
  Problem p;
  p.xs = {4, 6};
  p.hs = {4, 3};
  p.dim = 1;
  p.dim_arg = -1;
  Call k = make_call(c, p, ACL_FLOAT, 0, 0);
  ASSERT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
  auto with = [&](auto change) {
    GatedArgs a = k.a;
    change(a);
    return a;
  };
  // Each required tensor null.
  aclTensor *GatedArgs::*field[] = {&GatedArgs::x, &GatedArgs::grad, &GatedArgs::gelu, &GatedArgs::threshold,
                                    &GatedArgs::out, &GatedArgs::out_gelu};
  const char *role[] = {"x", "grad", "gelu", "threshold", "out", "out_gelu"};
  for (int i = 0; i < 6; ++i) {
    if (std::find(c.required.begin(), c.required.end(), role[i]) == c.required.end()) continue;
    const std::string name = c.arg(role[i]);
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.*field[i] = nullptr; }), ACLNN_ERR_PARAM_NULLPTR, {name.c_str()}))
        << role[i];
  }
  const std::string xn = c.arg("x"), on = c.arg("out");
  // Input dtype outside the rule; 0-d input; odd split size; dim out of range.
  DeviceTensor xi({4, 6}, ACL_INT32), x0({}, ACL_FLOAT), xodd({4, 5}, ACL_FLOAT);
  EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.x = xi; }), ACLNN_ERR_PARAM_INVALID, {xn.c_str(), "INT32"}));
  EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.x = x0; }), ACLNN_ERR_PARAM_INVALID, {xn.c_str(), "0-d"}));
  EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.x = xodd; }), c.status, {xn.c_str(), "odd", "5"}));
  if (c.has_dim) {
    EXPECT_TRUE(fails(c, with([](GatedArgs &a) { a.dim = 2; }), ACLNN_ERR_PARAM_INVALID, {"dim"}));
    EXPECT_TRUE(fails(c, with([](GatedArgs &a) { a.dim = -3; }), ACLNN_ERR_PARAM_INVALID, {"dim"}));
  }
  // Wrong shapes.
  DeviceTensor h_bad({4, 2}, ACL_FLOAT), full_bad({4, 7}, ACL_FLOAT), out_int({4, 3}, ACL_INT32);
  DeviceTensor h16({4, 3}, ACL_FLOAT16), full16({4, 6}, ACL_FLOAT16);
  if (c.backward) {
    const std::string gn = c.arg("grad");
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.grad = h_bad; }), c.status, {gn.c_str(), "[4, 2]", "[4, 3]"}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.out = full_bad; }), c.status, {on.c_str(), "[4, 7]", "[4, 6]"}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.grad = h16; }), ACLNN_ERR_PARAM_INVALID, {gn.c_str(), "FLOAT16"}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.out = full16; }), ACLNN_ERR_PARAM_INVALID, {on.c_str(), "FLOAT16"}));
    if (c.has("gelu")) {
      EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.gelu = h_bad; }), c.status, {"gelu", "[4, 2]"}));
      EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.gelu = h16; }), ACLNN_ERR_PARAM_INVALID, {"gelu", "FLOAT16"}));
    }
  } else {
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.out = h_bad; }), c.status, {on.c_str(), "[4, 2]", "[4, 3]"}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.out = out_int; }), ACLNN_ERR_PARAM_INVALID, {on.c_str(), "INT32"}));
    if (c.has("out_gelu")) {
      const std::string gn = c.arg("out_gelu");
      EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.out_gelu = h_bad; }), c.status, {gn.c_str(), "[4, 2]"}));
    }
    if (c.has("threshold")) {
      DeviceTensor t2({2}, ACL_FLOAT), ti({1}, ACL_INT32);
      EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.threshold = t2; }), ACLNN_ERR_PARAM_INVALID, {"threshold", "[2]"}));
      EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.threshold = ti; }), ACLNN_ERR_PARAM_INVALID, {"threshold", "INT32"}));
    }
  }
  // An interleaved split over a tail that does not nest (transposed x with a dim after the split dim).
  if (c.interleaved && c.has_dim) {
    auto xt = transposed_view({2, 4, 3}, ACL_FLOAT);
    DeviceTensor g3({2, 2, 3}, ACL_FLOAT), o3({2, 2, 3}, ACL_FLOAT), full3({2, 4, 3}, ACL_FLOAT);
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) {
                        a.x = *xt;
                        a.dim = 1;
                        if (c.backward) a.grad = g3, a.out = full3;
                        else a.out = o3;
                      }),
                      ACLNN_ERR_PARAM_INVALID, {xn.c_str(), "contiguous"}));
  }
  if (c.has_group) {
    DeviceTensor gi32({2}, ACL_INT32), gi2d({2, 1}, ACL_INT64), gi({1}, ACL_INT64);
    // The other checks still apply with a group index.
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.group = gi, a.out = c.backward ? full_bad.get() : h_bad.get(); }),
                      c.status, {on.c_str()}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.group = gi, a.dim = 2; }), ACLNN_ERR_PARAM_INVALID, {"dim"}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.group = gi32; }), ACLNN_ERR_PARAM_INVALID,
                      {"groupIndexOptional", "INT64", "INT32"}));
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { a.group = gi2d; }), ACLNN_ERR_PARAM_INVALID,
                      {"groupIndexOptional", "1-D", "2 dims"}));
  }
  for (const GatedReject &r : c.rejects) {
    SCOPED_TRACE(r.word);
    EXPECT_TRUE(fails(c, with([&](GatedArgs &a) { r.set(a); }), r.code, {r.word.c_str()}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableGated, ::testing::ValuesIn(all_cases()), harness::case_name<GatedTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableGatedForward,
                         ::testing::ValuesIn(cases_where([](const GatedTableCase &c) { return !c.backward; })),
                         harness::case_name<GatedTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableGatedGrad,
                         ::testing::ValuesIn(cases_where([](const GatedTableCase &c) { return c.backward; })),
                         harness::case_name<GatedTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableGatedGroup,
                         ::testing::ValuesIn(cases_where([](const GatedTableCase &c) { return c.has_group; })),
                         harness::case_name<GatedTableCase>);

// ---- what the table samples do not express

// An interleaved split flattens the dims from dim on: x [2, 4, 3] at dim 1 takes the even / odd
// positions of its 12-element tails (forward and gradient).
TEST(OpTableGatedSpecific, InterleavedSplitFlattensTheTail) {
  reseed_for_current_test();
  int ran = 0;
  for (const GatedTableCase &c : gated_table_cases()) {  // every registered case, unsampled
    if (!c.interleaved) continue;
    ++ran;
    SCOPED_TRACE(c.name);
    Problem p;
    p.xs = {2, 4, 3};
    p.hs = {2, 2, 3};
    p.dim = 1;
    p.dim_arg = 1;
    Call k = make_call(c, p, ACL_FLOAT, 2, 0);
    ASSERT_EQ(k.run(c), 0) << aclGetRecentErrMsg();
    const auto xv = k.x->values();
    const auto got = k.out->values();
    for (int o = 0; o < 2; ++o)  // the pairs written out by hand
      for (int t = 0; t < 6; ++t) {
        const double a = xv[static_cast<size_t>(o * 12 + 2 * t)], b = xv[static_cast<size_t>(o * 12 + 2 * t + 1)];
        if (c.backward) {
          const double g = k.grad->values()[static_cast<size_t>(o * 6 + t)];
          EXPECT_NEAR(got[static_cast<size_t>(o * 12 + 2 * t)], g * c.ref_a(a, b, 0), 1e-5);
          EXPECT_NEAR(got[static_cast<size_t>(o * 12 + 2 * t + 1)], g * c.ref_b(a, b, 0), 1e-5);
        } else {
          EXPECT_NEAR(got[static_cast<size_t>(o * 6 + t)], c.ref_out(a, b), 1e-5 * std::max(1.0, std::fabs(c.ref_out(a, b))));
        }
      }
  }
  EXPECT_GE(ran, 3);  // ClippedSwiglu, ClippedSwigluV2 and ClippedSwigluGrad have an interleaved sample
}

}  // namespace
}  // namespace opsnn::test

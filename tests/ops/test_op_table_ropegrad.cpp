// The test harness of the RoPE-gradient table (src/ops/position/rope_grad.ops), cases registered from
// the table by tools/gen_ops.py --tests (ropegrad_table_cases.inc). Against the float64 reference
// rope_grad_ref (tests/common/float64_refs.h, itself checked here against central differences of
// rope_ref), every dtype and both modes:
//   - random shapes (1-4 dims) with cos / sin broadcast along random dims (fewer dims too), x given or
//     null (dcosOut / dsinOut then unwritten); contiguous and strided + offset views, nothing written
//     outside the views;
//   - the op's gradient against finite differences of the forward op aclnnRotaryPositionEmbedding;
//   - errors: each argument named (null, dtype, shape, broadcast, odd last dim, mode, overlap).
#include <algorithm>
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "error_cases.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct RopeGradArgs {
  aclTensor *dy = nullptr, *cos = nullptr, *sin = nullptr, *x = nullptr;
  int64_t mode = 0;
  aclTensor *dx = nullptr, *dcos = nullptr, *dsin = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct RopeGradTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const RopeGradArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const RopeGradTableCase &c, std::ostream *os) { *os << c.name; }

#include "ropegrad_table_cases.inc"

const std::vector<RopeGradTableCase> &all_cases() {
  static const std::vector<RopeGradTableCase> c = harness::sampled(ropegrad_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

int64_t pick(std::mt19937_64 &g, int64_t lo, int64_t hi) {
  return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1));
}

// Contiguous, or every dim padded by one with an offset.
Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  if (!strided) return std::make_unique<DeviceTensor>(shape, dt);
  return padded_view(shape, dt, 2);
}

struct Expected {
  std::vector<double> dx, dcos, dsin;
};

// The reference over whole tensors: row by row, cos / sin read through the broadcast, their
// gradients summed over the dy rows that broadcast onto each cos row.
Expected expected(const std::vector<int64_t> &ys, const std::vector<int64_t> &cs, const std::vector<double> &dy,
                  const std::vector<double> &x, const std::vector<double> &cv, const std::vector<double> &sv,
                  int64_t mode) {
  const int64_t n = ys.back(), rows = numel_of(ys) / n;
  Expected e{std::vector<double>(dy.size()), std::vector<double>(cv.size(), 0.0), std::vector<double>(cv.size(), 0.0)};
  auto row = [&](const std::vector<double> &v, int64_t r) {
    return std::vector<double>(v.begin() + r * n, v.begin() + (r + 1) * n);
  };
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t cr = broadcast_source(unravel(r * n, ys), ys, cs) / n;
    const auto g = refs::rope_grad_ref(row(dy, r), x.empty() ? std::vector<double>{} : row(x, r), row(cv, cr),
                                       row(sv, cr), mode);
    std::copy(g.dx.begin(), g.dx.end(), e.dx.begin() + r * n);
    for (int64_t j = 0; j < n && !x.empty(); ++j) {
      e.dcos[static_cast<size_t>(cr * n + j)] += g.dcos[static_cast<size_t>(j)];
      e.dsin[static_cast<size_t>(cr * n + j)] += g.dsin[static_cast<size_t>(j)];
    }
  }
  return e;
}

void run_case(const RopeGradTableCase &c, aclDataType dt, const std::vector<int64_t> &ys,
              const std::vector<int64_t> &cs, int64_t mode, bool with_x, bool strided) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " dy " << ::testing::PrintToString(ys) << " cos "
                                    << ::testing::PrintToString(cs) << " mode " << mode << (with_x ? " x" : "")
                                    << (strided ? " strided" : ""));
  Dev dy = make(ys, dt, strided), x = make(ys, dt, !strided), cv = make(cs, dt, strided), sv = make(cs, dt, false),
      dx = make(ys, dt, strided), dcos = make(cs, dt, !strided), dsin = make(cs, dt, strided);
  dy->fill_random(-2, 2);
  x->fill_random(-2, 2);
  cv->fill_random(-1, 1);
  sv->fill_random(-1, 1);
  for (DeviceTensor *o : {dx.get(), dcos.get(), dsin.get()}) o->poison();
  RopeGradArgs a{*dy, *cv, *sv, with_x ? x->get() : nullptr, mode, *dx, *dcos, *dsin};
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  Expected e = expected(ys, cs, dy->values(), with_x ? x->values() : std::vector<double>{}, cv->values(),
                        sv->values(), mode);
  for (double &v : e.dx) v = round_to(dt, v);
  EXPECT_TRUE(meets_precision(dt, dx->values(), e.dx)) << "dxOut";
  EXPECT_TRUE(dx->untouched_outside_view());
  if (with_x) {
    EXPECT_TRUE(meets_precision(dt, dcos->values(), e.dcos)) << "dcosOut";
    EXPECT_TRUE(meets_precision(dt, dsin->values(), e.dsin)) << "dsinOut";
  } else {  // not computed: still poisoned
    for (double v : dcos->values()) EXPECT_TRUE(std::isnan(v));
    for (double v : dsin->values()) EXPECT_TRUE(std::isnan(v));
  }
  EXPECT_TRUE(dcos->untouched_outside_view());
  EXPECT_TRUE(dsin->untouched_outside_view());
}

class OpTableRopeGrad : public ::testing::TestWithParam<RopeGradTableCase> {};

TEST_P(OpTableRopeGrad, RandomShapesAndBroadcasts) {
  reseed_for_current_test();
  const RopeGradTableCase &c = GetParam();
  auto &g = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 8; ++k, ++v) {
      const int nd = static_cast<int>(pick(g, 1, 4));
      std::vector<int64_t> ys(static_cast<size_t>(nd));
      for (int d = 0; d + 1 < nd; ++d) ys[static_cast<size_t>(d)] = pick(g, 1, 5);
      ys.back() = v % 4 == 3 ? 64 : 2 * pick(g, 1, 8);
      // cos: each leading dim 1 or in full, sometimes fewer dims.
      const int cnd = v % 3 == 2 ? static_cast<int>(pick(g, 1, nd)) : nd;
      std::vector<int64_t> cs(ys.end() - cnd, ys.end());
      for (int d = 0; d + 1 < cnd; ++d)
        if (g() % 2 == 0) cs[static_cast<size_t>(d)] = 1;
      run_case(c, dt, ys, cs, v % 2, v % 5 != 4, v % 2 == 1);
    }
}

// L(x, cos, sin) = sum(dy * forward(x, cos, sin)) is linear in each input, so the central difference
// with step 1, (L(u + e) - L(u - e)) / 2, is its exact partial derivative up to rounding: the
// gradient op against the forward op, in FLOAT.
TEST_P(OpTableRopeGrad, MatchesFiniteDifferencesOfTheForwardOp) {
  reseed_for_current_test();
  const RopeGradTableCase &c = GetParam();
  const std::vector<int64_t> ys{2, 3, 6}, cs{1, 3, 6};
  for (int64_t mode : {0, 1}) {
    DeviceTensor dy(ys, ACL_FLOAT), x(ys, ACL_FLOAT), cv(cs, ACL_FLOAT), sv(cs, ACL_FLOAT), dx(ys, ACL_FLOAT),
        dcos(cs, ACL_FLOAT), dsin(cs, ACL_FLOAT), y(ys, ACL_FLOAT);
    dy.fill_random(-1, 1);
    x.fill_random(-1, 1);
    cv.fill_random(-1, 1);
    sv.fill_random(-1, 1);
    RopeGradArgs a{dy, cv, sv, x, mode, dx, dcos, dsin};
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    const std::vector<double> dyv = dy.values();
    auto loss = [&]() {
      EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
                         return aclnnRotaryPositionEmbeddingGetWorkspaceSize(x, cv, sv, mode, y, w, e);
                       },
                       aclnnRotaryPositionEmbedding),
                0);
      const std::vector<double> yv = y.values();
      double l = 0.0;
      for (size_t i = 0; i < yv.size(); ++i) l += dyv[i] * yv[i];
      return l;
    };
    auto check = [&](DeviceTensor &in, const DeviceTensor &grad, const char *what) {
      std::vector<double> u = in.values();
      const std::vector<double> got = grad.values();
      for (size_t i = 0; i < u.size(); ++i) {
        const double u0 = u[i];
        u[i] = u0 + 1;
        in.set_values(u);
        const double lp = loss();
        u[i] = u0 - 1;
        in.set_values(u);
        const double lm = loss();
        u[i] = u0;
        in.set_values(u);
        EXPECT_NEAR(got[i], (lp - lm) / 2, 1e-5 * (1 + std::fabs(lp) + std::fabs(lm))) << what << "[" << i << "] mode "
                                                                                     << mode;
      }
    };
    check(x, dx, "dxOut");
    check(cv, dcos, "dcosOut");
    check(sv, dsin, "dsinOut");
  }
}

TEST_P(OpTableRopeGrad, ErrorsNameTheArgument) {
  const RopeGradTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor dy({2, 3, 4}, ACL_FLOAT), cv({1, 3, 4}, ACL_FLOAT), sv({1, 3, 4}, ACL_FLOAT), x({2, 3, 4}, ACL_FLOAT),
      dx({2, 3, 4}, ACL_FLOAT), dcos({1, 3, 4}, ACL_FLOAT), dsin({1, 3, 4}, ACL_FLOAT);
  for (DeviceTensor *t : {&dy, &cv, &sv, &x}) t->fill_random(-1, 1);
  const RopeGradArgs good{dy, cv, sv, x, 0, dx, dcos, dsin};
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto phase1 = [&](const RopeGradArgs &a, uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); };
  auto fails = [&](const RopeGradArgs &a, int code, std::initializer_list<const char *> needles) {
    return fails_with(c.phase1(a, &ws, &ex), code, needles);
  };
  using F = harness::ArgField<RopeGradArgs>;
  const std::vector<F> fields = {{&RopeGradArgs::dy, "dy"},          {&RopeGradArgs::cos, "cos"},
                                 {&RopeGradArgs::sin, "sin"},        {&RopeGradArgs::x, "xOptional", true},
                                 {&RopeGradArgs::dx, "dxOut"},       {&RopeGradArgs::dcos, "dcosOut"},
                                 {&RopeGradArgs::dsin, "dsinOut"}};
  harness::expect_each_rejected(api, good, fields, {}, ACLNN_ERR_PARAM_NULLPTR, nullptr, phase1);
  // A wrong dtype for each tensor (dy's outside the rule, the others not dy's).
  DeviceTensor dyd({2, 3, 4}, ACL_DOUBLE), ch({1, 3, 4}, ACL_FLOAT16), sb({1, 3, 4}, ACL_BF16), xi({2, 3, 4}, ACL_INT32),
      dxh({2, 3, 4}, ACL_FLOAT16), dch({1, 3, 4}, ACL_FLOAT16), dsh({1, 3, 4}, ACL_DOUBLE);
  harness::expect_each_rejected(api, good, fields, {dyd, ch, sb, xi, dxh, dch, dsh}, ACLNN_ERR_PARAM_INVALID, "dtype",
                                phase1);
  // Shapes.
  DeviceTensor dy5({2, 3, 5}, ACL_FLOAT), c2({2, 2, 4}, ACL_FLOAT), s2({2, 3, 4}, ACL_FLOAT), x2({2, 3, 2}, ACL_FLOAT),
      dx2({3, 3, 4}, ACL_FLOAT), dc2({2, 3, 4}, ACL_FLOAT), ds2({3, 4}, ACL_FLOAT);
  harness::expect_each_rejected(api, good, fields, {dy5, c2, s2, x2, dx2, dc2, ds2}, ACLNN_ERR_PARAM_INVALID, nullptr,
                                phase1);
  for (int64_t mode : {2, 3, 4, -1}) {
    RopeGradArgs a = good;
    a.mode = mode;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "mode"})) << mode;
  }
  RopeGradArgs a = good;
  a.dx = dy;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "dxOut", "overlaps"}));
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableRopeGrad, ::testing::ValuesIn(all_cases()),
                         harness::case_name<RopeGradTableCase>);

}  // namespace
}  // namespace opsnn::test

// The reference against central differences of the forward reference rope_ref (h = 1e-3 in double).
TEST(RopeGradReference, MatchesCentralDifferencesOfRopeRef) {
  using opsnn::test::refs::rope_ref;
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int64_t mode : {0, 1}) {
    const size_t n = 8;
    std::vector<double> dy(n), x(n), cs(n), sn(n);
    for (size_t i = 0; i < n; ++i) dy[i] = u(g), x[i] = u(g), cs[i] = u(g), sn[i] = u(g);
    const auto r = opsnn::test::refs::rope_grad_ref(dy, x, cs, sn, mode);
    auto L = [&](const std::vector<double> &xx, const std::vector<double> &cc, const std::vector<double> &ss) {
      const auto y = rope_ref(xx, cc, ss, mode);
      double l = 0;
      for (size_t i = 0; i < n; ++i) l += dy[i] * y[i];
      return l;
    };
    const double h = 1e-3;
    for (size_t i = 0; i < n; ++i) {
      auto xp = x, xm = x, cp = cs, cm = cs, sp = sn, sm = sn;
      xp[i] += h, xm[i] -= h, cp[i] += h, cm[i] -= h, sp[i] += h, sm[i] -= h;
      EXPECT_NEAR(r.dx[i], (L(xp, cs, sn) - L(xm, cs, sn)) / (2 * h), 1e-9) << "dx " << i;
      EXPECT_NEAR(r.dcos[i], (L(x, cp, sn) - L(x, cm, sn)) / (2 * h), 1e-9) << "dcos " << i;
      EXPECT_NEAR(r.dsin[i], (L(x, cs, sp) - L(x, cs, sm)) / (2 * h), 1e-9) << "dsin " << i;
    }
  }
}

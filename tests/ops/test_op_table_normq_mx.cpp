// The MX rows of the fused norm + quantisation table (RmsNormDynamicMxQuant, AddRmsNormDynamicMxQuant; cases
// registered from src/ops/norm/norm_quant.ops). References in float64 written here from the documented formulas
// (ops/norm/norm_quant_phase1.h): x = x1 (+ x2), rstd = 1 / sqrt(mean(x^2) + eps), y = x * rstd * gamma + beta,
// then DynamicMxQuant's blocks of 32 along the last dim (the scale rules of tests/common/mx_scale_ref.h, the
// element codes of tests/common/low_float_ref.h):
//   - every x dtype, dstType, scaleAlg and round mode, random shapes (short last blocks, odd block counts),
//     many rows across tasks; the scale and element codes exact, except where amax sits within 1e-5 (relative)
//     of a binade or y within 4e-6 of the block max of a rounding boundary, where fp32 and float64 may differ;
//   - a constructed row (eps 0, x = 1: y = gamma exactly) against codes worked out by hand;
//   - non-contiguous x / x2 / gamma, no beta, outputRstd false, empty tensors;
//   - every error path with its status and the argument it names.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "low_float_ref.h"
#include "mx_scale_ref.h"
#include "normq_table_case.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

#include "normq_table_cases.inc"

std::vector<NormQuantTableCase> mx_cases() {
  std::vector<NormQuantTableCase> v;
  for (const auto &c : harness::sampled(normq_table_cases()))
    if (c.mx) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;
using Shape = std::vector<int64_t>;
using mxref::Config;

bool fp4(aclDataType dt) { return dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT4_E1M2; }

char *mode_name(lfref::Mode m) {
  static char rint[] = "rint", floor_[] = "floor", round_[] = "round";
  return m == lfref::kFloor ? floor_ : m == lfref::kRound ? round_ : rint;
}

// Every accepted (dstType, scaleAlg, roundMode): scaleAlg 1 with FLOAT8, 2 with FLOAT4_E2M1; FLOAT4 rounds
// rint / floor / round, FLOAT8 rint.
std::vector<Config> configs() {
  std::vector<Config> v;
  for (aclDataType dst : {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2})
    for (int64_t alg : {0, 1, 2}) {
      if ((alg == 1 && fp4(dst)) || (alg == 2 && dst != ACL_FLOAT4_E2M1)) continue;
      for (lfref::Mode m : {lfref::kRint, lfref::kFloor, lfref::kRound}) {
        if (m != lfref::kRint && !fp4(dst)) continue;
        Config cf;
        cf.dst = dst;
        cf.alg = alg;
        cf.mode = m;
        v.push_back(cf);
      }
    }
  return v;
}

Shape scale_shape(Shape s) {
  s.back() = ((s.back() + 31) / 32 + 1) / 2;
  s.push_back(2);
  return s;
}

struct Options {
  Shape shape = {3, 64};
  aclDataType dt = ACL_FLOAT16;
  Config cf;
  bool beta = true, strided = false, output_rstd = true;
};

struct Call {
  Dev x, x2, gamma, beta, y, xsum, scale, rstd;
  NormQuantArgs a;
  Config cf;
  int64_t rows = 0, n = 0;
};

Dev make(const Shape &shape, aclDataType dt, double lo, double hi) {
  auto t = std::make_unique<DeviceTensor>(shape, dt);
  t->fill_random(lo, hi);
  return t;
}
Dev make_out(const Shape &shape, aclDataType dt) {
  auto t = std::make_unique<DeviceTensor>(shape, dt);
  t->poison();
  return t;
}

Call build(const NormQuantTableCase &c, const Options &o) {
  Call k;
  k.cf = o.cf;
  k.n = o.shape.back();
  k.rows = numel_of(o.shape) / std::max<int64_t>(k.n, 1);
  NormQuantArgs &a = k.a;
  auto input = [&](double lo, double hi) {
    Dev t = o.strided ? transposed_view(o.shape, o.dt) : make(o.shape, o.dt, lo, hi);
    t->fill_random(lo, hi);
    return t;
  };
  k.x = input(-2, 2);
  a.x = *k.x;
  if (c.has("x2")) {
    k.x2 = input(-1, 1);
    a.x2 = *k.x2;
    k.xsum = make_out(o.shape, o.dt);
    a.xsum = *k.xsum;
  }
  k.gamma = o.strided ? padded_view({k.n}, o.dt) : make({k.n}, o.dt, 0.5, 1.5);
  k.gamma->fill_random(0.5, 1.5);
  a.gamma = *k.gamma;
  if (o.beta) {
    k.beta = make({k.n}, o.dt, -0.5, 0.5);
    a.beta = *k.beta;
  }
  k.y = make_out(o.shape, o.cf.dst);
  a.y1 = *k.y;
  k.scale = make_out(scale_shape(o.shape), ACL_FLOAT8_E8M0);
  a.mx_scale = *k.scale;
  Shape rs = o.shape;
  rs.back() = 1;
  k.rstd = make_out(rs, ACL_FLOAT);
  a.rstd = *k.rstd;
  a.output_rstd = o.output_rstd;
  a.eps = 1e-6;
  a.dst_type = o.cf.dst;
  a.scale_alg = o.cf.alg;
  a.round_mode = mode_name(o.cf.mode);
  return k;
}

int run(const NormQuantTableCase &c, const NormQuantArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// The float64 norm of every row: y, x1 + x2, rstd.
struct Norm {
  std::vector<double> y, xsum, rstd;
};

Norm reference_norm(const Call &k) {
  Norm e;
  const std::vector<double> xv = k.x->values();
  const std::vector<double> x2v = k.x2 ? k.x2->values() : std::vector<double>(xv.size(), 0.0);
  const std::vector<double> g = k.gamma->values();
  const std::vector<double> bt = k.beta ? k.beta->values() : std::vector<double>(static_cast<size_t>(k.n), 0.0);
  for (int64_t r = 0; r < k.rows; ++r) {
    double ss = 0;
    for (int64_t j = 0; j < k.n; ++j) {
      const double v = xv[r * k.n + j] + x2v[r * k.n + j];
      e.xsum.push_back(v);
      ss += v * v;
    }
    const double rstd = 1.0 / std::sqrt(ss / k.n + k.a.eps);
    e.rstd.push_back(rstd);
    for (int64_t j = 0; j < k.n; ++j) e.y.push_back(e.xsum[r * k.n + j] * rstd * g[j] + bt[j]);
  }
  return e;
}

// `got` is what the reference `want(v)` gives for v itself, or for v moved by `slack` either way.
bool near_boundary(int got, double v, double slack, const std::function<int(double)> &want) {
  return got == want(v) || got == want(v + slack) || got == want(v - slack);
}

// The codes of y and mxscale against the reference (the element codes from the scale the op chose, which
// must itself be the reference's or one a 1e-5 move of amax gives).
::testing::AssertionResult codes_match(const Call &k, const std::vector<double> &y) {
  const std::vector<int> got_y = mxref::codes_of(*k.y), got_s = mxref::codes_of(*k.scale);
  const lfref::Fmt f = lfref::fmt_of(k.cf.dst);
  const int64_t blocks = (k.n + 31) / 32, pairs = (blocks + 1) / 2;
  for (int64_t r = 0; r < k.rows; ++r) {
    for (int64_t b = 0; b < 2 * pairs; ++b) {
      const int s = got_s[r * pairs * 2 + b];
      if (b >= blocks) {
        if (s != 0) return ::testing::AssertionFailure() << "row " << r << ": pad scale " << s << ", want 0";
        continue;
      }
      double amax = 0;
      for (int64_t j = b * 32; j < std::min(k.n, b * 32 + 32); ++j) amax = std::max(amax, std::fabs(y[r * k.n + j]));
      if (!near_boundary(s, amax, 1e-5 * amax, [&](double a) { return mxref::ref_scale(a, k.cf); }))
        return ::testing::AssertionFailure() << "row " << r << " block " << b << ": scale " << s << ", want "
                                             << mxref::ref_scale(amax, k.cf) << " (amax " << amax << ")";
      const double unit = std::ldexp(1.0, s - 127);
      for (int64_t j = b * 32; j < std::min(k.n, b * 32 + 32); ++j) {
        const double v = y[r * k.n + j] / unit;
        const int got = got_y[r * k.n + j];
        // y's fp32 error is relative to the row's magnitudes (beta may cancel the norm): 4e-6 of the block max
        // (a value moved across 0: either zero will do)
        auto zero_as_plus = [&](int c) { return lfref::value(f, c) == 0.0 ? 0 : c; };
        if (!near_boundary(zero_as_plus(got), v, 4e-6 * amax / unit,
                           [&](double u) { return zero_as_plus(lfref::encode(f, u, k.cf.mode)); }))
          return ::testing::AssertionFailure() << "row " << r << " element " << j << ": code " << got << ", want "
                                               << lfref::encode(f, v, k.cf.mode) << " (y / scale " << v << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// The float64 reference as xOut's dtype stores it.
std::vector<double> as_stored(const DeviceTensor &like, const std::vector<double> &golden) {
  DeviceTensor t(like.shape(), like.dtype());
  t.set_values(golden);
  return t.values();
}

bool still_poisoned(const DeviceTensor &t) {
  for (double v : t.values())
    if (!std::isnan(v)) return false;
  return true;
}

void check_call(const Call &k) {
  const Norm e = reference_norm(k);
  EXPECT_TRUE(codes_match(k, e.y)) << "dstType " << k.cf.dst << " scaleAlg " << k.cf.alg << " " << k.a.round_mode;
  if (k.xsum) EXPECT_TRUE(meets_precision(k.xsum->dtype(), k.xsum->values(), as_stored(*k.xsum, e.xsum))) << "xOut";
  if (k.a.output_rstd) EXPECT_TRUE(meets_precision(ACL_FLOAT, k.rstd->values(), e.rstd)) << "rstdOut";
  else EXPECT_TRUE(still_poisoned(*k.rstd)) << "outputRstd false: rstdOut untouched";
}

class NormQuantMxTable : public ::testing::TestWithParam<NormQuantTableCase> {};

TEST_P(NormQuantMxTable, RandomDataEveryConfigAgainstFloat64) {
  const NormQuantTableCase &c = GetParam();
  std::mt19937_64 rng(17);
  for (aclDataType dt : c.dtypes)
    for (const Config &cf : configs()) {
      Options o;
      o.dt = dt;
      o.cf = cf;
      // 1-3 dims, the last 32..200 (even: FLOAT4 packs two a byte), often not a multiple of 32
      const int nd = 1 + static_cast<int>(rng() % 3);
      o.shape.assign(static_cast<size_t>(nd), 0);
      for (int d = 0; d + 1 < nd; ++d) o.shape[d] = 1 + static_cast<int64_t>(rng() % 4);
      o.shape.back() = 2 * (16 + static_cast<int64_t>(rng() % 85));
      Call k = build(c, o);
      ASSERT_EQ(run(c, k.a), ACL_SUCCESS) << aclGetRecentErrMsg();
      check_call(k);
    }
}

TEST_P(NormQuantMxTable, ManyRowsAcrossTasksAndOddBlockCounts) {
  const NormQuantTableCase &c = GetParam();
  for (int64_t n : {32, 96, 2048 + 64}) {
    Options o;
    o.shape = {4, 150, n};
    o.dt = c.dtypes.back();
    Call k = build(c, o);
    ASSERT_EQ(run(c, k.a), ACL_SUCCESS) << aclGetRecentErrMsg();
    check_call(k);
  }
}

TEST_P(NormQuantMxTable, NonContiguousInputsNoBetaNoRstd) {
  const NormQuantTableCase &c = GetParam();
  for (int variant = 0; variant < 3; ++variant) {
    Options o;
    o.shape = {3, 2, 70};
    o.dt = c.dtypes[variant % c.dtypes.size()];
    o.strided = variant != 1;
    o.beta = variant != 0;
    o.output_rstd = variant != 2;
    o.cf.dst = variant == 2 ? ACL_FLOAT4_E2M1 : ACL_FLOAT8_E5M2;
    Call k = build(c, o);
    if (variant == 2) k.a.rstd = nullptr;  // not written: may be null
    ASSERT_EQ(run(c, k.a), ACL_SUCCESS) << aclGetRecentErrMsg();
    if (variant == 2) k.a.rstd = *k.rstd;
    check_call(k);
  }
}

// eps 0 and x = 1 (x2 = 0): rstd is 1 and y = gamma exactly. gamma = 8 and 1 alternating, FLOAT8_E4M3FN,
// scaleAlg 0: shared_exp = floor(log2 8) - 8 = -5 (code 122); 8 / 2^-5 = 2^8 (code 0x78), 1 / 2^-5 = 2^5 (0x60).
TEST_P(NormQuantMxTable, ConstructedRowAgainstHandWorkedCodes) {
  const NormQuantTableCase &c = GetParam();
  Options o;
  o.shape = {1, 32};
  o.beta = false;
  Call k = build(c, o);
  k.a.eps = 0;
  k.x->set_values(std::vector<double>(32, 1.0));
  if (k.x2) k.x2->set_values(std::vector<double>(32, 0.0));
  std::vector<double> g(32);
  for (int j = 0; j < 32; ++j) g[j] = j % 2 == 0 ? 8.0 : 1.0;
  k.gamma->set_values(g);
  ASSERT_EQ(run(c, k.a), ACL_SUCCESS) << aclGetRecentErrMsg();
  const std::vector<int> y = mxref::codes_of(*k.y), s = mxref::codes_of(*k.scale);
  EXPECT_EQ(s, (std::vector<int>{122, 0}));
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], j % 2 == 0 ? 0x78 : 0x60) << j;
  EXPECT_EQ(k.rstd->values(), (std::vector<double>{1.0}));
}

TEST_P(NormQuantMxTable, EmptyTensors) {
  const NormQuantTableCase &c = GetParam();
  for (const Shape &sh : {Shape{0, 64}, Shape{2, 0, 32}, Shape{0}}) {
    Options o;
    o.shape = sh;
    Call k = build(c, o);
    EXPECT_EQ(run(c, k.a), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  Options o;
  o.shape = {3, 0};
  Call k = build(c, o);
  EXPECT_TRUE(fails_with(run(c, k.a), ACLNN_ERR_PARAM_INVALID, {"empty rows"}));
}

TEST_P(NormQuantMxTable, ErrorsNameTheirArgument) {
  const NormQuantTableCase &c = GetParam();
  Options o;
  o.shape = {2, 3, 64};
  Call k = build(c, o);
  const NormQuantArgs &a = k.a;
  ASSERT_EQ(run(c, a), ACL_SUCCESS) << aclGetRecentErrMsg();
  const std::string xn = c.name_of("x");
  const int kNull = ACLNN_ERR_PARAM_NULLPTR, kBad = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.x = nullptr; }, kNull, {xn.c_str()}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.gamma = nullptr; }, kNull, {"gamma"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.y1 = nullptr; }, kNull, {"yOut"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.mx_scale = nullptr; }, kNull, {"mxscaleOut"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.rstd = nullptr; }, kNull, {"rstdOut"}));
  NormQuantArgs no_beta = a;
  no_beta.beta = nullptr;
  EXPECT_EQ(run(c, no_beta), ACL_SUCCESS) << "beta is optional: " << aclGetRecentErrMsg();
  if (c.has("x2")) {
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.x2 = nullptr; }, kNull, {"x2"}));
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.xsum = nullptr; }, kNull, {"xOut"}));
    DeviceTensor xo_dt({2, 3, 64}, ACL_FLOAT);
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.xsum = xo_dt; }, kBad, {"xOut"}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x2 = xo_dt; }, kBad, {"x2"}));
  }
  for (int64_t dst : {2, 34, 0, 27})
    EXPECT_TRUE(rejects(c, a, [dst](NormQuantArgs &m) { m.dst_type = dst; }, kBad, {"dstType"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.scale_alg = 3; }, kBad, {"scaleAlg"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.scale_alg = 2; }, kBad, {"scaleAlg"}));  // FLOAT8
  static char floor_[] = "floor", bad[] = "nearest";
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.round_mode = floor_; }, kBad, {"roundMode"}));  // FLOAT8
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.round_mode = bad; }, kBad, {"roundMode"}));
  DeviceTensor xi({2, 3, 64}, ACL_INT32), xf({2, 3, 64}, ACL_FLOAT), y_e5({2, 3, 64}, ACL_FLOAT8_E5M2);
  DeviceTensor y_short({2, 3, 32}, ACL_FLOAT8_E4M3FN), s_bad({2, 3, 2, 2}, ACL_FLOAT8_E8M0);
  DeviceTensor s_dt({2, 3, 1, 2}, ACL_INT8), r_bad({2, 3, 2}, ACL_FLOAT), g_bad({63}, ACL_FLOAT16);
  DeviceTensor b_bad({32}, ACL_FLOAT16);
  auto y_t = transposed_view({2, 3, 64}, ACL_FLOAT8_E4M3FN);
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x = xi; }, kBad, {xn.c_str(), "INT32"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x = xf; }, kBad, {xn.c_str(), "FLOAT"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = y_e5; }, kBad, {"yOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = y_short; }, kBad, {"yOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = *y_t; }, kBad, {"yOut", "contiguous"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.mx_scale = s_bad; }, kBad, {"mxscaleOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.mx_scale = s_dt; }, kBad, {"mxscaleOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.rstd = r_bad; }, kBad, {"rstdOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.gamma = g_bad; }, kBad, {"gamma"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.beta = b_bad; }, kBad, {"beta"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = m.x; }, kBad, {"yOut"}));
  // FLOAT4 packs two elements a byte: an odd last dim is refused, naming x
  DeviceTensor x_odd({2, 33}, ACL_FLOAT16), x2_odd({2, 33}, ACL_FLOAT16), g_odd({33}, ACL_FLOAT16);
  DeviceTensor y_odd({2, 33}, ACL_FLOAT4_E2M1), s_odd({2, 1, 2}, ACL_FLOAT8_E8M0), r_odd({2, 1}, ACL_FLOAT);
  DeviceTensor xo_odd({2, 33}, ACL_FLOAT16);
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) {
    m.x = x_odd;
    if (m.x2 != nullptr) m.x2 = x2_odd, m.xsum = xo_odd;
    m.gamma = g_odd;
    m.beta = nullptr;
    m.y1 = y_odd;
    m.mx_scale = s_odd;
    m.rstd = r_odd;
    m.dst_type = ACL_FLOAT4_E2M1;
  }, kBad, {xn.c_str(), "odd"}));
}

INSTANTIATE_TEST_SUITE_P(Ops, NormQuantMxTable, ::testing::ValuesIn(mx_cases()),
                         [](const auto &info) { return info.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NormQuantMxTable);

}  // namespace
}  // namespace opsnn::test

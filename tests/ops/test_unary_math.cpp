// Unary math ops (aclnnExp ... aclnnRoundDecimals) and their in-place forms: every documented
// dtype against a float64 <cmath> reference, transposed views, integer inputs computed in FLOAT,
// special values (NaN, ±Inf, signed zeros, denormals, large |x|), zero-size and errors.
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_acos.h"
#include "aclnnop/aclnn_acosh.h"
#include "aclnnop/aclnn_asin.h"
#include "aclnnop/aclnn_asinh.h"
#include "aclnnop/aclnn_atan.h"
#include "aclnnop/aclnn_atanh.h"
#include "aclnnop/aclnn_ceil.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_cosh.h"
#include "aclnnop/aclnn_erf.h"
#include "aclnnop/aclnn_erfc.h"
#include "aclnnop/aclnn_erfinv.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_exp2.h"
#include "aclnnop/aclnn_expm1.h"
#include "aclnnop/aclnn_floor.h"
#include "aclnnop/aclnn_frac.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_log10.h"
#include "aclnnop/aclnn_log1p.h"
#include "aclnnop/aclnn_log2.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_reciprocal.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sinh.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_square.h"
#include "aclnnop/aclnn_tan.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_trunc.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Phase1 = aclnnStatus (*)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
using Phase2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
using InplacePhase1 = std::function<aclnnStatus(aclTensor *, uint64_t *, aclOpExecutor **)>;

// erfinv reference: Newton in long double on erf(y) = x (erfc form in the tail).
double erfinv_ref(double x) {
  if (std::isnan(x) || std::fabs(x) > 1) return NAN;
  if (std::fabs(x) == 1) return std::copysign(INFINITY, x);
  if (x == 0) return x;
  long double ax = std::fabs(x), w = -logl((1 - ax) * (1 + ax));
  long double y = w < 1 ? ax * 0.886L : sqrtl(w) * 0.9L;
  for (int i = 0; i < 100; ++i) {
    long double g = ax > 0.5L ? (1 - ax) - erfcl(y) : erfl(y) - ax;
    long double d = 1.1283791670955125739L * expl(-y * y);
    long double dy = g / d;
    y -= dy;
    if (fabsl(dy) <= 1e-19L * fabsl(y)) break;
  }
  return static_cast<double>(std::copysign(y, static_cast<long double>(x)));
}

struct FloatOp {
  const char *name;
  Phase1 p1;
  Phase2 p2;
  InplacePhase1 ip1;  // empty: no in-place form
  Phase2 ip2;
  double (*ref)(double);
  double lo, hi;  // input range of the random test
};

#define IP(Name) [](aclTensor *t, uint64_t *w, aclOpExecutor **e) { return aclnnInplace##Name##GetWorkspaceSize(t, w, e); }, aclnnInplace##Name
const FloatOp kFloatOps[] = {
    {"Exp", aclnnExpGetWorkspaceSize, aclnnExp, IP(Exp), [](double x) { return std::exp(x); }, -20, 20},
    {"Exp2", aclnnExp2GetWorkspaceSize, aclnnExp2, IP(Exp2), [](double x) { return std::exp2(x); }, -30, 30},
    {"Expm1", aclnnExpm1GetWorkspaceSize, aclnnExpm1, IP(Expm1), [](double x) { return std::expm1(x); }, -5, 5},
    {"Log", aclnnLogGetWorkspaceSize, aclnnLog, IP(Log), [](double x) { return std::log(x); }, 1e-3, 1e3},
    {"Log2", aclnnLog2GetWorkspaceSize, aclnnLog2, IP(Log2), [](double x) { return std::log2(x); }, 1e-3, 1e3},
    {"Log10", aclnnLog10GetWorkspaceSize, aclnnLog10, IP(Log10), [](double x) { return std::log10(x); }, 1e-3, 1e3},
    {"Log1p", aclnnLog1pGetWorkspaceSize, aclnnLog1p, IP(Log1p), [](double x) { return std::log1p(x); }, -0.9, 10},
    {"Sqrt", aclnnSqrtGetWorkspaceSize, aclnnSqrt, IP(Sqrt), [](double x) { return std::sqrt(x); }, 0, 100},
    {"Rsqrt", aclnnRsqrtGetWorkspaceSize, aclnnRsqrt, IP(Rsqrt), [](double x) { return 1 / std::sqrt(x); }, 0.01, 100},
    {"Reciprocal", aclnnReciprocalGetWorkspaceSize, aclnnReciprocal, IP(Reciprocal), [](double x) { return 1 / x; }, 0.1, 10},
    {"Sin", aclnnSinGetWorkspaceSize, aclnnSin, IP(Sin), [](double x) { return std::sin(x); }, -10, 10},
    {"Cos", aclnnCosGetWorkspaceSize, aclnnCos, IP(Cos), [](double x) { return std::cos(x); }, -10, 10},
    {"Tan", aclnnTanGetWorkspaceSize, aclnnTan,
     [](aclTensor *t, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceTanGetWorkspaceSize(t, w, e); }, aclnnInplaceTan,
     [](double x) { return std::tan(x); }, -1.4, 1.4},
    {"Asin", aclnnAsinGetWorkspaceSize, aclnnAsin, IP(Asin), [](double x) { return std::asin(x); }, -1, 1},
    {"Acos", aclnnAcosGetWorkspaceSize, aclnnAcos, IP(Acos), [](double x) { return std::acos(x); }, -1, 1},
    {"Atan", aclnnAtanGetWorkspaceSize, aclnnAtan, IP(Atan), [](double x) { return std::atan(x); }, -20, 20},
    {"Sinh", aclnnSinhGetWorkspaceSize, aclnnSinh, IP(Sinh), [](double x) { return std::sinh(x); }, -10, 10},
    {"Cosh", aclnnCoshGetWorkspaceSize, aclnnCosh, IP(Cosh), [](double x) { return std::cosh(x); }, -10, 10},
    {"Tanh", aclnnTanhGetWorkspaceSize, aclnnTanh, IP(Tanh), [](double x) { return std::tanh(x); }, -6, 6},
    {"Asinh", aclnnAsinhGetWorkspaceSize, aclnnAsinh, IP(Asinh), [](double x) { return std::asinh(x); }, -100, 100},
    {"Acosh", aclnnAcoshGetWorkspaceSize, aclnnAcosh, IP(Acosh), [](double x) { return std::acosh(x); }, 1, 100},
    {"Atanh", aclnnAtanhGetWorkspaceSize, aclnnAtanh, IP(Atanh), [](double x) { return std::atanh(x); }, -0.99, 0.99},
    {"Erf", aclnnErfGetWorkspaceSize, aclnnErf, IP(Erf), [](double x) { return std::erf(x); }, -4, 4},
    {"Erfc", aclnnErfcGetWorkspaceSize, aclnnErfc, IP(Erfc), [](double x) { return std::erfc(x); }, -3, 9},
    {"Erfinv", aclnnErfinvGetWorkspaceSize, aclnnErfinv, IP(Erfinv), erfinv_ref, -0.999, 0.999},
};

// Special inputs for every floating op: each result is checked against the reference evaluated
// on the float input (NaN where the reference is NaN, infinities exactly).
const double kSpecials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39, 1e-20, -1e-8,
                            0.5, -0.5, 1.0, -1.0, 2.0, 10.0, -10.0, 88.5, 89.0, -87.0, -103.0, -150.0, 1e6,
                            -3e7, 1e30, -1e38, 3.4e38};

bool same_value(double got, double want, double tol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (std::isnan(got) || std::isinf(got)) return false;
  if (want == 0) return got == 0 && std::signbit(got) == std::signbit(want);
  return std::fabs(got - want) <= tol * std::fabs(want) || std::fabs(got - want) < 1e-44;  // denormal results
}

class FloatMath : public ::testing::TestWithParam<FloatOp> {};

TEST_P(FloatMath, DtypesTransposedViewsInplace) {
  reseed_for_current_test();
  const FloatOp &op = GetParam();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    SCOPED_TRACE(::testing::Message() << op.name << " dtype " << dt);
    DeviceTensor in({37, 29}, dt, {1, 37}, 3, 37 * 29 + 5);  // transposed view with an offset
    in.fill_random(op.lo, op.hi);
    DeviceTensor out({37, 29}, dt);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(in, out, w, e); }, op.p2), 0);
    auto v = in.values();
    for (auto &x : v) x = round_to(dt, op.ref(x));  // FLOAT16 overflows / underflows like the op
    EXPECT_TRUE(meets_precision(dt, out.values(), v));
    EXPECT_TRUE(out.untouched_outside_view());
    EXPECT_TRUE(in.untouched_outside_view());

    // in place, on a strided view
    DeviceTensor io({64, 33}, dt, {40, 1}, 2, 64 * 40);
    io.fill_random(op.lo, op.hi);
    auto g = io.values();
    for (auto &x : g) x = round_to(dt, op.ref(x));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.ip1(io, w, e); }, op.ip2), 0);
    EXPECT_TRUE(meets_precision(dt, io.values(), g));
    EXPECT_TRUE(io.untouched_outside_view());
  }
}

TEST_P(FloatMath, IntegerAndBoolInputsComputeInFloat) {
  reseed_for_current_test();
  const FloatOp &op = GetParam();
  for (aclDataType dt : {ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL}) {
    for (aclDataType odt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
      SCOPED_TRACE(::testing::Message() << op.name << " in " << dt << " out " << odt);
      DeviceTensor in({300}, dt);
      const double lo = std::max(op.lo, dt == ACL_UINT8 || dt == ACL_BOOL ? 0.0 : -100.0);
      const double hi = std::min(op.hi, dt == ACL_BOOL ? 1.0 : 100.0);
      in.fill_random(std::ceil(lo), std::floor(hi));
      DeviceTensor out({300}, odt);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(in, out, w, e); }, op.p2), 0);
      auto v = in.values();
      // computed in FLOAT, then stored in the output dtype
      for (auto &x : v) x = round_to(odt, round_to(ACL_FLOAT, op.ref(x)));
      EXPECT_TRUE(meets_precision(odt == ACL_DOUBLE ? ACL_FLOAT : odt, out.values(), v));
    }
  }
}

TEST_P(FloatMath, SpecialValues) {
  const FloatOp &op = GetParam();
  std::vector<double> in_v;
  for (double x : kSpecials) in_v.push_back(round_to(ACL_FLOAT, x));
  for (aclDataType dt : {ACL_FLOAT, ACL_DOUBLE}) {
    SCOPED_TRACE(::testing::Message() << op.name << " dtype " << dt);
    DeviceTensor in({static_cast<int64_t>(in_v.size())}, dt), out({static_cast<int64_t>(in_v.size())}, dt);
    in.set_values(in_v);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(in, out, w, e); }, op.p2), 0);
    auto got = out.values();
    for (size_t i = 0; i < in_v.size(); ++i) {
      double want = round_to(dt, op.ref(in_v[i]));
      EXPECT_TRUE(same_value(got[i], want, dt == ACL_FLOAT ? 5e-7 : 1e-14))
          << op.name << "(" << in_v[i] << ") = " << got[i] << ", want " << want;
    }
  }
}

TEST_P(FloatMath, ErrorsAndZeroSize) {
  const FloatOp &op = GetParam();
  DeviceTensor f({4}, ACL_FLOAT), i32({4}, ACL_INT32), f5({5}, ACL_FLOAT), empty({0, 3}, ACL_FLOAT),
      empty_out({0, 3}, ACL_FLOAT);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(op.p1(nullptr, f, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {}));
  EXPECT_TRUE(fails_with(op.p1(f, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {}));
  EXPECT_TRUE(fails_with(op.p1(f, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"INT32"}));
  EXPECT_TRUE(fails_with(op.p1(f, f5, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"[5]", "[4]"}));
  EXPECT_TRUE(fails_with(op.ip1(i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"INT32"}));
  EXPECT_TRUE(fails_with(op.ip1(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {}));
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(empty, empty_out, w, e); }, op.p2), 0);
}

INSTANTIATE_TEST_SUITE_P(UnaryMath, FloatMath, ::testing::ValuesIn(kFloatOps),
                         [](const ::testing::TestParamInfo<FloatOp> &i) { return std::string(i.param.name); });

TEST(UnaryMathTrig, LargeArgumentsTakeTheExactPath) {
  // one element beyond 2^20 sends its chunk through libm; the others stay accurate too
  std::vector<double> v;
  for (int i = 0; i < 1500; ++i) v.push_back(round_to(ACL_FLOAT, std::sin(i * 0.7) * 50));
  v[700] = round_to(ACL_FLOAT, 1.2345e7);
  v[701] = round_to(ACL_FLOAT, -3.0e38);
  v[702] = round_to(ACL_FLOAT, 1048576.0);
  v[1400] = round_to(ACL_FLOAT, 7.77e20);
  const std::pair<Phase1, Phase2> ops[] = {{aclnnSinGetWorkspaceSize, aclnnSin}, {aclnnCosGetWorkspaceSize, aclnnCos},
                                           {aclnnTanGetWorkspaceSize, aclnnTan}};
  double (*refs[])(double) = {[](double x) { return std::sin(x); }, [](double x) { return std::cos(x); },
                              [](double x) { return std::tan(x); }};
  for (int k = 0; k < 3; ++k) {
    DeviceTensor in({1500}, ACL_FLOAT), out({1500}, ACL_FLOAT);
    in.set_values(v);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return ops[k].first(in, out, w, e); }, ops[k].second), 0);
    auto got = out.values();
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT_TRUE(same_value(got[i], round_to(ACL_FLOAT, refs[k](v[i])), 3e-7)) << k << " x=" << v[i] << " got " << got[i];
  }
  // in place: the exact path reads each element before writing it
  DeviceTensor io({1500}, ACL_FLOAT);
  io.set_values(v);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceSinGetWorkspaceSize(io, w, e); }, aclnnInplaceSin), 0);
  auto got = io.values();
  for (size_t i = 0; i < v.size(); ++i) EXPECT_TRUE(same_value(got[i], round_to(ACL_FLOAT, std::sin(v[i])), 3e-7));
}

// ---- ops that keep the input dtype -------------------------------------------------------------

struct SameTypeOp {
  const char *name;
  Phase1 p1;
  Phase2 p2;
  InplacePhase1 ip1;
  Phase2 ip2;
  double (*ref)(double);  // on the input value; integer results wrap into the dtype
  bool bool_ok;
};

const SameTypeOp kSameTypeOps[] = {
    {"Abs", aclnnAbsGetWorkspaceSize, aclnnAbs, {}, nullptr, [](double x) { return std::fabs(x); }, false},
    {"Neg", aclnnNegGetWorkspaceSize, aclnnNeg, IP(Neg), [](double x) { return -x; }, false},
    {"Sign", aclnnSignGetWorkspaceSize, aclnnSign, {}, nullptr, [](double x) { return double((x > 0) - (x < 0)); }, true},
    {"Square", aclnnSquareGetWorkspaceSize, aclnnSquare, {}, nullptr, [](double x) { return x * x; }, false},
    {"Floor", aclnnFloorGetWorkspaceSize, aclnnFloor, IP(Floor), [](double x) { return std::floor(x); }, false},
    {"Ceil", aclnnCeilGetWorkspaceSize, aclnnCeil, IP(Ceil), [](double x) { return std::ceil(x); }, false},
    {"Trunc", aclnnTruncGetWorkspaceSize, aclnnTrunc, IP(Trunc), [](double x) { return std::trunc(x); }, false},
    {"Round", aclnnRoundGetWorkspaceSize, aclnnRound,
     [](aclTensor *t, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceRoundGetWorkspaceSize(t, w, e); }, aclnnInplaceRound,
     [](double x) { return std::nearbyint(x); }, false},
};

// integer result of a value in the dtype (wrap-around), as the op computes in int64 and stores
double wrap_to(aclDataType dt, double v) {
  int64_t i = static_cast<int64_t>(v);
  switch (dt) {
    case ACL_INT8: return static_cast<int8_t>(i);
    case ACL_INT16: return static_cast<int16_t>(i);
    case ACL_INT32: return static_cast<int32_t>(i);
    case ACL_UINT8: return static_cast<uint8_t>(i);
    default: return static_cast<double>(i);
  }
}

class SameTypeMath : public ::testing::TestWithParam<SameTypeOp> {};

TEST_P(SameTypeMath, AllDtypes) {
  reseed_for_current_test();
  const SameTypeOp &op = GetParam();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8}) {
    SCOPED_TRACE(::testing::Message() << op.name << " dtype " << dt);
    const bool fl = dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
    DeviceTensor in({23, 19}, dt, {1, 23}, 1, 23 * 19 + 2);
    in.fill_random(dt == ACL_UINT8 ? 0 : -120, 120);
    DeviceTensor out({23, 19}, dt);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(in, out, w, e); }, op.p2), 0);
    auto v = in.values();
    for (auto &x : v) x = fl ? round_to(dt, op.ref(x)) : wrap_to(dt, op.ref(x));
    EXPECT_TRUE(meets_precision(dt, out.values(), v));
    EXPECT_TRUE(out.untouched_outside_view());
    if (op.ip1) {
      DeviceTensor io({50}, dt, {2}, 0, 100);
      io.fill_random(dt == ACL_UINT8 ? 0 : -120, 120);
      auto g = io.values();
      for (auto &x : g) x = fl ? round_to(dt, op.ref(x)) : wrap_to(dt, op.ref(x));
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.ip1(io, w, e); }, op.ip2), 0);
      EXPECT_TRUE(meets_precision(dt, io.values(), g));
      EXPECT_TRUE(io.untouched_outside_view());
    }
  }
}

TEST_P(SameTypeMath, SpecialValuesAndErrors) {
  const SameTypeOp &op = GetParam();
  std::vector<double> sp = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-45, -2.5, 2.5, 0.5, -0.5, 1.5, 3e38, -7.49};
  for (auto &x : sp) x = round_to(ACL_FLOAT, x);
  DeviceTensor in({13}, ACL_FLOAT), out({13}, ACL_FLOAT);
  in.set_values(sp);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(in, out, w, e); }, op.p2), 0);
  auto got = out.values();
  for (size_t i = 0; i < sp.size(); ++i) {
    double want = round_to(ACL_FLOAT, op.ref(sp[i]));
    if (std::string(op.name) == "Sign" && std::isnan(sp[i])) want = 0;  // PyTorch: sign(NaN) = 0
    EXPECT_TRUE(same_value(got[i], want, 0)) << op.name << "(" << sp[i] << ") = " << got[i] << " want " << want;
  }
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor b({4}, ACL_BOOL), bout({4}, ACL_BOOL), f({4}, ACL_FLOAT), i32({4}, ACL_INT32), f3({3}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(op.p1(nullptr, f, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {}));
  EXPECT_TRUE(fails_with(op.p1(f, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {}));
  EXPECT_TRUE(fails_with(op.p1(f, f3, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"[3]", "[4]"}));
  EXPECT_TRUE(fails_with(op.p1(f, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "INT32"}));
  if (op.bool_ok) {
    b.set_values({1, 0, 1, 1});
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return op.p1(b, bout, w, e); }, op.p2), 0);
    EXPECT_EQ(bout.values(), (std::vector<double>{1, 0, 1, 1}));
  } else {
    EXPECT_TRUE(fails_with(op.p1(b, bout, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"BOOL"}));
  }
}

INSTANTIATE_TEST_SUITE_P(UnaryMath, SameTypeMath, ::testing::ValuesIn(kSameTypeOps),
                         [](const ::testing::TestParamInfo<SameTypeOp> &i) { return std::string(i.param.name); });

TEST(UnaryMathFrac, FloatsOnly) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    DeviceTensor in({200}, dt), out({200}, dt);
    in.fill_random(-50, 50);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFracGetWorkspaceSize(in, out, w, e); }, aclnnFrac), 0);
    auto v = in.values();
    for (auto &x : v) x = round_to(dt, x - std::trunc(x));
    EXPECT_TRUE(meets_precision(dt, out.values(), v));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceFracGetWorkspaceSize(in, w, e); }, aclnnInplaceFrac), 0);
    EXPECT_TRUE(meets_precision(dt, in.values(), v));
  }
  DeviceTensor s({3}, ACL_FLOAT), so({3}, ACL_FLOAT), i({3}, ACL_INT32), io({3}, ACL_INT32);
  s.set_values({INFINITY, -1.5, NAN});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFracGetWorkspaceSize(s, so, w, e); }, aclnnFrac), 0);
  auto g = so.values();
  EXPECT_TRUE(std::isnan(g[0]));  // inf - trunc(inf), as PyTorch
  EXPECT_EQ(g[1], -0.5);
  EXPECT_TRUE(std::isnan(g[2]));
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnFracGetWorkspaceSize(i, io, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "INT32"}));
}

TEST(UnaryMathRoundDecimals, FloatsAndIntegers) {
  reseed_for_current_test();
  for (int64_t d : {-2, -1, 0, 1, 3}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE}) {
      SCOPED_TRACE(::testing::Message() << "decimals " << d << " dtype " << dt);
      DeviceTensor in({300}, dt), out({300}, dt);
      in.fill_random(-1000, 1000);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRoundDecimalsGetWorkspaceSize(in, d, out, w, e); },
                       aclnnRoundDecimals),
                0);
      auto v = in.values();
      const double p = std::pow(10.0, std::abs(static_cast<double>(d)));
      // the reference in the compute precision (float for FLOAT/FLOAT16), as torch.round does
      for (auto &x : v) {
        if (dt == ACL_DOUBLE) x = d < 0 ? std::nearbyint(x / p) * p : std::nearbyint(x * p) / p;
        else {
          const float xf = static_cast<float>(x), pf = static_cast<float>(p);
          x = round_to(dt, d < 0 ? std::nearbyint(xf / pf) * pf : std::nearbyint(xf * pf) / pf);
        }
      }
      EXPECT_TRUE(meets_precision(dt, out.values(), v));
    }
  }
  DeviceTensor i({5}, ACL_INT32), io({5}, ACL_INT32);
  i.set_values({15, 25, -35, 1234, 7});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRoundDecimalsGetWorkspaceSize(i, -1, io, w, e); },
                   aclnnRoundDecimals),
            0);
  EXPECT_EQ(io.values(), (std::vector<double>{20, 20, -40, 1230, 10}));  // half to even
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceRoundDecimalsGetWorkspaceSize(i, 2, w, e); },
                   aclnnInplaceRoundDecimals),
            0);
  EXPECT_EQ(i.values(), (std::vector<double>{15, 25, -35, 1234, 7}));
  DeviceTensor f({2}, ACL_FLOAT);
  f.set_values({1.2345, -2.5});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceRoundDecimalsGetWorkspaceSize(f, 2, w, e); },
                   aclnnInplaceRoundDecimals),
            0);
  EXPECT_NEAR(f.values()[0], 1.23, 1e-6);
  uint64_t ws;
  aclOpExecutor *ex;
  DeviceTensor b({2}, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnRoundDecimalsGetWorkspaceSize(b, 1, b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"BOOL"}));
}

}  // namespace
}  // namespace opsnn::test

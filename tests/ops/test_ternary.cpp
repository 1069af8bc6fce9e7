// SWhere, the clamp family, Addcmul / Addcdiv, Lerp / Lerps, IsInf / IsPosInf / IsNegInf /
// IsFinite / IsNan and the in-place masked fills against a float64 reference: mixed dtypes, three-way
// broadcasting, strided views, in-place forms, special values and errors.
#include <cmath>
#include <cstring>

#include "aclnnop/aclnn_addcdiv.h"
#include "aclnnop/aclnn_addcmul.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_is_inf.h"
#include "aclnnop/aclnn_isfinite.h"
#include "aclnnop/aclnn_isnan.h"
#include "aclnnop/aclnn_isneginf.h"
#include "aclnnop/aclnn_isposinf.h"
#include "aclnnop/aclnn_lerp_scalar.h"
#include "aclnnop/aclnn_lerp_tensor.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_masked_fill_tensor.h"
#include "aclnnop/aclnn_s_where.h"
#include "ew_test_common.h"

namespace opsnn::test {
namespace {

using namespace ew;

struct Three {
  std::vector<int64_t> full, s0, s1, s2;
};
Three three_shapes() {
  Three t;
  t.full = random_shape(4);
  std::uniform_int_distribution<int> who(0, 2);
  int keep = who(rng());  // one operand has the full shape
  t.s0 = keep == 0 ? t.full : broadcastable_to(t.full);
  t.s1 = keep == 1 ? t.full : broadcastable_to(t.full);
  t.s2 = keep == 2 ? t.full : broadcastable_to(t.full);
  return t;
}
double at(const std::vector<double> &v, const std::vector<int64_t> &idx, const std::vector<int64_t> &full,
          const std::vector<int64_t> &shape) {
  return v[static_cast<size_t>(broadcast_source(idx, full, shape))];
}

TEST(Ternary, WhereRandomDtypesBroadcastStrided) {
  reseed_for_current_test();
  std::uniform_int_distribution<int> coin(0, 1);
  for (int iter = 0; iter < 150; ++iter) {
    Three sh = three_shapes();
    const aclDataType st = pick(kAll), ot = pick(kAll);
    const aclDataType p = result_type({{st, (int)sh.s1.size()}, {ot, (int)sh.s2.size()}});
    const aclDataType out_t = coin(rng()) ? p : is_float(p) ? pick(kFloats) : pick({ACL_INT64, ACL_FLOAT});
    SCOPED_TRACE(::testing::Message() << "self " << st << " other " << ot << " out " << out_t);
    auto c = make_view(sh.s0, ACL_BOOL, coin(rng()));
    auto s = make_view(sh.s1, st, coin(rng()));
    auto o = make_view(sh.s2, ot, coin(rng()));
    auto out = make_view(sh.full, out_t, coin(rng()));
    fill(*c, ACL_BOOL, 0, 1);
    fill(*s, st, -50, 50);
    fill(*o, ot, -50, 50);
    out->poison();
    auto cv = c->values(), sv = s->values(), ov = o->values();
    std::vector<double> g(static_cast<size_t>(numel_of(sh.full)));
    for (size_t i = 0; i < g.size(); ++i) {
      auto idx = unravel((int64_t)i, sh.full);
      double r = at(cv, idx, sh.full, sh.s0) != 0 ? at(sv, idx, sh.full, sh.s1) : at(ov, idx, sh.full, sh.s2);
      g[i] = round_to(out_t, round_to(p, r));
    }
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnSWhereGetWorkspaceSize(*c, *s, *o, *out, w, e); }, aclnnSWhere), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_precision(out_t, out->values(), g));
    EXPECT_TRUE(out->untouched_outside_view());
  }
}

// Addcmul / Addcdiv / Lerp / Lerps / ClampTensor: three tensors, random dtypes and broadcasting.
enum class T3 { kAddcmul, kAddcdiv, kLerp, kLerps, kClampTensor, kClampScalar };
const char *t3_name(T3 k) {
  static const char *n[] = {"Addcmul", "Addcdiv", "Lerp", "Lerps", "ClampTensor", "ClampScalar"};
  return n[static_cast<int>(k)];
}
class TernaryRandom : public ::testing::TestWithParam<T3> {};

TEST_P(TernaryRandom, DtypesBroadcastStridedInplace) {
  reseed_for_current_test();
  const T3 k = GetParam();
  std::uniform_int_distribution<int> coin(0, 1);
  for (int iter = 0; iter < 120; ++iter) {
    const bool inplace = iter % 3 == 2 && k != T3::kClampScalar;
    const bool floats_only = k == T3::kAddcdiv || k == T3::kLerp || k == T3::kLerps;
    const bool scalar2 = k == T3::kLerps || k == T3::kClampScalar;  // third operand (and second for clamp) scalar
    Three sh = three_shapes();
    if (inplace || k == T3::kClampScalar) sh.s0 = sh.full;
    if (k == T3::kLerps && !(sh.s1 == sh.full)) sh.s0 = sh.full;
    aclDataType t0 = pick(floats_only ? kFloats : kAll), t1 = pick(floats_only ? kFloats : kAll), t2 = pick(floats_only ? kFloats : kAll);
    if (k == T3::kAddcmul && (t0 == ACL_BOOL || t1 == ACL_BOOL || t2 == ACL_BOOL)) t0 = t1 = t2 = ACL_INT32;
    if (scalar2) t2 = pick({ACL_FLOAT, ACL_DOUBLE});
    if (k == T3::kClampScalar) t1 = t2;
    std::vector<std::pair<aclDataType, int>> ops{{t0, (int)sh.s0.size()}};
    ops.push_back({t1, k == T3::kClampScalar ? -1 : (int)sh.s1.size()});
    ops.push_back({t2, scalar2 ? -1 : (int)sh.s2.size()});
    aclDataType p = result_type(ops);
    if (k == T3::kClampTensor && p == ACL_BOOL) continue;
    if (inplace && (is_float(p) && !is_float(t0))) continue;
    if (inplace && p != t0 && category(p) > category(t0)) continue;
    const aclDataType out_t = inplace ? t0 : p;
    SCOPED_TRACE(::testing::Message() << t3_name(k) << (inplace ? " inplace " : " ") << t0 << " " << t1 << " " << t2 << " -> " << p);
    auto a = make_view(sh.s0, t0, coin(rng()));
    auto b = make_view(sh.s1, t1, coin(rng()));
    auto c = make_view(sh.s2, t2, coin(rng()));
    fill(*a, t0, -5, 5);
    fill(*b, t1, -5, 5);
    fill(*c, t2, k == T3::kAddcdiv ? 0.5 : -5, 5);  // divisor away from 0
    if (k == T3::kLerp) fill(*c, t2, -0.2, 1.2);
    double value = is_float(p) ? 0.75 : 3;
    aclScalar *vs = make_scalar(is_float(p) ? ACL_FLOAT : ACL_INT32, value);
    const double w = 0.625;
    aclScalar *ws_ = make_scalar(t2, w);
    const double lo_v = -2.5, hi_v = 2.5;
    aclScalar *lo_s = make_scalar(t1, lo_v), *hi_s = make_scalar(t2, hi_v);
    std::unique_ptr<DeviceTensor> out;
    if (!inplace) {
      out = make_view(sh.full, out_t, coin(rng()));
      out->poison();
    }
    auto av = a->values(), bv = b->values(), cv = c->values();
    std::vector<double> g(static_cast<size_t>(numel_of(sh.full)));
    for (size_t i = 0; i < g.size(); ++i) {
      auto idx = unravel((int64_t)i, sh.full);
      const double x = at(av, idx, sh.full, sh.s0), y = at(bv, idx, sh.full, sh.s1), z = at(cv, idx, sh.full, sh.s2);
      double r = 0;
      switch (k) {
        case T3::kAddcmul: r = x + value * y * z; break;
        case T3::kAddcdiv: r = x + value * y / z; break;
        case T3::kLerp: r = x + z * (y - x); break;
        case T3::kLerps: r = x + w * (y - x); break;
        case T3::kClampTensor: r = std::min(std::max(x, y), z); break;
        case T3::kClampScalar: r = std::min(std::max(x, lo_v), hi_v); break;
      }
      g[i] = round_to(out_t, round_to(p, r));
    }
    DeviceTensor &o = inplace ? *a : *out;
    int rc = 0;
    switch (k) {
      case T3::kAddcmul:
        rc = inplace ? run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnInplaceAddcmulGetWorkspaceSize(*a, *b, *c, vs, ws, e); }, aclnnInplaceAddcmul)
                     : run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnAddcmulGetWorkspaceSize(*a, *b, *c, vs, o, ws, e); }, aclnnAddcmul);
        break;
      case T3::kAddcdiv:
        rc = inplace ? run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnInplaceAddcdivGetWorkspaceSize(*a, *b, *c, vs, ws, e); }, aclnnInplaceAddcdiv)
                     : run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnAddcdivGetWorkspaceSize(*a, *b, *c, vs, o, ws, e); }, aclnnAddcdiv);
        break;
      case T3::kLerp:
        rc = inplace ? run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnInplaceLerpGetWorkspaceSize(*a, *b, *c, ws, e); }, aclnnInplaceLerp)
                     : run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnLerpGetWorkspaceSize(*a, *b, *c, o, ws, e); }, aclnnLerp);
        break;
      case T3::kLerps:
        rc = inplace ? run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnInplaceLerpsGetWorkspaceSize(*a, *b, ws_, ws, e); }, aclnnInplaceLerps)
                     : run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnLerpsGetWorkspaceSize(*a, *b, ws_, o, ws, e); }, aclnnLerps);
        break;
      case T3::kClampTensor:
        rc = run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnClampTensorGetWorkspaceSize(*a, *b, *c, o, ws, e); }, aclnnClampTensor);
        break;
      case T3::kClampScalar:
        rc = run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnClampGetWorkspaceSize(*a, lo_s, hi_s, o, ws, e); }, aclnnClamp);
        break;
    }
    aclDestroyScalar(vs);
    aclDestroyScalar(ws_);
    aclDestroyScalar(lo_s);
    aclDestroyScalar(hi_s);
    ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_precision(o.dtype(), o.values(), g));
    EXPECT_TRUE(o.untouched_outside_view());
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, TernaryRandom,
                         ::testing::Values(T3::kAddcmul, T3::kAddcdiv, T3::kLerp, T3::kLerps, T3::kClampTensor, T3::kClampScalar),
                         [](const auto &info) { return std::string(t3_name(info.param)); });

::testing::AssertionResult same(const std::vector<double> &got, const std::vector<double> &want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (!((std::isnan(got[i]) && std::isnan(want[i])) || got[i] == want[i]))
      return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want[i];
  return got.size() == want.size() ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << "size";
}

TEST(Ternary, ClampSemantics) {
  DeviceTensor x({5}, ACL_FLOAT), out({5}, ACL_FLOAT);
  x.set_values({NAN, -3, 0.5, 3, INFINITY});
  aclScalar *lo = make_scalar(ACL_FLOAT, -1), *hi = make_scalar(ACL_FLOAT, 1), *nan = make_scalar(ACL_FLOAT, NAN);
  auto clamp = [&](const aclScalar *a, const aclScalar *b) {
    out.poison();
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnClampGetWorkspaceSize(x, a, b, out, w, e); }, aclnnClamp), 0) << aclGetRecentErrMsg();
    return out.values();
  };
  EXPECT_TRUE(same(clamp(lo, hi), {NAN, -1, 0.5, 1, 1}));
  EXPECT_TRUE(same(clamp(nullptr, hi), {NAN, -3, 0.5, 1, 1}));
  EXPECT_TRUE(same(clamp(lo, nullptr), {NAN, -1, 0.5, 3, INFINITY}));
  EXPECT_TRUE(same(clamp(hi, lo), {NAN, -1, -1, -1, -1}));  // min > max: max
  EXPECT_TRUE(same(clamp(nan, hi), {NAN, NAN, NAN, NAN, NAN}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnClampMinGetWorkspaceSize(x, lo, out, w, e); }, aclnnClampMin), 0);
  EXPECT_TRUE(same(out.values(), {NAN, -1, 0.5, 3, INFINITY}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnClampMaxGetWorkspaceSize(x, hi, out, w, e); }, aclnnClampMax), 0);
  EXPECT_TRUE(same(out.values(), {NAN, -3, 0.5, 1, 1}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceClampMaxGetWorkspaceSize(x, hi, w, e); }, aclnnInplaceClampMax), 0);
  EXPECT_TRUE(same(x.values(), {NAN, -3, 0.5, 1, 1}));
  // Tensor bounds broadcast; the in-place tensor forms.
  DeviceTensor m({2, 3}, ACL_INT32), b({3}, ACL_INT32), bo({2, 3}, ACL_INT32);
  m.set_values({-5, 0, 5, 10, -10, 2});
  b.set_values({-1, 1, 3});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnClampMinTensorGetWorkspaceSize(m, b, bo, w, e); }, aclnnClampMinTensor), 0);
  EXPECT_TRUE(same(bo.values(), {-1, 1, 5, 10, 1, 3}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnClampMaxTensorGetWorkspaceSize(m, b, bo, w, e); }, aclnnClampMaxTensor), 0);
  EXPECT_TRUE(same(bo.values(), {-5, 0, 3, -1, -10, 2}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceClampMinTensorGetWorkspaceSize(m, b, w, e); }, aclnnInplaceClampMinTensor), 0);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceClampMaxTensorGetWorkspaceSize(m, b, w, e); }, aclnnInplaceClampMaxTensor), 0);
  EXPECT_TRUE(same(m.values(), {-1, 1, 3, -1, 1, 3}));
  // Errors: both bounds null; a float bound on an integer tensor gives FLOAT (not castable to INT32).
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnClampGetWorkspaceSize(x, nullptr, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"clipValueMin", "clipValueMax"}));
  aclScalar *half = make_scalar(ACL_FLOAT, 0.5);
  EXPECT_TRUE(fails_with(aclnnClampMinGetWorkspaceSize(m, half, bo, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "out", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnClampTensorGetWorkspaceSize(x, nullptr, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"clipValueMin"}));
  EXPECT_TRUE(fails_with(aclnnClampMaxTensorGetWorkspaceSize(x, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"max"}));
  for (aclScalar *s : {lo, hi, nan, half}) aclDestroyScalar(s);
}

TEST(Ternary, LerpEndpointsAndErrors) {
  DeviceTensor a({3}, ACL_FLOAT), b({3}, ACL_FLOAT), out({3}, ACL_FLOAT);
  a.set_values({1e8, -3, 0.1});
  b.set_values({-7, 1e-8, 3e7});
  aclScalar *one = make_scalar(ACL_FLOAT, 1), *zero = make_scalar(ACL_FLOAT, 0);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnLerpsGetWorkspaceSize(a, b, one, out, w, e); }, aclnnLerps), 0);
  EXPECT_TRUE(same(out.values(), b.values()));  // weight 1 gives end exactly
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnLerpsGetWorkspaceSize(a, b, zero, out, w, e); }, aclnnLerps), 0);
  EXPECT_TRUE(same(out.values(), a.values()));
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor i({3}, ACL_INT32);
  EXPECT_TRUE(fails_with(aclnnLerpsGetWorkspaceSize(i, i, one, i, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"Lerp", "floating", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnLerpGetWorkspaceSize(a, b, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"weight"}));
  EXPECT_TRUE(fails_with(aclnnAddcdivGetWorkspaceSize(a, i, i, one, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"integer division", "addcdiv"}));
  EXPECT_TRUE(fails_with(aclnnAddcmulGetWorkspaceSize(i, i, i, one, i, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"value", "integral"}));
  EXPECT_TRUE(fails_with(aclnnAddcmulGetWorkspaceSize(a, b, b, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"value"}));
  DeviceTensor bad({2}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnAddcmulGetWorkspaceSize(a, b, bad, one, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"broadcast", "tensor2"}));
  DeviceTensor row({1, 3}, ACL_FLOAT), full({2, 3}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnInplaceLerpsGetWorkspaceSize(row, full, one, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef", "grow"}));
  aclDestroyScalar(one);
  aclDestroyScalar(zero);
}

TEST(Ternary, WhereErrors) {
  DeviceTensor c({2, 3}, ACL_FLOAT), x({2, 3}, ACL_FLOAT), out({2, 3}, ACL_FLOAT), bad({4}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnSWhereGetWorkspaceSize(c, x, x, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"condition", "FLOAT"}));
  DeviceTensor cb({2, 3}, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnSWhereGetWorkspaceSize(nullptr, x, x, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"condition"}));
  EXPECT_TRUE(fails_with(aclnnSWhereGetWorkspaceSize(cb, x, bad, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"broadcast", "other"}));
  EXPECT_TRUE(fails_with(aclnnSWhereGetWorkspaceSize(cb, x, x, bad, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out"}));
}

TEST(Ternary, Classification) {
  const double den = std::ldexp(1.0, -140);  // a float denormal
  DeviceTensor x({6}, ACL_FLOAT), o({6}, ACL_BOOL), oi({6}, ACL_FLOAT16);
  x.set_values({INFINITY, -INFINITY, NAN, 1, den, -0.0});
  auto run = [&](auto ph1, auto ph2, DeviceTensor &out) {
    out.poison();
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return ph1(x.get(), out.get(), w, e); }, ph2), 0) << aclGetRecentErrMsg();
    return out.values();
  };
  EXPECT_TRUE(same(run(aclnnIsInfGetWorkspaceSize, aclnnIsInf, o), {1, 1, 0, 0, 0, 0}));
  EXPECT_TRUE(same(run(aclnnIsPosInfGetWorkspaceSize, aclnnIsPosInf, o), {1, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(same(run(aclnnIsNegInfGetWorkspaceSize, aclnnIsNegInf, oi), {0, 1, 0, 0, 0, 0}));
  EXPECT_TRUE(same(run(aclnnIsFiniteGetWorkspaceSize, aclnnIsFinite, o), {0, 0, 0, 1, 1, 1}));
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32, ACL_BOOL, ACL_UINT8}) {
    DeviceTensor y({2, 2}, dt, {1, 2}, 1), yo({2, 2}, ACL_BOOL);  // transposed view with an offset
    fill(y, dt, -3, 3);
    if (is_float(dt)) y.set_values({INFINITY, 2, NAN, -INFINITY});
    auto yv = y.values();
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnIsFiniteGetWorkspaceSize(y, yo, w, e); }, aclnnIsFinite), 0);
    std::vector<double> want;
    for (double v : yv) want.push_back(std::isfinite(v) ? 1 : 0);
    EXPECT_TRUE(same(yo.values(), want)) << dt;
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnIsInfGetWorkspaceSize(y, yo, w, e); }, aclnnIsInf), 0);
    want.clear();
    for (double v : yv) want.push_back(std::isinf(v) ? 1 : 0);
    EXPECT_TRUE(same(yo.values(), want)) << dt;
  }
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnIsInfGetWorkspaceSize(nullptr, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnIsInf", "x"}));
  DeviceTensor small({3}, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnIsFiniteGetWorkspaceSize(x, small, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[3]", "[6]"}));
}

// IsNan on raw bit patterns (quiet and signalling NaNs, any payload and sign, infinities, the
// largest finite value, the smallest denormal), with the reference taken from the bits: exponent
// all ones and a non-zero mantissa.
struct FloatBits {
  aclDataType dt;
  int width, mant_bits;  // bits per element, mantissa bits
  std::vector<uint64_t> bits;
};
std::vector<FloatBits> nan_patterns() {
  return {
      {ACL_FLOAT, 32, 23, {0x7fc00000, 0x7f800001, 0xffffffff, 0x7fbfffff, 0xffc00001, 0x7f800000, 0xff800000,
                           0x7f7fffff, 0x00000001, 0x80000000}},
      {ACL_FLOAT16, 16, 10, {0x7e00, 0x7c01, 0xffff, 0x7dff, 0xfe01, 0x7c00, 0xfc00, 0x7bff, 0x0001, 0x8000}},
      {ACL_BF16, 16, 7, {0x7fc0, 0x7f81, 0xffff, 0x7fbf, 0xffc1, 0x7f80, 0xff80, 0x7f7f, 0x0001, 0x8000}},
      {ACL_DOUBLE, 64, 52, {0x7ff8000000000000, 0x7ff0000000000001, 0xffffffffffffffff, 0x7ff7ffffffffffff,
                            0xfff8000000000001, 0x7ff0000000000000, 0xfff0000000000000, 0x7fefffffffffffff, 0x1,
                            0x8000000000000000}},
  };
}
bool bits_are_nan(uint64_t b, int width, int mant_bits) {
  const int exp_bits = width - 1 - mant_bits;
  const uint64_t mant = b & ((uint64_t{1} << mant_bits) - 1);
  const uint64_t exp = (b >> mant_bits) & ((uint64_t{1} << exp_bits) - 1);
  return exp == (uint64_t{1} << exp_bits) - 1 && mant != 0;
}
void write_bits(const DeviceTensor &t, const std::vector<uint64_t> &bits, int width) {
  std::vector<unsigned char> host(bits.size() * static_cast<size_t>(width / 8));
  for (size_t i = 0; i < bits.size(); ++i) std::memcpy(&host[i * static_cast<size_t>(width / 8)], &bits[i], static_cast<size_t>(width / 8));
  ASSERT_EQ(aclrtMemcpy(t.data(), host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

TEST(Ternary, IsNanPayloadsSignsAndSpecials) {
  for (const FloatBits &f : nan_patterns()) {
    const int64_t n = static_cast<int64_t>(f.bits.size());
    std::vector<double> want;
    for (uint64_t b : f.bits) want.push_back(bits_are_nan(b, f.width, f.mant_bits) ? 1 : 0);
    for (aclDataType out_t : {ACL_BOOL, ACL_FLOAT16, ACL_INT32}) {
      SCOPED_TRACE(::testing::Message() << "dtype " << f.dt << " out " << out_t);
      DeviceTensor x({n}, f.dt), out({n}, out_t);
      write_bits(x, f.bits, f.width);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnIsNanGetWorkspaceSize(x, out, w, e); }, aclnnIsNan), 0)
          << aclGetRecentErrMsg();
      EXPECT_TRUE(same(out.values(), want));
      EXPECT_TRUE(out.untouched_outside_view());
    }
  }
}

TEST(Ternary, IsNanDtypesViewsAndErrors) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT8, ACL_UINT8,
                         ACL_BOOL}) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    // A transposed view with an offset, and a long one (several parallel tasks) with NaNs sprinkled in.
    DeviceTensor y({3, 4}, dt, {1, 3}, 2), yo({3, 4}, ACL_BOOL);
    fill(y, dt, -3, 3);
    if (is_float(dt)) y.set_values({NAN, 2, -NAN, -INFINITY, 0, INFINITY, 1e-3, NAN, -0.0, 5, -7, NAN});
    auto yv = y.values();
    yo.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnIsNanGetWorkspaceSize(y, yo, w, e); }, aclnnIsNan), 0)
        << aclGetRecentErrMsg();
    std::vector<double> want;
    for (double v : yv) want.push_back(std::isnan(v) ? 1 : 0);
    EXPECT_TRUE(same(yo.values(), want));

    const int64_t n = 100003;
    DeviceTensor big({n}, dt), bo({n}, ACL_BOOL);
    fill(big, dt, -100, 100);
    auto bv = big.values();
    if (is_float(dt))
      for (int64_t i = 0; i < n; i += 97) bv[static_cast<size_t>(i)] = NAN;
    big.set_values(bv);
    bv = big.values();
    bo.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnIsNanGetWorkspaceSize(big, bo, w, e); }, aclnnIsNan), 0);
    want.clear();
    for (double v : bv) want.push_back(std::isnan(v) ? 1 : 0);
    EXPECT_TRUE(same(bo.values(), want));
  }
  // Empty input.
  DeviceTensor e0({0, 3}, ACL_FLOAT), eo({0, 3}, ACL_BOOL);
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnIsNanGetWorkspaceSize(e0, eo, w, e); }, aclnnIsNan), 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor x({2, 3}, ACL_FLOAT), o({2, 3}, ACL_BOOL), small({3}, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnIsNanGetWorkspaceSize(nullptr, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnIsNan", "self"}));
  EXPECT_TRUE(fails_with(aclnnIsNanGetWorkspaceSize(x, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnIsNan", "out"}));
  EXPECT_TRUE(fails_with(aclnnIsNanGetWorkspaceSize(x, small, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[3]", "[2, 3]"}));
}

TEST(Ternary, MaskedFill) {
  reseed_for_current_test();
  for (aclDataType dt : kAll) {
    SCOPED_TRACE(dt);
    DeviceTensor self({3, 4}, dt, {1, 3}, 2), mask({4}, ACL_BOOL), vt({}, ACL_DOUBLE);
    fill(self, dt, -9, 9);
    fill(mask, ACL_BOOL, 0, 1);
    mask.set_values({1, 0, 1, 0});
    vt.set_values({1.0});
    auto before = self.values();
    aclScalar *v = make_scalar(ACL_FLOAT, 1.0);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceMaskedFillScalarGetWorkspaceSize(self, mask, v, w, e); },
                     aclnnInplaceMaskedFillScalar), 0) << aclGetRecentErrMsg();
    std::vector<double> want = before;
    for (size_t i = 0; i < want.size(); ++i)
      if (i % 4 == 0 || i % 4 == 2) want[i] = 1;
    EXPECT_TRUE(same(self.values(), want));
    EXPECT_TRUE(self.untouched_outside_view());
    mask.set_values({0, 1, 0, 0});
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceMaskedFillTensorGetWorkspaceSize(self, mask, vt, w, e); },
                     aclnnInplaceMaskedFillTensor), 0) << aclGetRecentErrMsg();
    for (size_t i = 0; i < want.size(); ++i)
      if (i % 4 == 1) want[i] = 1;
    EXPECT_TRUE(same(self.values(), want));
    aclDestroyScalar(v);
  }
  // Special values fill as such; errors.
  DeviceTensor f({2}, ACL_FLOAT16), m({2}, ACL_BOOL), m3({3}, ACL_BOOL), mf({2}, ACL_FLOAT), vec({1}, ACL_FLOAT);
  m.set_values({1, 0});
  f.set_values({5, 6});
  aclScalar *ninf = make_scalar(ACL_DOUBLE, -INFINITY);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceMaskedFillScalarGetWorkspaceSize(f, m, ninf, w, e); },
                   aclnnInplaceMaskedFillScalar), 0);
  EXPECT_TRUE(same(f.values(), {-INFINITY, 6}));
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnInplaceMaskedFillScalarGetWorkspaceSize(f, mf, ninf, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"mask", "FLOAT"}));
  EXPECT_TRUE(fails_with(aclnnInplaceMaskedFillScalarGetWorkspaceSize(f, m3, ninf, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"broadcast"}));
  EXPECT_TRUE(fails_with(aclnnInplaceMaskedFillScalarGetWorkspaceSize(f, m, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"value"}));
  EXPECT_TRUE(fails_with(aclnnInplaceMaskedFillTensorGetWorkspaceSize(f, m, vec, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"value", "0-dim"}));
  DeviceTensor m22({2, 2}, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnInplaceMaskedFillScalarGetWorkspaceSize(f, m22, ninf, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"grow"}));
  aclDestroyScalar(ninf);
}

}  // namespace
}  // namespace opsnn::test

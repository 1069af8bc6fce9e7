// Binary element-wise ops against a float64 reference: Maximum/Minimum, Remainder, Fmod, DivMod,
// Pow, Atan2, the comparisons (Eq/Ne/Gt/Ge/Lt/Le), logical and bitwise ops, in their tensor,
// scalar and in-place forms: every dtype (mixed, PyTorch promotion), broadcasting, strided and
// offset views, zero-size shapes, poisoned and guarded outputs, special values and errors.
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "aclnnop/aclnn_atan2.h"
#include "aclnnop/aclnn_bitwise_and_scalar.h"
#include "aclnnop/aclnn_bitwise_and_tensor.h"
#include "aclnnop/aclnn_bitwise_not.h"
#include "aclnnop/aclnn_bitwise_or_scalar.h"
#include "aclnnop/aclnn_bitwise_or_tensor.h"
#include "aclnnop/aclnn_bitwise_xor_scalar.h"
#include "aclnnop/aclnn_bitwise_xor_tensor.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_fmod_scalar.h"
#include "aclnnop/aclnn_fmod_tensor.h"
#include "aclnnop/aclnn_ge_scalar.h"
#include "aclnnop/aclnn_ge_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_le_scalar.h"
#include "aclnnop/aclnn_le_tensor.h"
#include "aclnnop/aclnn_logical_and.h"
#include "aclnnop/aclnn_logical_not.h"
#include "aclnnop/aclnn_logical_or.h"
#include "aclnnop/aclnn_logical_xor.h"
#include "aclnnop/aclnn_lt_scalar.h"
#include "aclnnop/aclnn_lt_tensor.h"
#include "aclnnop/aclnn_maximum.h"
#include "aclnnop/aclnn_minimum.h"
#include "aclnnop/aclnn_ne_scalar.h"
#include "aclnnop/aclnn_ne_tensor.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_remainder.h"
#include "ew_test_common.h"

namespace opsnn::test {
namespace {

using namespace ew;
using Ph2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
using TT = std::function<int(aclTensor *, aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **)>;
using TS = std::function<int(aclTensor *, aclScalar *, aclTensor *, uint64_t *, aclOpExecutor **)>;
using ITT = std::function<int(aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **)>;
using ITS = std::function<int(aclTensor *, aclScalar *, uint64_t *, aclOpExecutor **)>;

#define TT_(F) [](aclTensor *a, aclTensor *b, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return F##GetWorkspaceSize(a, b, o, w, e); }, F
#define TS_(F) [](aclTensor *a, aclScalar *b, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return F##GetWorkspaceSize(a, b, o, w, e); }, F
#define ITT_(F) [](aclTensor *a, aclTensor *b, uint64_t *w, aclOpExecutor **e) { return F##GetWorkspaceSize(a, b, w, e); }, F
#define ITS_(F) [](aclTensor *a, aclScalar *b, uint64_t *w, aclOpExecutor **e) { return F##GetWorkspaceSize(a, b, w, e); }, F
#define NONE_ nullptr, nullptr

enum Result { kProm, kFloatRes, kBoolRes };

struct BinOp {
  std::string name;
  std::function<double(double, double, bool integral)> ref;
  Result result;
  bool bool_ok, int_ok, float_ok;
  TT tt; Ph2 tt2;
  TS ts; Ph2 ts2;
  ITT itt; Ph2 itt2;
  ITS its; Ph2 its2;
  bool nonzero_other = false;
  double step = 0;           // float quantisation (ties / zeros for comparisons and logical ops)
  double ilo = -40, ihi = 40;  // integer operand range
  double flo = -4, fhi = 4;    // float operand range
  double other_ilo = -40;      // lower bound of integer `other` values (pow: exponent)
  double other_ihi = 40;
};

double py_mod(double a, double b, bool integral) {
  if (integral) return a - std::floor(a / b) * b;
  double m = std::fmod(a, b);
  return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
}
double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }
double int_pow(double a, double b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? (std::fmod(-b, 2) == 1 ? -1 : 1) : 0;
  double r = 1;
  for (int k = 0; k < static_cast<int>(b); ++k) r *= a;
  return r;
}
int64_t I(double v) { return static_cast<int64_t>(v); }

std::vector<BinOp> all_ops() {
  std::vector<BinOp> v;
  v.push_back({"Maximum", [](double a, double b, bool) { return nan_max(a, b); }, kProm, true, true, true, TT_(aclnnMaximum), NONE_, NONE_, NONE_});
  v.push_back({"Minimum", [](double a, double b, bool) { return nan_min(a, b); }, kProm, true, true, true, TT_(aclnnMinimum), NONE_, NONE_, NONE_});
  v.push_back({"Remainder", py_mod, kProm, false, true, true, TT_(aclnnRemainderTensorTensor), TS_(aclnnRemainderTensorScalar),
               ITT_(aclnnInplaceRemainderTensorTensor), ITS_(aclnnInplaceRemainderTensorScalar), true});
  v.push_back({"Fmod", [](double a, double b, bool) { return std::fmod(a, b); }, kProm, false, true, true, TT_(aclnnFmodTensor),
               TS_(aclnnFmodScalar), ITT_(aclnnInplaceFmodTensor), ITS_(aclnnInplaceFmodScalar), true});
  auto mode = [](int m) {
    return [m](aclTensor *a, aclTensor *b, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnDivModGetWorkspaceSize(a, b, m, o, w, e); };
  };
  auto modes = [](int m) {
    return [m](aclTensor *a, aclScalar *b, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnDivModsGetWorkspaceSize(a, b, m, o, w, e); };
  };
  auto imode = [](int m) {
    return [m](aclTensor *a, aclTensor *b, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceDivModGetWorkspaceSize(a, b, m, w, e); };
  };
  auto imodes = [](int m) {
    return [m](aclTensor *a, aclScalar *b, uint64_t *w, aclOpExecutor **e) { return aclnnInplaceDivModsGetWorkspaceSize(a, b, m, w, e); };
  };
  v.push_back({"DivModNone", [](double a, double b, bool) { return a / b; }, kFloatRes, true, true, true, mode(0), aclnnDivMod, modes(0), aclnnDivMods,
               imode(0), aclnnInplaceDivMod, imodes(0), aclnnInplaceDivMods, true});
  v.push_back({"DivModTrunc", [](double a, double b, bool) { return std::trunc(a / b); }, kProm, false, true, true, mode(1), aclnnDivMod, modes(1),
               aclnnDivMods, imode(1), aclnnInplaceDivMod, imodes(1), aclnnInplaceDivMods, true});
  v.push_back({"DivModFloor", [](double a, double b, bool) { return std::floor(a / b); }, kProm, false, true, true, mode(2), aclnnDivMod, modes(2),
               aclnnDivMods, imode(2), aclnnInplaceDivMod, imodes(2), aclnnInplaceDivMods, true});
  BinOp pow{"Pow", [](double a, double b, bool integral) { return integral ? int_pow(a, b) : std::pow(a, b); }, kProm, false, true, true,
            TT_(aclnnPowTensorTensor), TS_(aclnnPowTensorScalar), ITT_(aclnnInplacePowTensorTensor), ITS_(aclnnInplacePowTensorScalar)};
  pow.step = 0.5;
  pow.ilo = -4, pow.ihi = 4, pow.other_ilo = -2, pow.other_ihi = 6, pow.flo = -3, pow.fhi = 3;
  v.push_back(pow);
  v.push_back({"Atan2", [](double a, double b, bool) { return std::atan2(a, b); }, kFloatRes, true, true, true, TT_(aclnnAtan2), NONE_,
               ITT_(aclnnInplaceAtan2), NONE_});
#define CMP(Name, op)                                                                                                        \
  {                                                                                                                          \
    BinOp c{#Name, [](double a, double b, bool) { return (a op b) ? 1.0 : 0.0; }, kBoolRes, true, true, true,                \
            TT_(aclnn##Name##Tensor), TS_(aclnn##Name##Scalar), ITT_(aclnnInplace##Name##Tensor), ITS_(aclnnInplace##Name##Scalar)}; \
    c.step = 0.5;                                                                                                            \
    c.ilo = -3, c.ihi = 3, c.other_ilo = -3, c.other_ihi = 3, c.flo = -1.5, c.fhi = 1.5;                                     \
    v.push_back(c);                                                                                                          \
  }
  CMP(Eq, ==) CMP(Ne, !=) CMP(Gt, >) CMP(Ge, >=) CMP(Lt, <) CMP(Le, <=)
#undef CMP
  auto logical = [&](const char *name, std::function<double(double, double, bool)> f, TT tt, Ph2 tt2, ITT itt, Ph2 itt2) {
    BinOp c{name, f, kBoolRes, true, true, true, tt, tt2, NONE_, itt, itt2, NONE_};
    c.step = 1;
    c.ilo = -1, c.ihi = 1, c.other_ilo = -1, c.other_ihi = 1, c.flo = -1, c.fhi = 1;
    v.push_back(c);
  };
  logical("LogicalAnd", [](double a, double b, bool) { return (a != 0 && b != 0) ? 1.0 : 0.0; }, TT_(aclnnLogicalAnd), ITT_(aclnnInplaceLogicalAnd));
  logical("LogicalOr", [](double a, double b, bool) { return (a != 0 || b != 0) ? 1.0 : 0.0; }, TT_(aclnnLogicalOr), ITT_(aclnnInplaceLogicalOr));
  logical("LogicalXor", [](double a, double b, bool) { return ((a != 0) != (b != 0)) ? 1.0 : 0.0; }, TT_(aclnnLogicalXor), NONE_);
  v.push_back({"BitwiseAnd", [](double a, double b, bool) { return static_cast<double>(I(a) & I(b)); }, kProm, true, true, false,
               TT_(aclnnBitwiseAndTensor), TS_(aclnnBitwiseAndScalar), ITT_(aclnnInplaceBitwiseAndTensor), ITS_(aclnnInplaceBitwiseAndScalar)});
  v.push_back({"BitwiseOr", [](double a, double b, bool) { return static_cast<double>(I(a) | I(b)); }, kProm, true, true, false,
               TT_(aclnnBitwiseOrTensor), TS_(aclnnBitwiseOrScalar), ITT_(aclnnInplaceBitwiseOrTensor), ITS_(aclnnInplaceBitwiseOrScalar)});
  v.push_back({"BitwiseXor", [](double a, double b, bool) { return static_cast<double>(I(a) ^ I(b)); }, kProm, true, true, false,
               TT_(aclnnBitwiseXorTensor), TS_(aclnnBitwiseXorScalar), ITT_(aclnnInplaceBitwiseXorTensor), ITS_(aclnnInplaceBitwiseXorScalar)});
  return v;
}

bool can_cast(aclDataType from, aclDataType to) {
  if (is_float(from) && !is_float(to)) return false;
  if (from != ACL_BOOL && to == ACL_BOOL) return false;
  return true;
}
bool allowed(const BinOp &op, aclDataType p) {
  return category(p) == 0 ? op.bool_ok : category(p) == 1 ? op.int_ok : op.float_ok;
}
aclDataType result_of(const BinOp &op, aclDataType p) {
  if (op.result == kBoolRes) return ACL_BOOL;
  if (op.result == kFloatRes && !is_float(p)) return ACL_FLOAT;
  return p;
}

enum Form { kTensorTensor, kTensorScalar, kInplaceTensor, kInplaceScalar };

// One random case of `op` in `form`.
void run_case(const BinOp &op, Form form) {
  const bool scalar = form == kTensorScalar || form == kInplaceScalar;
  const bool inplace = form == kInplaceTensor || form == kInplaceScalar;
  std::uniform_int_distribution<int> coin(0, 1);
  // Dtypes and shapes such that the op is defined (and, in place, the result fits selfRef).
  aclDataType st = ACL_FLOAT, ot = ACL_FLOAT, p = ACL_FLOAT;
  std::vector<int64_t> full, ss, os;
  for (int tries = 0;; ++tries) {
    ASSERT_LT(tries, 1000) << "no dtype combination for " << op.name;
    st = pick(kAll);
    ot = coin(rng()) ? st : pick(scalar ? std::vector<aclDataType>{ACL_FLOAT, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_BOOL} : kAll);
    full = random_shape(4);
    if (inplace || scalar || coin(rng())) { ss = full; os = broadcastable_to(full); }
    else { ss = broadcastable_to(full); os = full; }
    p = result_type({{st, static_cast<int>(ss.size())}, {ot, scalar ? -1 : static_cast<int>(os.size())}});
    if (!allowed(op, p)) continue;
    if (inplace && !can_cast(result_of(op, p), st)) continue;
    break;
  }
  const aclDataType r = result_of(op, p);
  SCOPED_TRACE(::testing::Message() << op.name << " form " << form << " self " << st << " other " << ot << " promoted " << p);
  auto self = make_view(ss, st, coin(rng()));
  fill(*self, st, category(st) == 2 ? op.flo : op.ilo, category(st) == 2 ? op.fhi : op.ihi, op.step);
  std::unique_ptr<DeviceTensor> other;
  aclScalar *other_s = nullptr;
  double other_v = 0;
  const bool integral_p = category(p) < 2;
  auto fix_other = [&](double x) {
    if (op.nonzero_other && x == 0) x = (category(ot) == 0 ? 1 : 3);
    if (op.name == "Pow" && integral_p && x < 0 && scalar) x = -x;  // negative integer powers are errors
    return x;
  };
  if (scalar) {
    double lo = category(ot) == 2 ? op.flo : op.other_ilo, hi = category(ot) == 2 ? op.fhi : op.other_ihi;
    if (ot == ACL_BOOL) lo = 0, hi = 1;
    double x = std::uniform_real_distribution<double>(lo, hi)(rng());
    x = category(ot) == 2 ? std::round(x * 4) / 4 : std::round(x);  // exact in every dtype
    // Integer scalars stay inside the promoted integer dtype (PyTorch would wrap them first).
    const aclDataType pi = p;
    if (pi == ACL_UINT8 && x < 0) x = -x;
    other_v = fix_other(x);
    other_s = make_scalar(ot, other_v);
  } else {
    other = make_view(os, ot, coin(rng()));
    fill(*other, ot, category(ot) == 2 ? op.flo : op.other_ilo, category(ot) == 2 ? op.fhi : op.other_ihi, op.step);
    auto vals = other->values();
    for (auto &x : vals) x = fix_other(x);
    if (!vals.empty()) other->set_values(vals);
  }
  std::unique_ptr<DeviceTensor> out;
  aclDataType out_t = r;
  if (!inplace) {
    if (coin(rng())) {
      if (r == ACL_BOOL) out_t = pick(kAll);
      else if (is_float(r)) out_t = pick(kFloats);
      else out_t = pick({ACL_INT32, ACL_INT64, ACL_FLOAT, ACL_DOUBLE});
    }
    out = make_view(full, out_t, coin(rng()));
    out->poison();
  } else {
    out_t = st;
  }

  // Golden in float64: operands as stored, the scalar as PyTorch casts it (comparisons take it
  // in the promoted dtype), the result through the result dtype, then to the output dtype.
  const auto sv = self->values();
  const auto ov = other ? other->values() : std::vector<double>{};
  const double sc = op.result == kBoolRes ? round_to(p, other_v) : other_v;
  std::vector<double> golden(static_cast<size_t>(numel_of(full)));
  for (size_t i = 0; i < golden.size(); ++i) {
    auto idx = unravel(static_cast<int64_t>(i), full);
    double a = sv[static_cast<size_t>(broadcast_source(idx, full, ss))];
    double b = other ? ov[static_cast<size_t>(broadcast_source(idx, full, os))] : sc;
    double g = op.ref(a, b, integral_p);
    if (r == ACL_BOOL) g = g != 0;
    golden[i] = round_to(out_t, round_to(r, g));
  }

  int rc = 0;
  if (form == kTensorTensor) rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return op.tt(*self, *other, *out, w, e); }, op.tt2);
  if (form == kTensorScalar) rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return op.ts(*self, other_s, *out, w, e); }, op.ts2);
  if (form == kInplaceTensor) rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return op.itt(*self, *other, w, e); }, op.itt2);
  if (form == kInplaceScalar) rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return op.its(*self, other_s, w, e); }, op.its2);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();
  DeviceTensor &written = inplace ? *self : *out;
  // A FLOAT result written to a DOUBLE output carries FLOAT's precision.
  const aclDataType prec = is_float(r) && r != ACL_DOUBLE && out_t == ACL_DOUBLE ? r : written.dtype();
  EXPECT_TRUE(meets_precision(prec, written.values(), golden));
  EXPECT_TRUE(written.untouched_outside_view());
  aclDestroyScalar(other_s);
}

class BinaryMathRandom : public ::testing::TestWithParam<int> {};

TEST_P(BinaryMathRandom, AllFormsDtypesBroadcastStrided) {
  reseed_for_current_test();
  const BinOp op = all_ops()[static_cast<size_t>(GetParam())];
  const bool has[4] = {op.tt != nullptr, op.ts != nullptr, op.itt != nullptr, op.its != nullptr};
  for (int form = 0; form < 4; ++form) {
    if (!has[form]) continue;
    for (int iter = 0; iter < 40; ++iter) {
      run_case(op, static_cast<Form>(form));
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryMathRandom, ::testing::Range(0, static_cast<int>(all_ops().size())),
                         [](const auto &info) { return all_ops()[static_cast<size_t>(info.param)].name; });

// ---------------------------------------------------------------- specific semantics

template <class F, class G>
std::vector<double> run2(aclDataType dt, const std::vector<double> &a, const std::vector<double> &b, aclDataType out_t, F ph1, G ph2) {
  const int64_t n = static_cast<int64_t>(a.size());
  DeviceTensor x({n}, dt), y({n}, dt), o({n}, out_t);
  x.set_values(a);
  y.set_values(b);
  o.poison();
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return ph1(x.get(), y.get(), o.get(), w, e); }, ph2), 0) << aclGetRecentErrMsg();
  return o.values();
}

::testing::AssertionResult same(const std::vector<double> &got, const std::vector<double> &want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size";
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = (std::isnan(got[i]) && std::isnan(want[i])) || got[i] == want[i];
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want[i];
  }
  return ::testing::AssertionSuccess();
}

TEST(BinaryMath, MaximumMinimumPropagateNan) {
  std::vector<double> a{NAN, 1, 2, -INFINITY}, b{0, NAN, 3, -1};
  for (aclDataType dt : kFloats) {
    EXPECT_TRUE(same(run2(dt, a, b, dt, aclnnMaximumGetWorkspaceSize, aclnnMaximum), {NAN, NAN, 3, -1}));
    EXPECT_TRUE(same(run2(dt, a, b, dt, aclnnMinimumGetWorkspaceSize, aclnnMinimum), {NAN, NAN, 2, -INFINITY}));
  }
  EXPECT_TRUE(same(run2(ACL_BOOL, {0, 1, 0}, {0, 0, 1}, ACL_BOOL, aclnnMaximumGetWorkspaceSize, aclnnMaximum), {0, 1, 1}));
}

TEST(BinaryMath, RemainderAndFmodSigns) {
  std::vector<double> a{-7, 7, -7, 7, 6}, b{3, -3, -3, 3, 3};
  for (aclDataType dt : {ACL_INT32, ACL_INT64, ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16, ACL_INT8}) {
    SCOPED_TRACE(dt);
    EXPECT_TRUE(same(run2(dt, a, b, dt, aclnnRemainderTensorTensorGetWorkspaceSize, aclnnRemainderTensorTensor), {2, -2, -1, 1, 0}));
    EXPECT_TRUE(same(run2(dt, a, b, dt, aclnnFmodTensorGetWorkspaceSize, aclnnFmodTensor), {-1, 1, -1, 1, 0}));
  }
  // Float: x % inf and fmod special values (C / Python semantics).
  EXPECT_TRUE(same(run2(ACL_FLOAT, {-1, 1, INFINITY, 5}, {INFINITY, INFINITY, 2, 0}, ACL_FLOAT,
                        aclnnRemainderTensorTensorGetWorkspaceSize, aclnnRemainderTensorTensor), {INFINITY, 1, NAN, NAN}));
  EXPECT_TRUE(same(run2(ACL_DOUBLE, {-1, 1, INFINITY, 5}, {INFINITY, INFINITY, 2, 0}, ACL_DOUBLE,
                        aclnnFmodTensorGetWorkspaceSize, aclnnFmodTensor), {-1, 1, NAN, NAN}));
  // INT64_MIN % -1 does not trap (integer division by zero: IntegerDivisionByZeroIsReported).
  EXPECT_TRUE(same(run2(ACL_INT64, {-9223372036854775808.0, 7}, {-1, -1}, ACL_INT64, aclnnFmodTensorGetWorkspaceSize, aclnnFmodTensor), {0, 0}));
}

TEST(BinaryMath, RemainderScalarTensor) {
  DeviceTensor other({4}, ACL_INT32), out({4}, ACL_FLOAT);
  other.set_values({-1, -2, -3, -4});
  out.poison();
  aclScalar *five = make_scalar(ACL_FLOAT, 5.0);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRemainderScalarTensorGetWorkspaceSize(five, other, out, w, e); },
                   aclnnRemainderScalarTensor), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(same(out.values(), {0, -1, -1, -3}));
  aclDestroyScalar(five);
}

TEST(BinaryMath, DivModRoundingModes) {
  std::vector<double> a{7, -7, 7, -7, 1}, b{2, 2, -2, -2, 3};
  auto dm = [](int mode) {
    return [mode](aclTensor *x, aclTensor *y, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnDivModGetWorkspaceSize(x, y, mode, o, w, e); };
  };
  EXPECT_TRUE(same(run2(ACL_INT32, a, b, ACL_FLOAT, dm(0), aclnnDivMod), {3.5, -3.5, -3.5, 3.5, static_cast<double>(1.0f / 3.0f)}));
  EXPECT_TRUE(same(run2(ACL_INT32, a, b, ACL_INT32, dm(1), aclnnDivMod), {3, -3, -3, 3, 0}));
  EXPECT_TRUE(same(run2(ACL_INT32, a, b, ACL_INT32, dm(2), aclnnDivMod), {3, -4, -4, 3, 0}));
  EXPECT_TRUE(same(run2(ACL_FLOAT, a, b, ACL_FLOAT, dm(1), aclnnDivMod), {3, -3, -3, 3, 0}));
  EXPECT_TRUE(same(run2(ACL_FLOAT, a, b, ACL_FLOAT, dm(2), aclnnDivMod), {3, -4, -4, 3, 0}));
  // Floor division of floats by zero is the true quotient; negative zero keeps its sign.
  auto z = run2(ACL_FLOAT, {1, -1, -0.5}, {0, 0, 4}, ACL_FLOAT, dm(2), aclnnDivMod);
  EXPECT_TRUE(same(z, {INFINITY, -INFINITY, -1}));
  auto nz = run2(ACL_FLOAT, {-0.0, 0.5}, {4, -4}, ACL_FLOAT, dm(1), aclnnDivMod);
  EXPECT_TRUE(std::signbit(nz[0]) && std::signbit(nz[1]));
  // Integer trunc/floor division keeps the integer dtype: an integer output is accepted.
  EXPECT_TRUE(same(run2(ACL_INT64, {-9223372036854775807.0 - 1, 9}, {-1, 2}, ACL_INT64, dm(2), aclnnDivMod),
                   {-9223372036854775807.0 - 1, 4}));
}

// Integer division by zero raises ZeroDivisionError in PyTorch: the launch reports ACLNN_ERR_INNER
// at the synchronisation, naming the op; elements with a non-zero divisor are still right and those
// divided by zero are 0. Floating division by zero and true division (DivMod mode 0) stay IEEE.
TEST(BinaryMath, IntegerDivisionByZeroIsReported) {
  using Ph1 = std::function<int(aclTensor *, aclTensor *, aclScalar *, aclTensor *, uint64_t *, aclOpExecutor **)>;
  using Ph2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
  struct Case {
    const char *api;
    Ph1 ph1;
    Ph2 ph2;
    bool scalar_other, inplace;
    std::function<double(double, double)> ref;  // for non-zero divisors
  };
  auto py_mod = [](double a, double b) { double m = std::fmod(a, b); return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m; };
  auto c_mod = [](double a, double b) { return std::fmod(a, b); };
  auto trunc_div = [](double a, double b) { return std::trunc(a / b); };
  auto floor_div = [](double a, double b) { return std::floor(a / b); };
  const std::vector<Case> cases = {
      {"aclnnRemainderTensorTensor", [](aclTensor *a, aclTensor *b, aclScalar *, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
         return aclnnRemainderTensorTensorGetWorkspaceSize(a, b, o, w, e); }, aclnnRemainderTensorTensor, false, false, py_mod},
      {"aclnnRemainderTensorScalar", [](aclTensor *a, aclTensor *, aclScalar *s, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
         return aclnnRemainderTensorScalarGetWorkspaceSize(a, s, o, w, e); }, aclnnRemainderTensorScalar, true, false, py_mod},
      {"aclnnInplaceRemainderTensorTensor", [](aclTensor *a, aclTensor *b, aclScalar *, aclTensor *, uint64_t *w, aclOpExecutor **e) {
         return aclnnInplaceRemainderTensorTensorGetWorkspaceSize(a, b, w, e); }, aclnnInplaceRemainderTensorTensor, false, true, py_mod},
      {"aclnnInplaceRemainderTensorScalar", [](aclTensor *a, aclTensor *, aclScalar *s, aclTensor *, uint64_t *w, aclOpExecutor **e) {
         return aclnnInplaceRemainderTensorScalarGetWorkspaceSize(a, s, w, e); }, aclnnInplaceRemainderTensorScalar, true, true, py_mod},
      {"aclnnFmodTensor", [](aclTensor *a, aclTensor *b, aclScalar *, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
         return aclnnFmodTensorGetWorkspaceSize(a, b, o, w, e); }, aclnnFmodTensor, false, false, c_mod},
      {"aclnnFmodScalar", [](aclTensor *a, aclTensor *, aclScalar *s, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
         return aclnnFmodScalarGetWorkspaceSize(a, s, o, w, e); }, aclnnFmodScalar, true, false, c_mod},
      {"aclnnInplaceFmodTensor", [](aclTensor *a, aclTensor *b, aclScalar *, aclTensor *, uint64_t *w, aclOpExecutor **e) {
         return aclnnInplaceFmodTensorGetWorkspaceSize(a, b, w, e); }, aclnnInplaceFmodTensor, false, true, c_mod},
      {"aclnnInplaceFmodScalar", [](aclTensor *a, aclTensor *, aclScalar *s, aclTensor *, uint64_t *w, aclOpExecutor **e) {
         return aclnnInplaceFmodScalarGetWorkspaceSize(a, s, w, e); }, aclnnInplaceFmodScalar, true, true, c_mod},
      {"aclnnDivMod", [](aclTensor *a, aclTensor *b, aclScalar *, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
         return aclnnDivModGetWorkspaceSize(a, b, 1, o, w, e); }, aclnnDivMod, false, false, trunc_div},
      {"aclnnDivMods", [](aclTensor *a, aclTensor *, aclScalar *s, aclTensor *o, uint64_t *w, aclOpExecutor **e) {
         return aclnnDivModsGetWorkspaceSize(a, s, 2, o, w, e); }, aclnnDivMods, true, false, floor_div},
      {"aclnnInplaceDivMod", [](aclTensor *a, aclTensor *b, aclScalar *, aclTensor *, uint64_t *w, aclOpExecutor **e) {
         return aclnnInplaceDivModGetWorkspaceSize(a, b, 2, w, e); }, aclnnInplaceDivMod, false, true, floor_div},
      {"aclnnInplaceDivMods", [](aclTensor *a, aclTensor *, aclScalar *s, aclTensor *, uint64_t *w, aclOpExecutor **e) {
         return aclnnInplaceDivModsGetWorkspaceSize(a, s, 1, w, e); }, aclnnInplaceDivMods, true, true, trunc_div},
  };
  const std::vector<double> a{7, -7, 9, -9, 5, 100};
  for (const Case &c : cases) {
    for (aclDataType dt : {ACL_INT32, ACL_INT64, ACL_INT8, ACL_UINT8}) {
      SCOPED_TRACE(::testing::Message() << c.api << " dtype " << dt);
      const bool uns = dt == ACL_UINT8;
      std::vector<double> av = a, bv{2, 0, -4, 3, 0, 7};
      if (uns) {
        for (auto &v : av) v = std::fabs(v);
        for (auto &v : bv) v = std::fabs(v);
      }
      DeviceTensor x({6}, dt), y({6}, dt), o({6}, dt);
      x.set_values(av);
      y.set_values(bv);
      o.poison();
      aclScalar *zero = make_scalar(dt, 0);
      const int st = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.ph1(x, y, zero, o, w, e); }, c.ph2);
      EXPECT_TRUE(fails_with(st, ACLNN_ERR_INNER, {c.api, "ZeroDivisionError", "division by zero"}));
      // The other elements are computed; x / 0 gives 0 (a zero scalar divides every element).
      auto got = (c.inplace ? x : o).values();
      for (size_t i = 0; i < av.size(); ++i)
        EXPECT_EQ(got[i], c.scalar_other || bv[i] == 0 ? 0.0 : c.ref(av[i], bv[i])) << i;
      // The failure was reported once: the next launch on the stream succeeds.
      aclScalar *three = make_scalar(dt, 3);
      x.set_values(av);
      y.set_values({1, 2, 3, 1, 2, 3});
      EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.ph1(x, y, three, o, w, e); }, c.ph2), 0)
          << aclGetRecentErrMsg();
      aclDestroyScalar(zero);
      aclDestroyScalar(three);
    }
  }
  // Mixed dtypes: an INT32 tensor over a BOOL tensor (promoted INT32) holding False.
  DeviceTensor i32({3}, ACL_INT32), bl({3}, ACL_BOOL), out({3}, ACL_INT32);
  i32.set_values({4, 5, 6});
  bl.set_values({1, 0, 1});
  EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRemainderTensorTensorGetWorkspaceSize(i32, bl, out, w, e); },
                                aclnnRemainderTensorTensor), ACLNN_ERR_INNER, {"aclnnRemainderTensorTensor", "division by zero"}));
  // The scalar-tensor form: the tensor is the divisor.
  aclScalar *five = make_scalar(ACL_INT64, 5);
  i32.set_values({2, 0, -3});
  EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRemainderScalarTensorGetWorkspaceSize(five, i32, out, w, e); },
                                aclnnRemainderScalarTensor), ACLNN_ERR_INNER, {"aclnnRemainderScalarTensor", "division by zero"}));
  EXPECT_TRUE(same(out.values(), {1, 0, -1}));
  aclDestroyScalar(five);
  // One zero in a large broadcast divisor (several parallel tasks), on a user stream.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  const int64_t n = 300000;
  DeviceTensor big({n, 2}, ACL_INT64), col({n, 1}, ACL_INT64), bo({n, 2}, ACL_INT64);
  fill(big, ACL_INT64, -1000, 1000);
  std::vector<double> cv(static_cast<size_t>(n), 7.0);
  cv[static_cast<size_t>(n - 5)] = 0;
  col.set_values(cv);
  EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFmodTensorGetWorkspaceSize(big, col, bo, w, e); },
                                aclnnFmodTensor, stream), ACLNN_ERR_INNER, {"aclnnFmodTensor", "division by zero"}));
  cv[static_cast<size_t>(n - 5)] = 7;
  col.set_values(cv);
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnFmodTensorGetWorkspaceSize(big, col, bo, w, e); },
                   aclnnFmodTensor, stream), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  // An empty output divides nothing: no error.
  DeviceTensor e0({0}, ACL_INT32), eo({0}, ACL_INT32);
  aclScalar *zero = make_scalar(ACL_INT32, 0);
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnRemainderTensorScalarGetWorkspaceSize(e0, zero, eo, w, e); },
                   aclnnRemainderTensorScalar), 0);
  aclDestroyScalar(zero);
  // Floating and true division by zero are not errors.
  EXPECT_TRUE(same(run2(ACL_INT32, {1, -1, 0}, {0, 0, 0}, ACL_FLOAT,
                        [](aclTensor *x, aclTensor *y, aclTensor *o, uint64_t *w, aclOpExecutor **e) { return aclnnDivModGetWorkspaceSize(x, y, 0, o, w, e); },
                        aclnnDivMod), {INFINITY, -INFINITY, NAN}));
  EXPECT_TRUE(same(run2(ACL_FLOAT, {5, -5}, {0, 0}, ACL_FLOAT, aclnnRemainderTensorTensorGetWorkspaceSize, aclnnRemainderTensorTensor), {NAN, NAN}));
  EXPECT_TRUE(same(run2(ACL_INT32, {1, -1, 0}, {0, 0, 0}, ACL_FLOAT, aclnnDivGetWorkspaceSize, aclnnDiv), {INFINITY, -INFINITY, NAN}));
}

TEST(BinaryMath, PowIntegerExactWithWrapAround) {
  // 3^21 = 10460353203 wraps in int32 to 1870418611 (PyTorch computes in the promoted dtype).
  EXPECT_TRUE(same(run2(ACL_INT32, {3, 2, -2, 5, 1, -1, -1, 2}, {21, 10, 3, 0, -7, -3, -4, -1}, ACL_INT32,
                        aclnnPowTensorTensorGetWorkspaceSize, aclnnPowTensorTensor),
                   {1870418611, 1024, -8, 1, 1, -1, 1, 0}));
  EXPECT_TRUE(same(run2(ACL_INT8, {2, 3}, {7, 5}, ACL_INT8, aclnnPowTensorTensorGetWorkspaceSize, aclnnPowTensorTensor), {-128, -13}));
}

TEST(BinaryMath, PowFloatSpecialValues) {
  std::vector<double> base{NAN, 1, -INFINITY, 0, -2, -8, 2, -0.0, INFINITY, 0.5};
  std::vector<double> expo{0, NAN, 0.5, -1, 0.5, 1.0 / 3.0, INFINITY, -3, -2, -INFINITY};
  for (aclDataType dt : {ACL_FLOAT, ACL_DOUBLE}) {
    std::vector<double> want;
    for (size_t i = 0; i < base.size(); ++i) want.push_back(round_to(dt, std::pow(round_to(dt, base[i]), round_to(dt, expo[i]))));
    EXPECT_TRUE(same(run2(dt, base, expo, dt, aclnnPowTensorTensorGetWorkspaceSize, aclnnPowTensorTensor), want));
  }
}

TEST(BinaryMath, PowScalarForms) {
  DeviceTensor e({5}, ACL_INT64), out({5}, ACL_INT64), fout({5}, ACL_FLOAT);
  e.set_values({0, 1, 10, 62, -1});
  aclScalar *two = make_scalar(ACL_INT64, 2), *half = make_scalar(ACL_DOUBLE, 0.5);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return aclnnPowScalarTensorGetWorkspaceSize(two, e, out, w, x); }, aclnnPowScalarTensor), 0);
  EXPECT_TRUE(same(out.values(), {1, 2, 1024, 4611686018427387904.0, 0}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return aclnnPowScalarTensorGetWorkspaceSize(half, e, fout, w, x); }, aclnnPowScalarTensor), 0);
  EXPECT_TRUE(same(fout.values(), {1, 0.5, std::ldexp(1.0, -10), std::ldexp(1.0, -62), 2}));
  // Integer tensor to a negative integer scalar power: an error, as in PyTorch.
  aclScalar *neg = make_scalar(ACL_INT32, -2);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnPowTensorScalarGetWorkspaceSize(e, neg, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"negative integer powers"}));
  EXPECT_TRUE(fails_with(aclnnInplacePowTensorScalarGetWorkspaceSize(e, neg, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"negative"}));
  // ... but a float tensor to -2 is fine, and an integer tensor to a float power gives FLOAT.
  DeviceTensor f({2}, ACL_FLOAT16), fo({2}, ACL_FLOAT16);
  f.set_values({2, 0});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return aclnnPowTensorScalarGetWorkspaceSize(f, neg, fo, w, x); }, aclnnPowTensorScalar), 0);
  EXPECT_TRUE(same(fo.values(), {0.25, INFINITY}));
  EXPECT_TRUE(fails_with(aclnnPowTensorScalarGetWorkspaceSize(e, half, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "out", "INT64"}));
  aclDestroyScalar(two);
  aclDestroyScalar(half);
  aclDestroyScalar(neg);
}

TEST(BinaryMath, Atan2QuadrantsAndIntegers) {
  auto v = run2(ACL_INT32, {1, 1, -1, -1, 0, 0}, {1, -1, 1, -1, 0, -1}, ACL_FLOAT, aclnnAtan2GetWorkspaceSize, aclnnAtan2);
  std::vector<double> want{std::atan2(1, 1), std::atan2(1, -1), std::atan2(-1, 1), std::atan2(-1, -1), 0, std::atan2(0, -1)};
  EXPECT_TRUE(meets_precision(ACL_FLOAT, v, want));
  auto s = run2(ACL_DOUBLE, {INFINITY, NAN, -0.0}, {INFINITY, 1, -1}, ACL_DOUBLE, aclnnAtan2GetWorkspaceSize, aclnnAtan2);
  EXPECT_TRUE(same(s, {std::atan2(1.0 / 0.0, 1.0 / 0.0), NAN, std::atan2(-0.0, -1.0)}));
}

TEST(BinaryMath, ComparisonsNanAndOutputDtypes) {
  std::vector<double> a{NAN, 1, 2, INFINITY}, b{NAN, 1, 3, INFINITY};
  EXPECT_TRUE(same(run2(ACL_FLOAT, a, b, ACL_BOOL, aclnnEqTensorGetWorkspaceSize, aclnnEqTensor), {0, 1, 0, 1}));
  EXPECT_TRUE(same(run2(ACL_FLOAT, a, b, ACL_FLOAT, aclnnNeTensorGetWorkspaceSize, aclnnNeTensor), {1, 0, 1, 0}));
  EXPECT_TRUE(same(run2(ACL_FLOAT, a, b, ACL_INT32, aclnnGeTensorGetWorkspaceSize, aclnnGeTensor), {0, 1, 0, 1}));
  EXPECT_TRUE(same(run2(ACL_FLOAT, a, b, ACL_FLOAT16, aclnnLtTensorGetWorkspaceSize, aclnnLtTensor), {0, 0, 1, 0}));
}

TEST(BinaryMath, ScalarComparedInThePromotedDtype) {
  // PyTorch casts the Python number to the tensor's FLOAT16: fp16(0.1) == 0.1 is true.
  DeviceTensor x({2}, ACL_FLOAT16), out({2}, ACL_BOOL);
  x.set_values({0.1, 0.2});
  aclScalar *s = make_scalar(ACL_DOUBLE, 0.1);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnEqScalarGetWorkspaceSize(x, s, out, w, e); }, aclnnEqScalar), 0);
  EXPECT_TRUE(same(out.values(), {1, 0}));
  // An integer tensor against a float scalar compares in FLOAT: 2 > 1.5.
  DeviceTensor i({2}, ACL_INT32), o2({2}, ACL_BOOL);
  i.set_values({1, 2});
  aclScalar *f = make_scalar(ACL_FLOAT, 1.5);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnGtScalarGetWorkspaceSize(i, f, o2, w, e); }, aclnnGtScalar), 0);
  EXPECT_TRUE(same(o2.values(), {0, 1}));
  // In place: the BOOL result in selfRef's dtype.
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceGtScalarGetWorkspaceSize(i, f, w, e); }, aclnnInplaceGtScalar), 0);
  EXPECT_TRUE(same(i.values(), {0, 1}));
  aclDestroyScalar(s);
  aclDestroyScalar(f);
}

TEST(BinaryMath, LogicalAndBitwiseUnary) {
  DeviceTensor x({5}, ACL_FLOAT), o({5}, ACL_BOOL), oi({5}, ACL_INT8);
  x.set_values({0, -0.0, NAN, 2, -INFINITY});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnLogicalNotGetWorkspaceSize(x, o, w, e); }, aclnnLogicalNot), 0);
  EXPECT_TRUE(same(o.values(), {1, 1, 0, 0, 0}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnLogicalNotGetWorkspaceSize(x, oi, w, e); }, aclnnLogicalNot), 0);
  EXPECT_TRUE(same(oi.values(), {1, 1, 0, 0, 0}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceLogicalNotGetWorkspaceSize(x, w, e); }, aclnnInplaceLogicalNot), 0);
  EXPECT_TRUE(same(x.values(), {1, 1, 0, 0, 0}));
  DeviceTensor i8({4}, ACL_INT8), i8o({4}, ACL_INT8), b({3}, ACL_BOOL), bo({3}, ACL_BOOL);
  i8.set_values({5, -1, 0, 127});
  b.set_values({0, 1, 1});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnBitwiseNotGetWorkspaceSize(i8, i8o, w, e); }, aclnnBitwiseNot), 0);
  EXPECT_TRUE(same(i8o.values(), {-6, 0, -1, -128}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnBitwiseNotGetWorkspaceSize(b, bo, w, e); }, aclnnBitwiseNot), 0);
  EXPECT_TRUE(same(bo.values(), {1, 0, 0}));
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  DeviceTensor f({3}, ACL_FLOAT), fo({3}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnBitwiseNotGetWorkspaceSize(f, fo, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"aclnnBitwiseNot", "FLOAT"}));
  EXPECT_TRUE(fails_with(aclnnBitwiseAndTensorGetWorkspaceSize(f, f, fo, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"BitwiseAnd", "FLOAT"}));
}

// ---------------------------------------------------------------- errors

class BinaryMathErrors : public ::testing::Test {
 protected:
  DeviceTensor f32{{2, 3}, ACL_FLOAT}, out{{2, 3}, ACL_FLOAT}, i32{{2, 3}, ACL_INT32}, bad{{4}, ACL_FLOAT};
  DeviceTensor boolt{{2, 3}, ACL_BOOL}, row{{1, 3}, ACL_FLOAT};
  aclScalar *one = make_scalar(ACL_FLOAT, 1);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ~BinaryMathErrors() override { aclDestroyScalar(one); }
};

TEST_F(BinaryMathErrors, NullArguments) {
  EXPECT_TRUE(fails_with(aclnnMaximumGetWorkspaceSize(nullptr, f32, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnMaximum", "self"}));
  EXPECT_TRUE(fails_with(aclnnRemainderTensorScalarGetWorkspaceSize(f32, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"other"}));
  EXPECT_TRUE(fails_with(aclnnRemainderScalarTensorGetWorkspaceSize(nullptr, f32, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"self"}));
  EXPECT_TRUE(fails_with(aclnnPowTensorTensorGetWorkspaceSize(f32, nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"exponent"}));
  EXPECT_TRUE(fails_with(aclnnEqTensorGetWorkspaceSize(f32, f32, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(fails_with(aclnnGtScalarGetWorkspaceSize(f32, one, out, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"executor"}));
  EXPECT_TRUE(fails_with(aclnnDivModGetWorkspaceSize(f32, nullptr, 1, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"other"}));
}

TEST_F(BinaryMathErrors, ShapesAndInplaceGrowth) {
  EXPECT_TRUE(fails_with(aclnnMinimumGetWorkspaceSize(f32, bad, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"broadcast", "[2, 3]", "[4]"}));
  EXPECT_TRUE(fails_with(aclnnAtan2GetWorkspaceSize(f32, f32, bad, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[4]", "[2, 3]"}));
  EXPECT_TRUE(fails_with(aclnnInplaceFmodTensorGetWorkspaceSize(row, f32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef", "grow"}));
  EXPECT_TRUE(fails_with(aclnnInplaceEqTensorGetWorkspaceSize(row, f32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"selfRef", "grow"}));
}

TEST_F(BinaryMathErrors, DtypeRules) {
  EXPECT_TRUE(fails_with(aclnnRemainderTensorTensorGetWorkspaceSize(boolt, boolt, boolt, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"Remainder", "BOOL"}));
  EXPECT_TRUE(fails_with(aclnnPowTensorTensorGetWorkspaceSize(boolt, boolt, boolt, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"Pow", "BOOL"}));
  EXPECT_TRUE(fails_with(aclnnMaximumGetWorkspaceSize(f32, i32, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "out", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnInplaceAtan2GetWorkspaceSize(i32, i32, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "selfRef", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnDivModGetWorkspaceSize(f32, f32, 3, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"mode", "3"}));
  EXPECT_TRUE(fails_with(aclnnDivModGetWorkspaceSize(f32, f32, -1, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"mode"}));
  EXPECT_TRUE(fails_with(aclnnInplaceDivModGetWorkspaceSize(i32, i32, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"FLOAT", "selfRef"}));
  // A comparison result (BOOL) goes to any output dtype, but the inputs must still be supported.
  int64_t dims[] = {2};
  aclTensor *c64 = aclCreateTensor(dims, 1, ACL_COMPLEX64, nullptr, 0, ACL_FORMAT_ND, dims, 1, f32.data());
  EXPECT_TRUE(fails_with(aclnnEqTensorGetWorkspaceSize(c64, c64, boolt, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "COMPLEX64"}));
  aclDestroyTensor(c64);
}

}  // namespace
}  // namespace opsnn::test

// The checks of the binary math ops that the generic harness of the n-ary tables
// (test_op_table_nary.cpp: every dtype, layout, promotion, in-place form, special value and the
// common errors) does not express: remainder / fmod signs and INT64_MIN, the DivMod rounding modes
// on signed zeros and extremes, integer division by zero reported at launch, integer pow with
// wrap-around and negative exponents, the Pow scalar forms and their errors, and a scalar compared
// in the promoted FLOAT16 dtype.
#include <cmath>
#include <functional>
#include <string>

#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_fmod_tensor.h"
#include "aclnnop/aclnn_fmod_scalar.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_remainder.h"
#include "ew_test_common.h"

namespace opsnn::test {
namespace {

using namespace ew;

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

}  // namespace
}  // namespace opsnn::test

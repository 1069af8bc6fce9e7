// The element-wise ops with three operands that the generic harness of the n-ary tables
// (test_op_table_nary.cpp) does not cover, or only in part: the masked fills with a value of another
// dtype and infinities; clamp semantics on chosen values (NaN, min > max, one bound, the in-place
// forms); Lerp's exact endpoints and Addcdiv's integer division; IsNan on raw bit patterns.
#include <cmath>
#include <cstring>

#include "aclnnop/aclnn_addcdiv.h"
#include "aclnnop/aclnn_clamp.h"
#include "aclnnop/aclnn_isnan.h"
#include "aclnnop/aclnn_lerp_scalar.h"
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_masked_fill_tensor.h"
#include "ew_test_common.h"

namespace opsnn::test {
namespace {

using namespace ew;

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

// Lerp's endpoints are exact; integer division through Addcdiv is an error (the tables' `check`).
TEST(Ternary, LerpEndpointsAndAddcdivIntegerDivision) {
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
  EXPECT_TRUE(fails_with(aclnnLerpsGetWorkspaceSize(i, i, one, i, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"aclnnLerps", "self", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnAddcdivGetWorkspaceSize(a, i, i, one, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"integer division", "addcdiv"}));
  aclDestroyScalar(one);
  aclDestroyScalar(zero);
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
  // Special values fill as such. (Dtypes, views and errors: the n-ary harness.)
  DeviceTensor f({2}, ACL_FLOAT16), m({2}, ACL_BOOL);
  m.set_values({1, 0});
  f.set_values({5, 6});
  aclScalar *ninf = make_scalar(ACL_DOUBLE, -INFINITY);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceMaskedFillScalarGetWorkspaceSize(f, m, ninf, w, e); },
                   aclnnInplaceMaskedFillScalar), 0);
  EXPECT_TRUE(same(f.values(), {-INFINITY, 6}));
  aclDestroyScalar(ninf);
}

}  // namespace
}  // namespace opsnn::test

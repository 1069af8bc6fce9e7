// The checks of Add / Sub / Mul / Div that the generic harness of the n-ary tables
// (test_op_table_nary.cpp, which runs every dtype, layout, promotion, in-place form, special value
// and the common errors) does not express: integer wrap-around through the promoted dtype, integer
// true division by zero, a FLOAT scalar on a FLOAT16 tensor, a large parallel run, the null
// workspace / executor pointers, a BOOL alpha, unsupported dtypes and formats, an overlapping output.
#include <cmath>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

TEST(BinaryArith, IntegerOverflowWrapsThroughPromotedDtype) {
  DeviceTensor a({4}, ACL_INT8), b({4}, ACL_INT8), out({4}, ACL_INT32);
  a.set_values({100, -100, 127, 1});
  b.set_values({100, -100, 1, 1});
  int64_t one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_INT64);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(a, b, alpha, out, w, e); },
                   aclnnAdd), 0);
  // int8 arithmetic wraps (PyTorch computes in the promoted int8), then widens to int32.
  EXPECT_EQ(out.values(), (std::vector<double>{-56, 56, -128, 2}));
  aclDestroyScalar(alpha);
}

TEST(BinaryArith, DivOfIntegersIsTrueDivisionWithInfAndNan) {
  DeviceTensor a({4}, ACL_INT32), b({4}, ACL_INT32), out({4}, ACL_FLOAT);
  a.set_values({7, -7, 1, 0});
  b.set_values({2, 2, 0, 0});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnDivGetWorkspaceSize(a, b, out, w, e); }, aclnnDiv), 0);
  auto v = out.values();
  EXPECT_EQ(v[0], 3.5);
  EXPECT_EQ(v[1], -3.5);
  EXPECT_TRUE(std::isinf(v[2]) && v[2] > 0);
  EXPECT_TRUE(std::isnan(v[3]));
}

TEST(BinaryArith, FloatScalarOnHalfTensorComputesInHalf) {
  // Clients create ACL_FLOAT scalars for FLOAT16 tensors: the result stays FLOAT16.
  DeviceTensor a({3}, ACL_FLOAT16), out({3}, ACL_FLOAT16);
  a.set_values({1.5, -2, 1000});
  float two = 2.0f, one = 1.0f;
  aclScalar *s = aclCreateScalar(&two, ACL_FLOAT), *alpha = aclCreateScalar(&one, ACL_FLOAT);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddsGetWorkspaceSize(a, s, alpha, out, w, e); }, aclnnAdds), 0);
  EXPECT_EQ(out.values(), (std::vector<double>{3.5, 0, 1002}));
  aclDestroyScalar(s);
  aclDestroyScalar(alpha);
}

TEST(BinaryArith, LargeContiguousRunsInParallelChunks) {
  // Bigger than one parallel task: exercises the split across the pool.
  const int64_t n = 300001;
  DeviceTensor a({n}, ACL_FLOAT), b({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnMulGetWorkspaceSize(a, b, out, w, e); }, aclnnMul), 0);
  auto av = a.values(), bv = b.values();
  std::vector<double> g(av.size());
  for (size_t i = 0; i < g.size(); ++i) g[i] = av[i] * bv[i];
  EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), g));
  EXPECT_TRUE(out.untouched_outside_view());
}

// ---------------------------------------------------------------- errors

class BinaryArithErrors : public ::testing::Test {
 protected:
  DeviceTensor f32{{2, 3}, ACL_FLOAT}, f32b{{2, 3}, ACL_FLOAT}, out{{2, 3}, ACL_FLOAT};
  DeviceTensor i32{{2, 3}, ACL_INT32};
  DeviceTensor bad_shape{{4}, ACL_FLOAT};
  DeviceTensor boolt{{2, 3}, ACL_BOOL};
  float one_f = 1, half_f = 0.5f;
  aclScalar *one = aclCreateScalar(&one_f, ACL_FLOAT);
  aclScalar *half = aclCreateScalar(&half_f, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ~BinaryArithErrors() override {
    aclDestroyScalar(one);
    aclDestroyScalar(half);
  }
};

TEST_F(BinaryArithErrors, NullWorkspaceSizeOrExecutor) {
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, one, out, nullptr, &ex), ACLNN_ERR_PARAM_NULLPTR, {"workspaceSize"}));
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, one, out, &ws, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"executor"}));
}

TEST_F(BinaryArithErrors, BoolAlphaNeedsABoolResult) {
  bool t = true;
  aclScalar *balpha = aclCreateScalar(&t, ACL_BOOL);
  EXPECT_TRUE(fails_with(aclnnAddGetWorkspaceSize(f32, f32b, balpha, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"alpha", "BOOL"}));
  aclDestroyScalar(balpha);
}

TEST_F(BinaryArithErrors, UnsupportedDtypeAndFormat) {
  int64_t dims[] = {2};
  aclTensor *c64 = aclCreateTensor(dims, 1, ACL_COMPLEX64, nullptr, 0, ACL_FORMAT_ND, dims, 1, f32.data());
  ASSERT_NE(c64, nullptr);
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(c64, c64, c64, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "COMPLEX64"}));
  aclDestroyTensor(c64);
  int64_t d2[] = {2, 3};
  aclTensor *nz = aclCreateTensor(d2, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_FRACTAL_NZ, d2, 2, f32.data());
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(nz, f32, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "FRACTAL_NZ"}));
  aclDestroyTensor(nz);
}

TEST_F(BinaryArithErrors, OverlappingOutput) {
  int64_t dims[] = {2, 3}, strides[] = {0, 1}, storage[] = {3};
  aclTensor *alias = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, out.data());
  ASSERT_NE(alias, nullptr);
  EXPECT_TRUE(fails_with(aclnnMulGetWorkspaceSize(f32, f32b, alias, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"overlap"}));
  aclDestroyTensor(alias);
}

}  // namespace
}  // namespace opsnn::test

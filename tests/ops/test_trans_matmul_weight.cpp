// aclnnCalculateMatmulWeightSize(V2) and aclnnTransMatmulWeight: the documented sizes, and matmuls
// on a re-laid weight give bit-identical results to the plain weight (small-M and blocked paths,
// both weight layouts, FLOAT / FLOAT16 / BF16), including repeatable executors re-pointed between a
// plain and a pre-packed weight; aclrtFree forgets a pre-packed buffer.
#include <cstring>

#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

uint64_t size_v2(std::vector<int64_t> shape, aclDataType dt, int *status = nullptr) {
  aclIntArray *a = aclCreateIntArray(shape.data(), shape.size());
  uint64_t n = 0;
  const int st = aclnnCalculateMatmulWeightSizeV2(a, dt, &n);
  if (status) *status = st;
  aclDestroyIntArray(a);
  return n;
}

TEST(CalculateMatmulWeightSize, DocumentedFormula) {
  EXPECT_EQ(size_v2({510, 510}, ACL_FLOAT16), 262144u);
  EXPECT_EQ(size_v2({100, 40}, ACL_FLOAT16), 112u * 48u);
  EXPECT_EQ(size_v2({100, 40}, ACL_BF16), 112u * 48u);
  EXPECT_EQ(size_v2({100, 40}, ACL_INT8), 112u * 64u);
  EXPECT_EQ(size_v2({3, 100, 40}, ACL_FLOAT16), 3u * 112u * 48u);
  const int64_t dims[2] = {17, 33};
  aclIntArray *a = aclCreateIntArray(dims, 2);
  uint64_t n = 0;
  EXPECT_EQ(aclnnCalculateMatmulWeightSize(a, &n), 0);
  EXPECT_EQ(n, 32u * 48u);
  EXPECT_EQ(aclnnCalculateMatmulWeightSize(a, nullptr), 161001);
  EXPECT_EQ(aclnnCalculateMatmulWeightSize(nullptr, &n), 161001);
  aclDestroyIntArray(a);
  int st = 0;
  size_v2({5}, ACL_FLOAT16, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"tensorShape", "2 to 6"}));
  size_v2({5, 5}, ACL_INT32, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"dataType"}));
  size_v2({5, -1}, ACL_FLOAT16, &st);
  EXPECT_TRUE(fails_with(st, 161002, {"tensorShape[1]"}));
}

// out = x @ w via Mm, where w is [k, n] (or the transposed view of [n, k]) in a buffer of the
// documented size; once plain, once after TransMatmulWeight. Bits must match.
void check_case(int64_t m, int64_t k, int64_t n, aclDataType dt, bool trans) {
  SCOPED_TRACE(::testing::Message() << "m " << m << " k " << k << " n " << n << " dt " << dt << " trans " << trans);
  const int64_t cap = static_cast<int64_t>(size_v2({k, n}, dt == ACL_FLOAT ? ACL_FLOAT16 : dt));
  DeviceTensor x({m, k}, dt);
  x.fill_random(-1, 1);
  std::vector<int64_t> ws = trans ? std::vector<int64_t>{1, k} : std::vector<int64_t>{n, 1};
  DeviceTensor w({k, n}, dt, ws, 0, cap);
  w.fill_random(-1, 1);
  DeviceTensor out1({m, n}, dt), out2({m, n}, dt);
  auto mm = [&](DeviceTensor &o) {
    return run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(x, w, o, 0, s, e); }, aclnnMm);
  };
  ASSERT_EQ(mm(out1), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w, s, e); },
                   aclnnTransMatmulWeight),
            0)
      << aclGetRecentErrMsg();
  ASSERT_EQ(mm(out2), 0) << aclGetRecentErrMsg();
  const auto a = out1.values(), b = out2.values();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(double)), 0) << "element " << i;
}

TEST(TransMatmulWeight, MatmulsBitIdenticalToPlainWeight) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (bool trans : {false, true})
      for (int64_t m : {1, 3, 4, 7, 64})
        for (auto kn : {std::pair<int64_t, int64_t>{16, 16}, {33, 50}, {300, 17}, {520, 100}}) check_case(m, kn.first, kn.second, dt, trans);
}

TEST(TransMatmulWeight, RepeatableExecutorRepointedBetweenPlainAndPacked) {
  reseed_for_current_test();
  const int64_t m = 2, k = 64, n = 40;
  DeviceTensor x({m, k}, ACL_FLOAT), plain({k, n}, ACL_FLOAT);
  DeviceTensor packed({k, n}, ACL_FLOAT, {n, 1}, 0, static_cast<int64_t>(size_v2({k, n}, ACL_FLOAT16)));
  x.fill_random(-1, 1);
  plain.fill_random(-1, 1);
  packed.set_values(plain.values());
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(packed, s, e); },
                   aclnnTransMatmulWeight),
            0);
  DeviceTensor o1({m, n}, ACL_FLOAT), o2({m, n}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(x, plain, o1, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *wsp = nullptr;
  if (ws > 0) ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnMm(wsp, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, packed, packed.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, o2, o2.data()), 0);
  ASSERT_EQ(aclnnMm(wsp, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const auto a = o1.values(), b = o2.values();
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << i;
  aclDestroyAclOpExecutor(ex);
  if (wsp) aclrtFree(wsp);
}

TEST(TransMatmulWeight, NoOpForInt8AndErrors) {
  DeviceTensor w8({32, 32}, ACL_INT8);
  w8.fill_random(-100, 100);
  const auto before = w8.values();
  ASSERT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w8, s, e); },
                   aclnnTransMatmulWeight),
            0);
  EXPECT_EQ(before, w8.values());
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(nullptr, &ws, &ex), 161001, {"mmWeightRef"}));
  DeviceTensor v({32}, ACL_FLOAT), i32({4, 4}, ACL_INT32);
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(v, &ws, &ex), 161002, {"mmWeightRef", "2 to 6"}));
  EXPECT_TRUE(fails_with(aclnnTransMatmulWeightGetWorkspaceSize(i32, &ws, &ex), 161002, {"mmWeightRef"}));
}

}  // namespace
}  // namespace opsnn::test

// The matmul family's repeatable executors (aclSetAclOpExecutorRepeatable): a recorded GEMM step
// rebinds its inputs and outputs (aclSetInputTensorAddr / aclSetOutputTensorAddr, the indexes in
// prototype order) and runs again. The per-op semantics are the table harness'
// (tests/ops/test_op_table_matmul.cpp).
#include <memory>
#include <utility>
#include <vector>

#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_mm.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;

TEST(Matmul, RepeatableExecutorRebindsAddresses) {
  DeviceTensor a({4, 3}, ACL_FLOAT), b({3, 2}, ACL_FLOAT), out({4, 2}, ACL_FLOAT);
  DeviceTensor a2({4, 3}, ACL_FLOAT), out2({4, 2}, ACL_FLOAT);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  a2.fill_random(-1, 1);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(a, b, out, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnMm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, a2, a2.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, out2, out2.data()), 0);
  ASSERT_EQ(aclnnMm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  auto check = [&](DeviceTensor &x, DeviceTensor &o) {
    auto xv = x.values(), bv = b.values(), ov = o.values();
    for (int m = 0; m < 4; ++m)
      for (int n = 0; n < 2; ++n) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += xv[m * 3 + k] * bv[k * 2 + n];
        EXPECT_NEAR(ov[m * 2 + n], s, 1e-5);
      }
  };
  check(a, out);
  check(a2, out2);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (w) aclrtFree(w);
}

TEST(Addmm, RepeatableExecutorRebinds) {
  auto m1 = std::make_unique<DeviceTensor>(Dims{6, 5}, ACL_FLOAT), m2 = std::make_unique<DeviceTensor>(Dims{5, 4}, ACL_FLOAT);
  auto s = std::make_unique<DeviceTensor>(Dims{4}, ACL_FLOAT), s2 = std::make_unique<DeviceTensor>(Dims{4}, ACL_FLOAT);
  auto o1 = std::make_unique<DeviceTensor>(Dims{6, 4}, ACL_FLOAT), o2 = std::make_unique<DeviceTensor>(Dims{6, 4}, ACL_FLOAT);
  m1->fill_random(-1, 1);
  m2->fill_random(-1, 1);
  s->fill_random(-1, 1);
  s2->fill_random(-1, 1);
  float one = 1.0f;
  aclScalar *a = aclCreateScalar(&one, ACL_FLOAT), *b = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnAddmmGetWorkspaceSize(*s, *m1, *m2, b, a, *o1, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnAddmm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, *s2, s2->data()), 0);  // self is input 0
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, *o2, o2->data()), 0);
  ASSERT_EQ(aclnnAddmm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  auto av = m1->values(), bv = m2->values();
  for (auto [self, out] : {std::pair{s.get(), o1.get()}, std::pair{s2.get(), o2.get()}}) {
    auto sv = self->values(), ov = out->values();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) {
        double acc = sv[j];
        for (int k = 0; k < 5; ++k) acc += av[i * 5 + k] * bv[k * 4 + j];
        EXPECT_NEAR(ov[i * 4 + j], acc, 1e-5);
      }
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (w) aclrtFree(w);
  aclDestroyScalar(a);
  aclDestroyScalar(b);
}

}  // namespace
}  // namespace opsnn::test

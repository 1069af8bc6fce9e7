// The phase-1 plan cache (core/plan_cache.h): a repeated descriptor is served from the cache and
// computes what phase 1 would; a descriptor differing in any one part (a stride, a dtype, an
// offset, a data address, a scalar value, an attribute, the format, two parameters being one
// object) misses; plans tied to their call are never kept; epochs, capacity and the off switch;
// one cache per thread.
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_nonzero.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "core/plan_cache.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using core::plan_cache_stats;

class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { core::set_plan_cache_for_testing(256); }
  void TearDown() override { core::set_plan_cache_for_testing(-1); }
};

struct Counts {
  uint64_t hits, misses;
};
// Hits and misses of `fn` (a phase 1 or a whole call) on this thread's cache.
template <class F>
Counts count(F &&fn) {
  const auto a = plan_cache_stats();
  fn();
  const auto b = plan_cache_stats();
  return {b.hits - a.hits, b.misses - a.misses};
}

// aclnnAdd(self, other, alpha, out) run to the end; the result checked against float64.
void add_and_check(DeviceTensor &x, DeviceTensor &y, float alpha_v, DeviceTensor &out) {
  aclScalar *alpha = aclCreateScalar(&alpha_v, ACL_FLOAT);
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(x, y, alpha, out, ws, e); },
                   aclnnAdd),
            0)
      << aclGetRecentErrMsg();
  aclDestroyScalar(alpha);
  const auto xv = x.values(), yv = y.values();
  std::vector<double> want(xv.size());
  for (size_t i = 0; i < xv.size(); ++i) want[i] = xv[i] + static_cast<double>(alpha_v) * yv[i];
  EXPECT_TRUE(meets_precision(out.dtype(), out.values(), want));
}

Counts add_counts(DeviceTensor &x, DeviceTensor &y, float alpha, DeviceTensor &out) {
  return count([&] { add_and_check(x, y, alpha, out); });
}

TEST_F(PlanCacheTest, RepeatedDescriptorHitsAndComputesTheSame) {
  DeviceTensor x({3, 5}, ACL_FLOAT), y({3, 5}, ACL_FLOAT), out({3, 5}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  const Counts first = add_counts(x, y, 2.f, out);
  EXPECT_EQ(first.hits, 0u);
  EXPECT_EQ(first.misses, 1u);
  for (int i = 0; i < 3; ++i) {
    x.fill_random(-1, 1);  // new data, same descriptor
    const Counts again = add_counts(x, y, 2.f, out);
    EXPECT_EQ(again.hits, 1u);
    EXPECT_EQ(again.misses, 0u);
  }
}

TEST_F(PlanCacheTest, AnyDifferenceInTheDescriptorMisses) {
  DeviceTensor x({4, 6}, ACL_FLOAT), y({4, 6}, ACL_FLOAT), out({4, 6}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  add_and_check(x, y, 1.5f, out);
  ASSERT_EQ(add_counts(x, y, 1.5f, out).hits, 1u);  // the base case is cached

  // One stride (the same dims, transposed storage), one dtype, an offset, another address.
  DeviceTensor xt({4, 6}, ACL_FLOAT, {1, 4}, 0), xh({4, 6}, ACL_FLOAT16), xo({4, 6}, ACL_FLOAT, {6, 1}, 1),
      x2({4, 6}, ACL_FLOAT);
  for (DeviceTensor *v : {&xt, &xh, &xo, &x2}) {
    v->fill_random(-1, 1);
    const Counts c = add_counts(*v, y, 1.5f, out);
    EXPECT_EQ(c.hits, 0u);
    EXPECT_EQ(c.misses, 1u);
  }
  // A scalar value one ulp away.
  const Counts s = add_counts(x, y, std::nextafter(1.5f, 2.f), out);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 1u);
  // The base descriptor still hits.
  EXPECT_EQ(add_counts(x, y, 1.5f, out).hits, 1u);
}

TEST_F(PlanCacheTest, AnAttributeOrAFormatMisses) {
  DeviceTensor x({3, 4}, ACL_FLOAT), out({3, 4}, ACL_FLOAT);
  x.fill_random(-2, 2);
  auto softmax = [&](aclTensor *self, int64_t dim, aclTensor *o) {
    return count([&] {
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnSoftmaxGetWorkspaceSize(self, dim, o, ws, e); },
                       aclnnSoftmax),
                0)
          << aclGetRecentErrMsg();
    });
  };
  EXPECT_EQ(softmax(x, 1, out).misses, 1u);
  EXPECT_EQ(softmax(x, 1, out).hits, 1u);
  EXPECT_EQ(softmax(x, 0, out).misses, 1u);   // another dim
  EXPECT_EQ(softmax(x, -1, out).misses, 1u);  // the same dim spelled differently: another key
  // The same memory described with another format.
  int64_t dims[] = {3, 4}, strides[] = {4, 1}, storage = 12;
  aclTensor *nchw = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, &storage, 1, x.data());
  const Counts f = softmax(nchw, 1, out);
  EXPECT_EQ(f.hits, 0u);
  EXPECT_EQ(f.misses, 1u);
  aclDestroyTensor(nchw);
}

TEST_F(PlanCacheTest, OneObjectPassedTwiceIsAnotherKey) {
  DeviceTensor x({8}, ACL_FLOAT), y({8}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  // out is a second descriptor of x's memory, then x itself: same bytes, different aliasing.
  aclTensor *x_again = aclCreateTensor(std::vector<int64_t>{8}.data(), 1, ACL_FLOAT, std::vector<int64_t>{1}.data(), 0,
                                       ACL_FORMAT_ND, std::vector<int64_t>{8}.data(), 1, x.data());
  float one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
  auto add = [&](aclTensor *out) {
    return count([&] {
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(x, y, alpha, out, ws, e); },
                       aclnnAdd),
                0)
          << aclGetRecentErrMsg();
    });
  };
  EXPECT_EQ(add(x_again).misses, 1u);
  EXPECT_EQ(add(x_again).hits, 1u);
  const Counts same_object = add(x);
  EXPECT_EQ(same_object.hits, 0u);
  EXPECT_EQ(same_object.misses, 1u);
  aclDestroyScalar(alpha);
  aclDestroyTensor(x_again);
}

// Plans a cache hit could not reproduce are not kept: Nonzero's launch rewrites the caller's out
// descriptor; TransMatmulWeight's phase 1 checks the packed extent (beyond the view) against the
// allocation.
TEST_F(PlanCacheTest, PlansTiedToTheirCallAreNotKept) {
  DeviceTensor x({3, 4}, ACL_FLOAT), nz({12, 2}, ACL_INT64), w({4, 16}, ACL_FLOAT16);
  auto phase1_only = [](auto &&call) {
    return count([&] {
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      ASSERT_EQ(call(&ws, &ex), 0) << aclGetRecentErrMsg();
      aclDestroyAclOpExecutor(ex);
    });
  };
  for (int i = 0; i < 3; ++i) {
    const Counts n = phase1_only([&](uint64_t *ws, aclOpExecutor **e) { return aclnnNonzeroGetWorkspaceSize(x, nz, ws, e); });
    EXPECT_EQ(n.hits, 0u);
    EXPECT_EQ(n.misses, 1u);
    const Counts t = phase1_only([&](uint64_t *ws, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(w, ws, e); });
    EXPECT_EQ(t.hits, 0u);
    EXPECT_EQ(t.misses, 1u);
  }
}

TEST_F(PlanCacheTest, EpochCapacityAndOff) {
  DeviceTensor x({5}, ACL_FLOAT), y({5}, ACL_FLOAT), out({5}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  add_and_check(x, y, 1.f, out);
  EXPECT_EQ(add_counts(x, y, 1.f, out).hits, 1u);
  core::bump_plan_epoch();  // e.g. the kernel environment changed
  EXPECT_EQ(add_counts(x, y, 1.f, out).misses, 1u);
  EXPECT_EQ(add_counts(x, y, 1.f, out).hits, 1u);

  // Four entries: eight distinct descriptors push the first ones out, the newest stay.
  core::set_plan_cache_for_testing(4);
  for (int i = 0; i < 8; ++i) add_and_check(x, y, static_cast<float>(i), out);
  int hits = 0;
  for (int i = 7; i >= 4; --i) hits += static_cast<int>(add_counts(x, y, static_cast<float>(i), out).hits);
  EXPECT_EQ(hits, 4);
  EXPECT_EQ(add_counts(x, y, 0.f, out).hits, 0u);

  core::set_plan_cache_for_testing(0);
  const Counts off1 = add_counts(x, y, 1.f, out), off2 = add_counts(x, y, 1.f, out);
  EXPECT_EQ(off1.hits + off1.misses + off2.hits + off2.misses, 0u);
}

TEST_F(PlanCacheTest, RepeatableExecutorsFromAHitAreIndependent) {
  DeviceTensor x({6}, ACL_FLOAT), y({6}, ACL_FLOAT), out({6}, ACL_FLOAT), out2({6}, ACL_FLOAT);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  float one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor *a = nullptr, *b = nullptr;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x, y, alpha, out, &ws, &a), 0);
  const auto before = plan_cache_stats().hits;
  ASSERT_EQ(aclnnAddGetWorkspaceSize(x, y, alpha, out, &ws, &b), 0);
  EXPECT_EQ(plan_cache_stats().hits, before + 1);
  EXPECT_NE(a, b);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(a), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(b), 0);
  // Re-binding b's output leaves a's alone.
  ASSERT_EQ(aclSetOutputTensorAddr(b, 0, out2, out2.data()), 0);
  out.poison();
  out2.poison();
  ASSERT_EQ(aclnnAdd(nullptr, 0, a, nullptr), 0);
  ASSERT_EQ(aclnnAdd(nullptr, 0, b, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const auto xv = x.values(), yv = y.values();
  std::vector<double> want(6);
  for (size_t i = 0; i < 6; ++i) want[i] = xv[i] + yv[i];
  EXPECT_TRUE(meets_precision(ACL_FLOAT, out.values(), want));
  EXPECT_TRUE(meets_precision(ACL_FLOAT, out2.values(), want));
  aclDestroyAclOpExecutor(a);
  aclDestroyAclOpExecutor(b);
  aclDestroyScalar(alpha);
}

// Each thread has its own cache: threads repeating descriptors concurrently get correct results.
TEST_F(PlanCacheTest, ThreadsKeepTheirOwnCaches) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &failures] {
      core::set_plan_cache_for_testing(256);
      DeviceTensor x({16 + t}, ACL_FLOAT), y({16 + t}, ACL_FLOAT), out({16 + t}, ACL_FLOAT);
      for (int i = 0; i < 50; ++i) {
        x.fill_random(-1, 1);
        y.fill_random(-1, 1);
        add_and_check(x, y, static_cast<float>(i % 3), out);
        if (::testing::Test::HasFailure()) failures++;
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace opsnn::test

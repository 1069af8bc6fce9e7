// acl_base.h helpers, logging, and the compute thread pool.
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/log.h"
#include "core/thread_pool.h"
#include "test_runtime_helpers.h"

TEST(RuntimeBase, HalfConversions) {
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3c00);
  EXPECT_EQ(aclFloatToFloat16(-2.0f), 0xc000);
  EXPECT_FLOAT_EQ(aclFloat16ToFloat(0x3c00), 1.0f);
  EXPECT_FLOAT_EQ(aclFloat16ToFloat(aclFloatToFloat16(0.333333f)), 0.333251953125f);
  EXPECT_TRUE(std::isinf(aclFloat16ToFloat(aclFloatToFloat16(1e6f))));
  EXPECT_TRUE(std::isnan(aclFloat16ToFloat(aclFloatToFloat16(NAN))));
}

TEST(RuntimeBase, DataBuffers) {
  int x[4];
  aclDataBuffer *b = aclCreateDataBuffer(x, sizeof x);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(aclGetDataBufferAddr(b), x);
  EXPECT_EQ(aclGetDataBufferSizeV2(b), sizeof x);
  ASSERT_ACL_OK(aclUpdateDataBuffer(b, x + 1, 4));
  EXPECT_EQ(aclGetDataBufferAddr(b), x + 1);
  EXPECT_ACL_ERROR(aclUpdateDataBuffer(nullptr, x, 4), ACL_ERROR_INVALID_PARAM, "dataBuffer");
  ASSERT_ACL_OK(aclDestroyDataBuffer(b));
  EXPECT_ACL_ERROR(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM, "dataBuffer");
  aclDataBuffer *empty = aclCreateDataBuffer(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  ASSERT_ACL_OK(aclDestroyDataBuffer(empty));
}

TEST(RuntimeBase, AttributesCapabilitiesAndLog) {
  const aclCannAttr *list = nullptr;
  size_t n = 0;
  ASSERT_ACL_OK(aclGetCannAttributeList(&list, &n));
  EXPECT_GE(n, 1u);
  int32_t v = -1;
  ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v));
  EXPECT_EQ(v, 1);
  EXPECT_ACL_ERROR(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM, "cannAttr");
  EXPECT_ACL_ERROR(aclGetCannAttribute(ACL_CANN_ATTR_BF16, nullptr), ACL_ERROR_INVALID_PARAM, "value");
  int64_t cap = 0;
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cap));
  EXPECT_GE(cap, 1);
  ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &cap));
  EXPECT_GT(cap, 0);
  EXPECT_ACL_ERROR(aclGetDeviceCapability(77, ACL_DEVICE_INFO_AI_CORE_NUM, &cap), ACL_ERROR_RT_INVALID_DEVICEID,
                   "deviceId");
  EXPECT_ACL_ERROR(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &cap), ACL_ERROR_INVALID_PARAM, "deviceInfo");
  ACL_APP_LOG(ACL_INFO, "a message at level %d", 1);  // must not crash whatever the level
  OPSNN_LOG(opsnn::LogLevel::kDebug, "debug %s", "line");
  EXPECT_GE(static_cast<int>(opsnn::log_level()), 0);
  EXPECT_ACL_ERROR(aclrtGetLastError(static_cast<aclrtLastErrLevel>(3)), ACL_ERROR_INVALID_PARAM, "level");
  EXPECT_EQ(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

using opsnn::core::num_threads;
using opsnn::core::parallel_for;

TEST(ThreadPool, CoversRangeExactlyOnce) {
  EXPECT_GE(num_threads(), 1);
  for (int64_t n : {1, 7, 64, 1000, 100003}) {
    for (int64_t grain : {1, 3, 16, 4096}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      parallel_for(n, grain, [&](int64_t b, int64_t e) {
        ASSERT_LT(b, e);
        if (e != n) ASSERT_EQ((e - b) % grain, 0) << "chunks are multiples of grain";
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << n << " " << grain;
    }
  }
  int calls = 0;
  parallel_for(0, 1, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  parallel_for(5, 10, [&](int64_t b, int64_t e) {  // n <= grain: inline, one call
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 5);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, ConcurrentCallersAndNesting) {
  constexpr int64_t kN = 20000;
  std::atomic<int64_t> total{0};
  auto job = [&] {
    for (int rep = 0; rep < 50; ++rep) {
      parallel_for(kN, 100, [&](int64_t b, int64_t e) {
        // Nested call: runs serially on the calling thread, never deadlocks.
        parallel_for(e - b, 10, [&](int64_t bb, int64_t ee) { total += ee - bb; });
      });
    }
  };
  std::thread t1(job), t2(job), t3(job);
  t1.join();
  t2.join();
  t3.join();
  EXPECT_EQ(total.load(), 3 * 50 * kN);
}

TEST(ThreadPool, ExceptionsPropagateToTheCaller) {
  EXPECT_THROW(parallel_for(1000, 1, [](int64_t b, int64_t) {
                 if (b == 500) throw std::runtime_error("chunk failed");
               }),
               std::runtime_error);
  std::atomic<int64_t> sum{0};  // the pool is still usable afterwards
  parallel_for(1000, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 1000);
}

TEST(ThreadPool, UsedFromStreamWorkers) {
  aclInit(nullptr);
  std::vector<aclrtStream> streams(3);
  std::atomic<int64_t> total{0};
  for (auto &s : streams) ASSERT_ACL_OK(aclrtCreateStream(&s));
  for (int rep = 0; rep < 20; ++rep)
    for (auto &s : streams)
      aclrtLaunchHostFunc(
          s,
          [](void *p) {
            auto *t = static_cast<std::atomic<int64_t> *>(p);
            opsnn::core::parallel_for(10000, 64, [t](int64_t b, int64_t e) { *t += e - b; });
          },
          &total);
  for (auto &s : streams) ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(total.load(), 3 * 20 * 10000);
  for (auto &s : streams) ASSERT_ACL_OK(aclrtDestroyStream(s));
}

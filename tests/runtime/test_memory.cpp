// Device memory: pool, accounting, deferred free, capacity, memcpy/memset, host memory.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/runtime.h"
#include "test_runtime_helpers.h"

using namespace std::chrono_literals;
using opsnn::rt::enqueue;

namespace opsnn::rt {
size_t parse_size(const char *text, bool *ok);
}

namespace {
size_t free_bytes() {
  size_t f = 0, t = 0;
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
  return f;
}

// Re-reads OPSNN_DEVICE_MEMORY / OPSNN_DEVICE_COUNT: the runtime reads its environment at each
// (re)initialisation, i.e. at first use after aclFinalize. This is how the capacity is tested in
// one process; the variables are restored afterwards.
void reinit_with_env(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  aclFinalize();
  aclInit(nullptr);
}
// These tests check the normal mode's rounding, padding and caching; under OPSNN_CHECKED=1 (CI's
// sanitizer stage) they switch the checked mode off for their duration.
struct NormalMode {
  bool was = opsnn::rt::checked_mode();
  NormalMode() { opsnn::rt::set_checked_mode_for_testing(false); }
  ~NormalMode() { opsnn::rt::set_checked_mode_for_testing(was); }
};
}  // namespace

// Every device and host allocation is at least 512-byte aligned, whatever its size and however
// many are live at once (hardening #18 A.1: a client's allocator aborts below 128 bytes).
TEST_F(RuntimeTest, EveryAllocationIs512ByteAligned) {
  std::vector<void *> blocks;
  for (size_t size : {size_t{1}, size_t{31}, size_t{100}, size_t{512}, size_t{513}, size_t{1000}, size_t{4096},
                      size_t{65536} + 7, size_t{1} << 20, (size_t{1} << 20) + 1, size_t{3} << 20}) {
    for (int rep = 0; rep < 3; ++rep) {
      void *p = nullptr;
      ASSERT_ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u) << "aclrtMalloc(" << size << ")";
      blocks.push_back(p);
      ASSERT_ACL_OK(aclrtMallocAlign32(&p, size, ACL_MEM_MALLOC_NORMAL_ONLY));
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u) << "aclrtMallocAlign32(" << size << ")";
      blocks.push_back(p);
    }
    void *h = nullptr;
    ASSERT_ACL_OK(aclrtMallocHost(&h, size));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 512, 0u) << "aclrtMallocHost(" << size << ")";
    ASSERT_ACL_OK(aclrtFreeHost(h));
  }
  for (void *p : blocks) ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(RuntimeTest, MallocAlignmentAndLiveRanges) {
  NormalMode normal;
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
  EXPECT_TRUE(opsnn::rt::is_live_device_range(p, 1000));
  EXPECT_TRUE(opsnn::rt::is_live_device_range(static_cast<char *>(p) + 500, 500));
  EXPECT_TRUE(opsnn::rt::is_live_device_range(p, 1024 + 32));  // rounded to 32 B plus 32 B padding
  EXPECT_FALSE(opsnn::rt::is_live_device_range(p, 4096));
  EXPECT_FALSE(opsnn::rt::is_live_device_range(static_cast<char *>(p) - 1, 8));
  std::memset(p, 0x5a, 1000);
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_FALSE(opsnn::rt::is_live_device_range(p, 1));

  for (auto policy : {ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY, ACL_MEM_MALLOC_HUGE_FIRST_P2P,
                      ACL_MEM_MALLOC_HUGE_ONLY_P2P, ACL_MEM_MALLOC_NORMAL_ONLY_P2P}) {
    ASSERT_ACL_OK(aclrtMalloc(&p, 3 << 20, policy));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
    ASSERT_ACL_OK(aclrtFree(p));
  }
  ASSERT_ACL_OK(aclrtMallocAlign32(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(p));
  ASSERT_ACL_OK(aclrtMallocCached(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(p));
  ASSERT_ACL_OK(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
  ASSERT_ACL_OK(aclrtFree(p));
}

TEST_F(RuntimeTest, MallocErrors) {
  void *p = nullptr;
  EXPECT_ACL_ERROR(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
                   "aclrtMalloc: devPtr is null");
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "size");
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 16, static_cast<aclrtMemMallocPolicy>(42)), ACL_ERROR_INVALID_PARAM, "policy");
  EXPECT_ACL_ERROR(aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
                   "aclrtMallocAlign32");
  EXPECT_ACL_ERROR(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM, "devPtr is null");
  int local = 0;
  EXPECT_ACL_ERROR(aclrtFree(&local), ACL_ERROR_INVALID_PARAM, "aclrtFree");
  ASSERT_ACL_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_ERROR(aclrtFree(p), ACL_ERROR_INVALID_PARAM, "already freed");  // double free
  EXPECT_ACL_ERROR(aclrtMallocHost(nullptr, 16), ACL_ERROR_INVALID_PARAM, "hostPtr");
  EXPECT_ACL_ERROR(aclrtFreeHost(&local), ACL_ERROR_INVALID_PARAM, "aclrtFreeHost");
  size_t f, t;
  EXPECT_ACL_ERROR(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &t), ACL_ERROR_INVALID_PARAM, "free");
  EXPECT_ACL_ERROR(aclrtGetMemInfo(static_cast<aclrtMemAttr>(99), &f, &t), ACL_ERROR_INVALID_PARAM, "attr");
  aclrtMallocConfig bad{nullptr, 2};
  EXPECT_ACL_ERROR(aclrtMallocWithCfg(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST, &bad), ACL_ERROR_INVALID_PARAM, "attrs");
  // Sizes that would wrap (hardening #18 B.5) are refused, not served with a tiny block.
  EXPECT_ACL_ERROR(aclrtMallocHost(&p, SIZE_MAX - 16), ACL_ERROR_BAD_ALLOC, "too large");
  EXPECT_ACL_ERROR(aclrtMalloc(&p, SIZE_MAX - 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION,
                   "too large");
}

// Hardening #18 C.12: copies and memsets are checked against the device allocations they touch,
// whatever destMax / maxCount say; host memory is not checked.
TEST_F(RuntimeTest, CopiesAreCheckedAgainstTheAllocations) {
  NormalMode normal;
  void *d = nullptr, *e = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&d, 1000, ACL_MEM_MALLOC_HUGE_FIRST));  // 1056 usable bytes (API padding)
  ASSERT_ACL_OK(aclrtMalloc(&e, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<char> host(8192, 3);
  char *dc = static_cast<char *>(d);
  EXPECT_ACL_ERROR(aclrtMemcpy(dc, 8192, host.data(), 2000, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "dst");
  EXPECT_ACL_ERROR(aclrtMemcpy(dc + 1000, 8192, host.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "device allocation");
  EXPECT_ACL_ERROR(aclrtMemcpy(host.data(), 8192, dc, 2000, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
                   "src");
  EXPECT_ACL_ERROR(aclrtMemcpy(e, 4096, d, 2000, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_INVALID_PARAM, "src");
  EXPECT_ACL_ERROR(aclrtMemset(d, 8192, 0, 2000), ACL_ERROR_INVALID_PARAM, "devPtr");
  EXPECT_ACL_ERROR(aclrtMemsetAsync(d, 8192, 0, 2000, nullptr), ACL_ERROR_INVALID_PARAM, "devPtr");
  EXPECT_ACL_ERROR(aclrtMemcpy2d(d, 100, host.data(), 100, 100, 11, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "dst");
  EXPECT_ACL_ERROR(aclrtMemcpyAsync(dc + 8, 2000, host.data(), 1100, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
                   ACL_ERROR_INVALID_PARAM, "dst");
  // Within bounds: fine, including the padding the API adds.
  ASSERT_ACL_OK(aclrtMemcpy(dc, 1056, host.data(), 1056, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy2d(d, 100, host.data(), 100, 100, 10, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), 8192, host.data() + 4096, 4096, ACL_MEMCPY_HOST_TO_HOST));
  ASSERT_ACL_OK(aclrtFree(d));
  ASSERT_ACL_OK(aclrtFree(e));
}

TEST_F(RuntimeTest, PoolReusesFreedBlocks) {
  NormalMode normal;
  void *a = nullptr, *b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtMalloc(&b, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(a, b);
  ASSERT_ACL_OK(aclrtFree(b));
  ASSERT_ACL_OK(aclrtMalloc(&a, 5 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtMalloc(&b, (5 << 20) - 100, ACL_MEM_MALLOC_HUGE_FIRST));  // same 2 MiB class
  EXPECT_EQ(a, b);
  ASSERT_ACL_OK(aclrtFree(b));
}

TEST_F(RuntimeTest, MemInfoIsTruthful) {
  NormalMode normal;  // the accounting of size classes
  size_t f0 = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &total));
  EXPECT_GT(total, 0u);
  EXPECT_LE(f0, total);
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 64 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  const size_t f1 = free_bytes();
  EXPECT_GE(f0 - f1, size_t{64} << 20);
  EXPECT_LE(f0 - f1, size_t{66} << 20);
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_EQ(free_bytes(), f0);  // cached blocks count as free
  size_t f2 = 0, t2 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_DDR_MEM, &f2, &t2));
  EXPECT_EQ(t2, total);
}

TEST_F(RuntimeTest, DeferredFreeWaitsForQueuedWork) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  const size_t f0 = free_bytes();
  constexpr size_t kBytes = 1 << 20;
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  std::atomic<bool> go{false};
  ASSERT_ACL_OK(enqueue(s, [&go, p] {
    while (!go.load()) std::this_thread::sleep_for(1ms);
    std::memset(p, 0x11, kBytes);  // the block must still be ours (ASan checks it)
    return 0;
  }));
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_FALSE(opsnn::rt::is_live_device_range(p, 1));
  // Not yet reusable: a same-size malloc must not get the block back while work is queued.
  void *q = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&q, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_NE(q, p);
  ASSERT_ACL_OK(aclrtFree(q));
  EXPECT_LT(free_bytes(), f0);  // the pending block still counts as used
  go = true;
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(free_bytes(), f0);
  ASSERT_ACL_OK(aclrtMalloc(&q, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(q));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, SynchronousMemcpyIsOrderedAfterQueuedWork) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  constexpr size_t kN = 1024;
  int *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void **>(&dev), kN * sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(enqueue(s, [dev] {
    std::this_thread::sleep_for(50ms);
    for (size_t i = 0; i < kN; ++i) dev[i] = static_cast<int>(i * 3);
    return 0;
  }));
  std::vector<int> host(kN, -1);
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), kN * sizeof(int), dev, kN * sizeof(int), ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(host[i], static_cast<int>(i * 3));

  // Async copies run in stream order.
  std::vector<int> src(kN, 7), back(kN, 0);
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, kN * sizeof(int), src.data(), kN * sizeof(int), ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(back.data(), kN * sizeof(int), dev, kN * sizeof(int), ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(back, src);

  // 2-D copy: 4 rows of 8 bytes with pitches 16 / 8.
  char src2[64], dst2[32];
  for (int i = 0; i < 64; ++i) src2[i] = static_cast<char>(i);
  ASSERT_ACL_OK(aclrtMemcpy2d(dst2, 8, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_HOST));
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(dst2[r * 8 + c], static_cast<char>(r * 16 + c));
  std::memset(dst2, 0, sizeof dst2);
  ASSERT_ACL_OK(aclrtMemcpy2dAsync(dst2, 8, src2, 16, 8, 4, ACL_MEMCPY_DEFAULT, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(dst2[31], static_cast<char>(3 * 16 + 7));

  EXPECT_ACL_ERROR(aclrtMemcpy(host.data(), 4, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM, "destMax");
  EXPECT_ACL_ERROR(aclrtMemcpy(nullptr, 8, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM, "dst");
  EXPECT_ACL_ERROR(aclrtMemcpy(host.data(), 8, nullptr, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM, "src");
  EXPECT_ACL_ERROR(aclrtMemcpy(host.data(), 8, dev, 8, static_cast<aclrtMemcpyKind>(9)), ACL_ERROR_INVALID_PARAM,
                   "kind");
  EXPECT_ACL_ERROR(aclrtMemcpyAsync(host.data(), 4, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_ERROR_INVALID_PARAM,
                   "aclrtMemcpyAsync");
  EXPECT_ACL_ERROR(aclrtMemcpy2d(dst2, 4, src2, 16, 8, 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM, "dpitch");
  for (int kind = 0; kind <= 4; ++kind)
    ASSERT_ACL_OK(aclrtMemcpy(host.data(), 8, dev, 8, static_cast<aclrtMemcpyKind>(kind)));
  ASSERT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, Memset) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  unsigned char *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void **>(&p), 256, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(p, 256, 0xab, 256));
  for (int i = 0; i < 256; ++i) ASSERT_EQ(p[i], 0xab);
  ASSERT_ACL_OK(aclrtMemsetAsync(p, 256, 0, 128, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[127], 0);
  EXPECT_EQ(p[128], 0xab);
  EXPECT_ACL_ERROR(aclrtMemset(p, 16, 0, 17), ACL_ERROR_INVALID_PARAM, "maxCount");
  EXPECT_ACL_ERROR(aclrtMemset(nullptr, 16, 0, 1), ACL_ERROR_INVALID_PARAM, "devPtr");
  EXPECT_ACL_ERROR(aclrtMemsetAsync(p, 16, 0, 17, s), ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync");
  ASSERT_ACL_OK(aclrtFree(p));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, HostMemory) {
  void *h = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&h, 1000));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h) % 512, 0u);
  std::memset(h, 1, 1000);
  EXPECT_ACL_ERROR(aclrtFree(h), ACL_ERROR_INVALID_PARAM, "aclrtFree");  // host memory is not device memory
  ASSERT_ACL_OK(aclrtFreeHost(h));
  EXPECT_ACL_ERROR(aclrtFreeHost(h), ACL_ERROR_INVALID_PARAM, "hostPtr");
}

TEST_F(RuntimeTest, CapacityLimitFromEnvironment) {
  NormalMode normal;  // the accounting of size classes
  reinit_with_env("OPSNN_DEVICE_MEMORY", "64M");
  ASSERT_ACL_OK(aclrtSetDevice(0));
  size_t f = 0, t = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
  EXPECT_EQ(t, size_t{64} << 20);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 40 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_ERROR(aclrtMalloc(&b, 40 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION,
                   "out of device memory");
  ASSERT_ACL_OK(aclrtMalloc(&b, 20 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(a));  // cached
  // 38 MiB (40 MiB class) does not fit next to the cached 42 MiB block and the live 22 MiB one:
  // the cache is released and the allocation succeeds.
  ASSERT_ACL_OK(aclrtMalloc(&c, 38 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(b));
  ASSERT_ACL_OK(aclrtFree(c));

  // A block freed while work is queued is released once that work completes, then reused.
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMalloc(&a, 60 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(enqueue(s, [] {
    std::this_thread::sleep_for(30ms);
    return 0;
  }));
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtMalloc(&b, 60 << 20, ACL_MEM_MALLOC_HUGE_FIRST));  // waits for the stream, then reuses
  ASSERT_ACL_OK(aclrtFree(b));
  ASSERT_ACL_OK(aclrtDestroyStream(s));

  reinit_with_env("OPSNN_DEVICE_MEMORY", "1G");
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
  EXPECT_EQ(t, size_t{1} << 30);
  reinit_with_env("OPSNN_DEVICE_MEMORY", nullptr);
}

TEST_F(RuntimeTest, SeveralDevicesHaveTheirOwnMemoryAndStreams) {
  NormalMode normal;  // the accounting of size classes
  reinit_with_env("OPSNN_DEVICE_COUNT", "2");
  uint32_t n = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&n));
  ASSERT_EQ(n, 2u);
  ASSERT_ACL_OK(aclrtSetDevice(1));
  const size_t f1 = free_bytes();
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 8 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_LT(free_bytes(), f1);
  ASSERT_ACL_OK(aclrtSetDevice(0));
  const size_t f0 = free_bytes();
  EXPECT_GT(f0, free_bytes() - 1);
  aclrtStream s1;
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  ASSERT_ACL_OK(aclrtMemsetAsync(p, 8 << 20, 3, 8 << 20, s1));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_EQ(static_cast<unsigned char *>(p)[12345], 3);
  int32_t can = 0;
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
  EXPECT_EQ(can, 1);
  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_EQ(free_bytes(), f1);
  ASSERT_ACL_OK(aclrtDestroyStream(s1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  reinit_with_env("OPSNN_DEVICE_COUNT", nullptr);
  EXPECT_ACL_ERROR(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId");
}

TEST_F(RuntimeTest, VirtualMemoryIsNotSupported) {
  size_t g = 0;
  aclrtPhysicalMemProp prop{};
  EXPECT_ACL_ERROR(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
                   ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtMemGetAllocationGranularity");
  void *v = nullptr;
  EXPECT_ACL_ERROR(aclrtReserveMemAddress(&v, 1 << 20, 0, nullptr, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                   "aclrtReserveMemAddress");
  aclrtDrvMemHandle h = nullptr;
  EXPECT_ACL_ERROR(aclrtMallocPhysical(&h, 1 << 20, &prop, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtMallocPhysical");
  EXPECT_ACL_ERROR(aclrtMapMem(v, 1 << 20, 0, h, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtMapMem");
  EXPECT_ACL_ERROR(aclrtUnmapMem(v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtUnmapMem");
  EXPECT_ACL_ERROR(aclrtFreePhysical(h), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtFreePhysical");
  EXPECT_ACL_ERROR(aclrtReleaseMemAddress(v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "aclrtReleaseMemAddress");
}

TEST(RuntimeParse, SizesWithSuffixes) {
  bool ok = false;
  EXPECT_EQ(opsnn::rt::parse_size("1024", &ok), 1024u);
  EXPECT_TRUE(ok);
  EXPECT_EQ(opsnn::rt::parse_size("4K", &ok), 4096u);
  EXPECT_EQ(opsnn::rt::parse_size("512m", &ok), size_t{512} << 20);
  EXPECT_EQ(opsnn::rt::parse_size("2G", &ok), size_t{2} << 30);
  EXPECT_EQ(opsnn::rt::parse_size("2GiB", &ok), size_t{2} << 30);
  EXPECT_TRUE(ok);
  opsnn::rt::parse_size("12Q", &ok);
  EXPECT_FALSE(ok);
  opsnn::rt::parse_size("", &ok);
  EXPECT_FALSE(ok);
}

// Hardening #18 D: in the checked mode (OPSNN_CHECKED=1) a device allocation is exactly the
// requested size (an access past it falls into a poisoned guard zone that AddressSanitizer reports)
// and freed blocks are never reused from the cache.
TEST_F(RuntimeTest, CheckedModeAllocationsAreExactAndNotReused) {
  const bool was = opsnn::rt::checked_mode();
  opsnn::rt::set_checked_mode_for_testing(true);
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
  EXPECT_TRUE(opsnn::rt::is_live_device_range(p, 100));
  EXPECT_FALSE(opsnn::rt::is_live_device_range(p, 101)) << "no rounding or API padding in the checked mode";
  EXPECT_ACL_ERROR(aclrtMemset(p, 200, 0, 101), ACL_ERROR_INVALID_PARAM, "devPtr");
  ASSERT_ACL_OK(aclrtMemset(p, 100, 0, 100));
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_FALSE(opsnn::rt::is_live_device_range(p, 1));
  opsnn::rt::set_checked_mode_for_testing(was);
}

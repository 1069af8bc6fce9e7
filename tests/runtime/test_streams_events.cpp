// Streams, events, error reporting, capture, several host threads.
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/error.h"
#include "runtime/runtime.h"
#include "test_runtime_helpers.h"

using namespace std::chrono_literals;
using opsnn::rt::enqueue;

TEST_F(RuntimeTest, InitAndFinalizeAreRepeatable) {
  EXPECT_ACL_ERROR(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE, "aclInit");
  ASSERT_ACL_OK(aclFinalize());
  EXPECT_ACL_ERROR(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "aclFinalize");
  // Still usable without aclInit (lazy initialisation), and aclInit works again.
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtFree(p));
  ASSERT_ACL_OK(aclInit(nullptr));
  ASSERT_ACL_OK(aclInit("/nonexistent/acl.json") == ACL_ERROR_REPEAT_INITIALIZE ? ACL_SUCCESS : -1);
}

TEST_F(RuntimeTest, StreamRunsInOrder) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::vector<int> seen;
  constexpr int kN = 5000;
  for (int i = 0; i < kN; ++i)
    ASSERT_ACL_OK(enqueue(s, [&seen, i] {
      seen.push_back(i);
      return 0;
    }));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_EQ(seen.size(), static_cast<size_t>(kN));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(seen[i], i);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, DefaultStreamIsUsedForNull) {
  std::atomic<int> n{0};
  for (int i = 0; i < 100; ++i) ASSERT_ACL_OK(enqueue(nullptr, [&n] { return ++n, 0; }));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(n.load(), 100);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
}

TEST_F(RuntimeTest, EnqueueReturnsBeforeWorkCompletes) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_LAUNCH));
  std::atomic<bool> release{false}, ran{false};
  ASSERT_ACL_OK(enqueue(s, [&] {
    while (!release.load()) std::this_thread::sleep_for(1ms);
    ran = true;
    return 0;
  }));
  EXPECT_FALSE(ran.load());
  aclrtStreamStatus st;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
  EXPECT_EQ(st, ACL_STREAM_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(aclrtSynchronizeStreamWithTimeout(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                   "aclrtSynchronizeStreamWithTimeout");
  release = true;
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(ran.load());
  ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
  EXPECT_EQ(st, ACL_STREAM_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, DestroyStreamWaitsForItsWork) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> n{0};
  for (int i = 0; i < 10; ++i)
    ASSERT_ACL_OK(enqueue(s, [&n] {
      std::this_thread::sleep_for(2ms);
      ++n;
      return 0;
    }));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_EQ(n.load(), 10);
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "stream");
  EXPECT_ACL_ERROR(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream");
}

TEST_F(RuntimeTest, EventOrdersWorkAcrossStreams) {
  aclrtStream a, b;
  aclrtEvent ev;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  ASSERT_ACL_OK(aclrtCreateEvent(&ev));
  std::mutex mu;
  std::vector<char> order;
  auto note = [&](char c) {
    std::lock_guard<std::mutex> lk(mu);
    order.push_back(c);
  };
  ASSERT_ACL_OK(enqueue(a, [&] {
    std::this_thread::sleep_for(80ms);
    note('A');
    return 0;
  }));
  ASSERT_ACL_OK(aclrtRecordEvent(ev, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, ev));
  ASSERT_ACL_OK(enqueue(b, [&] { return note('B'), 0; }));
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0], 'A');
  EXPECT_EQ(order[1], 'B');
  ASSERT_ACL_OK(aclrtDestroyEvent(ev));
  ASSERT_ACL_OK(aclrtDestroyStream(a));
  ASSERT_ACL_OK(aclrtDestroyStream(b));
}

TEST_F(RuntimeTest, WaitOnNeverRecordedEventReturnsAtOnce) {
  aclrtStream s;
  aclrtEvent ev;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, ev));
  ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));
  aclrtEventRecordedStatus st;
  ASSERT_ACL_OK(aclrtQueryEventStatus(ev, &st));
  EXPECT_EQ(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtDestroyEvent(ev));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_F(RuntimeTest, EventQueryAndElapsedTime) {
  aclrtStream s;
  aclrtEvent start, end;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEvent(&start));
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&end, ACL_EVENT_TIME_LINE));
  float ms = -1;
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_INVALID_PARAM, "startEvent");

  std::atomic<bool> go{false};
  ASSERT_ACL_OK(enqueue(s, [&] {
    while (!go.load()) std::this_thread::sleep_for(1ms);
    return 0;
  }));
  ASSERT_ACL_OK(aclrtRecordEvent(start, s));
  ASSERT_ACL_OK(enqueue(s, [] {
    std::this_thread::sleep_for(50ms);
    return 0;
  }));
  ASSERT_ACL_OK(aclrtRecordEvent(end, s));

  aclrtEventRecordedStatus rs;
  ASSERT_ACL_OK(aclrtQueryEventStatus(end, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_EQ(static_cast<int>(ACL_EVENT_RECORDED_STATUS_NOT_READY), 0);
  aclrtEventStatus legacy;
  ASSERT_ACL_OK(aclrtQueryEvent(end, &legacy));
  EXPECT_EQ(legacy, ACL_EVENT_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_NOT_COMPLETE, "startEvent");
  EXPECT_ACL_ERROR(aclrtSynchronizeEventWithTimeout(end, 10), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                   "aclrtSynchronizeEventWithTimeout");

  go = true;
  ASSERT_ACL_OK(aclrtSynchronizeEvent(end));
  ASSERT_ACL_OK(aclrtQueryEventStatus(end, &rs));
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtQueryEvent(end, &legacy));
  EXPECT_EQ(legacy, ACL_EVENT_STATUS_COMPLETE);
  aclrtEventWaitStatus ws;
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(end, &ws));
  EXPECT_EQ(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, end));
  EXPECT_GE(ms, 45.0f);
  EXPECT_LT(ms, 5000.0f);
  uint64_t t0, t1;
  ASSERT_ACL_OK(aclrtEventGetTimestamp(start, &t0));
  ASSERT_ACL_OK(aclrtEventGetTimestamp(end, &t1));
  EXPECT_GE(t1, t0 + 45000);

  // Reset returns the event to "not recorded".
  ASSERT_ACL_OK(aclrtResetEvent(end, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_INVALID_PARAM, "endEvent");

  EXPECT_ACL_ERROR(aclrtEventElapsedTime(nullptr, start, end), ACL_ERROR_INVALID_PARAM, "ms");
  EXPECT_ACL_ERROR(aclrtQueryEventStatus(end, nullptr), ACL_ERROR_INVALID_PARAM, "status");
  ASSERT_ACL_OK(aclrtDestroyEvent(start));
  ASSERT_ACL_OK(aclrtDestroyEvent(end));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}
#pragma GCC diagnostic pop

TEST_F(RuntimeTest, EventDestroyedWhileRecordPendingIsSafe) {
  aclrtStream s;
  aclrtEvent ev;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateEvent(&ev));
  ASSERT_ACL_OK(enqueue(s, [] {
    std::this_thread::sleep_for(20ms);
    return 0;
  }));
  ASSERT_ACL_OK(aclrtRecordEvent(ev, s));
  ASSERT_ACL_OK(aclrtDestroyEvent(ev));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_ERROR(aclrtRecordEvent(ev, s), ACL_ERROR_INVALID_PARAM, "aclrtRecordEvent");
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, FailureInQueuedWorkIsReportedAtNextSync) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> after{0};
  ASSERT_ACL_OK(enqueue(s, [] { return opsnn::fail(161002, "aclnnFoo: self has an invalid shape"); }));
  ASSERT_ACL_OK(enqueue(s, [] { return opsnn::fail(561000, "second failure is not the one reported"); }));
  ASSERT_ACL_OK(enqueue(s, [&after] { return ++after, 0; }));  // later work still runs
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), 161002, "aclnnFoo: self has an invalid shape");
  EXPECT_EQ(after.load(), 1);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));  // cleared after being reported

  ASSERT_ACL_OK(enqueue(s, []() -> int { throw std::runtime_error("kernel blew up"); }));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INTERNAL_ERROR, "kernel blew up");
  ASSERT_ACL_OK(enqueue(s, []() -> int { opsnn::throw_error(161001, "aclnnBar: out is null"); }));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), 161001, "aclnnBar: out is null");
  ASSERT_ACL_OK(enqueue(s, [] { return 507015; }));  // failure without a message
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), 507015, "507015");

  // The device synchronisation reports failures of any stream of the device.
  ASSERT_ACL_OK(enqueue(s, [] { return opsnn::fail(161002, "aclnnBaz: bad dim"); }));
  EXPECT_ACL_ERROR(aclrtSynchronizeDevice(), 161002, "aclnnBaz: bad dim");
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, InvalidHandlesAndArguments) {
  int dummy = 0;
  aclrtStream bogus = &dummy;
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(bogus), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStream");
  EXPECT_ACL_ERROR(enqueue(bogus, [] { return 0; }), ACL_ERROR_INVALID_PARAM, "stream");
  EXPECT_ACL_ERROR(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM, "stream is null");
  EXPECT_ACL_ERROR(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM, "stream is null");
  aclrtStream s;
  EXPECT_ACL_ERROR(aclrtCreateStreamWithConfig(&s, 8, 0), ACL_ERROR_INVALID_PARAM, "priority");
  EXPECT_ACL_ERROR(aclrtCreateStreamWithConfig(&s, 0, 0x1000), ACL_ERROR_INVALID_PARAM, "flag");
  aclrtStreamStatus st;
  EXPECT_ACL_ERROR(aclrtStreamQuery(bogus, &st), ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery");
  EXPECT_ACL_ERROR(aclrtStreamQuery(nullptr, nullptr), ACL_ERROR_INVALID_PARAM, "status");
  aclrtEvent bogus_ev = &dummy;
  EXPECT_ACL_ERROR(aclrtRecordEvent(bogus_ev, nullptr), ACL_ERROR_INVALID_PARAM, "event");
  EXPECT_ACL_ERROR(aclrtStreamWaitEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM, "event is null");
  EXPECT_ACL_ERROR(aclrtSynchronizeEvent(bogus_ev), ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeEvent");
  EXPECT_ACL_ERROR(aclrtDestroyEvent(bogus_ev), ACL_ERROR_INVALID_PARAM, "aclrtDestroyEvent");
  EXPECT_ACL_ERROR(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM, "event is null");
  EXPECT_ACL_ERROR(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId");
  EXPECT_ACL_ERROR(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId");
  EXPECT_ACL_ERROR(aclrtResetDevice(42), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId");
  EXPECT_ACL_ERROR(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM, "deviceId");
  EXPECT_ACL_ERROR(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM, "count");
  EXPECT_ACL_ERROR(aclrtLaunchCallback(nullptr, nullptr, ACL_CALLBACK_BLOCK, nullptr), ACL_ERROR_INVALID_PARAM,
                   "fn is null");
  EXPECT_ACL_ERROR(aclrtLaunchHostFunc(bogus, [](void *) {}, nullptr), ACL_ERROR_INVALID_PARAM, "stream");
  EXPECT_ACL_ERROR(aclrtSynchronizeStreamWithTimeout(nullptr, -5), ACL_ERROR_INVALID_PARAM, "timeout");
  aclmdlRI m;
  EXPECT_ACL_ERROR(aclmdlRICaptureEnd(nullptr, &m), ACL_ERROR_RT_STREAM_NOT_CAPTURED, "aclmdlRICaptureEnd");
  EXPECT_ACL_ERROR(aclmdlRIExecuteAsync(bogus, nullptr), ACL_ERROR_INVALID_PARAM, "modelRI");
  EXPECT_ACL_ERROR(aclmdlRIDestroy(nullptr), ACL_ERROR_INVALID_PARAM, "modelRI");
}

TEST_F(RuntimeTest, DevicesAndContexts) {
  uint32_t count = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_GE(count, 1u);
  int32_t dev = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&dev));
  EXPECT_EQ(dev, 0);
  std::thread([&] {  // the current device is per thread, default 0
    int32_t d = -1;
    EXPECT_EQ(aclrtGetDevice(&d), ACL_SUCCESS);
    EXPECT_EQ(d, 0);
  }).join();
  const char *soc = aclrtGetSocName();
  ASSERT_NE(soc, nullptr);
  EXPECT_NE(std::string(soc).find("OpsNN-CPU"), std::string::npos);
  aclrtRunMode mode;
  ASSERT_ACL_OK(aclrtGetRunMode(&mode));
  EXPECT_EQ(mode, ACL_HOST);
  aclrtContext ctx, cur;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&cur));
  EXPECT_EQ(cur, ctx);
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL_ERROR(aclrtDestroyContext(ctx), ACL_ERROR_INVALID_PARAM, "context");
  ASSERT_ACL_OK(aclrtGetCurrentContext(&cur));
  EXPECT_NE(cur, nullptr);
  int32_t can = -1;
  EXPECT_ACL_ERROR(aclrtDeviceCanAccessPeer(&can, 0, 7), ACL_ERROR_RT_INVALID_DEVICEID, "deviceId");
  EXPECT_ACL_ERROR(aclrtDeviceCanAccessPeer(nullptr, 0, 0), ACL_ERROR_INVALID_PARAM, "canAccessPeer");
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 0));
  EXPECT_EQ(can, 0);
  EXPECT_ACL_ERROR(aclrtDeviceEnablePeerAccess(0, 1), ACL_ERROR_INVALID_PARAM, "flags");
  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
  ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(0));
  // Reset waits for work and drops the default stream; later use re-creates it.
  std::atomic<int> n{0};
  ASSERT_ACL_OK(enqueue(nullptr, [&n] {
    std::this_thread::sleep_for(20ms);
    return ++n, 0;
  }));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_EQ(n.load(), 1);
  ASSERT_ACL_OK(enqueue(nullptr, [&n] { return ++n, 0; }));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(n.load(), 2);
}

TEST_F(RuntimeTest, CallbacksRunOnTheStream) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<int> n{0};
  ASSERT_ACL_OK(aclrtLaunchCallback([](void *p) { static_cast<std::atomic<int> *>(p)->fetch_add(1); }, &n,
                                    ACL_CALLBACK_BLOCK, s));
  ASSERT_ACL_OK(aclrtLaunchHostFunc(s, [](void *p) { static_cast<std::atomic<int> *>(p)->fetch_add(10); }, &n));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(n.load(), 11);
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, SeveralStreamsAndHostThreads) {
  constexpr int kThreads = 6, kTasks = 2000;
  std::vector<std::thread> threads;
  std::vector<int> totals(kThreads, 0);
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      aclrtStream s;
      if (aclrtCreateStream(&s) != ACL_SUCCESS) return void(++failures);
      int *total = &totals[t];
      for (int i = 0; i < kTasks; ++i) {
        if (enqueue(s, [total] { return ++*total, 0; }) != ACL_SUCCESS) ++failures;
        if (i % 100 == 0) {
          void *p = nullptr;
          if (aclrtMalloc(&p, 1000 + t * 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) ++failures;
          if (aclrtMemsetAsync(p, 1000, t, 1000, s) != ACL_SUCCESS) ++failures;
          if (aclrtFree(p) != ACL_SUCCESS) ++failures;  // deferred: the memset may still be queued
        }
        if (i % 500 == 0) enqueue(nullptr, [] { return 0; });  // shared default stream
      }
      if (aclrtSynchronizeStream(s) != ACL_SUCCESS) ++failures;
      if (aclrtDestroyStream(s) != ACL_SUCCESS) ++failures;
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(totals[t], kTasks);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
}

TEST_F(RuntimeTest, CaptureRecordsAndReplays) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::vector<int> log;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL_ERROR(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_RT_STREAM_CAPTURED,
                   "aclmdlRICaptureBegin");
  aclmdlRICaptureStatus cs;
  aclmdlRI during = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &cs, &during));
  EXPECT_EQ(cs, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(enqueue(s, [&log, i] { return log.push_back(i), 0; }));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(log.empty());  // captured, not run
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  EXPECT_EQ(model, during);
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &cs, &during));
  EXPECT_EQ(cs, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
  // Streams run concurrently: finish the first replay before the captured work (which appends to
  // one unsynchronised vector) is replayed on another stream.
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, nullptr));  // replays on another stream too
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclmdlRIExecute(model, -1));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  EXPECT_ACL_ERROR(aclmdlRIDestroy(model), ACL_ERROR_INVALID_PARAM, "modelRI");

  // A failure inside a replay is reported at the next synchronisation.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  ASSERT_ACL_OK(enqueue(s, [] { return opsnn::fail(161002, "captured op failed"); }));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
  ASSERT_ACL_OK(aclmdlRIDestroy(model));  // the queued replay keeps the model alive
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), 161002, "captured op failed");
  aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
  EXPECT_EQ(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));  // restore the thread's mode
  EXPECT_EQ(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
  int bad_mode = 7;  // what a C caller could pass; stored as an int to stay defined in C++
  static_assert(sizeof(bad_mode) == sizeof(aclmdlRICaptureMode));
  EXPECT_ACL_ERROR(aclmdlRICaptureThreadExchangeMode(reinterpret_cast<aclmdlRICaptureMode *>(&bad_mode)),
                   ACL_ERROR_INVALID_PARAM, "mode");
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

TEST_F(RuntimeTest, EnqueueIsCheap) {
  aclrtStream s;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  constexpr int kN = 200000;
  std::atomic<int> n{0};
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kN; ++i) enqueue(s, [&n] { return n.fetch_add(1, std::memory_order_relaxed), 0; });
  auto t1 = std::chrono::steady_clock::now();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(n.load(), kN);
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / kN;
  std::printf("enqueue: %.0f ns per launch\n", ns);
  EXPECT_LT(ns, 20000.0);  // loose bound (sanitizer builds); the target is well under 1 us
  ASSERT_ACL_OK(aclrtDestroyStream(s));
}

// Hardening #18 C.11: stream and event handles are never reused, so a destroyed one stays dead
// even when the allocator places a new object at the old address.
TEST_F(RuntimeTest, StaleStreamAndEventHandlesStayDead) {
  std::vector<aclrtStream> streams;
  std::vector<aclrtEvent> events;
  for (int i = 0; i < 20; ++i) {
    aclrtStream s = nullptr;
    aclrtEvent e = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&s));
    ASSERT_ACL_OK(aclrtCreateEvent(&e));
    for (aclrtStream old : streams) ASSERT_NE(old, s) << "a stream handle was issued twice";
    for (aclrtEvent old : events) ASSERT_NE(old, e) << "an event handle was issued twice";
    ASSERT_ACL_OK(aclrtDestroyStream(s));
    ASSERT_ACL_OK(aclrtDestroyEvent(e));
    streams.push_back(s);
    events.push_back(e);
  }
  aclrtStream live = nullptr;
  aclrtEvent live_ev = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&live));
  ASSERT_ACL_OK(aclrtCreateEvent(&live_ev));
  for (aclrtStream old : streams) {
    EXPECT_ACL_ERROR(aclrtSynchronizeStream(old), ACL_ERROR_INVALID_PARAM, "not a live stream");
    EXPECT_ACL_ERROR(aclrtDestroyStream(old), ACL_ERROR_INVALID_PARAM, "not a live stream");
    EXPECT_ACL_ERROR(aclrtRecordEvent(live_ev, old), ACL_ERROR_INVALID_PARAM, "not a live stream");
  }
  for (aclrtEvent old : events) {
    EXPECT_ACL_ERROR(aclrtRecordEvent(old, live), ACL_ERROR_INVALID_PARAM, "not a live event");
    EXPECT_ACL_ERROR(aclrtDestroyEvent(old), ACL_ERROR_INVALID_PARAM, "not a live event");
  }
  ASSERT_ACL_OK(aclrtRecordEvent(live_ev, live));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(live_ev));
  ASSERT_ACL_OK(aclrtDestroyEvent(live_ev));
  ASSERT_ACL_OK(aclrtDestroyStream(live));
}

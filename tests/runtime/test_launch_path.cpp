// The launch path (docs/ARCHITECTURE.md "Launch path"): Tasks on the lock-free ring, the inline
// policy (a launch on an idle stream runs on the calling thread), their order against queued work,
// events and several host threads, and the ownership of a task's bytes (keep / drop).
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "common/error.h"
#include "runtime/runtime.h"
#include "test_runtime_helpers.h"

using namespace std::chrono_literals;
using opsnn::rt::enqueue;
using opsnn::rt::enqueue_task;
using opsnn::rt::InlineRule;
using opsnn::rt::Task;

namespace {

// A task whose bytes point at a Probe: run appends `value` to the probe's log and notes the thread;
// keep and drop are counted.
struct Probe {
  std::mutex mu;
  std::vector<int> log;
  std::vector<std::thread::id> threads;
  std::atomic<int> keeps{0}, drops{0}, runs{0};
};

struct ProbeBytes {
  Probe *probe;
  int value;
};

Task probe_task(Probe *p, int value) {
  Task t;
  const ProbeBytes b{p, value};
  std::memcpy(t.bytes, &b, sizeof b);
  t.run = [](const Task &self) {
    ProbeBytes b;
    std::memcpy(&b, self.bytes, sizeof b);
    std::lock_guard<std::mutex> lk(b.probe->mu);
    b.probe->log.push_back(b.value);
    b.probe->threads.push_back(std::this_thread::get_id());
    b.probe->runs++;
    return 0;
  };
  t.keep = [](Task &self) {
    ProbeBytes b;
    std::memcpy(&b, self.bytes, sizeof b);
    b.probe->keeps++;
  };
  t.drop = [](Task &self) {
    ProbeBytes b;
    std::memcpy(&b, self.bytes, sizeof b);
    b.probe->drops++;
  };
  return t;
}

aclError launch(aclrtStream s, Probe *p, int value, InlineRule rule = InlineRule::kIfIdleAndLast) {
  Task t = probe_task(p, value);
  return enqueue_task(s, t, rule);
}

// Queues host work that holds the stream until `release` (then logs -1 into `p`, if given).
aclError hold_until(aclrtStream s, std::atomic<bool> &release, Probe *p = nullptr) {
  return enqueue(s, [&release, p] {
    while (!release.load()) std::this_thread::sleep_for(1ms);
    if (p) {
      std::lock_guard<std::mutex> lk(p->mu);
      p->log.push_back(-1);
      p->threads.push_back(std::this_thread::get_id());
    }
    return 0;
  });
}

// Each test starts with the inline policy on and a fresh stream `s` (destroyed at the end unless
// the test did it and cleared `s`).
class LaunchPathTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    opsnn::rt::set_inline_launch_for_testing(1);
    ASSERT_ACL_OK(aclrtCreateStream(&s));
  }
  void TearDown() override {
    if (s) EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    opsnn::rt::set_inline_launch_for_testing(-1);
  }
  aclrtStream s = nullptr;
};

}  // namespace

TEST_F(LaunchPathTest, IdleStreamRunsALaunchOnTheCallingThreadWithoutKeepingIt) {
  Probe first, p;
  ASSERT_ACL_OK(launch(s, &first, 0));  // the first push of this thread to s: queued
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(first.keeps.load(), 1);
  ASSERT_ACL_OK(launch(s, &p, 1));  // idle stream, pushed to last: inline
  EXPECT_EQ(p.runs.load(), 1);       // done before the launch returned
  ASSERT_EQ(p.threads.size(), 1u);
  EXPECT_EQ(p.threads[0], std::this_thread::get_id());
  EXPECT_EQ(p.keeps.load(), 0);  // never stored
  EXPECT_EQ(p.drops.load(), 1);
  // A thread alternating between streams queues (the streams then run side by side).
  aclrtStream other;
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  Probe q;
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  ASSERT_ACL_OK(launch(other, &q, 0));
  ASSERT_ACL_OK(launch(s, &q, 1));
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(q.keeps.load(), 2);
  // A small launch (kIfIdle) runs inline on any idle stream, alternating or not.
  Probe r;
  ASSERT_ACL_OK(launch(other, &r, 0, InlineRule::kIfIdle));
  ASSERT_ACL_OK(launch(s, &r, 1, InlineRule::kIfIdle));
  EXPECT_EQ(r.runs.load(), 2);  // both done before their launches returned
  EXPECT_EQ(r.keeps.load(), 0);
  ASSERT_EQ(r.threads.size(), 2u);
  EXPECT_EQ(r.threads[0], std::this_thread::get_id());
  EXPECT_EQ(r.threads[1], std::this_thread::get_id());
  // ... but never past queued work: behind a held stream it queues and runs after it.
  std::atomic<bool> release{false};
  Probe h;
  ASSERT_ACL_OK(hold_until(other, release, &h));
  ASSERT_ACL_OK(launch(other, &h, 7, InlineRule::kIfIdle));
  std::this_thread::sleep_for(2ms);
  EXPECT_EQ(h.runs.load(), 0);
  release = true;
  ASSERT_ACL_OK(aclrtSynchronizeStream(other));
  EXPECT_EQ(h.log, (std::vector<int>{-1, 7}));
  ASSERT_ACL_OK(aclrtDestroyStream(other));
  aclrtStreamStatus st;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &st));
  EXPECT_EQ(st, ACL_STREAM_STATUS_COMPLETE);
}

TEST_F(LaunchPathTest, PolicyOffQueuesEveryLaunch) {
  opsnn::rt::set_inline_launch_for_testing(0);
  EXPECT_FALSE(opsnn::rt::inline_launch_enabled());
  Probe p;
  for (int i = 0; i < 100; ++i) ASSERT_ACL_OK(launch(s, &p, i));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_EQ(p.log.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(p.log[i], i);
    EXPECT_NE(p.threads[i], std::this_thread::get_id());
  }
  EXPECT_EQ(p.keeps.load(), 100);
  EXPECT_EQ(p.drops.load(), 100);
}

TEST_F(LaunchPathTest, LaunchBehindQueuedWorkIsQueuedAndRunsAfterIt) {
  Probe p;
  std::atomic<bool> release{false};
  ASSERT_ACL_OK(hold_until(s, release, &p));
  ASSERT_ACL_OK(launch(s, &p, 1));  // the stream is busy: queued, must not run yet
  std::this_thread::sleep_for(5ms);
  EXPECT_EQ(p.runs.load(), 0);
  release = true;
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_EQ(p.log.size(), 2u);
  EXPECT_EQ(p.log[0], -1);
  EXPECT_EQ(p.log[1], 1);
  EXPECT_EQ(p.keeps.load(), 1);
  EXPECT_EQ(p.drops.load(), 1);
}

// Inline and queued launches, host work with random delays, on three streams: each stream's log
// is exactly its push order.
TEST_F(LaunchPathTest, InlineAndQueuedMixKeepsEveryStreamsOrder) {
  constexpr int kStreams = 3, kItems = 3000;
  aclrtStream streams[kStreams];
  Probe p[kStreams];
  for (auto &x : streams) ASSERT_ACL_OK(aclrtCreateStream(&x));
  std::mt19937 rng(7);
  int next[kStreams] = {};
  for (int i = 0; i < kItems; ++i) {
    const int k = static_cast<int>(rng() % kStreams);
    const unsigned r = rng() % 16;
    if (r == 0) {  // host work that takes a while: later launches queue behind it
      const int v = next[k]++;
      Probe *probe = &p[k];
      ASSERT_ACL_OK(enqueue(streams[k], [probe, v] {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        std::lock_guard<std::mutex> lk(probe->mu);
        probe->log.push_back(v);
        return 0;
      }));
    } else if (r == 1) {
      ASSERT_ACL_OK(aclrtSynchronizeStream(streams[k]));  // idle again: the next launch may run inline
    } else {
      ASSERT_ACL_OK(launch(streams[k], &p[k], next[k]++));
    }
  }
  for (int k = 0; k < kStreams; ++k) {
    ASSERT_ACL_OK(aclrtSynchronizeStream(streams[k]));
    ASSERT_EQ(p[k].log.size(), static_cast<size_t>(next[k]));
    for (int i = 0; i < next[k]; ++i) ASSERT_EQ(p[k].log[i], i) << "stream " << k;
    EXPECT_EQ(p[k].drops.load(), p[k].runs.load());
  }
  for (auto &x : streams) ASSERT_ACL_OK(aclrtDestroyStream(x));
}

// A chain A -> B -> C through events, with random delays on A and B: C's launch (inline when its
// stream looks idle) must still wait for the event, so it sees both earlier steps.
TEST_F(LaunchPathTest, EventChainsOrderInlineLaunchesAcrossStreams) {
  aclrtStream a, b, c;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  ASSERT_ACL_OK(aclrtCreateStream(&c));
  aclrtEvent ea, eb;
  ASSERT_ACL_OK(aclrtCreateEvent(&ea));
  ASSERT_ACL_OK(aclrtCreateEvent(&eb));
  std::mt19937 rng(11);
  std::atomic<int> stage{0};
  std::atomic<int> bad{0};
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (int round = 0; round < 200 && std::chrono::steady_clock::now() < deadline; ++round) {
    const int base = round * 3;
    const auto da = std::chrono::microseconds(rng() % 200), db = std::chrono::microseconds(rng() % 200);
    ASSERT_ACL_OK(enqueue(a, [&, base, da] {
      std::this_thread::sleep_for(da);
      if (stage.load() != base) bad++;
      stage = base + 1;
      return 0;
    }));
    ASSERT_ACL_OK(aclrtRecordEvent(ea, a));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(b, ea));
    ASSERT_ACL_OK(enqueue(b, [&, base, db] {
      std::this_thread::sleep_for(db);
      if (stage.load() != base + 1) bad++;
      stage = base + 2;
      return 0;
    }));
    ASSERT_ACL_OK(aclrtRecordEvent(eb, b));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(c, eb));
    // An inline-capable task on c: the wait above keeps c busy, so it queues behind it.
    struct Bytes {
      std::atomic<int> *stage, *bad;
      int base;
    };
    Task t;
    const Bytes bytes{&stage, &bad, base};
    std::memcpy(t.bytes, &bytes, sizeof bytes);
    t.run = [](const Task &self) {
      Bytes x;
      std::memcpy(&x, self.bytes, sizeof x);
      if (x.stage->load() != x.base + 2) (*x.bad)++;
      x.stage->store(x.base + 3);
      return 0;
    };
    ASSERT_ACL_OK(enqueue_task(c, t, InlineRule::kIfIdleAndLast));
    if (rng() % 4 == 0) ASSERT_ACL_OK(aclrtSynchronizeStream(c));
    else ASSERT_ACL_OK(aclrtSynchronizeEvent(eb));
    ASSERT_ACL_OK(aclrtSynchronizeStream(c));
  }
  EXPECT_EQ(bad.load(), 0);
  for (aclrtEvent e : {ea, eb}) ASSERT_ACL_OK(aclrtDestroyEvent(e));
  for (aclrtStream x : {a, b, c}) ASSERT_ACL_OK(aclrtDestroyStream(x));
}

// Four host threads launch onto one stream (inline or queued, whichever the moment allows) and
// synchronise it: nothing is lost, each thread's own launches keep their order.
TEST_F(LaunchPathTest, SeveralHostThreadsLaunchAndSynchroniseOneStream) {
  constexpr int kThreads = 4, kPer = 2000;
  Probe p;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPer; ++i) {
        if (launch(s, &p, t * kPer + i) != ACL_SUCCESS) failures++;
        if (i % 97 == 0 && aclrtSynchronizeStream(s) != ACL_SUCCESS) failures++;
      }
      if (aclrtSynchronizeStream(s) != ACL_SUCCESS) failures++;
    });
  for (auto &th : threads) th.join();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(p.log.size(), static_cast<size_t>(kThreads * kPer));
  std::vector<int> last(kThreads, -1);
  for (int v : p.log) {
    const int t = v / kPer;
    EXPECT_GT(v, last[t]);
    last[t] = v;
  }
  EXPECT_EQ(p.drops.load(), kThreads * kPer);
  EXPECT_EQ(p.keeps.load() <= p.drops.load(), true);
}

// Destroying a stream with work queued runs it all, in order, and drops every task once; more
// items than the ring holds make the producer wait for room.
TEST_F(LaunchPathTest, DestroyWithQueuedWorkRunsAndDropsEverything) {
  Probe p;
  std::atomic<bool> release{false};
  ASSERT_ACL_OK(hold_until(s, release));
  std::thread releaser([&] {
    std::this_thread::sleep_for(20ms);
    release = true;
  });
  constexpr int kN = 5000;  // > the ring's 1024 cells
  for (int i = 0; i < kN; ++i) ASSERT_ACL_OK(launch(s, &p, i));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  s = nullptr;
  releaser.join();
  ASSERT_EQ(p.log.size(), static_cast<size_t>(kN));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(p.log[i], i);
  EXPECT_LE(p.keeps.load(), kN);  // once the worker caught up, later launches may have run inline
  EXPECT_EQ(p.drops.load(), kN);
}

// A host callback flooding its own stream cannot wait for room (it is the consumer): refused with
// ACL_ERROR_RT_STREAM_TASK_FULL instead of a deadlock; what was accepted runs.
TEST_F(LaunchPathTest, OwnWorkerFloodingItsStreamIsRefusedNotDeadlocked) {
  std::atomic<int> accepted{0}, refused{0}, ran{0};
  ASSERT_ACL_OK(enqueue(s, [&] {
    for (int i = 0; i < 3000; ++i) {
      const aclError rc = enqueue(s, [&] { return ran++, 0; });
      if (rc == ACL_SUCCESS) accepted++;
      else if (rc == ACL_ERROR_RT_STREAM_TASK_FULL) refused++;
    }
    return 0;
  }));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));  // waits for the callback (pushed before the call)
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));  // and for what it pushed
  EXPECT_GT(refused.load(), 0);
  EXPECT_EQ(accepted.load() + refused.load(), 3000);
  EXPECT_EQ(ran.load(), accepted.load());
}

// Captured launches are kept once, replayed (inline on an idle stream: the model holds launches
// only), and dropped once with the model.
TEST_F(LaunchPathTest, CapturedTasksAreKeptReplayedAndDroppedOnce) {
  Probe p;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(launch(s, &p, i));
  aclmdlRI model = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &model));
  EXPECT_EQ(p.runs.load(), 0);
  EXPECT_EQ(p.keeps.load(), 3);
  for (int r = 0; r < 4; ++r) ASSERT_ACL_OK(aclmdlRIExecuteAsync(model, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_EQ(p.log.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(p.log[i], i % 3);
  EXPECT_EQ(p.drops.load(), 0);
  ASSERT_ACL_OK(aclmdlRIDestroy(model));
  EXPECT_EQ(p.drops.load(), 3);
}

// A failing inline launch is reported like a queued one: at the next synchronisation.
TEST_F(LaunchPathTest, InlineFailureIsReportedAtSynchronisation) {
  Probe p;
  ASSERT_ACL_OK(launch(s, &p, 0));  // s becomes the stream this thread pushed to last
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  Task t;
  t.run = [](const Task &) {
    opsnn::set_last_error(ACL_ERROR_RT_INTERNAL_ERROR, "inline probe failed");
    return static_cast<int>(ACL_ERROR_RT_INTERNAL_ERROR);
  };
  ASSERT_ACL_OK(enqueue_task(s, t, InlineRule::kIfIdleAndLast));
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_INTERNAL_ERROR, "inline probe failed");
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));  // reported once
}

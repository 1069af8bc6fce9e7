// The shared compute pool. One job runs at a time: a parallel_for that finds the pool busy (another
// stream's kernel holds it) or that is nested inside a pool task runs serially on its caller, so
// the pool never deadlocks and never oversubscribes the cores.
#include "core/thread_pool.h"
#include "common/spin.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace opsnn::core {
namespace {

thread_local bool tls_in_pool_task = false;  // set on pool threads and on a caller running a job

int detect_threads() {
  if (const char *env = std::getenv("OPSNN_NUM_THREADS")) {
    char *end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && v >= 1) return static_cast<int>(std::min<long>(v, 1024));
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n >= 1) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? static_cast<int>(n) : 1;
}

// Spin-then-sleep: a worker that has just finished a job polls for the next one for a short while
// before sleeping on a condition variable, and the caller polls for the helpers' completion before
// sleeping. Back-to-back small jobs (a 128x128 GEMM takes ~30 us per thread) then never pay a
// futex wake-up, which on a VM costs tens of microseconds.
constexpr auto kWorkerSpin = std::chrono::microseconds(200);
constexpr auto kCallerSpin = std::chrono::microseconds(2000);

class Pool {
 public:
  explicit Pool(int n) : n_threads_(n) {
    for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
  }
  // The pool lives for the whole process (never destroyed: its threads may be parked at exit).

  int size() const { return n_threads_; }

  void run(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn) {
    std::unique_lock<std::mutex> job_lock(job_mu_, std::try_to_lock);
    if (!job_lock.owns_lock()) {  // busy: another caller holds the pool
      serial(n, fn);
      return;
    }
    const int64_t blocks = (n + grain - 1) / grain;
    // A few chunks per thread for load balance; chunks are whole multiples of grain.
    const int64_t target_chunks = static_cast<int64_t>(n_threads_) * 4;
    const int64_t blocks_per_chunk = std::max<int64_t>(1, (blocks + target_chunks - 1) / target_chunks);
    const int64_t chunk = blocks_per_chunk * grain;
    const int64_t chunks = (n + chunk - 1) / chunk;
    const int helpers = static_cast<int>(std::min<int64_t>(n_threads_ - 1, chunks - 1));
    // Publish the job: its description, then the helper slots (release), then the generation.
    fn_ = &fn;
    n_ = n;
    chunk_ = chunk;
    next_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    helpers_active_.store(helpers, std::memory_order_relaxed);
    helpers_wanted_.store(helpers, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lk(mu_);  // orders the bump against a worker going to sleep
      generation_.fetch_add(1, std::memory_order_release);
    }
    if (helpers > 0) cv_start_.notify_all();
    tls_in_pool_task = true;
    work();
    tls_in_pool_task = false;
    // Slots no worker has claimed yet are withdrawn: the caller never waits for a sleeper to wake
    // up only to find the work done.
    const int unclaimed = helpers_wanted_.exchange(0, std::memory_order_acq_rel);
    if (unclaimed > 0) helpers_active_.fetch_sub(unclaimed, std::memory_order_acq_rel);
    auto done = [&] { return helpers_active_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(done, kCallerSpin)) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_done_.wait(lk, done);
    }
    std::exception_ptr err;
    {
      std::lock_guard<std::mutex> lk(mu_);
      fn_ = nullptr;
      err = error_;
      error_ = nullptr;
    }
    if (err) std::rethrow_exception(err);
  }

  static void serial(int64_t n, const std::function<void(int64_t, int64_t)> &fn) { fn(0, n); }

 private:
  void work() {
    for (;;) {
      int64_t begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
      if (begin >= n_) return;
      int64_t end = std::min(n_, begin + chunk_);
      try {
        (*fn_)(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }

  // Takes one helper slot of the current job, if any is left.
  bool claim() {
    int w = helpers_wanted_.load(std::memory_order_relaxed);
    while (w > 0)
      if (helpers_wanted_.compare_exchange_weak(w, w - 1, std::memory_order_acquire, std::memory_order_relaxed))
        return true;
    return false;
  }

  void worker_loop() {
    tls_in_pool_task = true;
    uint64_t seen = 0;
    for (;;) {
      auto fresh = [&] { return generation_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(fresh, kWorkerSpin)) {
        std::unique_lock<std::mutex> lk(mu_);
        cv_start_.wait(lk, fresh);
      }
      seen = generation_.load(std::memory_order_acquire);
      if (!claim()) continue;  // the caller (or the other workers) already took the work
      work();
      if (helpers_active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lk(mu_);
        cv_done_.notify_one();
      }
    }
  }

  const int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex job_mu_;  // held by the caller for the whole job
  std::mutex mu_;      // sleeping and waking, and error_
  std::condition_variable cv_start_, cv_done_;
  // The job: written by the caller before helpers_wanted_ is released, read by claimed helpers.
  const std::function<void(int64_t, int64_t)> *fn_ = nullptr;
  int64_t n_ = 0, chunk_ = 1;
  std::atomic<int64_t> next_{0};
  std::atomic<int> helpers_wanted_{0}, helpers_active_{0};
  std::atomic<uint64_t> generation_{0};
  std::exception_ptr error_;
};

Pool &pool() {
  static Pool *p = new Pool(detect_threads());  // intentionally leaked: see class comment
  return *p;
}

}  // namespace

int num_threads() {
  static const int n = detect_threads();
  return n;
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (n <= grain || num_threads() == 1 || tls_in_pool_task) {
    fn(0, n);
    return;
  }
  pool().run(n, grain, fn);
}

}  // namespace opsnn::core

// Streams: in-order queues, each drained by its own worker thread. Also the stream public API.
#include <cstdlib>
#include <cstring>
#include <exception>

#include "common/error.h"
#include "common/log.h"
#include "common/spin.h"
#include "runtime/profiler.h"
#include "runtime/runtime_impl.h"


namespace opsnn::rt {
namespace {
thread_local Stream *tls_worker_stream = nullptr;
// Spins before sleeping (common/spin.h; after the first microseconds a spinning thread yields, so
// it costs other runnable threads little): launches less than 200 us apart need no wake-up of the
// worker, and a synchronisation that ends within 1 ms none of the host thread (a futex wake-up
// costs tens of microseconds here: with a 50 us sync spin, Abs on 1M floats ran at 38 GB/s, with
// 1 ms at 52-57).
constexpr auto kIdleSpin = std::chrono::microseconds(200);
constexpr auto kSyncSpin = std::chrono::microseconds(1000);

std::atomic<int> inline_override{-1};

int inline_from_env() {
  static const int mode = [] {
    const char *v = std::getenv("OPSNN_LAUNCH_INLINE");
    return v && v[0] == '0' && v[1] == 0 ? 0 : 1;
  }();
  return mode;
}

Work *task_work(const Task &t) {
  Work *w;
  std::memcpy(&w, t.bytes, sizeof w);
  return w;
}

void drop_task(Task &t) {
  if (t.drop) t.drop(t);
  t.drop = nullptr;
}
}  // namespace

bool inline_launch_enabled() {
  const int o = inline_override.load(std::memory_order_relaxed);
  return (o >= 0 ? o : inline_from_env()) != 0;
}
void set_inline_launch_for_testing(int mode) { inline_override.store(mode); }

Task work_task(Work &&work) {
  Task t;
  Work *w = new Work(std::move(work));
  std::memcpy(t.bytes, &w, sizeof w);
  t.run = [](const Task &self) {
    Work *f = task_work(self);
    return *f ? (*f)() : 0;
  };
  t.drop = [](Task &self) { delete task_work(self); };
  return t;
}

int run_task(const Task &task) {
  try {
    return task.run ? task.run(task) : 0;
  } catch (const opsnn::Error &e) {
    const int rc = e.code() ? e.code() : ACL_ERROR_RT_INTERNAL_ERROR;
    set_last_error(rc, e.what());
    return rc;
  } catch (const std::exception &e) {
    set_last_error(ACL_ERROR_RT_INTERNAL_ERROR, std::string("queued work threw an exception: ") + e.what());
    return ACL_ERROR_RT_INTERNAL_ERROR;
  } catch (...) {
    set_last_error(ACL_ERROR_RT_INTERNAL_ERROR, "queued work threw an unknown exception");
    return ACL_ERROR_RT_INTERNAL_ERROR;
  }
}

Stream *current_worker_stream() { return tls_worker_stream; }

Stream::Stream(uint64_t id_, int device_, uint32_t priority_, uint32_t flags_)
    : id(id_), device(device_), priority(priority_), flags(flags_), ring_(new Cell[kRing]) {
  for (size_t i = 0; i < kRing; ++i) ring_[i].seq.store(i, std::memory_order_relaxed);
  worker_ = std::thread([this] { worker_loop(); });
  worker_id_ = worker_.get_id();
}

Stream::~Stream() {
  shutdown();
  // Items never run (pushed after the worker stopped) still hold what their bytes own.
  for (uint64_t t = completed.load(); t < enqueued.load(); ++t) {
    Cell &c = ring_[t % kRing];
    if (c.seq.load() == t + 1) drop_task(c.task);
  }
}

aclError Stream::push(Work &&work, bool may_inline) {
  Task t = work_task(std::move(work));
  return push_task(t, may_inline ? InlineRule::kIfIdleAndLast : InlineRule::kNever);
}

aclError Stream::push_task(Task &task, InlineRule rule) {
  if (capturing_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lk(mu_);
    if (capture_) {  // recorded, not run: the model owns the task from now on
      if (task.keep) task.keep(task);
      capture_->works.push_back(task);
      capture_->never_blocks = capture_->never_blocks && rule != InlineRule::kNever;
      return ACL_SUCCESS;
    }
  }
  // A thread that alternates between streams wants large ops to run side by side: only a push to
  // the stream this thread pushed to last may run inline, unless the work is small (a hand-over to
  // the worker would cost more than running it here).
  static thread_local uint64_t last_stream = 0;
  const bool same_stream = last_stream == id;
  last_stream = id;
  const bool may_inline = rule == InlineRule::kIfIdle || (rule == InlineRule::kIfIdleAndLast && same_stream);
  uint64_t t = enqueued.load(std::memory_order_acquire);
  if (may_inline && completed.load(std::memory_order_acquire) == t && inline_launch_enabled() &&
      enqueued.compare_exchange_strong(t, t + 1, std::memory_order_acq_rel)) {
    // Every earlier item has completed and ticket t is ours: nothing can run before or beside it
    // on this stream (the worker waits for cell t, later pushes queue behind it).
    run_one(task);
    drop_task(task);
    finish(t);
    return ACL_SUCCESS;
  }
  for (int spins = 0;; ++spins) {
    t = enqueued.load(std::memory_order_relaxed);
    Cell &c = ring_[t % kRing];
    const uint64_t seq = c.seq.load(std::memory_order_acquire);
    if (seq == t) {
      if (!enqueued.compare_exchange_weak(t, t + 1, std::memory_order_relaxed)) continue;
      if (task.keep) task.keep(task);
      c.task = task;
      // seq_cst: ordered before the load of worker_sleeping_ (the worker stores that flag, then
      // looks at the cell: one of the two sees the other).
      c.seq.store(t + 1, std::memory_order_seq_cst);
      if (worker_sleeping_.load(std::memory_order_seq_cst)) wake_worker();
      return ACL_SUCCESS;
    }
    if (seq < t) {  // full: the cell still holds ticket t - kRing
      if (is_current_worker()) {
        drop_task(task);
        return fail(ACL_ERROR_RT_STREAM_TASK_FULL,
                    "stream %p: %zu items are queued and the stream's own worker (a host callback) enqueues more",
                    static_cast<void *>(this), kRing);
      }
      if (worker_sleeping_.load(std::memory_order_seq_cst)) wake_worker();
      if (spins < 64) cpu_relax();
      else std::this_thread::yield();
    }
  }
}

void Stream::wake_worker() {
  std::lock_guard<std::mutex> lk(mu_);
  cv_work_.notify_one();
}

bool Stream::cell_ready() const {
  const uint64_t h = completed.load(std::memory_order_seq_cst);
  return ring_[h % kRing].seq.load(std::memory_order_seq_cst) == h + 1;
}

void Stream::finish(uint64_t ticket) {
  ring_[ticket % kRing].seq.store(ticket + kRing, std::memory_order_release);
  completed.store(ticket + 1, std::memory_order_seq_cst);
  if (sync_waiters_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lk(mu_);
    cv_done_.notify_all();
  }
  // An inline item may have kept the worker from the next one until it fell asleep.
  if (worker_sleeping_.load(std::memory_order_seq_cst) && enqueued.load(std::memory_order_seq_cst) > ticket + 1)
    wake_worker();
}

void Stream::run_one(Task &task) {
  clear_last_error();
  const int rc = run_task(task);
  if (rc != 0) {
    std::string msg = last_error_message();
    if (msg.empty()) msg = "queued work failed with status " + std::to_string(rc);
    OPSNN_LOG(LogLevel::kError, "stream %p: %s (status %d)", static_cast<void *>(this), msg.c_str(), rc);
    std::lock_guard<std::mutex> lk(mu_);
    if (err_code_ == 0) {  // keep the first failure until the next synchronisation
      err_code_ = rc;
      err_msg_ = std::move(msg);
    }
  }
}

void Stream::worker_loop() {
  tls_worker_stream = this;
  prof::set_thread_name("stream " + std::to_string(id) + " worker (device " + std::to_string(device) + ")");
  for (;;) {
    const uint64_t h = completed.load(std::memory_order_acquire);
    Cell &c = ring_[h % kRing];
    if (c.seq.load(std::memory_order_acquire) == h + 1) {
      run_one(c.task);
      drop_task(c.task);  // release captured state before the item counts as completed
      finish(h);
      continue;
    }
    if (stop_.load(std::memory_order_acquire)) {
      if (enqueued.load(std::memory_order_acquire) == h) break;  // stop requested and drained
      std::this_thread::yield();  // an item is being written or runs inline
      continue;
    }
    auto ready = [&] { return cell_ready() || stop_.load(std::memory_order_acquire); };
    if (spin_until(ready, kIdleSpin)) continue;
    std::unique_lock<std::mutex> lk(mu_);
    worker_sleeping_.store(true, std::memory_order_seq_cst);
    while (!ready()) cv_work_.wait(lk);
    worker_sleeping_.store(false, std::memory_order_relaxed);
  }
  tls_worker_stream = nullptr;
}

bool Stream::wait_idle(int64_t timeout_ms) {
  const uint64_t target = enqueued.load();
  if (completed.load() >= target) return true;
  if (is_current_worker()) return true;  // a host callback syncing its own stream: nothing to wait for
  // Small kernels finish within microseconds, far sooner than a sleeping thread is woken: spin for
  // a short, bounded time first.
  if (spin_until([&] { return completed.load(std::memory_order_acquire) >= target; }, kSyncSpin)) return true;
  std::unique_lock<std::mutex> lk(mu_);
  sync_waiters_.fetch_add(1);
  bool ok = true;
  auto done = [&] { return completed.load() >= target; };
  if (timeout_ms < 0) {
    cv_done_.wait(lk, done);
  } else {
    ok = cv_done_.wait_for(lk, std::chrono::milliseconds(timeout_ms), done);
  }
  sync_waiters_.fetch_sub(1);
  return ok;
}

int Stream::take_error(std::string *message) {
  std::lock_guard<std::mutex> lk(mu_);
  int code = err_code_;
  if (code != 0 && message) *message = std::move(err_msg_);
  err_code_ = 0;
  err_msg_.clear();
  return code;
}

void Stream::shutdown() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!worker_.joinable()) return;
    stop_.store(true, std::memory_order_seq_cst);
    cv_work_.notify_one();
  }
  if (is_current_worker()) {
    worker_.detach();  // cannot join ourselves; the loop exits after this item
    return;
  }
  worker_.join();
}

bool Stream::begin_capture(std::shared_ptr<Model> model) {
  std::lock_guard<std::mutex> lk(mu_);
  if (capture_) return false;
  capture_ = std::move(model);
  capturing_.store(true, std::memory_order_release);
  return true;
}

std::shared_ptr<Model> Stream::end_capture() {
  std::lock_guard<std::mutex> lk(mu_);
  std::shared_ptr<Model> m = std::move(capture_);
  capture_.reset();
  capturing_.store(false, std::memory_order_release);
  if (m) m->capturing = false;
  return m;
}

std::shared_ptr<Model> Stream::active_capture() {
  std::lock_guard<std::mutex> lk(mu_);
  return capture_;
}

// ---- registry ------------------------------------------------------------------------------

Stream *create_stream(int device, uint32_t priority, uint32_t flags) {
  Runtime &r = runtime();
  auto s = std::make_shared<Stream>(r.next_stream_id.fetch_add(1), device, priority, flags);
  Stream *raw = s.get();
  std::unique_lock<std::shared_mutex> lk(r.reg_mu);
  r.streams.emplace(stream_key(raw), std::move(s));
  Device &d = r.devices[device];
  std::lock_guard<std::mutex> dl(d.mu);
  d.streams.push_back(raw);
  return raw;
}

bool destroy_stream(uintptr_t key) {
  Runtime &r = runtime();
  std::shared_ptr<Stream> keep;
  {
    std::unique_lock<std::shared_mutex> lk(r.reg_mu);
    auto it = r.streams.find(key);
    if (it == r.streams.end()) return false;
    keep = std::move(it->second);
    keep->live.store(false, std::memory_order_release);
    Stream *s = keep.get();
    r.streams.erase(it);
    Device &d = r.devices[keep->device];
    std::lock_guard<std::mutex> dl(d.mu);
    for (size_t i = 0; i < d.streams.size(); ++i) {
      if (d.streams[i] == s) {
        d.streams.erase(d.streams.begin() + static_cast<long>(i));
        break;
      }
    }
    if (d.default_stream.load() == s) d.default_stream.store(nullptr);
  }
  keep->shutdown();  // drains the queue first
  std::string msg;
  if (int code = keep->take_error(&msg))
    OPSNN_LOG(LogLevel::kWarning, "stream destroyed with an unreported failure (status %d): %s", code, msg.c_str());
  keep.reset();
  memory_collect_deferred();
  return true;
}

std::shared_ptr<Stream> acquire_stream(aclrtStream handle, const char *api, aclError *err) {
  ensure_initialized();
  Runtime &r = runtime();
  *err = ACL_SUCCESS;
  if (handle != nullptr) {
    std::shared_lock<std::shared_mutex> lk(r.reg_mu);
    auto it = r.streams.find(reinterpret_cast<uintptr_t>(handle));
    if (it != r.streams.end()) return it->second;
    *err = fail(ACL_ERROR_INVALID_PARAM, "%s: stream %p is not a live stream (never created or already destroyed)",
                api, handle);
    return nullptr;
  }
  const int dev = current_device();
  if (!valid_device(dev)) {
    *err = fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: current device %d is invalid (device count %d)", api, dev,
                r.device_count.load());
    return nullptr;
  }
  Device &d = r.devices[dev];
  {
    std::shared_lock<std::shared_mutex> lk(r.reg_mu);
    Stream *s = d.default_stream.load();
    if (s) return r.streams.at(stream_key(s));
  }
  std::lock_guard<std::mutex> create_lock(r.init_mu);  // serialises lazy creation
  {
    std::shared_lock<std::shared_mutex> lk(r.reg_mu);
    Stream *s = d.default_stream.load();
    if (s) return r.streams.at(stream_key(s));
  }
  Stream *s = create_stream(dev, 0, 0);
  std::shared_lock<std::shared_mutex> lk(r.reg_mu);
  d.default_stream.store(s);
  return r.streams.at(stream_key(s));
}

Stream *resolve_stream(aclrtStream handle, const char *api, aclError *err) {
  // The last streams this thread resolved by handle (a few: a thread feeding two or three streams
  // in turn should not go to the registry each time). Holding a reference keeps each object valid;
  // `live` tells a destroyed stream (whose handle is never reused) from a live one.
  struct Entry {
    uintptr_t key = 0;
    std::shared_ptr<Stream> stream;
  };
  struct Cache {
    Entry e[4];
    unsigned next = 0;
    std::shared_ptr<Stream> default_stream;  // keeps the default stream valid for this call
  };
  static thread_local Cache cache;
  const uintptr_t key = reinterpret_cast<uintptr_t>(handle);
  if (key != 0)
    for (Entry &e : cache.e)
      if (e.key == key && e.stream->live.load(std::memory_order_acquire)) {
        *err = ACL_SUCCESS;
        return e.stream.get();
      }
  std::shared_ptr<Stream> s = acquire_stream(handle, api, err);
  if (!s) return nullptr;
  if (key == 0) {
    // The default stream depends on the current device: not cached; the registry keeps it alive
    // until destroy_stream, which waits for work already pushed.
    cache.default_stream = std::move(s);
    return cache.default_stream.get();
  }
  Entry &e = cache.e[cache.next++ % 4];
  e.key = key;
  e.stream = std::move(s);
  return e.stream.get();
}

aclError enqueue_task(aclrtStream stream, Task &task, InlineRule rule) {
  aclError err;
  Stream *s = resolve_stream(stream, "enqueue", &err);
  if (!s) {
    drop_task(task);
    return err;
  }
  return s->push_task(task, rule);
}

aclError enqueue(aclrtStream stream, Work work) {
  Task t = work_task(std::move(work));
  return enqueue_task(stream, t, InlineRule::kNever);
}

std::vector<std::shared_ptr<Stream>> snapshot_streams(int device) {
  Runtime &r = runtime();
  std::vector<std::shared_ptr<Stream>> out;
  std::shared_lock<std::shared_mutex> lk(r.reg_mu);
  for (auto &kv : r.streams)
    if (device < 0 || kv.second->device == device) out.push_back(kv.second);
  return out;
}

void wait_all_idle(int device) {
  for (auto &s : snapshot_streams(device))
    if (!s->is_current_worker()) s->wait_idle();
}

}  // namespace opsnn::rt

using namespace opsnn;
using namespace opsnn::rt;

namespace {

aclError sync_stream_body(aclrtStream stream, int32_t timeout, const char *api);

// The profiler (runtime/profiler.h): one relaxed load when off.
aclError sync_stream_impl(aclrtStream stream, int32_t timeout, const char *api) {
  if (!prof::on()) return sync_stream_body(stream, timeout, api);
  const int64_t t0 = prof::now_ns();
  const aclError rc = sync_stream_body(stream, timeout, api);
  prof::record_span(prof::Cat::kSync, api, t0, 0, nullptr, rc);
  return rc;
}

aclError sync_stream_body(aclrtStream stream, int32_t timeout, const char *api) {
  if (timeout < -1) return fail(ACL_ERROR_INVALID_PARAM, "%s: timeout %d is invalid (-1 = wait forever, or > 0 ms)", api, timeout);
  aclError err;
  Stream *s = resolve_stream(stream, api, &err);
  if (!s) return err;
  if (!s->wait_idle(timeout <= 0 ? -1 : timeout))
    return fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "%s: stream %p did not finish within %d ms", api, stream, timeout);
  memory_collect_deferred();
  std::string msg;
  if (int code = s->take_error(&msg)) {
    set_last_error(code, std::move(msg));
    return code;
  }
  return ACL_SUCCESS;
}

constexpr uint32_t kKnownStreamFlags = 0x3Fu;

}  // namespace

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag) {
  if (!stream) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStreamWithConfig: stream is null");
  if (priority > 7)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStreamWithConfig: priority %u is out of range [0, 7]", priority);
  if (flag & ~kKnownStreamFlags)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStreamWithConfig: flag 0x%x has unknown bits (known: 0x%x)", flag,
                kKnownStreamFlags);
  ensure_initialized();
  const int dev = current_device();
  if (!valid_device(dev))
    return fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtCreateStreamWithConfig: current device %d is invalid", dev);
  *stream = stream_handle(create_stream(dev, priority, flag));
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream) {
  if (!stream) return fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
  return aclrtCreateStreamWithConfig(stream, 0, 0);
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream) {
  if (!stream) return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is null");
  {
    aclError err;
    std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtDestroyStream", &err);
    if (!s) return err;
    if (s->active_capture())
      return fail(ACL_ERROR_RT_STREAM_CAPTURED, "aclrtDestroyStream: stream %p is being captured (call aclmdlRICaptureEnd first)",
                  stream);
  }
  if (!destroy_stream(reinterpret_cast<uintptr_t>(stream)))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream %p is not a live stream", stream);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream) {
  if (!stream) return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStreamForce: stream is null");
  if (!destroy_stream(reinterpret_cast<uintptr_t>(stream)))
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStreamForce: stream %p is not a live stream", stream);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream) {
  return sync_stream_impl(stream, -1, "aclrtSynchronizeStream");
}

ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return sync_stream_impl(stream, timeout, "aclrtSynchronizeStreamWithTimeout");
}

ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
  if (!status) return fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is null");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtStreamQuery", &err);
  if (!s) return err;
  *status = s->idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                                                 aclrtStream stream) {
  if (!fn) return fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: fn is null");
  if (blockType != ACL_CALLBACK_NO_BLOCK && blockType != ACL_CALLBACK_BLOCK)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchCallback: blockType %d is invalid", static_cast<int>(blockType));
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtLaunchCallback", &err);
  if (!s) return err;
  return s->push([fn, userData] {
    fn(userData);
    return 0;
  });
}

ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args) {
  if (!fn) return fail(ACL_ERROR_INVALID_PARAM, "aclrtLaunchHostFunc: fn is null");
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtLaunchHostFunc", &err);
  if (!s) return err;
  return s->push([fn, args] {
    fn(args);
    return 0;
  });
}

}  // extern "C"

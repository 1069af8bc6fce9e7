// Internal objects of the CPU device runtime: streams (in-order queues drained by one worker
// thread each), events, capture models, devices. Shared by the src/runtime/*.cpp files only.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/runtime.h"

namespace opsnn::rt {

constexpr int kMaxDevices = 64;

// Work captured between aclmdlRICaptureBegin and aclmdlRICaptureEnd; replayed by
// aclmdlRIExecuteAsync as one queued item that runs every captured Work in order.
struct Model {
  Model() = default;
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;
  ~Model() {
    for (Task &t : works)
      if (t.drop) t.drop(t);
  }
  int device = 0;
  std::atomic<bool> capturing{true};  // cleared by aclmdlRICaptureEnd
  std::vector<Task> works;            // owned: dropped with the model
  bool never_blocks = true;           // every captured item may run inline (launches, records, copies)
};

// A Work wrapped as a Task (the std::function lives on the heap: not for the launch path).
Task work_task(Work &&work);
// Runs a task, catching exceptions: 0, or a status with the thread's last error set.
int run_task(const Task &task);

// A stream: an in-order queue drained by one worker thread. The queue is a bounded ring of
// Tasks with a sequence number per cell (lock-free for any number of producers; one consumer):
// a push claims a ticket with one compare-and-swap, writes the cell and publishes it; no heap
// allocation, no mutex, and no futex wake-up unless the worker went to sleep (it spins for
// kIdleSpin first). An idle stream may instead run a launch on the calling thread (push_task,
// inline policy, when the thread pushed to this stream last or the launch is small): the caller claims the next ticket
// only when every earlier one has completed, so the worker (and any later push) waits behind it
// exactly as behind a queued item.
class Stream {
 public:
  Stream(uint64_t id, int device, uint32_t priority, uint32_t flags);
  ~Stream();
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  // Appends work (or records it into the active capture). ACL_SUCCESS, or
  // ACL_ERROR_RT_STREAM_TASK_FULL (with a message) when the ring is full and the caller is this
  // stream's own worker (a host callback flooding its own stream: it cannot wait for itself).
  // `may_inline`: the work never blocks (an event record, a copy), so an idle stream may run it on
  // the calling thread like a launch.
  aclError push(Work &&work, bool may_inline = false);
  // The same for a Task; runs it on the calling thread instead when the inline policy is on and
  // `rule` holds (enqueue_task). Ownership of the task's bytes passes to the stream.
  aclError push_task(Task &task, InlineRule rule);
  // Waits until every item enqueued before the call has completed. timeout_ms < 0: no limit.
  // Returns false on timeout. Never consumes the recorded error.
  bool wait_idle(int64_t timeout_ms = -1);
  bool idle() const { return completed.load() >= enqueued.load(); }
  // Returns the first failure recorded since the last call (code 0 = none) and clears it.
  int take_error(std::string *message);
  // Stops the worker after it drained the queue and joins it.
  void shutdown();
  bool is_current_worker() const { return std::this_thread::get_id() == worker_id_; }

  // Capture control (return false if the state does not allow the transition).
  bool begin_capture(std::shared_ptr<Model> model);
  std::shared_ptr<Model> end_capture();
  std::shared_ptr<Model> active_capture();

  const uint64_t id;
  const int device;
  const uint32_t priority;
  const uint32_t flags;
  std::atomic<bool> live{true};  // cleared by destroy_stream before the worker stops
  alignas(64) std::atomic<uint64_t> enqueued{0};   // tickets handed out (queued or run inline)
  alignas(64) std::atomic<uint64_t> completed{0};  // items finished so far (strictly in order)

 private:
  static constexpr size_t kRing = 1024;  // cells; a full ring makes producers wait
  struct alignas(64) Cell {
    std::atomic<uint64_t> seq;  // == ticket: free for it; ticket + 1: published; + kRing: next lap
    Task task;
  };

  void worker_loop();
  void run_one(Task &task);
  bool cell_ready() const;  // the next item to run is published
  void finish(uint64_t ticket);  // ticket done: free its cell, count it, wake waiters
  void wake_worker();

  std::unique_ptr<Cell[]> ring_;
  std::atomic<bool> capturing_{false};
  std::atomic<bool> worker_sleeping_{false};
  std::atomic<bool> stop_{false};
  std::atomic<int> sync_waiters_{0};
  std::mutex mu_;  // sleeping / waking, the recorded error, the capture
  std::condition_variable cv_work_, cv_done_;
  int err_code_ = 0;
  std::string err_msg_;
  std::shared_ptr<Model> capture_;
  std::thread worker_;
  std::thread::id worker_id_;
};

struct Event {
  explicit Event(uint32_t f) : flags(f) {}
  const uint32_t flags;
  std::mutex mu;
  std::condition_variable cv;
  uint64_t gen = 0;       // number of records issued
  uint64_t done_gen = 0;  // highest record generation the stream has passed
  uint64_t reset_at = 0;  // gen value at the last reset: gen == reset_at means "not recorded"
  bool has_ts = false;
  std::chrono::steady_clock::time_point ts;
};

struct Context {
  int device = 0;
};

struct Device {
  std::mutex mu;                 // guards streams and default_stream writes
  std::vector<Stream *> streams;  // every live stream of this device
  std::atomic<Stream *> default_stream{nullptr};
};

struct Runtime {
  std::mutex init_mu;
  std::atomic<bool> initialized{false};
  bool explicit_init = false;  // aclInit called and not yet finalized
  std::atomic<int> device_count{1};
  size_t capacity_bytes = 0;  // per device, read at (re)initialisation

  // Stream registry: handle validation and lifetime. Readers (enqueue) take it shared. Keyed by
  // the handle clients hold (stream_handle: from the stream's id, never reused), not by address,
  // so a destroyed stream's handle never matches a later stream at the same address.
  std::shared_mutex reg_mu;
  std::unordered_map<uintptr_t, std::shared_ptr<Stream>> streams;
  std::atomic<uint64_t> next_stream_id{1};

  // Events by handle: a counter value (shifted), never an address and never reused, so a
  // destroyed event's handle never matches a later event.
  std::mutex ev_mu;
  std::unordered_map<uintptr_t, std::shared_ptr<Event>> events;
  uint64_t next_event_id = 1;  // guarded by ev_mu

  std::mutex model_mu;
  std::unordered_map<Model *, std::shared_ptr<Model>> models;

  std::mutex ctx_mu;
  std::unordered_map<Context *, std::unique_ptr<Context>> contexts;
  Context default_contexts[kMaxDevices];

  Device devices[kMaxDevices];
};

// Intentionally leaked singleton: worker threads may outlive static destruction at exit.
Runtime &runtime();

// Current device of the calling thread (default 0). Does not validate.
int current_device();
void set_current_device(int device);
bool valid_device(int device);

// The stream a worker thread is draining (nullptr on other threads).
Stream *current_worker_stream();

// Creates a stream on `device`, registers it and starts its worker.
Stream *create_stream(int device, uint32_t priority, uint32_t flags);
// The opaque handle of a stream (its id, shifted: never an address, never reused, never null).
inline uintptr_t stream_key(const Stream *s) { return static_cast<uintptr_t>(s->id) << 4; }
inline aclrtStream stream_handle(const Stream *s) { return reinterpret_cast<aclrtStream>(stream_key(s)); }
// Removes from the registry and the device list, then drains and joins. False if unknown.
bool destroy_stream(uintptr_t key);  // by stream_key; false when not live
// Resolves a handle (nullptr = default stream of the current device, created lazily) and returns
// a reference-holding pointer, or null with the error set (`api` names the caller).
std::shared_ptr<Stream> acquire_stream(aclrtStream handle, const char *api, aclError *err);
// The same for the hot paths (launch, synchronise): a non-null handle the calling thread used last
// resolves from a thread-local cache (no lock, no reference count); the pointer stays valid until
// this thread resolves another stream. Null with the error set, as acquire_stream.
Stream *resolve_stream(aclrtStream handle, const char *api, aclError *err);
// Waits for every stream of `device` (-1 = all devices) to drain, skipping the caller's own
// worker stream. Errors are not consumed.
void wait_all_idle(int device);
// Snapshot of all live streams of a device (-1 = all).
std::vector<std::shared_ptr<Stream>> snapshot_streams(int device);

// Memory (memory.cpp).
void memory_collect_deferred();       // releases deferred frees whose streams have passed
void memory_release_cached(int device);  // returns cached blocks to the system (-1 = all)
size_t parse_size(const char *text, bool *ok);

}  // namespace opsnn::rt

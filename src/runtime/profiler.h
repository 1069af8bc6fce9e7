// The profiler (docs/ARCHITECTURE.md, "Profiling"): one record per phase 1, launch, kernel run,
// synchronisation and host<->device copy, written as a Chrome trace (OPSNN_PROFILE=<path.json>,
// at exit and on aclFinalize) and handed to profiling sessions (opsnnProfilerStart/Stop,
// include/opsnn/profiler.h; Python's opsnn.profiler).
//
// Off, each hooked API call pays one relaxed atomic load (prof::on()); a launch decides once and
// tells its kernel run through its task's bytes, so the stream worker loads nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace opsnn::prof {

extern std::atomic<bool> g_enabled;
inline bool on() { return g_enabled.load(std::memory_order_relaxed); }

int64_t now_ns();

enum class Cat : uint8_t { kPhase1, kLaunch, kKernel, kSync, kCopy };
const char *cat_name(Cat c);

// An event holds pointers, not copies: `name`, `op` and `kind` point at static strings (the
// literals the API entry points pass), the chosen implementations at the executor's phase-1 trace
// (shared), so recording one allocates nothing in the steady state.
struct Event {
  Cat cat = Cat::kLaunch;
  const char *name = nullptr;  // the trace's label; null: the op's, with "GetWorkspaceSize" (phase 1)
                               // or " kernel" (kernel) appended
  const char *op = "";         // the op ("aclnnAdd") or the runtime API ("aclrtMemcpy")
  const char *kind = nullptr;  // a copy's kind ("host_to_device")
  std::shared_ptr<const std::string> impl;  // phase 1 / kernel: the implementations chosen
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint64_t bytes = 0;  // phase 1 / launch: workspace bytes; copy: bytes copied
  int status = 0;
  uint32_t tid = 0;    // filled by record()
};

// Each thread keeps its last OPSNN_PROFILE_EVENTS events (default 262144, about 20 MB) in a ring:
// a long run keeps its end, and the trace notes how many older events were dropped.
// Appends an event (thread-safe; fills tid with this thread's small id).
void record(Event &&e);
// Convenience: an event of `cat` named `name` (op = name unless given), from `start_ns` to now;
// every string a static one. `kind`: a copy's kind.
void record_span(Cat cat, const char *name, int64_t start_ns, uint64_t bytes = 0, const char *kind = nullptr,
                 int status = 0, const char *op = nullptr);
// Events dropped from the threads' rings so far.
uint64_t dropped_events();

// Names this thread in the trace ("stream 1 worker").
void set_thread_name(const std::string &name);

// Sessions: begin returns an id; end returns the events recorded since as a JSON array (the
// Chrome trace's "X" events). Profiling is on while a session is open or OPSNN_PROFILE is set.
int session_begin();
std::string session_end(int id);

// OPSNN_PROFILE: writes the trace so far (called by aclFinalize and at exit). No-op without it.
void flush_env_trace();
// Writes the whole trace of `events_json` (a JSON array of events) to `path`; false on failure.
bool write_trace_file(const std::string &path, const std::string &events_json);

}  // namespace opsnn::prof

// Verbose mode (in the style of oneDNN's ONEDNN_VERBOSE): one line per phase 1 and one per launch.
//
// On with OPSNN_VERBOSE=1, or when the log level is debug (OPSNN_LOG=debug, or
// ASCEND_GLOBAL_LOG_LEVEL=0 unless OPSNN_LOG says otherwise); OPSNN_VERBOSE=0 turns it off. Read
// once. Lines go to the log's stream (stderr; stdout with ASCEND_SLOG_PRINT_TO_STDOUT=1):
//
//   opsnn_verbose,phase1,<api>,impl=<choices>,rejected=[<rejections>],in=<tensors>,out=<tensors>,time_us=<t>,plan_cache=<c>
//   opsnn_verbose,exec,<api>,impl=<choices>,time_us=<t>
//
//   <choices>     the implementation each engine chose in this phase 1, ';'-separated, each
//                 "<engine>:<name>" (e.g. gemm:avx512_12x32/tiles+a_direct), "-" if none
//   <rejections>  "<candidate>: <reason>" for every candidate tried before a chosen one, "; "-separated
//   <tensors>     the registered tensors in prototype order, ';'-separated, each
//                 DTYPE[d0xd1x..]{s0xs1x..} (element strides; +offset when non-zero), "null" for
//                 an absent optional tensor, "-" for none
//   time_us       phase 1: the whole GetWorkspaceSize; exec: the op's steps when the stream ran them
//   <c>           the phase-1 plan cache (core/plan_cache.h): hit, miss or off (a phase 1 it does not
//                 serve), then ";hits=<n>;misses=<n>" counted over all threads so far
//
// Fields never contain ','. With verbose mode off, phase 1 and the launch pay one branch each.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

struct aclOpExecutor;

namespace opsnn::core {

struct ImplTrace;

extern std::atomic<bool> g_verbose;  // changed at run time by opsnnSetLogLevel (include/opsnn/log.h)
inline bool verbose_on() { return g_verbose.load(std::memory_order_relaxed); }

// What phase 1 recorded for the verbose lines (kept by the executor while verbose mode is on).
struct Phase1Trace {
  std::vector<std::string> choices;   // "<engine>:<name>"
  std::string rejected;               // all rejections, "; "-separated
  std::string impl;                   // choices joined (what the exec line prints)
  long long start_ns = 0;
};

// The trace of the phase 1 running on this thread, or null (verbose mode and the profiler off, or
// no phase 1).
extern thread_local Phase1Trace *t_phase1_trace;
inline Phase1Trace *current_phase1_trace() { return t_phase1_trace; }
// An engine's choice: `choice` is "<engine>:<name>", `trace` its rejections (may be null).
// No-op without a current phase-1 trace.
void record_choice(const std::string &choice, const ImplTrace *trace);

// Brackets the body of core::phase1 (op_builder.h). Records the engines' choices when verbose
// mode or the profiler (`profiling`) is on.
class Phase1Scope {
 public:
  Phase1Scope(aclOpExecutor *ex, bool profiling) : ex_(profiling || verbose_on() ? ex : nullptr) {
    if (ex_ != nullptr) begin();
  }
  ~Phase1Scope() {
    if (ex_ != nullptr) end();
  }
  // Phase 1 succeeded: joins the choices (kept in the executor for the exec lines and the
  // profiler's kernel events) and prints the verbose line.
  void done() {
    if (ex_ != nullptr) finish();
  }
  Phase1Scope(const Phase1Scope &) = delete;
  Phase1Scope &operator=(const Phase1Scope &) = delete;

 private:
  void begin();
  void end();
  void finish();
  aclOpExecutor *ex_;
  Phase1Trace *saved_ = nullptr;
};

long long verbose_now_ns();
// The phase-1 line of `ex` (its trace), phase 1 having taken `ns` (a plan-cache hit prints it too).
void verbose_phase1_line(const aclOpExecutor &ex, long long ns);
// The exec line of a launch whose steps took `ns`.
void verbose_exec(const aclOpExecutor &ex, long long ns);

// Tests: turns verbose mode on or off; with `sink`, lines are appended there (no newline) instead
// of being written to the log stream. Not thread-safe: call while nothing runs.
void set_verbose_for_testing(bool on, std::vector<std::string> *sink);

}  // namespace opsnn::core

#include "core/verbose.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "acl/acl_base.h"
#include "common/log.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/impl_list.h"
#include "core/plan_cache.h"

namespace opsnn::core {
namespace {

bool verbose_from_env() {
  if (const char *v = std::getenv("OPSNN_VERBOSE"); v != nullptr && *v != '\0') return std::strcmp(v, "0") != 0;
  if (log_level() == LogLevel::kDebug) return true;
  if (std::getenv("OPSNN_LOG") != nullptr) return false;  // OPSNN_LOG overrides the vendor level
  const char *g = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
  return g != nullptr && std::strcmp(g, "0") == 0;
}


std::mutex g_sink_mu;
std::vector<std::string> *g_sink = nullptr;

void emit(const std::string &line) {
  {
    std::lock_guard<std::mutex> lock(g_sink_mu);
    if (g_sink != nullptr) {
      g_sink->push_back(line);
      return;
    }
  }
  log_write_line(line.c_str());
}

void append_tensors(std::string *s, const aclOpExecutor &ex, const std::vector<int> &index) {
  if (index.empty()) *s += '-';
  for (size_t i = 0; i < index.size(); ++i) {
    if (i > 0) *s += ';';
    if (index[i] < 0) {
      *s += "null";
      continue;
    }
    const aclTensor &t = ex.slots[static_cast<size_t>(index[i])];
    *s += dtype_name(t.dtype);
    *s += '[';
    for (int d = 0; d < t.ndim; ++d) {
      if (d > 0) *s += 'x';
      *s += std::to_string(t.dims[d]);
    }
    *s += "]{";
    for (int d = 0; d < t.ndim; ++d) {
      if (d > 0) *s += 'x';
      *s += std::to_string(t.strides[d]);
    }
    *s += '}';
    if (t.offset != 0) {
      *s += '+';
      *s += std::to_string(t.offset);
    }
  }
}

std::string format_us(long long ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  return buf;
}

}  // namespace

std::atomic<bool> g_verbose{verbose_from_env()};
thread_local Phase1Trace *t_phase1_trace = nullptr;

long long verbose_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void record_choice(const std::string &choice, const ImplTrace *trace) {
  Phase1Trace *t = current_phase1_trace();
  if (t == nullptr) return;
  // An op running several identical GEMMs (e.g. an outer batch loop) reports the choice once.
  const std::string rej = trace != nullptr ? trace->rejected : std::string();
  for (const std::string &c : t->choices)
    if (c == choice) return;
  t->choices.push_back(choice);
  if (!rej.empty()) {
    if (!t->rejected.empty()) t->rejected += "; ";
    t->rejected += rej;
  }
}

void Phase1Scope::begin() {
  auto trace = std::make_shared<Phase1Trace>();
  trace->start_ns = verbose_now_ns();
  ex_->trace = trace;
  saved_ = t_phase1_trace;
  t_phase1_trace = trace.get();
}

void Phase1Scope::end() { t_phase1_trace = saved_; }

void Phase1Scope::finish() {
  Phase1Trace &t = *ex_->trace;
  const long long ns = verbose_now_ns() - t.start_ns;
  for (const std::string &c : t.choices) {
    if (!t.impl.empty()) t.impl += ';';
    t.impl += c;
  }
  if (t.impl.empty()) t.impl.push_back('-');
  if (!verbose_on()) return;  // the profiler alone: no line
  verbose_phase1_line(*ex_, ns);
}

void verbose_phase1_line(const aclOpExecutor &ex, long long ns) {
  const Phase1Trace *t = ex.trace.get();
  std::string line = "opsnn_verbose,phase1,";
  line += ex.api;
  line += ",impl=";
  line += t ? t->impl : std::string("-");
  line += ",rejected=[";
  if (t) line += t->rejected;
  line += "],in=";
  append_tensors(&line, ex, ex.input_index);
  line += ",out=";
  append_tensors(&line, ex, ex.output_index);
  line += ",time_us=";
  line += format_us(ns);
  const PlanCacheStats st = plan_cache_stats();
  line += ",plan_cache=";
  line += plan_cache_state();
  line += ";hits=" + std::to_string(st.hits) + ";misses=" + std::to_string(st.misses);
  emit(line);
}

void verbose_exec(const aclOpExecutor &ex, long long ns) {
  std::string line = "opsnn_verbose,exec,";
  line += ex.api;
  line += ",impl=";
  line += ex.trace ? ex.trace->impl : std::string("-");
  line += ",time_us=";
  line += format_us(ns);
  emit(line);
}

void set_verbose_for_testing(bool on, std::vector<std::string> *sink) {
  std::lock_guard<std::mutex> lock(g_sink_mu);
  g_verbose.store(on, std::memory_order_relaxed);
  g_sink = sink;
}

}  // namespace opsnn::core

// include/opsnn/log.h
extern "C" {

ACL_FUNC_VISIBILITY int opsnnSetLogLevel(int level) {
  if (level < 0 || level > 4) return -1;
  const auto prev = opsnn::set_log_level(static_cast<opsnn::LogLevel>(level));
  opsnn::core::g_verbose.store(level == 0, std::memory_order_relaxed);
  return static_cast<int>(prev);
}

ACL_FUNC_VISIBILITY int opsnnGetLogLevel(void) { return static_cast<int>(opsnn::log_level()); }

}

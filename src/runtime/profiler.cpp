#include "runtime/profiler.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "acl/acl_base.h"
#include "common/log.h"

namespace opsnn::prof {

std::atomic<bool> g_enabled{false};

namespace {

// Each recording thread appends to its own ring (its mutex is contended only while a session or
// the trace file collects), so a host thread and a stream worker never wait for each other.
size_t ring_capacity() {
  static const size_t cap = [] {
    const char *e = std::getenv("OPSNN_PROFILE_EVENTS");
    const long long v = e != nullptr ? std::atoll(e) : 0;
    return v > 0 ? static_cast<size_t>(v) : size_t{1} << 18;
  }();
  return cap;
}

struct ThreadBuf {
  std::mutex mu;
  std::vector<Event> ring;  // grows to ring_capacity(), then overwrites its oldest events
  size_t head = 0;          // once full: the oldest event (the next to overwrite)
  uint64_t dropped = 0;
  void push(Event &&e) {
    if (ring.size() < ring_capacity()) {
      ring.push_back(std::move(e));
      return;
    }
    ring[head] = std::move(e);
    head = head + 1 == ring.size() ? 0 : head + 1;
    ++dropped;
  }
  template <class F>
  void for_each(F &&f) const {  // oldest first
    for (size_t i = head; i < ring.size(); ++i) f(ring[i]);
    for (size_t i = 0; i < head; ++i) f(ring[i]);
  }
};

struct State {
  std::mutex mu;
  std::vector<ThreadBuf *> bufs;   // never freed: a thread's events outlive it
  std::map<uint32_t, std::string> thread_names;
  std::map<int, int64_t> sessions;  // id -> start time
  int next_session = 1;
  std::string env_path;            // OPSNN_PROFILE
  int64_t base_ns = 0;             // the trace's time zero
};

// Never destroyed: workers may still record while the process exits.
State &state() {
  static State *s = new State;
  return *s;
}

std::atomic<uint32_t> g_next_tid{1};
thread_local uint32_t t_tid = 0;
thread_local ThreadBuf *t_buf = nullptr;

uint32_t this_tid() {
  if (t_tid == 0) t_tid = g_next_tid.fetch_add(1, std::memory_order_relaxed);
  return t_tid;
}

ThreadBuf &this_buf() {
  if (t_buf == nullptr) {
    auto *b = new ThreadBuf;
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    s.bufs.push_back(b);
    t_buf = b;
  }
  return *t_buf;
}

// Every buffer's events starting at or after `from_ns`, by start time (state lock held).
std::vector<Event> collect_locked(State &s, int64_t from_ns) {
  std::vector<Event> out;
  for (ThreadBuf *b : s.bufs) {
    std::lock_guard<std::mutex> lock(b->mu);
    b->for_each([&](const Event &e) {
      if (e.start_ns >= from_ns) out.push_back(e);
    });
  }
  std::stable_sort(out.begin(), out.end(), [](const Event &a, const Event &b) { return a.start_ns < b.start_ns; });
  return out;
}

void clear_locked(State &s) {
  for (ThreadBuf *b : s.bufs) {
    std::lock_guard<std::mutex> lock(b->mu);
    std::vector<Event>().swap(b->ring);
    b->head = 0;
  }
}

void update_enabled_locked(State &s) {
  g_enabled.store(!s.env_path.empty() || !s.sessions.empty(), std::memory_order_relaxed);
}

void append_escaped(std::string *out, const char *s) {
  for (; *s != '\0'; ++s) {
    const char c = *s;
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      *out += buf;
    } else {
      out->push_back(c);
    }
  }
}

void append_us(std::string *out, int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  *out += buf;
}

void append_event(std::string *out, const Event &e, int64_t base_ns, int pid) {
  *out += "{\"name\":\"";
  if (e.name != nullptr) {
    append_escaped(out, e.name);
  } else {
    append_escaped(out, e.op);
    *out += e.cat == Cat::kPhase1 ? "GetWorkspaceSize" : " kernel";
  }
  *out += "\",\"cat\":\"";
  *out += cat_name(e.cat);
  *out += "\",\"ph\":\"X\",\"ts\":";
  append_us(out, e.start_ns > base_ns ? e.start_ns - base_ns : 0);
  *out += ",\"dur\":";
  append_us(out, e.dur_ns > 0 ? e.dur_ns : 0);
  *out += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(e.tid) + ",\"args\":{\"op\":\"";
  append_escaped(out, e.op);
  *out += '"';
  switch (e.cat) {
    case Cat::kPhase1:
    case Cat::kLaunch:
      *out += ",\"workspace_bytes\":" + std::to_string(e.bytes);
      break;
    case Cat::kCopy:
      *out += ",\"bytes\":" + std::to_string(e.bytes);
      break;
    default:
      break;
  }
  if (e.kind != nullptr) {
    *out += ",\"kind\":\"";
    append_escaped(out, e.kind);
    *out += '"';
  }
  if (e.impl && !e.impl->empty()) {
    *out += ",\"impl\":\"";
    append_escaped(out, e.impl->c_str());
    *out += '"';
  }
  if (e.status != 0) *out += ",\"status\":" + std::to_string(e.status);
  *out += "}}";
}

// The metadata events (process and thread names) followed by `events`, as a JSON array.
std::string events_json_locked(const State &s, const std::vector<Event> &events) {
  const int pid = static_cast<int>(getpid());
  std::string out = "[";
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":0,\"args\":{\"name\":\"opsnn\"}}";
  for (const auto &[tid, name] : s.thread_names) {
    out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"args\":{\"name\":\"";
    append_escaped(&out, name.c_str());
    out += "\"}}";
  }
  std::map<uint32_t, bool> unnamed;  // threads without a name: "host thread <tid>"
  for (const Event &e : events)
    if (s.thread_names.count(e.tid) == 0) unnamed[e.tid] = true;
  for (const auto &[tid, unused] : unnamed)
    out += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"args\":{\"name\":\"host thread " + std::to_string(tid) + "\"}}";
  for (const Event &e : events) {
    out += ",\n";
    append_event(&out, e, s.base_ns, pid);
  }
  out += "]";
  return out;
}

void at_exit() { flush_env_trace(); }

// OPSNN_PROFILE=<path.json>: on from the start; the trace is written at exit (and on aclFinalize).
struct EnvInit {
  EnvInit() {
    State &s = state();
    s.base_ns = now_ns();
    const char *p = std::getenv("OPSNN_PROFILE");
    if (p == nullptr || *p == '\0') return;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      s.env_path = p;
      update_enabled_locked(s);
    }
    std::atexit(at_exit);
  }
};
EnvInit g_env_init;

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char *cat_name(Cat c) {
  switch (c) {
    case Cat::kPhase1: return "phase1";
    case Cat::kLaunch: return "launch";
    case Cat::kKernel: return "kernel";
    case Cat::kSync: return "sync";
    case Cat::kCopy: return "copy";
  }
  return "?";
}

void record(Event &&e) {
  if (!on()) return;  // turned off since the event began
  e.tid = this_tid();
  ThreadBuf &b = this_buf();
  std::lock_guard<std::mutex> lock(b.mu);
  b.push(std::move(e));
}

uint64_t dropped_events() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  uint64_t n = 0;
  for (ThreadBuf *b : s.bufs) {
    std::lock_guard<std::mutex> l(b->mu);
    n += b->dropped;
  }
  return n;
}

void record_span(Cat cat, const char *name, int64_t start_ns, uint64_t bytes, const char *kind, int status,
                 const char *op) {
  Event e;
  e.cat = cat;
  e.start_ns = start_ns;
  e.dur_ns = now_ns() - start_ns;
  e.name = name;
  e.op = op != nullptr ? op : name;
  e.kind = kind;
  e.bytes = bytes;
  e.status = status;
  record(std::move(e));
}

void set_thread_name(const std::string &name) {
  const uint32_t tid = this_tid();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.thread_names[tid] = name;
}

int session_begin() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  const int id = s.next_session++;
  s.sessions[id] = now_ns();
  update_enabled_locked(s);
  return id;
}

std::string session_end(int id) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.sessions.find(id);
  if (it == s.sessions.end()) return "[]";
  std::string json = events_json_locked(s, collect_locked(s, it->second));
  s.sessions.erase(it);
  if (s.sessions.empty() && s.env_path.empty()) clear_locked(s);  // nobody wants them any more
  update_enabled_locked(s);
  return json;
}

bool write_trace_file(const std::string &path, const std::string &events_json) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":", f);
  std::fputs(events_json.c_str(), f);
  std::fputs("}\n", f);
  return std::fclose(f) == 0;
}

void flush_env_trace() {
  State &s = state();
  std::string path, json;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.env_path.empty()) return;
    path = s.env_path;
    json = events_json_locked(s, collect_locked(s, 0));
  }
  if (!write_trace_file(path, json))
    OPSNN_LOG(LogLevel::kError, "OPSNN_PROFILE: cannot write the trace to '%s'", path.c_str());
  if (const uint64_t dropped = dropped_events(); dropped > 0)
    OPSNN_LOG(LogLevel::kWarning,
              "OPSNN_PROFILE: the trace keeps each thread's last %zu events; %llu older ones were dropped "
              "(OPSNN_PROFILE_EVENTS sets the count)",
              ring_capacity(), static_cast<unsigned long long>(dropped));
}

}  // namespace opsnn::prof

// The public C interface (include/opsnn/profiler.h).
extern "C" {

ACL_FUNC_VISIBILITY int opsnnProfilerStart(void) { return opsnn::prof::session_begin(); }

ACL_FUNC_VISIBILITY char *opsnnProfilerStop(int session) {
  const std::string json = opsnn::prof::session_end(session);
  char *out = static_cast<char *>(std::malloc(json.size() + 1));
  if (out != nullptr) std::memcpy(out, json.c_str(), json.size() + 1);
  return out;
}

ACL_FUNC_VISIBILITY void opsnnProfilerFree(char *events) { std::free(events); }

ACL_FUNC_VISIBILITY int opsnnProfilerEnabled(void) { return opsnn::prof::on() ? 1 : 0; }

ACL_FUNC_VISIBILITY int opsnnProfilerWriteTrace(const char *path, const char *events) {
  if (path == nullptr || events == nullptr) return 1;
  return opsnn::prof::write_trace_file(path, events) ? 0 : 1;
}

}

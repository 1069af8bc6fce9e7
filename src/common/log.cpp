#include "common/log.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace opsnn {
namespace {

struct LogConfig {
  LogLevel level = LogLevel::kOff;
  FILE *out = nullptr;  // null: no destination configured (set_log_level then uses stderr)
};

bool parse_opsnn_level(const char *s, LogLevel *out) {
  static const struct {
    const char *name;
    LogLevel level;
  } kNames[] = {{"debug", LogLevel::kDebug},     {"info", LogLevel::kInfo},   {"warning", LogLevel::kWarning},
                {"warn", LogLevel::kWarning},    {"error", LogLevel::kError}, {"off", LogLevel::kOff},
                {"none", LogLevel::kOff}};
  for (const auto &n : kNames) {
    if (strcasecmp(s, n.name) == 0) {
      *out = n.level;
      return true;
    }
  }
  return false;
}

int vendor_level() {
  int lvl = 3;  // the toolkit's default: errors only
  if (const char *g = std::getenv("ASCEND_GLOBAL_LOG_LEVEL")) {
    char *end = nullptr;
    long v = std::strtol(g, &end, 10);
    if (end != g && v >= 0 && v <= 4) lvl = static_cast<int>(v);
  }
  return lvl;
}

// ASCEND_PROCESS_LOG_PATH: like the toolkit, the process's log file <path>/plog/plog-<pid>_<time>.log.
FILE *open_process_log(const char *dir) {
  std::string d = std::string(dir) + "/plog";
  ::mkdir(dir, 0750);
  ::mkdir(d.c_str(), 0750);
  char name[64];
  time_t now = time(nullptr);
  struct tm tmv;
  localtime_r(&now, &tmv);
  char stamp[20];
  strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &tmv);
  std::snprintf(name, sizeof name, "/plog-%d_%s.log", static_cast<int>(getpid()), stamp);
  return std::fopen((d + name).c_str(), "a");
}

// Read once: the vendor variables first, OPSNN_LOG overrides them.
//   ASCEND_SLOG_PRINT_TO_STDOUT=1     stdout, at ASCEND_GLOBAL_LOG_LEVEL (default 3, error)
//   else ASCEND_PROCESS_LOG_PATH=dir  a log file in dir/plog/, at ASCEND_GLOBAL_LOG_LEVEL
//   else                              nothing (the toolkit would write ~/ascend/log; we do not)
//   OPSNN_LOG=<name>                  stderr at that level
LogConfig read_config() {
  LogConfig cfg;
  const char *to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  const char *log_path = std::getenv("ASCEND_PROCESS_LOG_PATH");
  if (to_stdout && std::strcmp(to_stdout, "1") == 0) {
    cfg.level = static_cast<LogLevel>(vendor_level());
    cfg.out = stdout;
  } else if (log_path != nullptr && *log_path != '\0') {
    if (FILE *f = open_process_log(log_path)) {
      cfg.level = static_cast<LogLevel>(vendor_level());
      cfg.out = f;
    }
  }
  if (const char *o = std::getenv("OPSNN_LOG")) {
    LogLevel l;
    if (parse_opsnn_level(o, &l)) {
      cfg.level = l;
      cfg.out = stderr;
    }
  }
  return cfg;
}

LogConfig &config() {
  static LogConfig cfg = read_config();
  return cfg;
}

// The level, changeable at run time (set_log_level); read with a relaxed load.
std::atomic<int> &level_var() {
  static std::atomic<int> v{static_cast<int>(config().level)};
  return v;
}

FILE *out_stream() {
  FILE *f = config().out;
  return f != nullptr ? f : stderr;
}

const char *level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug: return "DEBUG";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kWarning: return "WARNING";
    case LogLevel::kError: return "ERROR";
    default: return "OFF";
  }
}

const char *base_name(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace

LogLevel log_level() { return static_cast<LogLevel>(level_var().load(std::memory_order_relaxed)); }

LogLevel set_log_level(LogLevel level) {
  return static_cast<LogLevel>(level_var().exchange(static_cast<int>(level), std::memory_order_relaxed));
}

void log_message(LogLevel level, const char *file, int line, const char *fmt, ...) {
  if (static_cast<int>(level) < static_cast<int>(log_level()) || level == LogLevel::kOff) return;
  char body[1024];
  va_list args;
  va_start(args, fmt);
  int n = std::vsnprintf(body, sizeof body, fmt, args);
  va_end(args);
  std::string text;
  if (n >= static_cast<int>(sizeof body)) {  // long message: format again into a string
    text.resize(static_cast<size_t>(n) + 1);
    va_start(args, fmt);
    std::vsnprintf(text.data(), text.size(), fmt, args);
    va_end(args);
    text.resize(static_cast<size_t>(n));
  } else {
    text = n > 0 ? body : "";
  }
  // The toolkit's line: [LEVEL] MODULE(pid,process):date-time.ms.us [file:line]tid message
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tmv;
  localtime_r(&ts.tv_sec, &tmv);
  char head[160];
  const long us = ts.tv_nsec / 1000;
  std::snprintf(head, sizeof head, "[%s] OPSNN(%d,%s):%04d-%02d-%02d-%02d:%02d:%02d.%03ld.%03ld ", level_name(level),
                static_cast<int>(getpid()), program_invocation_short_name, tmv.tm_year + 1900, tmv.tm_mon + 1,
                tmv.tm_mday, tmv.tm_hour, tmv.tm_min, tmv.tm_sec, us / 1000, us % 1000);
  // One write per line so that lines from several threads do not interleave.
  std::string lineout = std::string(head) + "[" + base_name(file ? file : "?") + ":" + std::to_string(line) + "]" +
                        std::to_string(static_cast<long>(syscall(SYS_gettid))) + " " + text + "\n";
  FILE *out = out_stream();
  std::fputs(lineout.c_str(), out);
  std::fflush(out);
}

void log_write_line(const char *text) {
  std::string line = std::string(text) + "\n";
  FILE *out = out_stream();
  std::fputs(line.c_str(), out);
  std::fflush(out);
}

}  // namespace opsnn

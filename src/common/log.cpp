#include "common/log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace opsnn {
namespace {

struct LogConfig {
  LogLevel level = LogLevel::kOff;
  FILE *out = stderr;
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

// Read once: the vendor variables first, OPSNN_LOG overrides them.
LogConfig read_config() {
  LogConfig cfg;
  const char *to_stdout = std::getenv("ASCEND_SLOG_PRINT_TO_STDOUT");
  if (to_stdout && std::strcmp(to_stdout, "1") == 0) {
    int lvl = 3;
    if (const char *g = std::getenv("ASCEND_GLOBAL_LOG_LEVEL")) {
      char *end = nullptr;
      long v = std::strtol(g, &end, 10);
      if (end != g && v >= 0 && v <= 4) lvl = static_cast<int>(v);
    }
    cfg.level = static_cast<LogLevel>(lvl);
    cfg.out = stdout;
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

const LogConfig &config() {
  static const LogConfig cfg = read_config();
  return cfg;
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

LogLevel log_level() { return config().level; }

void log_message(LogLevel level, const char *file, int line, const char *fmt, ...) {
  const LogConfig &cfg = config();
  if (static_cast<int>(level) < static_cast<int>(cfg.level) || level == LogLevel::kOff) return;
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
  // One write per line so that lines from several threads do not interleave.
  std::string lineout = std::string("[OPSNN ") + level_name(level) + "] " + base_name(file ? file : "?") + ":" +
                        std::to_string(line) + " " + text + "\n";
  std::fputs(lineout.c_str(), cfg.out);
  std::fflush(cfg.out);
}

void log_write_line(const char *text) {
  const LogConfig &cfg = config();
  std::string line = std::string(text) + "\n";
  std::fputs(line.c_str(), cfg.out);
  std::fflush(cfg.out);
}

}  // namespace opsnn

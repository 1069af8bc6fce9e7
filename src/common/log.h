// Logging that follows the vendor toolkit's variables:
//   ASCEND_GLOBAL_LOG_LEVEL   0 debug, 1 info, 2 warning, 3 error (default), 4 null
//   ASCEND_SLOG_PRINT_TO_STDOUT=1  print to stdout at that level
//   ASCEND_PROCESS_LOG_PATH=dir    (without the above) write dir/plog/plog-<pid>_<time>.log
//   OPSNN_LOG=debug|info|warning|error|off  overrides the level for OpsNN alone (to stderr)
// Without any of them nothing is logged. Lines look like the toolkit's:
//   [ERROR] OPSNN(pid,program):2026-12-02-05:40:00.123.456 [file.cpp:42]tid message
// The variables are read once; set_log_level (opsnnSetLogLevel, Python opsnn.set_verbose)
// changes the level later (to stderr when no destination was configured). Logging below the
// level costs one relaxed load and a branch.
#pragma once

namespace opsnn {

enum class LogLevel : int { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

LogLevel log_level();
// Returns the previous level.
LogLevel set_log_level(LogLevel level);
void log_message(LogLevel level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
// Writes `text` and a newline to the log's stream (stderr, or stdout with
// ASCEND_SLOG_PRINT_TO_STDOUT=1) in one write, whatever the level (the verbose lines).
void log_write_line(const char *text);

}  // namespace opsnn

#define OPSNN_LOG(level, ...)                                                      \
  do {                                                                             \
    if (static_cast<int>(level) >= static_cast<int>(::opsnn::log_level()))         \
      ::opsnn::log_message(level, __FILE__, __LINE__, __VA_ARGS__);                \
  } while (0)

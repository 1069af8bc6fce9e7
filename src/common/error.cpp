#include "common/error.h"

#include <cstdio>

#include "acl/acl.h"
#include "common/log.h"

namespace opsnn {
namespace {
struct LastError {
  int code = 0;
  std::string message;
};
thread_local LastError g_last_error;

std::string vformat(const char *fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, args);
  return out;
}
}  // namespace

void set_last_error(int code, std::string message) {
  OPSNN_LOG(LogLevel::kError, "%s (status %d)", message.c_str(), code);
  g_last_error.code = code;
  g_last_error.message = std::move(message);
}

int fail(int code, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string msg = vformat(fmt, args);
  va_end(args);
  set_last_error(code, std::move(msg));
  return code;
}

void throw_error(int code, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string msg = vformat(fmt, args);
  va_end(args);
  throw Error(code, std::move(msg));
}

const char *last_error_message() { return g_last_error.message.c_str(); }
int last_error_code() { return g_last_error.code; }
void clear_last_error() {
  g_last_error.code = 0;
  g_last_error.message.clear();
}

}  // namespace opsnn

extern "C" ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg() { return opsnn::last_error_message(); }

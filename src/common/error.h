// One error-reporting path for every public function: a status code plus a thread-local message
// that aclGetRecentErrMsg() returns. Errors never cross the C boundary as exceptions; inside the
// library, phase-1 code may throw opsnn::Error and the API boundary turns it into a status.
#pragma once

#include <cstdarg>
#include <stdexcept>
#include <string>

namespace opsnn {

// Records `message` as this thread's most recent error (also logged at ERROR level).
void set_last_error(int code, std::string message);
// printf-style convenience; returns `code` so call sites can `return fail(...)`.
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *last_error_message();
int last_error_code();
void clear_last_error();

// Thrown by phase-1 helpers; caught at the C API boundary (see core/api_boundary.h).
class Error : public std::runtime_error {
 public:
  Error(int code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

[[noreturn]] void throw_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace opsnn

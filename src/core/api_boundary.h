// The C API boundary: runs a body that may throw opsnn::Error and turns every failure into a
// status code plus a message "<api>: <what>" for aclGetRecentErrMsg. Nothing escapes as an
// exception.
#pragma once

#include <new>
#include <string>

#include "aclnn/acl_meta.h"
#include "common/error.h"

namespace opsnn::core {

template <class Body>
int api_call(const char *api, Body &&body) noexcept {
  try {
    return body();
  } catch (const Error &e) {
    set_last_error(e.code(), std::string(api) + ": " + e.what());
    return e.code();
  } catch (const std::bad_alloc &) {
    set_last_error(ACLNN_ERR_INNER, std::string(api) + ": out of host memory");
    return ACLNN_ERR_INNER;
  } catch (const std::exception &e) {
    set_last_error(ACLNN_ERR_INNER, std::string(api) + ": internal error: " + e.what());
    return ACLNN_ERR_INNER;
  } catch (...) {
    set_last_error(ACLNN_ERR_INNER, std::string(api) + ": internal error");
    return ACLNN_ERR_INNER;
  }
}

// Throws 161001 naming `name` when `p` is null.
inline void require_not_null(const void *p, const char *name) {
  if (p == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is null", name);
}

}  // namespace opsnn::core

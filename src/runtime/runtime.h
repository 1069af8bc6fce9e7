// Internal interface of the CPU device runtime, used by the executor (core/) to launch work.
// The public aclrt* functions are implemented on top of the same objects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "acl/acl.h"

namespace opsnn::rt {

// A unit of queued work. It returns 0 on success or a status code; on failure it has set the
// thread's last error message (opsnn::set_last_error), which the stream keeps and reports, with
// the code, at the next synchronisation of that stream or device. Exceptions are caught likewise.
using Work = std::function<int()>;

// Appends `work` to `stream` (nullptr = the default stream of the current device) and returns at
// once. Work on one stream runs strictly in order on that stream's worker thread.
// Returns ACL_SUCCESS, or ACL_ERROR_INVALID_PARAM / ACL_ERROR_RT_* with a message for a bad handle.
aclError enqueue(aclrtStream stream, Work work);

// True when the runtime is usable (aclInit or aclrtSetDevice has run, or is implied).
// Launching without aclInit still works: the runtime initialises itself on first use.
void ensure_initialized();

// The device memory block that contains [ptr, ptr + bytes), or false. Used by checked builds to
// verify that tensor addresses lie inside live allocations.
bool is_live_device_range(const void *ptr, size_t bytes);

}  // namespace opsnn::rt

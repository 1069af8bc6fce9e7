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

// The live device allocation (aclrtMalloc*) containing `ptr`: its start and the bytes a caller may
// touch from there. False for any other address (host memory, a freed block, nullptr).
bool find_device_allocation(const void *ptr, const void **base, size_t *bytes);

// OPSNN_CHECKED=1: the checked mode that names memory bugs (documented in README): device
// allocations are exactly the requested size, followed by a poisoned guard zone (AddressSanitizer
// builds report an access there) and never reused from a cache (ASan's quarantine reports a use
// after free); every launch checks each tensor against a live allocation, so host pointers and
// freed blocks are reported with the op. Read once per process.
bool checked_mode();
void set_checked_mode_for_testing(bool on);

// An observer of device memory being overwritten or released, told in stream order (when the copy,
// memset or launch runs). Layers above the runtime register one (the GEMM's registry of pre-packed
// weights forgets a weight written over); the runtime knows nothing of them. One observer; until
// one is set, every notification costs one atomic load.
struct MemoryObserver {
  void (*range_written)(const void *base, size_t bytes);  // aclrtMemcpy* / aclrtMemset* wrote these bytes
  // An op's output view was written: first element `base`, dims / strides in elements of `esize` bytes.
  void (*view_written)(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize);
  void (*freed)(const void *base, size_t bytes);  // a freed block returned to the allocator's cache
};
void set_memory_observer(const MemoryObserver *observer);
const MemoryObserver *memory_observer();

}  // namespace opsnn::rt

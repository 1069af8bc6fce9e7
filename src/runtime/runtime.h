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

// A queued item that needs no heap allocation: a function and the bytes it reads, copied into the
// stream's ring (so the bytes must be trivially relocatable: pointers, counts, plain values).
// `run` may be called several times (graph replay) or not at all (a stream destroyed with the
// item captured); `keep` (may be null) is called when the runtime stores the task for later (queue
// or capture, not an inline run): it takes the references a stored task needs; `drop` (may be
// null) releases what the bytes hold, exactly once, whichever way the task went.
struct Task {
  static constexpr size_t kBytes = 104;
  int (*run)(const Task &) = nullptr;
  void (*keep)(Task &) = nullptr;
  void (*drop)(Task &) = nullptr;
  alignas(8) unsigned char bytes[kBytes];
};

// Launch policy (OPSNN_LAUNCH_INLINE, read once; docs/ARCHITECTURE.md "Launch path"):
//   1 (default): a launch runs on the calling thread when its stream is idle (nothing queued or
//                running, not capturing) and either is the stream this thread pushed to last (a
//                thread alternating between streams gets large ops to run side by side) or is a
//                small launch (core::kSmallLaunchBytes: the hand-over to a worker would cost more
//                than the op) - stream order and event order are those of the queue;
//   0:           every launch is queued for the stream's worker thread.
bool inline_launch_enabled();
void set_inline_launch_for_testing(int mode);  // 0, 1, or -1 = back to the environment

// Appends `task` (ownership of its bytes passes to the stream, also on failure: then it is
// dropped). With the inline policy on and `rule` met, the calling thread runs it before returning
// instead; its failure is then reported like a queued one (at synchronisation).
enum class InlineRule {
  kNever,          // always queued (work that may block: event waits)
  kIfIdleAndLast,  // inline when the stream is idle and this thread pushed to it last
  kIfIdle,         // inline when the stream is idle (a small launch)
};
aclError enqueue_task(aclrtStream stream, Task &task, InlineRule rule);

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
// weights forgets a weight written over, the convolution's re-laid-out weights go stale); the
// runtime knows nothing of them. Up to kMaxMemoryObservers; until one is added, every notification
// costs one atomic load.
struct MemoryObserver {
  void (*range_written)(const void *base, size_t bytes);  // aclrtMemcpy* / aclrtMemset* wrote these bytes
  // An op's output view was written: first element `base`, dims / strides in elements of `esize` bytes.
  void (*view_written)(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize);
  void (*freed)(const void *base, size_t bytes);  // a freed block returned to the allocator's cache
};
constexpr int kMaxMemoryObservers = 4;
void add_memory_observer(const MemoryObserver *observer);  // idempotent
bool memory_observed();                                   // any observer added
// The bounding byte range [lo, hi) of a view (first element at `base`, dims / strides in elements
// of `esize` bytes; strides may be negative or zero); false for an empty view.
bool view_byte_range(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize,
                     uintptr_t *lo, uintptr_t *hi);
// Tells every observer that an op's output view was written (the executor, per launch).
void notify_view_written(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize);

}  // namespace opsnn::rt

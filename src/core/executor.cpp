#include "core/executor.h"

#include <cstring>
#include <mutex>
#include <new>
#include <unordered_set>

#include "common/error.h"
#include "common/thread_cache.h"
#include "core/api_boundary.h"
#include "core/dtype.h"
#include "core/handle_table.h"
#include "core/stream_wait_step.h"
#include "core/verbose.h"
#include "runtime/profiler.h"
#include "runtime/runtime.h"

namespace opsnn::core {
namespace {

// Live executors by handle (generation-tagged, core/handle_table.h): phase 2 and aclSet*TensorAddr
// reject a consumed or destroyed executor with a message instead of touching freed memory, even
// when a new executor sits at the old one's address.
HandleTable<aclOpExecutor> &registry() {
  static auto *t = new HandleTable<aclOpExecutor>;  // never destroyed: executors may be released during exit
  return *t;
}

// Everything a queued launch needs, captured at launch time, in the bytes of a runtime Task (no
// heap allocation): the executor - with a reference held for as long as a stored task exists
// (graph capture may replay it many times; an inline run needs none: it ends before the launch
// returns) -, the aligned workspace, and a snapshot of the slot addresses (inline up to
// kInlineSlots, else a heap array).
struct LaunchBytes {
  static constexpr size_t kInlineSlots = (rt::Task::kBytes - 3 * sizeof(void *)) / sizeof(void *);
  aclOpExecutor *ex;
  char *workspace;
  uint64_t flags;             // kKept once the runtime stored the task (it then holds a reference);
                              // kProfiled: the profiler was on at the launch (records the kernel run)
  void *addrs[kInlineSlots];  // or addrs[0] = the heap array (void **) of a larger executor
};
static_assert(sizeof(LaunchBytes) <= rt::Task::kBytes);
constexpr uint64_t kKept = 1, kProfiled = 2;

LaunchBytes &launch_bytes(rt::Task &t) { return *std::launder(reinterpret_cast<LaunchBytes *>(t.bytes)); }
const LaunchBytes &launch_bytes(const rt::Task &t) {
  return *std::launder(reinterpret_cast<const LaunchBytes *>(t.bytes));
}
bool heap_addrs(const aclOpExecutor &ex) { return ex.slots.size() > LaunchBytes::kInlineSlots; }

// Checked mode (OPSNN_CHECKED=1): every tensor lies in a live device allocation when it is
// launched: host memory and freed blocks are reported with the op, the slot and the address.
int check_slots_in_live_allocations(const char *api, const aclOpExecutor &ex) {
  for (size_t i = 0; i < ex.slots.size(); ++i) {
    const aclTensor &t = ex.slots[i];
    if (t.data == nullptr || t.numel() == 0) continue;
    const void *base = nullptr;
    size_t bytes = 0;
    if (!rt::find_device_allocation(t.data, &base, &bytes))
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: checked mode: tensor slot %zu (dims %s) at %p is not in a live device allocation (host memory, "
                  "or an aclrtMalloc block already freed)",
                  api, i, shape_string(t).c_str(), t.data);
    const int rc = api_call(api, [&] {
      check_view_within_allocation(t, ("tensor slot " + std::to_string(i)).c_str());
      return 0;
    });
    if (rc != 0) return rc;
  }
  return 0;
}

// Tells the runtime's memory observers which views the launch writes.
void notify_outputs_written(const aclOpExecutor &ex, const LaunchArgs &args) {
  for (int slot : ex.output_index) {
    if (slot < 0) continue;
    const aclTensor &t = ex.slots[static_cast<size_t>(slot)];
    const size_t es = dtype_size(t.dtype);
    rt::notify_view_written(view_base(args, slot, t, es), t.ndim, t.dims, t.strides, es);
  }
}

// Runs a launch task (on the stream's worker, on the launching thread, or in a graph replay).
int run_launch(const rt::Task &task) {
  const LaunchBytes &b = launch_bytes(task);
  const aclOpExecutor &ex = *b.ex;
  LaunchArgs args{heap_addrs(ex) ? static_cast<void *const *>(b.addrs[0]) : b.addrs, b.workspace, ex.workspace.offsets()};
  // The memory observers hear of the outputs before the steps run (e.g. an output written over
  // a pre-packed weight makes it plain data again, and aclnnTransMatmulWeight, whose output is
  // the weight, registers its new layout afterwards). An executor without steps writes nothing
  // (e.g. TransMatmulWeight left an INT8 or 3-D view as is).
  if (!ex.steps.empty())
    if (rt::memory_observed()) notify_outputs_written(ex, args);
  // Verbose mode (the exec line) or the profiler (the kernel event, decided at the launch).
  const bool profiled = (b.flags & kProfiled) != 0;
  const bool timed = profiled || (ex.trace && verbose_on());
  const long long t0 = timed ? verbose_now_ns() : 0;
  int status = 0;
  for (const auto &step : ex.steps) {
    status = step->run(args);
    if (status != 0) {  // the step's message, prefixed with the op's name
      set_last_error(status, std::string(ex.api) + ": " + last_error_message());
      break;
    }
  }
  if (timed) {
    const long long t1 = verbose_now_ns();
    if (profiled) {
      prof::Event e;
      e.cat = prof::Cat::kKernel;
      e.op = ex.api;  // (the trace's name: "<op> kernel")
      if (ex.trace) e.impl = std::shared_ptr<const std::string>(ex.trace, &ex.trace->impl);
      e.start_ns = t0;
      e.dur_ns = t1 - t0;
      e.status = status;
      prof::record(std::move(e));
    }
    if (status == 0 && ex.trace && verbose_on()) verbose_exec(ex, t1 - t0);
  }
  return status;
}

}  // namespace

void record_phase1(const aclOpExecutor &ex, int64_t start_ns, int status) {
  prof::Event e;
  e.cat = prof::Cat::kPhase1;
  e.op = ex.api;  // (the trace's name: "<op>GetWorkspaceSize")
  if (ex.trace) e.impl = std::shared_ptr<const std::string>(ex.trace, &ex.trace->impl);
  e.start_ns = start_ns;
  e.dur_ns = prof::now_ns() - start_ns;
  e.bytes = ex.workspace_size;
  e.status = status;
  prof::record(std::move(e));
}

void record_phase1_failure(const char *api, int64_t start_ns, int status) {
  prof::Event e;
  e.cat = prof::Cat::kPhase1;
  e.op = api;
  e.start_ns = start_ns;
  e.dur_ns = prof::now_ns() - start_ns;
  e.status = status;
  prof::record(std::move(e));
}

aclOpExecutor *register_executor(aclOpExecutor *ex) {
  return reinterpret_cast<aclOpExecutor *>(registry().insert(ex));
}

aclOpExecutor *resolve_executor(const aclOpExecutor *handle) {
  return registry().lookup(reinterpret_cast<uintptr_t>(handle));
}

bool retire_executor(const aclOpExecutor *handle) {
  aclOpExecutor *ex = registry().remove(reinterpret_cast<uintptr_t>(handle));
  if (ex == nullptr) return false;
  release_executor(ex);
  return true;
}

using ExecutorCache = ThreadCache<aclOpExecutor, 16>;

aclOpExecutor *new_executor() {
  if (aclOpExecutor *ex = rt::checked_mode() ? nullptr : ExecutorCache::take()) return ex;
  auto *ex = new aclOpExecutor;
  ex->slots.reserve(4);  // most ops: no reallocation while phase 1 registers tensors
  ex->input_index.reserve(4);
  ex->output_index.reserve(2);
  ex->steps.reserve(2);
  return ex;
}

void release_executor(aclOpExecutor *ex) {
  if (ex->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (rt::checked_mode()) {  // every executor freed: AddressSanitizer sees any use after its end
    delete ex;
    return;
  }
  // Back to the state of a new executor, whatever fields it has (destroyed and constructed
  // again), keeping only the memory of its vectors.
  auto slots = std::move(ex->slots);
  auto inputs = std::move(ex->input_index);
  auto outputs = std::move(ex->output_index);
  auto steps = std::move(ex->steps);
  slots.clear();
  inputs.clear();
  outputs.clear();
  steps.clear();
  ex->~aclOpExecutor();
  new (ex) aclOpExecutor;
  ex->slots = std::move(slots);
  ex->input_index = std::move(inputs);
  ex->output_index = std::move(outputs);
  ex->steps = std::move(steps);
  if (!ExecutorCache::give(ex)) delete ex;
}

bool is_small_launch(const aclOpExecutor &ex) {
  uint64_t bytes = ex.workspace_size;
  for (const aclTensor &t : ex.slots) {
    bytes += static_cast<uint64_t>(t.numel()) * dtype_size(t.dtype);
    if (bytes > kSmallLaunchBytes) return false;
  }
  return bytes <= kSmallLaunchBytes;
}

namespace {

int launch_executor_impl(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *handle,
                         aclrtStream stream, bool profiling);

}  // namespace

// The profiler (runtime/profiler.h): one relaxed load when off; the launch event spans the host
// side (checks, snapshot, enqueue, and the kernel run itself when the stream runs it inline).
int launch_executor(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *handle,
                    aclrtStream stream) {
  if (!prof::on()) return launch_executor_impl(api, workspace, workspace_size, handle, stream, false);
  const int64_t t0 = prof::now_ns();
  const int rc = launch_executor_impl(api, workspace, workspace_size, handle, stream, true);
  prof::record_span(prof::Cat::kLaunch, api, t0, workspace_size, nullptr, rc);
  return rc;
}

namespace {

int launch_executor_impl(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *handle,
                         aclrtStream stream, bool profiling) {
  if (handle == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is null", api);
  aclOpExecutor *ex = resolve_executor(handle);
  if (ex == nullptr)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: executor is not live (a single-use executor was already launched, or it was destroyed)", api);
  // An executor runs only through its own op's launch (a Mul executor given to aclnnAdd would run
  // silently otherwise).
  if (std::strcmp(ex->api, api) != 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: the executor was made by %sGetWorkspaceSize; launch it with %s", api,
                ex->api, ex->api);
  if (ex->workspace_size > 0 && workspace == nullptr)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspace is null but the executor needs %llu bytes", api,
                static_cast<unsigned long long>(ex->workspace_size));
  if (workspace_size < ex->workspace_size)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: workspaceSize is %llu, smaller than the %llu bytes planned", api,
                static_cast<unsigned long long>(workspace_size),
                static_cast<unsigned long long>(ex->workspace_size));

  for (size_t i = 0; i < ex->slots.size(); ++i) {
    const aclTensor &t = ex->slots[i];
    if (t.data == nullptr && t.numel() > 0)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor slot %zu (dims %s) has no device address", api, i,
                  shape_string(t).c_str());
  }
  if (rt::checked_mode())
    if (int rc = check_slots_in_live_allocations(api, *ex)) return rc;
  char *ws = static_cast<char *>(workspace);
  if (ex->workspace_size > 0)  // round up inside the kWorkspaceSlack spare bytes
    ws += (64 - reinterpret_cast<uintptr_t>(ws) % 64) % 64;
  rt::Task task;
  LaunchBytes &lb = *new (task.bytes) LaunchBytes{ex, ws, profiling ? kProfiled : 0, {}};
  void **addrs = lb.addrs;
  if (heap_addrs(*ex)) {
    addrs = new void *[ex->slots.size()];
    lb.addrs[0] = addrs;
  }
  // Only an empty tensor may have a null data pointer (checked above). Its data is never read or
  // written, but steps still compute its view's address (base + offset, a row's start), and
  // arithmetic on a null pointer is undefined: such a slot is bound to a dummy address instead
  // (found by tests/fuzz: an empty input with an offset feeding a reduction's non-empty output).
  alignas(64) static char empty_tensor_data[64];
  for (size_t i = 0; i < ex->slots.size(); ++i)
    addrs[i] = ex->slots[i].data != nullptr ? ex->slots[i].data : empty_tensor_data;
  task.run = &run_launch;
  task.keep = [](rt::Task &t) {
    LaunchBytes &b = launch_bytes(t);
    b.ex->refs.fetch_add(1, std::memory_order_relaxed);
    b.flags |= kKept;
  };
  task.drop = [](rt::Task &t) {
    LaunchBytes &b = launch_bytes(t);
    if (heap_addrs(*b.ex)) delete[] static_cast<void **>(b.addrs[0]);
    if (b.flags & kKept) release_executor(b.ex);
  };

  // An idle stream may run it right here (rt::enqueue_task, OPSNN_LAUNCH_INLINE).
  // A stream wait (aclnnSleep) is always queued: the stream waits, not the launching thread.
  const rt::InlineRule rule = ex->small && only_stream_waits(*ex) ? rt::InlineRule::kNever
                              : ex->small                          ? rt::InlineRule::kIfIdle
                                                                   : rt::InlineRule::kIfIdleAndLast;
  if (rt::enqueue_task(stream, task, rule) != ACL_SUCCESS) {
    // The queue refused the work (bad stream): nothing was consumed (the task, dropped with the
    // refused work, has returned its executor reference).
    std::string msg = last_error_message();
    return fail(ACLNN_ERR_RUNTIME_ERROR, "%s: launch failed: %s", api, msg.c_str());
  }
  if (!ex->repeatable) retire_executor(handle);  // single use: the launch consumes it
  return ACLNN_SUCCESS;
}

}  // namespace

bool only_stream_waits(const aclOpExecutor &ex) {
  for (const auto &s : ex.steps)
    if (dynamic_cast<const StreamWaitStep *>(s.get()) == nullptr) return false;
  return !ex.steps.empty();
}

}  // namespace opsnn::core

using namespace opsnn;
using namespace opsnn::core;

#define OPSNN_API extern "C" ACL_FUNC_VISIBILITY

OPSNN_API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  if (!executor) return fail(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
  aclOpExecutor *ex = resolve_executor(executor);
  if (!ex) return fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: executor is not live");
  ex->repeatable = true;
  return ACLNN_SUCCESS;
}

OPSNN_API aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
  if (!executor) return fail(ACLNN_ERR_INNER_NULLPTR, "aclDestroyAclOpExecutor: executor is null");
  if (!retire_executor(executor))
    return fail(ACLNN_ERR_PARAM_INVALID, "aclDestroyAclOpExecutor: executor is not live (already destroyed or consumed)");
  return ACLNN_SUCCESS;
}

namespace {

enum class IndexKind { kInput, kOutput, kAny };

// Re-points a slot once the view is known to fit the device allocation `addr` lies in (the check
// phase 1 made for the address it was given); a failed check leaves the old address.
aclnnStatus bind_slot(const char *api, aclOpExecutor *ex, size_t slot, void *addr) {
  return api_call(api, [&] {
    aclTensor t = ex->slots[slot];
    t.data = addr;
    const std::string what = "tensor slot " + std::to_string(slot) + " of " + std::string(ex->api);
    check_view_within_allocation(t, what.c_str());
    ex->slots[slot].data = addr;
    return ACLNN_SUCCESS;
  });
}

aclnnStatus set_addr(const char *api, aclOpExecutor *handle, size_t index, IndexKind kind, void *addr) {
  if (!handle) return fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is null", api);
  aclOpExecutor *ex = resolve_executor(handle);
  if (!ex) return fail(ACLNN_ERR_PARAM_INVALID, "%s: executor is not live", api);
  const size_t n_in = ex->input_index.size(), n_out = ex->output_index.size();
  int slot = -1;
  size_t limit = kind == IndexKind::kInput ? n_in : kind == IndexKind::kOutput ? n_out : n_in + n_out;
  if (index >= limit)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: index %zu is out of range; %s has %zu %s", api, index, ex->api,
                limit, kind == IndexKind::kInput ? "inputs" : kind == IndexKind::kOutput ? "outputs" : "tensors");
  if (kind == IndexKind::kInput) slot = ex->input_index[index];
  else if (kind == IndexKind::kOutput) slot = ex->output_index[index];
  else slot = index < n_in ? ex->input_index[index] : ex->output_index[index - n_in];
  if (slot < 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor %zu of %s was null in phase 1; it has no address to set", api,
                index, ex->api);
  return bind_slot(api, ex, static_cast<size_t>(slot), addr);
}

aclnnStatus set_dynamic_addr(const char *api, aclOpExecutor *handle, size_t ir_index, size_t relative, void *addr) {
  if (!handle) return fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is null", api);
  aclOpExecutor *ex = resolve_executor(handle);
  if (!ex) return fail(ACLNN_ERR_PARAM_INVALID, "%s: executor is not live", api);
  for (auto &[pos, slots] : ex->lists) {
    if (pos != ir_index) continue;
    if (relative >= slots.size())
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: relativeIndex %zu is out of range; the tensor list at irIndex %zu has %zu tensors",
                  api, relative, ir_index, slots.size());
    return bind_slot(api, ex, static_cast<size_t>(slots[relative]), addr);
  }
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: irIndex %zu is not a tensor-list parameter of %s", api, ir_index,
              ex->api);
}

}  // namespace

#define OPSNN_SET_ADDR(name, kind)                                                                  \
  OPSNN_API aclnnStatus name(aclOpExecutor *executor, const size_t index, aclTensor *, void *addr) { \
    return set_addr(#name, executor, index, kind, addr);                                            \
  }
#define OPSNN_SET_DYNAMIC_ADDR(name)                                                                     \
  OPSNN_API aclnnStatus name(aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex,          \
                             aclTensorList *, void *addr) {                                              \
    return set_dynamic_addr(#name, executor, irIndex, relativeIndex, addr);                              \
  }

// The tensor argument is deliberately not read: clients may pass a descriptor they already destroyed.
OPSNN_SET_ADDR(aclSetInputTensorAddr, IndexKind::kInput)
OPSNN_SET_ADDR(aclSetOutputTensorAddr, IndexKind::kOutput)
OPSNN_SET_ADDR(aclSetTensorAddr, IndexKind::kAny)
OPSNN_SET_ADDR(AclSetInputTensorAddr, IndexKind::kInput)
OPSNN_SET_ADDR(AclSetOutputTensorAddr, IndexKind::kOutput)
OPSNN_SET_ADDR(AclSetTensorAddr, IndexKind::kAny)
OPSNN_SET_DYNAMIC_ADDR(aclSetDynamicInputTensorAddr)
OPSNN_SET_DYNAMIC_ADDR(aclSetDynamicOutputTensorAddr)
OPSNN_SET_DYNAMIC_ADDR(aclSetDynamicTensorAddr)
OPSNN_SET_DYNAMIC_ADDR(AclSetDynamicInputTensorAddr)
OPSNN_SET_DYNAMIC_ADDR(AclSetDynamicOutputTensorAddr)
OPSNN_SET_DYNAMIC_ADDR(AclSetDynamicTensorAddr)

// The executor recorded by phase 1 and launched by phase 2.
//
// It owns deep copies of every tensor descriptor the op received (clients destroy theirs right
// after the call), a table of address slots that aclSet*TensorAddr re-points, the workspace size,
// and the list of steps (kernel calls with parameters fixed in phase 1). Phase 2 snapshots the slot
// addresses, so re-pointing a repeatable executor never affects launches already queued.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"
#include "core/workspace.h"

namespace opsnn::core {

struct Phase1Trace;  // core/verbose.h

// What a step sees at run time.
struct LaunchArgs {
  void *const *addrs;         // per slot: the tensor's data address (storage start, before its offset;
                              // never null: an empty tensor without data has a dummy address)
  char *workspace;            // the launch's workspace block, 64-byte aligned
  const uint64_t *ws_offsets;  // by workspace key (the executor's WorkspacePlan)
  // The address of a block booked in phase 1 (OpBuilder::book).
  char *get(WsKey k) const { return workspace + ws_offsets[k.id]; }
};

// A non-zero workspace size reported by phase 1 includes this many spare bytes, so phase 2 can
// round the client's pointer up to 64 bytes (a client may carve the workspace out of a larger block
// at any offset; the kernels' packing buffers want whole cache lines).
constexpr uint64_t kWorkspaceSlack = 64;

// One recorded kernel call. Run on a stream worker; must not allocate or validate.
class Step {
 public:
  virtual ~Step() = default;
  // Returns 0, or a status code after opsnn::set_last_error (reported at the next synchronisation).
  virtual int run(const LaunchArgs &args) const = 0;
};

// Where a step's operand is at run time: a registered tensor's slot, or a workspace block (slot
// -1, its key), plus the byte offset of the operand's first element (a view's offset).
struct OperandRef {
  int slot = -1;
  WsKey ws;
  int64_t offset_bytes = 0;
  static OperandRef of_slot(int s, const aclTensor &view) {
    return OperandRef{s, WsKey{}, view.offset * static_cast<int64_t>(dtype_size(view.dtype))};
  }
  char *address(const LaunchArgs &args) const {
    return (slot >= 0 ? static_cast<char *>(args.addrs[slot]) : args.get(ws)) + offset_bytes;
  }
};

// Address of the first element of a slot's view.
inline char *view_base(const LaunchArgs &args, int slot, const aclTensor &desc, size_t elem_size) {
  return static_cast<char *>(args.addrs[slot]) + desc.offset * static_cast<int64_t>(elem_size);
}

}  // namespace opsnn::core

struct aclOpExecutor {
  const char *api = "";                         // "aclnnAdd": the literal phase 1 was given (static storage)
  std::vector<aclTensor> slots;                 // deep copies; .data is the bound address
  std::vector<int> input_index;                 // flat input index  -> slot (-1: tensor was null)
  std::vector<int> output_index;                // flat output index -> slot (-1: tensor was null)
  std::vector<std::pair<size_t, std::vector<int>>> lists;  // prototype position -> slots of a tensor list
  std::vector<std::shared_ptr<opsnn::core::Step>> steps;  // shared with the plan cache's copy (immutable)
  opsnn::core::WorkspacePlan workspace;       // the blocks phase 1 booked, by key
  uint64_t workspace_size = 0;                  // what phase 1 reported (the plan, rounded, + slack)
  bool repeatable = false;
  // At most kSmallLaunchBytes of tensors and workspace (phase 1 sets it): handing such a launch
  // to a stream's worker costs more than running it, so it may run inline on any idle stream.
  bool small = false;
  // Every step is a wait the stream does (aclnnSleep; core/stream_wait_step.h, set by phase 1): the
  // launch is always queued for the stream's worker, never run inline on the launching thread.
  bool stream_wait = false;
  // False when the steps refer to the caller's objects (a descriptor rewritten at launch): the
  // plan is then tied to this call and the plan cache does not keep it.
  bool plan_cacheable = true;
  // Verbose mode only (core/verbose.h): the implementations phase 1 chose, for the exec lines.
  std::shared_ptr<opsnn::core::Phase1Trace> trace;
  std::atomic<int> refs{1};  // the owner's reference plus one per queued launch
};

namespace opsnn::core {

// Live-executor registry. Clients hold handles, not addresses: register_executor returns the
// generation-tagged handle phase 1 gives out (an opaque aclOpExecutor *, core/handle_table.h), and
// every API taking an executor resolves it first, so a consumed, destroyed or reused handle is
// rejected with a message instead of touching freed memory or another executor.
aclOpExecutor *register_executor(aclOpExecutor *ex);
aclOpExecutor *resolve_executor(const aclOpExecutor *handle);  // nullptr when not live
// Ends `handle` (launch of a single-use executor, or destroy) and drops the owner's reference.
// Returns false if it was not live.
bool retire_executor(const aclOpExecutor *handle);
// A new, empty executor (recycled from a per-thread cache when possible: release_executor).
aclOpExecutor *new_executor();
// Drops one reference; at zero the executor is reset and cached, or deleted.
void release_executor(aclOpExecutor *ex);

// The profiler's phase-1 events (core::phase1, op_builder.h): a successful phase 1 of `ex` begun
// at `start_ns`, or a failed one.
void record_phase1(const aclOpExecutor &ex, int64_t start_ns, int status);
void record_phase1_failure(const char *api, int64_t start_ns, int status);

// The bytes of an executor's tensors (every slot's extent) and workspace at most which its launch
// counts as small (aclOpExecutor::small; rt::enqueue_task's inline rule).
inline constexpr uint64_t kSmallLaunchBytes = 64 * 1024;
bool is_small_launch(const aclOpExecutor &ex);

// Phase 2 of every op.
int launch_executor(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *ex,
                    aclrtStream stream);

}  // namespace opsnn::core

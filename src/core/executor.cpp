#include "core/executor.h"

#include <cstring>
#include <mutex>
#include <unordered_set>

#include "common/error.h"
#include "core/api_boundary.h"
#include "core/dtype.h"
#include "core/verbose.h"
#include "kernels/matmul/gemm.h"
#include "runtime/runtime.h"

namespace opsnn::core {
namespace {

struct Registry {
  std::mutex mu;
  std::unordered_set<const aclOpExecutor *> live;
};
Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: executors may be released during exit
  return *r;
}

// Everything a queued launch needs, captured at launch time. It holds a reference to the executor
// for as long as the queued work exists, not just until it has run: graph capture may replay the
// same work many times.
struct LaunchRecord {
  LaunchRecord(aclOpExecutor *e, char *ws) : ex(e), workspace(ws) {}
  LaunchRecord(const LaunchRecord &) = delete;
  LaunchRecord &operator=(const LaunchRecord &) = delete;
  ~LaunchRecord() { release_executor(ex); }
  aclOpExecutor *ex;
  char *workspace;
  std::vector<void *> addrs;
};

void forget_prepacked_outputs(const aclOpExecutor &ex, const LaunchArgs &args) {
  for (int slot : ex.output_index) {
    if (slot < 0) continue;
    const aclTensor &t = ex.slots[static_cast<size_t>(slot)];
    const size_t es = dtype_size(t.dtype);
    kernels::gemm_prepacked_b_view_written(view_base(args, slot, t, es), t.ndim, t.dims, t.strides, es);
  }
}

}  // namespace

void register_executor(aclOpExecutor *ex) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.live.insert(ex);
}

bool executor_is_live(const aclOpExecutor *ex) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.live.count(ex) != 0;
}

bool retire_executor(aclOpExecutor *ex) {
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.live.erase(ex) == 0) return false;
  }
  release_executor(ex);
  return true;
}

void release_executor(aclOpExecutor *ex) {
  if (ex->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete ex;
}

int launch_executor(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *ex,
                    aclrtStream stream) {
  if (ex == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor is null", api);
  if (!executor_is_live(ex))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: executor is not live (a single-use executor was already launched, or it was destroyed)", api);
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
  ex->refs.fetch_add(1, std::memory_order_relaxed);
  char *ws = static_cast<char *>(workspace);
  if (ex->workspace_size > 0)  // round up inside the kWorkspaceSlack spare bytes
    ws += (64 - reinterpret_cast<uintptr_t>(ws) % 64) % 64;
  auto rec = std::make_shared<LaunchRecord>(ex, ws);
  rec->addrs.resize(ex->slots.size());
  for (size_t i = 0; i < ex->slots.size(); ++i) rec->addrs[i] = ex->slots[i].data;

  aclError rc = rt::enqueue(stream, [rec = std::move(rec)]() -> int {
    LaunchArgs args{rec->addrs.data(), rec->workspace};
    // Outputs written over a pre-packed weight make it plain data again; before the steps, so
    // aclnnTransMatmulWeight (whose output is the weight) registers its new layout afterwards. An
    // executor without steps writes nothing (e.g. TransMatmulWeight left an INT8 or 3-D view as is).
    if (!rec->ex->steps.empty() && kernels::gemm_prepacked_b_in_use()) forget_prepacked_outputs(*rec->ex, args);
    const long long t0 = rec->ex->trace ? verbose_now_ns() : 0;  // verbose mode: the exec line
    for (const auto &step : rec->ex->steps) {
      const int status = step->run(args);
      if (status != 0) {  // the step's message, prefixed with the op's name
        set_last_error(status, rec->ex->api + ": " + last_error_message());
        return status;
      }
    }
    if (rec->ex->trace) verbose_exec(*rec->ex, verbose_now_ns() - t0);
    return 0;
  });
  if (rc != ACL_SUCCESS) {
    // The queue refused the work (bad stream): nothing was consumed (the record, dropped with the
    // refused work, has returned its executor reference).
    std::string msg = last_error_message();
    return fail(ACLNN_ERR_RUNTIME_ERROR, "%s: launch failed: %s", api, msg.c_str());
  }
  if (!ex->repeatable) retire_executor(ex);  // single use: the launch consumes it
  return ACLNN_SUCCESS;
}

}  // namespace opsnn::core

using namespace opsnn;
using namespace opsnn::core;

#define OPSNN_API extern "C" ACL_FUNC_VISIBILITY

OPSNN_API aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
  if (!executor) return fail(ACLNN_ERR_INNER_NULLPTR, "aclSetAclOpExecutorRepeatable: executor is null");
  if (!executor_is_live(executor))
    return fail(ACLNN_ERR_PARAM_INVALID, "aclSetAclOpExecutorRepeatable: executor is not live");
  executor->repeatable = true;
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

aclnnStatus set_addr(const char *api, aclOpExecutor *ex, size_t index, IndexKind kind, void *addr) {
  if (!ex) return fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is null", api);
  if (!executor_is_live(ex)) return fail(ACLNN_ERR_PARAM_INVALID, "%s: executor is not live", api);
  const size_t n_in = ex->input_index.size(), n_out = ex->output_index.size();
  int slot = -1;
  size_t limit = kind == IndexKind::kInput ? n_in : kind == IndexKind::kOutput ? n_out : n_in + n_out;
  if (index >= limit)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: index %zu is out of range; %s has %zu %s", api, index, ex->api.c_str(),
                limit, kind == IndexKind::kInput ? "inputs" : kind == IndexKind::kOutput ? "outputs" : "tensors");
  if (kind == IndexKind::kInput) slot = ex->input_index[index];
  else if (kind == IndexKind::kOutput) slot = ex->output_index[index];
  else slot = index < n_in ? ex->input_index[index] : ex->output_index[index - n_in];
  if (slot < 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: tensor %zu of %s was null in phase 1; it has no address to set", api,
                index, ex->api.c_str());
  ex->slots[static_cast<size_t>(slot)].data = addr;
  return ACLNN_SUCCESS;
}

aclnnStatus set_dynamic_addr(const char *api, aclOpExecutor *ex, size_t ir_index, size_t relative, void *addr) {
  if (!ex) return fail(ACLNN_ERR_INNER_NULLPTR, "%s: executor is null", api);
  if (!executor_is_live(ex)) return fail(ACLNN_ERR_PARAM_INVALID, "%s: executor is not live", api);
  for (auto &[pos, slots] : ex->lists) {
    if (pos != ir_index) continue;
    if (relative >= slots.size())
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: relativeIndex %zu is out of range; the tensor list at irIndex %zu has %zu tensors",
                  api, relative, ir_index, slots.size());
    ex->slots[static_cast<size_t>(slots[relative])].data = addr;
    return ACLNN_SUCCESS;
  }
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: irIndex %zu is not a tensor-list parameter of %s", api, ir_index,
              ex->api.c_str());
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

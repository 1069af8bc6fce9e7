// The phase-1 skeleton shared by every op: check -> infer -> choose -> tile -> plan -> record.
//
// An op's GetWorkspaceSize is
//     return core::phase1("aclnnXxx", workspaceSize, executor, [&](core::OpBuilder &b) {
//       ... checks (throw via throw_error / helpers in op_checks.h) ...
//       int x = b.input("self", self); int y = b.output("out", out);
//       ... infer, choose kernels, book workspace ...
//       b.add_step<MyStep>(...);
//     });
// and its launch is OPSNN_DEFINE_LAUNCH(Xxx). Registration order of tensors must follow the
// phase-1 prototype (inputs first, then outputs): it defines the aclSet*TensorAddr indices.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "core/api_boundary.h"
#include "core/executor.h"
#include "core/op_checks.h"
#include "core/plan_cache.h"
#include "core/stream_wait_step.h"
#include "core/verbose.h"
#include "runtime/profiler.h"

namespace opsnn::core {

class OpBuilder {
 public:
  explicit OpBuilder(aclOpExecutor *ex) : ex_(ex) {}

  // Registers a tensor argument; returns its slot, or -1 for a null (optional) tensor.
  int input(const aclTensor *t) { return add(t, &ex_->input_index, kRead); }
  int output(const aclTensor *t) { return add(t, &ex_->output_index, kWrite); }
  // An in-place tensor (selfRef): input index and output index share one slot.
  int inout(const aclTensor *t) {
    int slot = add(t, &ex_->input_index, kRead | kWrite);
    ex_->output_index.push_back(slot);
    return slot;
  }
  // A tensor-list argument at prototype position `ir_index`; returns the slots of its elements.
  std::vector<int> input_list(size_t ir_index, const aclTensorList *l);
  // An output tensor list (aclnnSplitTensor's out) at output position `ir_index`; its elements'
  // slots (aclSetDynamicOutputTensorAddr addresses them).
  std::vector<int> output_list(size_t ir_index, const aclTensorList *l);
  // An in-place tensor list (aclnnScatterList's varRef): each element is read and written, its slot
  // in both the input and the output indices (like inout).
  std::vector<int> inout_list(size_t ir_index, const aclTensorList *l);

  // The executor's copy of a registered tensor.
  const aclTensor &tensor(int slot) const { return ex_->slots[static_cast<size_t>(slot)]; }

  // Books a named block of `bytes` of workspace (aligned to `align`); a step keeps the key and
  // reads the block's address in phase 2 with LaunchArgs::get(key).
  WsKey book(const char *name, uint64_t bytes, uint64_t align = 64) {
    const WsKey k = ex_->workspace.book(name, bytes, align);
    ex_->workspace_size = ex_->workspace.size();
    return k;
  }

  // The plan cache (core/plan_cache.h) must not reuse this plan: its steps keep a pointer to an
  // object of the caller (not a copy), or phase 1 checked memory beyond the registered views (an
  // extent the launch writes) against its allocation, which a cache hit does not repeat.
  void refers_to_caller_objects() { ex_->plan_cacheable = false; }
  void checks_memory_beyond_views() { ex_->plan_cacheable = false; }
  // ... or phase 1 read a value of the caller's tensor data that shaped the plan (a host-side
  // attribute passed as a tensor): the cache key holds shapes and attributes, not data.
  void depends_on_tensor_values() { ex_->plan_cacheable = false; }

  template <class S, class... Args>
  S &add_step(Args &&...args) {
    auto step = std::make_shared<S>(std::forward<Args>(args)...);
    S &ref = *step;
    ex_->steps.push_back(std::move(step));
    return ref;
  }

 private:
  enum : unsigned { kRead = 1, kWrite = 2 };

  template <class AddOne>
  std::vector<int> add_list(size_t ir_index, const aclTensorList *l, AddOne &&add_one);

  int add(const aclTensor *t, std::vector<int> *index, unsigned access) {
    if (t == nullptr) {
      index->push_back(-1);
      return -1;
    }
    // The view must fit its device allocation (the bound storageDims does not give, see
    // check_view_within_allocation); an address bound later is checked when it is set.
    const std::string what = (index == &ex_->input_index ? "input tensor " : "output tensor ") +
                             std::to_string(index->size());
    check_view_within_allocation(*t, what.c_str());
    check_no_partial_overlap(*t, access, what);
    ex_->slots.push_back(*t);
    access_.push_back(access);
    int slot = static_cast<int>(ex_->slots.size() - 1);
    index->push_back(slot);
    return slot;
  }

  // A tensor written by the op must not partially overlap one it reads (it would read elements
  // already written): 161002, as PyTorch refuses it. The exact same view (in place) is fine.
  void check_no_partial_overlap(const aclTensor &t, unsigned access, const std::string &what) const {
    for (size_t s = 0; s < ex_->slots.size(); ++s) {
      if (!((access & kWrite) && (access_[s] & kRead)) && !((access & kRead) && (access_[s] & kWrite))) continue;
      if (memory_overlap(t, ex_->slots[s]) == Overlap::kPartial)
        throw_error(ACLNN_ERR_PARAM_INVALID,
                    "%s (dims %s, strides %s, offset %lld) partially overlaps the memory of tensor slot %zu (dims %s, "
                    "strides %s, offset %lld), which the op %s; use separate memory or exactly the same view",
                    what.c_str(), shape_string(t).c_str(), shape_string(t.strides, t.ndim).c_str(),
                    static_cast<long long>(t.offset), s, shape_string(ex_->slots[s]).c_str(),
                    shape_string(ex_->slots[s].strides, ex_->slots[s].ndim).c_str(),
                    static_cast<long long>(ex_->slots[s].offset), (access & kWrite) ? "reads" : "writes");
    }
  }

  std::vector<unsigned> access_;  // per slot: kRead / kWrite

  aclOpExecutor *ex_;
};

template <class Body>
int phase1(const char *api, uint64_t *workspace_size, aclOpExecutor **executor, Body &&body) {
  // The profiler (runtime/profiler.h): one relaxed load when off.
  const bool profiling = prof::on();
  const int64_t t0 = profiling ? prof::now_ns() : 0;
  const int rc = api_call(api, [&] {
    require_not_null(workspace_size, "workspaceSize");
    require_not_null(executor, "executor");
    std::unique_ptr<aclOpExecutor> ex(new_executor());
    ex->api = api;
    OpBuilder builder(ex.get());
    Phase1Scope verbose(ex.get(), profiling);  // verbose mode / profiler: records the engines' choices
    body(builder);
    // Round the workspace so clients' allocators and our kernels see aligned tails, plus
    // kWorkspaceSlack bytes so the launch can align any client pointer (launch_executor).
    if (ex->workspace_size > 0) ex->workspace_size = (ex->workspace_size + 63) / 64 * 64 + kWorkspaceSlack;
    *workspace_size = ex->workspace_size;
    ex->small = is_small_launch(*ex);
    ex->stream_wait = only_stream_waits(*ex);
    verbose.done();
    if (profiling) record_phase1(*ex, t0, 0);
    *executor = register_executor(ex.release());  // the client gets a handle, not the address
    return ACLNN_SUCCESS;
  });
  if (profiling && rc != 0) record_phase1_failure(api, t0, rc);
  return rc;
}

// The generated entry points' form: `k` names the call and its arguments' key (core::keyed,
// plan_cache.h). A cached plan serves it; else phase 1 runs and a successful plan is kept.
template <class Body>
int phase1(const KeyedApi &k, uint64_t *workspace_size, aclOpExecutor **executor, Body &&body) {
  if (k.key == nullptr) return phase1(k.api, workspace_size, executor, std::forward<Body>(body));
  int rc = 0;
  if (plan_cache_serve(k, workspace_size, executor, &rc)) return rc;
  // The key's bytes are the thread's buffer, which a nested phase 1 could reuse: kept here.
  const std::string key = k.key->bytes();
  const uint64_t hash = k.key->hash();
  set_plan_cache_state("miss");
  rc = phase1(k.api, workspace_size, executor, std::forward<Body>(body));
  set_plan_cache_state("off");
  if (rc == 0) plan_cache_store(key, hash, *executor);
  return rc;
}

}  // namespace opsnn::core

// Phase 2 of op `Name`: aclnn<Name>(workspace, workspaceSize, executor, stream).
#define OPSNN_DEFINE_LAUNCH(Name)                                                                   \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize,  \
                                                          aclOpExecutor *executor, aclrtStream stream) { \
    return ::opsnn::core::launch_executor("aclnn" #Name, workspace, workspaceSize, executor, stream); \
  }

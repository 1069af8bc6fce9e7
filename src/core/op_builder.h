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
#include <utility>

#include "core/api_boundary.h"
#include "core/executor.h"
#include "core/verbose.h"

namespace opsnn::core {

class OpBuilder {
 public:
  explicit OpBuilder(aclOpExecutor *ex) : ex_(ex) {}

  // Registers a tensor argument; returns its slot, or -1 for a null (optional) tensor.
  int input(const aclTensor *t) { return add(t, &ex_->input_index); }
  int output(const aclTensor *t) { return add(t, &ex_->output_index); }
  // An in-place tensor (selfRef): input index and output index share one slot.
  int inout(const aclTensor *t) {
    int slot = add(t, &ex_->input_index);
    ex_->output_index.push_back(slot);
    return slot;
  }
  // A tensor-list argument at prototype position `ir_index`; returns the slots of its elements.
  std::vector<int> input_list(size_t ir_index, const aclTensorList *l);

  // The executor's copy of a registered tensor.
  const aclTensor &tensor(int slot) const { return ex_->slots[static_cast<size_t>(slot)]; }

  // Books `bytes` of workspace; returns the offset (aligned to `align`).
  uint64_t book_workspace(uint64_t bytes, uint64_t align = 64) {
    uint64_t off = (ex_->workspace_size + align - 1) / align * align;
    ex_->workspace_size = off + bytes;
    return off;
  }

  template <class S, class... Args>
  S &add_step(Args &&...args) {
    auto step = std::make_unique<S>(std::forward<Args>(args)...);
    S &ref = *step;
    ex_->steps.push_back(std::move(step));
    return ref;
  }

 private:
  int add(const aclTensor *t, std::vector<int> *index) {
    if (t == nullptr) {
      index->push_back(-1);
      return -1;
    }
    ex_->slots.push_back(*t);
    int slot = static_cast<int>(ex_->slots.size() - 1);
    index->push_back(slot);
    return slot;
  }

  aclOpExecutor *ex_;
};

template <class Body>
int phase1(const char *api, uint64_t *workspace_size, aclOpExecutor **executor, Body &&body) {
  return api_call(api, [&] {
    require_not_null(workspace_size, "workspaceSize");
    require_not_null(executor, "executor");
    auto ex = std::make_unique<aclOpExecutor>();
    ex->api = api;
    OpBuilder builder(ex.get());
    Phase1Scope verbose(ex.get());  // verbose mode: records the engines' choices, prints the line
    body(builder);
    // Round the workspace so clients' allocators and our kernels see aligned tails, plus
    // kWorkspaceSlack bytes so the launch can align any client pointer (launch_executor).
    if (ex->workspace_size > 0) ex->workspace_size = (ex->workspace_size + 63) / 64 * 64 + kWorkspaceSlack;
    *workspace_size = ex->workspace_size;
    verbose.done();
    *executor = ex.release();
    register_executor(*executor);
    return ACLNN_SUCCESS;
  });
}

}  // namespace opsnn::core

// Phase 2 of op `Name`: aclnn<Name>(workspace, workspaceSize, executor, stream).
#define OPSNN_DEFINE_LAUNCH(Name)                                                                   \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize,  \
                                                          aclOpExecutor *executor, aclrtStream stream) { \
    return ::opsnn::core::launch_executor("aclnn" #Name, workspace, workspaceSize, executor, stream); \
  }

/* OpsNN framework layer: the one path every computation takes (docs/ARCHITECTURE.md, "Framework
 * layer"). An OpCall builds the aclnn descriptors of its arguments (destroyed with it), runs the
 * op's phase 1, takes the workspace from the runtime's caching allocator (returned to it after
 * the launch, stream-ordered) and launches on the layer's stream. A failing phase 1 or launch
 * throws opsnn::Error carrying the status and aclGetRecentErrMsg(). C++17. */
#ifndef OPSNN_FRAMEWORK_CALL_H_
#define OPSNN_FRAMEWORK_CALL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "opsnn/tensor.h"

namespace opsnn {

/* A host scalar argument: its value and dtype (bool, int64 or double by default). */
struct Scalar {
  enum Kind { kBool, kInt, kDouble } kind = kDouble;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;
  static Scalar of(bool v) { Scalar s; s.kind = kBool; s.b = v; return s; }
  static Scalar of(int64_t v) { Scalar s; s.kind = kInt; s.i = v; return s; }
  static Scalar of(double v) { Scalar s; s.kind = kDouble; s.d = v; return s; }
  double as_double() const { return kind == kBool ? (b ? 1.0 : 0.0) : kind == kInt ? static_cast<double>(i) : d; }
};

/* The layer's stream (acl initialised, device 0 set and the stream created on first use). */
aclrtStream stream();
/* Wait for everything launched on the layer's stream; a failed launch is thrown here. Throws
 * during a graph capture (opsnn/graph.h): the captured work has not run. */
void synchronize();

/* Counters of the call path (reset_call_stats zeroes them; the cache's entries stay). */
struct CallStats {
  uint64_t calls = 0;            // aclnn calls made (launches)
  uint64_t workspace_bytes = 0;  // workspace bytes the launches used, summed
  uint64_t max_workspace = 0;    // largest single workspace
  uint64_t cache_hits = 0;       // launches of a cached executor (no phase 1)
  uint64_t cache_misses = 0;     // phase 1 runs of cacheable calls (the executor is then kept)
  uint64_t cache_uncached = 0;   // calls that bypassed the cache (disabled, uncovered families, unverified roles)
  uint64_t cache_entries = 0;    // executors kept
  uint64_t arena_bytes = 0;      // the workspace arena's block (the largest workspace so far)
  uint64_t arena_grows = 0;      // times the arena took a larger block (its only allocations)
};
CallStats call_stats();
void reset_call_stats();

/* The executor cache: a call whose full descriptor (api; every tensor's dtype, shape, strides,
 * offset, storage size and aliasing with the other arguments; every scalar / attribute value)
 * was seen before launches the kept repeatable executor after re-binding the tensor addresses
 * (aclSetInputTensorAddr / aclSetOutputTensorAddr), without phase 1. On by default;
 * OPSNN_EXECUTOR_CACHE=0 in the environment turns it off at start. */
void set_executor_cache(bool enabled);
bool executor_cache_enabled();
void clear_executor_cache();  // destroys the kept executors

class OpCall {
 public:
  /* roles: one letter per tensor or tensor-list parameter of the prototype, in order: 'i' read,
   * 'o' written, 'b' both (in place; a list's letter covers each of its elements); null: the call
   * is never cached. address_sensitive: a plan that may
   * depend on data addresses (the matmul family with pre-packed weights). */
  explicit OpCall(const char *api, const char *roles = nullptr, bool address_sensitive = false);
  ~OpCall();
  OpCall(const OpCall &) = delete;
  OpCall &operator=(const OpCall &) = delete;

  /* An argument in two halves, so a call the executor cache serves never builds descriptors:
   * arg() puts it into the cache key (in prototype order, like key()), desc() makes its descriptor
   * (owned by the call; nullptr for a null / undefined argument) when phase 1 runs. */
  void arg(const Tensor *t);
  void arg(const Scalar *s);
  void arg(const std::vector<int64_t> *v);
  void arg(const std::vector<bool> *v);
  void arg(const std::vector<Tensor> *v);
  aclTensor *desc(const Tensor *t);
  aclScalar *desc(const Scalar *s);
  aclIntArray *desc(const std::vector<int64_t> *v);
  aclBoolArray *desc(const std::vector<bool> *v);
  aclTensorList *desc(const std::vector<Tensor> *v);

  /* Both halves at once: the argument keyed and its descriptor made. */
  aclTensor *tensor(const Tensor *t);
  aclTensor *tensor(const Tensor &t) { return tensor(&t); }
  aclScalar *scalar(const Scalar *s);
  aclScalar *scalar(const Scalar &s) { return scalar(&s); }
  aclScalar *scalar_as(double v, aclDataType dtype);
  aclIntArray *int_array(const std::vector<int64_t> *v);
  aclIntArray *int_array(const std::vector<int64_t> &v) { return int_array(&v); }
  aclBoolArray *bool_array(const std::vector<bool> *v);
  aclTensorList *tensor_list(const std::vector<Tensor> *v);
  /* Attribute values (int / double / bool / dtype / string parameters): part of the cache key. */
  void key(int64_t v);
  void key(double v);
  void key(bool v);
  void key(const char *v);

  /* Phase 1 (fn(uint64_t *workspaceSize, aclOpExecutor **executor) -> status), workspace,
   * launch (launch(workspace, size, executor, stream) -> status). */
  template <class Phase1, class Launch>
  void run(Phase1 &&phase1, Launch launch) {
    uint64_t ws = 0;
    aclOpExecutor *ex = cache_find(&ws);  // a kept executor, addresses re-bound
    if (ex == nullptr) {
      check(static_cast<int>(phase1(&ws, &ex)), "GetWorkspaceSize");
      if (!cache_keep(ex, ws)) {  // the probe spoiled it: a fresh single-use executor
        check(static_cast<int>(phase1(&ws, &ex)), "GetWorkspaceSize");
      }
    }
    void *wp = acquire_workspace(ws);
    const int rc = static_cast<int>(launch(wp, ws, ex, stream()));
    release_workspace(wp);
    check(rc, "launch");
  }

  const std::string &api() const { return api_; }

 private:
  void check(int rc, const char *phase) const;
  void *acquire_workspace(uint64_t bytes);
  void release_workspace(void *p);
  aclOpExecutor *cache_find(uint64_t *ws);
  bool cache_keep(aclOpExecutor *ex, uint64_t ws);  // false: ex was destroyed, run phase 1 again
  void key_bytes(const void *p, size_t n) { key_.append(static_cast<const char *>(p), n); }
  void key_tensor(const Tensor &t);  // its descriptor and aliasing with the earlier tensors, into the key

  std::string api_;
  const char *roles_ = nullptr;
  bool address_sensitive_ = false;
  bool cacheable_ = false;
  bool ws_captured_ = false;    // the workspace came from a graph capture's pass
  int64_t ws_block_ = -1;       // its allocation number there
  std::string key_;
  // The tensors in prototype order, a list's elements one by one (null: an absent tensor), and per
  // tensor / list parameter how many of them it holds (a tensor 1, a list its length, 0 when null).
  std::vector<const Tensor *> args_;
  std::vector<size_t> spans_;
  std::vector<aclTensor *> tensors_;
  std::vector<aclScalar *> scalars_;
  std::vector<aclIntArray *> int_arrays_;
  std::vector<aclBoolArray *> bool_arrays_;
  std::vector<aclTensorList *> lists_;
};

}  // namespace opsnn

#endif /* OPSNN_FRAMEWORK_CALL_H_ */

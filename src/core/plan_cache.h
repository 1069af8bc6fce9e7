// The phase-1 plan cache (issue #13): a phase 1 repeated with the same descriptor is a hash lookup
// plus an executor instantiation instead of the checks, kernel choice, tiling and recording.
//
// The key is every argument of the call in prototype order, byte for byte: per tensor its dtype,
// format, dims, strides, offset, storage dims, data address and which earlier argument is the same
// aclTensor object; per scalar its dtype and value; arrays and lists element by element; strings
// by content; plain values by their bytes. Global state a phase 1 reads is in the key too: the
// plan epoch (bumped when the kernel environment or another planning input changes) and whether
// phase 1 traces (verbose mode, profiler). A hit must match the whole key, never the hash alone.
// Phase 1 never reads tensor data, so the descriptor decides the plan; the check that depends on
// what memory holds now (a view inside its device allocation) is repeated on every hit.
//
// Caches are per thread (no lock): OPSNN_PLAN_CACHE=N entries per thread (default 256, 4-way set
// associative, least recently used out), 0 turns it off; checked mode (OPSNN_CHECKED) turns it off
// unless a test sets the size.
// Cached plans share their steps (immutable after phase 1, but for caches keyed by the data they
// derive from, e.g. kernels::PackedWeight) with the executors made from them.
// Hand-written phase 1s (src/ops/catalog.txt) are not cached: only the generated entry points
// pass their arguments (core::keyed).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "aclnn/aclnn_base.h"

struct aclTensor;
struct aclScalar;
struct aclIntArray;
struct aclFloatArray;
struct aclBoolArray;
struct aclTensorList;
struct aclScalarList;
struct aclOpExecutor;

namespace opsnn::core {

// The bytes of one call's descriptor.
class PlanKey {
 public:
  void begin(const char *api);
  void add(const aclTensor *t);
  void add(const aclScalar *s);
  void add(const aclIntArray *a);
  void add(const aclFloatArray *a);
  void add(const aclBoolArray *a);
  void add(const aclTensorList *l);
  void add(const aclScalarList *l);
  void add(const char *s);
  // Plain values by their bytes; a non-const pointer as its const form (a pointer type without an
  // overload above does not compile: its key would be missing).
  template <class T, std::enable_if_t<std::is_arithmetic_v<T> || std::is_enum_v<T>, int> = 0>
  void add(const T &v) {
    raw(&v, sizeof v);
  }
  template <class T>
  void add(T *p) {
    add(static_cast<const T *>(p));
  }
  const std::string &bytes() const { return bytes_; }
  uint64_t hash() const;

 private:
  void raw(const void *p, size_t n) { bytes_.append(static_cast<const char *>(p), n); }
  std::string bytes_;
  std::vector<const void *> seen_;  // tensor objects met so far (the same object passed twice)
};

// A phase-1 call named with its key (key null: not cached).
struct KeyedApi {
  const char *api;
  const PlanKey *key;
};

bool plan_cache_on();
PlanKey &thread_plan_key();

// The generated entry points' first argument to core::phase1: the API and its arguments' key.
template <class... A>
KeyedApi keyed(const char *api, const A &...args) {
  if (!plan_cache_on()) return {api, nullptr};
  PlanKey &k = thread_plan_key();
  k.begin(api);
  (k.add(args), ...);
  return {api, &k};
}

// Serves the call from the cache: true with *rc set when a plan was found (a new executor made
// from it and registered, *workspace_size written), false when phase 1 must run.
bool plan_cache_serve(const KeyedApi &k, uint64_t *workspace_size, aclOpExecutor **executor, int *rc);
// After a successful phase 1 whose key was `key_bytes` (hash `hash`): keeps a copy of the plan.
void plan_cache_store(const std::string &key_bytes, uint64_t hash, const aclOpExecutor *handle);

// Anything a phase 1 reads besides its arguments changed (kernel environment, pre-packed weights
// in use): every cached plan is stale.
void bump_plan_epoch();

struct PlanCacheStats {
  uint64_t hits, misses;
};
PlanCacheStats plan_cache_stats();  // all threads, since the start
// Tests: entries per thread (0: off); -1 = back to OPSNN_PLAN_CACHE. Empties this thread's cache.
void set_plan_cache_for_testing(int entries);

// What core::phase1 tells the verbose line: "off", "miss" or "hit" (set around a keyed call).
const char *plan_cache_state();
void set_plan_cache_state(const char *s);

}  // namespace opsnn::core

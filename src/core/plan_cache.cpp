#include "core/plan_cache.h"

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "common/error.h"
#include "core/executor.h"
#include "core/tensor.h"
#include "core/verbose.h"
#include "runtime/profiler.h"
#include "runtime/runtime.h"

namespace opsnn::core {

namespace {

std::atomic<uint64_t> g_epoch{0};
std::atomic<uint64_t> g_hits{0}, g_misses{0};
std::atomic<int> g_entries_override{-1};
thread_local const char *t_state = "off";

int entries_from_env() {
  static const int n = [] {
    const char *v = std::getenv("OPSNN_PLAN_CACHE");
    if (v == nullptr || *v == '\0') return 256;
    const long x = std::strtol(v, nullptr, 10);
    return x <= 0 ? 0 : x > 65536 ? 65536 : static_cast<int>(x);
  }();
  return n;
}

int entries_wanted() {
  const int o = g_entries_override.load(std::memory_order_relaxed);
  return o >= 0 ? o : entries_from_env();
}

// Copies the plan (everything but the owner's flags and references) into `to`, whose vectors
// keep their memory.
void copy_plan(const aclOpExecutor &from, aclOpExecutor *to) {
  to->api = from.api;
  to->slots.assign(from.slots.begin(), from.slots.end());
  to->input_index.assign(from.input_index.begin(), from.input_index.end());
  to->output_index.assign(from.output_index.begin(), from.output_index.end());
  to->lists = from.lists;
  to->steps.assign(from.steps.begin(), from.steps.end());  // shared: steps are immutable
  to->workspace = from.workspace;
  to->workspace_size = from.workspace_size;
  to->small = from.small;
  to->stream_wait = from.stream_wait;
  to->plan_cacheable = from.plan_cacheable;
  to->trace = from.trace;
}

constexpr int kWays = 4;

struct Entry {
  uint64_t hash = 0;
  std::string key;
  aclOpExecutor *plan = nullptr;  // owned, never registered
  uint64_t used = 0;
};

// This thread's cache: sets of kWays entries, the least recently used one replaced.
struct ThreadCache {
  std::vector<Entry> entries;
  int capacity = -1;
  uint64_t clock = 0;

  ~ThreadCache() { clear(); }
  void clear() {
    for (Entry &e : entries) delete e.plan;
    entries.clear();
  }
  // False when the cache is off.
  bool ready() {
    const int want = entries_wanted();
    if (want != capacity) {
      clear();
      capacity = want;
      if (want > 0) entries.resize(static_cast<size_t>((want + kWays - 1) / kWays * kWays));
    }
    return capacity > 0;
  }
  Entry *set_of(uint64_t hash) {
    const size_t sets = entries.size() / kWays;
    return &entries[(hash % sets) * kWays];
  }
  Entry *find(const std::string &key, uint64_t hash) {
    Entry *set = set_of(hash);
    for (int w = 0; w < kWays; ++w)
      if (set[w].plan != nullptr && set[w].hash == hash && set[w].key == key) {
        set[w].used = ++clock;
        return &set[w];
      }
    return nullptr;
  }
  Entry *victim(uint64_t hash) {
    Entry *set = set_of(hash), *v = set;
    for (int w = 1; w < kWays; ++w)
      if (set[w].used < v->used) v = &set[w];
    return v;
  }
};

ThreadCache &thread_cache() {
  static thread_local ThreadCache c;
  return c;
}

}  // namespace

// Checked mode frees every executor at once for AddressSanitizer; cached plans would keep their
// steps alive, so the cache is off there unless a test sets it (set_plan_cache_for_testing).
bool plan_cache_on() {
  const int o = g_entries_override.load(std::memory_order_relaxed);
  return o >= 0 ? o > 0 : entries_from_env() > 0 && !rt::checked_mode();
}

PlanKey &thread_plan_key() {
  static thread_local PlanKey k;
  return k;
}

void PlanKey::begin(const char *api) {
  bytes_.clear();
  seen_.clear();  // keeps its memory: no allocation once warm
  add(api);
  const uint64_t epoch = g_epoch.load(std::memory_order_acquire);
  raw(&epoch, sizeof epoch);
  const bool tracing = verbose_on() || prof::on();
  raw(&tracing, sizeof tracing);
}

void PlanKey::add(const aclTensor *t) {
  // The same object passed twice (an in-place call through two parameters) is part of the key.
  int alias = -1;
  for (size_t i = 0; i < seen_.size() && alias < 0; ++i)
    if (seen_[i] == t) alias = static_cast<int>(i);
  if (alias < 0) seen_.push_back(t);
  raw(&alias, sizeof alias);
  const bool present = t != nullptr;
  raw(&present, sizeof present);
  if (!present) return;
  raw(&t->dtype, sizeof t->dtype);
  raw(&t->format, sizeof t->format);
  raw(&t->ndim, sizeof t->ndim);
  raw(t->dims, sizeof(int64_t) * static_cast<size_t>(t->ndim));
  raw(t->strides, sizeof(int64_t) * static_cast<size_t>(t->ndim));
  raw(&t->storage_ndim, sizeof t->storage_ndim);
  raw(t->storage_dims, sizeof(int64_t) * static_cast<size_t>(t->storage_ndim));
  raw(&t->offset, sizeof t->offset);
  raw(&t->data, sizeof t->data);
}

void PlanKey::add(const aclScalar *s) {
  const bool present = s != nullptr;
  raw(&present, sizeof present);
  if (!present) return;
  raw(&s->dtype, sizeof s->dtype);
  raw(s->bytes, sizeof s->bytes);
}

template <class V>
static void add_values(PlanKey *k, const V *a) {
  const int64_t n = a == nullptr ? -1 : static_cast<int64_t>(a->values.size());
  k->add(n);
  if (a != nullptr)
    for (auto v : a->values) k->add(v);
}

void PlanKey::add(const aclIntArray *a) { add_values(this, a); }
void PlanKey::add(const aclFloatArray *a) { add_values(this, a); }
void PlanKey::add(const aclBoolArray *a) { add_values(this, a); }

void PlanKey::add(const aclTensorList *l) {
  const int64_t n = l == nullptr ? -1 : static_cast<int64_t>(l->tensors.size());
  add(n);
  if (l != nullptr)
    for (const aclTensor *t : l->tensors) add(t);
}

void PlanKey::add(const aclScalarList *l) {
  const int64_t n = l == nullptr ? -1 : static_cast<int64_t>(l->scalars.size());
  add(n);
  if (l != nullptr)
    for (const aclScalar *s : l->scalars) add(s);
}

void PlanKey::add(const char *s) {
  const int64_t n = s == nullptr ? -1 : static_cast<int64_t>(std::strlen(s));
  add(n);
  if (s != nullptr) raw(s, static_cast<size_t>(n));
}

uint64_t PlanKey::hash() const {
  // 8 bytes at a time, multiply-xorshift mixing (the full key is compared on every hit).
  uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes_.size();
  const char *p = bytes_.data();
  size_t n = bytes_.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
  return h ^ (h >> 29);
}

bool plan_cache_serve(const KeyedApi &k, uint64_t *workspace_size, aclOpExecutor **executor, int *rc) {
  if (workspace_size == nullptr || executor == nullptr) return false;  // phase 1 reports it
  ThreadCache &c = thread_cache();
  if (!c.ready()) return false;
  const bool profiling = prof::on(), verbose = verbose_on();
  const int64_t t0 = profiling ? prof::now_ns() : 0;
  const long long v0 = verbose ? verbose_now_ns() : 0;
  const uint64_t hash = k.key->hash();
  Entry *e = c.find(k.key->bytes(), hash);
  if (e == nullptr) {
    g_misses.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  aclOpExecutor *ex = nullptr;
  try {
    ex = new_executor();
    copy_plan(*e->plan, ex);
    // What memory holds now: each view must still fit the device allocation its address lies in.
    for (const aclTensor &t : ex->slots)
      if (t.data != nullptr) check_view_within_allocation(t, "a tensor");
  } catch (...) {
    if (ex != nullptr) release_executor(ex);
    return false;  // phase 1 runs and reports the failure with the argument's name
  }
  g_hits.fetch_add(1, std::memory_order_relaxed);
  *workspace_size = ex->workspace_size;
  if (verbose) {
    set_plan_cache_state("hit");
    verbose_phase1_line(*ex, verbose_now_ns() - v0);
    set_plan_cache_state("off");
  }
  if (profiling) record_phase1(*ex, t0, 0);
  *executor = register_executor(ex);
  *rc = 0;
  return true;
}

void plan_cache_store(const std::string &key_bytes, uint64_t hash, const aclOpExecutor *handle) {
  ThreadCache &c = thread_cache();
  if (!c.ready()) return;
  const aclOpExecutor *ex = resolve_executor(handle);
  if (ex == nullptr || !ex->plan_cacheable) return;
  try {
    auto *plan = new aclOpExecutor;
    copy_plan(*ex, plan);
    Entry *v = c.victim(hash);
    delete v->plan;
    v->plan = plan;
    v->hash = hash;
    v->key = key_bytes;
    v->used = ++c.clock;
  } catch (const std::bad_alloc &) {
    // Not cached: the next call runs phase 1 again.
  }
}

void bump_plan_epoch() { g_epoch.fetch_add(1, std::memory_order_acq_rel); }

PlanCacheStats plan_cache_stats() {
  return {g_hits.load(std::memory_order_relaxed), g_misses.load(std::memory_order_relaxed)};
}

void set_plan_cache_for_testing(int entries) {
  g_entries_override.store(entries, std::memory_order_relaxed);
  thread_cache().clear();
  thread_cache().capacity = -1;
}

const char *plan_cache_state() { return t_state; }
void set_plan_cache_state(const char *s) { t_state = s; }

}  // namespace opsnn::core

// The framework's call path (include/opsnn/call.h): descriptors, phase 1, workspace, launch on the
// layer's stream. Only the public acl / aclnn API is used.
#include "opsnn/call.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "capture.h"

namespace opsnn {

namespace {

struct LayerStream {
  aclrtStream stream = nullptr;
  LayerStream() {
    const aclError init = aclInit(nullptr);
    if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE)
      throw Error(init, std::string("aclInit failed: ") + aclGetRecentErrMsg());
    aclError rc = aclrtSetDevice(0);
    if (rc != ACL_SUCCESS) throw Error(rc, std::string("aclrtSetDevice(0) failed: ") + aclGetRecentErrMsg());
    rc = aclrtCreateStream(&stream);
    if (rc != ACL_SUCCESS) throw Error(rc, std::string("aclrtCreateStream failed: ") + aclGetRecentErrMsg());
  }
  // Never destroyed: tensors may outlive static destruction order (Python's interpreter exit).
};

LayerStream &layer() {
  static LayerStream *s = new LayerStream();
  return *s;
}

std::atomic<uint64_t> g_calls{0}, g_ws_bytes{0}, g_ws_max{0}, g_hits{0}, g_misses{0}, g_uncached{0};

// The executor cache: full call descriptor -> a repeatable executor and its workspace size.
struct Cached {
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
};
constexpr size_t kMaxCached = 4096;  // beyond it the cache starts over (executors destroyed)
struct ExecutorCache {
  std::mutex mu;
  std::unordered_map<std::string, Cached> map;
  std::unordered_set<std::string> unverified;  // apis whose roles the probe refuted: never cached
  bool enabled = true;
  bool prepacked = false;  // aclnnTransMatmulWeight was called: matmul plans may depend on addresses
  ExecutorCache() {
    const char *e = std::getenv("OPSNN_EXECUTOR_CACHE");
    enabled = !(e && std::strcmp(e, "0") == 0);
  }
  void clear_locked() {
    for (auto &kv : map) aclDestroyAclOpExecutor(kv.second.ex);
    map.clear();
  }
};
ExecutorCache &cache() {
  static ExecutorCache *c = new ExecutorCache();  // never destroyed (see LayerStream)
  return *c;
}

// The workspace arena: every launch of the layer goes to its one stream, whose launches run in
// order, so they can all use one block, grown to the largest need so far (the outgrown block's
// aclrtFree is stream-ordered: the allocator reuses it only after the launches queued before).
// One host thread at a time holds it from acquire_workspace to release_workspace, i.e. around a
// launch, so no thread frees the block between another's acquire and its launch.
struct WorkspaceArena {
  std::mutex mu;
  void *block = nullptr;
  uint64_t bytes = 0, grows = 0;
};
WorkspaceArena &arena() {
  static WorkspaceArena *a = new WorkspaceArena();  // never destroyed (see LayerStream)
  return *a;
}

std::string recent_message() {
  const char *m = aclGetRecentErrMsg();
  return m ? std::string(m) : std::string();
}

}  // namespace

aclrtStream stream() { return layer().stream; }

void synchronize() {
  if (detail::capture_active())
    throw Error(ACL_ERROR_RT_STREAM_CAPTURED, "opsnn.graph: synchronize or a host read of a tensor inside a capture: the "
                "captured work has not run (read results after replay())");
  const aclError rc = aclrtSynchronizeStream(stream());
  if (rc != ACL_SUCCESS) throw Error(rc, "aclrtSynchronizeStream failed (a launch on the layer's stream failed): " + recent_message());
}

CallStats call_stats() {
  CallStats s;
  s.calls = g_calls.load();
  s.workspace_bytes = g_ws_bytes.load();
  s.max_workspace = g_ws_max.load();
  s.cache_hits = g_hits.load();
  s.cache_misses = g_misses.load();
  s.cache_uncached = g_uncached.load();
  {
    std::lock_guard<std::mutex> lock(arena().mu);
    s.arena_bytes = arena().bytes;
    s.arena_grows = arena().grows;
  }
  std::lock_guard<std::mutex> lock(cache().mu);
  s.cache_entries = cache().map.size();
  return s;
}

void reset_call_stats() {
  g_calls = 0;
  g_ws_bytes = 0;
  g_ws_max = 0;
  g_hits = 0;
  g_misses = 0;
  g_uncached = 0;
}

void set_executor_cache(bool enabled) {
  std::lock_guard<std::mutex> lock(cache().mu);
  cache().enabled = enabled;
  if (!enabled) cache().clear_locked();
}

bool executor_cache_enabled() {
  std::lock_guard<std::mutex> lock(cache().mu);
  return cache().enabled;
}

void clear_executor_cache() {
  // Destroying is safe with launches queued (each holds a reference to its executor).
  std::lock_guard<std::mutex> lock(cache().mu);
  cache().clear_locked();
}

OpCall::OpCall(const char *api, const char *roles, bool address_sensitive)
    : api_(api), roles_(roles), address_sensitive_(address_sensitive), cacheable_(roles != nullptr) {
  if (std::strcmp(api, "aclnnTransMatmulWeight") == 0) {
    std::lock_guard<std::mutex> lock(cache().mu);
    cache().prepacked = true;
  }
  key_ = api_;
  key_.push_back('\0');
}

void OpCall::key(int64_t v) {
  key_.push_back('I');
  key_bytes(&v, sizeof v);
}
void OpCall::key(double v) {
  key_.push_back('D');
  key_bytes(&v, sizeof v);
}
void OpCall::key(bool v) {
  key_.push_back(v ? 'y' : 'n');
}
void OpCall::key(const char *v) {
  key_.push_back('C');
  if (v) key_.append(v);
  key_.push_back('\0');
}

OpCall::~OpCall() {
  for (aclTensor *t : tensors_) aclDestroyTensor(t);
  for (aclScalar *s : scalars_) aclDestroyScalar(s);
  for (aclIntArray *a : int_arrays_) aclDestroyIntArray(a);
  for (aclBoolArray *a : bool_arrays_) aclDestroyBoolArray(a);
  for (aclTensorList *l : lists_) aclDestroyTensorList(l);  // owns its tensors
}

static aclTensor *make_descriptor(const Tensor &t) {
  const int64_t storage = t.storage_numel();
  aclTensor *d = aclCreateTensor(t.shape().data(), t.shape().size(), t.dtype(), t.strides().data(), t.offset(),
                                 ACL_FORMAT_ND, &storage, 1, t.storage()->data());
  if (!d) throw Error(161001, "aclCreateTensor failed: " + recent_message());
  return d;
}

void OpCall::arg(const Tensor *t) {
  spans_.push_back(1);
  if (t == nullptr || !t->defined()) {
    args_.push_back(nullptr);
    key_.push_back('N');
    return;
  }
  detail::capture_check_argument(t->storage()->capture_pass());
  key_tensor(*t);
  args_.push_back(t);
}

aclTensor *OpCall::desc(const Tensor *t) {
  if (t == nullptr || !t->defined()) return nullptr;
  aclTensor *d = make_descriptor(*t);
  tensors_.push_back(d);
  return d;
}

aclTensor *OpCall::tensor(const Tensor *t) {
  arg(t);
  return desc(t);
}

// dtype, rank, shape, strides, offset, storage size, and the aliasing with earlier arguments
// (the index of the first one on the same storage and the offset between them: phase 1 plans
// in-place and overlapping cases differently).
void OpCall::key_tensor(const Tensor &tr) {
  const Tensor *t = &tr;
  key_.push_back('T');
  const int32_t dt = static_cast<int32_t>(t->dtype());
  const int64_t rank = t->dim(), off = t->offset(), st = t->storage_numel();
  key_bytes(&dt, sizeof dt);
  key_bytes(&rank, sizeof rank);
  key_bytes(t->shape().data(), sizeof(int64_t) * t->shape().size());
  key_bytes(t->strides().data(), sizeof(int64_t) * t->strides().size());
  key_bytes(&off, sizeof off);
  key_bytes(&st, sizeof st);
  int64_t alias = -1, delta = 0;
  for (size_t j = 0; j < args_.size(); ++j) {
    if (args_[j] && args_[j]->storage() == t->storage()) {
      alias = static_cast<int64_t>(j);
      delta = off - args_[j]->offset();
      break;
    }
  }
  key_bytes(&alias, sizeof alias);
  key_bytes(&delta, sizeof delta);
}

void OpCall::arg(const Scalar *s) {
  if (s == nullptr) {
    key_.push_back('n');
    return;
  }
  key_.push_back('S');
  key_.push_back(static_cast<char>(s->kind));
  if (s->kind == Scalar::kBool) key_.push_back(s->b ? 1 : 0);
  else if (s->kind == Scalar::kInt) key_bytes(&s->i, sizeof s->i);
  else key_bytes(&s->d, sizeof s->d);
}

aclScalar *OpCall::scalar(const Scalar *s) {
  arg(s);
  return desc(s);
}

aclScalar *OpCall::desc(const Scalar *s) {
  if (s == nullptr) return nullptr;
  aclScalar *r = nullptr;
  bool b = s->b;
  int64_t i = s->i;
  double d = s->d;
  switch (s->kind) {
    case Scalar::kBool: r = aclCreateScalar(&b, ACL_BOOL); break;
    case Scalar::kInt: r = aclCreateScalar(&i, ACL_INT64); break;
    case Scalar::kDouble: r = aclCreateScalar(&d, ACL_DOUBLE); break;
  }
  if (!r) throw Error(161001, "aclCreateScalar failed: " + recent_message());
  scalars_.push_back(r);
  return r;
}

aclScalar *OpCall::scalar_as(double v, aclDataType dtype) {
  Scalar s;
  if (dtype == ACL_BOOL) s = Scalar::of(v != 0.0);
  else if (dtype == ACL_INT64) s = Scalar::of(static_cast<int64_t>(v));
  else s = Scalar::of(v);
  return scalar(&s);
}

void OpCall::arg(const std::vector<int64_t> *v) {
  if (v == nullptr) {
    key_.push_back('n');
    return;
  }
  key_.push_back('A');
  const uint64_t n = v->size();
  key_bytes(&n, sizeof n);
  key_bytes(v->data(), sizeof(int64_t) * v->size());
}

aclIntArray *OpCall::int_array(const std::vector<int64_t> *v) {
  arg(v);
  return desc(v);
}

aclIntArray *OpCall::desc(const std::vector<int64_t> *v) {
  if (v == nullptr) return nullptr;
  aclIntArray *a = aclCreateIntArray(v->data(), v->size());
  if (!a) throw Error(161001, "aclCreateIntArray failed: " + recent_message());
  int_arrays_.push_back(a);
  return a;
}

void OpCall::arg(const std::vector<bool> *v) {
  if (v == nullptr) {
    key_.push_back('n');
    return;
  }
  key_.push_back('B');
  for (bool b : *v) key_.push_back(b ? 1 : 0);
  key_.push_back('.');
}

aclBoolArray *OpCall::bool_array(const std::vector<bool> *v) {
  arg(v);
  return desc(v);
}

aclBoolArray *OpCall::desc(const std::vector<bool> *v) {
  if (v == nullptr) return nullptr;
  std::unique_ptr<bool[]> tmp(new bool[v->size() + 1]);
  for (size_t i = 0; i < v->size(); ++i) tmp[i] = (*v)[i];
  aclBoolArray *a = aclCreateBoolArray(tmp.get(), v->size());
  if (!a) throw Error(161001, "aclCreateBoolArray failed: " + recent_message());
  bool_arrays_.push_back(a);
  return a;
}

void OpCall::arg(const std::vector<Tensor> *v) {
  // Keyed like tensors, element by element; re-bound through the flat input / output indices, in
  // which a list's elements count one by one (an undefined element makes the call uncached).
  spans_.push_back(v == nullptr ? 0 : v->size());
  if (v == nullptr) {
    key_.push_back('n');
    return;
  }
  key_.push_back('L');
  const uint64_t n = v->size();
  key_bytes(&n, sizeof n);
  for (const Tensor &t : *v) {
    if (!t.defined()) cacheable_ = false;
    else key_tensor(t);
    if (t.defined()) detail::capture_check_argument(t.storage()->capture_pass());
    args_.push_back(t.defined() ? &t : nullptr);
  }
}

aclTensorList *OpCall::tensor_list(const std::vector<Tensor> *v) {
  arg(v);
  return desc(v);
}

aclTensorList *OpCall::desc(const std::vector<Tensor> *v) {
  if (v == nullptr) return nullptr;
  std::vector<aclTensor *> ds;
  try {
    for (const Tensor &t : *v) ds.push_back(make_descriptor(t));
  } catch (...) {
    for (aclTensor *d : ds) aclDestroyTensor(d);
    throw;
  }
  aclTensorList *l = aclCreateTensorList(ds.data(), ds.size());
  if (!l) {
    for (aclTensor *d : ds) aclDestroyTensor(d);
    throw Error(161001, "aclCreateTensorList failed: " + recent_message());
  }
  lists_.push_back(l);
  return l;
}

void OpCall::check(int rc, const char *phase) const {
  if (rc == 0) return;
  std::string msg = recent_message();
  if (msg.empty()) msg = "(no message)";
  throw Error(rc, api_ + " (" + phase + ") failed with status " + std::to_string(rc) + ": " + msg);
}

void *OpCall::acquire_workspace(uint64_t bytes) {
  ++g_calls;
  void *captured = nullptr;
  ws_captured_ = detail::capture_workspace(bytes, &captured, &ws_block_);
  if (ws_captured_) return captured;  // the capture's own or planned memory, not the arena
  if (bytes == 0) return nullptr;
  g_ws_bytes += bytes;
  uint64_t prev = g_ws_max.load();
  while (prev < bytes && !g_ws_max.compare_exchange_weak(prev, bytes)) {
  }
  WorkspaceArena &a = arena();
  a.mu.lock();  // released by release_workspace, after the launch
  if (bytes > a.bytes) {
    // Grow by at least half, so a run of slowly growing needs takes few blocks.
    const uint64_t want = std::max(bytes, a.bytes + a.bytes / 2);
    void *p = nullptr;
    const aclError rc = aclrtMalloc(&p, want, ACL_MEM_MALLOC_HUGE_FIRST);
    if (rc != ACL_SUCCESS) {
      a.mu.unlock();
      throw Error(rc, api_ + ": workspace aclrtMalloc(" + std::to_string(want) + ") failed: " + recent_message());
    }
    if (a.block != nullptr) aclrtFree(a.block);  // stream-ordered
    a.block = p;
    a.bytes = want;
    ++a.grows;
  }
  return a.block;
}

// Re-point a kept executor's tensors at this call's addresses: the roles give each tensor's
// input / output index (phase 1 registers them in prototype order; an in-place operand is in both
// lists; a null optional tensor still takes its index).
static bool bind_all(aclOpExecutor *ex, const char *roles, const std::vector<size_t> &spans,
                     const std::vector<const Tensor *> &args) {
  size_t in = 0, out = 0;
  for (size_t k = 0, p = 0; p < spans.size(); ++p)
    for (size_t e = 0; e < spans[p]; ++e, ++k) {
      const char r = roles[p];
      const Tensor *t = args[k];
      void *addr = t ? t->storage()->data() : nullptr;
      if (r == 'i' || r == 'b') {
        if (t && aclSetInputTensorAddr(ex, in, nullptr, addr) != 0) return false;
        ++in;
      }
      if (r == 'o' || r == 'b') {
        if (t && aclSetOutputTensorAddr(ex, out, nullptr, addr) != 0) return false;
        ++out;
      }
    }
  return true;
}

aclOpExecutor *OpCall::cache_find(uint64_t *ws) {
  ExecutorCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if (!cacheable_ || !c.enabled || std::strlen(roles_) != spans_.size() || c.unverified.count(api_) ||
      (address_sensitive_ && c.prepacked)) {
    cacheable_ = false;
    ++g_uncached;
    return nullptr;
  }
  auto it = c.map.find(key_);
  if (it == c.map.end()) return nullptr;
  if (!bind_all(it->second.ex, roles_, spans_, args_)) {  // cannot happen for an equal descriptor; be safe
    aclDestroyAclOpExecutor(it->second.ex);
    c.map.erase(it);
    return nullptr;
  }
  ++g_hits;
  *ws = it->second.ws;
  return it->second.ex;
}

bool OpCall::cache_keep(aclOpExecutor *ex, uint64_t ws) {
  if (!cacheable_) return true;
  ExecutorCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  // Check the roles against the executor: exactly n_in inputs and n_out outputs (an index one
  // past the end is refused; the last one takes the argument's own address).
  size_t n_in = 0, n_out = 0;
  const Tensor *last_in = nullptr, *last_out = nullptr;
  bool last_in_set = false, last_out_set = false;
  for (size_t k = 0, p = 0; p < spans_.size(); ++p)
    for (size_t e = 0; e < spans_[p]; ++e, ++k) {
      if (roles_[p] == 'i' || roles_[p] == 'b') ++n_in, last_in = args_[k], last_in_set = true;
      if (roles_[p] == 'o' || roles_[p] == 'b') ++n_out, last_out = args_[k], last_out_set = true;
    }
  void *probe = args_.empty() || !args_[0] ? nullptr : args_[0]->storage()->data();
  const bool past_in = aclSetInputTensorAddr(ex, n_in, nullptr, probe) != 0;
  const bool past_out = aclSetOutputTensorAddr(ex, n_out, nullptr, probe) != 0;
  if (!past_in || !past_out) {
    // More tensors than the roles say, and the probe may have re-pointed one: start over.
    c.unverified.insert(api_);
    aclDestroyAclOpExecutor(ex);
    ++g_uncached;
    return false;
  }
  bool ok = true;
  if (last_in_set && last_in && aclSetInputTensorAddr(ex, n_in - 1, nullptr, last_in->storage()->data()) != 0) ok = false;
  if (last_out_set && last_out && aclSetOutputTensorAddr(ex, n_out - 1, nullptr, last_out->storage()->data()) != 0)
    ok = false;
  if (!ok) {  // fewer tensors than the roles say (a refused bind changes nothing): not cached
    c.unverified.insert(api_);
    ++g_uncached;
    return true;
  }
  if (aclSetAclOpExecutorRepeatable(ex) != 0) {
    ++g_uncached;
    return true;
  }
  if (c.map.size() >= kMaxCached) c.clear_locked();
  c.map[key_] = Cached{ex, ws};
  ++g_misses;
  return true;
}

void OpCall::release_workspace(void *p) {
  if (ws_captured_) return detail::capture_workspace_done(p, ws_block_);
  if (p) arena().mu.unlock();  // (a null workspace took no arena)
}

}  // namespace opsnn

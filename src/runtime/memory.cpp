// Device memory: a caching pool per device with capacity accounting and deferred release, plus
// host memory, memcpy/memset and the (unsupported) virtual-memory family.
//
// Size classes: requests (after the API's padding) up to 1 MiB round up to 512 B, larger ones to
// 2 MiB. A freed block goes to its device's bin of that exact class (LIFO), so steady-state
// Malloc/Free reuse blocks without system calls. Accounting per device:
//   in_use = class bytes of live allocations + freed blocks still awaiting queued work
//   cached = class bytes in the bins (counted as free by aclrtGetMemInfo)
// A new system allocation is allowed while in_use + cached + size <= capacity; otherwise the
// cache is released first, and the request fails with ACL_ERROR_RT_MEMORY_ALLOCATION when
// in_use + size still exceeds the capacity.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <cstring>
#include <map>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <unordered_set>

#include "common/error.h"
#include "common/log.h"
#include "runtime/profiler.h"
#include "runtime/runtime_impl.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define OPSNN_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define OPSNN_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define OPSNN_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define OPSNN_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef OPSNN_POISON
#define OPSNN_POISON(p, n) ((void)(p), (void)(n))
#define OPSNN_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace opsnn::rt {
namespace {

constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kSmallQuantum = 512;
constexpr size_t kLargeQuantum = size_t{2} << 20;

struct Block {
  void *ptr = nullptr;
  size_t class_bytes = 0;   // what the pool accounts and reuses
  size_t usable_bytes = 0;  // what the caller may touch (request + API padding)
  int device = 0;
};

struct StreamMark {
  uint64_t stream_id;
  uint64_t seq;  // the stream's enqueue count at the time of the free
};

struct PendingFree {
  Block block;
  std::vector<StreamMark> marks;
};

struct DeviceMem {
  size_t in_use = 0;
  size_t cached = 0;
  std::unordered_map<size_t, std::vector<void *>> bins;
  std::vector<PendingFree> pending;
};

struct MemState {
  std::mutex mu;
  std::map<uintptr_t, Block> live;  // ordered: range lookups for is_live_device_range
  DeviceMem dev[kMaxDevices];
  std::unordered_map<void *, size_t> host;  // aclrtMallocHost blocks
  std::atomic<size_t> pending_frees{0};      // deferred frees of every device (read without mu)
  std::atomic<uint64_t> free_epoch{0};       // aclrtFree calls so far (find_device_allocation)
};

MemState &mem() {
  static MemState *m = new MemState;  // leaked with the runtime
  return *m;
}

size_t round_up(size_t v, size_t q) { return (v + q - 1) / q * q; }

std::atomic<int> g_checked{-1};  // -1: not read yet

// Checked mode: the poisoned bytes after every allocation.
constexpr size_t kGuardBytes = 512;

size_t class_of(size_t bytes) {
  return bytes <= kSmallLimit ? round_up(bytes, kSmallQuantum) : round_up(bytes, kLargeQuantum);
}

// Clients' allocators carve device blocks assuming at least 128-byte alignment (one aborts
// otherwise); the vendor's allocations are 512-byte aligned, and so are ours (small classes are
// multiples of 512, as aligned_alloc requires).
constexpr size_t kDeviceAlignment = 512;
// Large blocks (multiples of 2 MB) start on a 2 MB boundary and ask the kernel for transparent
// huge pages (ACL_MEM_MALLOC_HUGE_FIRST, the policy clients pass): strided kernels over large
// tensors (permutes, column reductions, GEMM panels) otherwise pay a TLB miss per 4 KB page.
size_t alignment_of(size_t class_bytes) { return class_bytes >= kLargeQuantum ? kLargeQuantum : kDeviceAlignment; }
void advise_huge_pages(void *p, size_t class_bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (class_bytes >= kLargeQuantum) (void)madvise(p, class_bytes, MADV_HUGEPAGE);  // advice only
#else
  (void)p;
  (void)class_bytes;
#endif
}

void system_free(void *p, size_t class_bytes) {
  OPSNN_UNPOISON(p, class_bytes);
  std::free(p);
}

// The observers, filled in order and never removed (a slot is written once).
std::atomic<const MemoryObserver *> g_observers[kMaxMemoryObservers] = {};
std::mutex g_observers_mu;  // serialises add_memory_observer

template <class Fn>
void for_each_observer(Fn fn) {
  for (const auto &slot : g_observers) {
    const MemoryObserver *o = slot.load(std::memory_order_acquire);
    if (o == nullptr) return;
    fn(*o);
  }
}

void notify_written(const void *base, size_t bytes) {
  for_each_observer([&](const MemoryObserver &o) { o.range_written(base, bytes); });
}

void to_cache_locked(MemState &m, const Block &b) {
  // Observers learn of the release only now: work queued before aclrtFree may still read the block.
  for_each_observer([&](const MemoryObserver &o) { o.freed(b.ptr, b.usable_bytes); });
  DeviceMem &d = m.dev[b.device];
  d.in_use -= b.class_bytes;
  if (checked_mode()) {  // straight back to the system: ASan's quarantine reports later uses
    system_free(b.ptr, b.class_bytes);
    return;
  }
  d.cached += b.class_bytes;
  OPSNN_POISON(b.ptr, b.class_bytes);
  d.bins[b.class_bytes].push_back(b.ptr);
}

void release_cached_locked(MemState &m, int device) {
  for (int i = 0; i < kMaxDevices; ++i) {
    if (device >= 0 && i != device) continue;
    DeviceMem &d = m.dev[i];
    for (auto &kv : d.bins)
      for (void *p : kv.second) system_free(p, kv.first);
    d.bins.clear();
    d.cached = 0;
  }
}

// Marks of every stream (of every device: a stream of another device may have been given this
// memory) that has queued work not yet completed.
std::vector<StreamMark> busy_stream_marks() {
  std::vector<StreamMark> marks;
  Runtime &r = runtime();
  const int n = r.device_count.load();
  for (int i = 0; i < n; ++i) {
    Device &d = r.devices[i];
    std::lock_guard<std::mutex> lk(d.mu);
    for (Stream *s : d.streams) {
      const uint64_t e = s->enqueued.load();
      if (s->completed.load() < e) marks.push_back({s->id, e});
    }
  }
  return marks;
}

void collect_deferred_locked(MemState &m) {
  bool any = false;
  for (auto &d : m.dev)
    if (!d.pending.empty()) {
      any = true;
      break;
    }
  if (!any) return;
  // Progress of every live stream by id; a stream that no longer exists has drained.
  std::unordered_map<uint64_t, uint64_t> progress;
  Runtime &r = runtime();
  for (int i = 0; i < kMaxDevices; ++i) {
    Device &d = r.devices[i];
    std::lock_guard<std::mutex> lk(d.mu);
    for (Stream *s : d.streams) progress[s->id] = s->completed.load();
  }
  for (auto &d : m.dev) {
    for (size_t i = 0; i < d.pending.size();) {
      PendingFree &p = d.pending[i];
      bool done = std::all_of(p.marks.begin(), p.marks.end(), [&](const StreamMark &mk) {
        auto it = progress.find(mk.stream_id);
        return it == progress.end() || it->second >= mk.seq;
      });
      if (done) {
        to_cache_locked(m, p.block);
        d.pending[i] = std::move(d.pending.back());
        d.pending.pop_back();
        m.pending_frees.fetch_sub(1, std::memory_order_relaxed);
      } else {
        ++i;
      }
    }
  }
}

bool valid_policy(uint32_t policy) {
  const uint32_t kFlags = ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;
  return (policy & ~kFlags) <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
}

aclError device_malloc(void **devPtr, size_t size, uint32_t policy, int device, size_t padding, const char *api) {
  if (!devPtr) return fail(ACL_ERROR_INVALID_PARAM, "%s: devPtr is null", api);
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "%s: size is 0", api);
  if (!valid_policy(policy)) return fail(ACL_ERROR_INVALID_PARAM, "%s: policy 0x%x is invalid", api, policy);
  ensure_initialized();
  Runtime &r = runtime();
  if (!valid_device(device))
    return fail(ACL_ERROR_RT_INVALID_DEVICEID, "%s: device %d is invalid (device count %d)", api, device,
                r.device_count.load());
  if (size > (size_t{1} << 60)) return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: size %zu is too large", api, size);
  // Checked mode: exactly the requested bytes, then a guard zone; never served from the cache.
  const bool checked = checked_mode();
  const size_t usable = checked ? size : round_up(size, 32) + padding;
  const size_t cls = checked ? round_up(usable + kGuardBytes, kDeviceAlignment) : class_of(usable);
  const size_t align = checked ? kDeviceAlignment : alignment_of(cls);  // cls is a multiple of it
  const size_t capacity = r.capacity_bytes;
  MemState &m = mem();
  DeviceMem &d = m.dev[device];
  void *p = nullptr;
  for (int attempt = 0; attempt < 2 && !p; ++attempt) {
    std::unique_lock<std::mutex> lk(m.mu);
    collect_deferred_locked(m);
    auto bin = d.bins.find(cls);
    if (bin != d.bins.end() && !bin->second.empty()) {
      p = bin->second.back();
      bin->second.pop_back();
      d.cached -= cls;
      break;
    }
    if (d.in_use + cls > capacity) {
      if (attempt == 0 && !d.pending.empty() && current_worker_stream() == nullptr) {
        // Freed blocks still wait for queued work: let the device drain once, then retry.
        lk.unlock();
        wait_all_idle(-1);
        continue;
      }
      return fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                  "%s: out of device memory on device %d: requested %zu bytes (%zu with rounding), %zu of %zu "
                  "bytes in use (capacity from OPSNN_DEVICE_MEMORY)",
                  api, device, size, cls, d.in_use, capacity);
    }
    if (d.in_use + d.cached + cls > capacity) release_cached_locked(m, device);
    p = std::aligned_alloc(align, cls);
    if (!p && d.cached > 0) {
      release_cached_locked(m, device);
      p = std::aligned_alloc(align, cls);
    }
    if (!p)
      return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: the system refused %zu bytes for device %d", api, cls, device);
    advise_huge_pages(p, cls);
    break;
  }
  if (!p) return fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "%s: out of device memory on device %d", api, device);
  OPSNN_UNPOISON(p, cls);
  if (checked) OPSNN_POISON(static_cast<char *>(p) + usable, cls - usable);
  {
    std::lock_guard<std::mutex> lk(m.mu);
    d.in_use += cls;
    m.live[reinterpret_cast<uintptr_t>(p)] = Block{p, cls, usable, device};
  }
  *devPtr = p;
  return ACL_SUCCESS;
}

int malloc_config_device(aclrtMallocConfig *cfg, int fallback, bool *ok) {
  *ok = true;
  if (!cfg) return fallback;
  if (cfg->numAttrs > 0 && !cfg->attrs) {
    *ok = false;
    return fallback;
  }
  for (size_t i = 0; i < cfg->numAttrs; ++i)
    if (cfg->attrs[i].attr == ACL_RT_MEM_ATTR_DEVICE_ID) return static_cast<int>(cfg->attrs[i].value.deviceId);
  return fallback;
}

bool valid_kind(aclrtMemcpyKind kind) { return kind >= ACL_MEMCPY_HOST_TO_HOST && kind <= ACL_MEMCPY_DEFAULT; }

}  // namespace

bool checked_mode() {
  int v = g_checked.load(std::memory_order_acquire);
  if (v < 0) {
    const char *env = std::getenv("OPSNN_CHECKED");
    v = env != nullptr && env[0] != '\0' && std::strcmp(env, "0") != 0 ? 1 : 0;
    g_checked.store(v, std::memory_order_release);
  }
  return v == 1;
}
void set_checked_mode_for_testing(bool on) { g_checked.store(on ? 1 : 0, std::memory_order_release); }

void add_memory_observer(const MemoryObserver *observer) {
  std::lock_guard<std::mutex> lk(g_observers_mu);
  for (auto &slot : g_observers) {
    const MemoryObserver *o = slot.load(std::memory_order_acquire);
    if (o == observer) return;
    if (o == nullptr) {
      slot.store(observer, std::memory_order_release);
      return;
    }
  }
  std::abort();  // more observers than kMaxMemoryObservers: a build-time constant to raise
}
bool view_byte_range(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize,
                     uintptr_t *lo, uintptr_t *hi) {
  intptr_t lo_off = 0, hi_off = static_cast<intptr_t>(esize);
  for (int d = 0; d < ndim; ++d) {
    if (dims[d] == 0) return false;
    const intptr_t span = static_cast<intptr_t>((dims[d] - 1) * strides[d]) * static_cast<intptr_t>(esize);
    if (span < 0) lo_off += span;
    else hi_off += span;
  }
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  *lo = b + lo_off;
  *hi = b + hi_off;
  return true;
}
bool memory_observed() { return g_observers[0].load(std::memory_order_acquire) != nullptr; }
void notify_view_written(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize) {
  for_each_observer([&](const MemoryObserver &o) { o.view_written(base, ndim, dims, strides, esize); });
}

void memory_collect_deferred() {
  MemState &m = mem();
  if (m.pending_frees.load(std::memory_order_relaxed) == 0) return;  // the synchronisation's common case
  std::lock_guard<std::mutex> lk(m.mu);
  collect_deferred_locked(m);
}

void memory_release_cached(int device) {
  MemState &m = mem();
  std::lock_guard<std::mutex> lk(m.mu);
  release_cached_locked(m, device);
}

size_t parse_size(const char *text, bool *ok) {
  *ok = false;
  if (!text) return 0;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (end == text || errno != 0) return 0;
  unsigned long long mul = 1;
  switch (*end) {
    case 'k': case 'K': mul = 1ull << 10; ++end; break;
    case 'm': case 'M': mul = 1ull << 20; ++end; break;
    case 'g': case 'G': mul = 1ull << 30; ++end; break;
    case 't': case 'T': mul = 1ull << 40; ++end; break;
    default: break;
  }
  if (mul != 1 && (*end == 'i' || *end == 'I')) ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0') return 0;
  if (v > ~0ull / mul) return 0;
  *ok = true;
  return static_cast<size_t>(v * mul);
}

bool find_device_allocation(const void *ptr, const void **base, size_t *bytes) {
  if (!ptr) return false;
  MemState &m = mem();
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  // Phase 1 looks up every tensor it registers: the blocks this thread found last are kept, valid
  // as long as no block has been freed since (free_epoch), which spares the lock in the common case.
  struct Found {
    uintptr_t start = 0;
    size_t bytes = 0;
    uint64_t epoch = ~uint64_t{0};
  };
  static thread_local Found found[4];
  static thread_local unsigned next_found = 0;
  const uint64_t epoch = m.free_epoch.load(std::memory_order_acquire);
  for (const Found &f : found)
    if (f.epoch == epoch && p - f.start < f.bytes) {
      *base = reinterpret_cast<const void *>(f.start);
      *bytes = f.bytes;
      return true;
    }
  std::lock_guard<std::mutex> lk(m.mu);
  auto it = m.live.upper_bound(p);
  if (it == m.live.begin()) return false;
  --it;
  if (p - it->first >= it->second.usable_bytes) return false;
  *base = it->second.ptr;
  *bytes = it->second.usable_bytes;
  found[next_found++ % 4] = Found{it->first, it->second.usable_bytes, m.free_epoch.load(std::memory_order_relaxed)};
  return true;
}

bool is_live_device_range(const void *ptr, size_t bytes) {
  const void *base = nullptr;
  size_t len = 0;
  if (!find_device_allocation(ptr, &base, &len)) return false;
  const size_t at = static_cast<size_t>(static_cast<const char *>(ptr) - static_cast<const char *>(base));
  return bytes <= len - at;
}

}  // namespace opsnn::rt

using namespace opsnn;
using namespace opsnn::rt;

extern "C" {

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return device_malloc(devPtr, size, static_cast<uint32_t>(policy), current_device(), 32, "aclrtMalloc");
}

ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return device_malloc(devPtr, size, static_cast<uint32_t>(policy), current_device(), 0, "aclrtMallocAlign32");
}

ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return device_malloc(devPtr, size, static_cast<uint32_t>(policy), current_device(), 32, "aclrtMallocCached");
}

ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                                aclrtMallocConfig *cfg) {
  bool ok;
  int dev = malloc_config_device(cfg, current_device(), &ok);
  if (!ok) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocWithCfg: cfg->attrs is null but numAttrs > 0");
  return device_malloc(devPtr, size, static_cast<uint32_t>(policy), dev, 32, "aclrtMallocWithCfg");
}

ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr) {
  if (!devPtr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is null");
  MemState &m = mem();
  std::vector<StreamMark> marks = busy_stream_marks();  // taken before the block leaves the live map
  std::lock_guard<std::mutex> lk(m.mu);
  auto it = m.live.find(reinterpret_cast<uintptr_t>(devPtr));
  if (it == m.live.end())
    return fail(ACL_ERROR_INVALID_PARAM,
                "aclrtFree: devPtr %p is not a live device allocation (not from aclrtMalloc, or already freed)", devPtr);
  Block b = it->second;
  m.free_epoch.fetch_add(1, std::memory_order_acq_rel);  // before the block can be reused
  m.live.erase(it);
  if (marks.empty()) {
    to_cache_locked(m, b);
  } else {
    // Queued work may still use the block: it returns to the pool once every stream that was
    // busy at this moment has completed past its current enqueue position.
    m.dev[b.device].pending.push_back(PendingFree{b, std::move(marks)});
    m.pending_frees.fetch_add(1, std::memory_order_relaxed);
  }
  collect_deferred_locked(m);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size) {
  if (!hostPtr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is null");
  if (size == 0) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size is 0");
  if (size > (size_t{1} << 60)) return fail(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost: size %zu is too large", size);
  const size_t bytes = round_up(size, kDeviceAlignment);
  void *p = std::aligned_alloc(kDeviceAlignment, bytes);
  if (!p) return fail(ACL_ERROR_BAD_ALLOC, "aclrtMallocHost: the system refused %zu bytes", size);
  MemState &m = mem();
  std::lock_guard<std::mutex> lk(m.mu);
  m.host[p] = bytes;
  *hostPtr = p;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg) {
  (void)cfg;
  if (!ptr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMallocHostWithCfg: ptr is null");
  return aclrtMallocHost(ptr, static_cast<size_t>(size));
}

ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr) {
  if (!hostPtr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is null");
  MemState &m = mem();
  {
    std::lock_guard<std::mutex> lk(m.mu);
    if (m.host.erase(hostPtr) == 0)
      return fail(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr %p was not allocated by aclrtMallocHost (or already freed)",
                  hostPtr);
  }
  // Host memory may be the source of a queued async copy: wait for the streams first.
  wait_all_idle(-1);
  std::free(hostPtr);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
  if (!free) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free is null");
  if (!total) return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: total is null");
  if (attr < ACL_DDR_MEM || attr > ACL_MEM_P2P_HUGE1G)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: attr %d is invalid", static_cast<int>(attr));
  ensure_initialized();
  const int dev = current_device();
  if (!valid_device(dev)) return fail(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtGetMemInfo: current device %d is invalid", dev);
  const size_t capacity = runtime().capacity_bytes;
  MemState &m = mem();
  std::lock_guard<std::mutex> lk(m.mu);
  collect_deferred_locked(m);
  const size_t used = m.dev[dev].in_use;
  *total = capacity;
  *free = used >= capacity ? 0 : capacity - used;
  return ACL_SUCCESS;
}

// The bytes a copy or memset writes, when it runs (the memory observer hears of them: e.g. a
// pre-packed matmul weight there is plain data afterwards).
static void overwrite(void *dst, const void *src, size_t count) {
  if (count == 0) return;
  notify_written(dst, count);
  std::memmove(dst, src, count);
}
static void fill(void *dst, int32_t value, size_t count) {
  if (count == 0) return;
  notify_written(dst, count);
  std::memset(dst, value, count);
}

// A range starting inside a device allocation must end inside it (destMax is the caller's word;
// the allocation is the runtime's). Host memory is not checked.
static aclError check_in_allocation(const void *p, size_t bytes, const char *api, const char *what) {
  const void *base = nullptr;
  size_t len = 0;
  if (bytes == 0 || !find_device_allocation(p, &base, &len)) return ACL_SUCCESS;
  const size_t at = static_cast<size_t>(static_cast<const char *>(p) - static_cast<const char *>(base));
  if (bytes <= len - at) return ACL_SUCCESS;
  return fail(ACL_ERROR_INVALID_PARAM,
              "%s: %s %p + %zu bytes runs past the end of its device allocation (%p, %zu bytes; %zu left from %s)", api,
              what, p, bytes, base, len, len - at, what);
}

static const char *copy_kind_name(aclrtMemcpyKind kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "H2H";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "H2D";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "D2H";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "D2D";
    default: return "default";
  }
}

static aclError check_copy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                           const char *api) {
  if (!dst) return fail(ACL_ERROR_INVALID_PARAM, "%s: dst is null", api);
  if (!src) return fail(ACL_ERROR_INVALID_PARAM, "%s: src is null", api);
  if (count > destMax)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: count %zu is larger than destMax %zu", api, count, destMax);
  if (!valid_kind(kind)) return fail(ACL_ERROR_INVALID_PARAM, "%s: kind %d is invalid", api, static_cast<int>(kind));
  if (aclError rc = check_in_allocation(dst, count, api, "dst")) return rc;
  if (aclError rc = check_in_allocation(src, count, api, "src")) return rc;
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind) {
  if (aclError rc = check_copy(dst, destMax, src, count, kind, "aclrtMemcpy")) return rc;
  ensure_initialized();
  if (prof::on()) {  // the profiler: the copy, and inside it the wait for queued work
    const int64_t t0 = prof::now_ns();
    wait_all_idle(-1);
    prof::record_span(prof::Cat::kSync, "aclrtMemcpy wait", t0, 0, nullptr, 0, "aclrtMemcpy");
    overwrite(dst, src, count);
    prof::record_span(prof::Cat::kCopy, "aclrtMemcpy", t0, count, copy_kind_name(kind));
    return ACL_SUCCESS;
  }
  wait_all_idle(-1);  // ordered after all queued work (simplest correct rule)
  overwrite(dst, src, count);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream) {
  if (aclError rc = check_copy(dst, destMax, src, count, kind, "aclrtMemcpyAsync")) return rc;
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtMemcpyAsync", &err);
  if (!s) return err;
  if (prof::on())  // the profiler: the copy when the stream runs it
    return s->push([dst, src, count, kind] {
      const int64_t t0 = prof::now_ns();
      overwrite(dst, src, count);
      prof::record_span(prof::Cat::kCopy, "aclrtMemcpyAsync", t0, count, copy_kind_name(kind));
      return 0;
    }, /*may_inline=*/true);
  return s->push([dst, src, count] {
    overwrite(dst, src, count);
    return 0;
  }, /*may_inline=*/true);  // never blocks: an idle stream may run it right here
}

static aclError check_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                             aclrtMemcpyKind kind, const char *api) {
  if (!dst) return fail(ACL_ERROR_INVALID_PARAM, "%s: dst is null", api);
  if (!src) return fail(ACL_ERROR_INVALID_PARAM, "%s: src is null", api);
  if (width > dpitch) return fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu is larger than dpitch %zu", api, width, dpitch);
  if (width > spitch) return fail(ACL_ERROR_INVALID_PARAM, "%s: width %zu is larger than spitch %zu", api, width, spitch);
  if (width == 0 || height == 0)
    return fail(ACL_ERROR_INVALID_PARAM, "%s: width (%zu) and height (%zu) must be > 0", api, width, height);
  if (!valid_kind(kind)) return fail(ACL_ERROR_INVALID_PARAM, "%s: kind %d is invalid", api, static_cast<int>(kind));
  if (height > (SIZE_MAX - width) / std::max(dpitch, spitch))
    return fail(ACL_ERROR_INVALID_PARAM, "%s: height %zu x pitch overflows", api, height);
  if (aclError rc = check_in_allocation(dst, (height - 1) * dpitch + width, api, "dst")) return rc;
  if (aclError rc = check_in_allocation(src, (height - 1) * spitch + width, api, "src")) return rc;
  return ACL_SUCCESS;
}

static void copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
  // Only the rows written (a weight may sit in the pitch padding between them).
  if (dpitch == width) notify_written(dst, height * width);
  else
    for (size_t r = 0; r < height; ++r) notify_written(static_cast<char *>(dst) + r * dpitch, width);
  for (size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char *>(dst) + r * dpitch, static_cast<const char *>(src) + r * spitch, width);
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, aclrtMemcpyKind kind) {
  if (aclError rc = check_copy2d(dst, dpitch, src, spitch, width, height, kind, "aclrtMemcpy2d")) return rc;
  ensure_initialized();
  if (prof::on()) {  // the profiler: the copy, and inside it the wait for queued work
    const int64_t t0 = prof::now_ns();
    wait_all_idle(-1);
    prof::record_span(prof::Cat::kSync, "aclrtMemcpy2d wait", t0, 0, nullptr, 0, "aclrtMemcpy2d");
    copy2d(dst, dpitch, src, spitch, width, height);
    prof::record_span(prof::Cat::kCopy, "aclrtMemcpy2d", t0, width * height, copy_kind_name(kind));
    return ACL_SUCCESS;
  }
  wait_all_idle(-1);
  copy2d(dst, dpitch, src, spitch, width, height);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                size_t width, size_t height, aclrtMemcpyKind kind,
                                                aclrtStream stream) {
  if (aclError rc = check_copy2d(dst, dpitch, src, spitch, width, height, kind, "aclrtMemcpy2dAsync")) return rc;
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtMemcpy2dAsync", &err);
  if (!s) return err;
  if (prof::on())  // the profiler: the copy when the stream runs it
    return s->push([=] {
      const int64_t t0 = prof::now_ns();
      copy2d(dst, dpitch, src, spitch, width, height);
      prof::record_span(prof::Cat::kCopy, "aclrtMemcpy2dAsync", t0, width * height, copy_kind_name(kind));
      return 0;
    }, /*may_inline=*/true);
  return s->push([=] {
    copy2d(dst, dpitch, src, spitch, width, height);
    return 0;
  }, /*may_inline=*/true);  // never blocks: an idle stream may run it right here
}

ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
  if (!devPtr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: devPtr is null");
  if (count > maxCount)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemset: count %zu is larger than maxCount %zu", count, maxCount);
  if (aclError rc = check_in_allocation(devPtr, count, "aclrtMemset", "devPtr")) return rc;
  ensure_initialized();
  wait_all_idle(-1);
  fill(devPtr, value, count);
  return ACL_SUCCESS;
}

ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream) {
  if (!devPtr) return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync: devPtr is null");
  if (count > maxCount)
    return fail(ACL_ERROR_INVALID_PARAM, "aclrtMemsetAsync: count %zu is larger than maxCount %zu", count, maxCount);
  if (aclError rc = check_in_allocation(devPtr, count, "aclrtMemsetAsync", "devPtr")) return rc;
  aclError err;
  std::shared_ptr<Stream> s = acquire_stream(stream, "aclrtMemsetAsync", &err);
  if (!s) return err;
  return s->push([devPtr, value, count] {
    fill(devPtr, value, count);
    return 0;
  }, /*may_inline=*/true);  // never blocks: an idle stream may run it right here
}

// ---- virtual memory: not supported on the CPU device --------------------------------------

#define OPSNN_VMM_UNSUPPORTED(api)                                                                  \
  fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,                                                            \
       "%s: virtual memory management is not supported by the OpsNN CPU device; use aclrtMalloc", api)

ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                                              aclrtMemGranularityOptions option,
                                                              size_t *granularity) {
  (void)prop, (void)option, (void)granularity;
  return OPSNN_VMM_UNSUPPORTED("aclrtMemGetAllocationGranularity");
}
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **, size_t, size_t, void *, uint64_t) {
  return OPSNN_VMM_UNSUPPORTED("aclrtReserveMemAddress");
}
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *) { return OPSNN_VMM_UNSUPPORTED("aclrtReleaseMemAddress"); }
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *, size_t, const aclrtPhysicalMemProp *, uint64_t) {
  return OPSNN_VMM_UNSUPPORTED("aclrtMallocPhysical");
}
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle) { return OPSNN_VMM_UNSUPPORTED("aclrtFreePhysical"); }
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *, size_t, size_t, aclrtDrvMemHandle, uint64_t) {
  return OPSNN_VMM_UNSUPPORTED("aclrtMapMem");
}
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *) { return OPSNN_VMM_UNSUPPORTED("aclrtUnmapMem"); }

}  // extern "C"

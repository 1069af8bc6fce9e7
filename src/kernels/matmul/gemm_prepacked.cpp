// Registry of pre-packed weights (aclnnTransMatmulWeight). A weight buffer re-laid into the
// gemm_prepack_b layout is recorded by its address with the logical shape and dtype; GEMM launches
// whose B address, K, N and dtype match read it as pre-packed. Entries live until the buffer is
// re-packed, written by a runtime copy or memset (gemm_prepacked_b_overwritten, in stream order) or
// by an op's output (gemm_prepacked_b_view_written, when the launch runs), or its allocation returns
// to the allocator's cache (gemm_prepacked_b_forget).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "core/plan_cache.h"
#include "kernels/matmul/gemm.h"
#include "runtime/runtime.h"

namespace opsnn::kernels {
namespace {

struct Entry {
  int64_t k, n;
  aclDataType dtype;
  int64_t rs, cs;
  size_t bytes;  // extent of the packed layout
};

struct Registry {
  std::mutex mu;
  std::map<uintptr_t, Entry> entries;
  std::atomic<bool> in_use{false};  // set once, never cleared: plans made later carry the alt plan
  std::atomic<size_t> count{0};
};

Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: used from stream workers at exit
  return *r;
}

}  // namespace

namespace {
// The registry listens to the runtime's memory notifications once anything may be pre-packed.
const rt::MemoryObserver kObserver{gemm_prepacked_b_overwritten, gemm_prepacked_b_view_written,
                                   gemm_prepacked_b_forget};
}  // namespace

void gemm_prepacked_b_mark_in_use() {
  const bool was = registry().in_use.exchange(true, std::memory_order_acq_rel);
  rt::add_memory_observer(&kObserver);
  if (!was) core::bump_plan_epoch();  // matmuls planned before did not plan for packed B
}

bool gemm_prepacked_b_in_use() { return registry().in_use.load(std::memory_order_acquire); }

void gemm_prepacked_b_register(const void *addr, int64_t k, int64_t n, aclDataType dtype, int64_t row_stride,
                               int64_t col_stride) {
  Registry &r = registry();
  gemm_prepacked_b_mark_in_use();
  std::lock_guard<std::mutex> lk(r.mu);
  const size_t esize = dtype == ACL_FLOAT ? 4 : 2;  // FLOAT, FLOAT16 or BF16
  r.entries[reinterpret_cast<uintptr_t>(addr)] =
      Entry{k, n, dtype, row_stride, col_stride, static_cast<size_t>(gemm_prepacked_b_elems(k, n)) * esize};
  r.count.store(r.entries.size(), std::memory_order_release);
}

bool gemm_prepacked_b_registered(const void *addr, int64_t k, int64_t n, aclDataType dtype, int64_t row_stride,
                                 int64_t col_stride) {
  Registry &r = registry();
  if (r.count.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lk(r.mu);
  auto it = r.entries.find(reinterpret_cast<uintptr_t>(addr));
  if (it == r.entries.end()) return false;
  const Entry &e = it->second;
  // Strides matter only along dims longer than 1.
  const bool rs_ok = k <= 1 || e.rs == row_stride, cs_ok = n <= 1 || e.cs == col_stride;
  return e.k == k && e.n == n && e.dtype == dtype && rs_ok && cs_ok;
}

void gemm_prepacked_b_overwritten(const void *base, size_t bytes) {
  Registry &r = registry();
  if (r.count.load(std::memory_order_acquire) == 0 || bytes == 0) return;
  std::lock_guard<std::mutex> lk(r.mu);
  const uintptr_t lo = reinterpret_cast<uintptr_t>(base), hi = lo + bytes;
  for (auto it = r.entries.begin(); it != r.entries.end() && it->first < hi;) {
    if (it->first + it->second.bytes > lo) it = r.entries.erase(it);
    else ++it;
  }
  r.count.store(r.entries.size(), std::memory_order_release);
}

namespace {

// Whether some element of the view (first element at `base`) overlaps [lo, hi): walks the runs
// along the last dim (one range when it is unit-strided, else element by element).
bool view_overlaps(uintptr_t base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize, uintptr_t lo,
                   uintptr_t hi) {
  auto hit = [&](intptr_t first, intptr_t last_end) {  // bytes [first, last_end) relative to base
    return base + first < hi && base + last_end > lo;
  };
  if (ndim == 0) return hit(0, static_cast<intptr_t>(esize));
  const int last = ndim - 1;
  const intptr_t es = static_cast<intptr_t>(esize);
  const intptr_t step = static_cast<intptr_t>(strides[last]) * es;
  const int64_t len = dims[last];
  int64_t idx[8] = {};  // kMaxDims
  while (true) {
    intptr_t off = 0;
    for (int d = 0; d < last; ++d) off += static_cast<intptr_t>(idx[d] * strides[d]) * es;
    if (step == es || len == 1) {
      if (hit(off, off + len * es)) return true;
    } else {
      const intptr_t span = (len - 1) * step;  // the run's bounding range first
      if (hit(std::min<intptr_t>(off, off + span), std::max<intptr_t>(off, off + span) + es))
        for (int64_t i = 0; i < len; ++i)
          if (hit(off + i * step, off + i * step + es)) return true;
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return false;
  }
}

}  // namespace

void gemm_prepacked_b_view_written(const void *base, int ndim, const int64_t *dims, const int64_t *strides,
                                   size_t esize) {
  Registry &r = registry();
  if (r.count.load(std::memory_order_acquire) == 0 || esize == 0 || ndim < 0 || ndim > 8) return;
  uintptr_t lo = 0, hi = 0;
  if (!rt::view_byte_range(base, ndim, dims, strides, esize, &lo, &hi)) return;  // empty: nothing written
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  std::lock_guard<std::mutex> lk(r.mu);
  for (auto it = r.entries.begin(); it != r.entries.end() && it->first < hi;) {
    const uintptr_t e_lo = it->first, e_hi = it->first + it->second.bytes;
    if (e_hi > lo && view_overlaps(b, ndim, dims, strides, esize, e_lo, e_hi)) it = r.entries.erase(it);
    else ++it;
  }
  r.count.store(r.entries.size(), std::memory_order_release);
}

void gemm_prepacked_b_forget(const void *base, size_t bytes) {
  Registry &r = registry();
  if (r.count.load(std::memory_order_acquire) == 0) return;
  std::lock_guard<std::mutex> lk(r.mu);
  const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
  auto it = r.entries.lower_bound(lo);
  while (it != r.entries.end() && it->first < lo + bytes) it = r.entries.erase(it);
  r.count.store(r.entries.size(), std::memory_order_release);
}

}  // namespace opsnn::kernels

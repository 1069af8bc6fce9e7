// PackedWeight and the registry that tells its copies when their sources are written.
#include "kernels/conv/packed_weight.h"

#include <algorithm>
#include <set>

#include "runtime/runtime.h"

namespace opsnn::kernels {
namespace {

struct Registry {
  std::mutex mu;
  std::set<const PackedWeight *> copies;
};

Registry &registry() {
  static Registry *r = new Registry;  // never destroyed: observers run from stream workers at exit
  return *r;
}

void invalidate(uintptr_t lo, uintptr_t hi) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lk(r.mu);
  for (const PackedWeight *c : r.copies) c->invalidate_if_overlaps(lo, hi);
}

void range_written(const void *base, size_t bytes) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(base);
  invalidate(lo, lo + bytes);
}

// An op's output view: its bounding byte range (a superset; a false overlap only costs a re-pack).
void view_written(const void *base, int ndim, const int64_t *dims, const int64_t *strides, size_t esize) {
  uintptr_t lo = 0, hi = 0;
  if (rt::view_byte_range(base, ndim, dims, strides, esize, &lo, &hi)) invalidate(lo, hi);
}

const rt::MemoryObserver kObserver{range_written, view_written, range_written};

}  // namespace

PackedWeight::~PackedWeight() {
  if (!registered_.load(std::memory_order_acquire)) return;
  Registry &r = registry();
  std::lock_guard<std::mutex> lk(r.mu);
  r.copies.erase(this);
}

void PackedWeight::invalidate_if_overlaps(uintptr_t lo, uintptr_t hi) const {
  if (lo < hi_.load(std::memory_order_acquire) && hi > lo_.load(std::memory_order_acquire))
    valid_.store(false, std::memory_order_release);
}

void PackedWeight::with(const void *lo, size_t bytes, size_t floats, const std::function<void(float *)> &pack,
                        const std::function<void(const float *)> &use) const {
  std::lock_guard<std::mutex> lk(mu_);
  if (!registered_.exchange(true, std::memory_order_acq_rel)) {
    rt::add_memory_observer(&kObserver);
    Registry &r = registry();
    std::lock_guard<std::mutex> rlk(r.mu);
    r.copies.insert(this);
  }
  const uintptr_t l = reinterpret_cast<uintptr_t>(lo);
  // The copy is kept across launches only for a source inside one runtime allocation: the runtime
  // sees every write to those that the ACL contract allows. Host memory it does not know (a
  // client's host buffer, a torch tensor shared through DLPack) can change unseen: packed per launch.
  const void *abase = nullptr;
  size_t abytes = 0;
  const bool observed = rt::find_device_allocation(lo, &abase, &abytes) &&
                        l + bytes <= reinterpret_cast<uintptr_t>(abase) + abytes;
  if (!observed || !valid_.load(std::memory_order_acquire) || lo_.load() != l || hi_.load() != l + bytes) {
    data_.resize(floats);
    lo_.store(l, std::memory_order_release);
    hi_.store(l + bytes, std::memory_order_release);
    // Valid before reading the source: a write reported while packing makes it stale again.
    valid_.store(true, std::memory_order_release);
    pack(data_.data());
    packs_.fetch_add(1, std::memory_order_relaxed);
  }
  use(data_.data());
}

}  // namespace opsnn::kernels

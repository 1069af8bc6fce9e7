// Opaque handles with generation tags. A handle given to a client is ((slot + 1) << 24) | generation,
// not an address: when an object is destroyed its slot's generation moves on, so a stale handle
// never matches a later object, even one the allocator placed at the same address (a registry keyed
// by raw addresses took those for live). Lookup is lock-free: chunks of slots never move, and a
// handle resolves with an index and one generation compare. Insert and remove take a mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace opsnn::core {

template <class T>
class HandleTable {
 public:
  // A new handle for `obj` (never 0).
  uintptr_t insert(T *obj) {
    std::lock_guard<std::mutex> lk(mu_);
    uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = next_++;
      if (index / kChunk >= kMaxChunks) throw std::bad_alloc();
      if (index % kChunk == 0) chunks_[index / kChunk].store(new Slot[kChunk], std::memory_order_release);
    }
    Slot &s = slot(index);
    s.obj.store(obj, std::memory_order_release);
    return (static_cast<uintptr_t>(index) + 1) << kGenBits | s.gen.load(std::memory_order_relaxed);
  }

  // The live object of `handle`, or nullptr (never issued, removed, or not a handle at all).
  T *lookup(uintptr_t handle) const {
    const Slot *s = find(handle);
    return s ? s->obj.load(std::memory_order_acquire) : nullptr;
  }

  // Ends `handle`: returns its object, or nullptr when it was not live.
  T *remove(uintptr_t handle) {
    std::lock_guard<std::mutex> lk(mu_);
    Slot *s = const_cast<Slot *>(find(handle));
    if (s == nullptr) return nullptr;
    T *obj = s->obj.exchange(nullptr, std::memory_order_acq_rel);
    if (obj == nullptr) return nullptr;
    s->gen.store((s->gen.load(std::memory_order_relaxed) + 1) & kGenMask, std::memory_order_release);
    free_.push_back(static_cast<uint32_t>((handle >> kGenBits) - 1));
    return obj;
  }

 private:
  static constexpr int kGenBits = 24;
  static constexpr uintptr_t kGenMask = (uintptr_t{1} << kGenBits) - 1;
  static constexpr size_t kChunk = 1024, kMaxChunks = 1 << 16;  // up to 64M live handles

  struct Slot {
    std::atomic<uint32_t> gen{0};
    std::atomic<T *> obj{nullptr};
  };

  Slot &slot(uint32_t index) const { return chunks_[index / kChunk].load(std::memory_order_acquire)[index % kChunk]; }

  const Slot *find(uintptr_t handle) const {
    const uintptr_t hi = handle >> kGenBits;
    if (hi == 0 || hi > kChunk * kMaxChunks) return nullptr;
    const uint32_t index = static_cast<uint32_t>(hi - 1);
    const Slot *chunk = chunks_[index / kChunk].load(std::memory_order_acquire);
    if (chunk == nullptr) return nullptr;
    const Slot &s = chunk[index % kChunk];
    if (s.gen.load(std::memory_order_acquire) != (handle & kGenMask)) return nullptr;
    return &s;
  }
  std::mutex mu_;
  std::vector<uint32_t> free_;
  uint32_t next_ = 0;
  std::atomic<Slot *> chunks_[kMaxChunks] = {};
};

}  // namespace opsnn::core

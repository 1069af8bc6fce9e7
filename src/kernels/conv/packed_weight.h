// A weight re-laid out for a kernel once, kept by the step that owns it (so once per executor:
// a repeatable executor packs on its first launch and reuses the copy after). The copy is keyed by
// the source's address and goes stale when the runtime's memory observers report its bytes
// written (a runtime copy or memset, an op's output view) or freed, in stream order, as the GEMM's
// pre-packed weight registry does. Only a source inside one runtime allocation (aclrtMalloc) is
// kept across launches; other memory (host buffers, DLPack-shared tensors) is packed at every
// launch. Writes that bypass the runtime into its allocations (plain host stores into device
// memory, outside the ACL contract; a torch tensor made from an opsnn tensor by DLPack) are not seen.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace opsnn::kernels {

class PackedWeight {
 public:
  PackedWeight() = default;
  ~PackedWeight();
  PackedWeight(const PackedWeight &) = delete;
  PackedWeight &operator=(const PackedWeight &) = delete;

  // Runs use(packed floats) with the copy of the weight whose bytes span [lo, lo + bytes) (lo: its
  // lowest byte), first calling pack(dst) when the copy is missing, stale or of another address.
  // Concurrent launches of one executor take turns.
  void with(const void *lo, size_t bytes, size_t floats, const std::function<void(float *)> &pack,
            const std::function<void(const float *)> &use) const;

  // The registry's side (memory observer callbacks): the copy goes stale if [lo, hi) overlaps.
  void invalidate_if_overlaps(uintptr_t lo, uintptr_t hi) const;

  // Tests: how many times this copy was packed.
  int64_t packs() const { return packs_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mu_;
  mutable std::vector<float> data_;
  mutable std::atomic<uintptr_t> lo_{0}, hi_{0};  // the source range the copy was made from
  mutable std::atomic<bool> valid_{false};
  mutable std::atomic<bool> registered_{false};
  mutable std::atomic<int64_t> packs_{0};
};

}  // namespace opsnn::kernels

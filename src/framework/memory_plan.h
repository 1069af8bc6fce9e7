// Lifetime-based placement of a captured step's memory blocks in one arena (docs/ARCHITECTURE.md,
// "Framework layer", graph capture). Internal to libopsnn_framework.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace opsnn {
namespace detail {

constexpr uint64_t kForever = UINT64_MAX;  // `last` of a block still alive when the step ends
constexpr uint64_t kPlanAlign = 512;       // the runtime's block alignment, kept inside the arena

// A block's place in the arena: an empty tensor still gets one (its address must lie in the arena,
// as an eager empty tensor's lies in its one-byte allocation).
inline uint64_t plan_aligned(uint64_t bytes) { return (std::max<uint64_t>(bytes, 1) + kPlanAlign - 1) / kPlanAlign * kPlanAlign; }

// One allocation of the step: its size and lifetime in capture order (clock ticks of the
// allocation and of the release), and the offset the plan gives it.
struct PlannedBlock {
  uint64_t bytes = 0;
  uint64_t first = 0, last = kForever;
  bool workspace = false;
  uint64_t offset = 0;
  bool kept() const { return last == kForever; }
};

// Gives every block an offset so that two blocks whose lifetimes [first, last] overlap never
// overlap in memory: largest first, each into the smallest gap left by the blocks already placed
// that are alive at the same time (best fit), else after them. Returns the arena's size.
uint64_t plan_offsets(std::vector<PlannedBlock> &blocks);

// For each block j, the earlier blocks that share some of its memory: they were planned to be
// released before j is allocated, which the capturing pass checks.
std::vector<std::vector<size_t>> shared_predecessors(const std::vector<PlannedBlock> &blocks);

// The most bytes (aligned) alive at once in capture order: no plan needs less.
uint64_t live_peak(const std::vector<PlannedBlock> &blocks);

}  // namespace detail
}  // namespace opsnn

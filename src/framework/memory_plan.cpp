// Greedy best-fit placement of a step's blocks by lifetime (memory_plan.h).
#include "memory_plan.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

namespace opsnn {
namespace detail {

static bool lifetimes_overlap(const PlannedBlock &a, const PlannedBlock &b) {
  return a.first <= b.last && b.first <= a.last;
}

static bool ranges_overlap(const PlannedBlock &a, const PlannedBlock &b) {
  return a.offset < b.offset + plan_aligned(b.bytes) && b.offset < a.offset + plan_aligned(a.bytes);
}

uint64_t plan_offsets(std::vector<PlannedBlock> &blocks) {
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blocks[a].bytes > blocks[b].bytes; });
  std::vector<size_t> placed;
  uint64_t arena = 0;
  for (size_t idx : order) {
    PlannedBlock &b = blocks[idx];
    const uint64_t need = plan_aligned(b.bytes);
    // The ranges taken by placed blocks alive at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t p : placed)
      if (lifetimes_overlap(blocks[p], b)) taken.emplace_back(blocks[p].offset, blocks[p].offset + plan_aligned(blocks[p].bytes));
    std::sort(taken.begin(), taken.end());
    uint64_t best = kForever, best_gap = kForever, cursor = 0;
    for (const auto &r : taken) {
      if (r.first > cursor && r.first - cursor >= need && r.first - cursor < best_gap) {
        best = cursor;
        best_gap = r.first - cursor;
      }
      cursor = std::max(cursor, r.second);
    }
    b.offset = best != kForever ? best : cursor;  // else after the last one
    arena = std::max(arena, b.offset + need);
    placed.push_back(idx);
  }
  return arena;
}

std::vector<std::vector<size_t>> shared_predecessors(const std::vector<PlannedBlock> &blocks) {
  std::vector<std::vector<size_t>> out(blocks.size());
  for (size_t j = 0; j < blocks.size(); ++j)
    for (size_t i = 0; i < j; ++i)
      if (ranges_overlap(blocks[i], blocks[j])) out[j].push_back(i);
  return out;
}

uint64_t live_peak(const std::vector<PlannedBlock> &blocks) {
  std::map<uint64_t, int64_t> delta;  // clock tick -> bytes born (+) / released after it (-)
  for (const PlannedBlock &b : blocks) {
    delta[b.first] += static_cast<int64_t>(plan_aligned(b.bytes));
    if (!b.kept()) delta[b.last + 1] -= static_cast<int64_t>(plan_aligned(b.bytes));
  }
  int64_t live = 0, peak = 0;
  for (const auto &kv : delta) {
    live += kv.second;
    peak = std::max(peak, live);
  }
  return static_cast<uint64_t>(peak);
}

}  // namespace detail
}  // namespace opsnn

// The graph capture's memory plan (src/framework/memory_plan.{h,cpp}): blocks alive at the same
// time never share memory, the arena lies between the live peak and the blocks' sum, and dead
// blocks' memory is reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "memory_plan.h"

using opsnn::detail::kForever;
using opsnn::detail::plan_aligned;
using opsnn::detail::PlannedBlock;

namespace {

PlannedBlock block(uint64_t bytes, uint64_t first, uint64_t last) {
  PlannedBlock b;
  b.bytes = bytes;
  b.first = first;
  b.last = last;
  return b;
}

// Checked by brute force over every pair, independently of the planner's bookkeeping.
void expect_valid(const std::vector<PlannedBlock> &blocks, uint64_t arena) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    const PlannedBlock &a = blocks[i];
    EXPECT_LE(a.offset + plan_aligned(a.bytes), arena) << "block " << i;
    EXPECT_EQ(a.offset % opsnn::detail::kPlanAlign, 0u) << "block " << i;
    for (size_t j = i + 1; j < blocks.size(); ++j) {
      const PlannedBlock &b = blocks[j];
      const bool together = a.first <= b.last && b.first <= a.last;
      const bool shared = a.offset < b.offset + plan_aligned(b.bytes) && b.offset < a.offset + plan_aligned(a.bytes);
      EXPECT_FALSE(together && shared) << "blocks " << i << " and " << j << " are alive together in the same memory";
    }
  }
}

}  // namespace

TEST(MemoryPlan, ChainReusesDeadBlocks) {
  // x1 = f(x0), x2 = f(x1), ...: each block dies once the next is made; two at a time suffice.
  std::vector<PlannedBlock> blocks;
  for (uint64_t i = 0; i < 10; ++i) blocks.push_back(block(4096, 2 * i, 2 * i + 3));
  const uint64_t arena = opsnn::detail::plan_offsets(blocks);
  expect_valid(blocks, arena);
  EXPECT_EQ(arena, 2u * 4096);
  EXPECT_EQ(opsnn::detail::live_peak(blocks), 2u * 4096);
}

TEST(MemoryPlan, KeptBlocksAreNeverShared) {
  std::vector<PlannedBlock> blocks = {block(1000, 0, kForever), block(1000, 1, 2), block(1000, 3, 4)};
  const uint64_t arena = opsnn::detail::plan_offsets(blocks);
  expect_valid(blocks, arena);
  EXPECT_EQ(arena, 2u * 1024);  // the two temporaries share one place, the kept block has its own
  EXPECT_EQ(blocks[1].offset, blocks[2].offset);
  EXPECT_NE(blocks[0].offset, blocks[1].offset);
}

TEST(MemoryPlan, BestFitTakesTheSmallestGap) {
  // Placed largest first: long-lived L1, L2, L3 with the places of two early-dead blocks (8 KiB,
  // 4 KiB) between them; a late 2 KiB block fits both holes and takes the smaller.
  std::vector<PlannedBlock> blocks = {block(16384, 0, 10), block(8192, 0, 1), block(7168, 0, 10), block(4096, 0, 1),
                                      block(3072, 0, 10), block(2048, 5, 6)};
  const uint64_t arena = opsnn::detail::plan_offsets(blocks);
  expect_valid(blocks, arena);
  EXPECT_EQ(blocks[5].offset, blocks[3].offset);
  EXPECT_EQ(arena, 16384u + 8192u + 7168u + 4096u + 3072u);
}

TEST(MemoryPlan, RandomLifetimesArePlacedValidly) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const int n = 1 + static_cast<int>(rng() % 60);
    std::vector<PlannedBlock> blocks;
    uint64_t sum = 0;
    for (int i = 0; i < n; ++i) {
      const uint64_t first = rng() % 100, len = rng() % 40;
      const uint64_t bytes = rng() % 4 == 0 ? 0 : 1 + rng() % 100000;
      blocks.push_back(block(bytes, first, rng() % 10 == 0 ? kForever : first + len));
      sum += plan_aligned(bytes);
    }
    // In a capture's log the blocks come in allocation order.
    std::sort(blocks.begin(), blocks.end(), [](const PlannedBlock &a, const PlannedBlock &b) { return a.first < b.first; });
    const uint64_t peak = opsnn::detail::live_peak(blocks);
    const uint64_t arena = opsnn::detail::plan_offsets(blocks);
    expect_valid(blocks, arena);
    EXPECT_LE(peak, arena);
    EXPECT_LE(arena, sum);
    // A block's memory is shared only with earlier blocks released before it is made (what the
    // placing pass checks).
    const auto preds = opsnn::detail::shared_predecessors(blocks);
    for (size_t j = 0; j < blocks.size(); ++j)
      for (size_t i : preds[j]) EXPECT_LT(blocks[i].last, blocks[j].first) << "round " << round;
    if (::testing::Test::HasFailure()) break;
  }
}

// The block movers of kernels/layout/transpose_tile.h, every tier this CPU runs (the emulated
// AVX-512 build runs the AVX-512 one on AVX2 CPUs) and every element size it has a form for:
// multiples of 32 (every form's block edge divides it) with row strides longer than the rows (odd,
// and multiples of 64 bytes), streaming and plain stores into aligned and unaligned outputs. The result must equal an index
// walk of the source bit for bit, and nothing between the output rows may change.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/cpu_features.h"
#include "kernels/elementwise/stream_copy.h"
#include "kernels/layout/transpose_tile.h"

namespace opsnn::kernels {
namespace {

struct Tier {
  const char *name;
  TransposeBlocksFn (*get)(size_t);
  bool runs;
};

std::vector<Tier> tiers() {
  const core::CpuFeatures &f = core::cpu_features();
  std::vector<Tier> t = {{"portable", &transpose_blocks_portable, true}};
#if defined(__x86_64__)
  t.push_back({"avx2", &transpose_blocks_avx2, f.detected >= core::Isa::kAvx2});
  t.push_back({"avx512", &transpose_blocks_avx512, f.detected >= core::Isa::kAvx512});
#endif
  (void)f;
  return t;
}

TEST(TransposeTile, BlocksEqualAnIndexWalk) {
  int forms = 0;
  for (const Tier &t : tiers()) {
    if (!t.runs) continue;
    for (size_t es : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
      const TransposeBlocksFn fn = t.get(es);
      if (fn == nullptr) continue;
      ++forms;
      for (int64_t rows : {int64_t{32}, int64_t{64}, int64_t{160}})
        for (int64_t cols : {int64_t{32}, int64_t{96}})
          for (int64_t ss_pad : {int64_t{0}, int64_t{3}, 64 / static_cast<int64_t>(es)})
            for (int64_t ds_pad : {int64_t{0}, int64_t{5}, 64 / static_cast<int64_t>(es)})
              for (bool streaming : {false, true})
                for (size_t dst_off : {size_t{0}, es}) {
                  SCOPED_TRACE(::testing::Message() << t.name << " es " << es << " " << rows << " x " << cols << " ss+"
                                                    << ss_pad << " ds+" << ds_pad << " streaming " << streaming
                                                    << " dst offset " << dst_off);
                  const int64_t ss = cols + ss_pad, ds = rows + ds_pad;
                  std::vector<unsigned char> src(static_cast<size_t>(rows * ss) * es + 64);
                  std::vector<unsigned char> dst(static_cast<size_t>(cols * ds) * es + 128, 0xA5);
                  uint32_t r = 11;
                  for (auto &b : src) b = static_cast<unsigned char>((r = r * 1664525u + 1013904223u) >> 24);
                  auto align64 = [](unsigned char *p) { return p + ((64 - (reinterpret_cast<uintptr_t>(p) & 63)) & 63); };
                  unsigned char *sp = align64(src.data()), *dp = align64(dst.data()) + dst_off;
                  fn(sp, ss, dp, ds, rows, cols, streaming);
                  copy_fence();
                  for (int64_t j = 0; j < cols; ++j)
                    for (int64_t i = 0; i < ds; ++i) {
                      const unsigned char *got = dp + static_cast<size_t>(j * ds + i) * es;
                      if (i < rows)
                        ASSERT_EQ(std::memcmp(got, sp + static_cast<size_t>(i * ss + j) * es, es), 0)
                            << "element (" << i << ", " << j << ")";
                      else  // the padding between output rows
                        for (size_t k = 0; k < es; ++k) ASSERT_EQ(got[k], 0xA5) << "padding (" << i << ", " << j << ")";
                    }
                }
    }
  }
#if defined(__x86_64__)
  EXPECT_GE(forms, 2);  // at least the portable and AVX2 4-byte forms
#endif
  (void)forms;
}

}  // namespace
}  // namespace opsnn::kernels

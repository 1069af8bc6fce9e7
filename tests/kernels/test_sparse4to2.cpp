// The 2:4 sparse weight codec (kernels/quant/sparse4to2.h) over every group of 4 it accepts: each of
// the 11 zero patterns with at most 2 non-zeros, in both nibbles of a code byte, decodes back to the
// weight; the codes of two non-zeros p < q are (p, q - 1) (the documented rule: the first kept value is
// the first non-zero among elements 0..2, the second the last among 1..3); each of the 5 patterns with
// 3 or 4 non-zeros is refused, naming its row and first column.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/quant/sparse4to2.h"

namespace opsnn::kernels {
namespace {

// The group of 4 whose non-zeros are mask's set bits (bit e: element e), values e + 1 (negated when odd).
void fill_group(int8_t *g, int mask) {
  for (int e = 0; e < 4; ++e) g[e] = (mask >> e & 1) ? static_cast<int8_t>(e % 2 ? -(e + 1) : e + 1) : 0;
}

int bits(int mask) { return __builtin_popcount(static_cast<unsigned>(mask)); }

TEST(Sparse4to2Codec, EveryAcceptedPatternRoundTrips) {
  for (int lo = 0; lo < 16; ++lo)
    for (int hi = 0; hi < 16; ++hi) {
      if (bits(lo) > 2 || bits(hi) > 2) continue;
      Sparse4to2Dims d;
      d.n = 1;
      d.k = 8;
      int8_t w[8];
      fill_group(w, lo);
      fill_group(w + 4, hi);
      std::vector<int8_t> values(static_cast<size_t>(d.value_bytes()));
      std::vector<uint8_t> codes(static_cast<size_t>(d.code_bytes()));
      int64_t r = -1, c = -1;
      ASSERT_TRUE(sparse4to2_encode(w, d, values.data(), codes.data(), &r, &c)) << lo << " " << hi;
      std::vector<int8_t> back(8, 99);
      sparse4to2_decode(values.data(), codes.data(), d, back.data());
      EXPECT_EQ(back, std::vector<int8_t>(w, w + 8)) << "masks " << lo << " " << hi;
      for (int half = 0; half < 2; ++half) {
        const int mask = half ? hi : lo, nib = codes[0] >> (4 * half) & 0xF;
        if (bits(mask) != 2) continue;
        const int p = __builtin_ctz(static_cast<unsigned>(mask)), q = 31 - __builtin_clz(static_cast<unsigned>(mask));
        EXPECT_EQ(nib & 3, p) << "mask " << mask;
        EXPECT_EQ(nib >> 2, q - 1) << "mask " << mask;
      }
    }
}

TEST(Sparse4to2Codec, DenserPatternsAreRefused) {
  for (int mask = 0; mask < 16; ++mask) {
    if (bits(mask) <= 2) continue;
    Sparse4to2Dims d;
    d.n = 2;
    d.k = 12;
    std::vector<int8_t> w(24, 0);
    fill_group(w.data() + 12 + 8, mask);  // row 1, columns 8..11
    std::vector<int8_t> values(static_cast<size_t>(d.value_bytes()));
    std::vector<uint8_t> codes(static_cast<size_t>(d.code_bytes()));
    int64_t r = -1, c = -1;
    EXPECT_FALSE(sparse4to2_encode(w.data(), d, values.data(), codes.data(), &r, &c)) << mask;
    EXPECT_EQ(r, 1);
    EXPECT_EQ(c, 8);
  }
}

}  // namespace
}  // namespace opsnn::kernels

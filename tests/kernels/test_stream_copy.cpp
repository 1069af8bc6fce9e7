// The byte copies of kernels/elementwise/stream_copy.h: streaming and plain, every size around the
// 64-byte line and the 256-byte streaming minimum, destinations and sources at every alignment
// class; the result must equal the source bytes exactly and nothing around the destination may
// change; runs of whole lines (copy_lines_streaming). Plus the phase-1 threshold: a copy streams
// exactly from stream_copy_min_bytes() on.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kernels/elementwise/stream_copy.h"

namespace opsnn::kernels {
namespace {

TEST(StreamCopy, EverySizeAndAlignmentIsExact) {
  constexpr size_t kPad = 128;
  for (bool streaming : {true, false})
    for (size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{255}, size_t{256},
                     size_t{1000}, size_t{4096 + 13}, (size_t{1} << 20) + 7})
      for (size_t dst_off : {size_t{0}, size_t{1}, size_t{13}, size_t{63}})
        for (size_t src_off : {size_t{0}, size_t{5}, size_t{32}}) {
          SCOPED_TRACE(::testing::Message() << "streaming " << streaming << " n " << n << " dst offset " << dst_off
                                            << " src offset " << src_off);
          std::vector<unsigned char> src(n + kPad), dst(n + 2 * kPad);
          // The offsets count from a 64-byte boundary inside each buffer (the padding leaves room).
          uint32_t s = 7;
          for (auto &b : src) b = static_cast<unsigned char>((s = s * 1664525u + 1013904223u) >> 24);
          for (auto &b : dst) b = 0xA5;
          auto align64 = [](unsigned char *p) {
            return p + ((64 - (reinterpret_cast<uintptr_t>(p) & 63)) & 63);
          };
          unsigned char *sp = align64(src.data());
          unsigned char *dp = align64(dst.data()) + dst_off;
          copy_bytes(dp, sp + src_off, n, streaming);
          copy_fence();
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(dp[i], sp[src_off + i]) << "byte " << i;
          for (unsigned char *p = dst.data(); p < dp; ++p) ASSERT_EQ(*p, 0xA5) << "before the destination";
          for (unsigned char *p = dp + n; p < dst.data() + dst.size(); ++p) ASSERT_EQ(*p, 0xA5) << "after it";
        }
}

TEST(StreamCopy, OneLine) {
  alignas(64) unsigned char dst[192] = {};
  unsigned char src[80];
  for (int i = 0; i < 80; ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  copy_line_streaming(dst + 64, src + 3);
  copy_fence();
  for (int i = 0; i < 192; ++i) EXPECT_EQ(dst[i], i >= 64 && i < 128 ? src[i - 64 + 3] : 0) << i;
}

TEST(StreamCopy, WholeLines) {
  for (size_t lines : {size_t{0}, size_t{1}, size_t{4}, size_t{7}}) {
    SCOPED_TRACE(::testing::Message() << lines << " lines");
    alignas(64) unsigned char dst[64 * 9];
    unsigned char src[64 * 7 + 5];
    for (size_t i = 0; i < sizeof src; ++i) src[i] = static_cast<unsigned char>(i * 13 + 5);
    for (auto &b : dst) b = 0xA5;
    copy_lines_streaming(dst + 64, src + 5, lines);
    copy_fence();
    for (size_t i = 0; i < sizeof dst; ++i)
      EXPECT_EQ(dst[i], i >= 64 && i < 64 * (lines + 1) ? src[i - 64 + 5] : 0xA5) << i;
  }
}

TEST(StreamCopy, ThresholdIsFixedAndAtMost16MiB) {
  const uint64_t t = stream_copy_min_bytes();
  EXPECT_LE(t, uint64_t{16} << 20);
  EXPECT_GT(t, 0u);
#if defined(__SSE2__)
  EXPECT_TRUE(copy_streams(t));
#endif
  EXPECT_FALSE(copy_streams(t - 1));
}

}  // namespace
}  // namespace opsnn::kernels

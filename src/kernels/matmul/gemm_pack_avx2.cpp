// AVX2/F16C parts of the packing routines (compiled with -mavx2 -mfma -mf16c; called only after
// runtime detection).
#include <immintrin.h>

#include <algorithm>

#include "kernels/matmul/avx2_transpose.h"
#include "kernels/matmul/gemm_pack.h"

namespace opsnn::kernels::gemm_detail {

void pack_lines_f32_avx2(const float *s, int64_t sw, int64_t kc, int W, float *d) {
  const int full = W / 8, part = W % 8;  // groups of 8 lines, and the lines of a last partial group
  // One group of 8 lines at a time over a chunk of k: lines whose stride is a multiple of 4 KiB
  // share L1 sets, so with every group at each k step a line was evicted before its second half
  // was read (B [N,K], N = K = 4096: 64 MB packed in 9.1 -> 8.2 ms at kc = 256).
  constexpr int64_t kChunk = 256;
  const int64_t k8 = kc / 8 * 8;
  for (int64_t p0 = 0; p0 < k8; p0 += kChunk) {
    const int64_t p1 = std::min(k8, p0 + kChunk);
    __m256 r[8];
    if (part > 0) {
      // Stored first, full 8-lane stores: lanes past the group land on the next row's first group
      // (or, for row 7, the next block), which is written afterwards. Masked stores are slow on AMD.
      const int g0 = full * 8;
      for (int64_t p = p0; p < p1; p += 8) {
        float *dp = d + p * W;
        for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + (g0 + std::min(i, part - 1)) * sw + p);
        avx2::transpose8(r);
        for (int i = 0; i < 7; ++i) _mm256_storeu_ps(dp + i * W + g0, r[i]);
        alignas(32) float last[8];
        _mm256_store_ps(last, r[7]);
        for (int l = 0; l < part; ++l) dp[7 * W + g0 + l] = last[l];
      }
    }
    for (int g = 0; g < full; ++g)
      for (int64_t p = p0; p < p1; p += 8) {
        float *dp = d + p * W;
        for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(s + (g * 8 + i) * sw + p);
        avx2::transpose8(r);
        for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dp + i * W + g * 8, r[i]);
      }
  }
  for (int64_t p = k8; p < kc; ++p)
    for (int w = 0; w < W; ++w) d[p * W + w] = s[w * sw + p];
}

}  // namespace opsnn::kernels::gemm_detail

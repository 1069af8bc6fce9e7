// Packing of BF16 operands into k-pair panels for the vdpbf16ps tiles (see pack_pairs_bf16).
#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/matmul/gemm.h"
#include "kernels/matmul/gemm_pack.h"

namespace opsnn::kernels::gemm_detail {
namespace {

inline uint32_t pair(uint16_t lo, uint16_t hi) { return lo | static_cast<uint32_t>(hi) << 16; }

// One line contiguous along K, pairs [p0, kp) of it, into column w of the panel.
inline void pack_line_tail(const uint16_t *line, int64_t p0, int64_t kc, int W, uint32_t *d) {
  const int64_t full = kc / 2;
  for (int64_t p2 = p0; p2 < full; ++p2) {
    uint32_t v;
    std::memcpy(&v, line + 2 * p2, sizeof v);
    d[p2 * W] = v;
  }
  if (kc % 2) d[full * W] = line[kc - 1];
}

// Lines [w0, w0 + ww) of a W-line panel d (kp rows of W units); line w0 + w reads s + w*sw, element
// p at + p*sp. Pairs are bits, so the SSE2 paths (x86-64 baseline) are plain shuffles.
void pack_lines(const uint16_t *s, int64_t sw, int64_t sp, int64_t w0, int64_t ww, int64_t kc, int W, uint32_t *d) {
  const int64_t full = kc / 2;  // pairs without K padding
  d += w0;
  if (sp == 1) {
    // Lines contiguous along K (A row-major, B stored [N, K]): a pair is two adjacent elements, and a
    // 4 x 4 block of pairs is transposed in registers.
    int64_t w = 0;
#if defined(__SSE2__)
    for (; w + 4 <= ww; w += 4) {
      const uint16_t *l = s + w * sw;
      int64_t p2 = 0;
      for (; p2 + 4 <= full; p2 += 4) {
        __m128i r[4];
        for (int i = 0; i < 4; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(l + i * sw + 2 * p2));
        const __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpacklo_epi32(r[2], r[3]);
        const __m128i t2 = _mm_unpackhi_epi32(r[0], r[1]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
        uint32_t *dp = d + p2 * W + w;
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dp), _mm_unpacklo_epi64(t0, t1));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dp + W), _mm_unpackhi_epi64(t0, t1));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dp + 2 * W), _mm_unpacklo_epi64(t2, t3));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dp + 3 * W), _mm_unpackhi_epi64(t2, t3));
      }
      for (int i = 0; i < 4; ++i) pack_line_tail(l + i * sw, p2, kc, W, d + w + i);
    }
#endif
    for (; w < ww; ++w) pack_line_tail(s + w * sw, 0, kc, W, d + w);
    return;
  }
  for (int64_t p2 = 0; p2 < full; ++p2) {
    const uint16_t *r0 = s + 2 * p2 * sp, *r1 = r0 + sp;
    uint32_t *dp = d + p2 * W;
    if (sw == 1) {
      // Rows contiguous along the width (B row-major, A transposed): interleave two rows.
      int64_t w = 0;
#if defined(__SSE2__)
      for (; w + 8 <= ww; w += 8) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(r0 + w));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(r1 + w));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dp + w), _mm_unpacklo_epi16(a, b));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dp + w + 4), _mm_unpackhi_epi16(a, b));
      }
#endif
      for (; w < ww; ++w) dp[w] = pair(r0[w], r1[w]);
    } else {
      for (int64_t w = 0; w < ww; ++w) dp[w] = pair(r0[w * sw], r1[w * sw]);
    }
  }
  if (kc % 2)
    for (int64_t w = 0; w < ww; ++w) d[full * W + w] = s[(kc - 1) * sp + w * sw];
}

// Lines [w0, W) of the panel are zero.
void zero_lines(int64_t w0, int64_t kc, int W, uint32_t *d) {
  if (w0 < W)
    for (int64_t p2 = 0; p2 < (kc + 1) / 2; ++p2) std::fill(d + p2 * W + w0, d + (p2 + 1) * W, 0u);
}

}  // namespace

void pack_pairs_bf16(const PackSrc &src, int64_t width, int64_t kc, int W, uint32_t *dst) {
  const uint16_t *o = static_cast<const uint16_t *>(src.origin);
  const int64_t kp = (kc + 1) / 2;
  for (int64_t q = 0; q * W < width; ++q) {
    const int64_t ww = std::min<int64_t>(W, width - q * W);
    uint32_t *d = dst + q * W * kp;
    pack_lines(o + q * W * src.sw, src.sw, src.sp, 0, ww, kc, W, d);
    zero_lines(ww, kc, W, d);
  }
}

void pack_pairs_bf16_prepacked(const void *packed, int64_t k, int64_t col0, int64_t width, int64_t pc, int64_t kc,
                               int W, uint32_t *dst) {
  // In the pre-packed layout a run of columns inside one 16-column panel is a view with column
  // stride 1 and row stride 16.
  constexpr int64_t PW = kPrepackWidth;
  const uint16_t *P = static_cast<const uint16_t *>(packed);
  const int64_t kp = (kc + 1) / 2;
  for (int64_t q = 0; q * W < width; ++q) {
    uint32_t *d = dst + q * W * kp;
    const int64_t c0 = col0 + q * W, cend = std::min<int64_t>(c0 + W, col0 + width);
    for (int64_t c = c0; c < cend;) {
      const int64_t len = std::min<int64_t>(PW - c % PW, cend - c);
      pack_lines(P + (c / PW) * PW * k + pc * PW + c % PW, 1, PW, c - c0, len, kc, W, d);
      c += len;
    }
    zero_lines(cend - c0, kc, W, d);
  }
}

}  // namespace opsnn::kernels::gemm_detail

// The channels-first pointwise kernel (conv_pw_nchw.h), compiled once per ISA unit
// (conv_pw_nchw.cpp portable, conv_pw_nchw_avx2.cpp, conv_pw_nchw_avx512.cpp) with OPSNN_PW_VW
// floats per GCC vector. Everything here has internal linkage.
#pragma once

#include <algorithm>

#include "core/thread_pool.h"
#include "kernels/conv/conv_pw_nchw.h"

namespace opsnn::kernels {
namespace {

#ifndef OPSNN_PW_VW
#define OPSNN_PW_VW 4
#endif
constexpr int kPwVw = OPSNN_PW_VW;
typedef float PwVec __attribute__((vector_size(OPSNN_PW_VW * 4), aligned(4)));
// Register tile: MR output channels x NV pixel vectors (MR * NV accumulators, NV input vectors and
// a broadcast weight within the unit's registers: AVX-512 32, AVX2 / SSE 16). MR divides the
// packed weight's 16-channel blocks. AVX-512: 8 x 3 (24 accumulators; 8 x 2 had 16, and 10 loads
// per 16 FMAs: ResNet's NCHW 1x1 layers 0.55-0.65 -> 0.50-0.52 ms, PERFORMANCE.md "1x1 on NCHW:
// an 8 x 3 tile"; 4 x 6 was 3x slower).
#if OPSNN_PW_VW == 16
constexpr int kPwMr = 8, kPwNv = 3;
#else
constexpr int kPwMr = 4, kPwNv = 2;
#endif
constexpr int64_t kPwStrip = kPwNv * kPwVw;  // pixels per strip
static_assert(kPwStrip <= kPwNchwMinPixels, "phase 1's bound covers every unit's strip");

// MR channels (rows of 16 floats apart in the packed weight, wp[k * 16 + i]) x one strip at p.
inline void pw_tile(const float *x, int64_t sc, int64_t cin, const float *wp, const float *bias, float *y,
                    int64_t osc, int64_t valid, const float *prefetch) {
  PwVec acc[kPwMr][kPwNv];
#pragma GCC unroll 16
  for (int i = 0; i < kPwMr; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < kPwNv; ++v) acc[i][v] = PwVec{};
  for (int64_t k = 0; k < cin; ++k) {
    const float *xr = x + k * sc;
    if (prefetch != nullptr) {  // the next strip's row segment (every line of it, and its last float)
#pragma GCC unroll 4
      for (int64_t o = 0; o < kPwStrip; o += 16) __builtin_prefetch(prefetch + k * sc + o);
      __builtin_prefetch(prefetch + k * sc + kPwStrip - 1);
    }
    PwVec xv[kPwNv];
#pragma GCC unroll 4
    for (int v = 0; v < kPwNv; ++v) xv[v] = *reinterpret_cast<const PwVec *>(xr + v * kPwVw);
    const float *wk = wp + k * kDirectBlock;
#pragma GCC unroll 16
    for (int i = 0; i < kPwMr; ++i) {
      const float w = wk[i];
#pragma GCC unroll 4
      for (int v = 0; v < kPwNv; ++v) acc[i][v] += w * xv[v];
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < kPwMr; ++i) {
    if (i >= valid) break;  // the last tile's channels past C_out
#pragma GCC unroll 4
    for (int v = 0; v < kPwNv; ++v) *reinterpret_cast<PwVec *>(y + i * osc + v * kPwVw) = acc[i][v] + bias[i];
  }
}

inline void pw_nchw_body(const DirectArgs &a, int threads) {
  const int64_t P = a.g.small_n(), cin = a.c_in, cout = a.c_out;  // P >= kPwStrip (phase 1)
  const int64_t strips = (P + kPwStrip - 1) / kPwStrip, tiles = (cout + kPwMr - 1) / kPwMr;
  const int64_t blocks = (cout + kDirectBlock - 1) / kDirectBlock, wbs = cin * kDirectBlock;
  const float *bias = a.w + blocks * wbs;
  const int64_t tasks = a.n * strips;
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks)));
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t q0 = tasks * t / T, q1 = tasks * (t + 1) / T;
      for (int64_t q = q0; q < q1; ++q) {
        const int64_t n = q / strips, s = q % strips;
        const int64_t p = std::min(s * kPwStrip, P - kPwStrip);
        const float *x = a.in + n * a.in_sn + p;
        float *y = a.out + n * a.out_sn + p;
        // The next task's strip is fetched while this one's first tile runs (the C_in rows are
        // too many streams for the hardware prefetcher to follow).
        const float *next = q + 1 < q1 && s + 1 < strips ? x + kPwStrip : nullptr;
        for (int64_t c = 0; c < tiles; ++c) {
          const int64_t co = c * kPwMr;
          const float *wp = a.w + (co / kDirectBlock) * wbs + co % kDirectBlock;
          pw_tile(x, a.in_sc, cin, wp, bias + co, y + co * a.out_sc, a.out_sc, cout - co, c == 0 ? next : nullptr);
        }
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

// The direct (implicit-GEMM) channels-last convolution, compiled once per ISA unit (conv.cpp
// portable, conv_avx2.cpp, conv_avx512.cpp) after conv_depthwise_impl.h, whose vector type (DwVec,
// kDwVw floats) it uses. A register tile of NP output pixels (along the innermost output dim) x NB
// blocks of 16 output channels accumulates over the taps (k0, k1, k2) and the input channels: each
// input value is broadcast, each weight row of 16 channels is read as vectors from the packed
// weight [C_out/16][k0][k1][k2][C_in][16] (conv_direct_pack). Border pixels run the same loop over
// the taps inside the input only, so the interior has no per-tap test.
#pragma once

#include <algorithm>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/conv/conv.h"

namespace opsnn::kernels {
namespace {

constexpr int kCdVpb = static_cast<int>(kDirectBlock) / kDwVw;  // vectors per 16-channel block

// The taps of one output row (n, o0, o1) that fall inside the input, and the input offsets.
struct CdRow {
  const float *in;                 // the image n
  int64_t off;                     // offset of pixel o2 = 0's tap (0, 0, 0) (may be out of range)
  int64_t k0lo, k0hi, k1lo, k1hi;  // valid tap ranges along dims 0 and 1
  int64_t t0, t1, t2;              // input offsets of one tap step (d * input stride)
  int64_t ps;                      // input offset between neighbouring output pixels
  int64_t sc;                      // input channel stride (1: channels-last)
};

// NP pixels (o2 .. o2 + NP - 1) x NB channel blocks over taps k2 in [k2lo, k2hi); stores the
// first `valid` channels of the tile (fewer than NB * 16 only in the last block group) at pixel
// stride ds, channels contiguous.
template <int NP, int NB>
inline void cd_tile(const CdRow &r, const ConvGeom &g, int64_t cin, int64_t o2, int64_t k2lo, int64_t k2hi,
                    const float *w, int64_t wbs, const float *bias, float *dst, int64_t ds, int64_t valid) {
  constexpr int NV = NB * kCdVpb;
  DwVec acc[NP][NV];
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[p][v] = DwVec{};
  const int64_t tap_floats = cin * kDirectBlock;
  for (int64_t k0 = r.k0lo; k0 < r.k0hi; ++k0) {
    for (int64_t k1 = r.k1lo; k1 < r.k1hi; ++k1) {
      for (int64_t k2 = k2lo; k2 < k2hi; ++k2) {
        const float *x = r.in + (r.off + o2 * r.ps + k0 * r.t0 + k1 * r.t1 + k2 * r.t2);
        const float *wt = w + ((k0 * g.k[1] + k1) * g.k[2] + k2) * tap_floats;
        for (int64_t ic = 0; ic < cin; ++ic, x += r.sc) {
          DwVec wv[NV];
#pragma GCC unroll 16
          for (int b = 0; b < NB; ++b)
#pragma GCC unroll 16
            for (int v = 0; v < kCdVpb; ++v) wv[b * kCdVpb + v] = dw_load(wt + b * wbs + ic * kDirectBlock + v * kDwVw);
#pragma GCC unroll 16
          for (int p = 0; p < NP; ++p) {
            const float xs = x[p * r.ps];
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) acc[p][v] += xs * wv[v];
          }
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p) {
    float *d = dst + (o2 + p) * ds;
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const DwVec out = acc[p][v] + dw_load(bias + v * kDwVw);
      const int64_t c = v * kDwVw;
      if (c + kDwVw <= valid) {
        dw_store(d + c, out);
      } else if (c < valid) {  // the last block's channels past C_out are padding
#pragma GCC unroll 16
        for (int i = 0; i < kDwVw; ++i)
          if (c + i < valid) d[c + i] = out[i];
      }
    }
  }
}

// One output row for one group of NB channel blocks: interior pixels NP at a time (every tap
// inside), the rest one by one over their inside taps.
template <int NP, int NB>
void cd_row(const CdRow &r, const ConvGeom &g, int64_t cin, const float *w, int64_t wbs, const float *bias,
            float *dst, int64_t ds, int64_t valid) {
  const int64_t K2 = g.k[2], n2 = g.small[2], span = (K2 - 1) * g.d[2];
  // Interior: x = o2*s2 - p2 >= 0 and x + span < big2.
  const int64_t lo = std::min<int64_t>(n2, (g.p[2] + g.s[2] - 1) / g.s[2]);
  const int64_t last = g.big[2] - 1 - span + g.p[2];  // o2 * s2 <= last
  const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(n2, last < 0 ? 0 : last / g.s[2] + 1));
  auto one = [&](int64_t o2) {
    const int64_t x = o2 * g.s[2] - g.p[2];
    const int64_t klo = x >= 0 ? 0 : std::min<int64_t>(K2, (-x + g.d[2] - 1) / g.d[2]);
    const int64_t khi = x >= g.big[2] ? 0 : std::min<int64_t>(K2, (g.big[2] - 1 - x) / g.d[2] + 1);
    cd_tile<1, NB>(r, g, cin, o2, klo, std::max(klo, khi), w, wbs, bias, dst, ds, valid);
  };
  for (int64_t o2 = 0; o2 < lo; ++o2) one(o2);
  int64_t o2 = lo;
  for (; o2 + NP <= hi; o2 += NP) cd_tile<NP, NB>(r, g, cin, o2, 0, K2, w, wbs, bias, dst, ds, valid);
  // The last interior pixels: one tile overlapping the previous one (its pixels are recomputed
  // in the same order, so they get the same values), or one by one when the interior is narrower.
  if (o2 < hi && hi - lo >= NP) cd_tile<NP, NB>(r, g, cin, hi - NP, 0, K2, w, wbs, bias, dst, ds, valid);
  else
    for (; o2 < hi; ++o2) cd_tile<1, NB>(r, g, cin, o2, 0, K2, w, wbs, bias, dst, ds, valid);
  for (o2 = hi; o2 < n2; ++o2) one(o2);
}

// The unit's tiles: (channel blocks, pixels) sized to its vector registers (accumulators + the
// weight vectors + one broadcast): AVX-512 32 registers, AVX2 / SSE 16.
#if OPSNN_DW_VW == 16
constexpr int kCdMaxNb = 4;
template <int NB> constexpr int cd_pixels() { return NB == 4 ? 6 : NB == 2 ? 12 : 14; }
#elif OPSNN_DW_VW == 8
constexpr int kCdMaxNb = 1;
template <int NB> constexpr int cd_pixels() { return 6; }
#else
constexpr int kCdMaxNb = 1;
template <int NB> constexpr int cd_pixels() { return 3; }
#endif

inline void direct_body(const DirectArgs &a, int threads) {
  const ConvGeom &g = a.g;
  const int64_t blocks = (a.c_out + kDirectBlock - 1) / kDirectBlock;
  const int64_t taps = g.kprod(), wbs = taps * a.c_in * kDirectBlock;
  const float *bias = a.w + blocks * wbs;
  // Channel block groups: as many of kCdMaxNb blocks as fit, then one of 2, then one of 1.
  const int64_t nfull = blocks / kCdMaxNb, rem = blocks % kCdMaxNb;
  const int64_t ngroups = nfull + (rem >= 2) + (rem % 2);
  auto group = [&](int64_t gi, int64_t *start, int64_t *size) {
    if (gi < nfull) {
      *start = gi * kCdMaxNb, *size = kCdMaxNb;
    } else if (gi == nfull && rem >= 2) {
      *start = nfull * kCdMaxNb, *size = 2;
    } else {
      *start = blocks - 1, *size = 1;
    }
  };
  const int64_t rows = a.n * g.small[0] * g.small[1], tasks = ngroups * rows;
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks)));
  // A channels-first output row goes through a channels-last row buffer, then out channel by
  // channel: storing lanes straight to C_out strided planes thrashes L1 when the plane size is
  // near a multiple of 4 KiB (ResNet's 112 x 112 planes: 3x slower).
  const bool staged = a.out_sc != 1;
  core::parallel_for(T, 1, [&](int64_t th0, int64_t th1) {
    std::vector<float> stage(staged ? static_cast<size_t>(g.small[2] * kCdMaxNb * kDirectBlock) : 0);
    for (int64_t th = th0; th < th1; ++th) {
      const int64_t t0 = tasks * th / T, t1 = tasks * (th + 1) / T;
      for (int64_t t = t0; t < t1; ++t) {  // group-major: a group's weight stays in cache across rows
        const int64_t gi = t / rows, row = t % rows;
        const int64_t o1 = row % g.small[1], o0 = (row / g.small[1]) % g.small[0], n = row / (g.small[1] * g.small[0]);
        CdRow r;
        r.in = a.in + n * a.in_sn;
        const int64_t x0 = o0 * g.s[0] - g.p[0], x1 = o1 * g.s[1] - g.p[1];
        auto range = [&](int64_t x, int i, int64_t *lo, int64_t *hi) {
          *lo = x >= 0 ? 0 : std::min<int64_t>(g.k[i], (-x + g.d[i] - 1) / g.d[i]);
          *hi = x >= g.big[i] ? 0 : std::min<int64_t>(g.k[i], (g.big[i] - 1 - x) / g.d[i] + 1);
          *hi = std::max(*lo, *hi);
        };
        range(x0, 0, &r.k0lo, &r.k0hi);
        range(x1, 1, &r.k1lo, &r.k1hi);
        r.off = x0 * a.in_ss[0] + x1 * a.in_ss[1] - g.p[2] * a.in_ss[2];
        r.t0 = g.d[0] * a.in_ss[0];
        r.t1 = g.d[1] * a.in_ss[1];
        r.t2 = g.d[2] * a.in_ss[2];
        r.ps = g.s[2] * a.in_ss[2];
        r.sc = a.in_sc;
        int64_t gstart, gsize;
        group(gi, &gstart, &gsize);
        const int64_t c0 = gstart * kDirectBlock;
        const float *w = a.w + gstart * wbs;
        float *out = a.out + n * a.out_sn + o0 * a.out_ss[0] + o1 * a.out_ss[1] + c0 * a.out_sc;
        const int64_t valid = std::min<int64_t>(gsize * kDirectBlock, a.c_out - c0);
        float *dst = staged ? stage.data() : out;
        const int64_t ds = staged ? valid : a.out_ss[2];
        switch (gsize) {
#if OPSNN_DW_VW == 16
          case 4:
            cd_row<cd_pixels<4>(), 4>(r, g, a.c_in, w, wbs, bias + c0, dst, ds, valid);
            break;
          case 2:
            cd_row<cd_pixels<2>(), 2>(r, g, a.c_in, w, wbs, bias + c0, dst, ds, valid);
            break;
#endif
          default:
            cd_row<cd_pixels<1>(), 1>(r, g, a.c_in, w, wbs, bias + c0, dst, ds, valid);
        }
        if (staged)
          for (int64_t c = 0; c < valid; ++c)
            for (int64_t o2 = 0; o2 < g.small[2]; ++o2) out[c * a.out_sc + o2 * a.out_ss[2]] = stage[o2 * valid + c];
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

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

// Stores NP pixels' sums + bias, the first `valid` channels (fewer than NB * 16 only in the last
// block group) at pixel stride ds, channels contiguous.
template <int NP, int NV>
inline void cd_store(const DwVec (&acc)[NP][NV], const float *bias, float *d, int64_t ds, int64_t valid) {
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const DwVec out = acc[p][v] + dw_load(bias + v * kDwVw);
      const int64_t c = v * kDwVw;
      if (c + kDwVw <= valid) {
        dw_store(d + p * ds + c, out);
      } else if (c < valid) {  // the last block's channels past C_out are padding
#pragma GCC unroll 16
        for (int i = 0; i < kDwVw; ++i)
          if (c + i < valid) d[p * ds + c + i] = out[i];
      }
    }
  }
}

// NP interior pixels (o2 .. o2 + NP - 1: every tap inside the input) x NB channel blocks over the
// taps and C_in, then + bias.
template <int NP, int NB>
inline void cd_tile(const CdRow &r, const ConvGeom &g, int64_t cin, int64_t o2, const float *w, int64_t wbs,
                    const float *bias, float *dst, int64_t ds, int64_t valid) {
  constexpr int NV = NB * kCdVpb;
  DwVec acc[NP][NV];
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[p][v] = DwVec{};
  const int64_t tap_floats = cin * kDirectBlock;
  for (int64_t k0 = r.k0lo; k0 < r.k0hi; ++k0) {
    for (int64_t k1 = r.k1lo; k1 < r.k1hi; ++k1) {
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const float *x = r.in + (r.off + o2 * r.ps + k0 * r.t0 + k1 * r.t1 + k2 * r.t2);
        const float *wt = w + ((k0 * g.k[1] + k1) * g.k[2] + k2) * tap_floats;
        // A channels-last 1x1 layer streams its input from memory once: the next tile's NP pixels
        // are NP * ps floats further on, one prefetch per channel walks them (batch 8: 1.3x).
        const uintptr_t pf0 = reinterpret_cast<uintptr_t>(x) + static_cast<uintptr_t>(NP * r.ps) * 4;
        const uintptr_t pf_step = r.sc == 1 && g.kprod() == 1 ? static_cast<uintptr_t>(NP * r.ps / cin) * 4 : 0;
        for (int64_t ic = 0; ic < cin; ++ic, x += r.sc, wt += kDirectBlock) {
          __builtin_prefetch(reinterpret_cast<const void *>(pf0 + static_cast<uintptr_t>(ic) * pf_step));
          DwVec wv[NV];
#pragma GCC unroll 16
          for (int b = 0; b < NB; ++b)
#pragma GCC unroll 16
            for (int v = 0; v < kCdVpb; ++v) wv[b * kCdVpb + v] = dw_load(wt + b * wbs + v * kDwVw);
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
  cd_store<NP, NV>(acc, bias, dst + o2 * ds, ds, valid);
}

// The same for pixels with taps outside the input (the row's ends): pixel p reads its own
// pointer, which a tap outside the input points at a zero with stride 0, so every pixel of the
// tile shares the weight loads. A product with that zero adds +0 (the sums never hold -0), as the
// padding's zeros would.
template <int NP, int NB>
inline void cd_edge_tile(const CdRow &r, const ConvGeom &g, int64_t cin, int64_t o2, const float *w, int64_t wbs,
                         const float *bias, float *dst, int64_t ds, int64_t valid) {
  constexpr int NV = NB * kCdVpb;
  static const float kZero = 0.0f;
  DwVec acc[NP][NV];
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[p][v] = DwVec{};
  const int64_t tap_floats = cin * kDirectBlock;
  for (int64_t k0 = r.k0lo; k0 < r.k0hi; ++k0) {
    for (int64_t k1 = r.k1lo; k1 < r.k1hi; ++k1) {
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const int64_t xo = r.off + o2 * r.ps + k0 * r.t0 + k1 * r.t1 + k2 * r.t2;
        const float *xp[NP];
        int64_t xs_step[NP];
        bool any = false;
        for (int p = 0; p < NP; ++p) {
          const int64_t col = (o2 + p) * g.s[2] - g.p[2] + k2 * g.d[2];
          const bool in = col >= 0 && col < g.big[2];
          xp[p] = in ? r.in + (xo + p * r.ps) : &kZero;
          xs_step[p] = in ? r.sc : 0;
          any |= in;
        }
        if (!any) continue;
        const float *wt = w + ((k0 * g.k[1] + k1) * g.k[2] + k2) * tap_floats;
        for (int64_t ic = 0; ic < cin; ++ic, wt += kDirectBlock) {
          DwVec wv[NV];
#pragma GCC unroll 16
          for (int b = 0; b < NB; ++b)
#pragma GCC unroll 16
            for (int v = 0; v < kCdVpb; ++v) wv[b * kCdVpb + v] = dw_load(wt + b * wbs + v * kDwVw);
#pragma GCC unroll 16
          for (int p = 0; p < NP; ++p) {
            const float xs = *xp[p];
            xp[p] += xs_step[p];
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) acc[p][v] += xs * wv[v];
          }
        }
      }
    }
  }
  cd_store<NP, NV>(acc, bias, dst + o2 * ds, ds, valid);
}

// One tile of n pixels (1 <= n <= NP) at o2, interior or not.
template <int NP, int NB>
inline void cd_tile_n(int64_t n, bool interior, const CdRow &r, const ConvGeom &g, int64_t cin, int64_t o2,
                      const float *w, int64_t wbs, const float *bias, float *d, int64_t ds, int64_t valid) {
  if constexpr (NP > 1) {
    if (n < NP) return cd_tile_n<NP - 1, NB>(n, interior, r, g, cin, o2, w, wbs, bias, d, ds, valid);
  }
  if (interior) cd_tile<NP, NB>(r, g, cin, o2, w, wbs, bias, d, ds, valid);
  else cd_edge_tile<NP, NB>(r, g, cin, o2, w, wbs, bias, d, ds, valid);
}

// Output pixels [a, b) of one row for one group of NB channel blocks, in the fewest tiles of at
// most NP pixels, balanced (14 pixels at NP = 6: 5 + 5 + 4, no pixel computed twice): interior
// tiles read the input at fixed offsets, tiles with taps outside it go through cd_edge_tile.
// dst points at pixel a.
template <int NP, int NB>
void cd_row(const CdRow &r, const ConvGeom &g, int64_t cin, int64_t a, int64_t b, const float *w, int64_t wbs,
            const float *bias, float *dst, int64_t ds, int64_t valid) {
  const int64_t n2 = g.small[2], span = (g.k[2] - 1) * g.d[2];
  // Interior: x = o2*s2 - p2 >= 0 and x + span < big2.
  const int64_t lo = std::min<int64_t>(n2, (g.p[2] + g.s[2] - 1) / g.s[2]);
  const int64_t last = g.big[2] - 1 - span + g.p[2];  // o2 * s2 <= last
  const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(n2, last < 0 ? 0 : last / g.s[2] + 1));
  float *d = dst - a * ds;  // indexed by o2
  const int64_t len = b - a, tiles = (len + NP - 1) / NP;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t o = a + len * i / tiles, e = a + len * (i + 1) / tiles;
    cd_tile_n<NP, NB>(e - o, o >= lo && e <= hi, r, g, cin, o, w, wbs, bias, d, ds, valid);
  }
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

// A task's output pixels: a segment of a long row (the threads' share of a 1x1 layer's flattened
// image), or several short rows.
constexpr int64_t kCdTaskPixels = 240;
// A weight of at most this many floats (512 KiB) is taken to stay in L2 across a task's groups.
constexpr int64_t kCdL2Floats = 131072;

// A 1x1, stride-1, unpadded dim whose input and output strides nest in the next one's is merged
// into it: rows become long, so fewer tiles end in an overlapping one.
inline DirectArgs cd_flatten(const DirectArgs &a) {
  DirectArgs f = a;
  ConvGeom &g = f.g;
  auto unit = [&](int i) { return g.k[i] == 1 && g.s[i] == 1 && g.p[i] == 0 && g.big[i] == g.small[i]; };
  if (!unit(2)) return f;
  for (int i = 1; i >= 0; --i) {  // dim i into dim 2 (dims between already merged, of size 1)
    if (!unit(i) || f.in_ss[i] != f.in_ss[2] * g.big[2] || f.out_ss[i] != f.out_ss[2] * g.small[2]) break;
    g.big[2] *= g.big[i], g.small[2] *= g.small[i];
    g.big[i] = g.small[i] = 1;
    f.in_ss[i] = f.out_ss[i] = 0;
  }
  return f;
}

inline void direct_body(const DirectArgs &args, int threads) {
  const DirectArgs a = cd_flatten(args);
  const ConvGeom &g = a.g;
  const int64_t blocks = (a.c_out + kDirectBlock - 1) / kDirectBlock;
  const int64_t taps = g.kprod(), wbs = taps * a.c_in * kDirectBlock;
  const float *bias = a.w + blocks * wbs;
  // Channel block groups: as many of nb blocks as fit, then one of 2, then one of 1.
  const int64_t nb = a.group_blocks > 0 ? std::min<int64_t>(kCdMaxNb, a.group_blocks) : kCdMaxNb;
  const int64_t nfull = blocks / nb, rem = blocks % nb;
  const int64_t ngroups = nfull + (rem >= 2) + (rem % 2);
  auto group = [&](int64_t gi, int64_t *start, int64_t *size) {
    if (gi < nfull) {
      *start = gi * nb, *size = nb;
    } else if (gi == nfull && rem >= 2) {
      *start = nfull * nb, *size = 2;
    } else {
      *start = blocks - 1, *size = 1;
    }
  };
  // Units of work: a row segment of at most kCdTaskPixels pixels (long rows), or several whole rows.
  const int64_t n2 = g.small[2], rows = a.n * g.small[0] * g.small[1];
  const int64_t segs = (n2 + kCdTaskPixels - 1) / kCdTaskPixels;                  // per row
  // (at least 4 tasks per thread: every pixel's sum has the same order whatever the tiling, so
  // the split may follow the thread count)
  const int64_t rows_per =
      segs > 1 ? 1
               : std::max<int64_t>(1, std::min<int64_t>(kCdTaskPixels / std::max<int64_t>(1, n2),
                                                        rows * ngroups / (4 * std::max(threads, 1))));
  const int64_t units = segs > 1 ? rows * segs : (rows + rows_per - 1) / rows_per;  // per group
  const int64_t tasks = ngroups * units;
  // Group-major (a group's weight stays in cache across its tasks) unless the whole weight fits
  // in L2: then the groups of one unit run together, so the input is read once.
  const bool group_major = ngroups * wbs > kCdL2Floats;
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks)));
  // A channels-first output goes through a channels-last buffer of the task's pixels, then out
  // channel by channel: storing lanes straight to C_out strided planes thrashes L1 when the plane
  // size is near a multiple of 4 KiB (ResNet's 112 x 112 planes: 3x slower).
  const bool staged = a.out_sc != 1;
  const int64_t task_pixels = segs > 1 ? (n2 + segs - 1) / segs : rows_per * n2;
  core::parallel_for(T, 1, [&](int64_t th0, int64_t th1) {
    std::vector<float> stage(staged ? static_cast<size_t>(task_pixels * kCdMaxNb * kDirectBlock) : 0);
    for (int64_t th = th0; th < th1; ++th) {
      const int64_t t0 = tasks * th / T, t1 = tasks * (th + 1) / T;
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t gi = group_major ? t / units : t % ngroups, u = group_major ? t % units : t / ngroups;
        int64_t gstart, gsize;
        group(gi, &gstart, &gsize);
        const int64_t c0 = gstart * kDirectBlock;
        const float *w = a.w + gstart * wbs;
        const int64_t valid = std::min<int64_t>(gsize * kDirectBlock, a.c_out - c0);
        // The task's pieces: (row, pixels [pa, pb)).
        const int64_t row0 = segs > 1 ? u / segs : u * rows_per;
        const int64_t row1 = segs > 1 ? row0 + 1 : std::min(rows, row0 + rows_per);
        const int64_t pa = segs > 1 ? n2 * (u % segs) / segs : 0, pb = segs > 1 ? n2 * (u % segs + 1) / segs : n2;
        int64_t soff = 0;  // the row's offset in the stage (pixels)
        for (int64_t row = row0; row < row1; ++row, soff += pb - pa) {
          const int64_t o1 = row % g.small[1], o0 = (row / g.small[1]) % g.small[0];
          const int64_t n = row / (g.small[1] * g.small[0]);
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
          float *out = a.out + n * a.out_sn + o0 * a.out_ss[0] + o1 * a.out_ss[1] + c0 * a.out_sc;
          float *dst = staged ? stage.data() + soff * valid : out + pa * a.out_ss[2];
          const int64_t ds = staged ? valid : a.out_ss[2];
          const float *bs = bias + c0;
          switch (gsize) {
#if OPSNN_DW_VW == 16
            case 4:
              cd_row<cd_pixels<4>(), 4>(r, g, a.c_in, pa, pb, w, wbs, bs, dst, ds, valid);
              break;
            case 2:
              cd_row<cd_pixels<2>(), 2>(r, g, a.c_in, pa, pb, w, wbs, bs, dst, ds, valid);
              break;
#endif
            default:
              cd_row<cd_pixels<1>(), 1>(r, g, a.c_in, pa, pb, w, wbs, bs, dst, ds, valid);
          }
          if (staged) {
            const float *st = stage.data() + soff * valid;
            for (int64_t c = 0; c < valid; ++c)
              for (int64_t o2 = pa; o2 < pb; ++o2) out[c * a.out_sc + o2 * a.out_ss[2]] = st[(o2 - pa) * valid + c];
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

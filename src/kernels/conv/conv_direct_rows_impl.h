// The direct convolution over packed input rows (conv_direct_rows.h), compiled once per ISA unit
// (conv_direct_rows.cpp portable, conv_direct_rows_avx2.cpp, conv_direct_rows_avx512.cpp) with
// OPSNN_DR_VW floats per GCC vector; everything here has internal linkage.
#pragma once

#include <algorithm>
#include <cstring>

#include "core/thread_pool.h"
#include "kernels/conv/conv_direct_rows.h"
#if OPSNN_DR_VW == 16 && !defined(OPSNN_EMULATE_AVX512)
#include "kernels/simd/avx512_intrinsics.h"
#endif

namespace opsnn::kernels {
namespace {

#ifndef OPSNN_DR_VW
#define OPSNN_DR_VW 4
#endif
constexpr int kDrVw = OPSNN_DR_VW;
constexpr int kDrVpb = static_cast<int>(kDirectBlock) / kDrVw;  // vectors per 16-channel block
typedef float DrVec __attribute__((vector_size(OPSNN_DR_VW * 4)));

inline DrVec dr_load(const float *p) {
  DrVec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void dr_store(float *p, DrVec v) { std::memcpy(p, &v, sizeof(v)); }

// Register tiles (pixels x 16-channel blocks) within the unit's vector registers (accumulators +
// one block row of weights + a broadcast): AVX-512 32, AVX2 / SSE 16.
#if OPSNN_DR_VW == 16
constexpr int kDrMaxNb = 4;
template <int NB> constexpr int dr_pixels() { return NB == 4 ? 6 : NB == 2 ? 12 : 14; }
#elif OPSNN_DR_VW == 8
constexpr int kDrMaxNb = 1;
template <int NB> constexpr int dr_pixels() { return 6; }
#else
constexpr int kDrMaxNb = 1;
template <int NB> constexpr int dr_pixels() { return 3; }
#endif

// What one tile reads: the kernel rows inside the input (ring rows rp[0 .. nk)), the weight of
// the first of them, and the offsets.
struct DrTile {
  const float *const *rp;  // padded rows, column 0 = padded column 0
  int64_t nk;              // kernel rows inside the input
  int64_t ps;              // floats between neighbouring output pixels (s2 * C_in)
  int64_t taps;            // one kernel row's packed taps (k2 * C_in)
  const float *w;          // the group's first channel at its first valid kernel row
  int64_t wj;              // floats between taps (Cp)
};

// NP pixels from o2 x NB blocks: acc = sum over (k1, k2, ci) in that order, then + bias, stored
// at pixel stride ds (the first `valid` channels: fewer than NB * 16 only in the last group).
// Not inlined: inside the row loop GCC spilled the pixel offsets and reloaded them every tap.
template <int NP, int NB>
__attribute__((noinline)) void dr_tile(const DrTile &t, int64_t o2, const float *bias, float *d, int64_t ds, int64_t valid) {
  constexpr int NV = NB * kDrVpb;
  DrVec acc[NP][NV];
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[p][v] = DrVec{};
  const int64_t xo = o2 * t.ps;
  for (int64_t k = 0; k < t.nk; ++k) {
    const float *x = t.rp[k] + xo;
    const float *wt = t.w + k * t.taps * t.wj;
    for (int64_t j = 0; j < t.taps; ++j, wt += t.wj) {
      DrVec wv[NV];
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) wv[v] = dr_load(wt + v * kDrVw);
#pragma GCC unroll 16
      for (int p = 0; p < NP; ++p) {
        const float xs = x[p * t.ps + j];
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) acc[p][v] += xs * wv[v];
      }
    }
  }
  float *dp = d + o2 * ds;
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      const DrVec out = acc[p][v] + dr_load(bias + v * kDrVw);
      const int64_t c = v * kDrVw;
      if (c + kDrVw <= valid) {
        dr_store(dp + p * ds + c, out);
      } else if (c < valid) {  // the last block's channels past C_out are padding
        for (int i = 0; i < kDrVw; ++i)
          if (c + i < valid) dp[p * ds + c + i] = out[i];
      }
    }
  }
}

template <int NP, int NB>
inline void dr_tile_n(int64_t n, const DrTile &t, int64_t o2, const float *bias, float *d, int64_t ds,
                      int64_t valid) {
  if constexpr (NP > 1) {
    if (n < NP) return dr_tile_n<NP - 1, NB>(n, t, o2, bias, d, ds, valid);
  }
  dr_tile<NP, NB>(t, o2, bias, d, ds, valid);
}

// One output row for one group of NB blocks, in the fewest balanced tiles of at most NP pixels
// (no pixel computed twice). d is indexed by o2.
template <int NB>
void dr_row(const DrTile &t, int64_t n2, const float *bias, float *d, int64_t ds, int64_t valid) {
  constexpr int NP = dr_pixels<NB>();
  const int64_t tiles = (n2 + NP - 1) / NP;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t o = n2 * i / tiles, e = n2 * (i + 1) / tiles;
    dr_tile_n<NP, NB>(e - o, t, o, bias, d, ds, valid);
  }
}

// The row buffer [o2][ds] (channels contiguous) out to a channels-first row (channel stride sc,
// unit pixel stride): n2 pixels x nc channels. A lane-by-lane copy cost ~20% of the stem on NCHW;
// AVX-512 transposes 16 x 16 blocks in registers.
inline void dr_copy_out(const float *st, int64_t ds, int64_t n2, int64_t nc, float *out, int64_t sc) {
  int64_t o = 0;
#if OPSNN_DR_VW == 16 && !defined(OPSNN_EMULATE_AVX512)  // (SIMDe lacks _mm512_shuffle_f32x4: lane by lane)
  for (; o + 16 <= n2; o += 16) {
    for (int64_t c0 = 0; c0 < nc; c0 += 16) {
      __m512 r[16], t[16];
      for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(st + (o + i) * ds + c0);
      for (int i = 0; i < 8; ++i) {  // per 128-bit lane: (r2i[0], r2i+1[0], r2i[1], r2i+1[1]), then [2], [3]
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
      }
      for (int i = 0; i < 4; ++i) {  // r[4i + k], lane L: rows 4i..4i+3 of channel 4L + k
        r[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
      }
      for (int k = 0; k < 4; ++k) {  // channel 4L + k gathers lane L of r[k], r[4 + k], r[8 + k], r[12 + k]
        const __m512 a = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x88), b = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xDD);
        const __m512 c = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x88);
        const __m512 d = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xDD);
        t[k] = _mm512_shuffle_f32x4(a, c, 0x88);
        t[4 + k] = _mm512_shuffle_f32x4(b, d, 0x88);
        t[8 + k] = _mm512_shuffle_f32x4(a, c, 0xDD);
        t[12 + k] = _mm512_shuffle_f32x4(b, d, 0xDD);
      }
      const int64_t m = std::min<int64_t>(16, nc - c0);
      for (int64_t c = 0; c < m; ++c) _mm512_storeu_ps(out + (c0 + c) * sc + o, t[c]);
    }
  }
#endif
  for (int64_t c = 0; c < nc; ++c)
    for (int64_t p = o; p < n2; ++p) out[c * sc + p] = st[p * ds + c];
}

// The ring's geometry, shared with conv_direct_rows_scratch_floats.
struct DrRing {
  int64_t rows;   // (k1 - 1) * d1 + 1: every input row one output row reads
  int64_t width;  // padded columns read: (small2 - 1) * s2 + k2
  int64_t pitch;  // floats per ring row (width * C_in, rounded up to 16)
};
inline DrRing dr_ring(const ConvGeom &g, int64_t c_in) {
  DrRing r;
  r.rows = (g.k[1] - 1) * g.d[1] + 1;
  r.width = (g.small[2] - 1) * g.s[2] + g.k[2];
  r.pitch = (r.width * c_in + 15) / 16 * 16;
  return r;
}

// n columns of C channel rows (unit column stride, channel stride sc) interleaved into o; with C a
// constant GCC vectorises the interleave (the stem's NCHW rows: a lane-by-lane copy was ~5%).
template <int C>
inline void dr_interleave(const float *__restrict src, int64_t sc, int64_t n, float *__restrict o) {
  for (int64_t x = 0; x < n; ++x)
    for (int ci = 0; ci < C; ++ci) o[x * C + ci] = src[ci * sc + x];
}

// Input row x1 of plane src (element strides: channel sc, column s2) into ring row dst as padded
// columns [0, width) x C_in, zeros outside the input.
inline void dr_pack_row(const float *src, int64_t sc, int64_t s2, const ConvGeom &g, int64_t c_in,
                        const DrRing &ring, float *dst) {
  // (a stride past the input can leave the padding wider than the columns read)
  const int64_t p2 = std::min(g.p[2], ring.width), n = std::max<int64_t>(0, std::min(g.big[2], ring.width - p2));
  std::fill(dst, dst + p2 * c_in, 0.0f);
  std::fill(dst + (p2 + n) * c_in, dst + ring.width * c_in, 0.0f);
  if (n == 0) return;
  float *o = dst + p2 * c_in;
  if (sc == 1 && s2 == c_in) {  // channels-last: one contiguous run
    std::memcpy(o, src, static_cast<size_t>(n * c_in) * 4);
  } else if (s2 == 1 && c_in == 1) {
    std::memcpy(o, src, static_cast<size_t>(n) * 4);
  } else if (s2 == 1 && c_in == 2) {
    dr_interleave<2>(src, sc, n, o);
  } else if (s2 == 1 && c_in == 3) {
    dr_interleave<3>(src, sc, n, o);
  } else if (s2 == 1 && c_in == 4) {
    dr_interleave<4>(src, sc, n, o);
  } else {
    for (int64_t ci = 0; ci < c_in; ++ci) {
      const float *s = src + ci * sc;
      for (int64_t x = 0; x < n; ++x) o[x * c_in + ci] = s[x * s2];
    }
  }
}

// The rows loop shared by direct_rows and its channels-first variant: threads take contiguous runs
// of output rows, each with its own ring of `ring_rows` rows of `pitch` floats at the start of its
// scratch block (`scratch_floats`); an input row is packed (pack(src row, dst)) when the ring does
// not hold it yet. row_fn(n, o0, o1, rp, klo, nk, extra) computes one output row from ring rows
// rp[0 .. nk) (kernel rows klo..) with the rest of the thread's block at `extra`.
template <class Pack, class RowFn>
inline void dr_for_rows(const DirectArgs &a, float *scratch, int64_t scratch_floats, int64_t ring_rows, int64_t pitch,
                        int threads, const Pack &pack, const RowFn &row_fn) {
  const ConvGeom &g = a.g;
  const int64_t rows = a.n * g.small[0] * g.small[1];
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, rows)));
  core::parallel_for(T, 1, [&](int64_t th0, int64_t th1) {
    for (int64_t th = th0; th < th1; ++th) {
      float *ring_base = scratch + th * scratch_floats;
      // Which (plane, input row) each ring row holds (-1: none yet).
      int64_t tag_plane[64], tag_row[64];
      for (int64_t i = 0; i < ring_rows; ++i) tag_plane[i] = -1, tag_row[i] = -1;
      const int64_t r0 = rows * th / T, r1 = rows * (th + 1) / T;
      for (int64_t row = r0; row < r1; ++row) {
        const int64_t o1 = row % g.small[1], plane = row / g.small[1];
        const int64_t o0 = plane % g.small[0], n = plane / g.small[0];
        const float *src = a.in + n * a.in_sn + o0 * g.s[0] * a.in_ss[0];
        const int64_t x1 = o1 * g.s[1] - g.p[1];
        const int64_t klo = x1 >= 0 ? 0 : std::min<int64_t>(g.k[1], (-x1 + g.d[1] - 1) / g.d[1]);
        const int64_t khi =
            std::max(klo, x1 >= g.big[1] ? 0 : std::min<int64_t>(g.k[1], (g.big[1] - 1 - x1) / g.d[1] + 1));
        const float *rp[64];
        for (int64_t k = klo; k < khi; ++k) {
          const int64_t x = x1 + k * g.d[1], slot = x % ring_rows;
          float *dst = ring_base + slot * pitch;
          if (tag_plane[slot] != plane || tag_row[slot] != x) {
            pack(src + x * a.in_ss[1], dst);
            tag_plane[slot] = plane, tag_row[slot] = x;
          }
          rp[k - klo] = dst;
        }
        row_fn(n, o0, o1, rp, klo, khi - klo, ring_base + ring_rows * pitch);
      }
    }
  });
}

// The packed weight's geometry (conv_direct_rows_pack): one kernel row's taps (k2 * C_in), floats
// between taps (C_out rounded up to whole blocks), the bias after the k1 rows.
struct DrWeight {
  int64_t blocks, taps, cp;
  const float *bias;
};
inline DrWeight dr_weight(const DirectArgs &a) {
  DrWeight w;
  w.blocks = (a.c_out + kDirectBlock - 1) / kDirectBlock;
  w.taps = a.g.k[2] * a.c_in;
  w.cp = w.blocks * kDirectBlock;
  w.bias = a.w + a.g.k[1] * w.taps * w.cp;
  return w;
}

inline void direct_rows_body(const DirectArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  const DrRing ring = dr_ring(g, a.c_in);
  const DrWeight pw = dr_weight(a);
  const int64_t blocks = pw.blocks, taps = pw.taps, cp = pw.cp;
  const float *bias = pw.bias;
  const int64_t n2 = g.small[2];
  const bool staged = a.out_sc != 1;
  auto pack = [&](const float *src, float *dst) { dr_pack_row(src, a.in_sc, a.in_ss[2], g, a.c_in, ring, dst); };
  auto row_fn = [&](int64_t n, int64_t o0, int64_t o1, const float *const *rp, int64_t klo, int64_t nk, float *stage) {
    float *out = a.out + n * a.out_sn + o0 * a.out_ss[0] + o1 * a.out_ss[1];
    float *d = staged ? stage : out;
    const int64_t ds = staged ? blocks * kDirectBlock : a.out_ss[2];
    for (int64_t b0 = 0; b0 < blocks;) {
      const int64_t nb = std::min<int64_t>(blocks - b0, kDrMaxNb) == 3 ? 2 : std::min<int64_t>(blocks - b0, kDrMaxNb);
      const int64_t c0 = b0 * kDirectBlock;
      DrTile t;
      t.rp = rp;
      t.nk = nk;
      t.ps = g.s[2] * a.c_in;
      t.taps = taps;
      t.wj = cp;
      t.w = a.w + (klo * taps) * cp + c0;
      const int64_t valid = std::min<int64_t>(nb * kDirectBlock, a.c_out - c0);
      const float *bs = bias + c0;
      float *dc = d + (staged ? c0 : c0 * a.out_sc);
      switch (nb) {
#if OPSNN_DR_VW == 16
        case 4:
          dr_row<4>(t, n2, bs, dc, ds, valid);
          break;
        case 2:
          dr_row<2>(t, n2, bs, dc, ds, valid);
          break;
#endif
        default:
          dr_row<1>(t, n2, bs, dc, ds, valid);
      }
      b0 += nb;
    }
    if (staged && a.out_ss[2] == 1) {
      dr_copy_out(stage, ds, n2, a.c_out, out, a.out_sc);
    } else if (staged) {  // channel by channel out of the row buffer
      for (int64_t c = 0; c < a.c_out; ++c)
        for (int64_t o2 = 0; o2 < n2; ++o2) out[c * a.out_sc + o2 * a.out_ss[2]] = stage[o2 * ds + c];
    }
  };
  dr_for_rows(a, scratch, conv_direct_rows_scratch_floats(g, a.c_in, a.c_out), ring.rows, ring.pitch, threads, pack,
              row_fn);
}

}  // namespace
}  // namespace opsnn::kernels

// direct_rows for channels-first outputs of unit pixel stride (conv_direct_rows.h), compiled once per
// ISA unit with OPSNN_DR_VW floats per GCC vector; everything here has internal linkage.
// Vectors run along the output pixels instead of the channels, so a tile's accumulators are whole
// pieces of the output planes and are stored straight into them: no channels-last row buffer and
// no transpose (on NCHW the stem's row buffer + 16 x 16 transposes cost ~10% over NHWC). Each ring
// row holds the input row split by channel and by the width stride into phases (padded column
// X = j * s2 + q at phase q, column j), so tap (k2, ci) of VW neighbouring pixels is one contiguous
// load; the weights (the same packed layout) are broadcast. Sums in direct_rows' order.
#pragma once

#include "kernels/conv/conv_direct_rows_impl.h"

namespace opsnn::kernels {
namespace {

// Output channels per tile and pixel vectors per tile: NP * NC accumulators + NC broadcast weights
// + one loaded vector within the registers. AVX-512: 6 x 4 (stem, 112 = 7 vectors: tiles of 4 + 3;
// 7 x 4 with the pixels as memory operands and 8 x 3 measured slower); AVX2 / SSE's 16: 2 x 4 (3 x 4
// spilled an accumulator every tap: 1.7x slower).
constexpr int kDnNc = 4;
constexpr int kDnMaxNp = OPSNN_DR_VW == 16 ? 6 : 2;

// What one tile reads: the kernel rows inside the input (ring rows rp[0 .. nk)), each tap's offset
// in a ring row (toff[k2 * C_in + ci]), the weight of the first of those rows at the tile's first
// channel, floats between taps (Cp).
struct DnTile {
  const float *const *rp;
  int64_t nk, taps;
  const int64_t *toff;
  const float *w;
  int64_t wj;
};

// NP pixel vectors from pixel o2 x kDnNc channels: acc = sum over (k1, k2, ci), then + bias; stored at
// out + c * sc + o2 + p * VW for the first `valid` channels.
template <int NP>
__attribute__((noinline)) void dn_tile(const DnTile &t, int64_t o2, const float *bias, float *out, int64_t sc,
                                       int64_t valid) {
  DrVec acc[NP][kDnNc];
#pragma GCC unroll 16
  for (int p = 0; p < NP; ++p)
#pragma GCC unroll 4
    for (int c = 0; c < kDnNc; ++c) acc[p][c] = DrVec{};
  for (int64_t k = 0; k < t.nk; ++k) {
    const float *row = t.rp[k] + o2;
    const float *wt = t.w + k * t.taps * t.wj;
    for (int64_t j = 0; j < t.taps; ++j, wt += t.wj) {
      const float *x = row + t.toff[j];
      float wv[kDnNc];
#pragma GCC unroll 4
      for (int c = 0; c < kDnNc; ++c) wv[c] = wt[c];
#pragma GCC unroll 16
      for (int p = 0; p < NP; ++p) {
        const DrVec xv = dr_load(x + p * kDrVw);
#pragma GCC unroll 4
        for (int c = 0; c < kDnNc; ++c) acc[p][c] += xv * wv[c];
      }
    }
  }
#pragma GCC unroll 4
  for (int c = 0; c < kDnNc; ++c) {
    if (c >= valid) break;
#pragma GCC unroll 16
    for (int p = 0; p < NP; ++p) dr_store(out + c * sc + o2 + p * kDrVw, acc[p][c] + bias[c]);
  }
}

template <int NP>
inline void dn_tile_n(int64_t n, const DnTile &t, int64_t o2, const float *bias, float *out, int64_t sc,
                      int64_t valid) {
  if constexpr (NP > 1) {
    if (n < NP) return dn_tile_n<NP - 1>(n, t, o2, bias, out, sc, valid);
  }
  dn_tile<NP>(t, o2, bias, out, sc, valid);
}

// The ring's geometry, shared with conv_direct_rows_nchw_scratch_floats: a phase row holds the
// columns read plus 16 floats of zeros, so a vector starting at any output pixel stays inside.
struct DnRing {
  int64_t rows;   // (k1 - 1) * d1 + 1
  int64_t width;  // padded columns read: (small2 - 1) * s2 + k2
  int64_t phase;  // floats per phase row
  int64_t pitch;  // floats per ring row: C_in * s2 phase rows
};
inline DnRing dn_ring(const ConvGeom &g, int64_t c_in) {
  DnRing r;
  r.rows = (g.k[1] - 1) * g.d[1] + 1;
  r.width = (g.small[2] - 1) * g.s[2] + g.k[2];
  r.phase = ((r.width + g.s[2] - 1) / g.s[2] + 16 + 15) / 16 * 16;
  r.pitch = c_in * g.s[2] * r.phase;
  return r;
}

template <int STEP>
inline void dn_copy_strided(const float *__restrict b, int64_t n, float *__restrict o) {
  for (int64_t j = 0; j < n; ++j) o[j] = b[j * STEP];
}

// Input row `src` (element strides: channel sc, column s2) into ring row dst: per channel, per
// phase q, padded columns j * S + q for j in [0, phase), zeros outside the input.
inline void dn_pack_row(const float *src, int64_t sc, int64_t s2, const ConvGeom &g, int64_t c_in, const DnRing &r,
                        float *dst) {
  const int64_t S = g.s[2], p2 = g.p[2], W = g.big[2];
  for (int64_t ci = 0; ci < c_in; ++ci) {
    const float *s = src + ci * sc;
    for (int64_t q = 0; q < S; ++q) {
      float *o = dst + (ci * S + q) * r.phase;
      // j reads input column j * S + q - p2: inside [0, W) and a column read (< width).
      const int64_t jlo = std::min(r.phase, std::max<int64_t>(0, (p2 - q + S - 1) / S));
      const int64_t last = W - 1 + p2 - q;  // (floor division: may be negative)
      const int64_t jend = last < 0 ? 0 : std::min((r.width - q + S - 1) / S, last / S + 1);
      const int64_t jhi = std::max(jlo, std::min(r.phase, jend));
      std::fill(o, o + jlo, 0.0f);
      const float *b = s + (jlo * S + q - p2) * s2;
      const int64_t step = S * s2;
      if (step == 1) {
        std::memcpy(o + jlo, b, static_cast<size_t>(jhi - jlo) * 4);
      } else if (step == 2) {  // (a constant stride GCC vectorises: the stem's NCHW rows)
        dn_copy_strided<2>(b, jhi - jlo, o + jlo);
      } else {
        for (int64_t j = jlo; j < jhi; ++j) o[j] = b[(j - jlo) * step];
      }
      std::fill(o + jhi, o + r.phase, 0.0f);
    }
  }
}

inline void direct_rows_nchw_body(const DirectArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  const DnRing ring = dn_ring(g, a.c_in);
  const DrWeight pw = dr_weight(a);
  const int64_t taps = pw.taps, cp = pw.cp;
  const float *bias = pw.bias;
  const int64_t n2 = g.small[2], nv = (n2 + kDrVw - 1) / kDrVw;
  int64_t toff[kDirectRowsMaxRowTaps];
  for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
    for (int64_t ci = 0; ci < a.c_in; ++ci) toff[k2 * a.c_in + ci] = (ci * g.s[2] + k2 % g.s[2]) * ring.phase + k2 / g.s[2];
  auto pack = [&](const float *src, float *dst) { dn_pack_row(src, a.in_sc, a.in_ss[2], g, a.c_in, ring, dst); };
  auto row_fn = [&](int64_t n, int64_t o0, int64_t o1, const float *const *rp, int64_t klo, int64_t nk, float *stage) {
    float *out = a.out + n * a.out_sn + o0 * a.out_ss[0] + o1 * a.out_ss[1];
    // The row's nv vectors in the fewest balanced tiles of at most kDnMaxNp; the last tile ends on
    // the last pixel (overlapping its neighbour: the same values again). A row narrower than its
    // tile goes through `stage` ([kDnNc][nv * VW]).
    const int64_t tiles = (nv + kDnMaxNp - 1) / kDnMaxNp;
    for (int64_t c0 = 0; c0 < a.c_out; c0 += kDnNc) {
      DnTile t;
      t.rp = rp;
      t.nk = nk;
      t.taps = taps;
      t.toff = toff;
      t.wj = cp;
      t.w = a.w + (klo * taps) * cp + c0;
      const int64_t valid = std::min<int64_t>(kDnNc, a.c_out - c0);
      for (int64_t i = 0; i < tiles; ++i) {
        const int64_t v0 = nv * i / tiles, v1 = nv * (i + 1) / tiles, pix = (v1 - v0) * kDrVw;
        const int64_t o2 = std::min(v0 * kDrVw, n2 - pix);
        if (o2 >= 0) {
          dn_tile_n<kDnMaxNp>(v1 - v0, t, o2, bias + c0, out + c0 * a.out_sc, a.out_sc, valid);
        } else {
          dn_tile_n<kDnMaxNp>(v1 - v0, t, 0, bias + c0, stage, pix, valid);
          for (int64_t c = 0; c < valid; ++c)
            std::memcpy(out + (c0 + c) * a.out_sc, stage + c * pix, static_cast<size_t>(n2) * 4);
        }
      }
    }
  };
  dr_for_rows(a, scratch, conv_direct_rows_nchw_scratch_floats(g, a.c_in, a.c_out), ring.rows, ring.pitch, threads,
              pack, row_fn);
}

}  // namespace
}  // namespace opsnn::kernels

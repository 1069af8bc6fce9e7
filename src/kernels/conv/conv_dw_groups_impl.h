// The 3x3 row-group depthwise kernel (conv_dw_rows.h, conv_dw_groups_*), compiled once per ISA
// unit beside the row ring it shares (conv_dw_rows_impl.h). Everything here has internal linkage.
//
// Why groups: with output rows in pairs and one vector at a time past the first four, the 112-wide
// (7 vectors) and 56-wide (3.5) MobileNet rows ran their tails on 2 FMA chains of 9 dependent
// FMAs each, latency-bound. Here G output rows x NV vectors accumulate together (AVX-512: 4 x 4 =
// 16 chains + 9 weights in registers), every loaded input vector feeds each of the G rows whose
// window holds it, and the ring rows start on whole vectors.
#pragma once

#include <algorithm>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/conv/conv_dw_rows_impl.h"

namespace opsnn::kernels {
namespace {

#if OPSNN_DW_VW == 16
constexpr int kDwGroupRows = 4, kDwGroupNv = 4;  // 16 accumulators + 9 weights of 32 zmm
#else
constexpr int kDwGroupRows = 2, kDwGroupNv = 2;  // 4 + 9 of 16 ymm / xmm
#endif
constexpr int64_t kDwGroupMaxRows = 4;  // the widest unit's (the scratch does not depend on the unit)

// A phase row rounded to whole vectors of the widest unit, so every ring row starts aligned.
inline int64_t dw_group_plen(const ConvGeom &g) { return (dw_phase_len(g) + kDwMaxVw - 1) / kDwMaxVw * kDwMaxVw; }
// Input rows of one group of output rows at row stride s1.
inline int64_t dw_group_ring_rows(const ConvGeom &g) { return (kDwGroupMaxRows - 1) * g.s[1] + 3; }
// One thread's scratch: the ring, one ring row of zeros (rows in the padding), then per output
// channel of the input channel its 9 taps and bias.
inline int64_t dw_groups_floats(const ConvGeom &g, int64_t mult) {
  const int64_t rlen = g.s[2] * dw_group_plen(g);
  return ((dw_group_ring_rows(g) + 1) * rlen + mult * 10 + kDwMaxVw - 1) / kDwMaxVw * kDwMaxVw;
}

// G output rows (row stride S1) x NV vectors at columns j, j + VW, ..., the last at jl (overlapping
// the previous one at the row's end: the same values again). Input row i of the group is r[i];
// output row q reads rows q * S1 .. q * S1 + 2. Each sum runs over (k1, k2) in order, then + bias:
// the same order as depthwise_rows, whatever G and NV.
template <int G, int S1, int NV>
inline void dw_group_block(const float *const *r, const DwVec *wv, const int64_t *toff, const DwVec &bv, int64_t j,
                           int64_t jl, float *dst, int64_t ostride) {
  constexpr int kRows = (G - 1) * S1 + 3;
  DwVec acc[G][NV];
  for (int q = 0; q < G; ++q)
    for (int v = 0; v < NV; ++v) acc[q][v] = DwVec{};
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i)
#pragma GCC unroll 3
    for (int k2 = 0; k2 < 3; ++k2) {
      const float *src = r[i] + toff[k2];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const DwVec x = dw_load(src + (v == NV - 1 ? jl : j + v * kDwVw));
#pragma GCC unroll 4
        for (int q = 0; q < G; ++q) {
          const int k1 = i - q * S1;  // (compile-time once unrolled)
          if (k1 >= 0 && k1 <= 2) acc[q][v] += wv[k1 * 3 + k2] * x;
        }
      }
    }
  for (int q = 0; q < G; ++q)
    for (int v = 0; v < NV; ++v) dw_store(dst + q * ostride + (v == NV - 1 ? jl : j + v * kDwVw), acc[q][v] + bv);
}

// One group's n2 columns (n2 >= the unit's vector): chunks of kDwGroupNv vectors, then the rest.
template <int G, int S1>
inline void dw_group_rows(const float *const *r, const DwVec *wv, const int64_t *toff, const DwVec &bv, int64_t n2,
                          float *dst, int64_t ostride) {
  const int64_t nvec = (n2 + kDwVw - 1) / kDwVw, last = n2 - kDwVw;
  int64_t v0 = 0;
  for (; v0 + kDwGroupNv <= nvec; v0 += kDwGroupNv) {
    const int64_t j = v0 * kDwVw;
    const int64_t jl = v0 + kDwGroupNv == nvec ? last : j + (kDwGroupNv - 1) * kDwVw;
    dw_group_block<G, S1, kDwGroupNv>(r, wv, toff, bv, j, jl, dst, ostride);
  }
  const int64_t j = v0 * kDwVw;
  switch (nvec - v0) {
#if OPSNN_DW_VW == 16
    case 3: dw_group_block<G, S1, 3>(r, wv, toff, bv, j, last, dst, ostride); break;
#endif
    case 2: dw_group_block<G, S1, 2>(r, wv, toff, bv, j, last, dst, ostride); break;
    case 1: dw_group_block<G, S1, 1>(r, wv, toff, bv, j, last, dst, ostride); break;
    default: break;
  }
}

template <int S1>
inline void dw_group_dispatch(int64_t rows, const float *const *r, const DwVec *wv, const int64_t *toff,
                              const DwVec &bv, int64_t n2, float *dst, int64_t ostride) {
  switch (rows) {
#if OPSNN_DW_VW == 16
    case 4: dw_group_rows<4, S1>(r, wv, toff, bv, n2, dst, ostride); break;
    case 3: dw_group_rows<3, S1>(r, wv, toff, bv, n2, dst, ostride); break;
#endif
    case 2: dw_group_rows<2, S1>(r, wv, toff, bv, n2, dst, ostride); break;
    default: dw_group_rows<1, S1>(r, wv, toff, bv, n2, dst, ostride); break;
  }
}

// Phase 1's conditions: 2-D (dim 0 a unit kernel), 3x3, dilation 1, row stride 1 or 2, output FLOAT
// rows of unit stride at least kDwMaxVw wide; any input dtype and layout (the ring converts).
inline void dw_groups_body(const DepthwiseArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  int64_t e[3];
  padded_extent(g, e);
  const int64_t s1 = g.s[1], s2 = g.s[2], p2 = g.p[2], plen = dw_group_plen(g), rlen = s2 * plen;
  const int64_t R = dw_group_ring_rows(g), n2 = g.small[2], H = g.big[1];
  const int64_t cols = std::max<int64_t>(0, std::min<int64_t>(g.big[2], e[2] - p2));  // input columns ever read
  const int64_t per = dw_groups_floats(g, a.mult);
  const int64_t ies = static_cast<int64_t>(esize_of(a.in.dtype));
  const DwItems work = dw_items(a, threads);
  const int64_t items = work.items;
  const int T = work.threads;
  int64_t toff[3];  // tap k2 reads phase k2 % s2 at index o2 + k2 / s2
  for (int64_t k2 = 0; k2 < 3; ++k2) toff[k2] = (k2 % s2) * plen + k2 / s2;
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      float *ring = scratch + t * per;
      const float *zrow = ring + R * rlen;
      float *wf = ring + (R + 1) * rlen;  // [mult][9], then [mult] biases
      float *bf = wf + a.mult * 9;
      std::fill(ring, ring + (R + 1) * rlen, 0.0f);
      std::vector<int64_t> slot_row(static_cast<size_t>(R));  // the input row each ring row holds
      int64_t wf_ci = -1;  // the input channel whose weights wf holds
      const int64_t i0 = items * t / T, i1 = items * (t + 1) / T;
      for (int64_t it = i0; it < i1; ++it) {
        const DwItem item = dw_item(a, work, it);
        const int64_t n = item.n, ci = item.ci, x0 = item.x0, o1a = item.o1a, o1b = item.o1b;
        if (ci != wf_ci) {
          dw_load_weights(a, ci, 3, 3, wf, bf);
          wf_ci = ci;
        }
        std::fill(slot_row.begin(), slot_row.end(), int64_t{-1});
        const char *in = a.in.base + ies * (n * a.in_sn + ci * a.in.sc + x0 * a.in.ss[0]);
        // Ring row of the group's first input row, kept without a division (perf: per-row modulos
        // cost more than the s2 group's FMAs).
        int64_t slot0 = ((o1a * s1 - g.p[1]) % R + R) % R;
        for (int64_t o1 = o1a; o1 < o1b; o1 += kDwGroupRows, slot0 = (slot0 + kDwGroupRows * s1) % R) {
          const int64_t rows = std::min<int64_t>(kDwGroupRows, o1b - o1);
          // The group's input rows: inside the image from the ring (each copied the first time a
          // group reads it; input row x lives in ring row x mod R), the padding's the zero row.
          const float *r[(kDwGroupMaxRows - 1) * 2 + 3];
          const int64_t x_first = o1 * s1 - g.p[1];
          for (int64_t i = 0, slot = slot0; i < (rows - 1) * s1 + 3; ++i, slot = slot + 1 == R ? 0 : slot + 1) {
            const int64_t x = x_first + i;
            if (x < 0 || x >= H) {
              r[i] = zrow;
              continue;
            }
            r[i] = dw_ring_fetch(a, in, x, cols, plen, ring + slot * rlen, slot_row[static_cast<size_t>(slot)]);
          }
          for (int64_t m = 0; m < a.mult; ++m) {
            const int64_t co = ci * a.mult + m;
            float *dst = reinterpret_cast<float *>(a.out_base) + n * a.out_sn + co * a.out.sc + x0 * a.out.ss[0] +
                         o1 * a.out.ss[1];
            DwVec wv[9];
            for (int k = 0; k < 9; ++k) wv[k] = DwVec{} + wf[m * 9 + k];
            const DwVec bv = DwVec{} + bf[m];
            if (s1 == 1) dw_group_dispatch<1>(rows, r, wv, toff, bv, n2, dst, a.out.ss[1]);
            else dw_group_dispatch<2>(rows, r, wv, toff, bv, n2, dst, a.out.ss[1]);
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

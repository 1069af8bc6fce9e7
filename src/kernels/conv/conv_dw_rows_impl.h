// The row-ring depthwise kernel (conv_dw_rows.h), compiled once per ISA unit (conv_dw_rows.cpp
// portable, conv_dw_rows_avx2.cpp, conv_dw_rows_avx512.cpp) with OPSNN_DW_VW floats per GCC vector;
// the tap loops are conv_depthwise_impl.h's (dw_run). Everything here has internal linkage.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/conv/conv_depthwise_impl.h"
#include "kernels/conv/conv_dw_rows.h"

namespace opsnn::kernels {
namespace {

// Rows the ring holds: every input row two consecutive output rows' taps read at strides 1 and 2.
inline int64_t dw_ring_rows(const ConvGeom &g) { return (g.k[1] - 1) * g.d[1] + 1 + std::min<int64_t>(g.s[1], 2); }

// One thread's scratch: the ring (dw_ring_rows rows of s2 phase rows of dw_phase_len floats), one
// output row in whole vectors of the widest unit, per output channel of the input channel its taps
// and bias (fp32), then one ring row of zeros. The same for every unit.
inline int64_t dw_rows_floats(const ConvGeom &g, int64_t mult) {
  const int64_t ring = dw_ring_rows(g) * g.s[2] * dw_phase_len(g);
  const int64_t orow = (g.small[2] + kDwMaxVw - 1) / kDwMaxVw * kDwMaxVw;
  return (ring + orow + mult * (g.k[1] * g.k[2] + 1) + g.s[2] * dw_phase_len(g) + 2 * kDwMaxVw - 1) / kDwMaxVw *
         kDwMaxVw;
}

// even[i] = src[2i], odd[i] = src[2i + 1] for i < pairs: two vectors in, two out.
inline void dw_deinterleave(const float *src, int64_t pairs, float *even, float *odd) {
  int64_t i = 0;
  for (; i + kDwVw <= pairs; i += kDwVw) {
    const DwVec lo = dw_load(src + 2 * i), hi = dw_load(src + 2 * i + kDwVw);
#if OPSNN_DW_VW == 16
    dw_store(even + i, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
    dw_store(odd + i, __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
#elif OPSNN_DW_VW == 8
    dw_store(even + i, __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14));
    dw_store(odd + i, __builtin_shufflevector(lo, hi, 1, 3, 5, 7, 9, 11, 13, 15));
#else
    dw_store(even + i, __builtin_shufflevector(lo, hi, 0, 2, 4, 6));
    dw_store(odd + i, __builtin_shufflevector(lo, hi, 1, 3, 5, 7));
#endif
  }
  if (i < pairs && pairs >= kDwVw) {  // the last pairs as one more vector over the previous (the same values)
    dw_deinterleave(src + 2 * (pairs - kDwVw), kDwVw, even + pairs - kDwVw, odd + pairs - kDwVw);
    return;
  }
  for (; i < pairs; ++i) {
    even[i] = src[2 * i];
    odd[i] = src[2 * i + 1];
  }
}

// Input columns [0, cols) of one row (dtype dt, element stride es2) into a ring row of s2 phase rows
// of plen floats: padded column c + p2 goes to phase (c + p2) % s2, index (c + p2) / s2. The other
// entries are never written (zeros since the ring was cleared).
inline void dw_fill_row(aclDataType dt, const char *src, int64_t es2, int64_t cols, int64_t s2, int64_t p2,
                        int64_t plen, float *dst) {
  if (cols <= 0) return;
  if (s2 == 1 && dt == ACL_FLOAT && es2 == 1) {  // (a libc call per row cost more than the copy)
    const float *f = reinterpret_cast<const float *>(src);
    float *d = dst + p2;
    int64_t i = 0;
    for (; i + kDwVw <= cols; i += kDwVw) dw_store(d + i, dw_load(f + i));
    if (i < cols && cols >= kDwVw) dw_store(d + cols - kDwVw, dw_load(f + cols - kDwVw));  // (overlapping)
    else
      for (; i < cols; ++i) d[i] = f[i];
    return;
  }
  if (s2 == 1) {
    load_row(dt, src, es2, cols, dst + p2);
    return;
  }
  if (s2 == 2 && dt == ACL_FLOAT && es2 == 1) {
    // Column 2i goes to phase p2 % 2 at i + p2 / 2, column 2i + 1 to the other at i + (p2 + 1) / 2.
    const float *f = reinterpret_cast<const float *>(src);
    float *a = dst + (p2 & 1) * plen + p2 / 2, *b = dst + (1 - (p2 & 1)) * plen + (p2 + 1) / 2;
    dw_deinterleave(f, cols / 2, a, b);
    if (cols % 2 != 0) {
      const int64_t pc = cols - 1 + p2;
      dst[(pc % 2) * plen + pc / 2] = f[cols - 1];
    }
    return;
  }
  const int64_t es = static_cast<int64_t>(esize_of(dt));
  for (int64_t q = 0; q < s2; ++q) {
    const int64_t c0 = ((q - p2) % s2 + s2) % s2;  // the first column of phase q
    if (c0 >= cols) continue;
    load_row(dt, src + es * c0 * es2, s2 * es2, (cols - 1 - c0) / s2 + 1, dst + q * plen + (c0 + p2) / s2);
  }
}

// Ring row `row` with input row x of the plane at `in` (phase rows of plen floats), copied in
// unless it already holds it (`held`: the input row it holds).
inline float *dw_ring_fetch(const DepthwiseArgs &a, const char *in, int64_t x, int64_t cols, int64_t plen, float *row,
                            int64_t &held) {
  if (held != x) {
    const int64_t ies = static_cast<int64_t>(esize_of(a.in.dtype));
    dw_fill_row(a.in.dtype, in + ies * x * a.in.ss[1], a.in.ss[2], cols, a.g.s[2], a.g.p[2], plen, row);
    held = x;
  }
  return row;
}

// 3x3 kernels: output columns [0, j1) (whole vectors) of one row from three tap rows (a row in the
// padding points at a zero row: it adds +0), the 9 weights and the bias broadcast.
inline void dw3_cover(const float *const *r, const DwVec *wv, const int64_t *toff, const DwVec &bv, int64_t j1,
                      float *dst) {
  int64_t j = 0;
  for (; j + 8 * kDwVw <= j1; j += 8 * kDwVw) dw_k3_block<3, 8>(r, wv, toff, bv, j, dst + j);
  switch ((j1 - j) / kDwVw) {
    case 7: dw_k3_block<3, 7>(r, wv, toff, bv, j, dst + j); break;
    case 6: dw_k3_block<3, 6>(r, wv, toff, bv, j, dst + j); break;
    case 5: dw_k3_block<3, 5>(r, wv, toff, bv, j, dst + j); break;
    case 4: dw_k3_block<3, 4>(r, wv, toff, bv, j, dst + j); break;
    case 3: dw_k3_block<3, 3>(r, wv, toff, bv, j, dst + j); break;
    case 2: dw_k3_block<3, 2>(r, wv, toff, bv, j, dst + j); break;
    case 1: dw_k3_block<3, 1>(r, wv, toff, bv, j, dst + j); break;
    default: break;
  }
}

// 3x3 rows in pairs at row stride S1 (1 or 2): output rows A and B = A + 1 read input rows
// r[0..2] and r[S1..S1+2], so each input vector loaded from a shared row feeds both (stride 1: two
// thirds of the loads of one row at a time; stride 2: five sixths); the taps accumulate in the
// single-row order, so a row's values do not depend on the pairing.
template <int NV, int S1>
inline void dw3_pair_block(const float *const *r, const DwVec *wv, const int64_t *toff, const DwVec &bv, int64_t j,
                           float *da, float *db) {
  DwVec acc_a[NV], acc_b[NV];
  for (int v = 0; v < NV; ++v) acc_a[v] = acc_b[v] = DwVec{};
  // (fully unrolled: the row tests are then compile-time)
#pragma GCC unroll 5
  for (int i = 0; i < 3 + S1; ++i)
#pragma GCC unroll 3
    for (int k2 = 0; k2 < 3; ++k2) {
      const float *src = r[i] + j + toff[k2];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const DwVec x = dw_load(src + v * kDwVw);
        if (i <= 2) acc_a[v] += wv[i * 3 + k2] * x;
        if (i >= S1) acc_b[v] += wv[(i - S1) * 3 + k2] * x;
      }
    }
  for (int v = 0; v < NV; ++v) {
    dw_store(da + v * kDwVw, acc_a[v] + bv);
    dw_store(db + v * kDwVw, acc_b[v] + bv);
  }
}
constexpr int kDwPairNv = kDwVw == 16 ? 4 : 2;  // 2 * NV accumulators + 9 weights within the registers
// Columns [0, j1) (whole vectors), then the last vector overlapping the previous when n2 > j1.
template <int S1>
inline void dw3_pair_row(const float *const *r, const DwVec *wv, const int64_t *toff, const DwVec &bv, int64_t j1,
                         int64_t n2, float *da, float *db) {
  int64_t j = 0;
  for (; j + kDwPairNv * kDwVw <= j1; j += kDwPairNv * kDwVw)
    dw3_pair_block<kDwPairNv, S1>(r, wv, toff, bv, j, da + j, db + j);
  for (; j < j1; j += kDwVw) dw3_pair_block<1, S1>(r, wv, toff, bv, j, da + j, db + j);
  if (j1 < n2) dw3_pair_block<1, S1>(r, wv, toff, bv, n2 - kDwVw, da + n2 - kDwVw, db + n2 - kDwVw);
}

// Work items: (image, input channel, dim-0 slice) planes, split into row chunks when too few for
// the threads (each chunk refills its ring; every output row is computed the same way).
struct DwItems {
  int64_t chunks, items;
  int threads;
};
// Item it's plane: image n, input channel ci, dim-0 slice x0, and its chunk of output rows [o1a, o1b).
struct DwItem {
  int64_t n, ci, x0, o1a, o1b;
};
inline DwItem dw_item(const DepthwiseArgs &a, const DwItems &w, int64_t it) {
  const int64_t plane = it / w.chunks, chunk = it % w.chunks, d0 = a.g.big[0], n1 = a.g.small[1];
  return {plane / (d0 * a.c_in), (plane / d0) % a.c_in, plane % d0, n1 * chunk / w.chunks,
          n1 * (chunk + 1) / w.chunks};
}
inline DwItems dw_items(const DepthwiseArgs &a, int threads) {
  const int64_t planes = a.n * a.c_in * a.g.big[0], n1 = a.g.small[1];
  const int64_t chunks =
      threads <= 1 || planes >= 4 * threads ? 1 : std::min<int64_t>(n1, (4 * threads + planes - 1) / planes);
  const int64_t items = planes * chunks;
  return {chunks, items, static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, items)))};
}

// The kh x kw taps (fp32, [mult][kh][kw]) and biases ([mult]) of input channel ci's output channels.
inline void dw_load_weights(const DepthwiseArgs &a, int64_t ci, int64_t kh, int64_t kw, float *wf, float *bf) {
  const int64_t wes = static_cast<int64_t>(esize_of(a.w_dtype)), bes = static_cast<int64_t>(esize_of(a.bias_dtype));
  for (int64_t m = 0; m < a.mult; ++m) {
    const int64_t co = ci * a.mult + m;
    const char *w = a.w + wes * co * a.w_s0;
    for (int64_t k1 = 0; k1 < kh; ++k1)
      for (int64_t k2 = 0; k2 < kw; ++k2)
        wf[(m * kh + k1) * kw + k2] = conv_load(a.w_dtype, w + wes * (k1 * a.w_ss[1] + k2 * a.w_ss[2]));
    bf[m] = a.bias != nullptr ? conv_load(a.bias_dtype, a.bias + bes * co * a.bias_s) : 0.0f;
  }
}

inline void dw_rows_body(const DepthwiseArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;  // k[0] = s[0] = 1, p[0] = 0; k[1], k[2] <= kDwRowsMaxTaps (phase 1)
  int64_t e[3];
  padded_extent(g, e);
  const int64_t s2 = g.s[2], p2 = g.p[2], plen = dw_phase_len(g), rlen = s2 * plen, R = dw_ring_rows(g);
  const int64_t kh = g.k[1], kw = g.k[2], kk = kh * kw, n2 = g.small[2], H = g.big[1];
  const int64_t s1r = g.s[1] % R;
  const bool k33 = kh == 3 && kw == 3;
  const int64_t cols = std::max<int64_t>(0, std::min<int64_t>(g.big[2], e[2] - p2));  // input columns ever read
  const int64_t per = dw_rows_floats(g, a.mult);
  const int64_t ies = static_cast<int64_t>(esize_of(a.in.dtype)), oes = static_cast<int64_t>(esize_of(a.out.dtype));
  // Whole vectors straight into FLOAT rows of unit stride (the last one overlapping the previous: the
  // same values again); otherwise a row buffer converted on the way out.
  const bool direct = a.out.dtype == ACL_FLOAT && a.out.ss[2] == 1 && n2 >= kDwVw;
  const int64_t full = n2 / kDwVw * kDwVw, whole = (n2 + kDwVw - 1) / kDwVw * kDwVw;
  const bool pairs = k33 && g.s[1] <= 2 && g.d[1] == 1 && direct;  // (R = 3 + s1: both rows' taps)
  const DwItems work = dw_items(a, threads);
  const int64_t items = work.items;
  const int T = work.threads;
  int64_t toff[kDwRowsMaxTaps];  // tap k2 reads phase (k2*d2) % s2 at index o2 + (k2*d2) / s2
  for (int64_t k2 = 0; k2 < kw; ++k2) toff[k2] = ((k2 * g.d[2]) % s2) * plen + (k2 * g.d[2]) / s2;
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      float *ring = scratch + t * per;
      float *obuf = ring + R * rlen;
      float *wf = obuf + (n2 + kDwMaxVw - 1) / kDwMaxVw * kDwMaxVw;  // [mult][kh][kw], then [mult] biases
      float *bf = wf + a.mult * kk;
      const float *zrow = bf + a.mult;  // rlen zeros (3x3 taps in the padding)
      std::fill(ring, ring + R * rlen, 0.0f);
      std::fill(bf + a.mult, bf + a.mult + rlen, 0.0f);
      std::vector<int64_t> slot_row(static_cast<size_t>(R));  // the input row each ring row holds
      const float *rp[kDwRowsMaxTaps], *wp[kDwRowsMaxTaps];
      int64_t taps_k1[kDwRowsMaxTaps];
      int64_t wf_ci = -1;  // the input channel whose weights wf holds
      const int64_t i0 = items * t / T, i1 = items * (t + 1) / T;
      for (int64_t it = i0; it < i1; ++it) {
        const DwItem item = dw_item(a, work, it);
        const int64_t n = item.n, ci = item.ci, x0 = item.x0, o1a = item.o1a, o1b = item.o1b;
        if (ci != wf_ci) {
          dw_load_weights(a, ci, kh, kw, wf, bf);
          wf_ci = ci;
        }
        std::fill(slot_row.begin(), slot_row.end(), int64_t{-1});
        const char *in = a.in.base + ies * (n * a.in_sn + ci * a.in.sc + x0 * a.in.ss[0]);
        // The taps' input rows of output row o1 inside the image (rows in the padding contribute
        // nothing; 3x3 kernels point them at the zero row instead), each copied into the ring the
        // first time it is needed: input row x lives in ring row x mod R, xr being the first tap's.
        auto gather = [&](int64_t o1, int64_t xr, const float **rows, int64_t *k1s) {
          int64_t nt = 0;
          for (int64_t k1 = 0, r = xr; k1 < kh; ++k1, r = r + g.d[1] >= R ? r + g.d[1] - R : r + g.d[1]) {
            const int64_t x = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
            if (x < 0 || x >= H) {
              if (k33) {
                rows[nt] = zrow;
                k1s[nt++] = k1;
              }
              continue;
            }
            rows[nt] = dw_ring_fetch(a, in, x, cols, plen, ring + r * rlen, slot_row[static_cast<size_t>(r)]);
            k1s[nt++] = k1;
          }
          return nt;
        };
        auto next = [&](int64_t xr) { return xr + s1r >= R ? xr + s1r - R : xr + s1r; };  // (no division)
        int64_t xr = ((o1a * g.s[1] - g.p[1]) % R + R) % R;
        for (int64_t o1 = o1a; o1 < o1b; ++o1, xr = next(xr)) {
          const int64_t nt = gather(o1, xr, rp, taps_k1);
          if (pairs && o1 + 1 < o1b) {  // rows o1 and o1 + 1 together
            const float *rb[3];
            int64_t kb[3];
            gather(o1 + 1, next(xr), rb, kb);
            const float *r5[5] = {rp[0], rp[1], rp[2], g.s[1] == 1 ? rb[2] : rb[1], rb[2]};
            for (int64_t m = 0; m < a.mult; ++m) {
              const int64_t co = ci * a.mult + m;
              float *da = reinterpret_cast<float *>(a.out_base) + n * a.out_sn + co * a.out.sc + x0 * a.out.ss[0] +
                          o1 * a.out.ss[1];
              float *db = da + a.out.ss[1];
              DwVec wv[9];
              for (int i = 0; i < 9; ++i) wv[i] = DwVec{} + wf[m * 9 + i];
              const DwVec bv = DwVec{} + bf[m];
              if (g.s[1] == 1) dw3_pair_row<1>(r5, wv, toff, bv, full, n2, da, db);
              else dw3_pair_row<2>(r5, wv, toff, bv, full, n2, da, db);
            }
            ++o1;
            xr = next(xr);
            continue;
          }
          for (int64_t m = 0; m < a.mult; ++m) {
            const int64_t co = ci * a.mult + m;
            char *orow = a.out_base + oes * (n * a.out_sn + co * a.out.sc + x0 * a.out.ss[0] + o1 * a.out.ss[1]);
            if (k33) {
              DwVec wv[9];
              for (int i = 0; i < 9; ++i) wv[i] = DwVec{} + wf[m * 9 + i];
              const DwVec bv = DwVec{} + bf[m];
              float *dst = direct ? reinterpret_cast<float *>(orow) : obuf;
              dw3_cover(rp, wv, toff, bv, direct ? full : whole, dst);
              if (direct && full < n2) dw_k3_block<3, 1>(rp, wv, toff, bv, n2 - kDwVw, dst + n2 - kDwVw);
              if (!direct) store_row(a.out.dtype, obuf, n2, orow, a.out.ss[2]);
              continue;
            }
            for (int64_t tt = 0; tt < nt; ++tt) wp[tt] = wf + m * kk + taps_k1[tt] * kw;
            if (direct) {
              float *dst = reinterpret_cast<float *>(orow);
              dw_run(rp, wp, nt, toff, kw, bf[m], 0, full, 0, dst);
              if (full < n2) dw_run(rp, wp, nt, toff, kw, bf[m], 0, kDwVw, n2 - kDwVw, dst + n2 - kDwVw);
            } else {
              dw_run(rp, wp, nt, toff, kw, bf[m], 0, whole, 0, obuf);
              store_row(a.out.dtype, obuf, n2, orow, a.out.ss[2]);
            }
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

// The in-place 3x3 depthwise kernel at strides 1 and 2 (conv_dw_in_place.h), compiled once per ISA
// unit (conv_dw_in_place.cpp portable, conv_dw_in_place_avx2.cpp, conv_dw_in_place_avx512.cpp) with
// OPSNN_DW_VW floats per GCC vector. Everything here has internal linkage.
//
// Why: depthwise_row_groups copies every input row into a ring and recomputes the group's row
// pointers, tap offsets and edge cases per group of 4 output rows; at 112x112 its copy, bookkeeping
// and spills left the FMA pipes ~3/4 idle (PERFORMANCE.md, "NCHW depthwise in place"). Here a column
// strip of NV vectors walks down the plane once: each input row's three taps are built once (stride
// 1: one load per vector, the neighbours' lanes joined by a shuffle; stride 2: the even / odd
// columns of two loads deinterleaved) and feed the output rows whose windows hold the row, whose
// accumulators roll through registers; an output row is stored when its last tap row is in. The
// padding's columns are lanes shifted in as zeros, its rows are skipped (they would add +0). The
// same order of sums as depthwise_rows / row_groups (k1, k2 in order from +0, then + bias):
// bit-identical results.
#pragma once

#include <algorithm>
#include <type_traits>
#include <utility>

#include "core/thread_pool.h"
#include "kernels/conv/conv_depthwise_impl.h"
#include "kernels/conv/conv_dw_in_place.h"

namespace opsnn::kernels {
namespace {

// Lanes K, K + M, K + 2M, ... of a's and then b's 2 VW lanes (one two-source shuffle).
template <int K, int M, int... I>
inline DwVec dw_lanes(DwVec a, DwVec b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (K + M * I)...);
}
template <int K, int M>
inline DwVec dw_lanes(DwVec a, DwVec b) {
  return dw_lanes<K, M>(a, b, std::make_integer_sequence<int, kDwVw>{});
}
// a's last lane then b's first VW - 1 (the left tap of b), resp. a's last VW - 1 then b's first (the
// right tap of a); with a zero vector: the padding's column shifted in.
inline DwVec dw_join_left(DwVec a, DwVec b) { return dw_lanes<kDwVw - 1, 1>(a, b); }
inline DwVec dw_join_right(DwVec a, DwVec b) { return dw_lanes<1, 1>(a, b); }
inline DwVec dw_shift_in_left(DwVec v) { return dw_join_left(DwVec{}, v); }
inline DwVec dw_shift_in_right(DwVec v) { return dw_join_right(v, DwVec{}); }

// Input rows this far ahead are prefetched, the strip's columns [c0, c1) of each: from DRAM (batch 8,
// 26 MB of input) the loads interleaved with the FMAs kept too few misses in flight (kernel alone,
// 64x112x112 s2 batch 8: 1.34-1.44 ms without, 0.85-0.87 at 12 rows, 0.94 at 8, 0.82-0.96 at 16).
constexpr int64_t kDwPrefetchRows = 12;
inline void dw_prefetch_cols(const float *row, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; c += 16) __builtin_prefetch(row + c);
  __builtin_prefetch(row + c1 - 1);
}

// Column strip geometry: output vectors at j, j + VW, ..., the last at jl (overlapping the previous
// one at the row's end: the same values again). P2 (0 or 1) is the width padding: output column o
// reads input columns o - P2 .. o - P2 + 2. FIRST: the strip's first vector starts at column 0 (with
// P2 = 1 its left tap shifts a zero in); LAST: its last vector ends the row (with P2 = 1 the right
// tap shifts a zero in). Every other load lies inside the row (phase 1: output rows >= VW wide).
// Stride 2 likewise with its own taps (dw_s2_taps).
struct DwStrip {
  const float *in;  // the plane's first input row
  int64_t irs;      // input row stride (floats)
  float *out;       // the output row o1a's first column
  int64_t ors;      // output row stride (floats)
  int64_t j, jl;
};

// One input row's step: its taps feed the output rows receiving k1 = 0 (acc[A0], started here from
// +0), k1 = 1 (acc[A1]) and k1 = 2 (acc[A2], stored after this row when `done` is set). `row` is
// null for a row in the padding.
template <int NV, int P2, bool FIRST, bool LAST, int A0, int A1, int A2>
inline void dw_s1_step(DwVec (&acc)[3][NV], const float *row, const DwVec *wv, const DwVec &bv, int64_t j, int64_t jl,
                       float *done) {
  for (int v = 0; v < NV; ++v) acc[A0][v] = DwVec{};
  if (row != nullptr) {
    DwVec xs[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) xs[v] = dw_load(row + (v == NV - 1 ? jl : j + v * kDwVw) - P2 + 1);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const int64_t c = v == NV - 1 ? jl : j + v * kDwVw;
      DwVec xl, xm = xs[v], xr;
      const float *p = row + c - P2;
      // Neighbours inside the strip by one shuffle each (not a second and third unaligned load: 72
      // against 82-96 us on the 32x112x112 layer); the strip's ends and an overlapping last vector load.
      if (P2 == 1 && FIRST && v == 0) xl = dw_shift_in_left(xm);
      else if (v > 0 && !(LAST && v == NV - 1)) xl = dw_join_left(xs[v - 1], xm);
      else xl = dw_load(p);
      if (P2 == 1 && LAST && v == NV - 1) xr = dw_shift_in_right(xm);
      else if (v < NV - 1 && !(LAST && v + 1 == NV - 1)) xr = dw_join_right(xm, xs[v + 1]);
      else xr = dw_load(p + 2);
      acc[A2][v] += wv[6] * xl;
      acc[A2][v] += wv[7] * xm;
      acc[A2][v] += wv[8] * xr;
      acc[A1][v] += wv[3] * xl;
      acc[A1][v] += wv[4] * xm;
      acc[A1][v] += wv[5] * xr;
      acc[A0][v] += wv[0] * xl;
      acc[A0][v] += wv[1] * xm;
      acc[A0][v] += wv[2] * xr;
    }
  }
  if (done != nullptr)
    for (int v = 0; v < NV; ++v) dw_store(done + (v == NV - 1 ? jl : j + v * kDwVw), acc[A2][v] + bv);
}

// Output rows [o1a, o1b) of one strip: input rows x = o1a - p1 .. o1b - p1 + 1 in order, x's step
// completing output row x + p1 - 2. Unrolled by 3 so the accumulators' roles rotate at compile time.
template <int NV, int P2, bool FIRST, bool LAST>
inline void dw_s1_strip(const DwStrip &s, int64_t H, int64_t p1, int64_t o1a, int64_t o1b, const DwVec *wv,
                        const DwVec &bv) {
  DwVec acc[3][NV];
  for (int q = 0; q < 3; ++q)
    for (int v = 0; v < NV; ++v) acc[q][v] = DwVec{};
  const int64_t x_end = o1b - p1 + 2;  // (exclusive)
  auto row = [&](int64_t x) { return x >= 0 && x < H ? s.in + x * s.irs : nullptr; };
  auto done = [&](int64_t x) { return x + p1 - 2 >= o1a ? s.out + (x + p1 - 2 - o1a) * s.ors : nullptr; };
  const int64_t c0 = std::max<int64_t>(0, s.j - P2), c1 = s.jl + kDwVw + 2 - P2;
  for (int64_t x = o1a - p1; x < x_end; x += 3) {
    for (int64_t xp = x + kDwPrefetchRows; xp < x + kDwPrefetchRows + 3; ++xp)
      if (xp >= 0 && xp < H) dw_prefetch_cols(s.in + xp * s.irs, c0, std::min<int64_t>(c1, s.irs));
    dw_s1_step<NV, P2, FIRST, LAST, 0, 1, 2>(acc, row(x), wv, bv, s.j, s.jl, done(x));
    if (x + 1 >= x_end) break;
    dw_s1_step<NV, P2, FIRST, LAST, 2, 0, 1>(acc, row(x + 1), wv, bv, s.j, s.jl, done(x + 1));
    if (x + 2 >= x_end) break;
    dw_s1_step<NV, P2, FIRST, LAST, 1, 2, 0>(acc, row(x + 2), wv, bv, s.j, s.jl, done(x + 2));
  }
}

constexpr int kDwStripNv = OPSNN_DW_VW == 16 ? 4 : 2;  // 3 x NV accumulators + 9 weights + 3 taps within the registers

template <int P2, bool FIRST, bool LAST>
inline void dw_s1_strip_nv(int nv, const DwStrip &s, int64_t H, int64_t p1, int64_t o1a, int64_t o1b,
                           const DwVec *wv, const DwVec &bv) {
  switch (nv) {
#if OPSNN_DW_VW == 16
    case 4: dw_s1_strip<4, P2, FIRST, LAST>(s, H, p1, o1a, o1b, wv, bv); break;
    case 3: dw_s1_strip<3, P2, FIRST, LAST>(s, H, p1, o1a, o1b, wv, bv); break;
#endif
    case 2: dw_s1_strip<2, P2, FIRST, LAST>(s, H, p1, o1a, o1b, wv, bv); break;
    default: dw_s1_strip<1, P2, FIRST, LAST>(s, H, p1, o1a, o1b, wv, bv); break;
  }
}

// A row of n2 >= VW output columns in strips of kDwStripNv vectors, the last one ending at the row's end
// (overlapping the previous: a strip of fewer vectors runs on 3 x NV <= 9 FMA chains, latency-bound:
// 2.7 G FMA/s at 3 vectors against 4.8 at 4); rows of fewer vectors in one strip. run(first, last, nv,
// strip) with first / last as std::bool_constant (template arguments of the strip kernels).
template <class Run>
inline void dw_for_strips(const DwStrip &base, int64_t n2, Run &&run) {
  const int64_t nvec = (n2 + kDwVw - 1) / kDwVw;
  const int nv = static_cast<int>(std::min<int64_t>(kDwStripNv, nvec));
  for (int64_t j = 0;; j += kDwStripNv * kDwVw) {
    DwStrip s = base;
    const bool first = j == 0, lst = j + nv * kDwVw >= n2;
    s.j = lst ? std::max<int64_t>(0, n2 - nv * kDwVw) : j;
    s.jl = lst ? n2 - kDwVw : s.j + (nv - 1) * kDwVw;
    if (first && lst) run(std::true_type{}, std::true_type{}, nv, s);
    else if (first) run(std::true_type{}, std::false_type{}, nv, s);
    else if (lst) run(std::false_type{}, std::true_type{}, nv, s);
    else run(std::false_type{}, std::false_type{}, nv, s);
    if (lst) break;
  }
}

// One plane's output rows [o1a, o1b), strip by strip. (Bands of 8-32 rows, each strip by strip so a
// band stays in L1 between strips, measured no faster than whole-plane strips.)
template <int P2>
inline void dw_s1_plane(const DwStrip &base, int64_t n2, int64_t H, int64_t p1, int64_t o1a, int64_t o1b,
                        const DwVec *wv, const DwVec &bv) {
  dw_for_strips(base, n2, [&](auto first, auto last, int nv, const DwStrip &s) {
    dw_s1_strip_nv<P2, decltype(first)::value, decltype(last)::value>(nv, s, H, p1, o1a, o1b, wv, bv);
  });
}

// ---- Stride 2 (width padding 1): output column o reads input columns 2o - 1, 2o, 2o + 1 ----

// Even / odd lanes of the 2 VW floats a, b (columns 2i resp. 2i + 1 from a's first).
inline DwVec dw_even(DwVec a, DwVec b) { return dw_lanes<0, 2>(a, b); }
inline DwVec dw_odd(DwVec a, DwVec b) { return dw_lanes<1, 2>(a, b); }

// The three taps of input row `row` for the strip's NV output vectors (column c: input 2c - 1 + k2),
// deinterleaved in registers: k2 = 1 / 2 are the even / odd lanes of the 2 VW columns from 2c, k2 = 0
// the odd lanes shifted up one (the previous vector's last odd lane; a zero at column 0, a second
// deinterleave at the strip's start and an overlapping last vector). RPAD: the last vector's
// columns end one past the row (odd widths: the right padding column), read as a zero.
template <int NV, bool FIRST, bool LAST>
inline void dw_s2_taps(const float *row, int64_t j, int64_t jl, bool rpad, DwVec (&xl)[NV], DwVec (&xm)[NV],
                       DwVec (&xr)[NV]) {
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int64_t c = v == NV - 1 ? jl : j + v * kDwVw;
    const float *p = row + 2 * c;
    const DwVec a = dw_load(p);
    const DwVec b = LAST && v == NV - 1 && rpad ? dw_shift_in_right(dw_load(p + kDwVw - 1)) : dw_load(p + kDwVw);
    xm[v] = dw_even(a, b);
    xr[v] = dw_odd(a, b);
    if (FIRST && v == 0) xl[v] = dw_shift_in_left(xr[v]);
    else if (v > 0 && !(LAST && v == NV - 1)) xl[v] = dw_join_left(xr[v - 1], xr[v]);
    else xl[v] = dw_even(dw_load(p - 1), dw_load(p + kDwVw - 1));
  }
}

// Output rows [o1a, o1b) of one strip at row stride 2: output row o reads input rows 2o - p1 + k1.
// Per output row: its k1 = 1 row, then its k1 = 2 row, which is also the next output row's k1 = 0
// row (the accumulators of two output rows roll; unrolled by 2 so their roles swap at compile time).
template <int NV, bool FIRST, bool LAST>
inline void dw_s2_strip(const DwStrip &s, int64_t H, int64_t p1, bool rpad, int64_t o1a, int64_t o1b,
                        const DwVec *wv, const DwVec &bv) {
  DwVec acc[2][NV], xl[NV], xm[NV], xr[NV];
  auto row = [&](int64_t x) { return x >= 0 && x < H ? s.in + x * s.irs : nullptr; };
  // k1 rows of output row o into acc[A] (k1 = 0 starts it from +0).
  auto taps = [&](int64_t x) {
    const float *r = row(x);
    if (r != nullptr) dw_s2_taps<NV, FIRST, LAST>(r, s.j, s.jl, rpad, xl, xm, xr);
    return r != nullptr;
  };
  auto add = [&](DwVec(&a)[NV], int k1) {
    for (int v = 0; v < NV; ++v) {
      a[v] += wv[k1 * 3] * xl[v];
      a[v] += wv[k1 * 3 + 1] * xm[v];
      a[v] += wv[k1 * 3 + 2] * xr[v];
    }
  };
  auto store = [&](DwVec(&a)[NV], int64_t o) {
    float *d = s.out + (o - o1a) * s.ors;
    for (int v = 0; v < NV; ++v) dw_store(d + (v == NV - 1 ? s.jl : s.j + v * kDwVw), a[v] + bv);
  };
  // One output row o with accumulators a (already holding k1 = 0) and b (the next row's).
  const int64_t c0 = std::max<int64_t>(0, 2 * s.j - 1), c1 = 2 * s.jl + 2 * kDwVw;
  auto out_row = [&](DwVec(&a)[NV], DwVec(&b)[NV], int64_t o) {
    const int64_t x = 2 * o - p1;
    for (int64_t xp = x + 1 + kDwPrefetchRows; xp < x + 3 + kDwPrefetchRows; ++xp)
      if (xp >= 0 && xp < H) dw_prefetch_cols(s.in + xp * s.irs, c0, std::min<int64_t>(c1, s.irs));
    if (taps(x + 1)) add(a, 1);
    for (int v = 0; v < NV; ++v) b[v] = DwVec{};
    if (taps(x + 2)) {
      add(a, 2);
      if (o + 1 < o1b) add(b, 0);
    }
    store(a, o);
  };
  for (int v = 0; v < NV; ++v) acc[0][v] = DwVec{};
  if (taps(2 * o1a - p1)) add(acc[0], 0);
  for (int64_t o = o1a; o < o1b; o += 2) {
    out_row(acc[0], acc[1], o);
    if (o + 1 < o1b) out_row(acc[1], acc[0], o + 1);
  }
}

template <bool FIRST, bool LAST>
inline void dw_s2_strip_nv(int nv, const DwStrip &s, int64_t H, int64_t p1, bool rpad, int64_t o1a, int64_t o1b,
                           const DwVec *wv, const DwVec &bv) {
  switch (nv) {
#if OPSNN_DW_VW == 16
    case 4: dw_s2_strip<4, FIRST, LAST>(s, H, p1, rpad, o1a, o1b, wv, bv); break;
    case 3: dw_s2_strip<3, FIRST, LAST>(s, H, p1, rpad, o1a, o1b, wv, bv); break;
#endif
    case 2: dw_s2_strip<2, FIRST, LAST>(s, H, p1, rpad, o1a, o1b, wv, bv); break;
    default: dw_s2_strip<1, FIRST, LAST>(s, H, p1, rpad, o1a, o1b, wv, bv); break;
  }
}

// One plane at stride 2, strips as at stride 1.
inline void dw_s2_plane(const DwStrip &base, int64_t n2, int64_t W, int64_t H, int64_t p1, int64_t o1a,
                        int64_t o1b, const DwVec *wv, const DwVec &bv) {
  const bool rpad = 2 * n2 > W;  // the last output's right tap is the padding column W
  dw_for_strips(base, n2, [&](auto first, auto last, int nv, const DwStrip &s) {
    dw_s2_strip_nv<decltype(first)::value, decltype(last)::value>(nv, s, H, p1, rpad, o1a, o1b, wv, bv);
  });
}

// Phase 1's conditions (conv_dw_in_place.h): 2-D (one dim-0 slice), 3x3, strides 1 or 2, dilation 1, width
// padding 0 or 1 (1 at stride 2), FLOAT input and output rows of unit stride, output rows at least one vector wide.
inline void dw_in_place_body(const DepthwiseArgs &a, int threads) {
  const ConvGeom &g = a.g;
  const int64_t H = g.big[1], n2 = g.small[2], n1 = g.small[1], p1 = g.p[1];
  const int64_t planes = a.n * a.c_in * a.mult;
  // Threads split the (image, output channel) planes, in row chunks when there are too few.
  const int64_t chunks =
      threads <= 1 || planes >= 4 * threads ? 1 : std::min<int64_t>(n1, (4 * threads + planes - 1) / planes);
  const int64_t items = planes * chunks;
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, items)));
  const int64_t wes = static_cast<int64_t>(esize_of(a.w_dtype)), bes = static_cast<int64_t>(esize_of(a.bias_dtype));
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t i0 = items * t / T, i1 = items * (t + 1) / T;
      for (int64_t it = i0; it < i1; ++it) {
        const int64_t plane = it / chunks, chunk = it % chunks;
        const int64_t n = plane / (a.c_in * a.mult), co = plane % (a.c_in * a.mult), ci = co / a.mult;
        const int64_t o1a = n1 * chunk / chunks, o1b = n1 * (chunk + 1) / chunks;
        DwVec wv[9];
        const char *w = a.w + wes * co * a.w_s0;
        for (int64_t k1 = 0; k1 < 3; ++k1)
          for (int64_t k2 = 0; k2 < 3; ++k2)
            wv[k1 * 3 + k2] = DwVec{} + conv_load(a.w_dtype, w + wes * (k1 * a.w_ss[1] + k2 * a.w_ss[2]));
        const DwVec bv = DwVec{} + (a.bias != nullptr ? conv_load(a.bias_dtype, a.bias + bes * co * a.bias_s) : 0.0f);
        DwStrip s;
        s.in = reinterpret_cast<const float *>(a.in.base) + n * a.in_sn + ci * a.in.sc;
        s.irs = a.in.ss[1];
        s.out = reinterpret_cast<float *>(a.out_base) + n * a.out_sn + co * a.out.sc + o1a * a.out.ss[1];
        s.ors = a.out.ss[1];
        if (g.s[2] == 2) dw_s2_plane(s, n2, g.big[2], H, p1, o1a, o1b, wv, bv);
        else if (g.p[2] == 0) dw_s1_plane<0>(s, n2, H, p1, o1a, o1b, wv, bv);
        else dw_s1_plane<1>(s, n2, H, p1, o1a, o1b, wv, bv);
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

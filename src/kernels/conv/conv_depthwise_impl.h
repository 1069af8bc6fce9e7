// The convolution kernels' row conversions and the direct depthwise kernel, compiled once per ISA
// unit (conv.cpp portable, conv_avx2.cpp, conv_avx512.cpp): everything here has internal linkage,
// so no unit's code is shared with another's (an AVX-512 copy never runs before detection).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/half.h"
#include "core/thread_pool.h"
#include "kernels/conv/conv.h"
#if OPSNN_DW_VW == 16 && !defined(OPSNN_EMULATE_AVX512)
#include "kernels/simd/avx512_intrinsics.h"
#endif

namespace opsnn::kernels {
namespace {

inline size_t esize_of(aclDataType dt) { return dt == ACL_FLOAT ? 4 : dt == ACL_DOUBLE ? 8 : 2; }

// A row of n elements (stride in elements) converted to / from fp32, the dtype switch hoisted.
inline void load_row(aclDataType dt, const char *src, int64_t stride, int64_t n, float *dst) {
  switch (dt) {
    case ACL_FLOAT: {
      const float *p = reinterpret_cast<const float *>(src);
      if (stride == 1) {
        std::memcpy(dst, p, static_cast<size_t>(n) * 4);
      } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = p[i * stride];
      }
      break;
    }
    case ACL_FLOAT16: {
      const uint16_t *p = reinterpret_cast<const uint16_t *>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = half_to_float(p[i * stride]);
      break;
    }
    case ACL_BF16: {
      const uint16_t *p = reinterpret_cast<const uint16_t *>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(p[i * stride]);
      break;
    }
    default:
      for (int64_t i = 0; i < n; ++i) dst[i] = conv_load(dt, src + static_cast<int64_t>(esize_of(dt)) * i * stride);
  }
}
inline void store_row(aclDataType dt, const float *src, int64_t n, char *dst, int64_t stride) {
  switch (dt) {
    case ACL_FLOAT: {
      float *p = reinterpret_cast<float *>(dst);
      if (stride == 1) {
        std::memcpy(p, src, static_cast<size_t>(n) * 4);
      } else {
        for (int64_t i = 0; i < n; ++i) p[i * stride] = src[i];
      }
      break;
    }
    case ACL_FLOAT16: {
      uint16_t *p = reinterpret_cast<uint16_t *>(dst);
      for (int64_t i = 0; i < n; ++i) p[i * stride] = float_to_half(src[i]);
      break;
    }
    case ACL_BF16: {
      uint16_t *p = reinterpret_cast<uint16_t *>(dst);
      for (int64_t i = 0; i < n; ++i) p[i * stride] = float_to_bf16(src[i]);
      break;
    }
    default:
      for (int64_t i = 0; i < n; ++i) conv_put(dt, dst + static_cast<int64_t>(esize_of(dt)) * i * stride, src[i]);
  }
}

// Padded plane extents: every window position of the small side, relative to big-side -p.
inline void padded_extent(const ConvGeom &g, int64_t e[3]) {
  for (int i = 0; i < 3; ++i) e[i] = std::max<int64_t>((g.small[i] - 1) * g.s[i] + (g.k[i] - 1) * g.d[i] + 1, 1);
}

// The widest unit's vector (the scratch size must not depend on the unit that runs).
constexpr int64_t kDwMaxVw = 16;

// The padded plane's rows are split by the innermost stride s2 into s2 phase rows of `phase_len`
// floats: padded column c lives at phase c % s2, index c / s2, so every tap of every stride reads
// contiguous floats (output column o2, tap k2: phase (k2*d2) % s2, index o2 + (k2*d2) / s2). A
// phase row is long enough for whole vectors past the last output column (zeros, discarded).
inline int64_t dw_phase_len(const ConvGeom &g) {
  int64_t e[3];
  padded_extent(g, e);
  const int64_t s2 = g.s[2];
  const int64_t need = (g.small[2] + kDwMaxVw - 1) / kDwMaxVw * kDwMaxVw + ((g.k[2] - 1) * g.d[2]) / s2;
  return std::max<int64_t>((e[2] + s2 - 1) / s2, need);
}

inline int64_t depthwise_scratch_floats(const ConvGeom &g) {
  int64_t e[3];
  padded_extent(g, e);
  // The plane, one output row (whole vectors), the taps.
  return e[0] * e[1] * g.s[2] * dw_phase_len(g) + g.small[2] + kDwMaxVw + g.kprod() + 16;
}

#ifndef OPSNN_DW_VW
#define OPSNN_DW_VW 4
#endif
constexpr int kDwVw = OPSNN_DW_VW;
typedef float DwVec __attribute__((vector_size(OPSNN_DW_VW * 4)));

inline DwVec dw_load(const float *p) {
  DwVec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void dw_store(float *p, DwVec v) { std::memcpy(p, &v, sizeof(v)); }

// NT: a non-temporal store (p 64-byte aligned; the AVX-512 unit only, others store normally). An
// output past L2 then leaves without its lines read for ownership and written back through L3
// (NHWC 32x112x112 k3: 12-25% faster, PERFORMANCE.md "Stem on NCHW, NHWC depthwise stores").
template <bool NT>
inline void dw_store_out(float *p, DwVec v) {
#if OPSNN_DW_VW == 16 && !defined(OPSNN_EMULATE_AVX512)
  if constexpr (NT) {
    _mm512_stream_ps(p, reinterpret_cast<__m512 &>(v));
    return;
  }
#endif
  dw_store(p, v);
}
inline void dw_stream_fence() {
#if OPSNN_DW_VW == 16 && !defined(OPSNN_EMULATE_AVX512)
  _mm_sfence();
#endif
}

// NV vectors of one output row: NV accumulators live in registers across all the taps (order: kd,
// kh, kw, then the bias). Tap row t reads rows[t] + j + toff[k2] with weights wrows[t][k2].
template <int NV>
inline void dw_block(const float *const *rows, const float *const *wrows, int64_t nrows, const int64_t *toff,
                     int64_t k2n, float b, int64_t j, float *dst) {
  DwVec acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = DwVec{};
  for (int64_t t = 0; t < nrows; ++t) {
    const float *r = rows[t] + j;
    const float *wt = wrows[t];
    for (int64_t k2 = 0; k2 < k2n; ++k2) {
      const float *src = r + toff[k2];
      const float wv = wt[k2];
      for (int v = 0; v < NV; ++v) acc[v] += wv * dw_load(src + v * kDwVw);
    }
  }
  for (int v = 0; v < NV; ++v) dw_store(dst + v * kDwVw, acc[v] + b);
}

// The same for kernel width 3 and NT (1..3) tap rows: the 3*NT weights are broadcast once per row
// into registers and the column loop is fully unrolled (NV vectors at a time).
template <int NT, int NV>
inline void dw_k3_block(const float *const *r, const DwVec *wv, const int64_t *toff, const DwVec &bv, int64_t j,
                        float *dst) {
  DwVec acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = DwVec{};
  for (int t = 0; t < NT; ++t)
    for (int k2 = 0; k2 < 3; ++k2) {
      const float *src = r[t] + j + toff[k2];
      for (int v = 0; v < NV; ++v) acc[v] += wv[t * 3 + k2] * dw_load(src + v * kDwVw);
    }
  for (int v = 0; v < NV; ++v) dw_store(dst + v * kDwVw, acc[v] + bv);
}
template <int NT>
inline void dw_k3_run(const float *const *rows, const float *const *wrows, const int64_t *toff, float b, int64_t j0,
                      int64_t j1, int64_t jsrc, float *dst) {
  DwVec wv[3 * NT];
  const float *r[NT];
  for (int t = 0; t < NT; ++t) {
    r[t] = rows[t] + jsrc;
    for (int k2 = 0; k2 < 3; ++k2) wv[t * 3 + k2] = DwVec{} + wrows[t][k2];
  }
  const DwVec bv = DwVec{} + b;
  // Up to 8 independent accumulators: each one's 3*NT taps are a chain of dependent FMAs, so fewer
  // vectors at a time would wait on the FMA latency rather than its throughput.
  int64_t j = j0;
  for (; j + 8 * kDwVw <= j1; j += 8 * kDwVw) dw_k3_block<NT, 8>(r, wv, toff, bv, j, dst + j);
  switch ((j1 - j) / kDwVw) {
    case 7: dw_k3_block<NT, 7>(r, wv, toff, bv, j, dst + j); break;
    case 6: dw_k3_block<NT, 6>(r, wv, toff, bv, j, dst + j); break;
    case 5: dw_k3_block<NT, 5>(r, wv, toff, bv, j, dst + j); break;
    case 4: dw_k3_block<NT, 4>(r, wv, toff, bv, j, dst + j); break;
    case 3: dw_k3_block<NT, 3>(r, wv, toff, bv, j, dst + j); break;
    case 2: dw_k3_block<NT, 2>(r, wv, toff, bv, j, dst + j); break;
    case 1: dw_k3_block<NT, 1>(r, wv, toff, bv, j, dst + j); break;
    default: break;
  }
}

// Output columns [j0, j1) (j1 - j0 a multiple of the vector) in blocks of up to 4 vectors.
inline void dw_run(const float *const *rows, const float *const *wrows, int64_t nrows, const int64_t *toff,
                   int64_t k2n, float b, int64_t j0, int64_t j1, int64_t jsrc, float *dst) {
  if (k2n == 3 && nrows >= 1 && nrows <= 3) {
    if (nrows == 3) dw_k3_run<3>(rows, wrows, toff, b, j0, j1, jsrc, dst);
    else if (nrows == 2) dw_k3_run<2>(rows, wrows, toff, b, j0, j1, jsrc, dst);
    else dw_k3_run<1>(rows, wrows, toff, b, j0, j1, jsrc, dst);
    return;
  }
  int64_t j = j0;
  for (; j + 4 * kDwVw <= j1; j += 4 * kDwVw) dw_block<4>(rows, wrows, nrows, toff, k2n, b, j + jsrc, dst + j);
  switch ((j1 - j) / kDwVw) {
    case 3: dw_block<3>(rows, wrows, nrows, toff, k2n, b, j + jsrc, dst + j); break;
    case 2: dw_block<2>(rows, wrows, nrows, toff, k2n, b, j + jsrc, dst + j); break;
    case 1: dw_block<1>(rows, wrows, nrows, toff, k2n, b, j + jsrc, dst + j); break;
    default: break;
  }
}

inline void depthwise_body(const DepthwiseArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  int64_t e[3];
  padded_extent(g, e);
  const int64_t per = depthwise_scratch_floats(g);
  const int64_t s2 = g.s[2], plen = dw_phase_len(g), rlen = s2 * plen;  // one padded row, all phases
  const int64_t items = a.n * a.c_in;
  const int64_t ies = static_cast<int64_t>(esize_of(a.in.dtype)), oes = static_cast<int64_t>(esize_of(a.out.dtype));
  const int64_t wes = static_cast<int64_t>(esize_of(a.w_dtype)), bes = static_cast<int64_t>(esize_of(a.bias_dtype));
  const int64_t ktaps = g.k[0] * g.k[1], k2n = g.k[2];
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, items)));
  const bool direct = a.out.dtype == ACL_FLOAT && a.out.ss[2] == 1;  // whole vectors straight to the output
  // FLOAT rows of unit stride read in place (no plane copy) when the columns whose taps all fall inside
  // the row, [lo, hi), hold a vector; the border columns outside it are computed one by one.
  const int64_t n2 = g.small[2];
  const int64_t lo = std::min<int64_t>(n2, g.p[2]);
  const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(n2, g.big[2] + g.p[2] - (g.k[2] - 1) * g.d[2]));
  const bool nocopy = a.in.dtype == ACL_FLOAT && a.in.ss[2] == 1 && s2 == 1 && hi - lo >= kDwVw && ktaps <= 64;
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      float *pad = scratch + t * per;
      float *acc = pad + e[0] * e[1] * rlen;
      float *wf = acc + g.small[2] + kDwMaxVw;  // the channel's taps in fp32
      const int64_t i0 = items * t / T, i1 = items * (t + 1) / T;
      const float *rows[64];
      std::vector<const float *> rows_heap;
      const float *wrows[64];
      std::vector<const float *> wrows_heap;
      const float **rp = rows, **wp = wrows;
      if (ktaps > 64) {
        rows_heap.resize(static_cast<size_t>(ktaps));
        wrows_heap.resize(static_cast<size_t>(ktaps));
        rp = rows_heap.data();
        wp = wrows_heap.data();
      }
      int64_t toff_stack[64];
      std::vector<int64_t> toff_heap;
      int64_t *toff = toff_stack;
      if (k2n > 64) {
        toff_heap.resize(static_cast<size_t>(k2n));
        toff = toff_heap.data();
      }
      // Per phase q: the phase row's entries [jlo, jhi) hold input columns, the rest zeros.
      std::vector<int64_t> jlos(static_cast<size_t>(nocopy ? 0 : s2)), jhis(jlos.size());
      for (int64_t q = 0; q < static_cast<int64_t>(jlos.size()); ++q) {
        const int64_t jlo = std::min<int64_t>(plen, std::max<int64_t>(0, (g.p[2] - q + s2 - 1) / s2));
        const int64_t last = g.big[2] - 1 + g.p[2] - q;  // the largest c - q with an input column
        jlos[static_cast<size_t>(q)] = jlo;
        jhis[static_cast<size_t>(q)] = last < 0 ? jlo : std::max<int64_t>(jlo, std::min<int64_t>(plen, last / s2 + 1));
      }
      for (int64_t k2 = 0; k2 < k2n; ++k2) toff[k2] = ((k2 * g.d[2]) % s2) * plen + (k2 * g.d[2]) / s2;
      for (int64_t it = i0; it < i1; ++it) {
        const int64_t n = it / a.c_in, ci = it % a.c_in;
        // The zero-padded input plane, each row split into its s2 phases.
        const char *in = a.in.base + ies * (n * a.in_sn + ci * a.in.sc);
        for (int64_t x0 = 0; x0 < (nocopy ? 0 : e[0]); ++x0)
          for (int64_t x1 = 0; x1 < e[1]; ++x1) {
            float *row = pad + (x0 * e[1] + x1) * rlen;
            const int64_t i0d = x0 - g.p[0], i1d = x1 - g.p[1];
            if (i0d < 0 || i0d >= g.big[0] || i1d < 0 || i1d >= g.big[1]) {
              std::fill(row, row + rlen, 0.0f);
              continue;
            }
            const char *src = in + ies * (i0d * a.in.ss[0] + i1d * a.in.ss[1]);
            for (int64_t q = 0; q < s2; ++q) {
              // Padded column c = q + s2*j holds input column c - p2 when that lies in [0, big2).
              float *ph = row + q * plen;
              const int64_t jlo = jlos[static_cast<size_t>(q)], jhi = jhis[static_cast<size_t>(q)];
              std::fill(ph, ph + jlo, 0.0f);
              if (jhi > jlo && s2 == 2 && a.in.dtype == ACL_FLOAT && a.in.ss[2] == 1) {
                const float *sp2 = reinterpret_cast<const float *>(src) + (q + 2 * jlo - g.p[2]);
                float *dp2 = ph + jlo;
                const int64_t cnt = jhi - jlo;
                for (int64_t i = 0; i < cnt; ++i) dp2[i] = sp2[2 * i];  // a constant stride: vectorised
              } else if (jhi > jlo)
                load_row(a.in.dtype, src + ies * (q + s2 * jlo - g.p[2]) * a.in.ss[2], s2 * a.in.ss[2], jhi - jlo,
                         ph + jlo);
              std::fill(ph + jhi, ph + plen, 0.0f);
            }
          }
        for (int64_t m = 0; m < a.mult; ++m) {
          const int64_t co = ci * a.mult + m;
          const float b = a.bias != nullptr ? conv_load(a.bias_dtype, a.bias + bes * co * a.bias_s) : 0.0f;
          const char *w = a.w + wes * co * a.w_s0;
          for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
              for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
                wf[(k0 * g.k[1] + k1) * g.k[2] + k2] =
                    conv_load(a.w_dtype, w + wes * (k0 * a.w_ss[0] + k1 * a.w_ss[1] + k2 * a.w_ss[2]));
          char *out = a.out_base + oes * (n * a.out_sn + co * a.out.sc);
          const int64_t full = n2 / kDwVw * kDwVw;
          for (int64_t o0 = 0; o0 < g.small[0]; ++o0)
            for (int64_t o1 = 0; o1 < g.small[1]; ++o1) {
              char *orow = out + oes * (o0 * a.out.ss[0] + o1 * a.out.ss[1]);
              float *dst = direct ? reinterpret_cast<float *>(orow) : acc;
              if (nocopy) {
                // The taps' input rows inside the image (rows in the padding contribute nothing).
                int64_t nt = 0;
                for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                  const int64_t x0 = o0 * g.s[0] + k0 * g.d[0] - g.p[0];
                  if (x0 < 0 || x0 >= g.big[0]) continue;
                  for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    const int64_t x1 = o1 * g.s[1] + k1 * g.d[1] - g.p[1];
                    if (x1 < 0 || x1 >= g.big[1]) continue;
                    rp[nt] = reinterpret_cast<const float *>(in) + x0 * a.in.ss[0] + x1 * a.in.ss[1];
                    wp[nt++] = wf + (k0 * g.k[1] + k1) * k2n;
                  }
                }
                const int64_t cnt = (hi - lo) / kDwVw * kDwVw;
                dw_run(rp, wp, nt, toff, k2n, b, lo, lo + cnt, -g.p[2], dst);
                if (lo + cnt < hi)  // the rest as one vector overlapping the last (the same values again)
                  dw_run(rp, wp, nt, toff, k2n, b, 0, kDwVw, hi - kDwVw - g.p[2], dst + hi - kDwVw);
                // The border columns [0, lo) and [hi, n2), one by one over the taps inside the row.
                for (int64_t o2 = 0; o2 < n2; ++o2) {
                  if (o2 == lo) o2 = hi;
                  if (o2 >= n2) break;
                  const int64_t x = o2 - g.p[2];  // tap k2 reads column x + k2*d2
                  int64_t k2lo, k2hi;
                  if (g.d[2] == 1) {  // no division on the common path
                    k2lo = std::max<int64_t>(0, -x);
                    k2hi = std::min<int64_t>(k2n, g.big[2] - x);
                  } else {
                    k2lo = x >= 0 ? 0 : (-x + g.d[2] - 1) / g.d[2];
                    k2hi = x >= g.big[2] ? 0 : std::min<int64_t>(k2n, (g.big[2] - 1 - x) / g.d[2] + 1);
                  }
                  float sacc = 0.0f;
                  for (int64_t tt = 0; tt < nt; ++tt)
                    for (int64_t k2 = k2lo; k2 < k2hi; ++k2) sacc += wp[tt][k2] * rp[tt][x + k2 * g.d[2]];
                  dst[o2] = sacc + b;
                }
                if (!direct) store_row(a.out.dtype, acc, n2, orow, a.out.ss[2]);
                continue;
              }
              for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
                for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                  rp[k0 * g.k[1] + k1] = pad + ((o0 * g.s[0] + k0 * g.d[0]) * e[1] + o1 * g.s[1] + k1 * g.d[1]) * rlen;
                  wp[k0 * g.k[1] + k1] = wf + (k0 * g.k[1] + k1) * k2n;
                }
              dw_run(rp, wp, ktaps, toff, k2n, b, 0, full, 0, dst);
              if (full < n2) {  // the last partial vector: computed whole into acc (room for it), stored in part
                dw_run(rp, wp, ktaps, toff, k2n, b, 0, kDwVw, full, acc + full);
                if (direct) std::memcpy(dst + full, acc + full, static_cast<size_t>(n2 - full) * 4);
              }
              if (!direct) store_row(a.out.dtype, acc, n2, orow, a.out.ss[2]);
            }
        }
      }
    }
  });
}


// ---- Channels-last (NHWC) FLOAT depthwise, multiplier 1: vectors along the channels ----
// The weights are re-laid out once per launch as [tap][C] fp32 (and the bias as [C]) in the first
// nhwc_weight_floats of the scratch; each output pixel accumulates NV channel vectors in registers
// over the taps inside the image (order kd, kh, kw, then the bias, as above).
// (Then C zeros: the taps of border pixels outside the row read them.)
inline int64_t depthwise_nhwc_scratch_floats(const ConvGeom &g, int64_t c) { return (g.kprod() + 2) * c + 16; }

// Kernel width 3, dilation 1, stride S (1 or 2), channels in whole vectors: a tile of NP output
// pixels x NV channel vectors. Per tap row the row's 3 * NV weights are held in registers and each
// of the tile's S*(NP-1)+3 input pixels is loaded once, one vector at a time, feeding every pixel
// of the tile whose window holds it (stride 1: three). EDGE tiles point the pixels outside the row
// [0, W) at `zero` (C zeros), so border pixels share the tile's FMA chains instead of running one
// by one. Each pixel accumulates in the order (tap row, k2), then the bias, whatever the tiling.
template <int NV, int S, int NP, bool EDGE, bool NT>
inline void dw3_nhwc_tile(const float *const *rows, const int64_t *wt_off, int64_t nt, const float *wt, int64_t C,
                          const float *bias, const float *zero, int64_t ss2, int64_t x, int64_t W, int64_t c,
                          float *dst, int64_t ds) {
  constexpr int JN = S * (NP - 1) + 3;
  DwVec acc[NP][NV];
#pragma GCC unroll 16
  for (int q = 0; q < NP; ++q)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[q][v] = DwVec{};
  for (int64_t t = 0; t < nt; ++t) {
    const float *src = rows[t] + c + x * ss2;
    const float *w0 = wt + wt_off[t] + c;
    DwVec wv[3][NV];
#pragma GCC unroll 3
    for (int k2 = 0; k2 < 3; ++k2)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) wv[k2][v] = dw_load(w0 + k2 * C + v * kDwVw);
#pragma GCC unroll 32
    for (int j = 0; j < JN; ++j, src += ss2) {
      const float *p = EDGE && (x + j < 0 || x + j >= W) ? zero : src;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const DwVec xv = dw_load(p + v * kDwVw);
#pragma GCC unroll 16
        for (int q = 0; q < NP; ++q) {
          const int k2 = j - S * q;
          if (k2 >= 0 && k2 <= 2) acc[q][v] += wv[k2][v] * xv;
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int q = 0; q < NP; ++q)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      dw_store_out<NT>(dst + q * ds + c + v * kDwVw, acc[q][v] + dw_load(bias + c + v * kDwVw));
}

// Channel vectors per tile and pixels per tile by channel vectors: NP * NV accumulators, 3 * NV
// weights and one loaded vector within the registers (AVX-512: 32, AVX2 / SSE: 16).
constexpr int kDw3MaxNv = kDwVw == 16 ? 4 : 2;
template <int NV>
constexpr int dw3_nhwc_np() {
  return kDwVw == 16 ? (NV <= 2 ? 8 : NV == 3 ? 6 : 4) : (NV == 1 ? 8 : 4);
}

// One output row's n2 pixels for channel vectors [c, c + NV*kDwVw): whole tiles, the last one
// overlapping the previous (the same values again); rows narrower than a tile pixel by pixel.
template <int NV, int S, bool NT>
inline void dw3_nhwc_cover(const float *const *rows, const int64_t *wt_off, int64_t nt, const float *wt, int64_t C,
                           const float *bias, const float *zero, int64_t ss2, int64_t p2, int64_t W, int64_t n2,
                           int64_t c, float *orow, int64_t ds) {
  constexpr int NP = dw3_nhwc_np<NV>();
  auto tile = [&](int64_t o2) {
    const int64_t x = o2 * S - p2;
    float *dst = orow + o2 * ds;
    if (x >= 0 && x + S * (NP - 1) + 2 < W)
      dw3_nhwc_tile<NV, S, NP, false, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, x, W, c, dst, ds);
    else
      dw3_nhwc_tile<NV, S, NP, true, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, x, W, c, dst, ds);
  };
  if (n2 < NP) {
    for (int64_t o2 = 0; o2 < n2; ++o2)
      dw3_nhwc_tile<NV, S, 1, true, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, o2 * S - p2, W, c, orow + o2 * ds,
                                        ds);
    return;
  }
  int64_t o2 = 0;
  for (; o2 + NP <= n2; o2 += NP) tile(o2);
  if (o2 < n2) tile(n2 - NP);
}

template <int S, bool NT>
inline void dw3_nhwc_row(const float *const *rows, const int64_t *wt_off, int64_t nt, const float *wt, int64_t C,
                         const float *bias, const float *zero, int64_t ss2, int64_t p2, int64_t W, int64_t n2,
                         float *orow, int64_t ds) {
  int64_t c = 0;
  for (; c + kDw3MaxNv * kDwVw <= C; c += kDw3MaxNv * kDwVw)
    dw3_nhwc_cover<kDw3MaxNv, S, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, p2, W, n2, c, orow, ds);
  switch ((C - c) / kDwVw) {
    case 3: dw3_nhwc_cover<3, S, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, p2, W, n2, c, orow, ds); break;
    case 2: dw3_nhwc_cover<2, S, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, p2, W, n2, c, orow, ds); break;
    case 1: dw3_nhwc_cover<1, S, NT>(rows, wt_off, nt, wt, C, bias, zero, ss2, p2, W, n2, c, orow, ds); break;
    default: break;
  }
}

// NP pixels (input columns ps apart, outputs ds apart) x NV channel vectors: NP*NV independent
// accumulator chains.
template <int NP, int NV>
inline void dw_nhwc_block(const float *const *rows, const int64_t *wt_off, int64_t nt, int64_t k2lo, int64_t k2hi,
                          int64_t xs, int64_t wstep, const float *wt, const float *bias, int64_t c, float *dst,
                          int64_t ps = 0, int64_t ds = 0) {
  DwVec acc[NP][NV];
  for (int q = 0; q < NP; ++q)
    for (int v = 0; v < NV; ++v) acc[q][v] = DwVec{};
  for (int64_t t = 0; t < nt; ++t) {
    const float *r = rows[t] + c;
    const float *w = wt + wt_off[t] + c;
    for (int64_t k2 = k2lo; k2 < k2hi; ++k2) {
      const float *src = r + k2 * xs;
      const float *wk = w + k2 * wstep;
      for (int v = 0; v < NV; ++v) {
        const DwVec wv = dw_load(wk + v * kDwVw);
        for (int q = 0; q < NP; ++q) acc[q][v] += wv * dw_load(src + q * ps + v * kDwVw);
      }
    }
  }
  for (int q = 0; q < NP; ++q)
    for (int v = 0; v < NV; ++v) dw_store(dst + q * ds + c + v * kDwVw, acc[q][v] + dw_load(bias + c + v * kDwVw));
}

// Pixels at a time for four channel vectors: 4 x 4 accumulators fit AVX-512's 32 registers, AVX2 /
// SSE's 16 take 2 x 4.
constexpr int kDwQuadPix = kDwVw == 16 ? 4 : 2;

inline void depthwise_nhwc_body(const DepthwiseArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  const int64_t C = a.c_in, k2n = g.k[2];  // k[0] * k[1] <= 64 (phase 1)
  const int64_t wes = static_cast<int64_t>(esize_of(a.w_dtype)), bes = static_cast<int64_t>(esize_of(a.bias_dtype));
  float *wt = scratch, *bias = scratch + g.kprod() * C, *zero = bias + C;
  std::fill(zero, zero + C, 0.0f);
  // Kernel width 3 at dilation 1, width stride 1 or 2, whole channel vectors: dw3_nhwc_row's tiles.
  const bool k3 = k2n == 3 && g.d[2] == 1 && (g.s[2] == 1 || g.s[2] == 2) && C % kDwVw == 0;
  for (int64_t c = 0; c < C; ++c) {
    const char *w = a.w + wes * c * a.w_s0;
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < k2n; ++k2)
          wt[((k0 * g.k[1] + k1) * k2n + k2) * C + c] =
              conv_load(a.w_dtype, w + wes * (k0 * a.w_ss[0] + k1 * a.w_ss[1] + k2 * a.w_ss[2]));
    bias[c] = a.bias != nullptr ? conv_load(a.bias_dtype, a.bias + bes * c * a.bias_s) : 0.0f;
  }
  const int64_t rows_total = a.n * g.small[0] * g.small[1];
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, rows_total)));
  const int64_t xs = g.d[2] * a.in.ss[2], wstep = C;
  // Streaming stores need every stored vector 64-byte aligned: the base and every output stride.
  bool stream = a.stream_out && k3 && reinterpret_cast<uintptr_t>(a.out_base) % 64 == 0 && (a.out_sn * 4) % 64 == 0;
  for (int j = 0; j < 3; ++j) stream = stream && (a.out.ss[j] * 4) % 64 == 0;
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    const float *rows[64];
    int64_t wt_off[64];
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = rows_total * t / T, r1 = rows_total * (t + 1) / T;
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t o1 = r % g.small[1], o0 = (r / g.small[1]) % g.small[0], n = r / (g.small[1] * g.small[0]);
        const float *in = reinterpret_cast<const float *>(a.in.base) + n * a.in_sn;
        int64_t nt = 0;
        for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
          const int64_t x0 = o0 * g.s[0] + k0 * g.d[0] - g.p[0];
          if (x0 < 0 || x0 >= g.big[0]) continue;
          for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
            const int64_t x1 = o1 * g.s[1] + k1 * g.d[1] - g.p[1];
            if (x1 < 0 || x1 >= g.big[1]) continue;
            rows[nt] = in + x0 * a.in.ss[0] + x1 * a.in.ss[1];
            wt_off[nt++] = (k0 * g.k[1] + k1) * k2n * C;
          }
        }
        float *orow = reinterpret_cast<float *>(a.out_base) + n * a.out_sn + o0 * a.out.ss[0] + o1 * a.out.ss[1];
        if (k3) {
          auto row = [&](auto s_tag, auto nt_tag) {
            dw3_nhwc_row<decltype(s_tag)::value, decltype(nt_tag)::value>(
                rows, wt_off, nt, wt, C, bias, zero, a.in.ss[2], g.p[2], g.big[2], g.small[2], orow, a.out.ss[2]);
          };
          using S1 = std::integral_constant<int, 1>;
          using S2 = std::integral_constant<int, 2>;
          if (g.s[2] == 1) stream ? row(S1{}, std::true_type{}) : row(S1{}, std::false_type{});
          else stream ? row(S2{}, std::true_type{}) : row(S2{}, std::false_type{});
          continue;
        }
        for (int64_t o2 = 0; o2 < g.small[2]; ++o2) {
          const int64_t x = o2 * g.s[2] - g.p[2];  // tap k2 reads column x + k2*d2
          // Four interior pixels at a time while the channels are at most two vectors (more
          // independent FMA chains); the rest pixel by pixel.
          if (C % kDwVw == 0 && C <= 2 * kDwVw && o2 + 4 <= g.small[2] && x >= 0 &&
              x + 3 * g.s[2] + (k2n - 1) * g.d[2] < g.big[2]) {
            const float *prow[64];
            for (int64_t tt = 0; tt < nt; ++tt) prow[tt] = rows[tt] + x * a.in.ss[2];
            const int64_t ps = g.s[2] * a.in.ss[2], ds = a.out.ss[2];
            float *dst = orow + o2 * a.out.ss[2];
            if (C == 2 * kDwVw) dw_nhwc_block<4, 2>(prow, wt_off, nt, 0, k2n, xs, wstep, wt, bias, 0, dst, ps, ds);
            else dw_nhwc_block<4, 1>(prow, wt_off, nt, 0, k2n, xs, wstep, wt, bias, 0, dst, ps, ds);
            o2 += 3;
            continue;
          }
          // Channels in whole groups of four vectors: kDwQuadPix interior pixels at a time (one
          // pixel's 4 FMA chains waited on the FMA latency; MobileNet's 64-channel stride-2 layer
          // 0.62-0.74 -> 0.81-0.90 of oneDNN, PERFORMANCE.md).
          if (C % (4 * kDwVw) == 0 && o2 + kDwQuadPix <= g.small[2] && x >= 0 &&
              x + (kDwQuadPix - 1) * g.s[2] + (k2n - 1) * g.d[2] < g.big[2]) {
            const float *prow[64];
            for (int64_t tt = 0; tt < nt; ++tt) prow[tt] = rows[tt] + x * a.in.ss[2];
            const int64_t ps = g.s[2] * a.in.ss[2], ds = a.out.ss[2];
            float *dst = orow + o2 * a.out.ss[2];
            for (int64_t c = 0; c < C; c += 4 * kDwVw)
              dw_nhwc_block<kDwQuadPix, 4>(prow, wt_off, nt, 0, k2n, xs, wstep, wt, bias, c, dst, ps, ds);
            o2 += kDwQuadPix - 1;
            continue;
          }
          int64_t k2lo = 0, k2hi = k2n;
          if (x < 0 || x + (k2n - 1) * g.d[2] >= g.big[2]) {  // a border column: the taps inside the row
            k2lo = x >= 0 ? 0 : std::min<int64_t>(k2n, (-x + g.d[2] - 1) / g.d[2]);
            k2hi = x >= g.big[2] ? 0 : std::min<int64_t>(k2n, (g.big[2] - 1 - x) / g.d[2] + 1);
          }
          // The row pointers moved to column x (only dereferenced at x + k2*d2 inside the row).
          const float *prow[64];
          for (int64_t tt = 0; tt < nt; ++tt) prow[tt] = rows[tt] + x * a.in.ss[2];
          float *dst = orow + o2 * a.out.ss[2];
          int64_t c = 0;
          for (; c + 4 * kDwVw <= C; c += 4 * kDwVw)
            dw_nhwc_block<1, 4>(prow, wt_off, nt, k2lo, std::max(k2lo, k2hi), xs, wstep, wt, bias, c, dst);
          if (c + 2 * kDwVw <= C) {
            dw_nhwc_block<1, 2>(prow, wt_off, nt, k2lo, std::max(k2lo, k2hi), xs, wstep, wt, bias, c, dst);
            c += 2 * kDwVw;
          }
          for (; c + kDwVw <= C; c += kDwVw)
            dw_nhwc_block<1, 1>(prow, wt_off, nt, k2lo, std::max(k2lo, k2hi), xs, wstep, wt, bias, c, dst);
          for (; c < C; ++c) {
            float sacc = 0.0f;
            for (int64_t tt = 0; tt < nt; ++tt)
              for (int64_t k2 = k2lo; k2 < k2hi; ++k2) sacc += wt[wt_off[tt] + k2 * wstep + c] * prow[tt][k2 * xs + c];
            dst[c] = sacc + bias[c];
          }
        }
      }
    }
    if (stream) dw_stream_fence();  // (the streamed lines visible before the launch completes)
  });
}

}  // namespace
}  // namespace opsnn::kernels

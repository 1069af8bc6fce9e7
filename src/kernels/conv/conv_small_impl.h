// The few-input-channel direct convolution (conv_small.h), compiled once per ISA unit
// (conv_small.cpp portable, conv_small_avx2.cpp, conv_small_avx512.cpp) with OPSNN_SC_VW floats per
// GCC vector; everything here has internal linkage.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/conv/conv_small.h"
#if OPSNN_SC_VW == 16
#include "kernels/simd/avx512_intrinsics.h"
#endif

namespace opsnn::kernels {
namespace {

#ifndef OPSNN_SC_VW
#define OPSNN_SC_VW 4
#endif
constexpr int kScVw = OPSNN_SC_VW;
typedef float ScVec __attribute__((vector_size(OPSNN_SC_VW * 4)));

// Register tile: CB output channels x NV vectors of pixels (accumulators + CB broadcast weights +
// one input vector within the unit's registers: AVX-512 32, AVX2 / SSE 16).
#if OPSNN_SC_VW == 16
constexpr int kScCb = 4, kScNv = 6;
#else
constexpr int kScCb = 4, kScNv = 2;
#endif

// n (< a few vectors) contiguous floats: a libc memcpy call per short output row costs more than
// the row's arithmetic (the example CNN's rows are 8 and 16 floats).
inline void sc_copy(float *dst, const float *src, int64_t n) {
#if OPSNN_SC_VW == 16
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(dst + i, _mm512_loadu_ps(src + i));
#if defined(OPSNN_EMULATE_AVX512)  // (SIMDe has no masked load / store aliases: GCC's would need AVX-512)
  for (; i < n; ++i) dst[i] = src[i];
#else
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_maskz_loadu_ps(m, src + i));
  }
#endif
#else
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
#endif
}

inline ScVec sc_load(const float *p) {
  ScVec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// acc[c][v] = bias[c] + sum over (ci, tap) of w[c][ci][tap] * planes[ci][taps[tap] + j + v * kScVw],
// stored to stage[c][v * kScVw ...].
template <int CB, int NV>
inline void sc_tile(const float *planes, int64_t plane, const int64_t *taps, int64_t ntaps, int64_t cin,
                    const float *w, const float *bias, int64_t j, float *stage) {
  const int64_t wco = cin * ntaps;  // floats between two output channels' weights
  ScVec acc[CB][NV];
#pragma GCC unroll 8
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[c][v] = ScVec{} + bias[c];
  for (int64_t ci = 0; ci < cin; ++ci) {
    const float *pl = planes + ci * plane + j;
    const float *wc = w + ci * ntaps;
    for (int64_t t = 0; t < ntaps; ++t) {
      const float *src = pl + taps[t];
      ScVec wv[CB];
#pragma GCC unroll 8
      for (int c = 0; c < CB; ++c) wv[c] = wc[c * wco + t] - ScVec{};  // (x - 0 folds to a broadcast; 0 + x would not)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        const ScVec x = sc_load(src + v * kScVw);
#pragma GCC unroll 8
        for (int c = 0; c < CB; ++c) acc[c][v] += wv[c] * x;
      }
    }
  }
#pragma GCC unroll 8
  for (int c = 0; c < CB; ++c)
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) std::memcpy(stage + (c * kScNv + v) * kScVw, &acc[c][v], sizeof(ScVec));
}

template <int CB>
inline void sc_tile_nv(int nv, const float *planes, int64_t plane, const int64_t *taps, int64_t ntaps, int64_t cin,
                       const float *w, const float *bias, int64_t j, float *stage) {
  switch (nv) {
#if OPSNN_SC_VW == 16
    case 6: sc_tile<CB, 6>(planes, plane, taps, ntaps, cin, w, bias, j, stage); break;
    case 5: sc_tile<CB, 5>(planes, plane, taps, ntaps, cin, w, bias, j, stage); break;
    case 4: sc_tile<CB, 4>(planes, plane, taps, ntaps, cin, w, bias, j, stage); break;
    case 3: sc_tile<CB, 3>(planes, plane, taps, ntaps, cin, w, bias, j, stage); break;
#endif
    case 2: sc_tile<CB, 2>(planes, plane, taps, ntaps, cin, w, bias, j, stage); break;
    default: sc_tile<CB, 1>(planes, plane, taps, ntaps, cin, w, bias, j, stage); break;
  }
}

// Image n's C_in planes, zero-padded, each padded row split into its s2 phases: padded column
// c = q + s2 * i lives at phase q, index i. (Plain loops: libc calls per short row cost more than
// the rows.)
inline void sc_fill(const SmallArgs &a, const SmallPlanes &sp, int64_t n, float *dst) {
  const ConvGeom &g = a.g;
  const int64_t s2 = g.s[2];
  if (sp.shifted) {
    const int64_t n2 = g.small[2], step = s2 * a.in_ss[2];
    // The padded rows inside the input, and per kernel column the outputs o2 whose column
    // o2 * s2 + k2 * d2 - p2 lies in [0, big2) (the same for every channel and row).
    const int64_t x0lo = std::min(sp.e[0], g.p[0]), x0hi = std::min(sp.e[0], g.p[0] + g.big[0]);
    const int64_t x1lo = std::min(sp.e[1], g.p[1]), x1hi = std::min(sp.e[1], g.p[1] + g.big[1]);
    int64_t lo_stack[16], hi_stack[16];
    std::vector<int64_t> lo_heap, hi_heap;
    int64_t *los = lo_stack, *his = hi_stack;
    if (g.k[2] > 16) {
      lo_heap.resize(static_cast<size_t>(g.k[2]));
      hi_heap.resize(static_cast<size_t>(g.k[2]));
      los = lo_heap.data();
      his = hi_heap.data();
    }
    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
      const int64_t off = k2 * g.d[2] - g.p[2];
      los[k2] = std::min<int64_t>(n2, off >= 0 ? 0 : (-off + s2 - 1) / s2);
      const int64_t last = g.big[2] - 1 - off;
      his[k2] = last < 0 ? los[k2] : std::max<int64_t>(los[k2], std::min<int64_t>(n2, last / s2 + 1));
    }
    for (int64_t ci = 0; ci < a.c_in; ++ci) {
      const float *in = a.in + n * a.in_sn + ci * a.in_sc;
      float *pl = dst + ci * sp.plane;
      for (int64_t i = 0; i < sp.plane; ++i) pl[i] = 0.0f;
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const int64_t lo = los[k2], cnt = his[k2] - lo;
        if (cnt <= 0) continue;
        const float *src0 = in + (lo * s2 + k2 * g.d[2] - g.p[2]) * a.in_ss[2];
        float *kp = pl + k2 * sp.kplane + lo;
        for (int64_t x0 = x0lo; x0 < x0hi; ++x0)
          for (int64_t x1 = x1lo; x1 < x1hi; ++x1) {
            const float *s = src0 + (x0 - g.p[0]) * a.in_ss[0] + (x1 - g.p[1]) * a.in_ss[1];
            float *row = kp + (x0 * sp.e[1] + x1) * n2;
            if (step == 1)
              sc_copy(row, s, cnt);
            else
              for (int64_t i = 0; i < cnt; ++i) row[i] = s[i * step];
          }
      }
    }
    return;
  }
  for (int64_t ci = 0; ci < a.c_in; ++ci) {
    const float *in = a.in + n * a.in_sn + ci * a.in_sc;
    float *pl = dst + ci * sp.plane;
    for (int64_t x0 = 0; x0 < sp.e[0]; ++x0)
      for (int64_t x1 = 0; x1 < sp.e[1]; ++x1) {
        float *row = pl + (x0 * sp.e[1] + x1) * sp.rlen;
        for (int64_t i = 0; i < sp.rlen; ++i) row[i] = 0.0f;
        const int64_t i0 = x0 - g.p[0], i1 = x1 - g.p[1];
        if (i0 < 0 || i0 >= g.big[0] || i1 < 0 || i1 >= g.big[1]) continue;
        const float *src = in + i0 * a.in_ss[0] + i1 * a.in_ss[1];
        for (int64_t q = 0; q < s2; ++q) {
          // Indices i whose input column q + s2 * i - p2 lies in [0, big2).
          const int64_t lo = std::min<int64_t>(sp.plen, std::max<int64_t>(0, (g.p[2] - q + s2 - 1) / s2));
          const int64_t last = g.big[2] - 1 + g.p[2] - q;
          const int64_t hi = last < 0 ? lo : std::max<int64_t>(lo, std::min<int64_t>(sp.plen, last / s2 + 1));
          if (hi <= lo) continue;
          const float *s = src + (q + s2 * lo - g.p[2]) * a.in_ss[2];
          const int64_t step = s2 * a.in_ss[2];
          float *ph = row + q * sp.plen + lo;
          if (step == 1)
            sc_copy(ph, s, hi - lo);
          else
            for (int64_t i = 0; i < hi - lo; ++i) ph[i] = s[i * step];
        }
      }
  }
}

inline void small_body(const SmallArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  const SmallPlanes sp = conv_small_planes(g, a.c_in);
  const int64_t ntaps = g.kprod(), s2 = g.s[2];
  // Each tap's offset from an output pixel's J (o0 = 0): padded row (k0 d0, k1 d1), phase and index of k2 d2.
  std::vector<int64_t> taps(static_cast<size_t>(ntaps));
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
        taps[static_cast<size_t>((k0 * g.k[1] + k1) * g.k[2] + k2)] =
            (k0 * g.d[0] * sp.e[1] + k1 * g.d[1]) * sp.rlen +
            (sp.shifted ? k2 * sp.kplane : ((k2 * g.d[2]) % s2) * sp.plen + (k2 * g.d[2]) / s2);
  const int64_t groups = (a.c_out + kScCb - 1) / kScCb, tasks = a.n * groups;
  const int64_t nvec = (sp.wide + kScVw - 1) / kScVw;
  const int64_t o0_step = g.s[0] * sp.e[1] * sp.rlen;
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, tasks)));
  // Dense output rows of a shifted layout: a tile's J run is a run of the output plane.
  const bool dense = sp.shifted && a.out_ss[2] == 1 && (g.small[1] == 1 || a.out_ss[1] == g.small[2]);
  core::parallel_for(T, 1, [&](int64_t th0, int64_t th1) {
    float stage[kScCb * kScNv * kScVw];
    for (int64_t th = th0; th < th1; ++th) {
      float *planes = scratch + th * sp.floats;
      // What the last vectors read past the planes: zeros (their lanes are thrown away).
      std::fill(planes + a.c_in * sp.plane, planes + sp.floats, 0.0f);
      const int64_t t0 = tasks * th / T, t1 = tasks * (th + 1) / T;
      int64_t filled = -1;
      for (int64_t t = t0; t < t1; ++t) {  // image-major: an image's planes are filled once per thread
        const int64_t n = t / groups, co0 = (t % groups) * kScCb;
        const int cb = static_cast<int>(std::min<int64_t>(kScCb, a.c_out - co0));
        if (n != filled) sc_fill(a, sp, n, planes);
        filled = n;
        const float *w = a.w + co0 * a.c_in * ntaps, *bias = a.bias + co0;
        for (int64_t o0 = 0; o0 < g.small[0]; ++o0) {
          const float *base = planes + o0 * o0_step;
          float *out0 = a.out + n * a.out_sn + co0 * a.out_sc + o0 * a.out_ss[0];
          for (int64_t v0 = 0; v0 < nvec; v0 += kScNv) {
            const int nv = static_cast<int>(std::min<int64_t>(kScNv, nvec - v0));
            const int64_t j0 = v0 * kScVw, j1 = std::min(sp.wide, j0 + nv * kScVw);
            switch (cb) {
              case 4: sc_tile_nv<4>(nv, base, sp.plane, taps.data(), ntaps, a.c_in, w, bias, j0, stage); break;
              case 3: sc_tile_nv<3>(nv, base, sp.plane, taps.data(), ntaps, a.c_in, w, bias, j0, stage); break;
              case 2: sc_tile_nv<2>(nv, base, sp.plane, taps.data(), ntaps, a.c_in, w, bias, j0, stage); break;
              default: sc_tile_nv<1>(nv, base, sp.plane, taps.data(), ntaps, a.c_in, w, bias, j0, stage); break;
            }
            if (dense) {
              for (int c = 0; c < cb; ++c) sc_copy(out0 + c * a.out_sc + j0, stage + c * kScNv * kScVw, j1 - j0);
              continue;
            }
            // The tile's pixels that are outputs: row o1's J run [o1 * pitch, o1 * pitch + small2).
            for (int64_t o1 = j0 / sp.pitch; o1 < g.small[1] && o1 * sp.pitch < j1; ++o1) {
              const int64_t r0 = o1 * sp.pitch, lo = std::max(j0, r0), hi = std::min(j1, r0 + g.small[2]);
              if (lo >= hi) continue;
              for (int c = 0; c < cb; ++c) {
                const float *src = stage + c * kScNv * kScVw + (lo - j0);
                float *dst = out0 + c * a.out_sc + o1 * a.out_ss[1] + (lo - r0) * a.out_ss[2];
                if (a.out_ss[2] == 1)
                  sc_copy(dst, src, hi - lo);
                else
                  for (int64_t i = 0; i < hi - lo; ++i) dst[i * a.out_ss[2]] = src[i];
              }
            }
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace opsnn::kernels

// The resize kernels of one ISA tier: included by resize_portable.cpp, resize_avx2.cpp and
// resize_avx512.cpp, each compiled with its tier's flags (cmake/isa_flags.cmake), inside a
// namespace of its own. Each pass along an axis is a weighted sum of contiguous vectors (the
// positions after the axis: the rest of the row for D / H, the channels for W when channels-last),
// written as plain loops GCC vectorises; planar W is a gather along the row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "kernels/pooling/resize.h"

namespace opsnn::kernels::resize_impl {
namespace {  // internal linkage: each tier's unit keeps its own copies

// Planar W: `rows` rows gathered along the row, the tap count a compile-time constant so the
// taps unroll and the output loop vectorises (gathers); nearest (one tap of weight 1) is a copy.
template <int T>
void gather_rows(const ResizeAxis &a, int64_t rows, const float *src, float *dst) {
  const int32_t *ix = a.idx.data();
  const float *wt = a.w.data();
  for (int64_t b = 0; b < rows; ++b) {
    const float *__restrict s = src + b * a.in;
    float *__restrict d = dst + b * a.out;
    for (int64_t o = 0; o < a.out; ++o) {
      if constexpr (T == 1) {
        d[o] = s[ix[o]];
      } else {
        float acc = wt[o * T] * s[ix[o * T]];
        for (int k = 1; k < T; ++k) acc += wt[o * T + k] * s[ix[o * T + k]];
        d[o] = acc;
      }
    }
  }
}

// One pass along an axis: `outer` blocks of [a.in x inner] -> [a.out x inner].
void gather_pass(const ResizeAxis &a, int64_t outer, int64_t inner, const float *src, float *dst) {
  const int T = a.taps;
  const int32_t *ix = a.idx.data();
  const float *wt = a.w.data();
  if (inner == 1) {
    if (T == 1) gather_rows<1>(a, outer, src, dst);
    else if (T == 2) gather_rows<2>(a, outer, src, dst);
    else gather_rows<4>(a, outer, src, dst);
    return;
  }
  for (int64_t b = 0; b < outer; ++b) {
    const float *s = src + b * a.in * inner;
    float *d = dst + b * a.out * inner;
    for (int64_t o = 0; o < a.out; ++o) {  // weighted vectors
      float *__restrict dr = d + o * inner;
      const float *__restrict r0 = s + int64_t{ix[o * T]} * inner;
      const float w0 = wt[o * T];
      if (T == 1) {  // nearest: a copy of the source vector
        std::memcpy(dr, r0, static_cast<size_t>(inner) * sizeof(float));
        continue;
      }
      for (int64_t i = 0; i < inner; ++i) dr[i] = w0 * r0[i];
      for (int k = 1; k < T; ++k) {
        const float *__restrict r = s + int64_t{ix[o * T + k]} * inner;
        const float wk = wt[o * T + k];
        for (int64_t i = 0; i < inner; ++i) dr[i] += wk * r[i];
      }
    }
  }
}

// The transpose: dst ([a.in x inner] blocks) = 0, then dst[idx] += w * src[o] for o ascending.
void scatter_pass(const ResizeAxis &a, int64_t outer, int64_t inner, const float *src, float *dst) {
  const int T = a.taps;
  const int32_t *ix = a.idx.data();
  const float *wt = a.w.data();
  std::fill(dst, dst + outer * a.in * inner, 0.f);
  for (int64_t b = 0; b < outer; ++b) {
    const float *s = src + b * a.out * inner;
    float *d = dst + b * a.in * inner;
    if (inner == 1) {
      for (int64_t o = 0; o < a.out; ++o)
        for (int k = 0; k < T; ++k) d[ix[o * T + k]] += wt[o * T + k] * s[o];
      continue;
    }
    for (int64_t o = 0; o < a.out; ++o) {
      const float *__restrict sr = s + o * inner;
      for (int k = 0; k < T; ++k) {
        float *__restrict dr = d + int64_t{ix[o * T + k]} * inner;
        const float wk = wt[o * T + k];
        for (int64_t i = 0; i < inner; ++i) dr[i] += wk * sr[i];
      }
    }
  }
}

// A task's intermediate rows (uninitialised: every pass writes or zeroes its output first).
std::unique_ptr<float[]> scratch(int64_t n) {
  return std::unique_ptr<float[]>(n > 0 ? new float[static_cast<size_t>(n)] : nullptr);
}

// Nearest on every axis (one tap of weight 1): each output row read straight from its source row,
// no intermediate passes; a W gather (planar) or a C-vector copy per position (channels-last).
void nearest_plane(const ResizePlan &p, const float *in, float *out) {
  const ResizeAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t ci = p.inner;
  const int32_t *iw = W.idx.data();
  for (int64_t od = 0; od < D.out; ++od)
    for (int64_t oh = 0; oh < H.out; ++oh) {
      const float *__restrict s = in + (int64_t{D.idx[od]} * H.in + H.idx[oh]) * W.in * ci;
      float *__restrict d = out + (od * H.out + oh) * W.out * ci;
      if (ci == 1) {
        for (int64_t ow = 0; ow < W.out; ++ow) d[ow] = s[iw[ow]];
      } else {
        for (int64_t ow = 0; ow < W.out; ++ow)
          std::memcpy(d + ow * ci, s + int64_t{iw[ow]} * ci, static_cast<size_t>(ci) * sizeof(float));
      }
    }
}

// Planes [b0, b1): W, H, D passes; each pass writes the output when it is the last one.
void forward(const ResizePlan &p, const float *in, float *out, int64_t b0, int64_t b1) {
  const ResizeAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t ci = p.inner;
  const bool dw = !W.identity(), dh = !H.identity(), dd = !D.identity();
  const bool nearest = D.taps == 1 && H.taps == 1 && W.taps == 1;
  const std::unique_ptr<float[]> t1 = scratch(!nearest && dw && (dh || dd) ? D.in * H.in * W.out * ci : 0),
                                 t2 = scratch(!nearest && dh && dd ? D.in * H.out * W.out * ci : 0);
  for (int64_t pl = b0; pl < b1; ++pl) {
    const float *cur = in + pl * p.in_plane();
    float *dst = out + pl * p.out_plane();
    if (!dw && !dh && !dd) {
      std::memcpy(dst, cur, static_cast<size_t>(p.out_plane()) * sizeof(float));
      continue;
    }
    if (nearest) {
      nearest_plane(p, cur, dst);
      continue;
    }
    if (dw) {
      float *t = (!dh && !dd) ? dst : t1.get();
      gather_pass(W, D.in * H.in, ci, cur, t);
      cur = t;
    }
    if (dh) {
      float *t = !dd ? dst : t2.get();
      gather_pass(H, D.in, W.out * ci, cur, t);
      cur = t;
    }
    if (dd) gather_pass(D, 1, H.out * W.out * ci, cur, dst);
  }
}

void backward(const ResizePlan &p, const float *gout, float *gin, int64_t b0, int64_t b1) {
  const ResizeAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t ci = p.inner;
  const bool dw = !W.identity(), dh = !H.identity(), dd = !D.identity();
  const std::unique_ptr<float[]> t2 = scratch(dd && (dh || dw) ? D.in * H.out * W.out * ci : 0),
                                 t1 = scratch(dh && dw ? D.in * H.in * W.out * ci : 0);
  for (int64_t pl = b0; pl < b1; ++pl) {
    const float *cur = gout + pl * p.out_plane();
    float *dst = gin + pl * p.in_plane();
    if (!dw && !dh && !dd) {
      std::memcpy(dst, cur, static_cast<size_t>(p.in_plane()) * sizeof(float));
      continue;
    }
    if (dd) {
      float *t = (!dh && !dw) ? dst : t2.get();
      scatter_pass(D, 1, H.out * W.out * ci, cur, t);
      cur = t;
    }
    if (dh) {
      float *t = !dw ? dst : t1.get();
      scatter_pass(H, D.in, W.out * ci, cur, t);
      cur = t;
    }
    if (dw) scatter_pass(W, D.in * H.in, ci, cur, dst);
  }
}

}  // namespace
}  // namespace opsnn::kernels::resize_impl

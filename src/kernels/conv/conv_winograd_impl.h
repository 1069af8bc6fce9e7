// The Winograd input / output transforms (conv_winograd.h), compiled once per ISA unit with GCC
// vector extensions of OPSNN_WINO_VW floats along the channels (the channel tail one float at a
// time). Channels-last images (channel stride 1) are read / written as whole vectors; any other
// layout (e.g. NCHW) is gathered / scattered lane by lane.
#pragma once

#include <algorithm>
#include <cstring>

#include "kernels/conv/conv_winograd.h"

#ifndef OPSNN_WINO_VW
#error "define OPSNN_WINO_VW (floats per vector) before including conv_winograd_impl.h"
#endif

namespace opsnn::kernels {
namespace {

typedef float wino_vec __attribute__((vector_size(OPSNN_WINO_VW * 4)));

template <class V>
constexpr int lanes() {
  return static_cast<int>(sizeof(V) / 4);
}

template <class V, bool Dense>
inline V wload(const float *p, int64_t stride) {
  V v;
  if (Dense) {
    std::memcpy(&v, p, sizeof v);
  } else {
    float t[lanes<V>()];
    for (int l = 0; l < lanes<V>(); ++l) t[l] = p[l * stride];
    std::memcpy(&v, t, sizeof v);
  }
  return v;
}

template <class V, bool Dense>
inline void wstore(float *p, int64_t stride, V v) {
  if (Dense) {
    std::memcpy(p, &v, sizeof v);
  } else {
    float t[lanes<V>()];
    std::memcpy(t, &v, sizeof v);
    for (int l = 0; l < lanes<V>(); ++l) p[l * stride] = t[l];
  }
}

// r = B^T d along one line of M + 2 values (d[i * ds], r[i * rs]).
template <int M, class V>
inline void in_line(const V *d, int ds, V *r, int rs) {
  if constexpr (M == 2) {
    r[0] = d[0] - d[2 * ds];
    r[rs] = d[ds] + d[2 * ds];
    r[2 * rs] = d[2 * ds] - d[ds];
    r[3 * rs] = d[ds] - d[3 * ds];
  } else {
    const V d0 = d[0], d1 = d[ds], d2 = d[2 * ds], d3 = d[3 * ds], d4 = d[4 * ds], d5 = d[5 * ds];
    r[0] = (d4 - d2 * 5.0f) + d0 * 4.0f;
    r[rs] = (d3 + d4) - (d1 + d2) * 4.0f;
    r[2 * rs] = (d4 - d3) + (d1 - d2) * 4.0f;
    r[3 * rs] = (d4 - d2) + (d3 - d1) * 2.0f;
    r[4 * rs] = (d4 - d2) - (d3 - d1) * 2.0f;
    r[5 * rs] = (d5 - d3 * 5.0f) + d1 * 4.0f;
  }
}

// y = A^T m along one line of M + 2 values (y: M values).
template <int M, class V>
inline void out_line(const V *m, int ms, V *y, int ys) {
  if constexpr (M == 2) {
    y[0] = m[0] + m[ms] + m[2 * ms];
    y[ys] = m[ms] - m[2 * ms] - m[3 * ms];
  } else {
    const V a = m[ms] + m[2 * ms], b = m[ms] - m[2 * ms], c = m[3 * ms] + m[4 * ms], d = m[3 * ms] - m[4 * ms];
    y[0] = m[0] + a + c;
    y[ys] = b + d * 2.0f;
    y[2 * ys] = a + c * 4.0f;
    y[3 * ys] = (b + d * 8.0f) + m[5 * ms];
  }
}

// One tile's patch of lanes<V>() channels (base: the image at the first channel) transformed into
// the planes (dst: plane 0 at the tile's first channel). Inside: every patch value is in the image.
template <int M, class V, bool Dense, bool Inside>
inline void input_chunk(const WinoArgs &a, const float *base, int64_t y0, int64_t x0, float *dst, int64_t ldp) {
  constexpr int P = M + 2;
  V d[P * P], r[P * P];
  for (int i = 0; i < P; ++i) {
    const int64_t y = y0 + i;
    const bool yin = Inside || (y >= 0 && y < a.h);
    for (int j = 0; j < P; ++j) {
      const int64_t x = x0 + j;
      d[i * P + j] = (yin && (Inside || (x >= 0 && x < a.w))) ? wload<V, Dense>(base + y * a.in_sh + x * a.in_sw, a.in_sc)
                                                              : V{};
    }
  }
  for (int j = 0; j < P; ++j) in_line<M>(d + j, P, r + j, P);
  for (int i = 0; i < P; ++i) in_line<M>(r + i * P, 1, d + i * P, 1);
  for (int t = 0; t < P * P; ++t) wstore<V, true>(dst + t * ldp, 1, d[t]);
}

template <int M, bool Dense, bool Inside>
inline void input_tile(const WinoArgs &a, const float *base, int64_t y0, int64_t x0, float *dst, int64_t ldp) {
  int64_t c = 0;
  for (; c + OPSNN_WINO_VW <= a.c_in; c += OPSNN_WINO_VW)
    input_chunk<M, wino_vec, Dense, Inside>(a, base + c * a.in_sc, y0, x0, dst + c, ldp);
  for (; c < a.c_in; ++c) input_chunk<M, float, Dense, Inside>(a, base + c * a.in_sc, y0, x0, dst + c, ldp);
}

template <int M, bool Dense>
void input_range(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp) {
  const int64_t per_image = a.tiles_h * a.tiles_w;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t t = tile0 + i, n = t / per_image, ty = (t % per_image) / a.tiles_w, tx = t % a.tiles_w;
    const int64_t y0 = ty * M - a.pad_h, x0 = tx * M - a.pad_w;
    const float *base = a.in + n * a.in_sn;
    float *dst = v + i * a.c_in;
    if (y0 >= 0 && x0 >= 0 && y0 + M + 2 <= a.h && x0 + M + 2 <= a.w)
      input_tile<M, Dense, true>(a, base, y0, x0, dst, ldp);
    else
      input_tile<M, Dense, false>(a, base, y0, x0, dst, ldp);
  }
}

// One tile's M planes of lanes<V>() channels (src: plane 0 at the tile's first channel) to the
// output pixels inside the image, + bias.
template <int M, class V, bool Dense>
inline void output_chunk(const WinoArgs &a, const float *src, int64_t ldp, V bias, float *base, int64_t y0,
                         int64_t x0) {
  constexpr int P = M + 2;
  V m[P * P], r[M * P], y[M * M];
  for (int t = 0; t < P * P; ++t) m[t] = wload<V, true>(src + t * ldp, 1);
  for (int j = 0; j < P; ++j) out_line<M>(m + j, P, r + j, P);
  for (int i = 0; i < M; ++i) out_line<M>(r + i * P, 1, y + i * M, 1);
  const int rows = static_cast<int>(std::min<int64_t>(M, a.oh - y0)), cols = static_cast<int>(std::min<int64_t>(M, a.ow - x0));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      wstore<V, Dense>(base + (y0 + i) * a.out_sh + (x0 + j) * a.out_sw, a.out_sc, y[i * M + j] + bias);
}

template <int M, bool Dense>
void output_range(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp) {
  const int64_t per_image = a.tiles_h * a.tiles_w;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t t = tile0 + i, n = t / per_image, ty = (t % per_image) / a.tiles_w, tx = t % a.tiles_w;
    float *base = a.out + n * a.out_sn;
    const float *src = mm + i * a.c_out;
    int64_t c = 0;
    for (; c + OPSNN_WINO_VW <= a.c_out; c += OPSNN_WINO_VW) {
      const wino_vec b = a.bias != nullptr ? wload<wino_vec, true>(a.bias + c, 1) : wino_vec{};
      output_chunk<M, wino_vec, Dense>(a, src + c, ldp, b, base + c * a.out_sc, ty * M, tx * M);
    }
    for (; c < a.c_out; ++c)
      output_chunk<M, float, Dense>(a, src + c, ldp, a.bias != nullptr ? a.bias[c] : 0.0f, base + c * a.out_sc, ty * M,
                                    tx * M);
  }
}

void wino_input_body(const WinoArgs &a, int64_t tile0, int64_t count, float *v, int64_t ldp) {
  const bool dense = a.in_sc == 1;
  if (a.m == 2)
    dense ? input_range<2, true>(a, tile0, count, v, ldp) : input_range<2, false>(a, tile0, count, v, ldp);
  else
    dense ? input_range<4, true>(a, tile0, count, v, ldp) : input_range<4, false>(a, tile0, count, v, ldp);
}

void wino_output_body(const WinoArgs &a, int64_t tile0, int64_t count, const float *mm, int64_t ldp) {
  const bool dense = a.out_sc == 1;
  if (a.m == 2)
    dense ? output_range<2, true>(a, tile0, count, mm, ldp) : output_range<2, false>(a, tile0, count, mm, ldp);
  else
    dense ? output_range<4, true>(a, tile0, count, mm, ldp) : output_range<4, false>(a, tile0, count, mm, ldp);
}

}  // namespace
}  // namespace opsnn::kernels

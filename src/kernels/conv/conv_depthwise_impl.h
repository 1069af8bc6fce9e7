// The convolution kernels' row conversions and the direct depthwise kernel, compiled once per ISA
// unit (conv.cpp portable, conv_avx2.cpp, conv_avx512.cpp): everything here has internal linkage,
// so no unit's code is shared with another's (an AVX-512 copy never runs before detection).
#pragma once

#include <algorithm>
#include <cstring>

#include "common/half.h"
#include "core/thread_pool.h"
#include "kernels/conv/conv.h"

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

inline int64_t depthwise_scratch_floats(const ConvGeom &g) {
  int64_t e[3];
  padded_extent(g, e);
  // The plane, one output row, the taps.
  return e[0] * e[1] * e[2] + g.small[2] + g.kprod() + 16;
}

inline void depthwise_body(const DepthwiseArgs &a, float *scratch, int threads) {
  const ConvGeom &g = a.g;
  int64_t e[3];
  padded_extent(g, e);
  const int64_t per = depthwise_scratch_floats(g);
  const int64_t items = a.n * a.c_in;
  const int64_t ies = static_cast<int64_t>(esize_of(a.in.dtype)), oes = static_cast<int64_t>(esize_of(a.out.dtype));
  const int64_t wes = static_cast<int64_t>(esize_of(a.w_dtype)), bes = static_cast<int64_t>(esize_of(a.bias_dtype));
  const int T = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, items)));
  core::parallel_for(T, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      float *pad = scratch + t * per;
      float *acc = pad + e[0] * e[1] * e[2];
      const int64_t i0 = items * t / T, i1 = items * (t + 1) / T;
      for (int64_t it = i0; it < i1; ++it) {
        const int64_t n = it / a.c_in, ci = it % a.c_in;
        // The zero-padded input plane.
        const char *in = a.in.base + ies * (n * a.in_sn + ci * a.in.sc);
        const int64_t lo2 = std::min<int64_t>(g.p[2], e[2]);
        const int64_t cnt2 = std::max<int64_t>(0, std::min<int64_t>(g.big[2], e[2] - g.p[2]));
        for (int64_t x0 = 0; x0 < e[0]; ++x0)
          for (int64_t x1 = 0; x1 < e[1]; ++x1) {
            float *row = pad + (x0 * e[1] + x1) * e[2];
            const int64_t i0d = x0 - g.p[0], i1d = x1 - g.p[1];
            if (i0d < 0 || i0d >= g.big[0] || i1d < 0 || i1d >= g.big[1]) {
              std::fill(row, row + e[2], 0.0f);
              continue;
            }
            std::fill(row, row + lo2, 0.0f);
            load_row(a.in.dtype, in + ies * (i0d * a.in.ss[0] + i1d * a.in.ss[1]), a.in.ss[2], cnt2, row + lo2);
            std::fill(row + lo2 + cnt2, row + e[2], 0.0f);
          }
        for (int64_t m = 0; m < a.mult; ++m) {
          const int64_t co = ci * a.mult + m;
          const float b = a.bias != nullptr ? conv_load(a.bias_dtype, a.bias + bes * co * a.bias_s) : 0.0f;
          const char *w = a.w + wes * co * a.w_s0;
          float *wf = acc + g.small[2];  // the channel's taps in fp32
          for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
              for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
                wf[(k0 * g.k[1] + k1) * g.k[2] + k2] =
                    conv_load(a.w_dtype, w + wes * (k0 * a.w_ss[0] + k1 * a.w_ss[1] + k2 * a.w_ss[2]));
          char *out = a.out_base + oes * (n * a.out_sn + co * a.out.sc);
          const int64_t s2 = g.s[2], n2 = g.small[2];
          for (int64_t o0 = 0; o0 < g.small[0]; ++o0)
            for (int64_t o1 = 0; o1 < g.small[1]; ++o1) {
              for (int64_t o2 = 0; o2 < n2; ++o2) acc[o2] = 0.0f;
              for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
                for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                  const float *prow = pad + ((o0 * g.s[0] + k0 * g.d[0]) * e[1] + o1 * g.s[1] + k1 * g.d[1]) * e[2];
                  const float *wk = wf + (k0 * g.k[1] + k1) * g.k[2];
                  for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                    const float wv = wk[k2];
                    const float *src = prow + k2 * g.d[2];
                    if (s2 == 1) {
                      for (int64_t o2 = 0; o2 < n2; ++o2) acc[o2] += wv * src[o2];
                    } else {
                      for (int64_t o2 = 0; o2 < n2; ++o2) acc[o2] += wv * src[o2 * s2];
                    }
                  }
                }
              for (int64_t o2 = 0; o2 < n2; ++o2) acc[o2] += b;
              store_row(a.out.dtype, acc, n2, out + oes * (o0 * a.out.ss[0] + o1 * a.out.ss[1]), a.out.ss[2]);
            }
        }
      }
    }
  });
}


}  // namespace
}  // namespace opsnn::kernels

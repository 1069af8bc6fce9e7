// The pooling kernels of one ISA tier: included by pool_portable.cpp, pool_avx2.cpp and
// pool_avx512.cpp, each compiled with its tier's flags (cmake/isa_flags.cmake), inside a namespace
// of its own. Plain loops written so GCC vectorises them: over the output row's width in planar
// buffers (the W interior, where every window is whole, has no per-element bounds), over channels
// in channels-last buffers.
//
// Max follows PyTorch: a value replaces the maximum when it is greater or NaN (so NaN propagates
// and the index is the last NaN's), the index starts at the window's first valid position; the
// windows are visited in row-major order (ties keep the first). Averages sum in float in the same
// order and divide by the divisor once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/pooling/pool.h"

namespace opsnn::kernels::pool_impl {
namespace {  // internal linkage: each tier's unit keeps its own copies

int64_t divisor(const PoolPlan &p, int64_t od, int64_t oh, int64_t ow) {
  if (p.divisor_override != 0) return p.divisor_override;
  const auto &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  if (p.count_include_pad) return int64_t{D.pcnt[od]} * H.pcnt[oh] * W.pcnt[ow];
  return int64_t{D.cnt[od]} * H.cnt[oh] * W.cnt[ow];
}

template <bool kAvg, bool kIdx>
void update(float &a, int64_t &x, float v, int64_t pos) {
  if constexpr (kAvg) {
    a += v;
  } else {
    const bool take = v > a || v != v;
    a = take ? v : a;
    if constexpr (kIdx) x = take ? pos : x;
  }
}

// One window covering the whole plane (global average / max, no index): planes of up to 256
// elements 16 at a time (a lane per plane, summed in order), larger ones in 16 lanes over the
// contiguous plane combined in a fixed order.
template <bool kAvg>
void forward_global(const PoolPlan &p, const float *in, float *out, int64_t b0, int64_t b1) {
  const int64_t ip = p.in_plane();
  constexpr int kL = 16;
  const float init = kAvg ? 0.0f : -std::numeric_limits<float>::infinity();
  int64_t dummy = 0;
  if (ip <= 256) {  // small planes: the lanes are 16 planes, each summed in order (a strided gather)
    const float dv = kAvg ? static_cast<float>(divisor(p, 0, 0, 0)) : 1.0f;
    int64_t pl = b0;
    for (; pl + kL <= b1; pl += kL) {
      const float *__restrict x = in + pl * ip;
      float acc[kL];
      for (int j = 0; j < kL; ++j) acc[j] = init;
      for (int64_t i = 0; i < ip; ++i)
        for (int j = 0; j < kL; ++j) update<kAvg, false>(acc[j], dummy, x[j * ip + i], 0);
      for (int j = 0; j < kL; ++j) out[pl + j] = kAvg ? acc[j] / dv : acc[j];
    }
    for (; pl < b1; ++pl) {
      const float *__restrict x = in + pl * ip;
      float a = init;
      for (int64_t i = 0; i < ip; ++i) update<kAvg, false>(a, dummy, x[i], 0);
      out[pl] = kAvg ? a / dv : a;
    }
    return;
  }
  for (int64_t pl = b0; pl < b1; ++pl) {
    const float *__restrict x = in + pl * ip;
    float acc[kL];
    for (int j = 0; j < kL; ++j) acc[j] = init;
    int64_t i = 0;
    for (; i + kL <= ip; i += kL)
      for (int j = 0; j < kL; ++j) update<kAvg, false>(acc[j], dummy, x[i + j], 0);
    for (int j = 0; i < ip; ++i, ++j) update<kAvg, false>(acc[j], dummy, x[i], 0);
    for (int w = kL / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) update<kAvg, false>(acc[j], dummy, acc[j + w], 0);
    if constexpr (kAvg) acc[0] /= static_cast<float>(divisor(p, 0, 0, 0));
    out[pl] = acc[0];
  }
}

template <bool kAvg, bool kIdx>
void forward_planar(const PoolPlan &p, const float *in, float *out, int64_t *idx, int64_t b0, int64_t b1) {
  const PoolAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t ip = p.in_plane(), opn = p.out_plane(), Hi = H.in, Wi = W.in, Wo = W.out;
  const float init = kAvg ? 0.0f : -std::numeric_limits<float>::infinity();
  const bool fast = p.w_interior;
  const int64_t i0 = fast ? W.int_lo : Wo, i1 = fast ? W.int_hi : Wo;
  int64_t dummy = 0;
  for (int64_t pl = b0; pl < b1; ++pl) {
    const float *ipl = in + pl * ip;
    for (int64_t od = 0; od < D.out; ++od) {
      for (int64_t oh = 0; oh < H.out; ++oh) {
        float *__restrict orow = out + pl * opn + (od * H.out + oh) * Wo;
        int64_t *__restrict xrow = kIdx ? idx + pl * opn + (od * H.out + oh) * Wo : nullptr;
        if constexpr (!kAvg && !kIdx) {
          if (p.w_gather && D.cnt[od] == 1 && H.cnt[oh] == 1) {  // a one-position window: a plain gather
            const float *__restrict row = ipl + (int64_t{D.lo[od]} * Hi + H.lo[oh]) * Wi;
            const int32_t *__restrict lo = W.lo.data();
            for (int64_t ow = 0; ow < Wo; ++ow) orow[ow] = row[lo[ow]];
            continue;
          }
        }
        for (int64_t ow = 0; ow < Wo; ++ow) orow[ow] = init;
        if constexpr (kIdx) {
          const int64_t first = (int64_t{D.lo[od]} * Hi + H.lo[oh]) * Wi;
          for (int64_t ow = 0; ow < Wo; ++ow) xrow[ow] = first + W.lo[ow];
        }
        for (int64_t kd = 0; kd < D.cnt[od]; ++kd) {
          const int64_t id = D.lo[od] + kd * D.step;
          for (int64_t kh = 0; kh < H.cnt[oh]; ++kh) {
            const int64_t ih = H.lo[oh] + kh * H.step;
            const int64_t base = (id * Hi + ih) * Wi;
            const float *__restrict row = ipl + base;
            // Border outputs (and every output without the fast paths): per-output window tables.
            for (int64_t ow = p.w_gather ? Wo : 0; ow < Wo; ++ow) {
              if (ow == i0) ow = i1;
              if (ow >= Wo) break;
              const int64_t lo = W.lo[ow], n = W.cnt[ow];
              for (int64_t kw = 0; kw < n; ++kw) {
                const int64_t iw = lo + kw * W.step;
                update<kAvg, kIdx>(orow[ow], kIdx ? xrow[ow] : dummy, row[iw], base + iw);
              }
            }
            if (p.w_gather) {  // one position per W window (e.g. adaptive with out a multiple of in): a gather along the row
              const int32_t *__restrict lo = W.lo.data();
              for (int64_t ow = 0; ow < Wo; ++ow) {
                if constexpr (kIdx) update<kAvg, kIdx>(orow[ow], xrow[ow], row[lo[ow]], base + lo[ow]);
                else update<kAvg, kIdx>(orow[ow], dummy, row[lo[ow]], 0);
              }
              continue;
            }
            if (i0 < i1) {  // the interior: whole windows, iw = ow * stride + kw * step - pad
              const int64_t s = W.stride;
              for (int64_t kw = 0; kw < W.kernel; ++kw) {
                const int64_t off = kw * W.step - W.pad;
                if (s == 1) {
                  for (int64_t ow = i0; ow < i1; ++ow) {
                    if constexpr (kIdx) update<kAvg, kIdx>(orow[ow], xrow[ow], row[ow + off], base + ow + off);
                    else update<kAvg, kIdx>(orow[ow], dummy, row[ow + off], 0);
                  }
                } else {
                  for (int64_t ow = i0; ow < i1; ++ow) {
                    if constexpr (kIdx)
                      update<kAvg, kIdx>(orow[ow], xrow[ow], row[ow * s + off], base + ow * s + off);
                    else update<kAvg, kIdx>(orow[ow], dummy, row[ow * s + off], 0);
                  }
                }
              }
            }
          }
        }
        if constexpr (kAvg) {  // the divisor: override, or the D x H factor times W's per-output count
          if (p.divisor_override != 0) {
            const float dv = static_cast<float>(p.divisor_override);
            for (int64_t ow = 0; ow < Wo; ++ow) orow[ow] /= dv;
          } else {
            const bool inc = p.count_include_pad;
            const int32_t dh = inc ? D.pcnt[od] * H.pcnt[oh] : D.cnt[od] * H.cnt[oh];
            const int32_t *__restrict wf = inc ? W.pcnt.data() : W.cnt.data();
            for (int64_t ow = 0; ow < Wo; ++ow) orow[ow] /= static_cast<float>(dh * wf[ow]);
          }
        }
      }
    }
  }
}

template <bool kAvg, bool kIdx>
void forward_cl(const PoolPlan &p, const float *in, float *out, int64_t *idx, int64_t b0, int64_t b1) {
  const PoolAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t C = p.c, Hi = H.in, Wi = W.in, Di = D.in;
  const float init = kAvg ? 0.0f : -std::numeric_limits<float>::infinity();
  for (int64_t r = b0; r < b1; ++r) {  // r = (n * Do + od) * Ho + oh
    const int64_t oh = r % H.out, od = (r / H.out) % D.out, n = r / (H.out * D.out);
    for (int64_t ow = 0; ow < W.out; ++ow) {
      float *__restrict o = out + (r * W.out + ow) * C;
      int64_t *__restrict x = kIdx ? idx + (r * W.out + ow) * C : nullptr;
      if constexpr (!kAvg && !kIdx) {
        if (D.cnt[od] == 1 && H.cnt[oh] == 1 && W.cnt[ow] == 1) {  // one position: a copy
          const float *__restrict src = in + ((n * Di + D.lo[od]) * Hi * Wi + int64_t{H.lo[oh]} * Wi + W.lo[ow]) * C;
          for (int64_t c = 0; c < C; ++c) o[c] = src[c];
          continue;
        }
      }
      for (int64_t c = 0; c < C; ++c) o[c] = init;
      if constexpr (kIdx) {
        const int64_t first = (int64_t{D.lo[od]} * Hi + H.lo[oh]) * Wi + W.lo[ow];
        for (int64_t c = 0; c < C; ++c) x[c] = first;
      }
      for (int64_t kd = 0; kd < D.cnt[od]; ++kd) {
        const int64_t id = D.lo[od] + kd * D.step;
        for (int64_t kh = 0; kh < H.cnt[oh]; ++kh) {
          const int64_t ih = H.lo[oh] + kh * H.step;
          for (int64_t kw = 0; kw < W.cnt[ow]; ++kw) {
            const int64_t iw = W.lo[ow] + kw * W.step;
            const int64_t pos = (id * Hi + ih) * Wi + iw;
            const float *__restrict src = in + ((n * Di + id) * Hi * Wi + ih * Wi + iw) * C;
            if constexpr (kAvg) {
              for (int64_t c = 0; c < C; ++c) o[c] += src[c];
            } else {
              for (int64_t c = 0; c < C; ++c) {
                const float v = src[c];
                const bool take = v > o[c] || v != v;
                o[c] = take ? v : o[c];
                if constexpr (kIdx) x[c] = take ? pos : x[c];
              }
            }
          }
        }
      }
      if constexpr (kAvg) {
        const float dv = static_cast<float>(divisor(p, od, oh, ow));
        for (int64_t c = 0; c < C; ++c) o[c] /= dv;
      }
    }
  }
}

// 2x2 windows of stride 2 inside the input, W = 2 Wo: the pairs along W of a block of input rows are
// one contiguous run (a vectorised pass over it), then each output row takes the maximum of its two
// rows' pairs. With H = 2 Ho the planes [b0, b1) are one stack of row pairs, walked as one plane.
// Window order (0,0), (0,1) | (1,0), (1,1) then the rows: the same value as the row-major walk,
// NaN included.
void forward_max_2x2(const PoolPlan &p, const float *in, float *out, int64_t b0, int64_t b1) {
  const int64_t Hi = p.ax[1].in, Wi = p.ax[2].in, Ho = p.ax[1].out, Wo = p.ax[2].out;
  float pairs[2048];  // up to 1024 output columns (the path's condition): at least one output row
  const int64_t block = std::max<int64_t>(1, 1024 / Wo);
  const int64_t run = Hi == 2 * Ho ? std::max<int64_t>(1, b1 - b0) : 1;  // planes walked as one
  for (int64_t pl = b0; pl < b1; pl += run) {
    const int64_t R = std::min(run, b1 - pl) * Ho;  // output rows of this run
    for (int64_t r0 = 0; r0 < R; r0 += block) {
      const int64_t rows = std::min(block, R - r0), n = 2 * rows * Wo;
      const float *__restrict x = in + pl * Hi * Wi + 2 * r0 * Wi;
      float *__restrict h = pairs;
      for (int64_t i = 0; i < n; ++i) {
        const float a = x[2 * i], b = x[2 * i + 1];
        h[i] = b > a || b != b ? b : a;
      }
      float *__restrict o = out + pl * Ho * Wo + r0 * Wo;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const float a = h[2 * r * Wo + ow], b = h[(2 * r + 1) * Wo + ow];
          o[r * Wo + ow] = b > a || b != b ? b : a;
        }
    }
  }
}

void forward(const PoolPlan &p, const float *in, float *out, int64_t *idx, int64_t b0, int64_t b1) {
  const bool avg = p.reduce == PoolReduce::kAvg;
  if (p.k2s2) {
    forward_max_2x2(p, in, out, b0, b1);
    return;
  }
  if (p.cl) {
    if (avg) forward_cl<true, false>(p, in, out, idx, b0, b1);
    else if (p.with_index) forward_cl<false, true>(p, in, out, idx, b0, b1);
    else forward_cl<false, false>(p, in, out, idx, b0, b1);
  } else if (p.global) {
    if (avg) forward_global<true>(p, in, out, b0, b1);
    else forward_global<false>(p, in, out, b0, b1);
  } else {
    if (avg) forward_planar<true, false>(p, in, out, idx, b0, b1);
    else if (p.with_index) forward_planar<false, true>(p, in, out, idx, b0, b1);
    else forward_planar<false, false>(p, in, out, idx, b0, b1);
  }
}

// Planar: planes [b0, b1); channels-last: samples [b0, b1). gin is overwritten.
void avg_backward(const PoolPlan &p, const float *gout, float *gin, int64_t b0, int64_t b1) {
  const PoolAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const int64_t Hi = H.in, Wi = W.in, Wo = W.out;
  if (p.cl) {
    const int64_t C = p.c, per_n_in = p.in_plane() * C, per_n_out = p.out_plane() * C;
    for (int64_t n = b0; n < b1; ++n) {
      float *gi = gin + n * per_n_in;
      std::memset(gi, 0, static_cast<size_t>(per_n_in) * sizeof(float));
      for (int64_t od = 0; od < D.out; ++od)
        for (int64_t oh = 0; oh < H.out; ++oh)
          for (int64_t ow = 0; ow < Wo; ++ow) {
            const float *__restrict g = gout + n * per_n_out + ((od * H.out + oh) * Wo + ow) * C;
            const float dv = static_cast<float>(divisor(p, od, oh, ow));
            for (int64_t kd = 0; kd < D.cnt[od]; ++kd)
              for (int64_t kh = 0; kh < H.cnt[oh]; ++kh)
                for (int64_t kw = 0; kw < W.cnt[ow]; ++kw) {
                  const int64_t id = D.lo[od] + kd * D.step, ih = H.lo[oh] + kh * H.step, iw = W.lo[ow] + kw * W.step;
                  float *__restrict dst = gi + ((id * Hi + ih) * Wi + iw) * C;
                  for (int64_t c = 0; c < C; ++c) dst[c] += g[c] / dv;
                }
          }
    }
    return;
  }
  const int64_t ip = p.in_plane(), opn = p.out_plane();
  const bool fast = p.w_interior;
  const int64_t i0 = fast ? W.int_lo : Wo, i1 = fast ? W.int_hi : Wo;
  for (int64_t pl = b0; pl < b1; ++pl) {
    float *gi = gin + pl * ip;
    std::memset(gi, 0, static_cast<size_t>(ip) * sizeof(float));
    for (int64_t od = 0; od < D.out; ++od)
      for (int64_t oh = 0; oh < H.out; ++oh) {
        const float *__restrict g = gout + pl * opn + (od * H.out + oh) * Wo;
        for (int64_t kd = 0; kd < D.cnt[od]; ++kd)
          for (int64_t kh = 0; kh < H.cnt[oh]; ++kh) {
            const int64_t id = D.lo[od] + kd * D.step, ih = H.lo[oh] + kh * H.step;
            float *__restrict row = gi + (id * Hi + ih) * Wi;
            for (int64_t ow = 0; ow < Wo; ++ow) {
              if (ow == i0) ow = i1;
              if (ow >= Wo) break;
              const float v = g[ow] / static_cast<float>(divisor(p, od, oh, ow));
              for (int64_t kw = 0; kw < W.cnt[ow]; ++kw) row[W.lo[ow] + kw * W.step] += v;
            }
            if (i0 < i1) {
              const float dv = static_cast<float>(divisor(p, od, oh, i0));  // the same for every interior output
              const int64_t s = W.stride;
              for (int64_t kw = 0; kw < W.kernel; ++kw) {
                const int64_t off = kw * W.step - W.pad;
                if (s == 1) {
                  for (int64_t ow = i0; ow < i1; ++ow) row[ow + off] += g[ow] / dv;
                } else {
                  for (int64_t ow = i0; ow < i1; ++ow) row[ow * s + off] += g[ow] / dv;
                }
              }
            }
          }
      }
  }
}

}  // namespace
}  // namespace opsnn::kernels::pool_impl

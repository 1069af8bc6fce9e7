#include "kernels/pooling/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/thread_pool.h"

namespace opsnn::kernels {
namespace {

// aten's area_pixel_compute_scale (in double; aten uses the op-math type).
double axis_scale(int64_t in, int64_t out, bool align, double scale) {
  if (align) return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return scale > 0 ? 1.0 / scale : static_cast<double>(in) / static_cast<double>(out);
}

// aten's cubic convolution weights (A = -0.75) of the 4 taps around a source at fraction t.
void cubic_weights(double t, double w[4]) {
  const double A = -0.75;
  auto near = [&](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };          // |x| <= 1
  auto far = [&](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };     // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

// One pass along an axis: `outer` blocks of [n_in x inner] -> [n_out x inner].
void gather_pass(const ResizeAxis &a, int64_t outer, int64_t inner, const float *src, float *dst) {
  const int T = a.taps;
  for (int64_t b = 0; b < outer; ++b) {
    const float *s = src + b * a.in * inner;
    float *d = dst + b * a.out * inner;
    if (inner == 1) {  // the W axis: a gather along the row
      for (int64_t o = 0; o < a.out; ++o) {
        float acc = 0.f;
        for (int k = 0; k < T; ++k) acc += a.w[o * T + k] * s[a.idx[o * T + k]];
        d[o] = acc;
      }
      continue;
    }
    for (int64_t o = 0; o < a.out; ++o) {  // D / H: weighted rows, vectorised over the row
      float *dr = d + o * inner;
      const float *r0 = s + a.idx[o * T] * inner;
      const float w0 = a.w[o * T];
      for (int64_t i = 0; i < inner; ++i) dr[i] = w0 * r0[i];
      for (int k = 1; k < T; ++k) {
        const float *r = s + a.idx[o * T + k] * inner;
        const float wk = a.w[o * T + k];
        for (int64_t i = 0; i < inner; ++i) dr[i] += wk * r[i];
      }
    }
  }
}

// The transpose: dst ([n_in x inner] blocks) = 0, then dst[idx] += w * src[o] for o ascending.
void scatter_pass(const ResizeAxis &a, int64_t outer, int64_t inner, const float *src, float *dst) {
  const int T = a.taps;
  std::fill(dst, dst + outer * a.in * inner, 0.f);
  for (int64_t b = 0; b < outer; ++b) {
    const float *s = src + b * a.out * inner;
    float *d = dst + b * a.in * inner;
    for (int64_t o = 0; o < a.out; ++o) {
      const float *sr = s + o * inner;
      for (int k = 0; k < T; ++k) {
        float *dr = d + a.idx[o * T + k] * inner;
        const float wk = a.w[o * T + k];
        for (int64_t i = 0; i < inner; ++i) dr[i] += wk * sr[i];
      }
    }
  }
}

// Grain: about 32K output elements per task.
int64_t grain(const ResizePlan &p) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, p.out_plane())); }

}  // namespace

bool ResizeAxis::identity() const {
  if (in != out || taps != 1) return false;
  for (int64_t o = 0; o < out; ++o)
    if (idx[static_cast<size_t>(o)] != o || w[static_cast<size_t>(o)] != 1.f) return false;
  return true;
}

ResizeAxis resize_axis(ResizeMode m, int64_t in, int64_t out, bool align, double scale) {
  ResizeAxis a;
  a.in = in;
  a.out = out;
  a.taps = m == ResizeMode::kCubic ? 4 : m == ResizeMode::kLinear ? 2 : 1;
  a.idx.resize(static_cast<size_t>(out * a.taps));
  a.w.resize(static_cast<size_t>(out * a.taps));
  auto set = [&](int64_t o, int k, int64_t i, double w) {
    a.idx[static_cast<size_t>(o * a.taps + k)] = static_cast<int32_t>(std::min(std::max<int64_t>(i, 0), in - 1));
    a.w[static_cast<size_t>(o * a.taps + k)] = static_cast<float>(w);
  };
  if (m == ResizeMode::kNearest || m == ResizeMode::kNearestExact) {
    // aten computes the nearest scale and source in float.
    const float s = scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
    for (int64_t o = 0; o < out; ++o) {
      int64_t src;
      if (m == ResizeMode::kNearestExact) src = static_cast<int64_t>(std::floor((static_cast<float>(o) + 0.5f) * s));
      else src = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
      set(o, 0, std::min(src, in - 1), 1.0);
    }
    return a;
  }
  if (m == ResizeMode::kLinear && in == out) {  // aten copies such an axis whatever the scales
    for (int64_t o = 0; o < out; ++o) {
      set(o, 0, o, 1.0);
      set(o, 1, o, 0.0);
    }
    return a;
  }
  const double s = axis_scale(in, out, align, scale);
  for (int64_t o = 0; o < out; ++o) {
    const double od = static_cast<double>(o);
    if (m == ResizeMode::kLinear) {
      const double real = align ? s * od : std::max(s * (od + 0.5) - 0.5, 0.0);
      // aten's guard_index_and_lambda: a source past the end (scales < out / in) reads the last.
      const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
      const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
      const double l1 = std::min(std::max(real - static_cast<double>(i0), 0.0), 1.0);
      set(o, 0, i0, 1.0 - l1);
      set(o, 1, i1, l1);
    } else {
      const double real = align ? s * od : s * (od + 0.5) - 0.5;
      const double f = std::floor(real);
      double w[4];
      cubic_weights(real - f, w);
      for (int k = 0; k < 4; ++k) set(o, k, static_cast<int64_t>(f) - 1 + k, w[k]);
    }
  }
  return a;
}

void resize_forward(const ResizePlan &p, const float *in, float *out) {
  const ResizeAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const bool dw = !W.identity(), dh = !H.identity(), dd = !D.identity();
  core::parallel_for(p.planes, grain(p), [&](int64_t b0, int64_t b1) {
    std::vector<float> t1(static_cast<size_t>(dw ? D.in * H.in * W.out : 0)),
        t2(static_cast<size_t>(dh ? D.in * H.out * W.out : 0));
    for (int64_t pl = b0; pl < b1; ++pl) {
      const float *src = in + pl * p.in_plane();
      float *dst = out + pl * p.out_plane();
      if (!dw && !dh && !dd) {
        std::memcpy(dst, src, static_cast<size_t>(p.out_plane()) * sizeof(float));
        continue;
      }
      // Each pass writes the final buffer when it is the last one.
      const float *cur = src;
      if (dw) {
        float *t = (!dh && !dd) ? dst : t1.data();
        gather_pass(W, D.in * H.in, 1, cur, t);
        cur = t;
      }
      if (dh) {
        float *t = !dd ? dst : t2.data();
        gather_pass(H, D.in, W.out, cur, t);
        cur = t;
      }
      if (dd) gather_pass(D, 1, H.out * W.out, cur, dst);
    }
  });
}

void resize_backward(const ResizePlan &p, const float *gout, float *gin) {
  const ResizeAxis &D = p.ax[0], &H = p.ax[1], &W = p.ax[2];
  const bool dw = !W.identity(), dh = !H.identity(), dd = !D.identity();
  core::parallel_for(p.planes, grain(p), [&](int64_t b0, int64_t b1) {
    std::vector<float> t2(static_cast<size_t>(dd ? D.in * H.out * W.out : 0)),
        t1(static_cast<size_t>(dh ? D.in * H.in * W.out : 0));
    for (int64_t pl = b0; pl < b1; ++pl) {
      const float *src = gout + pl * p.out_plane();
      float *dst = gin + pl * p.in_plane();
      if (!dw && !dh && !dd) {
        std::memcpy(dst, src, static_cast<size_t>(p.in_plane()) * sizeof(float));
        continue;
      }
      const float *cur = src;
      if (dd) {
        float *t = (!dh && !dw) ? dst : t2.data();
        scatter_pass(D, 1, H.out * W.out, cur, t);
        cur = t;
      }
      if (dh) {
        float *t = !dw ? dst : t1.data();
        scatter_pass(H, D.in, W.out, cur, t);
        cur = t;
      }
      if (dw) scatter_pass(W, D.in * H.in, 1, cur, dst);
    }
  });
}

}  // namespace opsnn::kernels

#include "kernels/conv/deform.h"

#include <cmath>
#include <cstddef>

#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/conv/conv.h"

namespace opsnn::kernels {
namespace {

int64_t esz(aclDataType dt) { return static_cast<int64_t>(core::dtype_size(dt)); }

double load(const DeformPlanes &p, int64_t c, int64_t h, int64_t w) {
  return conv_load(p.dt, p.base + esz(p.dt) * (c * p.sc + h * p.sh + w * p.sw));
}

// One sampling position: the four corners' weights (0 for a corner outside the image) and indices.
struct Sample {
  bool inside = false;  // within (-1, H) x (-1, W): anything to read at all
  int64_t h0 = 0, w0 = 0;
  double lh = 0, lw = 0;
  bool v00 = false, v01 = false, v10 = false, v11 = false;  // corner (h0 + a, w0 + b) in the image
};

Sample sample_at(const DeformGeom &g, double h, double w) {
  Sample s;
  if (!(h > -1.0 && h < static_cast<double>(g.H) && w > -1.0 && w < static_cast<double>(g.W))) return s;
  s.inside = true;
  const double fh = std::floor(h), fw = std::floor(w);
  s.h0 = static_cast<int64_t>(fh);
  s.w0 = static_cast<int64_t>(fw);
  s.lh = h - fh;
  s.lw = w - fw;
  const bool h0in = s.h0 >= 0, h1in = s.h0 + 1 <= g.H - 1, w0in = s.w0 >= 0, w1in = s.w0 + 1 <= g.W - 1;
  s.v00 = h0in && w0in;
  s.v01 = h0in && w1in;
  s.v10 = h1in && w0in;
  s.v11 = h1in && w1in;
  return s;
}

// The position of tap k at output l under deformable group gi, and the mask.
struct Pos {
  double h, w, m;
};
Pos position(const DeformGeom &g, const DeformPlanes &off, bool modulated, int64_t gi, int64_t k, int64_t l) {
  const int64_t K = g.taps(), oh = l / g.ow, ow = l % g.ow, i = k / g.kw, j = k % g.kw;
  const int64_t base = gi * K + k, blk = g.dg * K;
  const double dx = load(off, base, oh, ow), dy = load(off, blk + base, oh, ow);
  Pos p;
  p.h = static_cast<double>(oh * g.sh - g.ph + i * g.dh) + dy;
  p.w = static_cast<double>(ow * g.sw - g.pw + j * g.dw) + dx;
  p.m = modulated ? load(off, 2 * blk + base, oh, ow) : 1.0;
  return p;
}

double bilinear(const DeformGeom &g, const DeformPlanes &x, int64_t c, const Sample &s) {
  if (!s.inside) return 0.0;
  const double hh = 1 - s.lh, hw = 1 - s.lw;
  double v = 0;
  if (s.v00) v += hh * hw * load(x, c, s.h0, s.w0);
  if (s.v01) v += hh * s.lw * load(x, c, s.h0, s.w0 + 1);
  if (s.v10) v += s.lh * hw * load(x, c, s.h0 + 1, s.w0);
  if (s.v11) v += s.lh * s.lw * load(x, c, s.h0 + 1, s.w0 + 1);
  return v;
}

}  // namespace

void deform_im2col(const DeformGeom &g, const DeformPlanes &x, const DeformPlanes &off, bool modulated, int64_t l0,
                   int64_t len, float *col, int64_t ld) {
  const int64_t K = g.taps(), cpg = g.C / g.dg;
  core::parallel_for(g.dg * K, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t gi = r / K, k = r % K;
      for (int64_t t = 0; t < len; ++t) {
        const Pos p = position(g, off, modulated, gi, k, l0 + t);
        const Sample s = sample_at(g, p.h, p.w);
        for (int64_t c = gi * cpg; c < (gi + 1) * cpg; ++c)
          col[(c * K + k) * ld + t] = static_cast<float>(p.m * bilinear(g, x, c, s));
      }
    }
  });
}

void deform_store_columns(const DeformGeom &g, const float *col, int64_t ld, int64_t l0, int64_t len,
                          const DeformPlanes &out) {
  const int64_t K = g.taps(), es = esz(out.dt);
  core::parallel_for(g.C * K, 4, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / K, k = r % K, i = k / g.kw, j = k % g.kw;
      for (int64_t t = 0; t < len; ++t) {
        const int64_t l = l0 + t, oh = l / g.ow, ow = l % g.ow;
        conv_put(out.dt, const_cast<char *>(out.base) + es * (c * out.sc + (oh * g.kh + i) * out.sh + (ow * g.kw + j) * out.sw),
                 col[r * ld + t]);
      }
    }
  });
}

void deform_load_columns(const DeformGeom &g, const DeformPlanes &in, int64_t l0, int64_t len, float *col,
                         int64_t ld) {
  const int64_t K = g.taps();
  core::parallel_for(g.C * K, 4, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / K, k = r % K, i = k / g.kw, j = k % g.kw;
      for (int64_t t = 0; t < len; ++t) {
        const int64_t l = l0 + t, oh = l / g.ow, ow = l % g.ow;
        col[r * ld + t] = static_cast<float>(load(in, c, oh * g.kh + i, ow * g.kw + j));
      }
    }
  });
}

void deform_col2im(const DeformGeom &g, const DeformPlanes &x, const DeformPlanes &off, bool modulated,
                   const float *gcol, int64_t ld, int64_t l0, int64_t len, float *gx, const DeformPlanes &goff) {
  const int64_t K = g.taps(), cpg = g.C / g.dg, HW = g.H * g.W;
  // Input gradient: each channel scatters into its own plane (no two tasks share a plane).
  core::parallel_for(g.C, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t gi = c / cpg;
      float *plane = gx + c * HW;
      for (int64_t k = 0; k < K; ++k) {
        for (int64_t t = 0; t < len; ++t) {
          const float v = gcol[(c * K + k) * ld + t];
          if (v == 0.0f) continue;
          const Pos p = position(g, off, modulated, gi, k, l0 + t);
          const Sample s = sample_at(g, p.h, p.w);
          if (!s.inside) continue;
          const double gv = static_cast<double>(v) * p.m, hh = 1 - s.lh, hw = 1 - s.lw;
          if (s.v00) plane[s.h0 * g.W + s.w0] += static_cast<float>(gv * hh * hw);
          if (s.v01) plane[s.h0 * g.W + s.w0 + 1] += static_cast<float>(gv * hh * s.lw);
          if (s.v10) plane[(s.h0 + 1) * g.W + s.w0] += static_cast<float>(gv * s.lh * hw);
          if (s.v11) plane[(s.h0 + 1) * g.W + s.w0 + 1] += static_cast<float>(gv * s.lh * s.lw);
        }
      }
    }
  });
  // Offset and mask gradients: one (group, tap) row per task, the group's channels summed in order.
  const int64_t es = esz(goff.dt), blk = g.dg * K;
  char *gbase = const_cast<char *>(goff.base);
  core::parallel_for(g.dg * K, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t gi = r / K, k = r % K;
      for (int64_t t = 0; t < len; ++t) {
        const int64_t l = l0 + t, oh = l / g.ow, ow = l % g.ow;
        const Pos p = position(g, off, modulated, gi, k, l);
        const Sample s = sample_at(g, p.h, p.w);
        double gdx = 0, gdy = 0, gm = 0;
        if (s.inside) {
          const double hh = 1 - s.lh, hw = 1 - s.lw;
          for (int64_t c = gi * cpg; c < (gi + 1) * cpg; ++c) {
            const double v = gcol[(c * K + k) * ld + t];
            if (v == 0.0) continue;
            const double x00 = s.v00 ? load(x, c, s.h0, s.w0) : 0.0, x01 = s.v01 ? load(x, c, s.h0, s.w0 + 1) : 0.0;
            const double x10 = s.v10 ? load(x, c, s.h0 + 1, s.w0) : 0.0;
            const double x11 = s.v11 ? load(x, c, s.h0 + 1, s.w0 + 1) : 0.0;
            const double val = hh * hw * x00 + hh * s.lw * x01 + s.lh * hw * x10 + s.lh * s.lw * x11;
            const double dh = -hw * x00 - s.lw * x01 + hw * x10 + s.lw * x11;
            const double dw = -hh * x00 + hh * x01 - s.lh * x10 + s.lh * x11;
            gdy += v * p.m * dh;
            gdx += v * p.m * dw;
            gm += v * val;
          }
        }
        const int64_t at = oh * goff.sh + ow * goff.sw, ch = gi * K + k;
        conv_put(goff.dt, gbase + es * (ch * goff.sc + at), static_cast<float>(gdx));
        conv_put(goff.dt, gbase + es * ((blk + ch) * goff.sc + at), static_cast<float>(gdy));
        conv_put(goff.dt, gbase + es * ((2 * blk + ch) * goff.sc + at), static_cast<float>(modulated ? gm : 0.0));
      }
    }
  });
}

}  // namespace opsnn::kernels

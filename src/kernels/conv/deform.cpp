#include "kernels/conv/deform.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "common/half.h"
#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/conv/conv.h"

namespace opsnn::kernels {
namespace {

int64_t esz(aclDataType dt) { return static_cast<int64_t>(core::dtype_size(dt)); }

// One element of a float dtype, inline (the sampling loops read four per sample).
inline float load_elem(aclDataType dt, const char *base, int64_t i) {
  switch (dt) {
    case ACL_FLOAT: return reinterpret_cast<const float *>(base)[i];
    case ACL_FLOAT16: return half_to_float(reinterpret_cast<const uint16_t *>(base)[i]);
    case ACL_BF16: return bf16_to_float(reinterpret_cast<const uint16_t *>(base)[i]);
    default: return conv_load(dt, base + esz(dt) * i);
  }
}

double load(const DeformPlanes &p, int64_t c, int64_t h, int64_t w) {
  return load_elem(p.dt, p.base, c * p.sc + h * p.sh + w * p.sw);
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

}  // namespace

void deform_im2col(const DeformGeom &g, const DeformPlanes &x, const DeformPlanes &off, bool modulated, int64_t l0,
                   int64_t len, float *col, int64_t ld) {
  const int64_t K = g.taps(), cpg = g.C / g.dg;
  constexpr int64_t kChunk = 64;  // positions sampled at once: their corners and weights stay on the stack
  core::parallel_for(g.dg * K, 1, [&](int64_t r0, int64_t r1) {
    int64_t at[kChunk][4];
    bool ok[kChunk][4];
    double wt[kChunk][4], mask[kChunk];
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t gi = r / K, k = r % K;
      for (int64_t t0 = 0; t0 < len; t0 += kChunk) {
        const int64_t n = std::min(kChunk, len - t0);
        for (int64_t t = 0; t < n; ++t) {  // corner offsets (element units), weights, mask
          const Pos p = position(g, off, modulated, gi, k, l0 + t0 + t);
          const Sample sm = sample_at(g, p.h, p.w);
          const double hh = 1 - sm.lh, hw = 1 - sm.lw;
          const bool v[4] = {sm.inside && sm.v00, sm.inside && sm.v01, sm.inside && sm.v10, sm.inside && sm.v11};
          const double w4[4] = {hh * hw, hh * sm.lw, sm.lh * hw, sm.lh * sm.lw};
          const int64_t a4[4] = {sm.h0 * x.sh + sm.w0 * x.sw, sm.h0 * x.sh + (sm.w0 + 1) * x.sw,
                                 (sm.h0 + 1) * x.sh + sm.w0 * x.sw, (sm.h0 + 1) * x.sh + (sm.w0 + 1) * x.sw};
          for (int q = 0; q < 4; ++q) {
            ok[t][q] = v[q];
            at[t][q] = v[q] ? a4[q] : 0;
            wt[t][q] = v[q] ? w4[q] : 0.0;
          }
          mask[t] = p.m;
        }
        // The channels of the group, with the dtype switch hoisted out of the sample loop.
        auto channels = [&](auto cvt, const auto *xb) {
          for (int64_t c = gi * cpg; c < (gi + 1) * cpg; ++c) {
            const auto *plane = xb + c * x.sc;
            float *row = col + (c * K + k) * ld + t0;
            for (int64_t t = 0; t < n; ++t) {
              double v = 0;
              for (int q = 0; q < 4; ++q)
                if (ok[t][q]) v += wt[t][q] * static_cast<double>(cvt(plane[at[t][q]]));
              row[t] = static_cast<float>(mask[t] * v);
            }
          }
        };
        switch (x.dt) {
          case ACL_FLOAT16:
            channels([](uint16_t h) { return half_to_float(h); }, reinterpret_cast<const uint16_t *>(x.base));
            break;
          case ACL_BF16:
            channels([](uint16_t h) { return bf16_to_float(h); }, reinterpret_cast<const uint16_t *>(x.base));
            break;
          default:
            channels([](float f) { return f; }, reinterpret_cast<const float *>(x.base));
            break;
        }
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
  // Input gradient: tasks of up to 16 channels of one deformable group, each scattering into its own
  // planes (no two tasks share one); the samples of 64 positions are computed once per task and tap.
  constexpr int64_t kChunk = 64, kBlock = 16;
  const int64_t blk_c = std::min(cpg, kBlock), nblk = (cpg + blk_c - 1) / blk_c;
  core::parallel_for(g.dg * nblk, 1, [&](int64_t b0, int64_t b1) {
    int64_t at[kChunk][4];
    bool ok[kChunk][4];
    double wt[kChunk][4], mask[kChunk];
    for (int64_t bi = b0; bi < b1; ++bi) {
      const int64_t gi = bi / nblk, c_lo = gi * cpg + (bi % nblk) * blk_c, c_hi = std::min(c_lo + blk_c, (gi + 1) * cpg);
      for (int64_t k = 0; k < K; ++k) {
        for (int64_t t0 = 0; t0 < len; t0 += kChunk) {
          const int64_t n = std::min(kChunk, len - t0);
          for (int64_t t = 0; t < n; ++t) {
            const Pos p = position(g, off, modulated, gi, k, l0 + t0 + t);
            const Sample sm = sample_at(g, p.h, p.w);
            const double hh = 1 - sm.lh, hw = 1 - sm.lw;
            const bool v[4] = {sm.inside && sm.v00, sm.inside && sm.v01, sm.inside && sm.v10, sm.inside && sm.v11};
            const double w4[4] = {hh * hw, hh * sm.lw, sm.lh * hw, sm.lh * sm.lw};
            const int64_t a4[4] = {sm.h0 * g.W + sm.w0, sm.h0 * g.W + sm.w0 + 1, (sm.h0 + 1) * g.W + sm.w0,
                                   (sm.h0 + 1) * g.W + sm.w0 + 1};
            for (int q = 0; q < 4; ++q) {
              ok[t][q] = v[q];
              at[t][q] = v[q] ? a4[q] : 0;
              wt[t][q] = v[q] ? w4[q] : 0.0;
            }
            mask[t] = p.m;
          }
          for (int64_t c = c_lo; c < c_hi; ++c) {
            float *plane = gx + c * HW;
            const float *grow = gcol + (c * K + k) * ld + t0;
            for (int64_t t = 0; t < n; ++t) {
              const float v = grow[t];
              if (v == 0.0f) continue;
              const double gv = static_cast<double>(v) * mask[t];
              for (int q = 0; q < 4; ++q)
                if (ok[t][q]) plane[at[t][q]] += static_cast<float>(gv * wt[t][q]);
            }
          }
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

#include "kernels/norm/channel_norm.h"

#include <cmath>

#include "core/dtype.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "kernels/norm/channel_affine.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

int64_t esize(aclDataType dt) { return static_cast<int64_t>(core::dtype_size(dt)); }

const core::Impl<ChanNormPlan> kChanTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
ChanAffineFn affine_fn(int tier) {
#if defined(__x86_64__)
  static const ChanAffineFn fns[] = {chan_affine_avx512, chan_affine_avx2, chan_affine_portable};
#else
  static const ChanAffineFn fns[] = {chan_affine_portable};
#endif
  return fns[tier];
}

double vload(const ChanNormPlan &P, const ChanNormArgs &a, int k, int64_t c, int64_t g = 0) {
  const ChanVector &d = P.vec[k];
  return load_one(d.dtype, a.vec[k], c * d.stride + g * d.row);
}

void vstore(const ChanNormPlan &P, const ChanNormArgs &a, int k, int64_t c, double v) {
  if (!P.has[k]) return;
  store_one(v, P.vec[k].dtype, a.vec[k], c * P.vec[k].stride);
}

// The running statistics' momentum update, with the unbiased variance over n elements.
void update_running(const ChanNormPlan &P, const ChanNormArgs &a, int64_t c, double mean, double var, double n) {
  if (!P.update_running) return;
  vstore(P, a, kRunMean, c, (1 - P.momentum) * vload(P, a, kRunMean, c) + P.momentum * mean);
  vstore(P, a, kRunVar, c, (1 - P.momentum) * vload(P, a, kRunVar, c) + P.momentum * var * n / (n - 1));
}

// A gather's results: the merged mean and invstd, and the running update over n elements.
void store_gathered(const ChanNormPlan &P, const ChanNormArgs &a, int64_t c, double mean, double var, double n) {
  vstore(P, a, kMeanOut, c, mean);
  vstore(P, a, kInvstdOut, c, 1 / std::sqrt(var + P.eps));
  update_running(P, a, c, mean, var, n);
}

// Calls fn(xoff, dyoff, yoff, n) for each line (the innermost position dim) of channel c, with the
// element offsets of the line's first element in x, dy and y.
template <class Fn>
void for_lines(const ChanNormPlan &P, int64_t c, Fn &&fn) {
  if (P.m == 0) return;
  const int last = P.npos - 1;
  int64_t idx[kMaxLoopDims] = {};
  int64_t xo = c * P.x.chan, go = c * P.dy.chan, yo = c * P.y.chan;
  const int64_t lines = P.m / P.line;
  for (int64_t l = 0; l < lines; ++l) {
    fn(xo, go, yo);
    for (int d = last - 1; d >= 0; --d) {
      xo += P.x.pos[d];
      go += P.dy.pos[d];
      yo += P.y.pos[d];
      if (++idx[d] < P.pos_shape[d]) break;
      xo -= P.x.pos[d] * P.pos_shape[d];
      go -= P.dy.pos[d] * P.pos_shape[d];
      yo -= P.y.pos[d] * P.pos_shape[d];
      idx[d] = 0;
    }
  }
}

void load_line(const ChanTensor &t, const char *base, int64_t off, int64_t stride, double *buf, int64_t n) {
  const int64_t es = esize(t.dtype);
  load_as<double>(t.dtype, base + off * es, stride * es, buf, n);
}

void channel(const ChanNormPlan &P, const ChanNormArgs &a, int64_t c, double *buf) {
  const int64_t L = P.line, M = P.m;
  const int last = P.npos - 1;
  double *xb = buf, *gb = buf + L, *yb = buf + 2 * L;
  const int64_t xs = last >= 0 ? P.x.pos[last] : 0, gs = last >= 0 ? P.dy.pos[last] : 0,
                ys = last >= 0 ? P.y.pos[last] : 0;
  const double md = static_cast<double>(M);

  if (P.mode == ChanNormMode::kGather) {
    long double n = 0, s = 0;
    for (int64_t g = 0; g < P.groups; ++g) {
      const double cnt = vload(P, a, kCounts, 0, g);
      n += cnt;
      s += static_cast<long double>(cnt) * vload(P, a, kMeanIn, c, g);
    }
    const long double mean = s / n;
    long double q = 0;
    for (int64_t g = 0; g < P.groups; ++g) {
      const long double cnt = vload(P, a, kCounts, 0, g), mg = vload(P, a, kMeanIn, c, g),
                        ig = vload(P, a, kInvstdIn, c, g);
      q += cnt * (1 / (ig * ig) - P.eps + (mg - mean) * (mg - mean));
    }
    store_gathered(P, a, c, static_cast<double>(mean), static_cast<double>(q / n), static_cast<double>(n));
    return;
  }
  if (P.mode == ChanNormMode::kSyncGather) {
    long double n = 0, s = 0, q = 0;
    for (int64_t g = 0; g < P.groups; ++g) {
      n += vload(P, a, kCounts, 0, g);
      s += vload(P, a, kSumIn, c, g);
      q += vload(P, a, kSqSumIn, c, g);
    }
    const long double mean = s / n;
    store_gathered(P, a, c, static_cast<double>(mean), static_cast<double>(q / n - mean * mean),
                   static_cast<double>(n));
    return;
  }
  if (P.mode == ChanNormMode::kSums) {
    double s = 0, q = 0;
    for_lines(P, c, [&](int64_t xo, int64_t, int64_t) {
      load_line(P.x, a.x, xo, xs, xb, L);
      for (int64_t i = 0; i < L; ++i) {
        s += xb[i];
        q += xb[i] * xb[i];
      }
    });
    vstore(P, a, kSumOut, c, s);
    vstore(P, a, kSqSumOut, c, q);
    return;
  }

  // Statistics.
  double mean = 0, invstd = 0, var = 0;
  if (P.stats == ChanNormPlan::Stats::kFromData) {
    double s = 0;
    for_lines(P, c, [&](int64_t xo, int64_t, int64_t) {
      load_line(P.x, a.x, xo, xs, xb, L);
      for (int64_t i = 0; i < L; ++i) s += xb[i];
    });
    mean = s / md;
    double q = 0;
    for_lines(P, c, [&](int64_t xo, int64_t, int64_t) {
      load_line(P.x, a.x, xo, xs, xb, L);
      for (int64_t i = 0; i < L; ++i) q += (xb[i] - mean) * (xb[i] - mean);
    });
    var = q / md;
    invstd = 1 / std::sqrt(var + P.eps);
  } else if (P.stats == ChanNormPlan::Stats::kGiven) {
    mean = vload(P, a, kMeanIn, c);
    invstd = vload(P, a, kInvstdIn, c);
  } else {
    mean = vload(P, a, kRunMean, c);
    invstd = 1 / std::sqrt(vload(P, a, kRunVar, c) + P.eps);
  }
  const double w = P.has[kWeight] ? vload(P, a, kWeight, c) : 1.0;

  if (P.mode == ChanNormMode::kQuantForward) {
    // The documented order: dequantise, normalise, requantise (nearbyint: half to even; saturate).
    const double b = P.has[kBias] ? vload(P, a, kBias, c) : 0.0, sd = std::sqrt(vload(P, a, kRunVar, c) + P.eps);
    const int64_t yes = esize(P.y.dtype);
    for_lines(P, c, [&](int64_t xo, int64_t, int64_t yo) {
      load_line(P.x, a.x, xo, xs, xb, L);
      for (int64_t i = 0; i < L; ++i) {
        const double y = ((xb[i] - P.in_zp) * P.in_scale - mean) / sd * w + b;
        const double q = std::nearbyint(y / P.out_scale + P.out_zp);
        yb[i] = q < P.qmin ? P.qmin : q > P.qmax ? P.qmax : q;  // NaN stays NaN: stored as 0
      }
      store_from<double>(yb, P.y.dtype, a.y + yo * yes, ys * yes, L);
    });
    return;
  }
  if (P.mode == ChanNormMode::kForward) {
    const double b = P.has[kBias] ? vload(P, a, kBias, c) : 0.0, scale = invstd * w, shift = b - mean * scale;
    const int64_t yes = esize(P.y.dtype);
    if (P.x.dtype == ACL_FLOAT && P.y.dtype == ACL_FLOAT && xs == 1 && ys == 1) {
      // Dense float lines (the common NCHW case): the same double arithmetic without the buffers,
      // which the compiler vectorises.
      const ChanAffineFn affine = affine_fn(P.tier);
      for_lines(P, c, [&](int64_t xo, int64_t, int64_t yo) {
        affine(reinterpret_cast<const float *>(a.x) + xo, reinterpret_cast<float *>(a.y) + yo, L, scale, shift);
      });
    } else {
      for_lines(P, c, [&](int64_t xo, int64_t, int64_t yo) {
        load_line(P.x, a.x, xo, xs, xb, L);
        for (int64_t i = 0; i < L; ++i) yb[i] = xb[i] * scale + shift;
        store_from<double>(yb, P.y.dtype, a.y + yo * yes, ys * yes, L);
      });
    }
    vstore(P, a, kMeanOut, c, mean);
    vstore(P, a, kInvstdOut, c, invstd);
    update_running(P, a, c, mean, var, md);
    return;
  }

  // Gradients: the sums over (dy, x), or the given ones.
  double sdy = 0, sdyx = 0, count = md;
  if (P.mode == ChanNormMode::kElemtBackward) {
    sdy = vload(P, a, kSumDyIn, c);
    sdyx = vload(P, a, kSumDyXmuIn, c);
    count = 0;
    for (int64_t g = 0; g < P.groups; ++g) count += vload(P, a, kCounts, 0, g);
  } else {
    for_lines(P, c, [&](int64_t xo, int64_t go, int64_t) {
      load_line(P.x, a.x, xo, xs, xb, L);
      load_line(P.dy, a.dy, go, gs, gb, L);
      for (int64_t i = 0; i < L; ++i) {
        sdy += gb[i];
        sdyx += gb[i] * (xb[i] - mean);
      }
    });
    vstore(P, a, kSumDyOut, c, sdy);
    vstore(P, a, kSumDyXmuOut, c, sdyx);
    vstore(P, a, kGradWeight, c, sdyx * invstd);
    vstore(P, a, kGradBias, c, sdy);
  }
  if (!P.has_y) return;
  const bool train = P.mode == ChanNormMode::kElemtBackward || P.training_grad;
  const double k = invstd * w, mdy = sdy / count, proj = sdyx / count * invstd * invstd;
  const int64_t yes = esize(P.y.dtype);
  for_lines(P, c, [&](int64_t xo, int64_t go, int64_t yo) {
    load_line(P.dy, a.dy, go, gs, gb, L);
    if (train) {
      load_line(P.x, a.x, xo, xs, xb, L);
      for (int64_t i = 0; i < L; ++i) yb[i] = (gb[i] - mdy - (xb[i] - mean) * proj) * k;
    } else {
      for (int64_t i = 0; i < L; ++i) yb[i] = gb[i] * k;
    }
    store_from<double>(yb, P.y.dtype, a.y + yo * yes, ys * yes, L);
  });
}

}  // namespace

const char *choose_chan_norm_tier(ChanNormPlan &plan, core::ImplTrace *trace) {
  plan.tier = core::choose(kChanTiers, plan, trace);
  return kChanTiers[plan.tier].name;
}

void chan_affine_portable(const float *x, float *y, int64_t n, double scale, double shift) {
  chan_affine_body(x, y, n, scale, shift);
}

void chan_norm_run(const ChanNormPlan &P, const ChanNormArgs &a) {
  auto *ws = static_cast<double *>(a.workspace);
  const int64_t C = P.channels;
  core::parallel_tasks(P.tasks, [&](int64_t t) {
    double *buf = ws + t * 3 * P.line;
    for (int64_t c = C * t / P.tasks; c < C * (t + 1) / P.tasks; ++c) channel(P, a, c, buf);
  });
}

}  // namespace opsnn::kernels

#include "kernels/norm/row_norm_grad.h"

#include <cstring>

#include "kernels/elementwise/convert.h"
#include "core/thread_pool.h"

namespace opsnn::kernels {
namespace {

int64_t row_offset(const NormGradRowVector &v, int64_t r) {
  int64_t off = 0;
  for (int d = v.ndim - 1; d >= 0; --d) {
    off += (r % v.shape[d]) * v.strides[d];
    r /= v.shape[d];
  }
  return off;
}

// Element offsets of one operand at row r (outer) or inner element i.
int64_t outer_offset(const NormGradPlan &P, const NormGradOperand &o, int64_t r) {
  int64_t off = 0;
  for (int d = P.nouter - 1; d >= 0; --d) {
    off += (r % P.outer_shape[d]) * o.outer[d];
    r /= P.outer_shape[d];
  }
  return off;
}

// Walks the inner elements of a row in row-major order, keeping each operand's inner offset.
struct InnerWalk {
  const NormGradPlan &P;
  int64_t idx[kMaxLoopDims] = {};
  int64_t x = 0, dy = 0, dx = 0, g = 0, a = 0;
  explicit InnerWalk(const NormGradPlan &plan) : P(plan) {}
  void next() {
    for (int d = P.ninner - 1; d >= 0; --d) {
      x += P.x.inner[d];
      dy += P.dy.inner[d];
      dx += P.dx.inner[d];
      g += P.gamma.inner[d];
      a += P.acc.inner[d];
      if (++idx[d] < P.inner_shape[d]) return;
      x -= P.x.inner[d] * P.inner_shape[d];
      dy -= P.dy.inner[d] * P.inner_shape[d];
      dx -= P.dx.inner[d] * P.inner_shape[d];
      g -= P.gamma.inner[d] * P.inner_shape[d];
      a -= P.acc.inner[d] * P.inner_shape[d];
      idx[d] = 0;
    }
  }
};

}  // namespace

void norm_grad_run(const NormGradPlan &P, const NormGradArgs &a) {
  auto *ws = static_cast<double *>(a.workspace);
  const int64_t L = P.len, A = P.acc_size;
  const bool acc = P.has_dgamma || P.has_dbeta;
  auto task = [&](int64_t t) {
    double *dg = ws + t * (2 * A + 5 * L), *db = dg + A, *xh = db + A, *gg = xh + L, *dyv = gg + L;
    if (acc) std::memset(dg, 0, static_cast<size_t>(2 * A) * sizeof(double));
    for (int64_t r = P.rows * t / P.tasks; r < P.rows * (t + 1) / P.tasks; ++r) {
      const int64_t xo = outer_offset(P, P.x, r), yo = outer_offset(P, P.dy, r), oo = outer_offset(P, P.dx, r),
                    go = outer_offset(P, P.gamma, r), ao = outer_offset(P, P.acc, r);
      const double mean = P.has_mean ? load_one(P.mean.dtype, a.mean, row_offset(P.mean, r)) : 0.0;
      const double rstd = load_one(P.rstd.dtype, a.rstd, row_offset(P.rstd, r));
      double s1 = 0, s2 = 0;
      InnerWalk w(P);
      for (int64_t i = 0; i < L; ++i, w.next()) {
        const double dy = load_one(P.dy.dtype, a.dy, yo + w.dy);
        const double xhat = (load_one(P.x.dtype, a.x, xo + w.x) - mean) * rstd;
        const double g = P.has_gamma ? dy * load_one(P.gamma.dtype, a.gamma, go + w.g) : dy;
        xh[i] = xhat;
        gg[i] = g;
        dyv[i] = dy;
        s1 += g;
        s2 += g * xhat;
        if (acc) {
          dg[ao + w.a] += dy * xhat;
          db[ao + w.a] += dy;
        }
      }
      if (!P.has_dx) continue;
      const double m1 = P.rms ? 0.0 : s1 / static_cast<double>(L), m2 = s2 / static_cast<double>(L);
      InnerWalk o(P);
      for (int64_t i = 0; i < L; ++i, o.next()) store_one(rstd * (gg[i] - m1 - xh[i] * m2), P.dx.dtype, a.dx, oo + o.dx);
    }
  };
  core::parallel_tasks(P.tasks, task);
  if (!acc) return;
  // Partials summed in task order, then stored with the outputs' strides.
  for (int64_t k = 0; k < A; ++k) {
    double g = 0, b = 0;
    for (int t = 0; t < P.tasks; ++t) {
      g += ws[t * (2 * A + 5 * L) + k];
      b += ws[t * (2 * A + 5 * L) + A + k];
    }
    int64_t og = 0, ob = 0, rem = k;
    for (int d = P.ngamma - 1; d >= 0; --d) {
      const int64_t i = rem % P.gshape[d];
      rem /= P.gshape[d];
      og += i * P.dgamma_strides[d];
      ob += i * P.dbeta_strides[d];
    }
    if (P.has_dgamma) store_one(g, P.dgamma_dtype, a.dgamma, og);
    if (P.has_dbeta) store_one(b, P.dbeta_dtype, a.dbeta, ob);
  }
}

}  // namespace opsnn::kernels

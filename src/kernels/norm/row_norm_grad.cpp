#include "kernels/norm/row_norm_grad.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/elementwise/convert.h"
#include "kernels/loop/loop_walk.h"
#include "core/thread_pool.h"

namespace opsnn::kernels {
namespace {

int64_t row_offset(const NormGradRowVector &v, int64_t r) { return unravel_offset(v.ndim, v.shape, v.strides, r); }

// Element offset of one operand at row r over the first `ndims` outer dims.
int64_t outer_offset(const NormGradPlan &P, const NormGradOperand &o, int64_t r, int ndims) {
  int64_t off = 0;
  for (int d = ndims - 1; d >= 0; --d) {
    off += (r % P.outer_shape[d]) * o.outer[d];
    r /= P.outer_shape[d];
  }
  return off;
}

// Walks the inner elements of a row in row-major order, keeping each operand's inner offset.
struct InnerWalk {
  const NormGradPlan &P;
  int64_t idx[kMaxLoopDims] = {};
  int64_t off[kNgCount] = {};
  explicit InnerWalk(const NormGradPlan &plan) : P(plan) {}
  void next() {
    for (int d = P.ninner - 1; d >= 0; --d) {
      for (int k = 0; k < kNgCount; ++k) off[k] += P.io[k].inner[d];
      if (++idx[d] < P.inner_shape[d]) return;
      for (int k = 0; k < kNgCount; ++k) off[k] -= P.io[k].inner[d] * P.inner_shape[d];
      idx[d] = 0;
    }
  }
};

}  // namespace

void norm_grad_run(const NormGradPlan &P, const NormGradArgs &a) {
  auto *ws = static_cast<double *>(a.workspace);
  const int64_t L = P.len, A = P.acc_size, per_task = static_cast<int64_t>(P.task_doubles());
  const bool acc = P.has_dgamma || P.has_dbeta;
  const auto &io = P.io;
  const bool has_x2 = io[kNgX2].present, has_gamma = io[kNgGamma].present, has_beta = io[kNgBeta].present,
             has_scale = io[kNgScale].present, has_dsum = io[kNgDsum].present, want_ds = io[kNgDscale].present,
             want_dsh = io[kNgDshift].present;
  auto load = [&](int k, int64_t off) { return load_one(io[k].dtype, a.in[k], off); };
  const double qs = P.quant ? load_one(P.quant_scale_dtype, a.quant_scale, 0) : 1.0;
  const double qo = P.quant && a.quant_offset != nullptr ? load_one(ACL_INT32, a.quant_offset, 0) : 0.0;
  auto task = [&](int64_t t) {
    double *dg = ws + t * per_task, *db = dg + A, *xh = db + A, *gg = xh + L, *ds = gg + L, *dsh = ds + L;
    if (acc) std::memset(dg, 0, static_cast<size_t>(2 * A) * sizeof(double));
    for (int64_t bt = P.batches * t / P.tasks; bt < P.batches * (t + 1) / P.tasks; ++bt) {
      if (has_scale) {
        std::memset(ds, 0, static_cast<size_t>(L) * sizeof(double));
        std::memset(dsh, 0, static_cast<size_t>(L) * sizeof(double));
      }
      for (int64_t r = bt * P.batch_rows; r < (bt + 1) * P.batch_rows; ++r) {
        int64_t ro[kNgCount];
        for (int k = 0; k < kNgCount; ++k) ro[k] = io[k].present ? outer_offset(P, io[k], r, P.nouter) : 0;
        const double mean = P.has_mean ? load_one(P.mean.dtype, a.mean, row_offset(P.mean, r)) : 0.0;
        const double rstd = load_one(P.rstd.dtype, a.rstd, row_offset(P.rstd, r));
        double s1 = 0, s2 = 0;
        InnerWalk w(P);
        for (int64_t i = 0; i < L; ++i, w.next()) {
          double z = load(kNgX, ro[kNgX] + w.off[kNgX]);
          if (has_x2) z = P.alpha * z + load(kNgX2, ro[kNgX2] + w.off[kNgX2]);
          const double xhat = (z - mean) * rstd;
          const double gamma = has_gamma ? load(kNgGamma, ro[kNgGamma] + w.off[kNgGamma]) : 1.0;
          double e = load(kNgDy, ro[kNgDy] + w.off[kNgDy]), te = e;
          if (P.swish || has_scale) {
            const double n = xhat * gamma + (has_beta ? load(kNgBeta, ro[kNgBeta] + w.off[kNgBeta]) : 0.0);
            if (P.swish) {
              const double m = n, sig = 1 / (1 + std::exp(-P.swish_scale * m));
              e *= sig + P.swish_scale * m * sig * (1 - sig);
              te = e;
            }
            if (has_scale) {
              ds[i] += e * n;
              dsh[i] += e;
              te = e * (1 + load(kNgScale, ro[kNgScale] + w.off[kNgScale]));
            }
          }
          const double g = te * gamma;
          xh[i] = xhat;
          gg[i] = g;
          s1 += g;
          s2 += g * xhat;
          if (acc) {
            dg[w.off[kNgAcc] + ro[kNgAcc]] += te * xhat;
            db[w.off[kNgAcc] + ro[kNgAcc]] += te;
          }
        }
        if (!io[kNgDx].present && !io[kNgDx2].present) continue;
        const double m1 = P.rms ? 0.0 : s1 / static_cast<double>(L), m2 = s2 / static_cast<double>(L);
        InnerWalk o(P);
        for (int64_t i = 0; i < L; ++i, o.next()) {
          const double dz = rstd * (gg[i] - m1 - xh[i] * m2);
          if (io[kNgDx].present) {
            double dx = P.alpha * dz + (has_dsum ? load(kNgDsum, ro[kNgDsum] + o.off[kNgDsum]) : 0.0);
            if (P.quant) {  // NaN gives 0
              const double v = std::nearbyint((P.quant_div ? dx / qs : dx * qs) + qo);
              dx = std::isnan(v) ? 0.0 : std::min(127.0, std::max(-128.0, v));
            }
            store_one(dx, io[kNgDx].dtype, a.out[kNgDx], ro[kNgDx] + o.off[kNgDx]);
          }
          if (io[kNgDx2].present) store_one(dz, io[kNgDx2].dtype, a.out[kNgDx2], ro[kNgDx2] + o.off[kNgDx2]);
        }
      }
      if (!want_ds && !want_dsh) continue;
      // The batch's scale / shift gradients: outer dims but the last (the batch's rows share them).
      const int64_t bs = outer_offset(P, io[kNgDscale], bt, P.nouter - 1),
                    bh = outer_offset(P, io[kNgDshift], bt, P.nouter - 1);
      InnerWalk o(P);
      for (int64_t i = 0; i < L; ++i, o.next()) {
        if (want_ds) store_one(ds[i], io[kNgDscale].dtype, a.out[kNgDscale], bs + o.off[kNgDscale]);
        if (want_dsh) store_one(dsh[i], io[kNgDshift].dtype, a.out[kNgDshift], bh + o.off[kNgDshift]);
      }
    }
  };
  core::parallel_tasks(P.tasks, task);
  if (!acc) return;
  // Partials summed in task order, then stored with the outputs' strides.
  for (int64_t k = 0; k < A; ++k) {
    double g = 0, b = 0;
    for (int t = 0; t < P.tasks; ++t) {
      g += ws[t * per_task + k];
      b += ws[t * per_task + A + k];
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

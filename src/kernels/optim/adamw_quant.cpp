#include "kernels/optim/adamw_quant.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {

int nearest_code(const double *map, double x) {
  const double *hi = std::lower_bound(map, map + 256, x);  // binary search: first value >= x
  if (hi == map) return 0;
  if (hi == map + 256) return 255;
  const double *lo = hi - 1;
  return static_cast<int>((x - *lo <= *hi - x ? lo : hi) - map);
}

int adamw_quant_run(const AdamWQuantPlan &P, const AdamWQuantArgs &a) {
  const double t = load_one(ACL_INT64, a.step, 0);
  if (!(t > 0)) return fail(ACLNN_ERR_PARAM_INVALID, "step must be > 0, got %g", t);
  double qm[256], qv[256];
  for (int k = 0; k < 256; ++k) {
    qm[k] = load_one(ACL_FLOAT, a.qmap_m, k * P.qmap_stride[0]);
    qv[k] = load_one(ACL_FLOAT, a.qmap_v, k * P.qmap_stride[1]);
  }
  const double bc1 = 1.0 - std::pow(P.b1, t), bc2 = 1.0 - std::pow(P.b2, t);
  const int64_t nblocks = (P.numel + P.block - 1) / P.block;
  core::parallel_for(nblocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<double> m(static_cast<size_t>(P.block)), v(static_cast<size_t>(P.block));
    std::vector<int64_t> off(static_cast<size_t>(P.block) * 4);
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t i0 = blk * P.block, n = std::min(P.block, P.numel - i0);
      const double am = load_one(ACL_FLOAT, a.absmax_m, blk * P.absmax_stride[0]);
      const double av = load_one(ACL_FLOAT, a.absmax_v, blk * P.absmax_stride[1]);
      double new_am = 0, new_av = 0;
      for (int64_t e = 0; e < n; ++e) {
        int64_t rem = i0 + e, *o = &off[static_cast<size_t>(e) * 4];
        o[0] = o[1] = o[2] = o[3] = 0;
        for (int d = P.ndim - 1; d >= 0; --d) {
          const int64_t idx = rem % P.dims[d];
          rem /= P.dims[d];
          for (int k = 0; k < 4; ++k) o[k] += idx * P.strides[k][d];
        }
        const double g = load_one(P.dtype, a.grad, o[1]) * P.gnorm_scale;
        const auto cm = reinterpret_cast<const uint8_t *>(a.m)[o[2]], cv = reinterpret_cast<const uint8_t *>(a.v)[o[3]];
        m[e] = P.b1 * qm[cm] * am + (1.0 - P.b1) * g;
        v[e] = P.b2 * qv[cv] * av + (1.0 - P.b2) * g * g;
        double var = load_one(P.dtype, a.var, o[0]);
        var = var - P.lr * P.wd * var - P.lr * (m[e] / bc1) / (std::sqrt(v[e] / bc2) + P.eps);
        store_one(var, P.dtype, a.var, o[0]);
        new_am = std::max(new_am, std::fabs(m[e]));
        new_av = std::max(new_av, std::fabs(v[e]));
      }
      for (int64_t e = 0; e < n; ++e) {
        const int64_t *o = &off[static_cast<size_t>(e) * 4];
        reinterpret_cast<uint8_t *>(a.m)[o[2]] = static_cast<uint8_t>(nearest_code(qm, new_am > 0 ? m[e] / new_am : 0.0));
        reinterpret_cast<uint8_t *>(a.v)[o[3]] = static_cast<uint8_t>(nearest_code(qv, new_av > 0 ? v[e] / new_av : 0.0));
      }
      store_one(new_am, ACL_FLOAT, a.absmax_m, blk * P.absmax_stride[0]);
      store_one(new_av, ACL_FLOAT, a.absmax_v, blk * P.absmax_stride[1]);
    }
  });
  return 0;
}

}  // namespace opsnn::kernels

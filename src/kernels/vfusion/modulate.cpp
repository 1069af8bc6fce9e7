#include "kernels/vfusion/modulate.h"

#include <algorithm>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

// out[b, l, :] = x * (1 + scale[b]) + shift[b], or grad_input[b, l, :] = dy * (1 + scale[b]).
void rows(const ModulatePlan &P, const ModulateArgs &a) {
  const aclDataType dt = P.dtype;
  core::parallel_for(P.B * P.L, 8, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / P.L, l = r % P.L;
      for (int64_t d = 0; d < P.D; ++d) {
        const double s = a.scale != nullptr ? load_one(dt, a.scale, b * P.scale[0] + d * P.scale[1]) : 0.0;
        const int64_t y_off = b * P.y[0] + l * P.y[1] + d * P.y[2];
        if (P.backward) {
          store_one(load_one(dt, a.dy, b * P.dy[0] + l * P.dy[1] + d * P.dy[2]) * (1.0 + s), dt, a.y, y_off);
        } else {
          const double t = a.shift != nullptr ? load_one(dt, a.shift, b * P.shift[0] + d * P.shift[1]) : 0.0;
          store_one(load_one(dt, a.x, b * P.x[0] + l * P.x[1] + d * P.x[2]) * (1.0 + s) + t, dt, a.y, y_off);
        }
      }
    }
  });
}

// grad_scale[b, :] = sum_l dy * x, grad_shift[b, :] = sum_l dy: one batch per task, L in order.
void sums(const ModulatePlan &P, const ModulateArgs &a) {
  const aclDataType dt = P.dtype;
  core::parallel_for(P.B, 1, [&](int64_t b0, int64_t b1) {
    std::vector<double> ss(static_cast<size_t>(P.D)), st(static_cast<size_t>(P.D));
    for (int64_t b = b0; b < b1; ++b) {
      std::fill(ss.begin(), ss.end(), 0.0);
      std::fill(st.begin(), st.end(), 0.0);
      for (int64_t l = 0; l < P.L; ++l)
        for (int64_t d = 0; d < P.D; ++d) {
          const double g = load_one(dt, a.dy, b * P.dy[0] + l * P.dy[1] + d * P.dy[2]);
          if (a.dscale != nullptr) ss[d] += g * load_one(dt, a.x, b * P.x[0] + l * P.x[1] + d * P.x[2]);
          st[d] += g;
        }
      for (int64_t d = 0; d < P.D; ++d) {
        if (a.dscale != nullptr) store_one(ss[d], dt, a.dscale, b * P.dscale[0] + d * P.dscale[1]);
        if (a.dshift != nullptr) store_one(st[d], dt, a.dshift, b * P.dshift[0] + d * P.dshift[1]);
      }
    }
  });
}

}  // namespace

void modulate_run(const ModulatePlan &P, const ModulateArgs &a) {
  rows(P, a);
  if (P.backward && (a.dscale != nullptr || a.dshift != nullptr)) sums(P, a);
}

}  // namespace opsnn::kernels

#include "kernels/loss/chamfer_grad.h"

#include <algorithm>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

double at(const ChamferGradPlan &P, const ChamferGradArgs &a, int role, int64_t b, int64_t i, int64_t k = 0) {
  const ChamferOperand &o = P.op[role];
  return load_one(o.dtype, a.p[role], b * o.batch + i * o.point + k * o.coord);
}

// The first index of `role` ([B, points]) outside [0, limit): 161002 naming it, else 0.
int check_indices(const ChamferGradPlan &P, const ChamferGradArgs &a, int role, int64_t points, int64_t limit,
                  const char *name) {
  for (int64_t b = 0; b < P.batches; ++b)
    for (int64_t i = 0; i < points; ++i) {
      const double v = at(P, a, role, b, i);
      if (v < 0 || v >= static_cast<double>(limit))
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %lld at [%lld, %lld] is out of range [0, %lld)", name,
                    static_cast<long long>(v), static_cast<long long>(b), static_cast<long long>(i),
                    static_cast<long long>(limit));
    }
  return 0;
}

// One direction's terms: for each point i of `from` (`points` of them), d = 2 g (p - q) with q its
// nearest point in `to`; adds d to acc_from[i] and subtracts it from acc_to[nearest].
void add_terms(const ChamferGradPlan &P, const ChamferGradArgs &a, int64_t b, int from, int to, int idx, int grad,
               int64_t points, double *acc_from, double *acc_to) {
  for (int64_t i = 0; i < points; ++i) {
    const auto k = static_cast<int64_t>(at(P, a, idx, b, i));
    const double g = 2 * at(P, a, grad, b, i);
    for (int c = 0; c < 2; ++c) {
      const double d = g * (at(P, a, from, b, i, c) - at(P, a, to, b, k, c));
      acc_from[2 * i + c] += d;
      acc_to[2 * k + c] -= d;
    }
  }
}

void store_points(const ChamferGradPlan &P, const ChamferGradArgs &a, int role, int64_t b, int64_t points,
                  const double *acc) {
  const ChamferOperand &o = P.op[role];
  for (int64_t i = 0; i < points; ++i)
    for (int c = 0; c < 2; ++c) store_one(acc[2 * i + c], o.dtype, a.p[role], b * o.batch + i * o.point + c * o.coord);
}

}  // namespace

int chamfer_grad_run(const ChamferGradPlan &P, const ChamferGradArgs &a) {
  if (int rc = check_indices(P, a, kChIdx1, P.n, P.m, "idx1")) return rc;
  if (int rc = check_indices(P, a, kChIdx2, P.m, P.n, "idx2")) return rc;
  auto *ws = static_cast<double *>(a.workspace);
  core::parallel_tasks(P.tasks, [&](int64_t t) {
    double *acc1 = ws + t * (P.n + P.m) * 2, *acc2 = acc1 + P.n * 2;
    for (int64_t b = P.batches * t / P.tasks; b < P.batches * (t + 1) / P.tasks; ++b) {
      std::fill(acc1, acc1 + (P.n + P.m) * 2, 0.0);
      add_terms(P, a, b, kChXyz1, kChXyz2, kChIdx1, kChGrad1, P.n, acc1, acc2);
      add_terms(P, a, b, kChXyz2, kChXyz1, kChIdx2, kChGrad2, P.m, acc2, acc1);
      store_points(P, a, kChOut1, b, P.n, acc1);
      store_points(P, a, kChOut2, b, P.m, acc2);
    }
  });
  return 0;
}

}  // namespace opsnn::kernels

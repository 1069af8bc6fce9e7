#include "kernels/loss/chamfer_grad.h"

#include <algorithm>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

int64_t esize(const ChamferOperand &o) { return static_cast<int64_t>(core::dtype_size(o.dtype)); }

// Batch b's `points` values of `role` (coordinate c of a point set) into `buf`.
template <class T>
void load_batch(const ChamferGradPlan &P, const ChamferGradArgs &a, int role, int64_t b, int c, int64_t points,
                T *buf) {
  const ChamferOperand &o = P.op[role];
  load_as<T>(o.dtype, a.p[role] + (b * o.batch + c * o.coord) * esize(o), o.point * esize(o), buf, points);
}

// The first index of `role` ([B, points]) outside [0, limit): 161002 naming it, else 0.
int check_indices(const ChamferGradPlan &P, const ChamferGradArgs &a, int role, int64_t points, int64_t limit,
                  const char *name, int64_t *buf) {
  for (int64_t b = 0; b < P.batches; ++b) {
    load_batch(P, a, role, b, 0, points, buf);
    for (int64_t i = 0; i < points; ++i)
      if (buf[i] < 0 || buf[i] >= limit)
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %lld at [%lld, %lld] is out of range [0, %lld)", name,
                    static_cast<long long>(buf[i]), static_cast<long long>(b), static_cast<long long>(i),
                    static_cast<long long>(limit));
  }
  return 0;
}

// One batch's operands in the workspace: coordinates and accumulators per coordinate (structure of
// arrays), gradients and indices per point.
struct Batch {
  double *p[2][2], *acc[2][2], *g[2];
  int64_t *idx[2];
};

Batch carve(const ChamferGradPlan &P, double *w) {
  Batch B;
  const int64_t np[2] = {P.n, P.m};
  for (int s = 0; s < 2; ++s) {
    for (int c = 0; c < 2; ++c) {
      B.p[s][c] = w, w += np[s];
      B.acc[s][c] = w, w += np[s];
    }
    B.g[s] = w, w += np[s];
    B.idx[s] = reinterpret_cast<int64_t *>(w), w += np[s];
  }
  return B;
}

// One direction's terms: for each point i of set `s` (its nearest point k in the other set), d =
// 2 g (p - q); added to set s's accumulator at i, subtracted from the other's at k.
void add_terms(const Batch &B, int s, int64_t points) {
  const int o = 1 - s;
  for (int64_t i = 0; i < points; ++i) {
    const int64_t k = B.idx[s][i];
    const double g = 2 * B.g[s][i];
    for (int c = 0; c < 2; ++c) {
      const double d = g * (B.p[s][c][i] - B.p[o][c][k]);
      B.acc[s][c][i] += d;
      B.acc[o][c][k] -= d;
    }
  }
}

}  // namespace

uint64_t ChamferGradPlan::workspace_bytes() const {
  return static_cast<uint64_t>(tasks) * static_cast<uint64_t>(n + m) * 6 * sizeof(double) + 64;
}

int chamfer_grad_run(const ChamferGradPlan &P, const ChamferGradArgs &a) {
  auto *ws = static_cast<double *>(a.workspace);
  auto *ibuf = reinterpret_cast<int64_t *>(ws);  // task 0's space, before the tasks start
  if (int rc = check_indices(P, a, kChIdx1, P.n, P.m, "idx1", ibuf)) return rc;
  if (int rc = check_indices(P, a, kChIdx2, P.m, P.n, "idx2", ibuf)) return rc;
  const int64_t np[2] = {P.n, P.m};
  const int xyz[2] = {kChXyz1, kChXyz2}, idx[2] = {kChIdx1, kChIdx2}, grad[2] = {kChGrad1, kChGrad2},
            out[2] = {kChOut1, kChOut2};
  core::parallel_tasks(P.tasks, [&](int64_t t) {
    const Batch B = carve(P, ws + t * (P.n + P.m) * 6);
    for (int64_t b = P.batches * t / P.tasks; b < P.batches * (t + 1) / P.tasks; ++b) {
      for (int s = 0; s < 2; ++s) {
        for (int c = 0; c < 2; ++c) {
          load_batch(P, a, xyz[s], b, c, np[s], B.p[s][c]);
          std::fill(B.acc[s][c], B.acc[s][c] + np[s], 0.0);
        }
        load_batch(P, a, grad[s], b, 0, np[s], B.g[s]);
        load_batch(P, a, idx[s], b, 0, np[s], B.idx[s]);
      }
      add_terms(B, 0, P.n);
      add_terms(B, 1, P.m);
      for (int s = 0; s < 2; ++s)
        for (int c = 0; c < 2; ++c) {
          const ChamferOperand &o = P.op[out[s]];
          store_from<double>(B.acc[s][c], o.dtype, a.p[out[s]] + (b * o.batch + c * o.coord) * esize(o),
                             o.point * esize(o), np[s]);
        }
    }
  });
  return 0;
}

}  // namespace opsnn::kernels

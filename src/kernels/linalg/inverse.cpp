#include "kernels/linalg/inverse.h"

#include <atomic>
#include <cmath>
#include <utility>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "common/error.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

// The element offsets of matrix `k` (row-major over the batch dims) in self and out.
void batch_offsets(const InversePlan &P, int64_t k, int64_t *xo, int64_t *oo) {
  *xo = 0;
  *oo = 0;
  for (int d = P.batch_ndim - 1; d >= 0; --d) {
    const int64_t i = k % P.batch_dims[d];
    k /= P.batch_dims[d];
    *xo += i * P.x_batch[d];
    *oo += i * P.out_batch[d];
  }
}

// inv (n x n, row-major) = a^-1 by LU with partial pivoting of a (destroyed); false when a pivot is 0.
bool invert(double *a, double *inv, int64_t n, std::vector<int64_t> &piv) {
  for (int64_t j = 0; j < n; ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < n; ++i)
      if (std::fabs(a[i * n + j]) > std::fabs(a[p * n + j])) p = i;
    piv[j] = p;
    if (a[p * n + j] == 0.0) return false;
    if (p != j)
      for (int64_t c = 0; c < n; ++c) std::swap(a[j * n + c], a[p * n + c]);
    for (int64_t i = j + 1; i < n; ++i) {
      const double f = a[i * n + j] / a[j * n + j];
      a[i * n + j] = f;
      for (int64_t c = j + 1; c < n; ++c) a[i * n + c] -= f * a[j * n + c];
    }
  }
  // P a = L U: inv = U^-1 L^-1 P, column by column of the permuted identity.
  for (int64_t c = 0; c < n; ++c) {
    std::vector<double> y(static_cast<size_t>(n), 0.0);
    y[c] = 1.0;
    for (int64_t j = 0; j < n; ++j) std::swap(y[j], y[piv[j]]);  // apply the row swaps in order
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < i; ++k) y[i] -= a[i * n + k] * y[k];
    for (int64_t i = n - 1; i >= 0; --i) {
      for (int64_t k = i + 1; k < n; ++k) y[i] -= a[i * n + k] * y[k];
      y[i] /= a[i * n + i];
    }
    for (int64_t i = 0; i < n; ++i) inv[i * n + c] = y[i];
  }
  return true;
}

}  // namespace

int inverse_run(const InversePlan &P, const char *x, char *out, double *work) {
  const int64_t n = P.n, nn = n * n;
  std::atomic<int64_t> singular{-1};
  core::parallel_for(P.batch, 1, [&](int64_t k0, int64_t k1) {
    std::vector<double> a(static_cast<size_t>(nn));
    std::vector<int64_t> piv(static_cast<size_t>(n));
    for (int64_t k = k0; k < k1; ++k) {
      int64_t xo, oo;
      batch_offsets(P, k, &xo, &oo);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) a[i * n + j] = load_one(P.dtype, x, xo + i * P.x_row + j * P.x_col);
      if (!invert(a.data(), work + k * nn, n, piv)) {
        int64_t seen = singular.load();  // keep the lowest singular index
        while ((seen < 0 || k < seen) && !singular.compare_exchange_weak(seen, k)) {
        }
      }
    }
  });
  if (singular.load() >= 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "self: the matrix at batch index %lld is singular (not invertible)",
                static_cast<long long>(singular.load()));
  core::parallel_for(P.batch, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      int64_t xo, oo;
      batch_offsets(P, k, &xo, &oo);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) store_one(work[k * nn + i * n + j], P.dtype, out, oo + i * P.out_row + j * P.out_col);
    }
  });
  return 0;
}

}  // namespace opsnn::kernels

#include "kernels/position/rope_grad.h"

#include <algorithm>
#include <vector>

#include "core/dtype.h"
#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

// The partner of element j of a row of n and the sign of the rotated term at j.
inline int64_t partner(int64_t j, int64_t n, int64_t mode, double *sign) {
  if (mode == 0) {
    *sign = j < n / 2 ? -1.0 : 1.0;
    return j < n / 2 ? j + n / 2 : j - n / 2;
  }
  *sign = j % 2 == 0 ? -1.0 : 1.0;
  return j ^ 1;
}

// Element offset of row `row` (row-major over dims[0 .. nd-2]) with `strides`.
int64_t row_offset(int64_t row, const int64_t *dims, int nd, const int64_t *strides) {
  int64_t off = 0;
  for (int d = nd - 2; d >= 0; --d) {
    off += (row % dims[d]) * strides[d];
    row /= dims[d];
  }
  return off;
}

struct Row {
  std::vector<double> v;
  void load(aclDataType dt, const char *base, int64_t off, int64_t stride, int64_t n) {
    v.resize(static_cast<size_t>(n));
    const int64_t es = static_cast<int64_t>(core::dtype_size(dt));
    load_as<double>(dt, base + off * es, stride * es, v.data(), n);
  }
};

void store_row(const std::vector<double> &v, aclDataType dt, char *base, int64_t off, int64_t stride) {
  const int64_t es = static_cast<int64_t>(core::dtype_size(dt));
  store_from<double>(v.data(), dt, base + off * es, stride * es, static_cast<int64_t>(v.size()));
}

}  // namespace

void rope_grad_run(const RopeGradPlan &P, const RopeGradArgs &a) {
  const int nd = P.ndim;
  const int64_t n = P.dims[nd - 1], last = nd - 1;
  const aclDataType dt = P.dtype;
  int64_t rows = 1, cs_rows = 1;
  for (int d = 0; d < nd - 1; ++d) {
    rows *= P.dims[d];
    cs_rows *= P.cs_dims[d];
  }
  // dx, one row per task.
  core::parallel_for(rows, 16, [&](int64_t r0, int64_t r1) {
    Row dy, c, s;
    std::vector<double> dx(static_cast<size_t>(n));
    for (int64_t r = r0; r < r1; ++r) {
      dy.load(dt, a.dy, row_offset(r, P.dims, nd, P.dy), P.dy[last], n);
      c.load(dt, a.cos, row_offset(r, P.dims, nd, P.cos), P.cos[last], n);
      s.load(dt, a.sin, row_offset(r, P.dims, nd, P.sin), P.sin[last], n);
      for (int64_t m = 0; m < n; ++m) {
        double sign = 0.0;
        const int64_t p = partner(m, n, P.mode, &sign);
        double sign_p = 0.0;
        partner(p, n, P.mode, &sign_p);
        dx[static_cast<size_t>(m)] = c.v[static_cast<size_t>(m)] * dy.v[static_cast<size_t>(m)] +
                                     sign_p * s.v[static_cast<size_t>(p)] * dy.v[static_cast<size_t>(p)];
      }
      store_row(dx, dt, a.dx, row_offset(r, P.dims, nd, P.dx), P.dx[last]);
    }
  });
  if (!P.grads) return;
  // dcos / dsin: per cos row, the dy rows that broadcast onto it, in row-major order.
  int64_t red_dims[kRopeGradMaxDims] = {};
  int64_t red_count = 1;
  for (int d = 0; d < nd - 1; ++d) {
    red_dims[d] = P.cs_dims[d] == P.dims[d] ? 1 : P.dims[d];
    red_count *= red_dims[d];
  }
  core::parallel_for(cs_rows, 1, [&](int64_t r0, int64_t r1) {
    Row dy, x;
    std::vector<double> dc(static_cast<size_t>(n)), ds(static_cast<size_t>(n));
    for (int64_t r = r0; r < r1; ++r) {
      std::fill(dc.begin(), dc.end(), 0.0);
      std::fill(ds.begin(), ds.end(), 0.0);
      // The dy row index of (cos row r, reduced combination k): cos's index where it is not broadcast.
      int64_t cidx[kRopeGradMaxDims] = {};
      for (int64_t rem = r, d = nd - 2; d >= 0; --d) {
        cidx[d] = rem % P.cs_dims[d];
        rem /= P.cs_dims[d];
      }
      for (int64_t k = 0; k < red_count; ++k) {
        int64_t off_dy = 0, off_x = 0;
        for (int64_t rem = k, d = nd - 2; d >= 0; --d) {
          const int64_t i = red_dims[d] == 1 ? cidx[d] : rem % red_dims[d];
          rem /= red_dims[d];
          off_dy += i * P.dy[d];
          off_x += i * P.x[d];
        }
        dy.load(dt, a.dy, off_dy, P.dy[last], n);
        x.load(dt, a.x, off_x, P.x[last], n);
        for (int64_t j = 0; j < n; ++j) {
          double sign = 0.0;
          const int64_t p = partner(j, n, P.mode, &sign);
          dc[static_cast<size_t>(j)] += dy.v[static_cast<size_t>(j)] * x.v[static_cast<size_t>(j)];
          ds[static_cast<size_t>(j)] += dy.v[static_cast<size_t>(j)] * sign * x.v[static_cast<size_t>(p)];
        }
      }
      store_row(dc, dt, a.dcos, row_offset(r, P.cs_dims, nd, P.dcos), P.dcos[last]);
      store_row(ds, dt, a.dsin, row_offset(r, P.cs_dims, nd, P.dsin), P.dsin[last]);
    }
  });
}

}  // namespace opsnn::kernels

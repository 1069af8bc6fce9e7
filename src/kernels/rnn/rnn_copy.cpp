#include "kernels/rnn/rnn_copy.h"

#include <algorithm>

#include "core/dtype.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

// fn(tensor element offset of row (i, j), float offset of the row) for every row of a 3-d view.
template <class Fn>
void rows_of(const RnnView &v, const int64_t *fs, Fn &&fn) {
  const int pad = 3 - v.ndim;  // dims right-aligned
  int64_t d[3], s[3], f[3];
  for (int k = 0; k < 3; ++k) {
    d[k] = k < pad ? 1 : v.dims[k - pad];
    s[k] = k < pad ? 0 : v.strides[k - pad];
    f[k] = k < pad ? 0 : fs[k - pad];
  }
  for (int64_t i = 0; i < d[0]; ++i)
    for (int64_t j = 0; j < d[1]; ++j) fn(i * s[0] + j * s[1], i * f[0] + j * f[1], d[2], s[2]);
}

}  // namespace

void rnn_load_f32(aclDataType dt, const char *src, const RnnView &view, float *f32, const int64_t *f32_strides) {
  const int64_t es = static_cast<int64_t>(core::dtype_size(dt));
  rows_of(view, f32_strides, [&](int64_t off, int64_t foff, int64_t n, int64_t st) {
    load_as<float>(dt, src + off * es, st * es, f32 + foff, n);
  });
}

void rnn_store_f32(const float *f32, const int64_t *f32_strides, aclDataType dt, char *dst, const RnnView &view) {
  const int64_t es = static_cast<int64_t>(core::dtype_size(dt));
  rows_of(view, f32_strides, [&](int64_t off, int64_t foff, int64_t n, int64_t st) {
    store_from<float>(f32 + foff, dt, dst + off * es, st * es, n);
  });
}

void rnn_load_f32_transposed(aclDataType dt, const char *src, const RnnView &view, float *dst, int64_t ld_dst,
                             float *tmp) {
  const int64_t es = static_cast<int64_t>(core::dtype_size(dt));
  const int64_t rows = view.dims[0], cols = view.dims[1];
  for (int64_t i0 = 0; i0 < rows; i0 += kRnnTransposeRows) {
    const int64_t n = std::min(kRnnTransposeRows, rows - i0);
    for (int64_t r = 0; r < n; ++r)
      load_as<float>(dt, src + (i0 + r) * view.strides[0] * es, view.strides[1] * es, tmp + r * cols, cols);
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t r = 0; r < n; ++r) dst[j * ld_dst + i0 + r] = tmp[r * cols + j];
  }
}

}  // namespace opsnn::kernels

// The FRACTAL_NZ / FRACTAL_Z_3D weight checks and re-layout (fractal_layout.h).
#include "core/fractal_layout.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace opsnn::core {
namespace {

void check_format(const aclTensor *t, const char *name, aclFormat want, const char *want_name) {
  if (t->format != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has format %s; this API takes it in %s (a blocked weight layout)", name,
                format_name(t->format), want_name);
}

void check_storage(const aclTensor *t, const char *name, const int64_t *want, int nd, const char *rule) {
  bool same = t->storage_ndim == nd;
  for (int i = 0; same && i < nd; ++i) same = t->storage_dims[i] == want[i];
  if (!same)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has storage shape %s for the logical shape %s; %s needs %s (%s)", name,
                shape_string(t->storage_dims, t->storage_ndim).c_str(), shape_string(*t).c_str(),
                format_name(t->format), shape_string(want, nd).c_str(), rule);
}

}  // namespace

bool fractal_nz_transposed(const aclTensor &t) {
  if (t.ndim < 2) return false;
  return t.dims[t.ndim - 2] > 1 && t.strides[t.ndim - 2] == 1 && t.strides[t.ndim - 1] != 1;
}

void check_fractal_nz(const aclTensor *t, const char *name) {
  check_format(t, name, ACL_FORMAT_FRACTAL_NZ, "FRACTAL_NZ");
  if (t->ndim < 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; a FRACTAL_NZ matrix has at least 2", name, t->ndim);
  const bool tr = fractal_nz_transposed(*t);
  const int64_t c0 = fractal_c0(t->dtype);
  const int64_t r = t->dims[t->ndim - (tr ? 1 : 2)], c = t->dims[t->ndim - (tr ? 2 : 1)];
  int64_t want[kMaxDims + 2] = {};
  int nd = 0;
  for (int i = 0; i < t->ndim - 2; ++i) want[nd++] = t->dims[i];
  want[nd++] = round_up(c, c0) / c0;
  want[nd++] = round_up(r, kFractalRows) / kFractalRows;
  want[nd++] = kFractalRows;
  want[nd++] = c0;
  if (nd > kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; its FRACTAL_NZ storage would exceed %d dims", name, t->ndim,
                kMaxDims);
  check_storage(t, name, want, nd, "[..., ceil(cols / C0), ceil(rows / 16), 16, C0], C0 = 32 bytes of the dtype");
}

void check_fractal_z3d(const aclTensor *t, const char *name) {
  check_format(t, name, ACL_FRACTAL_Z_3D, "FRACTAL_Z_3D");
  if (t->ndim != 5)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; a FRACTAL_Z_3D weight's logical shape is [N, C, D, H, W]",
                name, t->ndim);
  const int64_t c0 = fractal_c0(t->dtype);
  const int64_t c1 = round_up(t->dims[1], c0) / c0, n1 = round_up(t->dims[0], kFractalRows) / kFractalRows;
  const int64_t want[4] = {t->dims[2] * c1 * t->dims[3] * t->dims[4], n1, kFractalRows, c0};
  check_storage(t, name, want, 4, "[D * ceil(C / C0) * H * W, ceil(N / 16), 16, C0], C0 = 32 bytes of the dtype");
}

void fractal_nz_to_dense(const char *src, int64_t esz, int64_t batch, int64_t rows, int64_t cols, bool transposed,
                         char *dst) {
  const int64_t c0 = 32 / esz;
  const int64_t sr = transposed ? cols : rows, sc = transposed ? rows : cols;  // the stored matrix
  const int64_t r16 = round_up(sr, kFractalRows), blocks = round_up(sc, c0) / c0, per = blocks * r16 * c0;
  const int64_t pitch = cols * esz;  // bytes per dst row
  for (int64_t m = 0; m < batch; ++m, src += per * esz, dst += rows * pitch) {
    // 16 stored rows at a time: per column block one contiguous 16 x 32-byte source run, and the
    // destination rows it fills stay in cache until every block has written its piece.
    for (int64_t r0 = 0; r0 < sr; r0 += kFractalRows) {
      const int64_t rn = std::min(kFractalRows, sr - r0);
      for (int64_t b = 0; b < blocks; ++b) {
        const char *s = src + (b * r16 + r0) * c0 * esz;
        const int64_t cn = std::min(c0, sc - b * c0);
        if (!transposed) {
          char *d = dst + r0 * pitch + b * c0 * esz;
          if (cn == c0)
            for (int64_t r = 0; r < rn; ++r) std::memcpy(d + r * pitch, s + r * 32, 32);
          else
            for (int64_t r = 0; r < rn; ++r) std::memcpy(d + r * pitch, s + r * 32, static_cast<size_t>(cn * esz));
        } else {  // stored (r0 + r, b * c0 + i) is logical (b * c0 + i, r0 + r)
          for (int64_t r = 0; r < rn; ++r)
            for (int64_t i = 0; i < cn; ++i)
              std::memcpy(dst + (b * c0 + i) * pitch + (r0 + r) * esz, s + (r * c0 + i) * esz, static_cast<size_t>(esz));
        }
      }
    }
  }
}

void fractal_z3d_to_dense(const char *src, int64_t esz, const int64_t dims[5], char *dst) {
  const int64_t n = dims[0], c = dims[1], kd = dims[2], kh = dims[3], kw = dims[4];
  const int64_t c0 = 32 / esz, c1 = round_up(c, c0) / c0, n16 = round_up(n, kFractalRows);
  for (int64_t o = 0; o < n; ++o)
    for (int64_t i = 0; i < c; ++i)
      for (int64_t d = 0; d < kd; ++d)
        for (int64_t h = 0; h < kh; ++h)
          for (int64_t w = 0; w < kw; ++w) {
            const int64_t from = ((((d * c1 + i / c0) * kh + h) * kw + w) * n16 + o) * c0 + i % c0;
            std::memcpy(dst, src + from * esz, static_cast<size_t>(esz));
            dst += esz;
          }
}

}  // namespace opsnn::core

// The blocked weight formats the *WeightNz APIs take (aclFormat FRACTAL_NZ and FRACTAL_Z_3D): the
// argument checks of phase 1 and the addressing the steps read them with. The tensor's view dims are
// the logical shape; its storage dims (aclCreateTensor's storageDims) are the blocked shape, whose
// blocks hold 16 rows of C0 = 32 bytes (16 FLOAT16 / BF16 elements, 32 INT8 / FLOAT8, 64 FLOAT4, 8 FLOAT),
// zero-padded.
//   FRACTAL_NZ of a [..., R, C] matrix: storage [..., ceil(C / C0), ceil(R / 16), 16, C0]; logical
//     (r, c) at ((c / C0) * R16 + r) * C0 + c % C0 (R16 = R rounded up to 16): column blocks of C0
//     columns one after another, each a row-major [R16, C0] panel.
//   FRACTAL_Z_3D of a [N, C, D, H, W] convolution weight: storage [D * C1 * H * W, N1, 16, C0] with
//     C1 = ceil(C / C0), N1 = ceil(N / 16); logical (n, c, d, h, w) at
//     ((((d * C1 + c / C0) * H + h) * W + w) * N16 + n) * C0 + c % C0 (N16 = 16 * N1).
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "core/packed_dtype.h"
#include "core/tensor.h"

namespace opsnn::core {

constexpr int64_t kFractalRows = 16;

// Elements per 32-byte block row of dtype `dt` (64 of a dtype stored two a byte: FLOAT4, INT4).
inline int64_t fractal_c0(aclDataType dt) {
  return dtype_packs_two(dt) ? 64 : 32 / static_cast<int64_t>(dtype_size(dt));
}
inline int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// A FRACTAL_NZ view whose last two strides are swapped (dim -2 of size > 1 with stride 1, dim -1 of
// a stride other than 1) is the transpose of the stored matrix: the storage holds [..., C, R] (the view's [..., R, C] read as its transpose), as a
// transposed weight is passed to the matmuls.
bool fractal_nz_transposed(const aclTensor &t);
// `t` (view: the logical [..., R, C] matrix, ndim >= 2) has format FRACTAL_NZ and the storage shape
// above (of the stored matrix: [..., C, R] when fractal_nz_transposed); 161002 naming `name` otherwise.
void check_fractal_nz(const aclTensor *t, const char *name);
// `t` (view: the logical [N, C, D, H, W] weight) has format FRACTAL_Z_3D and the storage shape above.
void check_fractal_z3d(const aclTensor *t, const char *name);

// Element offset of logical (r, c) inside one FRACTAL_NZ matrix of r16 padded rows.
inline int64_t fractal_nz_offset(int64_t r, int64_t c, int64_t r16, int64_t c0) {
  return ((c / c0) * r16 + r) * c0 + c % c0;
}

// Copies the `batch` FRACTAL_NZ matrices of a view of logical [rows, cols] each (elements of `esz`
// bytes; `transposed`: stored as [cols, rows], see fractal_nz_transposed) to dense row-major
// [batch, rows, cols] at dst.
void fractal_nz_to_dense(const char *src, int64_t esz, int64_t batch, int64_t rows, int64_t cols, bool transposed,
                         char *dst);

// Copies a FRACTAL_Z_3D weight of logical dims[5] (elements of `esz` bytes) to dense row-major
// [N, C, D, H, W] at dst.
void fractal_z3d_to_dense(const char *src, int64_t esz, const int64_t dims[5], char *dst);

}  // namespace opsnn::core

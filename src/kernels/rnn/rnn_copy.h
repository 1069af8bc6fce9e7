// Conversions between the caller's tensors (any dtype the engine converts, any strides) and the
// fp32 rows the recurrent family computes on in its workspace. A view has up to 3 dims; the fp32
// side has unit stride along the last dim and its own strides (floats) along the others.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct RnnView {
  int ndim = 0;
  int64_t dims[3] = {1, 1, 1};
  int64_t strides[3] = {0, 0, 0};  // elements of the tensor (tensor side) or floats (fp32 side)
};

// f32[i, j, k] = (float) src[i, j, k]; f32_strides[2] must be 1.
void rnn_load_f32(aclDataType dt, const char *src, const RnnView &view, float *f32, const int64_t *f32_strides);
// dst[i, j, k] = (dt) f32[i, j, k], rounded once.
void rnn_store_f32(const float *f32, const int64_t *f32_strides, aclDataType dt, char *dst, const RnnView &view);
// A 2-d view [rows, cols] transposed into fp32 rows: dst[j * ld_dst + i] = (float) src[i, j]. Source rows
// are converted kRnnTransposeRows at a time into `tmp` (kRnnTransposeRows * cols floats), so each
// destination row receives a run of that many floats at once.
constexpr int64_t kRnnTransposeRows = 16;
void rnn_load_f32_transposed(aclDataType dt, const char *src, const RnnView &view, float *dst, int64_t ld_dst,
                             float *tmp);

}  // namespace opsnn::kernels

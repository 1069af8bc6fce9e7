// Block-scaled low-float matrices decoded to fp32 rows for the GEMM engine (the MX matmuls,
// ops/matmul/mxmm_phase1.h): element (r, kk) of matrix b, read in plain strides or in FRACTAL_NZ blocks
// (core/fractal_layout.h), times the FLOAT8_E8M0 scale of its block of 32 along kk and, optionally, a FLOAT
// level-0 scale per l0_group along kk. Each value is decode(code) * 2^(scale - 127) in fp32 (exact but for
// over- / underflow), then times the level-0 scale (one rounding).
#pragma once

#include <cstdint>

#include "kernels/quant/low_float.h"

namespace opsnn::kernels {

constexpr int kMxMaxBatchDims = 4;

struct MxDequantDesc {
  LowFloat fmt = LowFloat::kE4M3;
  int64_t batch = 1, rows = 0, k = 0;  // batch: the product of batch_dims
  // Matrix b (row-major over batch_dims) starts at sum b_i * batch_strides[i] in the codes (elements; FLOAT4:
  // nibbles) and at sum b_i * s_batch_strides[i] in the scales (bytes).
  int batch_nd = 0;
  int64_t batch_dims[kMxMaxBatchDims] = {}, batch_strides[kMxMaxBatchDims] = {}, s_batch_strides[kMxMaxBatchDims] = {};
  // Codes from the matrix's start: plain r * row_stride + kk * k_stride; nz: stored as [rows, k] (nz_rows_major)
  // or [k, rows] in blocks of 16 stored rows x nz_c0 (fractal_nz_offset with nz_r16, the stored rows rounded up
  // to 16).
  int64_t row_stride = 0, k_stride = 1;
  bool nz = false, nz_rows_major = true;
  int64_t nz_r16 = 16, nz_c0 = 32;
  // E8M0 code of block j of row r (bytes from the matrix's scales): r * s_row + (j / 2) * s_pair + (j % 2) * s_half.
  int64_t s_row = 0, s_pair = 0, s_half = 1;
  // Level-0 FLOAT scale of group g (l0_group, a multiple of 32, elements along k) of row r (elements; l0 null:
  // none): r * l0_row + g * l0_grp.
  int64_t l0_group = 512, l0_row = 0, l0_grp = 0;
  int64_t out_k = 0;  // the row length of out (>= k; 0: k): the values past k are zeros
  int64_t tasks = 1;  // ranges of the batch * rows rows
};

// out: contiguous [batch, rows, out_k], fp32, or (bf16) BF16 (exact where mx_dequant_min_magnitude >= 2^-126).
void mx_dequant_rows(const MxDequantDesc &d, const uint8_t *codes, const uint8_t *scales, const float *l0, void *out,
                     bool bf16 = false);

// The smallest magnitude a non-zero decoded value of d can have (the format's smallest non-zero value times the
// smallest block scale), or NaN when a BF16 decoding is not exact: a level-0 scale (any fp32) or a NaN scale.
// Codes have at most 4 significant bits, so every value is exact in BF16 when this is at least 2^-126 (a BF16
// normal: the vdpbf16ps GEMM tiles read BF16 subnormals, and produce fp32 subnormals, as zero).
float mx_dequant_min_magnitude(const MxDequantDesc &d, const uint8_t *scales, const float *l0);

}  // namespace opsnn::kernels

// The dequantising epilogue of the int8 GEMM (aclnnQuantMatmulV3/V4): one row segment of exact
// int32 products in, one row segment of the output out. Per element (fp32 arithmetic, rounded once
// to the output dtype at the end):
//   v = float(acc + bias_i32[j]) * scale[j] * pertoken      (the sum acc + bias exact, then one rounding)
//   v = v + bias_f[j]                                         (a floating bias, after the scale)
//   v = act(v)                                                (FusedQuantMatmul's activation, if any)
//   out INT8:          requant_int8(v + offset[j])            (requant.h: half to even, saturate, NaN -> 0)
//   out FLOAT16/BF16:  v rounded to nearest even
//   out FLOAT:         v, or with `accumulate` out + v (one fp32 addition)
// The per-column parameters are decoded once per launch into plain fp32 / int32 vectors of n
// elements (qmm_decode_*), so the row loops have no dtype switch and no strides and vectorise.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::kernels {

struct QmmEpilogue {
  const float *scale = nullptr;     // [n]
  const float *offset = nullptr;    // [n] or null (INT8 out only)
  GemmActivation act = GemmActivation::kNone;  // applied to v before the output's rounding
  const int32_t *bias_i32 = nullptr;  // [n] of this row's batch, or null
  const float *bias_f = nullptr;      // [n] of this row's batch, or null
  aclDataType out_dtype = ACL_INT8;   // ACL_INT8, ACL_FLOAT16, ACL_BF16 or ACL_FLOAT
  bool accumulate = false;            // out FLOAT += v (QuantBatchMatmulInplaceAdd's yRef)
};

// acc[0, w): the exact sums of one row, columns j0 .. j0 + w; `pertoken` the row's factor (1 without
// one). Writes w elements to dst (the output element of column j0) with element stride `dst_stride`.
void qmm_epilogue_row(const QmmEpilogue &e, const int32_t *acc, int64_t j0, int64_t w, float pertoken, void *dst,
                      int64_t dst_stride);

// The same for one column: acc[r * acc_stride], r < len, the exact sums of column j in `len`
// consecutive rows (no per-token factor), written to `len` contiguous output elements at dst. The
// arithmetic is qmm_epilogue_row's, element for element: for outputs whose rows are the contiguous
// dim (QuantConvolution into NCHW, where a row of the GEMM is one output pixel).
void qmm_epilogue_col(const QmmEpilogue &e, const int32_t *acc, int64_t acc_stride, int64_t j, int64_t len,
                      void *dst);

// n fp32 values from `count` (1: broadcast, or n) elements of src with element stride `stride`.
// dtype: ACL_FLOAT, ACL_FLOAT16, ACL_BF16, or ACL_UINT64 / ACL_INT64 in aclnnTransQuantParam's
// encoding (the fp32 scale's bits in the low 32 bits; the offset bits 37..45 are ignored).
void qmm_decode_floats(const void *src, aclDataType dtype, int64_t count, int64_t stride, int64_t n, float *dst);
// n int32 values from src (INT32, element stride `stride`).
void qmm_decode_int32(const int32_t *src, int64_t stride, int64_t n, int32_t *dst);
// The encoding qmm_decode_floats reads (aclnnTransQuantParamV2): count words dst[j * dst_stride] of
//   (bits(scale) & 0xFFFFE000) | (1 << 46)      (the fp32 scale's top 19 bits)
//   | (uint64(clamp(round(offset), -256, 255)) & 0x1FF) << 37   with an offset (null: none)
// round() is half away from zero; a NaN offset packs as 0. round_mode 1 (TransQuantParamV3) first
// rounds the scale to its top 19 bits, ties to the even bit 13 (0: truncates, as V2). Element strides (0: broadcast).
void qmm_encode_params(const float *scale, int64_t scale_stride, const float *offset, int64_t offset_stride,
                       int64_t count, uint64_t *dst, int64_t dst_stride, int round_mode = 0);

}  // namespace opsnn::kernels

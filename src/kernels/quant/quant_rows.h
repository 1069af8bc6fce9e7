// Row kernels of the quantisation family (ops/quant/quant_phase1.h): loading a row of any input dtype
// into fp32, the rounding modes with saturation, and the stores of integer results (INT8, INT4 packed
// two per byte, INT32 packed eight INT4 per word) and of floating results (FLOAT / FLOAT16 / BF16,
// rounded to nearest even). All arithmetic is fp32, as the formulas of the ops are written for it.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

enum class QuantRound : uint8_t { kHalfEven, kFloor, kCeil, kTrunc, kHalfAway };  // kHalfAway: std::round

// x[j] = src[j * stride] as fp32; src FLOAT / FLOAT16 / BF16 / INT8 / UINT8 / INT32 / INT64 / BOOL.
void quant_load_row(const char *src, aclDataType dt, int64_t stride, int64_t n, float *dst);

// n signed 4-bit values from packed bytes (low nibble first) starting at nibble `first` (0 or 1).
void quant_load_int4_row(const uint8_t *src, int64_t first, int64_t n, float *dst);

// ext[0..2] = max |x|, min, max of x[0..n) (NaN ignored; 0, +inf, -inf for n = 0).
void quant_row_extrema(const float *x, int64_t n, float *ext);

// round(v) by `mode`, saturated to [lo, hi]; NaN gives 0.
int32_t quant_round_sat(float v, QuantRound mode, int32_t lo, int32_t hi);

// q[j] = round_sat(x[j] * s[j * s_step] (* s again when sqrt_mode) + o[j * o_step]); o may be null.
void quant_affine_row(const float *x, int64_t n, const float *s, int64_t s_step, const float *o, int64_t o_step,
                      bool sqrt_mode, QuantRound mode, int32_t lo, int32_t hi, int32_t *q);

// q[j] = round_sat(x[j] / s[j * s_step] + o[j * o_step]) (the quotient, not x times 1 / s); o may be null.
void quant_divide_row(const float *x, int64_t n, const float *s, int64_t s_step, const float *o, int64_t o_step,
                      QuantRound mode, int32_t lo, int32_t hi, int32_t *q);

// Integer results: INT8 / UINT8 / INT32 at dst + j * stride (elements), or, `packed`, nibbles: value j
// goes to nibble (first + j) of the bytes at dst, low nibble first (INT4 tensors, and INT32 words
// holding eight INT4: the same bytes on a little-endian host).
void quant_store_ints(const int32_t *q, int64_t n, aclDataType dt, bool packed, int64_t first, char *dst,
                      int64_t stride);

// Floating results: FLOAT / FLOAT16 / BF16 at dst + j * stride (elements).
void quant_store_floats(const float *v, int64_t n, aclDataType dt, char *dst, int64_t stride);

}  // namespace opsnn::kernels

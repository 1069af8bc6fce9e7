#include "kernels/quant/quant_rows.h"

#include <cmath>
#include <cstring>

#include "core/dtype.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {

void quant_load_row(const char *src, aclDataType dt, int64_t stride, int64_t n, float *dst) {
  // The element-wise engine's one dtype switch (phase 1 admits only dtypes it loads).
  load_as<float>(dt, src, stride * static_cast<int64_t>(core::dtype_size(dt)), dst, n);
}

void quant_load_int4_row(const uint8_t *src, int64_t first, int64_t n, float *dst) {
  for (int64_t j = 0; j < n; ++j) {
    const int64_t e = first + j;
    const int nib = (src[e >> 1] >> ((e & 1) * 4)) & 15;
    dst[j] = static_cast<float>(nib >= 8 ? nib - 16 : nib);
  }
}

void quant_row_extrema(const float *x, int64_t n, float *ext) {
  float amax = 0.0f, mn = INFINITY, mx = -INFINITY;
  for (int64_t j = 0; j < n; ++j) {  // comparisons with NaN are false: NaN is skipped
    const float v = x[j];
    amax = std::fabs(v) > amax ? std::fabs(v) : amax;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  ext[0] = amax;
  ext[1] = mn;
  ext[2] = mx;
}

int32_t quant_round_sat(float v, QuantRound mode, int32_t lo, int32_t hi) {
  if (v != v) return 0;
  float r;
  switch (mode) {
    case QuantRound::kFloor: r = std::floor(v); break;
    case QuantRound::kCeil: r = std::ceil(v); break;
    case QuantRound::kTrunc: r = std::trunc(v); break;
    case QuantRound::kHalfAway: r = std::round(v); break;
    default: r = std::nearbyint(v); break;  // the default FP environment: ties to even
  }
  if (r <= static_cast<float>(lo)) return lo;
  if (r >= static_cast<float>(hi)) return hi;
  return static_cast<int32_t>(r);
}

void quant_affine_row(const float *x, int64_t n, const float *s, int64_t s_step, const float *o, int64_t o_step,
                      bool sqrt_mode, QuantRound mode, int32_t lo, int32_t hi, int32_t *q) {
  for (int64_t j = 0; j < n; ++j) {
    float sc = s[j * s_step];
    if (sqrt_mode) sc = sc * sc;
    float v = x[j] * sc;
    if (o != nullptr) v = v + o[j * o_step];
    q[j] = quant_round_sat(v, mode, lo, hi);
  }
}

void quant_divide_row(const float *x, int64_t n, const float *s, int64_t s_step, const float *o, int64_t o_step,
                      QuantRound mode, int32_t lo, int32_t hi, int32_t *q) {
  for (int64_t j = 0; j < n; ++j) {
    float v = x[j] / s[j * s_step];
    if (o != nullptr) v = v + o[j * o_step];
    q[j] = quant_round_sat(v, mode, lo, hi);
  }
}

void quant_store_ints(const int32_t *q, int64_t n, aclDataType dt, bool packed, int64_t first, char *dst,
                      int64_t stride) {
  if (packed) {
    uint8_t *b = reinterpret_cast<uint8_t *>(dst);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t e = first + j;
      const uint8_t nib = static_cast<uint8_t>(q[j] & 15);
      uint8_t &byte = b[e >> 1];
      byte = (e & 1) ? static_cast<uint8_t>((byte & 0x0F) | (nib << 4)) : static_cast<uint8_t>((byte & 0xF0) | nib);
    }
    return;
  }
  switch (dt) {
    case ACL_INT8:
      for (int64_t j = 0; j < n; ++j) reinterpret_cast<int8_t *>(dst)[j * stride] = static_cast<int8_t>(q[j]);
      return;
    case ACL_UINT8:
      for (int64_t j = 0; j < n; ++j) reinterpret_cast<uint8_t *>(dst)[j * stride] = static_cast<uint8_t>(q[j]);
      return;
    case ACL_INT32:
      for (int64_t j = 0; j < n; ++j) reinterpret_cast<int32_t *>(dst)[j * stride] = q[j];
      return;
    default:
      return;
  }
}

void quant_store_floats(const float *v, int64_t n, aclDataType dt, char *dst, int64_t stride) {
  store_from<float>(v, dt, dst, stride * static_cast<int64_t>(core::dtype_size(dt)), n);
}

}  // namespace opsnn::kernels

// Strided load/convert of any supported dtype into a contiguous compute-type buffer, and the
// reverse store. These are the only dtype switches of the element-wise engine.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"

namespace opsnn::kernels {

// dst[i] = (T) src[i * stride_bytes], i < n. T is float, double or int64_t.
template <class T>
void load_as(aclDataType src_dtype, const char *src, int64_t stride_bytes, T *dst, int64_t n);

// dst[i * stride_bytes] = (dst_dtype) src[i]. Float -> integer maps NaN to 0 and saturates to the
// int64 range before wrapping to the narrower type; anything -> BOOL is (x != 0).
// When round_through is a dtype, values first pass through it (so a result promoted to FLOAT16,
// INT8 or BOOL but written to a wider output equals arithmetic in the promoted dtype).
template <class T>
void store_from(const T *src, aclDataType dst_dtype, char *dst, int64_t stride_bytes, int64_t n,
                aclDataType round_through = ACL_DT_UNDEFINED);

// One element at element offset `off` of a `dt` array, as double, and back (the scalar reads and
// writes of the per-row / per-channel kernels: losses, norms).
inline double load_one(aclDataType dt, const char *base, int64_t off) {
  double v;
  load_as<double>(dt, base + off * static_cast<int64_t>(core::dtype_size(dt)), 0, &v, 1);
  return v;
}
inline void store_one(double v, aclDataType dt, char *base, int64_t off) {
  store_from<double>(&v, dt, base + off * static_cast<int64_t>(core::dtype_size(dt)), 0, 1);
}

}  // namespace opsnn::kernels

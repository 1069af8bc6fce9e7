// Scalar element access by dtype, shared by the reference GEMM and the epilogues.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "common/half.h"

namespace opsnn::kernels::gemm_detail {

inline int64_t dtype_bytes(aclDataType t) { return t == ACL_FLOAT ? 4 : 2; }

inline float load_elem(const void *base, aclDataType t, int64_t off) {
  switch (t) {
    case ACL_FLOAT16: return half_to_float(static_cast<const uint16_t *>(base)[off]);
    case ACL_BF16: return bf16_to_float(static_cast<const uint16_t *>(base)[off]);
    default: return static_cast<const float *>(base)[off];
  }
}

inline void store_elem(void *base, aclDataType t, int64_t off, float v) {
  switch (t) {
    case ACL_FLOAT16: static_cast<uint16_t *>(base)[off] = float_to_half(v); break;
    case ACL_BF16: static_cast<uint16_t *>(base)[off] = float_to_bf16(v); break;
    default: static_cast<float *>(base)[off] = v; break;
  }
}

inline float round_input(float v, aclDataType rounding) {
  switch (rounding) {
    case ACL_FLOAT16: return half_to_float(float_to_half(v));
    case ACL_BF16: return bf16_to_float(float_to_bf16(v));
    default: return v;
  }
}

inline const void *offset_ptr(const void *p, aclDataType t, int64_t elems) {
  return static_cast<const char *>(p) + elems * dtype_bytes(t);
}
inline void *offset_ptr(void *p, aclDataType t, int64_t elems) {
  return static_cast<char *>(p) + elems * dtype_bytes(t);
}

}  // namespace opsnn::kernels::gemm_detail

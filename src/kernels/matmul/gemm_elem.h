// Scalar element access by dtype, shared by the reference GEMM and the epilogues.
#pragma once

#include <cmath>
#include <cstdint>

#include "acl/acl_base.h"
#include "common/half.h"
#include "kernels/matmul/gemm.h"
#include "kernels/elementwise/functors/activation.h"

namespace opsnn::kernels::gemm_detail {

static inline int64_t dtype_bytes(aclDataType t) { return t == ACL_FLOAT ? 4 : 2; }

static inline float load_elem(const void *base, aclDataType t, int64_t off) {
  switch (t) {
    case ACL_FLOAT16: return half_to_float(static_cast<const uint16_t *>(base)[off]);
    case ACL_BF16: return bf16_to_float(static_cast<const uint16_t *>(base)[off]);
    default: return static_cast<const float *>(base)[off];
  }
}

static inline void store_elem(void *base, aclDataType t, int64_t off, float v) {
  switch (t) {
    case ACL_FLOAT16: static_cast<uint16_t *>(base)[off] = float_to_half(v); break;
    case ACL_BF16: static_cast<uint16_t *>(base)[off] = float_to_bf16(v); break;
    default: static_cast<float *>(base)[off] = v; break;
  }
}

static inline float round_input(float v, aclDataType rounding) {
  switch (rounding) {
    case ACL_FLOAT16: return half_to_float(float_to_half(v));
    case ACL_BF16: return bf16_to_float(float_to_bf16(v));
    default: return v;
  }
}

// Row segments of the epilogue: w elements from element offset `off` with stride `stride`. The
// dtype switch is outside the loops, so the fp32 unit-stride cases vectorise.
static inline void load_row(const void *base, aclDataType t, int64_t off, int64_t stride, int64_t w, float *out) {
  switch (t) {
    case ACL_FLOAT16: {
      const uint16_t *p = static_cast<const uint16_t *>(base) + off;
      for (int64_t j = 0; j < w; ++j) out[j] = half_to_float(p[j * stride]);
      break;
    }
    case ACL_BF16: {
      const uint16_t *p = static_cast<const uint16_t *>(base) + off;
      for (int64_t j = 0; j < w; ++j) out[j] = bf16_to_float(p[j * stride]);
      break;
    }
    default: {
      const float *p = static_cast<const float *>(base) + off;
      if (stride == 1) {
        for (int64_t j = 0; j < w; ++j) out[j] = p[j];
      } else {
        for (int64_t j = 0; j < w; ++j) out[j] = p[j * stride];
      }
    }
  }
}

static inline void store_row(void *base, aclDataType t, int64_t off, int64_t stride, int64_t w, const float *v) {
  switch (t) {
    case ACL_FLOAT16: {
      uint16_t *p = static_cast<uint16_t *>(base) + off;
      for (int64_t j = 0; j < w; ++j) p[j * stride] = float_to_half(v[j]);
      break;
    }
    case ACL_BF16: {
      uint16_t *p = static_cast<uint16_t *>(base) + off;
      for (int64_t j = 0; j < w; ++j) p[j * stride] = float_to_bf16(v[j]);
      break;
    }
    default: {
      float *p = static_cast<float *>(base) + off;
      if (stride == 1) {
        for (int64_t j = 0; j < w; ++j) p[j] = v[j];
      } else {
        for (int64_t j = 0; j < w; ++j) p[j * stride] = v[j];
      }
    }
  }
}

// The epilogue activations, in place over w floats (the switch outside the loop; each loop is a
// plain element-wise expression a compiler can vectorise). The formulas are the element-wise
// activation functors' own (functors/activation.h, on vmath), so a fused epilogue and a separate
// activation op give the same values.
static inline void gemm_activate_row(float *v, int64_t w, GemmActivation act) {
  switch (act) {
    case GemmActivation::kNone: break;
    case GemmActivation::kRelu:
      for (int64_t j = 0; j < w; ++j) v[j] = (v[j] > 0.0f || v[j] != v[j]) ? v[j] : 0.0f;
      break;
    case GemmActivation::kGeluTanh:
      for (int64_t j = 0; j < w; ++j) v[j] = gelu_tanh(v[j]);
      break;
    case GemmActivation::kSilu:
      for (int64_t j = 0; j < w; ++j) v[j] = act_x_sigmoid(v[j], v[j]);
      break;
    case GemmActivation::kGeluErf:
      for (int64_t j = 0; j < w; ++j) v[j] = gelu_erf(v[j]);
      break;
  }
}

static inline float gemm_activate(float x, GemmActivation act) {
  gemm_activate_row(&x, 1, act);
  return x;
}

static inline const void *offset_ptr(const void *p, aclDataType t, int64_t elems) {
  return static_cast<const char *>(p) + elems * dtype_bytes(t);
}
static inline void *offset_ptr(void *p, aclDataType t, int64_t elems) {
  return static_cast<char *>(p) + elems * dtype_bytes(t);
}

}  // namespace opsnn::kernels::gemm_detail

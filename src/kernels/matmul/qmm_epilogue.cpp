#include "kernels/matmul/qmm_epilogue.h"

#include <cmath>
#include <cstring>

#include "common/half.h"
#include "kernels/matmul/gemm_elem.h"
#include "kernels/matmul/requant.h"
#include "kernels/simd/half_convert.h"

namespace opsnn::kernels {

namespace {
constexpr int64_t kChunk = 256;  // fp32 values on the stack per pass over a row segment

// gemm_detail::store_row, with contiguous FLOAT16 / BF16 runs on F16C / AVX2 (bit-identical): this unit
// is built for the baseline ISA, where the scalar half rounding cost more than the int8 GEMM itself
// (QuantConvolution into FLOAT16, bench_conv --quant).
void store_out(void *dst, aclDataType t, int64_t off, int64_t stride, int64_t w, const float *v) {
#if defined(__x86_64__)
  if (stride == 1 && (t == ACL_FLOAT16 || t == ACL_BF16) && half_convert_available()) {
    uint16_t *p = static_cast<uint16_t *>(dst) + off;
    if (t == ACL_FLOAT16) f32_to_f16_avx2(v, p, w);
    else f32_to_bf16_avx2(v, p, w);
    return;
  }
#endif
  gemm_detail::store_row(dst, t, off, stride, w, v);
}
}  // namespace

void qmm_epilogue_row(const QmmEpilogue &e, const int32_t *acc, int64_t j0, int64_t w, float pertoken, void *dst,
                      int64_t dst_stride) {
  float v[kChunk];
  int8_t q[kChunk];
  for (int64_t c0 = 0; c0 < w; c0 += kChunk) {
    const int64_t cw = w - c0 < kChunk ? w - c0 : kChunk;
    const int32_t *a = acc + c0;
    const float *s = e.scale + j0 + c0;
    if (e.bias_i32 != nullptr) {
      const int32_t *bi = e.bias_i32 + j0 + c0;
      // The sum in double is exact (|acc + bias| < 2^33); one rounding to fp32.
      for (int64_t c = 0; c < cw; ++c)
        v[c] = static_cast<float>(static_cast<double>(a[c]) + static_cast<double>(bi[c])) * s[c];
    } else {
      for (int64_t c = 0; c < cw; ++c) v[c] = static_cast<float>(a[c]) * s[c];
    }
    if (pertoken != 1.0f)
      for (int64_t c = 0; c < cw; ++c) v[c] *= pertoken;
    if (e.bias_f != nullptr) {
      const float *bf = e.bias_f + j0 + c0;
      for (int64_t c = 0; c < cw; ++c) v[c] += bf[c];
    }
    if (e.act != GemmActivation::kNone) gemm_detail::gemm_activate_row(v, cw, e.act);
    if (e.accumulate) {
      float old[kChunk];
      gemm_detail::load_row(dst, ACL_FLOAT, c0 * dst_stride, dst_stride, cw, old);
      for (int64_t c = 0; c < cw; ++c) v[c] += old[c];
    }
    if (e.out_dtype != ACL_INT8) {
      store_out(dst, e.out_dtype, c0 * dst_stride, dst_stride, cw, v);
      continue;
    }
    if (e.offset != nullptr) {
      const float *o = e.offset + j0 + c0;
      for (int64_t c = 0; c < cw; ++c) q[c] = requant_int8(v[c] + o[c]);
    } else {
      for (int64_t c = 0; c < cw; ++c) q[c] = requant_int8(v[c]);
    }
    int8_t *y = static_cast<int8_t *>(dst) + c0 * dst_stride;
    if (dst_stride == 1) {
      std::memcpy(y, q, static_cast<size_t>(cw));
    } else {
      for (int64_t c = 0; c < cw; ++c) y[c * dst_stride] = q[c];
    }
  }
}

void qmm_epilogue_col(const QmmEpilogue &e, const int32_t *acc, int64_t acc_stride, int64_t j, int64_t len,
                      void *dst) {
  float v[kChunk];
  int8_t q[kChunk];
  const float s = e.scale[j];
  for (int64_t c0 = 0; c0 < len; c0 += kChunk) {
    const int64_t cw = len - c0 < kChunk ? len - c0 : kChunk;
    const int32_t *a = acc + c0 * acc_stride;
    if (e.bias_i32 != nullptr) {
      const double bi = static_cast<double>(e.bias_i32[j]);
      for (int64_t c = 0; c < cw; ++c) v[c] = static_cast<float>(static_cast<double>(a[c * acc_stride]) + bi) * s;
    } else {
      for (int64_t c = 0; c < cw; ++c) v[c] = static_cast<float>(a[c * acc_stride]) * s;
    }
    if (e.bias_f != nullptr) {
      const float bf = e.bias_f[j];
      for (int64_t c = 0; c < cw; ++c) v[c] += bf;
    }
    if (e.act != GemmActivation::kNone) gemm_detail::gemm_activate_row(v, cw, e.act);
    if (e.accumulate) {
      float old[kChunk];
      gemm_detail::load_row(dst, ACL_FLOAT, c0, 1, cw, old);
      for (int64_t c = 0; c < cw; ++c) v[c] += old[c];
    }
    if (e.out_dtype != ACL_INT8) {
      store_out(dst, e.out_dtype, c0, 1, cw, v);
      continue;
    }
    const float o = e.offset != nullptr ? e.offset[j] : 0.0f;
    if (e.offset != nullptr) {
      for (int64_t c = 0; c < cw; ++c) q[c] = requant_int8(v[c] + o);
    } else {
      for (int64_t c = 0; c < cw; ++c) q[c] = requant_int8(v[c]);
    }
    std::memcpy(static_cast<int8_t *>(dst) + c0, q, static_cast<size_t>(cw));
  }
}

void qmm_decode_floats(const void *src, aclDataType dtype, int64_t count, int64_t stride, int64_t n, float *dst) {
  if (count == 1) stride = 0;
  if (dtype == ACL_UINT64 || dtype == ACL_INT64) {
    const uint64_t *p = static_cast<const uint64_t *>(src);
    for (int64_t j = 0; j < n; ++j) dst[j] = bits_float(static_cast<uint32_t>(p[j * stride]));
    return;
  }
  gemm_detail::load_row(src, dtype, 0, stride, n, dst);
}

void qmm_decode_int32(const int32_t *src, int64_t stride, int64_t n, int32_t *dst) {
  for (int64_t j = 0; j < n; ++j) dst[j] = src[j * stride];
}

void qmm_encode_params(const float *scale, int64_t scale_stride, const float *offset, int64_t offset_stride,
                       int64_t count, uint64_t *dst, int64_t dst_stride, int round_mode) {
  for (int64_t j = 0; j < count; ++j) {
    uint32_t bits;
    std::memcpy(&bits, &scale[j * scale_stride], 4);
    if (round_mode == 1) bits += 0xFFFu + ((bits >> 13) & 1u);  // to nearest 19-bit value, ties to even
    uint64_t word = static_cast<uint64_t>(bits & 0xFFFFE000u) | (uint64_t{1} << 46);
    if (offset != nullptr) {
      float r = std::round(offset[j * offset_stride]);
      r = r != r ? 0.0f : r;
      r = r < -256.0f ? -256.0f : r > 255.0f ? 255.0f : r;
      word |= (static_cast<uint64_t>(static_cast<int64_t>(r)) & 0x1FFu) << 37;
    }
    dst[j * dst_stride] = word;
  }
}

}  // namespace opsnn::kernels

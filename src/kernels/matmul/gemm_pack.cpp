// Packing: reads any strides and dtype, writes fp32 panels (zero-padded to the panel width).
#include "kernels/matmul/gemm_pack.h"

#include <cstring>
#include <type_traits>

#include "common/half.h"

namespace opsnn::kernels::gemm_detail {
namespace {

enum class Round { kNone, kF16, kBf16 };

template <Round R>
inline float round_to(float v) {
  if constexpr (R == Round::kF16) return half_to_float(float_to_half(v));
  else if constexpr (R == Round::kBf16) return bf16_to_float(float_to_bf16(v));
  else return v;
}

template <typename T>
inline float load(const T *p) {
  if constexpr (sizeof(T) == 4) return *p;
  else return half_to_float(*p);
}
struct Bf16 {
  uint16_t bits;
};
template <>
inline float load<Bf16>(const Bf16 *p) {
  return bf16_to_float(p->bits);
}

template <typename T, Round R>
void pack(const T *origin, int64_t sw, int64_t sp, int64_t width, int64_t kc, int W, bool f16c,
          float *dst) {
  for (int64_t w0 = 0; w0 < width; w0 += W) {
    const int64_t ww = width - w0 < W ? width - w0 : W;
    const T *src = origin + w0 * sw;
    if (sw == 1) {
      // Contiguous along the panel width (B row-major, A transposed): copy/convert rows.
      for (int64_t p = 0; p < kc; ++p) {
        const T *s = src + p * sp;
        float *d = dst + p * W;
        if constexpr (std::is_same_v<T, float> && R == Round::kNone) {
          std::memcpy(d, s, static_cast<size_t>(ww) * sizeof(float));
        } else {
#if defined(__x86_64__)
          if constexpr (std::is_same_v<T, uint16_t>) {
            if (f16c) {
              f16_to_f32_f16c(s, d, ww);
              if constexpr (R != Round::kNone)
                for (int64_t w = 0; w < ww; ++w) d[w] = round_to<R>(d[w]);
              continue;
            }
          }
#endif
          for (int64_t w = 0; w < ww; ++w) d[w] = round_to<R>(load(s + w));
        }
        for (int64_t w = ww; w < W; ++w) d[w] = 0.0f;
      }
    } else {
      // Strided along the width (A row-major, B transposed, or general): one source line at a
      // time, contiguous along K when sp == 1.
      for (int64_t w = 0; w < ww; ++w) {
        const T *s = src + w * sw;
        float *d = dst + w;
        if (sp == 1) {
          for (int64_t p = 0; p < kc; ++p) d[p * W] = round_to<R>(load(s + p));
        } else {
          for (int64_t p = 0; p < kc; ++p) d[p * W] = round_to<R>(load(s + p * sp));
        }
      }
      for (int64_t w = ww; w < W; ++w)
        for (int64_t p = 0; p < kc; ++p) dst[p * W + w] = 0.0f;
    }
    dst += static_cast<int64_t>(W) * kc;
  }
}

template <typename T>
void pack_dtype(const PackSrc &s, int64_t width, int64_t kc, int W, aclDataType rounding, bool f16c,
                float *dst) {
  const T *o = static_cast<const T *>(s.origin);
  switch (rounding) {
    case ACL_FLOAT16:
      if constexpr (std::is_same_v<T, uint16_t>) return pack<T, Round::kNone>(o, s.sw, s.sp, width, kc, W, f16c, dst);
      else return pack<T, Round::kF16>(o, s.sw, s.sp, width, kc, W, f16c, dst);
    case ACL_BF16:
      if constexpr (std::is_same_v<T, Bf16>) return pack<T, Round::kNone>(o, s.sw, s.sp, width, kc, W, f16c, dst);
      else return pack<T, Round::kBf16>(o, s.sw, s.sp, width, kc, W, f16c, dst);
    default:
      return pack<T, Round::kNone>(o, s.sw, s.sp, width, kc, W, f16c, dst);
  }
}

}  // namespace

void pack_panels(const PackSrc &src, int64_t width, int64_t kc, int W, aclDataType rounding,
                 bool f16c, float *dst) {
  switch (src.dtype) {
    case ACL_FLOAT16: return pack_dtype<uint16_t>(src, width, kc, W, rounding, f16c, dst);
    case ACL_BF16: return pack_dtype<Bf16>(src, width, kc, W, rounding, f16c, dst);
    default: return pack_dtype<float>(src, width, kc, W, rounding, f16c, dst);
  }
}

}  // namespace opsnn::kernels::gemm_detail

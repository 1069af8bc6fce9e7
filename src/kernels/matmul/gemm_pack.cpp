// Packing: reads any strides and dtype, writes fp32 panels (zero-padded to the panel width).
#include "kernels/matmul/gemm_pack.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/half.h"
#include "kernels/matmul/gemm.h"
#include "kernels/simd/half_convert.h"

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

// One source line of `n` elements to floats (contiguous source).
template <typename T, Round R>
inline void convert_line(const T *s, int64_t n, bool simd, float *d) {
  if constexpr (std::is_same_v<T, float> && R == Round::kNone) {
    // Short lines: fixed-size copies compile to a few vector moves (a loop becomes a memmove call).
    if (n == 16) return static_cast<void>(std::memcpy(d, s, 16 * sizeof(float)));
    if (n == 8) return static_cast<void>(std::memcpy(d, s, 8 * sizeof(float)));
    for (int64_t w = 0; w < n; ++w) d[w] = s[w];
    return;
  }
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, uint16_t>) {
    if (simd) {
      f16_to_f32_avx2(s, d, n);
      if constexpr (R != Round::kNone)
        for (int64_t w = 0; w < n; ++w) d[w] = round_to<R>(d[w]);
      return;
    }
  }
  if constexpr (std::is_same_v<T, Bf16> && R == Round::kNone) {
    if (simd) return bf16_to_f32_avx2(reinterpret_cast<const uint16_t *>(s), d, n);
  }
#endif
  for (int64_t w = 0; w < n; ++w) d[w] = round_to<R>(load(s + w));
}

// A full panel of W source lines (line w at s + w*sw, element p at + p*sp).
template <typename T, Round R, int W>
void pack_lines(const T *s, int64_t sw, int64_t sp, int64_t kc, bool simd, float *d) {
  const T *line[W];
  for (int w = 0; w < W; ++w) line[w] = s + w * sw;
#if defined(__x86_64__)
  if constexpr (!std::is_same_v<T, float> && R == Round::kNone) {
    if (sp == 1 && W >= 4 && simd) {
      // FLOAT16 / BF16 lines (A row-major, B stored [N,K]): widen a chunk of each line, then
      // interleave through the fp32 transposer.
      constexpr int64_t kChunk = 64;
      alignas(32) float buf[W][kChunk];
      for (int64_t p0 = 0; p0 < kc; p0 += kChunk) {
        const int64_t len = std::min(kChunk, kc - p0);
        for (int w = 0; w < W; ++w) {
          const uint16_t *src = reinterpret_cast<const uint16_t *>(line[w] + p0);
          if constexpr (std::is_same_v<T, uint16_t>) f16_to_f32_avx2(src, buf[w], len);
          else bf16_to_f32_avx2(src, buf[w], len);
        }
        pack_lines_f32_avx2(&buf[0][0], kChunk, len, W, d);
        d += len * W;
      }
      return;
    }
  }
#endif
  (void)simd;
  if (sp == 1) {
    for (int64_t p = 0; p < kc; ++p, d += W)
      for (int w = 0; w < W; ++w) d[w] = round_to<R>(load(line[w] + p));
  } else {
    for (int64_t p = 0; p < kc; ++p, d += W)
      for (int w = 0; w < W; ++w) d[w] = round_to<R>(load(line[w] + p * sp));
  }
}

template <typename T, Round R>
void pack(const T *origin, int64_t sw, int64_t sp, int64_t width, int64_t kc, int W, bool simd,
          float *dst) {
  const int64_t panels = (width + W - 1) / W;
  const int64_t full = width / W;  // panels without padding
  const int64_t panel_floats = static_cast<int64_t>(W) * kc;
  if (sw == 1) {
    // Contiguous along the panel width (B row-major, A transposed): walk 8 source lines at once
    // across all panels, so memory is read sequentially in 8 streams and each panel receives 8
    // rows in one run (one line at a time across all panels: 64 MB of B in 5.0-6.3 ms, 8 lines:
    // 4.0-5.0 ms).
    constexpr int64_t kLines = 8;
    for (int64_t p0 = 0; p0 < kc; p0 += kLines) {
      const int64_t lines = std::min(kLines, kc - p0);
      for (int64_t q = 0; q < full; ++q)
        for (int64_t p = p0; p < p0 + lines; ++p)
          convert_line<T, R>(origin + p * sp + q * W, W, simd, dst + q * panel_floats + p * W);
    }
    if (full < panels) {
      const int64_t rest = width - full * W;
      for (int64_t p = 0; p < kc; ++p) {
        float *d = dst + full * panel_floats + p * W;
        convert_line<T, R>(origin + p * sp + full * W, rest, simd, d);
        for (int64_t w = rest; w < W; ++w) d[w] = 0.0f;
      }
    }
    return;
  }
  // Strided along the width (A row-major, B transposed, or general). Each k step reads one
  // element of each of the W source lines, so W lines stream concurrently (memory-level
  // parallelism) and the panel is written sequentially.
#if defined(__x86_64__)
  // fp32 lines contiguous along p: 8x8 register transposes (AVX2).
  const bool avx2 = simd;
  constexpr bool plain_f32 = std::is_same_v<T, float> && R == Round::kNone;
#endif
  for (int64_t q = 0; q < panels; ++q) {
    const int64_t ww = std::min<int64_t>(W, width - q * W);
    const T *s0 = origin + q * W * sw;
    float *d = dst + q * panel_floats;
#if defined(__x86_64__)
    if constexpr (plain_f32) {
      if (avx2 && sp == 1 && ww == W && W >= 4 && kc >= 8) {  // W >= 4: see pack_lines_f32_avx2
        pack_lines_f32_avx2(s0, sw, kc, W, d);
        continue;
      }
    }
#endif
    if (ww == W) {
      switch (W) {
        case 4: pack_lines<T, R, 4>(s0, sw, sp, kc, simd, d); continue;
        case 6: pack_lines<T, R, 6>(s0, sw, sp, kc, simd, d); continue;
        case 8: pack_lines<T, R, 8>(s0, sw, sp, kc, simd, d); continue;
        case 12: pack_lines<T, R, 12>(s0, sw, sp, kc, simd, d); continue;
        case 16: pack_lines<T, R, 16>(s0, sw, sp, kc, simd, d); continue;
        case 32: pack_lines<T, R, 32>(s0, sw, sp, kc, simd, d); continue;
        default: break;
      }
    }
    for (int64_t p = 0; p < kc; ++p, d += W) {
      for (int64_t w = 0; w < ww; ++w) d[w] = round_to<R>(load(s0 + w * sw + p * sp));
      for (int64_t w = ww; w < W; ++w) d[w] = 0.0f;
    }
  }
}

template <typename T>
void pack_dtype(const PackSrc &s, int64_t width, int64_t kc, int W, aclDataType rounding, bool simd,
                float *dst) {
  const T *o = static_cast<const T *>(s.origin);
  switch (rounding) {
    case ACL_FLOAT16:
      if constexpr (std::is_same_v<T, uint16_t>) return pack<T, Round::kNone>(o, s.sw, s.sp, width, kc, W, simd, dst);
      else return pack<T, Round::kF16>(o, s.sw, s.sp, width, kc, W, simd, dst);
    case ACL_BF16:
      if constexpr (std::is_same_v<T, Bf16>) return pack<T, Round::kNone>(o, s.sw, s.sp, width, kc, W, simd, dst);
      else return pack<T, Round::kBf16>(o, s.sw, s.sp, width, kc, W, simd, dst);
    default:
      return pack<T, Round::kNone>(o, s.sw, s.sp, width, kc, W, simd, dst);
  }
}

template <typename T, Round R>
void pack_prepacked_t(const T *P, int64_t k, int64_t col0, int64_t width, int64_t pc, int64_t kc, int W,
                      bool simd, float *dst) {
  constexpr int64_t PW = 16;  // kPrepackWidth
  const int64_t panels = (width + W - 1) / W;
  for (int64_t q = 0; q < panels; ++q) {
    float *dq = dst + q * W * kc;
    const int64_t c0 = col0 + q * W;
    const int64_t cend = std::min<int64_t>(c0 + W, col0 + width);
    if (W == PW && c0 % PW == 0 && cend == c0 + PW) {
      // One source panel, rows contiguous: a single sequential conversion.
      convert_line<T, R>(P + c0 * k + pc * PW, kc * PW, simd, dq);
      continue;
    }
    for (int64_t p = 0; p < kc; ++p) {
      float *d = dq + p * W;
      int64_t c = c0;
      while (c < cend) {
        const int64_t len = std::min<int64_t>(PW - c % PW, cend - c);
        convert_line<T, R>(P + (c / PW) * PW * k + (pc + p) * PW + c % PW, len, simd, d + (c - c0));
        c += len;
      }
      for (int64_t w = cend - c0; w < W; ++w) d[w] = 0.0f;
    }
  }
}

template <typename T>
void pack_prepacked_dtype(const void *P, int64_t k, int64_t col0, int64_t width, int64_t pc, int64_t kc, int W,
                          aclDataType rounding, bool simd, float *dst) {
  const T *o = static_cast<const T *>(P);
  switch (rounding) {
    case ACL_FLOAT16:
      if constexpr (std::is_same_v<T, uint16_t>) return pack_prepacked_t<T, Round::kNone>(o, k, col0, width, pc, kc, W, simd, dst);
      else return pack_prepacked_t<T, Round::kF16>(o, k, col0, width, pc, kc, W, simd, dst);
    case ACL_BF16:
      if constexpr (std::is_same_v<T, Bf16>) return pack_prepacked_t<T, Round::kNone>(o, k, col0, width, pc, kc, W, simd, dst);
      else return pack_prepacked_t<T, Round::kBf16>(o, k, col0, width, pc, kc, W, simd, dst);
    default:
      return pack_prepacked_t<T, Round::kNone>(o, k, col0, width, pc, kc, W, simd, dst);
  }
}

}  // namespace

void pack_prepacked(const void *packed, aclDataType dtype, int64_t k, int64_t col0, int64_t width,
                    int64_t pc, int64_t kc, int W, aclDataType rounding, bool simd, float *dst) {
  switch (dtype) {
    case ACL_FLOAT16: return pack_prepacked_dtype<uint16_t>(packed, k, col0, width, pc, kc, W, rounding, simd, dst);
    case ACL_BF16: return pack_prepacked_dtype<Bf16>(packed, k, col0, width, pc, kc, W, rounding, simd, dst);
    default: return pack_prepacked_dtype<float>(packed, k, col0, width, pc, kc, W, rounding, simd, dst);
  }
}

void pack_panels(const PackSrc &src, int64_t width, int64_t kc, int W, aclDataType rounding,
                 bool simd, float *dst) {
  switch (src.dtype) {
    case ACL_FLOAT16: return pack_dtype<uint16_t>(src, width, kc, W, rounding, simd, dst);
    case ACL_BF16: return pack_dtype<Bf16>(src, width, kc, W, rounding, simd, dst);
    default: return pack_dtype<float>(src, width, kc, W, rounding, simd, dst);
  }
}

}  // namespace opsnn::kernels::gemm_detail

namespace opsnn::kernels {

void gemm_prepack_b(const GemmOperand &b, int64_t k, int64_t n, const void *src, void *dst) {
  const size_t es = b.dtype == ACL_FLOAT ? 4 : 2;
  const int64_t npad = (n + kPrepackWidth - 1) / kPrepackWidth * kPrepackWidth;
  const char *s = static_cast<const char *>(src);
  char *d = static_cast<char *>(dst);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < npad; ++j) {
      char *to = d + static_cast<size_t>((j / kPrepackWidth) * kPrepackWidth * k + p * kPrepackWidth +
                                         j % kPrepackWidth) * es;
      if (j < n) std::memcpy(to, s + static_cast<size_t>(p * b.row_stride + j * b.col_stride) * es, es);
      else std::memset(to, 0, es);
    }
}

}  // namespace opsnn::kernels

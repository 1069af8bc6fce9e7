// Portable micro-kernels: plain C++ that compilers auto-vectorise for the baseline ISA (SSE2 on
// x86-64, NEON on aarch64). Two shapes: 4x8 (fits 16 SSE registers) and 4x16 (fits NEON's 32).
#include <type_traits>
#include <utility>

#include "common/half.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

template <int MR, int NR, int ROWS>
void ukernel(int64_t k, const float *a, const float *b, int64_t ldb, float *c, int64_t ldc,
             float alpha, float beta) {
  float acc[ROWS][NR] = {};
  for (int64_t p = 0; p < k; ++p) {
    const float *bp = b + p * ldb;
    const float *ap = a + p * MR;
    for (int i = 0; i < ROWS; ++i) {
      const float ai = ap[i];
      for (int j = 0; j < NR; ++j) acc[i][j] += ai * bp[j];
    }
  }
  for (int i = 0; i < ROWS; ++i) {
    float *ci = c + i * ldc;
    if (beta == 0.0f) {
      for (int j = 0; j < NR; ++j) ci[j] = alpha * acc[i][j];
    } else {
      for (int j = 0; j < NR; ++j) ci[j] = gemm_combine(acc[i][j], alpha, beta, ci[j]);
    }
  }
}

inline float widen(float v) { return v; }
struct F16 {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};
inline float widen(F16 v) { return half_to_float(v.bits); }
inline float widen(Bf16 v) { return bf16_to_float(v.bits); }

template <typename T, typename Src>
void stream(int rows, int64_t k, const float *a, int64_t lda_p, const Src *bsrc, int64_t ldb, int64_t width,
            float *acc, int64_t ldacc) {
  const T *b = reinterpret_cast<const T *>(bsrc);
  if constexpr (std::is_same_v<T, float>) {
    for (int64_t p = 0; p < k; ++p) {
      const float *bp = b + p * ldb;
      for (int i = 0; i < rows; ++i) {
        const float ai = a[p * lda_p + i];
        float *ci = acc + i * ldacc;
        for (int64_t j = 0; j < width; ++j) ci[j] = __builtin_fmaf(ai, bp[j], ci[j]);
      }
    }
    return;
  }
  float row[256];  // B's row widened once for all rows of A
  for (int64_t p = 0; p < k; ++p) {
    const T *bp = b + p * ldb;
    for (int64_t j0 = 0; j0 < width; j0 += 256) {
      const int64_t w = width - j0 < 256 ? width - j0 : 256;
      for (int64_t j = 0; j < w; ++j) row[j] = widen(bp[j0 + j]);
      for (int i = 0; i < rows; ++i) {
        const float ai = a[p * lda_p + i];
        float *ci = acc + i * ldacc + j0;
        for (int64_t j = 0; j < w; ++j) ci[j] = __builtin_fmaf(ai, row[j], ci[j]);
      }
    }
  }
}

template <int MR, int NR, int... R>
constexpr Ukernel make(const char *name, std::integer_sequence<int, R...>) {
  return Ukernel{name, core::Isa::kPortable, MR, NR, {nullptr, &ukernel<MR, NR, R + 1>...},
                 &stream<float, float>, nullptr, nullptr, nullptr, &stream<F16, uint16_t>, &stream<Bf16, uint16_t>};
}

}  // namespace

const Ukernel &ukernel_portable_4x8() {
  static const Ukernel k = make<4, 8>("portable_4x8", std::make_integer_sequence<int, 4>{});
  return k;
}

const Ukernel &ukernel_portable_4x16() {
  static const Ukernel k = make<4, 16>("portable_4x16", std::make_integer_sequence<int, 4>{});
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

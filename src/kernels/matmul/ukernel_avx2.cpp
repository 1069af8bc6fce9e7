// AVX2/FMA micro-kernel, 6x16: 12 ymm accumulators, two B vectors per k step and one broadcast of
// A per row (15 of the 16 ymm registers). Compiled with -mavx2 -mfma -mf16c; only called after
// runtime detection (cpu_features().avx2/fma).
#include <immintrin.h>

#include <utility>

#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

template <int ROWS>
void ukernel(int64_t k, const float *a, const float *b, int64_t ldb, float *c, int64_t ldc,
             float alpha, float beta) {
  __m256 acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 16
  for (int i = 0; i < ROWS; ++i) {
    acc0[i] = acc1[i] = _mm256_setzero_ps();
    // C is read and written only at the end: start fetching its lines now.
    _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char *>(c + i * ldc + kNr - 1), _MM_HINT_T0);
  }

#pragma GCC unroll 4
  for (int64_t p = 0; p < k; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
    }
    a += kMr;
    b += ldb;
  }

  const __m256 va = _mm256_set1_ps(alpha);
  if (beta == 0.0f) {
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      _mm256_storeu_ps(c + i * ldc, _mm256_mul_ps(va, acc0[i]));
      _mm256_storeu_ps(c + i * ldc + 8, _mm256_mul_ps(va, acc1[i]));
    }
  } else {
    const __m256 vb = _mm256_set1_ps(beta);
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      float *ci = c + i * ldc;
      _mm256_storeu_ps(ci, _mm256_fmadd_ps(va, acc0[i], _mm256_mul_ps(vb, _mm256_loadu_ps(ci))));
      _mm256_storeu_ps(ci + 8, _mm256_fmadd_ps(va, acc1[i], _mm256_mul_ps(vb, _mm256_loadu_ps(ci + 8))));
    }
  }
}

template <int ROWS>
void stream_rows(int64_t k, const float *a, int64_t lda_p, const float *b, int64_t ldb, int64_t width,
                 float *acc, int64_t ldacc) {
  const int64_t wv = width / 8 * 8;
  for (int64_t p = 0; p < k; ++p) {
    const float *bp = b + p * ldb;
    __m256 ai[ROWS];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) ai[i] = _mm256_set1_ps(a[p * lda_p + i]);
    int64_t j = 0;
    for (; j + 2 * 8 <= wv; j += 2 * 8) {
      const __m256 b0 = _mm256_loadu_ps(bp + j), b1 = _mm256_loadu_ps(bp + j + 8);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        float *ci = acc + i * ldacc + j;
        _mm256_storeu_ps(ci, _mm256_fmadd_ps(ai[i], b0, _mm256_loadu_ps(ci)));
        _mm256_storeu_ps(ci + 8, _mm256_fmadd_ps(ai[i], b1, _mm256_loadu_ps(ci + 8)));
      }
    }
    for (; j < wv; j += 8) {
      const __m256 b0 = _mm256_loadu_ps(bp + j);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        float *ci = acc + i * ldacc + j;
        _mm256_storeu_ps(ci, _mm256_fmadd_ps(ai[i], b0, _mm256_loadu_ps(ci)));
      }
    }
    for (; j < width; ++j)
      for (int i = 0; i < ROWS; ++i) {
        float &c = acc[i * ldacc + j];
        c = __builtin_fmaf(a[p * lda_p + i], bp[j], c);
      }
  }
}

void stream(int rows, int64_t k, const float *a, int64_t lda_p, const float *b, int64_t ldb,
            int64_t width, float *acc, int64_t ldacc) {
  switch (rows) {
    case 1: return stream_rows<1>(k, a, lda_p, b, ldb, width, acc, ldacc);
    case 2: return stream_rows<2>(k, a, lda_p, b, ldb, width, acc, ldacc);
    case 3: return stream_rows<3>(k, a, lda_p, b, ldb, width, acc, ldacc);
    default: return stream_rows<4>(k, a, lda_p, b, ldb, width, acc, ldacc);
  }
}

template <int... R>
constexpr Ukernel make(std::integer_sequence<int, R...>) {
  return Ukernel{"avx2_6x16", core::Isa::kAvx2, kMr, kNr, {nullptr, &ukernel<R + 1>...}, &stream};
}

}  // namespace

const Ukernel &ukernel_avx2_6x16() {
  static const Ukernel k = make(std::make_integer_sequence<int, kMr>{});
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

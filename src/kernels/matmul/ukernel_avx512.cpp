// AVX-512 micro-kernel, 12x32: 24 zmm accumulators, two B vectors per k step and one broadcast of
// A per row (27 of the 32 zmm registers). Same structure as the AVX2 6x16 kernel. Compiled with
// AVX-512F/BW/VL/DQ; only called after runtime detection (cpu_features().avx512f etc.).
#include "kernels/simd/avx512_intrinsics.h"

#include <utility>

#include "kernels/matmul/avx512_tile.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

constexpr int kMr = 12;
constexpr int kNr = 32;

template <int ROWS>
void ukernel(int64_t k, const float *a, const float *b, int64_t ldb, float *c, int64_t ldc,
             float alpha, float beta) {
  __m512 acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 16
  for (int i = 0; i < ROWS; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  avx512_tile_prefetch_c<ROWS>(c, ldc);

#pragma GCC unroll 4
  for (int64_t p = 0; p < k; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
    for (int i = 0; i < ROWS; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
    }
    a += kMr;
    b += ldb;
  }

  avx512_tile_store<ROWS>(acc0, acc1, c, ldc, alpha, beta);
}

template <int ROWS>
void stream_rows(int64_t k, const float *a, int64_t lda_p, const float *b, int64_t ldb, int64_t width,
                 float *acc, int64_t ldacc) {
  const int64_t wv = width / 16 * 16;
  for (int64_t p = 0; p < k; ++p) {
    const float *bp = b + p * ldb;
    __m512 ai[ROWS];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) ai[i] = _mm512_set1_ps(a[p * lda_p + i]);
    int64_t j = 0;
    for (; j + 2 * 16 <= wv; j += 2 * 16) {
      const __m512 b0 = _mm512_loadu_ps(bp + j), b1 = _mm512_loadu_ps(bp + j + 16);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        float *ci = acc + i * ldacc + j;
        _mm512_storeu_ps(ci, _mm512_fmadd_ps(ai[i], b0, _mm512_loadu_ps(ci)));
        _mm512_storeu_ps(ci + 16, _mm512_fmadd_ps(ai[i], b1, _mm512_loadu_ps(ci + 16)));
      }
    }
    for (; j < wv; j += 16) {
      const __m512 b0 = _mm512_loadu_ps(bp + j);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        float *ci = acc + i * ldacc + j;
        _mm512_storeu_ps(ci, _mm512_fmadd_ps(ai[i], b0, _mm512_loadu_ps(ci)));
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
  // The half-precision small-M kernels are the AVX2 ones (bound by reading B, not by the width).
  return Ukernel{"avx512_12x32",   core::Isa::kAvx512, kMr, kNr, {nullptr, &ukernel<R + 1>...}, &stream,
                 &avx2_dot,        nullptr,            nullptr,    &avx2_stream_f16,
                 &avx2_stream_bf16, &avx2_dot_f16,     &avx2_dot_bf16};
}

}  // namespace

const Ukernel &ukernel_avx512_12x32() {
  static const Ukernel k = make(std::make_integer_sequence<int, kMr>{});  // constant-initialised
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

// AVX-512 micro-kernel, 12x32: 24 zmm accumulators, two B vectors per k step and one broadcast of
// A per row (27 of the 32 zmm registers). Same structure as the AVX2 6x16 kernel. Compiled with
// AVX-512F/BW/VL/DQ; only called after runtime detection (cpu_features().avx512f etc.).
#include "kernels/simd/avx512_intrinsics.h"

#include <utility>

#include "kernels/matmul/avx512_tile.h"
#include "kernels/matmul/gemm_panel_impl.h"
#include "kernels/matmul/small_m_dispatch.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

constexpr int kMr = 12;
constexpr int kNr = 32;

// A_IN_PLACE: row i of A at a + i*lda, contiguous along k (a small fp32 A, GemmPlan::a_direct);
// else the packed panel a[p*kMr + i].
template <int ROWS, bool A_IN_PLACE>
inline __attribute__((always_inline)) void ukernel_body(int64_t k, const float *a, int64_t lda, const float *b,
                                                        int64_t ldb, float *c, int64_t ldc, float alpha, float beta) {
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
      const __m512 ai = _mm512_set1_ps(A_IN_PLACE ? a[i * lda] : a[i]);
      acc0[i] = _mm512_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(ai, b1, acc1[i]);
    }
    a += A_IN_PLACE ? 1 : kMr;
    b += ldb;
  }

  avx512_tile_store<ROWS>(acc0, acc1, c, ldc, alpha, beta);
}

template <int ROWS>
void ukernel(int64_t k, const float *a, const float *b, int64_t ldb, float *c, int64_t ldc, float alpha,
             float beta) {
  ukernel_body<ROWS, false>(k, a, 0, b, ldb, c, ldc, alpha, beta);
}
template <int ROWS>
void ukernel_a_in_place(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
                        float alpha, float beta) {
  ukernel_body<ROWS, true>(k, a, lda, b, ldb, c, ldc, alpha, beta);
}

// Small-M stream (StreamFn): KB rows of B per pass over the accumulators, as in the AVX2 unit
// (small_m_dispatch.h), 32 columns per step. Per element the FMAs run in ascending p from the
// accumulator's value, so the bits equal every other stream kernel's and the pre-packed panels'.
template <int ROWS, int KB>
void stream_pass(const float *a, int64_t lda_p, const float *b, int64_t ldb, int64_t width, float *acc,
                 int64_t ldacc) {
  __m512 av[KB][ROWS];
#pragma GCC unroll 8
  for (int kk = 0; kk < KB; ++kk)
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) av[kk][i] = _mm512_set1_ps(a[kk * lda_p + i]);
  int64_t j = 0;
  for (; j + 32 <= width; j += 32) {
    __m512 c0[ROWS], c1[ROWS];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) {
      c0[i] = _mm512_loadu_ps(acc + i * ldacc + j);
      c1[i] = _mm512_loadu_ps(acc + i * ldacc + j + 16);
    }
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
      const __m512 b0 = _mm512_loadu_ps(b + kk * ldb + j), b1 = _mm512_loadu_ps(b + kk * ldb + j + 16);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        c0[i] = _mm512_fmadd_ps(av[kk][i], b0, c0[i]);
        c1[i] = _mm512_fmadd_ps(av[kk][i], b1, c1[i]);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) {
      _mm512_storeu_ps(acc + i * ldacc + j, c0[i]);
      _mm512_storeu_ps(acc + i * ldacc + j + 16, c1[i]);
    }
  }
  if (j < width) {  // 1..31 columns: masked
    const int64_t r = width - j;
    const __mmask16 m0 = r >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << r) - 1);
    const __mmask16 m1 = r <= 16 ? __mmask16(0) : __mmask16((1u << (r - 16)) - 1);
    __m512 c0[ROWS], c1[ROWS];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) {
      c0[i] = _mm512_maskz_loadu_ps(m0, acc + i * ldacc + j);
      c1[i] = _mm512_maskz_loadu_ps(m1, acc + i * ldacc + j + 16);
    }
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, b + kk * ldb + j), b1 = _mm512_maskz_loadu_ps(m1, b + kk * ldb + j + 16);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        c0[i] = _mm512_fmadd_ps(av[kk][i], b0, c0[i]);
        c1[i] = _mm512_fmadd_ps(av[kk][i], b1, c1[i]);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) {
      _mm512_mask_storeu_ps(acc + i * ldacc + j, m0, c0[i]);
      _mm512_mask_storeu_ps(acc + i * ldacc + j + 16, m1, c1[i]);
    }
  }
}

template <int ROWS, int KB>
void stream_rows(int64_t k, const float *a, int64_t lda_p, const float *b, int64_t ldb, int64_t width, float *acc,
                 int64_t ldacc) {
  int64_t p = 0;
  for (; p + KB <= k; p += KB) stream_pass<ROWS, KB>(a + p * lda_p, lda_p, b + p * ldb, ldb, width, acc, ldacc);
  for (; p < k; ++p) stream_pass<ROWS, 1>(a + p * lda_p, lda_p, b + p * ldb, ldb, width, acc, ldacc);
}

void stream(int rows, int64_t k, const float *a, int64_t lda_p, const float *b, int64_t ldb, int64_t width,
            float *acc, int64_t ldacc) {
  stream_dispatch(rows, [&](auto r, auto kb) {
    stream_rows<decltype(r)::value, decltype(kb)::value>(k, a, lda_p, b, ldb, width, acc, ldacc);
  });
}

template <int... R>
constexpr Ukernel make(std::integer_sequence<int, R...>) {
  // The half-precision small-M kernels are the AVX2 ones (bound by reading B, not by the width).
  // The dot kernels are the AVX2 ones; the pre-packed panel kernels (gemm_panel_impl.h, compiled here
  // for AVX-512) reproduce the per-element order of the stream and of that dot kernel.
  return Ukernel{"avx512_12x32",
                 core::Isa::kAvx512,
                 kMr,
                 kNr,
                 {nullptr, &ukernel<R + 1>...},
                 &stream,
                 &avx2_dot,
                 &panel_impl::panel_stream,
                 &panel_impl::panel_dot,
                 &avx2_stream_f16,
                 &avx2_stream_bf16,
                 &avx2_dot_f16,
                 &avx2_dot_bf16,
                 {nullptr, &ukernel_a_in_place<R + 1>...}};
}

}  // namespace

const Ukernel &ukernel_avx512_12x32() {
  static const Ukernel k = make(std::make_integer_sequence<int, kMr>{});  // constant-initialised
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

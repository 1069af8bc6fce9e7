// AVX-512 micro-kernel, 12x32: 24 zmm accumulators, two B vectors per k step and one broadcast of
// A per row (27 of the 32 zmm registers). Same structure as the AVX2 6x16 kernel. Compiled with
// AVX-512F/BW/VL/DQ; only called after runtime detection (cpu_features().avx512f etc.).
#include "kernels/simd/avx512_intrinsics.h"

#include <algorithm>
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
  if (j < width) {  // 1..31 columns: the first n0 / n1 lanes of the two vectors
    const int64_t n0 = std::min<int64_t>(width - j, 16), n1 = width - j - n0;
    __m512 c0[ROWS], c1[ROWS];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) {
      c0[i] = avx512_load_prefix_ps(acc + i * ldacc + j, n0);
      c1[i] = avx512_load_prefix_ps(acc + i * ldacc + j + 16, n1);
    }
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
      const __m512 b0 = avx512_load_prefix_ps(b + kk * ldb + j, n0);
      const __m512 b1 = avx512_load_prefix_ps(b + kk * ldb + j + 16, n1);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        c0[i] = _mm512_fmadd_ps(av[kk][i], b0, c0[i]);
        c1[i] = _mm512_fmadd_ps(av[kk][i], b1, c1[i]);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) {
      avx512_store_prefix_ps(acc + i * ldacc + j, n0, c0[i]);
      avx512_store_prefix_ps(acc + i * ldacc + j + 16, n1, c1[i]);
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

// Small-M dot products, B stored [N, K] (DotFn), in the order of the AVX2 dot kernel (avx2_dot),
// so results and the pre-packed panel dot (gemm_panel_impl.h) keep the same bits: per pair (row i,
// column j) one zmm accumulator whose lanes 0-7 / 8-15 are the AVX2 kernel's two ymm accumulators
// (k % 16 < 8 / >= 8) over the 16-k steps; then its 8-wide step into the low half, hsum(low + high)
// with the same tree, and the scalar tail in p order.
inline float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float dot_finish(int64_t k, const float *ai, const float *bj, __m512 s) {
  // The halves through memory: once per result, and GCC 12's extract / shuffle intrinsics warn
  // about their undefined pass-through operand.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  __m256 s0 = _mm256_load_ps(lanes);
  const __m256 s1 = _mm256_load_ps(lanes + 8);
  int64_t p = k / 16 * 16;
  if (p + 8 <= k) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(ai + p), _mm256_loadu_ps(bj + p), s0);
    p += 8;
  }
  float v = hsum8(_mm256_add_ps(s0, s1));
  for (; p < k; ++p) v = __builtin_fmaf(ai[p], bj[p], v);
  return v;
}

// The 16-k steps in [p0, p1) for ROWS rows x JB columns, carrying the accumulators in state[j * ROWS + i].
template <int ROWS, int JB>
inline void dot_steps(int64_t p0, int64_t p1, const float *a, int64_t lda, const float *b, int64_t ldb,
                      __m512 *state) {
  __m512 s[ROWS][JB];
#pragma GCC unroll 8
  for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < JB; ++j) s[i][j] = state[j * ROWS + i];
  for (int64_t p = p0; p < p1; p += 16) {
    __m512 av[ROWS];
#pragma GCC unroll 8
    for (int i = 0; i < ROWS; ++i) av[i] = _mm512_loadu_ps(a + i * lda + p);
#pragma GCC unroll 8
    for (int j = 0; j < JB; ++j) {
      const __m512 bv = _mm512_loadu_ps(b + j * ldb + p);
#pragma GCC unroll 8
      for (int i = 0; i < ROWS; ++i) s[i][j] = _mm512_fmadd_ps(av[i], bv, s[i][j]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < JB; ++j) state[j * ROWS + i] = s[i][j];
}

// Column blocks per row count (8, 4, 2, 2 columns for 1..4 rows), then single columns. The
// grouping does not change any element's arithmetic.
template <class F>
inline void dot_blocks(int rows, int64_t cols, F &&f) {
  auto blocks = [&](auto r, auto jb) {
    int64_t j = 0;
    for (; j + decltype(jb)::value <= cols; j += decltype(jb)::value) f(r, jb, j);
    for (; j < cols; ++j) f(r, IntC<1>{}, j);
  };
  switch (rows) {
    case 1: return blocks(IntC<1>{}, IntC<8>{});
    case 2: return blocks(IntC<2>{}, IntC<4>{});
    case 3: return blocks(IntC<3>{}, IntC<2>{});
    default: return blocks(IntC<4>{}, IntC<2>{});
  }
}

void dot(int rows, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, int64_t cols, float *c,
         int64_t ldc) {
  const int64_t k16 = k / 16 * 16;
  dot_blocks(rows, cols, [&](auto r, auto jb, int64_t j) {
    constexpr int R = decltype(r)::value, JB = decltype(jb)::value;
    __m512 state[R * JB];
#pragma GCC unroll 16
    for (int e = 0; e < R * JB; ++e) state[e] = _mm512_setzero_ps();
    dot_steps<R, JB>(0, k16, a, lda, b + j * ldb, ldb, state);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
      for (int q = 0; q < JB; ++q)
        c[i * ldc + j + q] = dot_finish(k, a + i * lda, b + (j + q) * ldb, state[q * R + i]);
  });
}

// 3-4 rows over a long, cache-resident K (Ukernel::dot_k_chunked): K in chunks of 1024 so the rows'
// chunk stays in L1 across a block of 64 columns; the chunks only cut the same 16-k steps.
constexpr int64_t kDotKChunk = 1024;
constexpr int64_t kDotCols = 64;

void dot_chunked(int rows, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, int64_t cols,
                 float *c, int64_t ldc) {
  if (rows == 1 || k <= kDotKChunk) return dot(rows, k, a, lda, b, ldb, cols, c, ldc);
  const int64_t k16 = k / 16 * 16;
  alignas(64) __m512 state[kDotCols * kStreamMaxRows];
  for (int64_t j0 = 0; j0 < cols; j0 += kDotCols) {
    const int64_t cb = std::min(kDotCols, cols - j0);
    for (int64_t e = 0; e < cb * rows; ++e) state[e] = _mm512_setzero_ps();
    for (int64_t p0 = 0; p0 < k16; p0 += kDotKChunk) {
      const int64_t p1 = std::min(k16, p0 + kDotKChunk);
      dot_blocks(rows, cb, [&](auto r, auto jb, int64_t j) {
        dot_steps<decltype(r)::value, decltype(jb)::value>(p0, p1, a, lda, b + (j0 + j) * ldb, ldb, state + j * rows);
      });
    }
    for (int64_t j = 0; j < cb; ++j)
      for (int i = 0; i < rows; ++i)
        c[i * ldc + j0 + j] = dot_finish(k, a + i * lda, b + (j0 + j) * ldb, state[j * rows + i]);
  }
}

template <int... R>
constexpr Ukernel make(std::integer_sequence<int, R...>) {
  // The half-precision small-M kernels are the AVX2 ones (bound by reading B, not by the width).
  // The half-precision dot kernels are the AVX2 ones; the pre-packed panel kernels (gemm_panel_impl.h, compiled here
  // for AVX-512) reproduce the per-element order of the stream and of that dot kernel.
  return Ukernel{"avx512_12x32",
                 core::Isa::kAvx512,
                 kMr,
                 kNr,
                 {nullptr, &ukernel<R + 1>...},
                 &stream,
                 &dot,
                 &panel_impl::panel_stream,
                 &panel_impl::panel_dot,
                 &avx2_stream_f16,
                 &avx2_stream_bf16,
                 &avx2_dot_f16,
                 &avx2_dot_bf16,
                 {nullptr, &ukernel_a_in_place<R + 1>...},
                 {},
                 &dot_chunked};
}

}  // namespace

const Ukernel &ukernel_avx512_12x32() {
  static const Ukernel k = make(std::make_integer_sequence<int, kMr>{});  // constant-initialised
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

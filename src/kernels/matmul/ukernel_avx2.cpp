// AVX2/FMA micro-kernel, 6x16: 12 ymm accumulators, two B vectors per k step and one broadcast of
// A per row (15 of the 16 ymm registers). Compiled with -mavx2 -mfma -mf16c; only called after
// runtime detection (cpu_features().avx2/fma).
#include <immintrin.h>

#include <algorithm>

#include <utility>

#include "common/half.h"
#include "kernels/matmul/gemm_panel_impl.h"
#include "kernels/matmul/small_m_dispatch.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

// A_IN_PLACE: row i of A at a + i*lda, contiguous along k; else the packed panel a[p*kMr + i].
template <int ROWS, bool A_IN_PLACE>
inline void ukernel_body(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
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
      const __m256 ai = _mm256_broadcast_ss(A_IN_PLACE ? a + i * lda : a + i);
      acc0[i] = _mm256_fmadd_ps(ai, b0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(ai, b1, acc1[i]);
    }
    a += A_IN_PLACE ? 1 : kMr;
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
void ukernel(int64_t k, const float *a, const float *b, int64_t ldb, float *c, int64_t ldc, float alpha,
             float beta) {
  ukernel_body<ROWS, false>(k, a, 0, b, ldb, c, ldc, alpha, beta);
}
template <int ROWS>
void ukernel_a_in_place(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
                        float alpha, float beta) {
  ukernel_body<ROWS, true>(k, a, lda, b, ldb, c, ldc, alpha, beta);
}

// B element types of the small-M kernels: 8 elements widened to fp32 (exactly), or one.
struct LoadF32 {
  using T = float;
  static __m256 v8(const float *p) { return _mm256_loadu_ps(p); }
  static float one(const float *p) { return *p; }
};
struct LoadF16 {
  using T = uint16_t;
  static __m256 v8(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))); }
  static float one(const uint16_t *p) { return half_to_float(*p); }
};
struct LoadBf16 {
  using T = uint16_t;
  static __m256 v8(const uint16_t *p) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
  }
  static float one(const uint16_t *p) { return bf16_to_float(*p); }
};

// KB rows of B per pass over the accumulators: each accumulator vector is loaded and stored once
// per KB rows (not once per row), and KB rows of B stream concurrently. Per element the FMAs still
// run in ascending p, so the result does not depend on KB.
template <class L, int ROWS, int KB, int JV>
void stream_pass(const float *a, int64_t lda_p, const typename L::T *b, int64_t ldb, int64_t width, float *acc,
                 int64_t ldacc) {
  __m256 av[KB][ROWS];
#pragma GCC unroll 8
  for (int kk = 0; kk < KB; ++kk)
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) av[kk][i] = _mm256_set1_ps(a[kk * lda_p + i]);
  int64_t j = 0;
  // JV vectors of columns per step: ROWS * JV independent FMA chains hide the FMA latency.
  for (; j + 8 * JV <= width; j += 8 * JV) {
    __m256 c[ROWS][JV];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < JV; ++v) c[i][v] = _mm256_loadu_ps(acc + i * ldacc + j + 8 * v);
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
      __m256 bv[JV];
#pragma GCC unroll 4
      for (int v = 0; v < JV; ++v) bv[v] = L::v8(b + kk * ldb + j + 8 * v);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < JV; ++v) c[i][v] = _mm256_fmadd_ps(av[kk][i], bv[v], c[i][v]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < JV; ++v) _mm256_storeu_ps(acc + i * ldacc + j + 8 * v, c[i][v]);
  }
  for (; j + 8 <= width; j += 8) {
    __m256 c0[ROWS];
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) c0[i] = _mm256_loadu_ps(acc + i * ldacc + j);
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
      const __m256 b0 = L::v8(b + kk * ldb + j);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) c0[i] = _mm256_fmadd_ps(av[kk][i], b0, c0[i]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < ROWS; ++i) _mm256_storeu_ps(acc + i * ldacc + j, c0[i]);
  }
  for (; j < width; ++j)
    for (int i = 0; i < ROWS; ++i) {
      float c = acc[i * ldacc + j];
      for (int kk = 0; kk < KB; ++kk) c = __builtin_fmaf(a[kk * lda_p + i], L::one(b + kk * ldb + j), c);
      acc[i * ldacc + j] = c;
    }
}

template <class L, int ROWS, int KB, int JV>
void stream_rows(int64_t k, const float *a, int64_t lda_p, const typename L::T *b, int64_t ldb, int64_t width,
                 float *acc, int64_t ldacc) {
  int64_t p = 0;
  for (; p + KB <= k; p += KB)
    stream_pass<L, ROWS, KB, JV>(a + p * lda_p, lda_p, b + p * ldb, ldb, width, acc, ldacc);
  for (; p < k; ++p) stream_pass<L, ROWS, 1, JV>(a + p * lda_p, lda_p, b + p * ldb, ldb, width, acc, ldacc);
}

template <class L>
void stream(int rows, int64_t k, const float *a, int64_t lda_p, const typename L::T *b, int64_t ldb,
            int64_t width, float *acc, int64_t ldacc) {
  stream_dispatch(rows, [&](auto r, auto kb) {
    stream_rows<L, decltype(r)::value, decltype(kb)::value, 2>(k, a, lda_p, b, ldb, width, acc, ldacc);
  });
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// The dot kernel's order: ROWS rows of A against JB rows of B, two accumulators per pair (even /
// odd 8-float chunks) over the 16-k steps, then dot_finish. The per-element arithmetic is the same
// for every (ROWS, JB) and for any cut of the steps into ranges, so neither grouping nor K chunks
// change a result.
//
// The 16-k steps in [p0, p1), carrying the pairs' accumulators in `state` ([(j * ROWS + i) * 2 + {0, 1}]).
template <class L, int ROWS, int JB>
inline void dot_steps(int64_t p0, int64_t p1, const float *a, int64_t lda, const typename L::T *b, int64_t ldb,
                      __m256 *state) {
  __m256 s0[ROWS][JB], s1[ROWS][JB];
#pragma GCC unroll 4
  for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < JB; ++j) {
      s0[i][j] = state[(j * ROWS + i) * 2];
      s1[i][j] = state[(j * ROWS + i) * 2 + 1];
    }
  for (int64_t p = p0; p < p1; p += 16) {
#pragma GCC unroll 4
    for (int j = 0; j < JB; ++j) {
      const __m256 b0 = L::v8(b + j * ldb + p), b1 = L::v8(b + j * ldb + p + 8);
#pragma GCC unroll 4
      for (int i = 0; i < ROWS; ++i) {
        s0[i][j] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i * lda + p), b0, s0[i][j]);
        s1[i][j] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i * lda + p + 8), b1, s1[i][j]);
      }
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < JB; ++j) {
      state[(j * ROWS + i) * 2] = s0[i][j];
      state[(j * ROWS + i) * 2 + 1] = s1[i][j];
    }
}

// The end of one pair (row ai, column bj) after the steps up to k16 = k / 16 * 16: an 8-wide step
// into the first accumulator, the reduction, then the scalar tail in p order.
template <class L>
inline float dot_finish(int64_t k, const float *ai, const typename L::T *bj, __m256 s0, __m256 s1) {
  int64_t p = k / 16 * 16;
  if (p + 8 <= k) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(ai + p), L::v8(bj + p), s0);
    p += 8;
  }
  float v = hsum(_mm256_add_ps(s0, s1));
  for (; p < k; ++p) v = __builtin_fmaf(ai[p], L::one(bj + p), v);
  return v;
}

template <class L, int ROWS, int JB>
void dot_block(int64_t k, const float *a, int64_t lda, const typename L::T *b, int64_t ldb, float *c, int64_t ldc) {
  __m256 state[ROWS * JB * 2];
#pragma GCC unroll 16
  for (int e = 0; e < ROWS * JB * 2; ++e) state[e] = _mm256_setzero_ps();
  dot_steps<L, ROWS, JB>(0, k / 16 * 16, a, lda, b, ldb, state);
#pragma GCC unroll 4
  for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < JB; ++j)
      c[i * ldc + j] = dot_finish<L>(k, a + i * lda, b + j * ldb, state[(j * ROWS + i) * 2], state[(j * ROWS + i) * 2 + 1]);
}

template <class L>
void dot(int rows, int64_t k, const float *a, int64_t lda, const typename L::T *b, int64_t ldb, int64_t cols,
         float *c, int64_t ldc) {
  dot_dispatch(rows, cols, [&](auto r, auto jb, int64_t j) {
    dot_block<L, decltype(r)::value, decltype(jb)::value>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
  });
}

// Several rows of A over a long K: A's rows would stream from L2 once per column, so K is walked in
// chunks that keep the rows' chunk in L1 across a block of columns. Bits as dot_block: the chunks
// only cut the same 16-k steps into ranges. Measured (1 thread, NT, K 3072, N 768): 3 rows 35 -> 42
// GFLOP/s, 4 rows 30-37 -> 45; but with B from DRAM the 4 KiB row pieces stream worse than whole
// rows (N = K = 4096: 2 rows 16.5 -> 14.4, 4 rows 22.5 -> 20), hence a plan choice.
constexpr int64_t kDotKChunk = 1024;  // a multiple of 16
constexpr int64_t kDotCols = 64;      // columns per state block

template <class L>
void dot_chunked(int rows, int64_t k, const float *a, int64_t lda, const typename L::T *b, int64_t ldb, int64_t cols,
                 float *c, int64_t ldc) {
  if (rows == 1 || k <= kDotKChunk) return dot<L>(rows, k, a, lda, b, ldb, cols, c, ldc);
  const int64_t k16 = k / 16 * 16;
  alignas(32) __m256 state[kDotCols * kStreamMaxRows * 2];
  for (int64_t j0 = 0; j0 < cols; j0 += kDotCols) {
    const int64_t cb = std::min(kDotCols, cols - j0);
    for (int64_t e = 0; e < cb * rows * 2; ++e) state[e] = _mm256_setzero_ps();
    for (int64_t p0 = 0; p0 < k16; p0 += kDotKChunk) {
      const int64_t p1 = std::min(k16, p0 + kDotKChunk);
      dot_dispatch(rows, cb, [&](auto r, auto jb, int64_t j) {
        dot_steps<L, decltype(r)::value, decltype(jb)::value>(p0, p1, a, lda, b + (j0 + j) * ldb, ldb,
                                                            state + j * rows * 2);
      });
    }
    for (int64_t j = 0; j < cb; ++j)
      for (int i = 0; i < rows; ++i)
        c[i * ldc + j0 + j] = dot_finish<L>(k, a + i * lda, b + (j0 + j) * ldb, state[(j * rows + i) * 2],
                                            state[(j * rows + i) * 2 + 1]);
  }
}


template <int... R>
constexpr Ukernel make(std::integer_sequence<int, R...>) {
  return Ukernel{"avx2_6x16",          core::Isa::kAvx2,         kMr,
                 kNr,                  {nullptr, &ukernel<R + 1>...},
                 &stream<LoadF32>,     &dot<LoadF32>,            &panel_impl::panel_stream,
                 &panel_impl::panel_dot, &stream<LoadF16>,       &stream<LoadBf16>,
                 &dot<LoadF16>,        &dot<LoadBf16>,
                 {nullptr, &ukernel_a_in_place<R + 1>...}, {},
                 &dot_chunked<LoadF32>};
}

}  // namespace

void avx2_dot(int rows, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, int64_t cols,
              float *c, int64_t ldc) {
  dot<LoadF32>(rows, k, a, lda, b, ldb, cols, c, ldc);
}
void avx2_stream_f16(int rows, int64_t k, const float *a, int64_t lda_p, const uint16_t *b, int64_t ldb,
                     int64_t width, float *acc, int64_t ldacc) {
  stream<LoadF16>(rows, k, a, lda_p, b, ldb, width, acc, ldacc);
}
void avx2_stream_bf16(int rows, int64_t k, const float *a, int64_t lda_p, const uint16_t *b, int64_t ldb,
                      int64_t width, float *acc, int64_t ldacc) {
  stream<LoadBf16>(rows, k, a, lda_p, b, ldb, width, acc, ldacc);
}
void avx2_dot_f16(int rows, int64_t k, const float *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t cols,
                  float *c, int64_t ldc) {
  dot<LoadF16>(rows, k, a, lda, b, ldb, cols, c, ldc);
}
void avx2_dot_bf16(int rows, int64_t k, const float *a, int64_t lda, const uint16_t *b, int64_t ldb, int64_t cols,
                   float *c, int64_t ldc) {
  dot<LoadBf16>(rows, k, a, lda, b, ldb, cols, c, ldc);
}

const Ukernel &ukernel_avx2_6x16() {
  static const Ukernel k = make(std::make_integer_sequence<int, kMr>{});
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

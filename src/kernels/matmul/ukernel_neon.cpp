// NEON (AArch64 Advanced SIMD) micro-kernels, the engine's tier on Arm. NEON is part of the
// AArch64 base ISA, so this unit needs no extra flags and no runtime check.
//
// Tile 6x16, the AVX2 tile's shape, so the pre-packed weight layout (16-wide panels) is read in
// place here too: 24 float32x4 accumulators, 4 B vectors per k step and the 6 A values of the
// step in one q and one d register (vfmaq_laneq / vfmaq_lane pick each row): 30 of the 32 vector
// registers. The small-M kernels (stream, dot, FLOAT16/BF16 weights widened in registers) follow
// the AVX2 ones element for element: the same fma chain per element in the stream kernel, and in
// the dot kernel the same 16 lanes (p % 16) and the same reduction tree, so panel_dot and the
// pre-packed path give identical bits on both ISAs.
#include <arm_neon.h>

#include <utility>

#include "common/half.h"
#include "kernels/matmul/gemm_panel_impl.h"
#include "kernels/matmul/small_m_dispatch.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels::gemm_detail {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

template <int I>
inline float32x4_t fma_row(float32x4_t acc, float32x4_t b, float32x4_t a03, float32x2_t a45) {
  if constexpr (I < 4) return vfmaq_laneq_f32(acc, b, a03, I);
  else return vfmaq_lane_f32(acc, b, a45, I - 4);
}

template <int ROWS, int... I>
inline void step_rows(float32x4_t (&acc)[ROWS][4], const float32x4_t (&bv)[4], float32x4_t a03, float32x2_t a45,
                      std::integer_sequence<int, I...>) {
  // One fold per row; each row's four column vectors are independent chains.
  ((acc[I][0] = fma_row<I>(acc[I][0], bv[0], a03, a45), acc[I][1] = fma_row<I>(acc[I][1], bv[1], a03, a45),
    acc[I][2] = fma_row<I>(acc[I][2], bv[2], a03, a45), acc[I][3] = fma_row<I>(acc[I][3], bv[3], a03, a45)),
   ...);
}

// A_IN_PLACE: row i of A at a + i*lda, contiguous along k; else the packed panel a[p*kMr + i]
// (always kMr wide, zero-padded, so the full 6 values are loaded for any ROWS).
template <int ROWS, bool A_IN_PLACE>
inline void ukernel_body(int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc,
                         float alpha, float beta) {
  float32x4_t acc[ROWS][4];
  for (int i = 0; i < ROWS; ++i)
    for (int v = 0; v < 4; ++v) acc[i][v] = vdupq_n_f32(0.0f);

  for (int64_t p = 0; p < k; ++p) {
    const float32x4_t bv[4] = {vld1q_f32(b), vld1q_f32(b + 4), vld1q_f32(b + 8), vld1q_f32(b + 12)};
    if constexpr (A_IN_PLACE) {
#pragma GCC unroll 6
      for (int i = 0; i < ROWS; ++i) {
        const float ai = a[i * lda];
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) acc[i][v] = vfmaq_n_f32(acc[i][v], bv[v], ai);
      }
      a += 1;
    } else {
      const float32x4_t a03 = vld1q_f32(a);
      const float32x2_t a45 = vld1_f32(a + 4);
      step_rows<ROWS>(acc, bv, a03, a45, std::make_integer_sequence<int, ROWS>{});
      a += kMr;
    }
    b += ldb;
  }

  const float32x4_t va = vdupq_n_f32(alpha);
  for (int i = 0; i < ROWS; ++i) {
    float *ci = c + i * ldc;
    if (beta == 0.0f) {
      for (int v = 0; v < 4; ++v) vst1q_f32(ci + 4 * v, vmulq_f32(va, acc[i][v]));
    } else {
      // fma(alpha, acc, beta * c): gemm_combine's rounding.
      const float32x4_t vb = vdupq_n_f32(beta);
      for (int v = 0; v < 4; ++v)
        vst1q_f32(ci + 4 * v, vfmaq_f32(vmulq_f32(vb, vld1q_f32(ci + 4 * v)), va, acc[i][v]));
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

// B element types of the small-M kernels: 4 elements widened to fp32 (exactly), or one.
struct LoadF32 {
  using T = float;
  static float32x4_t v4(const float *p) { return vld1q_f32(p); }
  static float one(const float *p) { return *p; }
};
struct LoadF16 {
  using T = uint16_t;
  static float32x4_t v4(const uint16_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
  static float one(const uint16_t *p) { return half_to_float(*p); }
};
struct LoadBf16 {
  using T = uint16_t;
  static float32x4_t v4(const uint16_t *p) { return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)); }
  static float one(const uint16_t *p) { return bf16_to_float(*p); }
};

// KB rows of B per pass over the accumulators (see the AVX2 stream_pass): per element the fmas
// still run in ascending p, so neither KB nor the vector width changes a result.
template <class L, int ROWS, int KB>
void stream_pass(const float *a, int64_t lda_p, const typename L::T *b, int64_t ldb, int64_t width, float *acc,
                 int64_t ldacc) {
  constexpr int JV = 4;  // 16 columns per step: ROWS * 4 independent chains
  float av[KB][ROWS];
  for (int kk = 0; kk < KB; ++kk)
    for (int i = 0; i < ROWS; ++i) av[kk][i] = a[kk * lda_p + i];
  int64_t j = 0;
  for (; j + 4 * JV <= width; j += 4 * JV) {
    float32x4_t cv[ROWS][JV];
    for (int i = 0; i < ROWS; ++i)
      for (int v = 0; v < JV; ++v) cv[i][v] = vld1q_f32(acc + i * ldacc + j + 4 * v);
#pragma GCC unroll 8
    for (int kk = 0; kk < KB; ++kk) {
      float32x4_t bv[JV];
      for (int v = 0; v < JV; ++v) bv[v] = L::v4(b + kk * ldb + j + 4 * v);
      for (int i = 0; i < ROWS; ++i)
        for (int v = 0; v < JV; ++v) cv[i][v] = vfmaq_n_f32(cv[i][v], bv[v], av[kk][i]);
    }
    for (int i = 0; i < ROWS; ++i)
      for (int v = 0; v < JV; ++v) vst1q_f32(acc + i * ldacc + j + 4 * v, cv[i][v]);
  }
  for (; j + 4 <= width; j += 4) {
    float32x4_t cv[ROWS];
    for (int i = 0; i < ROWS; ++i) cv[i] = vld1q_f32(acc + i * ldacc + j);
    for (int kk = 0; kk < KB; ++kk) {
      const float32x4_t b0 = L::v4(b + kk * ldb + j);
      for (int i = 0; i < ROWS; ++i) cv[i] = vfmaq_n_f32(cv[i], b0, av[kk][i]);
    }
    for (int i = 0; i < ROWS; ++i) vst1q_f32(acc + i * ldacc + j, cv[i]);
  }
  for (; j < width; ++j)
    for (int i = 0; i < ROWS; ++i) {
      float s = acc[i * ldacc + j];
      for (int kk = 0; kk < KB; ++kk) s = __builtin_fmaf(av[kk][i], L::one(b + kk * ldb + j), s);
      acc[i * ldacc + j] = s;
    }
}

template <class L, int ROWS, int KB>
void stream_rows(int64_t k, const float *a, int64_t lda_p, const typename L::T *b, int64_t ldb, int64_t width,
                 float *acc, int64_t ldacc) {
  int64_t p = 0;
  for (; p + KB <= k; p += KB) stream_pass<L, ROWS, KB>(a + p * lda_p, lda_p, b + p * ldb, ldb, width, acc, ldacc);
  for (; p < k; ++p) stream_pass<L, ROWS, 1>(a + p * lda_p, lda_p, b + p * ldb, ldb, width, acc, ldacc);
}

template <class L>
void stream(int rows, int64_t k, const float *a, int64_t lda_p, const typename L::T *b, int64_t ldb,
            int64_t width, float *acc, int64_t ldacc) {
  stream_dispatch(rows, [&](auto r, auto kb) {
    stream_rows<L, decltype(r)::value, decltype(kb)::value>(k, a, lda_p, b, ldb, width, acc, ldacc);
  });
}

// Lanes l = p % 16 of the dot kernel: s[0..1] hold lanes 0-7 (p % 16 < 8), s[2..3] lanes 8-15.
// The reduction is panel_dot's tree: v_l = lane l + lane l+8; t_l = v_l + v_{l+4};
// (t0 + t2) + (t1 + t3).
inline float reduce16(const float32x4_t (&s)[4]) {
  const float32x4_t t = vaddq_f32(vaddq_f32(s[0], s[2]), vaddq_f32(s[1], s[3]));
  const float32x2_t u = vadd_f32(vget_low_f32(t), vget_high_f32(t));  // (t0 + t2, t1 + t3)
  return vget_lane_f32(u, 0) + vget_lane_f32(u, 1);
}

// ROWS rows of A against JB rows of B (see the AVX2 dot_block): the per-element arithmetic is the
// same for every (ROWS, JB), so grouping never changes a result.
template <class L, int ROWS, int JB>
void dot_block(int64_t k, const float *a, int64_t lda, const typename L::T *b, int64_t ldb, float *c, int64_t ldc) {
  float32x4_t s[ROWS][JB][4];
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < JB; ++j)
      for (int l = 0; l < 4; ++l) s[i][j][l] = vdupq_n_f32(0.0f);
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    for (int j = 0; j < JB; ++j) {
      float32x4_t bv[4];
      for (int l = 0; l < 4; ++l) bv[l] = L::v4(b + j * ldb + p + 4 * l);
      for (int i = 0; i < ROWS; ++i)
        for (int l = 0; l < 4; ++l) s[i][j][l] = vfmaq_f32(s[i][j][l], vld1q_f32(a + i * lda + p + 4 * l), bv[l]);
    }
  }
  if (p + 8 <= k) {
    for (int j = 0; j < JB; ++j) {
      const float32x4_t b0 = L::v4(b + j * ldb + p), b1 = L::v4(b + j * ldb + p + 4);
      for (int i = 0; i < ROWS; ++i) {
        s[i][j][0] = vfmaq_f32(s[i][j][0], vld1q_f32(a + i * lda + p), b0);
        s[i][j][1] = vfmaq_f32(s[i][j][1], vld1q_f32(a + i * lda + p + 4), b1);
      }
    }
    p += 8;
  }
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < JB; ++j) {
      float v = reduce16(s[i][j]);
      for (int64_t q = p; q < k; ++q) v = __builtin_fmaf(a[i * lda + q], L::one(b + j * ldb + q), v);
      c[i * ldc + j] = v;
    }
}

template <class L>
void dot(int rows, int64_t k, const float *a, int64_t lda, const typename L::T *b, int64_t ldb, int64_t cols,
         float *c, int64_t ldc) {
  dot_dispatch(rows, cols, [&](auto r, auto jb, int64_t j) {
    dot_block<L, decltype(r)::value, decltype(jb)::value>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
  });
}

template <int... R>
constexpr Ukernel make(std::integer_sequence<int, R...>) {
  return Ukernel{"neon_6x16",           core::Isa::kNeon,         kMr,
                 kNr,                   {nullptr, &ukernel<R + 1>...},
                 &stream<LoadF32>,      &dot<LoadF32>,            &panel_impl::panel_stream,
                 &panel_impl::panel_dot, &stream<LoadF16>,        &stream<LoadBf16>,
                 &dot<LoadF16>,         &dot<LoadBf16>,
                 {nullptr, &ukernel_a_in_place<R + 1>...}};
}

}  // namespace

const Ukernel &ukernel_neon_6x16() {
  static const Ukernel k = make(std::make_integer_sequence<int, kMr>{});
  return k;
}

}  // namespace opsnn::kernels::gemm_detail

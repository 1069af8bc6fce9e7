// Bodies of the pre-packed small-M kernels (see PanelFn in ukernels.h), written so the compiler
// vectorises them across the 16 columns of a panel; included by the portable engine, the AVX2 unit
// (compiled with -mavx2 -mfma) and the NEON unit. `static`: each unit keeps its own copy (an inline
// function would be merged across units by the linker, and the portable copy could win). Per element they perform exactly the scalar fma sequence
// of the corresponding unpacked path, so the ISA does not change results.
#pragma once

#include <cstdint>

namespace opsnn::kernels::gemm_detail::panel_impl {

constexpr int64_t kW = 16;  // kPrepackWidth

static inline void panel_stream(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                         float *c, int64_t ldc) {
  constexpr int64_t QB = 4;  // panels at once: 8 independent vector chains
  for (int64_t q0 = 0; q0 < npanels; q0 += QB) {
    const int64_t qb = npanels - q0 < QB ? npanels - q0 : QB;
    for (int i = 0; i < rows; ++i) {
      alignas(64) float acc[QB][kW] = {};
      const float *ai = a + i * lda;
      if (qb == QB) {
        const float *P0 = panels + (q0 + 0) * kW * k, *P1 = panels + (q0 + 1) * kW * k;
        const float *P2 = panels + (q0 + 2) * kW * k, *P3 = panels + (q0 + 3) * kW * k;
        for (int64_t p = 0; p < k; ++p) {
          const float x = ai[p];
          for (int64_t col = 0; col < kW; ++col) {
            acc[0][col] = __builtin_fmaf(x, P0[p * kW + col], acc[0][col]);
            acc[1][col] = __builtin_fmaf(x, P1[p * kW + col], acc[1][col]);
            acc[2][col] = __builtin_fmaf(x, P2[p * kW + col], acc[2][col]);
            acc[3][col] = __builtin_fmaf(x, P3[p * kW + col], acc[3][col]);
          }
        }
      } else {
        for (int64_t qq = 0; qq < qb; ++qq) {
          const float *P = panels + (q0 + qq) * kW * k;
          for (int64_t p = 0; p < k; ++p)
            for (int64_t col = 0; col < kW; ++col) acc[qq][col] = __builtin_fmaf(ai[p], P[p * kW + col], acc[qq][col]);
        }
      }
      for (int64_t qq = 0; qq < qb; ++qq)
        for (int64_t col = 0; col < kW; ++col) c[i * ldc + (q0 + qq) * kW + col] = acc[qq][col];
    }
  }
}

static inline void panel_dot(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                      float *c, int64_t ldc) {
  const int64_t k16 = k / 16 * 16, k8 = k16 + (k - k16 >= 8 ? 8 : 0);
  for (int64_t q = 0; q < npanels; ++q) {
    const float *P = panels + q * kW * k;
    for (int i = 0; i < rows; ++i) {
      const float *ai = a + i * lda;
      alignas(64) float part[16][kW] = {};  // part[l]: lane l of the dot kernel's two accumulators
      for (int64_t p = 0; p < k8; ++p) {
        const float x = ai[p];
        float *pr = part[p & 15];
        for (int64_t col = 0; col < kW; ++col) pr[col] = __builtin_fmaf(x, P[p * kW + col], pr[col]);
      }
      for (int64_t col = 0; col < kW; ++col) {
        float v[8];
        for (int l = 0; l < 8; ++l) v[l] = part[l][col] + part[l + 8][col];
        const float t0 = v[0] + v[4], t1 = v[1] + v[5], t2 = v[2] + v[6], t3 = v[3] + v[7];
        float r = (t0 + t2) + (t1 + t3);
        for (int64_t p = k8; p < k; ++p) r = __builtin_fmaf(ai[p], P[p * kW + col], r);
        c[i * ldc + q * kW + col] = r;
      }
    }
  }
}

}  // namespace opsnn::kernels::gemm_detail::panel_impl

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

// Dot-kernel order over k-major panels: part[l] holds lane l (k = l mod 16) of the dot kernel's two
// accumulators, for the 16 columns. QB panels are read at once: one sequential stream per panel
// keeps more lines in flight than one panel after another (M = 1, N = K = 4096 from DRAM, 1 thread:
// 3.9 -> 2.6 ms). With several rows, K is walked in chunks (QB x 1024 k x 64 bytes = 256 KiB) so
// that every row passes over the same chunk while it is still in L2 (or L3 on a small L2).
static inline void panel_dot(int rows, int64_t k, const float *a, int64_t lda, const float *panels, int64_t npanels,
                      float *c, int64_t ldc) {
  constexpr int64_t QB = 4, kRowsMax = 4, kChunk = 1024;  // kChunk: a multiple of 16
  const int64_t k16 = k / 16 * 16, k8 = k16 + (k - k16 >= 8 ? 8 : 0);
  alignas(64) float part[kRowsMax][QB][16][kW];
  for (int i0 = 0; i0 < rows; i0 += kRowsMax) {
    const int nrows = rows - i0 < kRowsMax ? rows - i0 : static_cast<int>(kRowsMax);
    for (int64_t q0 = 0; q0 < npanels; q0 += QB) {
      const int64_t qb = npanels - q0 < QB ? npanels - q0 : QB;
      const float *P0 = panels + q0 * kW * k;
      for (int i = 0; i < nrows; ++i)
        for (int64_t qq = 0; qq < qb; ++qq)
          for (int l = 0; l < 16; ++l)
            for (int64_t col = 0; col < kW; ++col) part[i][qq][l][col] = 0.0f;
      for (int64_t p0 = 0; p0 < k8; p0 += kChunk) {
        const int64_t p1 = k8 - p0 < kChunk ? k8 : p0 + kChunk;
        for (int i = 0; i < nrows; ++i) {
          const float *ai = a + (i0 + i) * lda;
          if (qb == QB) {
            const float *Q0 = P0, *Q1 = P0 + kW * k, *Q2 = P0 + 2 * kW * k, *Q3 = P0 + 3 * kW * k;
            for (int64_t p = p0; p < p1; ++p) {
              const float x = ai[p];
              const int64_t l = p & 15;
              for (int64_t col = 0; col < kW; ++col) {
                part[i][0][l][col] = __builtin_fmaf(x, Q0[p * kW + col], part[i][0][l][col]);
                part[i][1][l][col] = __builtin_fmaf(x, Q1[p * kW + col], part[i][1][l][col]);
                part[i][2][l][col] = __builtin_fmaf(x, Q2[p * kW + col], part[i][2][l][col]);
                part[i][3][l][col] = __builtin_fmaf(x, Q3[p * kW + col], part[i][3][l][col]);
              }
            }
          } else {
            for (int64_t qq = 0; qq < qb; ++qq) {
              const float *P = P0 + qq * kW * k;
              for (int64_t p = p0; p < p1; ++p) {
                const float x = ai[p];
                float *pr = part[i][qq][p & 15];
                for (int64_t col = 0; col < kW; ++col) pr[col] = __builtin_fmaf(x, P[p * kW + col], pr[col]);
              }
            }
          }
        }
      }
      for (int i = 0; i < nrows; ++i) {
        const float *ai = a + (i0 + i) * lda;
        for (int64_t qq = 0; qq < qb; ++qq) {
          const float *P = P0 + qq * kW * k;
          for (int64_t col = 0; col < kW; ++col) {
            float v[8];
            for (int l = 0; l < 8; ++l) v[l] = part[i][qq][l][col] + part[i][qq][l + 8][col];
            const float t0 = v[0] + v[4], t1 = v[1] + v[5], t2 = v[2] + v[6], t3 = v[3] + v[7];
            float r = (t0 + t2) + (t1 + t3);
            for (int64_t p = k8; p < k; ++p) r = __builtin_fmaf(ai[p], P[p * kW + col], r);
            c[(i0 + i) * ldc + (q0 + qq) * kW + col] = r;
          }
        }
      }
    }
  }
}

}  // namespace opsnn::kernels::gemm_detail::panel_impl

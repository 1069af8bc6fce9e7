// NEON kernels of the small-M weight-quantised GEMM (m <= kWqSmallM; see wq_gemm.h for the
// formula). The arithmetic per element is small_m_generic's: within a group acc = sum of x * w
// (w the signed stored integer), then acc = fma(offset, xsum, acc) when there is an offset, and
// total = fma(scale, acc, total). Only the order of the additions inside a group's acc differs
// (vector lanes), so the results stay within the generic path's rounding and never depend on the
// thread count (each column is computed whole by one thread).
#include <arm_neon.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/matmul/gemm_elem.h"
#include "kernels/matmul/wq_gemm.h"

namespace opsnn::kernels::wq_detail {
namespace {

using gemm_detail::load_elem;

// 16 consecutive weights at byte pointer p (INT8: 16 bytes; INT4: 8 bytes, element 0 in the low
// nibble of byte 0) as four vectors of 4 floats, in element order.
template <bool INT4>
inline void decode16(const uint8_t *p, float32x4_t (&out)[4]) {
  int8x16_t v;
  if constexpr (INT4) {
    const uint8x8_t b = vld1_u8(p);
    const uint8x8x2_t z = vzip_u8(vand_u8(b, vdup_n_u8(0x0F)), vshr_n_u8(b, 4));  // nibbles in order
    // A nibble n holds w in two's complement: w = (n ^ 8) - 8.
    const uint8x16_t n = vcombine_u8(z.val[0], z.val[1]);
    v = vsubq_s8(vreinterpretq_s8_u8(veorq_u8(n, vdupq_n_u8(8))), vdupq_n_s8(8));
  } else {
    v = vreinterpretq_s8_u8(vld1q_u8(p));
  }
  const int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_high_s8(v);
  out[0] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo)));
  out[1] = vcvtq_f32_s32(vmovl_high_s16(lo));
  out[2] = vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi)));
  out[3] = vcvtq_f32_s32(vmovl_high_s16(hi));
}

inline int scalar_w(bool int4, const uint8_t *w, int64_t e) {
  if (!int4) return static_cast<int8_t>(w[e]);
  const int nib = (e & 1) ? w[e >> 1] >> 4 : w[e >> 1] & 15;
  return (nib ^ 8) - 8;
}

// The group fold of one element (small_m_generic's order).
inline float fold(const WqDesc &d, const void *scale, const void *offset, int64_t g, int64_t j, float xs, float acc,
                  float total) {
  if (d.has_offset) acc = std::fma(load_elem(offset, d.o_dtype, g * d.o_row + j * d.o_col), xs, acc);
  return std::fma(load_elem(scale, d.s_dtype, g * d.s_row + j * d.s_col), acc, total);
}

// Weight stored [N, K] (unit stride along K): ROWS rows of x by JB columns, each a dot product over
// the column's contiguous weight row. Per group, two vector accumulators per (row, column) take the
// even and odd 4-element quarters of each 16-weight step; the group's last (group rows mod 16)
// weights are added in order after them.
template <int ROWS, int JB, bool INT4>
void nk_cols(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
             const void *offset, int64_t j0, float *y32, int64_t ldy) {
  const int64_t G = wq_groups(d), gr = d.group > 0 ? d.group : d.k, K = d.k;
  const uint8_t *col[JB];
  for (int c = 0; c < JB; ++c) col[c] = w + (INT4 ? (j0 + c) * d.w_col / 2 : (j0 + c) * d.w_col);
  float total[ROWS][JB] = {};
  for (int64_t g = 0; g < G; ++g) {
    const int64_t p0 = g * gr, pe = std::min(K, p0 + gr), pv = p0 + (pe - p0) / 16 * 16;
    float32x4_t acc[ROWS][JB][2];
    for (int i = 0; i < ROWS; ++i)
      for (int c = 0; c < JB; ++c) acc[i][c][0] = acc[i][c][1] = vdupq_n_f32(0.0f);
    for (int64_t p = p0; p < pv; p += 16) {
      for (int c = 0; c < JB; ++c) {
        float32x4_t wv[4];
        decode16<INT4>(col[c] + (INT4 ? p / 2 : p), wv);
        for (int i = 0; i < ROWS; ++i) {
          const float *xi = x + i * K + p;
          acc[i][c][0] = vfmaq_f32(acc[i][c][0], vld1q_f32(xi), wv[0]);
          acc[i][c][1] = vfmaq_f32(acc[i][c][1], vld1q_f32(xi + 4), wv[1]);
          acc[i][c][0] = vfmaq_f32(acc[i][c][0], vld1q_f32(xi + 8), wv[2]);
          acc[i][c][1] = vfmaq_f32(acc[i][c][1], vld1q_f32(xi + 12), wv[3]);
        }
      }
    }
    for (int i = 0; i < ROWS; ++i)
      for (int c = 0; c < JB; ++c) {
        float a = vaddvq_f32(vaddq_f32(acc[i][c][0], acc[i][c][1]));
        for (int64_t q = pv; q < pe; ++q)
          a = std::fma(x[i * K + q], static_cast<float>(scalar_w(INT4, col[c], q)), a);
        total[i][c] = fold(d, scale, offset, g, j0 + c, xsum[i * G + g], a, total[i][c]);
      }
  }
  for (int i = 0; i < ROWS; ++i)
    for (int c = 0; c < JB; ++c) y32[i * ldy + j0 + c] = total[i][c];
}

template <int ROWS, int JB, bool INT4>
void rows_nk(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
             const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy) {
  int64_t j = n0;
  for (; j + JB <= n1; j += JB) nk_cols<ROWS, JB, INT4>(d, x, xsum, w, scale, offset, j, y32, ldy);
  for (; j < n1; ++j) nk_cols<ROWS, 1, INT4>(d, x, xsum, w, scale, offset, j, y32, ldy);
}

// NB weight rows from p over the 16-column strips [0, wv) of a segment (row p's strip at
// src + p-th row), all m rows of x: each accumulator strip is loaded and stored once per pass, and
// its fmas run in ascending p.
template <int NB, bool INT4>
void kn_pass(const WqDesc &d, const float *x, const uint8_t *src, int64_t rb, int64_t p, int64_t wv,
             float *const *acc) {
  for (int64_t j = 0; j < wv; j += 16) {
    float32x4_t wv4[NB][4];
    for (int kk = 0; kk < NB; ++kk) decode16<INT4>(src + kk * rb + (INT4 ? j / 2 : j), wv4[kk]);
    for (int64_t i = 0; i < d.m; ++i) {
      float *a = acc[i] + j;
      float32x4_t c[4] = {vld1q_f32(a), vld1q_f32(a + 4), vld1q_f32(a + 8), vld1q_f32(a + 12)};
      for (int kk = 0; kk < NB; ++kk) {
        const float xv = x[i * d.k + p + kk];
        for (int l = 0; l < 4; ++l) c[l] = vfmaq_n_f32(c[l], wv4[kk][l], xv);
      }
      for (int l = 0; l < 4; ++l) vst1q_f32(a + 4 * l, c[l]);
    }
  }
}

// Weight [K, N] with unit column stride: the weight rows stream in segments of wq_segment(m)
// columns, KB rows per pass over the accumulators (kept in the caller's scratch); each group is
// folded into the totals when it ends.
template <bool INT4>
void rows_kn(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
             const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy, float *scratch) {
  constexpr int KB = 4;
  const int64_t M = d.m, G = wq_groups(d), gr = d.group > 0 ? d.group : d.k, nc = wq_segment(M);
  float *acc[kWqSmallM], *total[kWqSmallM];
  for (int64_t i = 0; i < M; ++i) {
    acc[i] = scratch + i * nc;
    total[i] = scratch + (M + i) * nc;
  }
  const int64_t rb = INT4 ? d.w_row / 2 : d.w_row;  // bytes per weight row
  auto row_ptr = [&](int64_t p, int64_t j) { return w + (INT4 ? (p * d.w_row + j) >> 1 : p * d.w_row + j); };
  for (int64_t jc = n0; jc < n1; jc += nc) {
    const int64_t wd = std::min(nc, n1 - jc), wv = wd / 16 * 16;
    for (int64_t i = 0; i < M; ++i) std::fill(total[i], total[i] + wd, 0.0f);
    for (int64_t g = 0; g < G; ++g) {
      for (int64_t i = 0; i < M; ++i) std::fill(acc[i], acc[i] + wd, 0.0f);
      const int64_t pe = std::min(d.k, (g + 1) * gr);
      int64_t p = g * gr;
      for (; p + KB <= pe; p += KB) kn_pass<KB, INT4>(d, x, row_ptr(p, jc), rb, p, wv, acc);
      for (; p < pe; ++p) kn_pass<1, INT4>(d, x, row_ptr(p, jc), rb, p, wv, acc);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = wv; j < wd; ++j)  // the segment's last columns, in the same order
          for (int64_t q = g * gr; q < pe; ++q)
            acc[i][j] = std::fma(x[i * d.k + q], static_cast<float>(scalar_w(INT4, w, q * d.w_row + jc + j)), acc[i][j]);
      for (int64_t i = 0; i < M; ++i) {
        const float xs = xsum[i * G + g];
        for (int64_t j = 0; j < wd; ++j) total[i][j] = fold(d, scale, offset, g, jc + j, xs, acc[i][j], total[i][j]);
      }
    }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < wd; ++j) y32[i * ldy + jc + j] = total[i][j];
  }
}

template <bool INT4>
bool dispatch(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
              const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy, float *scratch) {
  if (d.m < 1 || d.m > kWqSmallM) return false;
  // INT4: every row segment starts on a whole byte.
  if (d.w_col == 1 && (!INT4 || (d.w_row % 2 == 0 && n0 % 2 == 0))) {
    rows_kn<INT4>(d, x, xsum, w, scale, offset, n0, n1, y32, ldy, scratch);
    return true;
  }
  // INT4: every column and every 16-weight step starts on a whole byte.
  const int64_t gr = d.group > 0 ? d.group : d.k;
  if (d.w_row == 1 && (!INT4 || (d.w_col % 2 == 0 && (gr % 2 == 0 || gr >= d.k)))) {
    switch (d.m) {
      case 1: rows_nk<1, 4, INT4>(d, x, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      case 2: rows_nk<2, 2, INT4>(d, x, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      case 3: rows_nk<3, 2, INT4>(d, x, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      default: rows_nk<4, 1, INT4>(d, x, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
    }
  }
  return false;
}

// Dequantised values (w + o) * s of one weight vector (small_m_generic's dequant: add, then
// multiply, two roundings).
inline float32x4_t dequant4(float32x4_t w, float o, float s) { return vmulq_n_f32(vaddq_f32(w, vdupq_n_f32(o)), s); }

// 4 x 4 transpose: r[i] holds element i of each input.
inline void transpose4(float32x4_t (&v)[4]) {
  const float32x4_t t0 = vtrn1q_f32(v[0], v[1]), t1 = vtrn2q_f32(v[0], v[1]);
  const float32x4_t t2 = vtrn1q_f32(v[2], v[3]), t3 = vtrn2q_f32(v[2], v[3]);
  v[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
  v[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
  v[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
  v[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

// Rows [p, pe) of one group and 16 full columns from j of the weight into dq (row stride W).
template <bool INT4>
void dequant_piece(const WqDesc &d, const uint8_t *wb, int64_t p, int64_t pe, int64_t p0, int64_t j, int64_t W,
                   const float *sv, const float *ov, float *dq) {
  if (d.w_col == 1) {  // [K, N]: each row's 16 columns are contiguous
    for (; p < pe; ++p) {
      float32x4_t v[4];
      decode16<INT4>(wb + (INT4 ? (p * d.w_row + j) >> 1 : p * d.w_row + j), v);
      float *o = dq + (p - p0) * W;
      for (int l = 0; l < 4; ++l)
        vst1q_f32(o + 4 * l, vmulq_f32(vaddq_f32(v[l], vld1q_f32(ov + 4 * l)), vld1q_f32(sv + 4 * l)));
    }
    return;
  }
  // [N, K]: each column's weights are contiguous along K; 16 of them per column, 4 x 4 transposes.
  for (; p + 16 <= pe; p += 16)
    for (int c0 = 0; c0 < 16; c0 += 4) {
      float32x4_t col[4][4];  // col[c][t]: column c0 + c, k p + 4t .. p + 4t + 3
      for (int c = 0; c < 4; ++c) {
        const int64_t e = (j + c0 + c) * d.w_col + p;
        decode16<INT4>(wb + (INT4 ? e >> 1 : e), col[c]);
        for (int t = 0; t < 4; ++t) col[c][t] = dequant4(col[c][t], ov[c0 + c], sv[c0 + c]);
      }
      for (int t = 0; t < 4; ++t) {
        float32x4_t r[4] = {col[0][t], col[1][t], col[2][t], col[3][t]};
        transpose4(r);  // r[q]: k = p + 4t + q, columns c0 .. c0 + 3
        for (int q = 0; q < 4; ++q) vst1q_f32(dq + (p + 4 * t + q - p0) * W + c0, r[q]);
      }
    }
  for (; p < pe; ++p)
    for (int c = 0; c < 16; ++c)
      dq[(p - p0) * W + c] = (static_cast<float>(scalar_w(INT4, wb, (j + c) * d.w_col + p)) + ov[c]) * sv[c];
}

}  // namespace

bool wq_dequant_block_neon(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t p0,
                           int64_t kc, int64_t j0, int64_t W, float *dst) {
  const bool int4 = d.w_dtype == ACL_INT4;
  const int64_t gr = d.group > 0 ? d.group : d.k;
  // INT4: every 16-weight vector starts on a whole byte.
  const bool kn = d.w_col == 1 && (!int4 || (d.w_row % 2 == 0 && j0 % 2 == 0));
  const bool nk = d.w_row == 1 && (!int4 || (d.w_col % 2 == 0 && p0 % 2 == 0 && (gr % 2 == 0 || gr >= d.k)));
  if (W % 16 != 0 || (!kn && !nk)) return false;
  const auto *wb = static_cast<const uint8_t *>(w);
  const int64_t pe = p0 + kc;
  float sv[16], ov[16];
  for (int64_t c0 = 0; c0 < W; c0 += 16) {
    const int64_t j = j0 + c0, cols = std::clamp<int64_t>(d.n - j, 0, 16);
    float *dq = dst + c0;
    for (int64_t p = p0; p < pe;) {
      const int64_t g = p / gr, ge = std::min(pe, (g + 1) * gr);
      for (int64_t c = 0; c < 16; ++c) {
        sv[c] = c < cols ? load_elem(scale, d.s_dtype, g * d.s_row + (j + c) * d.s_col) : 0.0f;
        ov[c] = c < cols && d.has_offset ? load_elem(offset, d.o_dtype, g * d.o_row + (j + c) * d.o_col) : 0.0f;
      }
      if (cols < 16) {  // the last columns (zero past n), one element at a time
        for (; p < ge; ++p)
          for (int64_t c = 0; c < 16; ++c)
            dq[(p - p0) * W + c] =
                c < cols ? (static_cast<float>(scalar_w(int4, wb, p * d.w_row + (j + c) * d.w_col)) + ov[c]) * sv[c]
                         : 0.0f;
        continue;
      }
      if (int4) dequant_piece<true>(d, wb, p, ge, p0, j, W, sv, ov, dq);
      else dequant_piece<false>(d, wb, p, ge, p0, j, W, sv, ov, dq);
      p = ge;
    }
  }
  return true;
}

bool wq_small_m_neon(const WqDesc &d, const float *x, const float *xsum, const void *w, const void *scale,
                     const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy, float *scratch) {
  const auto *wb = static_cast<const uint8_t *>(w);
  return d.w_dtype == ACL_INT4 ? dispatch<true>(d, x, xsum, wb, scale, offset, n0, n1, y32, ldy, scratch)
                               : dispatch<false>(d, x, xsum, wb, scale, offset, n0, n1, y32, ldy, scratch);
}

}  // namespace opsnn::kernels::wq_detail

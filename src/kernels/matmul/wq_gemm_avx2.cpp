// AVX2/FMA kernels of the small-M weight-quantised GEMM (see wq_gemm.h for the formula). Compiled
// with -mavx2 -mfma -mf16c; called only after runtime detection.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/matmul/avx2_transpose.h"
#include "kernels/matmul/wq_gemm.h"

namespace opsnn::kernels::wq_detail {
namespace {

// Scale / offset element (FLOAT16 / BF16 / FLOAT). Local on purpose: shared inline helpers compiled
// here with AVX2 flags could be picked by the linker for portable units too.
float load_elem(const void *base, aclDataType t, int64_t off) {
  const auto *h = static_cast<const uint16_t *>(base);
  switch (t) {
    case ACL_FLOAT16: return _cvtsh_ss(h[off]);
    case ACL_BF16: {
      const uint32_t bits = static_cast<uint32_t>(h[off]) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return static_cast<const float *>(base)[off];
  }
}

// 16 consecutive weights starting at byte pointer `p` (INT8: 16 bytes; INT4: 8 bytes, element 0 in
// the low nibble of byte 0) as two vectors of 8 floats.
template <bool INT4>
inline void load16(const uint8_t *p, __m256 &lo, __m256 &hi) {
  __m128i b;
  if constexpr (INT4) {
    const __m128i raw = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
    const __m128i m = _mm_set1_epi8(0x0F);
    const __m128i l = _mm_and_si128(raw, m), h = _mm_and_si128(_mm_srli_epi16(raw, 4), m);
    const __m128i eight = _mm_set1_epi8(8);
    b = _mm_sub_epi8(_mm_xor_si128(_mm_unpacklo_epi8(l, h), eight), eight);  // signed nibbles in order
  } else {
    b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
  }
  lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
  hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(b, 8)));
}

inline int scalar_w(bool int4, const uint8_t *w, int64_t e) {
  if (!int4) return static_cast<int8_t>(w[e]);
  const int nib = (e & 1) ? w[e >> 1] >> 4 : w[e >> 1] & 15;
  return (nib ^ 8) - 8;
}

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// Scale or offset of JB columns (element stride `stride`) as floats; one conversion for 8
// contiguous FLOAT16 / BF16 / FLOAT values.
template <int JB>
inline void load_cols(const void *base, aclDataType t, int64_t off, int64_t stride, float *out) {
  if (JB == 8 && stride == 1) {
    const auto *h = static_cast<const uint16_t *>(base) + off;
    switch (t) {
      case ACL_FLOAT16:
        _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h))));
        return;
      case ACL_BF16:
        _mm256_storeu_ps(out, _mm256_castsi256_ps(_mm256_slli_epi32(
                                  _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h))), 16)));
        return;
      case ACL_FLOAT: _mm256_storeu_ps(out, _mm256_loadu_ps(static_cast<const float *>(base) + off)); return;
      default: break;
    }
  }
  for (int c = 0; c < JB; ++c) out[c] = load_elem(base, t, off + c * stride);
}

// Scale or offset of 16 columns at the accumulator positions of rows_kn (acc_pos: INT4 puts the
// even columns in lanes 0..7 and the odd ones in 8..15).
template <bool INT4>
inline void load_cols16_kn(const void *base, aclDataType t, int64_t off, int64_t stride, float *out) {
  load_cols<8>(base, t, off, stride, out);
  load_cols<8>(base, t, off + 8 * stride, stride, out + 8);
  if constexpr (INT4) {
    const __m256 a = _mm256_loadu_ps(out), b = _mm256_loadu_ps(out + 8);
    // Per 128-bit half: a0 a2 b0 b2 | a4 a6 b4 b6; then the 64-bit pairs into a0 a2 a4 a6 b0 b2 b4 b6.
    const __m256d ev = _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    const __m256d od = _mm256_castps_pd(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm256_storeu_ps(out, _mm256_castpd_ps(_mm256_permute4x64_pd(ev, 0xD8)));
    _mm256_storeu_ps(out + 8, _mm256_castpd_ps(_mm256_permute4x64_pd(od, 0xD8)));
  }
}

// 16 consecutive weights of a [K, N] row as two vectors of 8 floats. INT8: columns in order.
// INT4 (8 bytes), with each nibble's sign bit flipped (u = w + 8 in [0, 15]; the caller folds the
// -8 into the offset): lo = the whole flipped byte b' = 16 u_odd + u_even, hi = u_odd (the odd
// columns). Accumulated over a group, lo's lanes hold acc_even + 16 acc_odd, which the fold
// corrects once per group (one masking op less per 16 weights).
template <bool INT4>
inline void load16_kn(const uint8_t *p, __m256 &lo, __m256 &hi) {
  if constexpr (INT4) {
    const __m256i b = _mm256_xor_si256(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p))),
                                       _mm256_set1_epi32(0x88));
    lo = _mm256_cvtepi32_ps(b);
    hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(b, 4));
  } else {
    lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p))));
    hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(p + 8))));
  }
}

// Where column j (of a segment) is kept in the accumulators: INT4 16-column pieces hold the even
// columns in lanes 0..7 and the odd ones in lanes 8..15 (load16_kn); the scalar tail is in order.
template <bool INT4>
inline int64_t acc_pos(int64_t j, int64_t wv) {
  if (!INT4 || j >= wv) return j;
  return (j & ~int64_t{15}) + ((j & 1) << 3) + ((j & 15) >> 1);
}

// One pass of rows_kn: NB weight rows from p over the vector columns [0, wv) of a segment, for the
// x rows i0 .. i0 + R - 1 (accumulators in memory, loaded once per 16 columns per pass).
template <int R, int NB, bool INT4>
void kn_pass(const WqDesc &d, const float *x, const uint8_t *src, int64_t rb, int64_t p, int64_t i0, int64_t wv,
             float *const *acc) {
  __m256 xb[NB][R];
  for (int kk = 0; kk < NB; ++kk)
    for (int i = 0; i < R; ++i) xb[kk][i] = _mm256_set1_ps(x[(i0 + i) * d.k + p + kk]);
  for (int64_t j = 0; j < wv; j += 16) {
    __m256 c0[R], c1[R];
    for (int i = 0; i < R; ++i) {
      c0[i] = _mm256_load_ps(acc[i0 + i] + j);
      c1[i] = _mm256_load_ps(acc[i0 + i] + j + 8);
    }
    const uint8_t *sj = src + (INT4 ? j / 2 : j);
    for (int kk = 0; kk < NB; ++kk) {
      __m256 lo, hi;
      load16_kn<INT4>(sj + kk * rb, lo, hi);
      for (int i = 0; i < R; ++i) {
        c0[i] = _mm256_fmadd_ps(xb[kk][i], lo, c0[i]);
        c1[i] = _mm256_fmadd_ps(xb[kk][i], hi, c1[i]);
      }
    }
    for (int i = 0; i < R; ++i) {
      _mm256_store_ps(acc[i0 + i] + j, c0[i]);
      _mm256_store_ps(acc[i0 + i] + j + 8, c1[i]);
    }
  }
}

template <int NB, bool INT4>
void kn_pass_rows(const WqDesc &d, const float *x, const uint8_t *src, int64_t rb, int64_t p, int64_t wv,
                  float *const *acc) {
  // Groups of up to 4 rows of x (8 accumulators; measured faster than 5 or 6): the weight rows of
  // the pass (NB x the segment) are read from memory by the first group and from L1 by the others.
  for (int64_t i0 = 0; i0 < d.m; i0 += 4) {
    switch (std::min<int64_t>(4, d.m - i0)) {
      case 1: kn_pass<1, NB, INT4>(d, x, src, rb, p, i0, wv, acc); break;
      case 2: kn_pass<2, NB, INT4>(d, x, src, rb, p, i0, wv, acc); break;
      case 3: kn_pass<3, NB, INT4>(d, x, src, rb, p, i0, wv, acc); break;
      default: kn_pass<4, NB, INT4>(d, x, src, rb, p, i0, wv, acc); break;
    }
  }
}

// Weight [K, N] with unit column stride: rows of the weight stream sequentially, KB rows per pass
// over the accumulators (all m rows of x per pass, so the weight is read from memory once). Per
// element: acc = fma(x[p], u[p], acc) in ascending p within a group (u: the stored value, for INT4
// vector columns w + 8), then total = fma(scale, fma(o', xsum, acc), total) with o' = offset (INT4
// vector columns: offset - 8). Segment width: wq_segment(m).
template <bool INT4>
void rows_kn(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
             const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy, float *scratch) {
  constexpr int KB = 8;  // rows of the weight per pass over the accumulators (8 sequential streams)
  const int64_t M = d.m, G = wq_groups(d), gr = d.group > 0 ? d.group : d.k, nc = wq_segment(M);
  // (2 * m + 2) * nc floats of the caller's workspace.
  float *base = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(scratch) + 31) & ~uintptr_t{31});
  float *acc[kWqStreamMaxM], *total[kWqStreamMaxM];
  for (int64_t i = 0; i < M; ++i) {
    acc[i] = base + i * nc;
    total[i] = base + (M + i) * nc;
  }
  float *sv = base + 2 * M * nc, *ov = sv + nc;
  const bool fold = d.has_offset || INT4;
  const int64_t rb = INT4 ? d.w_row / 2 : d.w_row;
  auto row_ptr = [&](int64_t p, int64_t j) { return w + (INT4 ? (p * d.w_row + j) >> 1 : p * d.w_row + j); };
  for (int64_t jc = n0; jc < n1; jc += nc) {
    const int64_t wd = std::min(nc, n1 - jc), wv = wd / 16 * 16;
    for (int64_t i = 0; i < M; ++i) std::fill(total[i], total[i] + wd, 0.0f);
    if (!d.has_offset)  // o' = -8 for the INT4 vector columns, else 0, in every group
      for (int64_t j = 0; j < wd; ++j) ov[j] = INT4 && j < wv ? -8.0f : 0.0f;
    for (int64_t g = 0; g < G; ++g) {
      for (int64_t i = 0; i < M; ++i) std::fill(acc[i], acc[i] + wd, 0.0f);
      const int64_t pe = std::min(d.k, (g + 1) * gr);
      int64_t p = g * gr;
      auto pass = [&](auto kbc) {
        constexpr int NB = decltype(kbc)::value;
        kn_pass_rows<NB, INT4>(d, x, row_ptr(p, jc), rb, p, wv, acc);
        for (int64_t j = wv; j < wd; ++j)
          for (int64_t i = 0; i < M; ++i) {
            float c = acc[i][j];
            for (int kk = 0; kk < NB; ++kk)
              c = std::fma(x[i * d.k + p + kk],
                           static_cast<float>(scalar_w(INT4, w, (p + kk) * d.w_row + jc + j)), c);
            acc[i][j] = c;
          }
        p += NB;
      };
      while (p + KB <= pe) pass(std::integral_constant<int, KB>{});
      while (p < pe) pass(std::integral_constant<int, 1>{});
      // Fold the group: total = fma(s, fma(o', xsum, acc), total), s and o' at the accumulator positions.
      for (int64_t j = 0; j < wv; j += 16) {
        load_cols16_kn<INT4>(scale, d.s_dtype, g * d.s_row + (jc + j) * d.s_col, d.s_col, sv + j);
        if (d.has_offset) {
          load_cols16_kn<INT4>(offset, d.o_dtype, g * d.o_row + (jc + j) * d.o_col, d.o_col, ov + j);
          if (INT4)
            for (int h = 0; h < 16; h += 8)
              _mm256_store_ps(ov + j + h, _mm256_sub_ps(_mm256_load_ps(ov + j + h), _mm256_set1_ps(8.0f)));
        }
      }
      for (int64_t j = wv; j < wd; ++j) {
        sv[j] = load_elem(scale, d.s_dtype, g * d.s_row + (jc + j) * d.s_col);
        if (d.has_offset) ov[j] = load_elem(offset, d.o_dtype, g * d.o_row + (jc + j) * d.o_col);
      }
      for (int64_t i = 0; i < M; ++i) {
        const float xs = xsum[i * G + g];
        const __m256 vxs = _mm256_set1_ps(xs);
        if constexpr (INT4)  // even lanes: acc_even + 16 acc_odd -> acc_even (load16_kn)
          for (int64_t j = 0; j < wv; j += 16)
            _mm256_store_ps(acc[i] + j, _mm256_fnmadd_ps(_mm256_set1_ps(16.0f), _mm256_load_ps(acc[i] + j + 8),
                                                         _mm256_load_ps(acc[i] + j)));
        int64_t j = 0;
        for (; j + 8 <= wd; j += 8) {
          __m256 a = _mm256_load_ps(acc[i] + j);
          if (fold) a = _mm256_fmadd_ps(_mm256_load_ps(ov + j), vxs, a);
          _mm256_store_ps(total[i] + j, _mm256_fmadd_ps(_mm256_load_ps(sv + j), a, _mm256_load_ps(total[i] + j)));
        }
        for (; j < wd; ++j) {
          float a = acc[i][j];
          if (fold) a = std::fma(ov[j], xs, a);
          total[i][j] = std::fma(sv[j], a, total[i][j]);
        }
      }
    }
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < wd; ++j) y32[i * ldy + jc + j] = total[i][acc_pos<INT4>(j, wv)];
  }
}

// Weight stored [N, K] (unit stride along K): each column is a dot product over its contiguous
// weight row; ROWS rows of x by JB columns at a time (ROWS x JB vector accumulators). Per element
// and group: acc = the group's full 16-element steps in 8 lanes (INT4, with u = w + 8:
// u_lo xe + u_hi xo computed as b' xe + u_hi (xo - 16 xe), b' = 16 u_hi + u_lo the sign-flipped
// byte, x split that way by wq_split_pairs; one masking op less per 16 weights), then
// total_v = fma(s, acc, total_v); the group's scalar tail t (group rows not a multiple of 16; INT4
// also as u) and the offset term go to total_s = fma(s, fma(o', xsum, t), total_s) with o' = offset
// (INT4: offset - 8). y = hsum(total_v) + total_s. Scales and offsets are read as vectors of JB
// columns once per group, so small groups (32) cost little.
template <int ROWS, int JB, bool INT4>
void nk_cols(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
             const void *offset, int64_t j0, float *y32, int64_t ldy) {
  const int64_t G = wq_groups(d), gr = d.group > 0 ? d.group : d.k, K = d.k;
  const uint8_t *col[JB];
  for (int c = 0; c < JB; ++c) col[c] = w + (INT4 ? (j0 + c) * d.w_col / 2 : (j0 + c) * d.w_col);
  __m256 tv[ROWS][JB], ts[ROWS];
  for (int i = 0; i < ROWS; ++i) {
    ts[i] = _mm256_setzero_ps();
    for (int c = 0; c < JB; ++c) tv[i][c] = _mm256_setzero_ps();
  }
  alignas(32) float sg[8] = {}, og[8] = {}, tail[ROWS][8] = {};  // lanes >= JB stay 0
  const __m256i flip = _mm256_set1_epi32(0x88);
  const __m256 vo_const = _mm256_set1_ps(INT4 ? -8.0f : 0.0f);  // o' = offset - 8 for INT4
  for (int64_t g = 0; g < G; ++g) {
    const int64_t p0 = g * gr, pe = std::min(K, p0 + gr), pv = p0 + (pe - p0) / 16 * 16;
    __m256 acc[ROWS][JB];
    for (int i = 0; i < ROWS; ++i)
      for (int c = 0; c < JB; ++c) acc[i][c] = _mm256_setzero_ps();
    for (int64_t p = p0; p < pv; p += 16) {
      __m256 xl[ROWS], xh[ROWS];
      for (int i = 0; i < ROWS; ++i) {
        xl[i] = _mm256_loadu_ps(x + i * K + p);
        xh[i] = _mm256_loadu_ps(x + i * K + p + 8);
      }
      for (int c = 0; c < JB; ++c) {
        __m256 lo, hi;
        if constexpr (INT4) {
          const __m256i b = _mm256_xor_si256(
              _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(col[c] + p / 2))), flip);
          // The whole flipped byte b' = 16 u_hi + u_lo against the even x, and u_hi against
          // (odd x - 16 even x): u_lo xe + u_hi xo without masking out u_lo.
          lo = _mm256_cvtepi32_ps(b);
          hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(b, 4));
        } else {
          lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(col[c] + p))));
          hi = _mm256_cvtepi32_ps(
              _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(col[c] + p + 8))));
        }
        for (int i = 0; i < ROWS; ++i) acc[i][c] = _mm256_fmadd_ps(xh[i], hi, _mm256_fmadd_ps(xl[i], lo, acc[i][c]));
      }
    }
    load_cols<JB>(scale, d.s_dtype, g * d.s_row + j0 * d.s_col, d.s_col, sg);
    __m256 vo = vo_const;
    if (d.has_offset) {
      load_cols<JB>(offset, d.o_dtype, g * d.o_row + j0 * d.o_col, d.o_col, og);
      vo = _mm256_add_ps(_mm256_load_ps(og), vo_const);
    }
    const bool has_tail = pv < pe;
    if (has_tail)
      for (int i = 0; i < ROWS; ++i)
        for (int c = 0; c < JB; ++c) {
          float t = 0.0f;
          for (int64_t q = pv; q < pe; ++q) {
            const int u = INT4 ? ((q & 1) ? col[c][q >> 1] >> 4 : col[c][q >> 1] & 15) ^ 8
                               : static_cast<int8_t>(col[c][q]);
            t = std::fma(x[i * K + q], static_cast<float>(u), t);
          }
          tail[i][c] = t;
        }
    const __m256 vs = _mm256_load_ps(sg);
    for (int i = 0; i < ROWS; ++i) {
      for (int c = 0; c < JB; ++c) tv[i][c] = _mm256_fmadd_ps(_mm256_set1_ps(sg[c]), acc[i][c], tv[i][c]);
      const __m256 t = has_tail ? _mm256_load_ps(tail[i]) : _mm256_setzero_ps();
      ts[i] = _mm256_fmadd_ps(vs, _mm256_fmadd_ps(vo, _mm256_set1_ps(xsum[i * G + g]), t), ts[i]);
    }
  }
  for (int i = 0; i < ROWS; ++i) {
    alignas(32) float t8[8];
    _mm256_store_ps(t8, ts[i]);
    for (int c = 0; c < JB; ++c) y32[i * ldy + j0 + c] = hsum(tv[i][c]) + t8[c];
  }
}

template <int ROWS, int JB, bool INT4>
void rows_nk(const WqDesc &d, const float *x, const float *xsum, const uint8_t *w, const void *scale,
             const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy) {
  int64_t j = n0;
  for (; j + JB <= n1; j += JB) nk_cols<ROWS, JB, INT4>(d, x, xsum, w, scale, offset, j, y32, ldy);
  for (; j < n1; ++j) nk_cols<ROWS, 1, INT4>(d, x, xsum, w, scale, offset, j, y32, ldy);
}

template <bool INT4>
bool dispatch(const WqDesc &d, const float *x, const float *xsplit, const float *xsum, const uint8_t *w,
              const void *scale, const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy,
              float *scratch) {
  if (d.w_col == 1 && (!INT4 || (d.w_row % 2 == 0 && n0 % 2 == 0))) {
    if (d.m < 1 || d.m > kWqStreamMaxM) return false;
    rows_kn<INT4>(d, x, xsum, w, scale, offset, n0, n1, y32, ldy, scratch);
    return true;
  }
  // INT4: every column and every group starts on a whole byte.
  const int64_t gr = d.group > 0 ? d.group : d.k;
  if (d.w_row == 1 && (!INT4 || (xsplit != nullptr && d.w_col % 2 == 0 && (gr % 2 == 0 || gr >= d.k)))) {
    const float *xs = INT4 ? xsplit : x;
    switch (d.m) {
      case 1: rows_nk<1, 8, INT4>(d, xs, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      // Wider column blocks share each x load more (m = 3: 4 columns measured 10-15 % faster than 2).
      case 2: rows_nk<2, 4, INT4>(d, xs, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      case 3: rows_nk<3, 4, INT4>(d, xs, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      case 4: rows_nk<4, 2, INT4>(d, xs, xsum, w, scale, offset, n0, n1, y32, ldy); return true;
      default: return false;
    }
  }
  return false;
}

}  // namespace

bool wq_dequant_panels_avx2(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t q0,
                            int64_t q1, float *dst) {
  if (d.w_col != 1 || (d.w_dtype == ACL_INT4 && d.w_row % 2 != 0)) return false;
  const bool int4 = d.w_dtype == ACL_INT4;
  const auto *wb = static_cast<const uint8_t *>(w);
  const int64_t gr = d.group > 0 ? d.group : d.k;
  alignas(32) float sv[16], ov[16];
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t j0 = q * 16, cols = std::min<int64_t>(16, d.n - j0);
    float *dq = dst + q * 16 * d.k;
    for (int64_t p = 0; p < d.k; ++p) {
      if (p % gr == 0) {
        const int64_t g = p / gr;
        for (int64_t c = 0; c < 16; ++c) {
          sv[c] = c < cols ? load_elem(scale, d.s_dtype, g * d.s_row + (j0 + c) * d.s_col) : 0.0f;
          ov[c] = c < cols && d.has_offset ? load_elem(offset, d.o_dtype, g * d.o_row + (j0 + c) * d.o_col) : 0.0f;
        }
      }
      if (cols == 16) {
        const int64_t e = p * d.w_row + j0;
        __m256 lo, hi;
        if (int4) load16<true>(wb + (e >> 1), lo, hi);
        else load16<false>(wb + e, lo, hi);
        _mm256_storeu_ps(dq + p * 16, _mm256_mul_ps(_mm256_add_ps(lo, _mm256_load_ps(ov)), _mm256_load_ps(sv)));
        _mm256_storeu_ps(dq + p * 16 + 8, _mm256_mul_ps(_mm256_add_ps(hi, _mm256_load_ps(ov + 8)), _mm256_load_ps(sv + 8)));
      } else {
        for (int64_t c = 0; c < 16; ++c)
          dq[p * 16 + c] = c < cols ? (static_cast<float>(scalar_w(int4, wb, p * d.w_row + j0 + c)) + ov[c]) * sv[c] : 0.0f;
      }
    }
  }
  return true;
}

namespace {

// 16 scale (or offset) values of group g for columns [j, j + cols) into out (zero past cols).
void load_group16(const void *base, aclDataType t, int64_t row, int64_t col, int64_t g, int64_t j, int64_t cols,
                  float *out) {
  const int64_t off = g * row + j * col;
  if (cols == 16 && col == 1) {
    switch (t) {
      case ACL_FLOAT16: {
        const auto *h = static_cast<const uint16_t *>(base) + off;
        _mm256_store_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h))));
        _mm256_store_ps(out + 8, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h + 8))));
        return;
      }
      case ACL_BF16: {
        const auto *h = static_cast<const uint16_t *>(base) + off;
        for (int c = 0; c < 16; c += 8) {
          const __m256i v = _mm256_slli_epi32(
              _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h + c))), 16);
          _mm256_store_ps(out + c, _mm256_castsi256_ps(v));
        }
        return;
      }
      default: {
        const float *f = static_cast<const float *>(base) + off;
        _mm256_store_ps(out, _mm256_loadu_ps(f));
        _mm256_store_ps(out + 8, _mm256_loadu_ps(f + 8));
        return;
      }
    }
  }
  for (int64_t c = 0; c < 16; ++c) out[c] = c < cols ? load_elem(base, t, g * row + (j + c) * col) : 0.0f;
}


// 8 consecutive weights along K of one column of a transposed ([N, K] storage) weight, as floats.
template <bool INT4>
inline __m256 load8_col(const uint8_t *w, int64_t e) {
  __m128i b;
  if constexpr (INT4) {
    uint32_t v;
    std::memcpy(&v, w + (e >> 1), 4);
    const __m128i raw = _mm_cvtsi32_si128(static_cast<int>(v));
    const __m128i m = _mm_set1_epi8(0x0F);
    const __m128i l = _mm_and_si128(raw, m), h = _mm_and_si128(_mm_srli_epi16(raw, 4), m);
    const __m128i eight = _mm_set1_epi8(8);
    b = _mm_sub_epi8(_mm_xor_si128(_mm_unpacklo_epi8(l, h), eight), eight);
  } else {
    b = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(w + e));
  }
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
}

// Rows [p, pe) of a 16-column piece, weight [K, N] with unit column stride: v = fma(u, s, os) with
// u the stored integer (INT4: the nibble with its sign bit flipped, u = w + 8 in [0, 15], and
// os = (o - 8) * s; INT8: os = o * s).
template <bool INT4>
void block_kn(const WqDesc &d, const uint8_t *wb, int64_t p, int64_t pe, int64_t p0, int64_t j, int64_t W,
              const float *sv, const float *osv, float *dq, int64_t pf) {
  const __m256 s0 = _mm256_load_ps(sv), s1 = _mm256_load_ps(sv + 8);
  const __m256 o0 = _mm256_load_ps(osv), o1 = _mm256_load_ps(osv + 8);
  const int64_t rb = INT4 ? d.w_row / 2 : d.w_row;  // bytes per weight row
  const uint8_t *src = wb + (INT4 ? (p * d.w_row + j) >> 1 : p * d.w_row + j);
  const __m128i mask = _mm_set1_epi8(0x0F), flip = _mm_set1_epi8(static_cast<char>(0x88));
  for (; p < pe; ++p, src += rb) {
    if (pf) _mm_prefetch(reinterpret_cast<const char *>(src + pf), _MM_HINT_T0);
    __m256i lo, hi;
    if constexpr (INT4) {
      const __m128i raw = _mm_xor_si128(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(src)), flip);
      const __m128i b = _mm_unpacklo_epi8(_mm_and_si128(raw, mask), _mm_and_si128(_mm_srli_epi16(raw, 4), mask));
      lo = _mm256_cvtepu8_epi32(b);
      hi = _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8));
    } else {
      lo = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(src)));
      hi = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(src + 8)));
    }
    float *o = dq + (p - p0) * W;
    _mm256_store_ps(o, _mm256_fmadd_ps(_mm256_cvtepi32_ps(lo), s0, o0));
    _mm256_store_ps(o + 8, _mm256_fmadd_ps(_mm256_cvtepi32_ps(hi), s1, o1));
  }
}

// Rows [p, pe) (p a multiple of 8 from p0, within one group) of a 16-column piece of a transposed
// weight: 8 x 8 tiles converted along K and transposed in registers.
template <bool INT4>
void block_nk(const WqDesc &d, const uint8_t *wb, int64_t p, int64_t pe, int64_t p0, int64_t j, int64_t W,
              const float *sv, const float *ov, float *dq) {
  for (; p + 8 <= pe; p += 8)
    for (int h = 0; h < 2; ++h) {
      __m256 r[8];
      for (int c = 0; c < 8; ++c) r[c] = load8_col<INT4>(wb, (j + h * 8 + c) * d.w_col + p);
      avx2::transpose8(r);
      const __m256 s = _mm256_load_ps(sv + h * 8), o = _mm256_load_ps(ov + h * 8);
      for (int q = 0; q < 8; ++q) _mm256_store_ps(dq + (p + q - p0) * W + h * 8, _mm256_mul_ps(_mm256_add_ps(r[q], o), s));
    }
  for (; p < pe; ++p)
    for (int c = 0; c < 16; ++c)
      dq[(p - p0) * W + c] = (static_cast<float>(scalar_w(INT4, wb, (j + c) * d.w_col + p)) + ov[c]) * sv[c];
}

}  // namespace

bool wq_dequant_block_avx2(const WqDesc &d, const void *w, const void *scale, const void *offset, int64_t p0,
                           int64_t kc, int64_t j0, int64_t W, float *dst, const WqPrefetch &pf) {
  const bool int4 = d.w_dtype == ACL_INT4;
  const bool kn = d.w_col == 1 && (!int4 || (d.w_row % 2 == 0 && j0 % 2 == 0));
  const bool nk = d.w_row == 1 && (!int4 || (d.w_col % 2 == 0 && p0 % 8 == 0));
  if (W % 16 != 0 || (!kn && !nk) || (reinterpret_cast<uintptr_t>(dst) & 31) != 0) return false;
  const auto *wb = static_cast<const uint8_t *>(w);
  const int64_t gr = d.group > 0 ? d.group : d.k, pe = p0 + kc;
  alignas(32) float sv[16], ov[16];
  for (int64_t c0 = 0; c0 < W; c0 += 16) {
    const int64_t j = j0 + c0, cols = std::clamp<int64_t>(d.n - j, 0, 16);
    float *dq = dst + c0;
    if (cols == 0) {
      for (int64_t p = 0; p < kc; ++p) {
        _mm256_store_ps(dq + p * W, _mm256_setzero_ps());
        _mm256_store_ps(dq + p * W + 8, _mm256_setzero_ps());
      }
      continue;
    }
    for (int64_t p = p0; p < pe;) {
      const int64_t g = p / gr, ge = std::min(pe, (g + 1) * gr);
      load_group16(scale, d.s_dtype, d.s_row, d.s_col, g, j, cols, sv);
      if (d.has_offset) load_group16(offset, d.o_dtype, d.o_row, d.o_col, g, j, cols, ov);
      else std::fill(ov, ov + 16, 0.0f);
      if (cols < 16) {
        for (; p < ge; ++p)
          for (int64_t c = 0; c < 16; ++c)
            dq[(p - p0) * W + c] =
                c < cols ? (static_cast<float>(scalar_w(int4, wb, p * d.w_row + (j + c) * d.w_col)) + ov[c]) * sv[c]
                         : 0.0f;
        continue;
      }
      if (kn) {
        alignas(32) float osv[16];
        for (int c = 0; c < 16; ++c) osv[c] = (ov[c] - (int4 ? 8.0f : 0.0f)) * sv[c];
        // Byte distance from this piece's rows to the line to prefetch (the same for every row).
        const int64_t line = int4 ? 128 : 64;  // columns per cache line
        int64_t delta = 0;                       // in nibbles for INT4
        if (j + line < pf.chunk_end) delta = line;
        else if (pf.next_col >= 0) delta = pf.next_rows * d.w_row + (pf.next_col - j);
        if (int4) block_kn<true>(d, wb, p, ge, p0, j, W, sv, osv, dq, delta / 2);
        else block_kn<false>(d, wb, p, ge, p0, j, W, sv, osv, dq, delta);
      } else {
        if (int4) block_nk<true>(d, wb, p, ge, p0, j, W, sv, ov, dq);
        else block_nk<false>(d, wb, p, ge, p0, j, W, sv, ov, dq);
      }
      p = ge;
    }
  }
  return true;
}

bool wq_small_m_avx2(const WqDesc &d, const float *x, const float *xsplit, const float *xsum, const void *w,
                     const void *scale, const void *offset, int64_t n0, int64_t n1, float *y32, int64_t ldy,
                     float *scratch) {
  const auto *wb = static_cast<const uint8_t *>(w);
  if (d.w_dtype == ACL_INT4) return dispatch<true>(d, x, xsplit, xsum, wb, scale, offset, n0, n1, y32, ldy, scratch);
  if (d.w_dtype == ACL_INT8) return dispatch<false>(d, x, xsplit, xsum, wb, scale, offset, n0, n1, y32, ldy, scratch);
  return false;
}

void wq_split_pairs(const WqDesc &d, const float *x, float *xsplit) {
  const int64_t G = wq_groups(d), gr = d.group > 0 ? d.group : d.k, K = d.k;
  for (int64_t i = 0; i < d.m; ++i) {
    const float *xi = x + i * K;
    float *oi = xsplit + i * K;
    std::copy(xi, xi + K, oi);
    for (int64_t g = 0; g < G; ++g) {
      const int64_t p0 = g * gr, pv = p0 + (std::min(K, p0 + gr) - p0) / 16 * 16;
      for (int64_t p = p0; p < pv; p += 16)
        for (int t = 0; t < 8; ++t) {
          oi[p + t] = xi[p + 2 * t];
          oi[p + 8 + t] = std::fma(-16.0f, xi[p + 2 * t], xi[p + 2 * t + 1]);
        }
    }
  }
}

}  // namespace opsnn::kernels::wq_detail

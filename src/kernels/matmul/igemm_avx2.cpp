// AVX2 int8 GEMM tiles: up to 6 rows x 16 columns over int16 k-pairs. Per pair step two B vectors
// (16 columns x 2 int16) and one 32-bit broadcast of A per row feed vpmaddwd (two exact products
// summed into an int32 lane) and vpaddd into 12 ymm accumulators. AVX2 has no int8 dot-product
// instruction that cannot saturate (vpmaddubsw saturates to int16), so the operands are widened to
// int16 when packed.
// Also here (AVX2 code the VNNI table shares): the packers of row-major A (and the k-quads of
// column-major A) and of B in either
// layout, and the small-M kernels that read B in place (dot products for [N, K], a row-pair stream
// for [K, N]).
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/matmul/avx2_transpose.h"
#include "kernels/matmul/igemm_tiles.h"

namespace opsnn::kernels::igemm_detail {
namespace {

constexpr int kMr = 6;
constexpr int kNr = 16;

template <int ROWS>
void tile_avx2(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc, bool accumulate) {
  __m256i acc0[ROWS], acc1[ROWS];
#pragma GCC unroll 6
  for (int i = 0; i < ROWS; ++i) acc0[i] = acc1[i] = _mm256_setzero_si256();
#pragma GCC unroll 2
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + 8));
#pragma GCC unroll 6
    for (int i = 0; i < ROWS; ++i) {
      const __m256i ai = _mm256_set1_epi32(static_cast<int>(a[i]));
      acc0[i] = _mm256_add_epi32(acc0[i], _mm256_madd_epi16(ai, b0));
      acc1[i] = _mm256_add_epi32(acc1[i], _mm256_madd_epi16(ai, b1));
    }
    a += kMr;
    b += kNr;
  }
#pragma GCC unroll 6
  for (int i = 0; i < ROWS; ++i) {
    __m256i *ci = reinterpret_cast<__m256i *>(c + i * ldc);
    if (accumulate) {
      acc0[i] = _mm256_add_epi32(acc0[i], _mm256_loadu_si256(ci));
      acc1[i] = _mm256_add_epi32(acc1[i], _mm256_loadu_si256(ci + 1));
    }
    _mm256_storeu_si256(ci, acc0[i]);
    _mm256_storeu_si256(ci + 1, acc1[i]);
  }
}

// ---- Packing B ----

inline __m256i load16_i16(const int8_t *p) {  // 16 int8 -> 16 int16
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}
inline void store8(uint32_t *p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i *>(p), v); }
// Sums of the four int8 of each 32-bit word.
inline __m256i quad_sums(__m256i v) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), v), _mm256_set1_epi16(1));
}
inline void add_colsum(int32_t *cs, __m256i v) {
  __m256i *p = reinterpret_cast<__m256i *>(cs);
  _mm256_storeu_si256(p, _mm256_add_epi32(_mm256_loadu_si256(p), quad_sums(v)));
}
// 8 x 8 transpose of 32-bit words (r[i]: row i in, column i out).
inline void transpose8_words(__m256i r[8]) {
  __m256 f[8];
  for (int i = 0; i < 8; ++i) f[i] = _mm256_castsi256_ps(r[i]);
  avx2::transpose8(f);
  for (int i = 0; i < 8; ++i) r[i] = _mm256_castps_si256(f[i]);
}

// [K, N] rows (unit column stride): groups [0, full) of `panels` whole panels (panel p at
// dst + p * pstride). Groups go outermost so each row of B is read as one sequential segment
// across the panels: for a wide B every row starts a new page at the same cache sets, so walking
// one panel down K would read 16 / 32 bytes per row and miss on every one.
void pack_rows(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t k0, int64_t full, int64_t panels,
               int64_t pstride, uint32_t *dst, int32_t *colsum) {
  for (int64_t g = 0; g < full; ++g) {
    const int8_t *r0 = b + (k0 + g * t.kgroup) * rs;
    if (t.kgroup == 2) {
      for (int64_t q = 0; q < panels; ++q) {
        const __m256i x0 = load16_i16(r0 + 16 * q), x1 = load16_i16(r0 + rs + 16 * q);
        const __m256i lo = _mm256_unpacklo_epi16(x0, x1), hi = _mm256_unpackhi_epi16(x0, x1);
        uint32_t *out = dst + q * pstride + g * 16;
        store8(out, _mm256_permute2x128_si256(lo, hi, 0x20));
        store8(out + 8, _mm256_permute2x128_si256(lo, hi, 0x31));
      }
      continue;
    }
    for (int64_t q = 0; q < panels; ++q) {  // 32 columns x 4 rows -> 32 quads
      const int8_t *r = r0 + 32 * q;
      const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(r));
      const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(r + rs));
      const __m256i x2 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(r + 2 * rs));
      const __m256i x3 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(r + 3 * rs));
      const __m256i t0 = _mm256_unpacklo_epi8(x0, x1), t1 = _mm256_unpackhi_epi8(x0, x1);
      const __m256i t2 = _mm256_unpacklo_epi8(x2, x3), t3 = _mm256_unpackhi_epi8(x2, x3);
      const __m256i q0 = _mm256_unpacklo_epi16(t0, t2), q1 = _mm256_unpackhi_epi16(t0, t2);
      const __m256i q2 = _mm256_unpacklo_epi16(t1, t3), q3 = _mm256_unpackhi_epi16(t1, t3);
      const __m256i o[4] = {_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q2, q3, 0x20),
                            _mm256_permute2x128_si256(q0, q1, 0x31), _mm256_permute2x128_si256(q2, q3, 0x31)};
      for (int v = 0; v < 4; ++v) {
        store8(dst + q * pstride + g * 32 + 8 * v, o[v]);
        if (t.a_biased) add_colsum(colsum + 32 * q + 8 * v, o[v]);
      }
    }
  }
}

// [N, K] columns (unit row stride): groups [0, full8) (a multiple of 8) of a whole panel, 8 columns
// x 8 groups at a time through a word transpose.
void pack_cols(const IgemmTiles &t, const int8_t *b, int64_t cs, int64_t k0, int64_t full8, uint32_t *panel,
               int32_t *colsum) {
  for (int j0 = 0; j0 < t.nr; j0 += 8)
    for (int64_t g0 = 0; g0 < full8; g0 += 8) {
      __m256i r[8];
      for (int j = 0; j < 8; ++j) {
        const int8_t *src = b + (j0 + j) * cs + k0 + g0 * t.kgroup;
        r[j] = t.kgroup == 2 ? load16_i16(src) : _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src));
      }
      transpose8_words(r);  // r[g]: group g0 + g of columns j0 .. j0 + 7
      for (int g = 0; g < 8; ++g) {
        store8(panel + (g0 + g) * t.nr + j0, r[g]);
        if (t.a_biased) add_colsum(colsum + j0, r[g]);
      }
    }
}

// ---- Small-M dot products, B [N, K] ----

inline int32_t hsum(__m256i v) {
  const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  return _mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1)));
}

// ROWS rows of A against COLS columns of B at a time, 16 k per step widened to int16 for vpmaddwd.
template <int ROWS, int COLS>
void dot_block(int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int32_t *c, int64_t ldc) {
  __m256i acc[ROWS][COLS];
  for (int i = 0; i < ROWS; ++i)
    for (int q = 0; q < COLS; ++q) acc[i][q] = _mm256_setzero_si256();
  const int64_t kv = k / 16 * 16;
  for (int64_t p = 0; p < kv; p += 16) {
    __m256i bv[COLS];
    for (int q = 0; q < COLS; ++q) bv[q] = load16_i16(b + q * ldb + p);
    for (int i = 0; i < ROWS; ++i) {
      const __m256i av = load16_i16(a + i * lda + p);
      for (int q = 0; q < COLS; ++q) acc[i][q] = _mm256_add_epi32(acc[i][q], _mm256_madd_epi16(av, bv[q]));
    }
  }
  for (int i = 0; i < ROWS; ++i)
    for (int q = 0; q < COLS; ++q) c[i * ldc + q] = dot_tail(hsum(acc[i][q]), a + i * lda, b + q * ldb, kv, k);
}

void dot_avx2(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
              int32_t *c, int64_t ldc) {
  // Rows 3-4: two columns at a time keep the accumulators and B vectors within 16 ymm.
  dot_columns<4, 2>(rows, cols, [&](auto r, auto q, int64_t j) {
    dot_block<decltype(r)::value, decltype(q)::value>(k, a, lda, b + j * ldb, ldb, c + j, ldc);
  });
}

// ---- Small-M streaming, B [K, N] ----

constexpr int64_t kStreamKb = 256;  // rows of B per block (the pair words of A for them on the stack)
constexpr int64_t kStreamPairs = 4; // row pairs per pass over the columns

// The pair words of A's k [k0, k0 + kb) for `rows` rows (an odd kb pads the last pair with zero).
void pair_words(int rows, const int8_t *a, int64_t lda, int64_t k0, int64_t kb, uint32_t (*ap)[kStreamKb / 2]) {
  const int64_t np = (kb + 1) / 2;
  for (int i = 0; i < rows; ++i)
    for (int64_t p = 0; p < np; ++p) {
      const int8_t lo = a[i * lda + k0 + 2 * p], hi = 2 * p + 1 < kb ? a[i * lda + k0 + 2 * p + 1] : 0;
      ap[i][p] = static_cast<uint16_t>(static_cast<int16_t>(lo)) |
                 static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16;
    }
}

// The end of a stream: each 16 columns back in order from {0-3, 8-11, 4-7, 12-15}, and the columns
// past the last 16 one element at a time.
void finish_stream(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
                   int32_t *c, int64_t ldc) {
  const int64_t full = cols / 16 * 16;
  for (int i = 0; i < rows; ++i)
    for (int64_t j = 0; j < full; j += 16) {
      __m256i *v = reinterpret_cast<__m256i *>(c + i * ldc + j);
      const __m256i x = _mm256_loadu_si256(v), y = _mm256_loadu_si256(v + 1);
      _mm256_storeu_si256(v, _mm256_permute2x128_si256(x, y, 0x20));
      _mm256_storeu_si256(v + 1, _mm256_permute2x128_si256(x, y, 0x31));
    }
  for (int i = 0; i < rows; ++i)
    for (int64_t j = full; j < cols; ++j) {
      uint32_t acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += static_cast<uint32_t>(static_cast<int32_t>(a[i * lda + p]) * b[p * ldb + j]);
      c[i * ldc + j] = static_cast<int32_t>(acc);
    }
}

// Every pass reads kStreamPairs row pairs of B across all `cols` (long sequential row segments: a
// wide [K, N] weight starts each row on a new page and at the same cache sets, so narrow column
// strips going down K would thrash the caches), accumulating into c. Unpacking rows p and p+1
// interleaves columns within 128-bit lanes, so c holds each 16 columns as {0-3, 8-11, 4-7, 12-15}
// until the end, when one lane swap restores the order.
template <int ROWS>
void stream_rows(int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols, int32_t *c,
                 int64_t ldc) {
  uint32_t ap[ROWS][kStreamKb / 2];
  const int64_t full = cols / 16 * 16;
  for (int i = 0; i < ROWS; ++i)
    for (int64_t j = 0; j < full; ++j) c[i * ldc + j] = 0;
  for (int64_t k0 = 0; k0 < k; k0 += kStreamKb) {
    const int64_t kb = std::min(kStreamKb, k - k0), np = (kb + 1) / 2;
    pair_words(ROWS, a, lda, k0, kb, ap);
    for (int64_t p0 = 0; p0 < np; p0 += kStreamPairs) {
      const int64_t pn = std::min(kStreamPairs, np - p0);
      const int8_t *rows = b + (k0 + 2 * p0) * ldb;
      const int64_t valid_rows = std::min<int64_t>(2 * pn, kb - 2 * p0);  // an odd K leaves a single row
      for (int64_t j = 0; j < full; j += 16) {
        __m256i acc[ROWS][2];
        for (int i = 0; i < ROWS; ++i) {
          acc[i][0] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(c + i * ldc + j));
          acc[i][1] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(c + i * ldc + j + 8));
        }
        for (int64_t q = 0; q < pn; ++q) {
          const int8_t *r = rows + 2 * q * ldb + j;
          const __m256i e = load16_i16(r);
          const __m256i o = 2 * q + 1 < valid_rows ? load16_i16(r + ldb) : _mm256_setzero_si256();
          const __m256i x0 = _mm256_unpacklo_epi16(e, o), x1 = _mm256_unpackhi_epi16(e, o);
          for (int i = 0; i < ROWS; ++i) {
            const __m256i ai = _mm256_set1_epi32(static_cast<int>(ap[i][p0 + q]));
            acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(ai, x0));
            acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(ai, x1));
          }
        }
        for (int i = 0; i < ROWS; ++i) {
          _mm256_storeu_si256(reinterpret_cast<__m256i *>(c + i * ldc + j), acc[i][0]);
          _mm256_storeu_si256(reinterpret_cast<__m256i *>(c + i * ldc + j + 8), acc[i][1]);
        }
      }
    }
  }
  finish_stream(ROWS, k, a, lda, b, ldb, cols, c, ldc);
}

// The same stream for 5..kStreamMaxRows rows of A: the row pairs of a pass are widened and
// interleaved once per 16 columns and kept in registers while every row of A passes over them
// (its two accumulator vectors loaded and stored once per pass), so B is still read once.
void stream_rows_many(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
                      int32_t *c, int64_t ldc) {
  uint32_t ap[kStreamMaxRows][kStreamKb / 2];
  const int64_t full = cols / 16 * 16;
  for (int i = 0; i < rows; ++i)
    for (int64_t j = 0; j < full; ++j) c[i * ldc + j] = 0;
  for (int64_t k0 = 0; k0 < k; k0 += kStreamKb) {
    const int64_t kb = std::min(kStreamKb, k - k0), np = (kb + 1) / 2;
    pair_words(rows, a, lda, k0, kb, ap);
    for (int64_t p0 = 0; p0 < np; p0 += kStreamPairs) {
      const int64_t pn = std::min(kStreamPairs, np - p0);
      const int8_t *rows_b = b + (k0 + 2 * p0) * ldb;
      const int64_t valid_rows = std::min<int64_t>(2 * pn, kb - 2 * p0);
      for (int64_t j = 0; j < full; j += 16) {
        __m256i x0[kStreamPairs], x1[kStreamPairs];
        for (int64_t q = 0; q < kStreamPairs; ++q) {
          if (q < pn) {
            const int8_t *r = rows_b + 2 * q * ldb + j;
            const __m256i e = load16_i16(r);
            const __m256i o = 2 * q + 1 < valid_rows ? load16_i16(r + ldb) : _mm256_setzero_si256();
            x0[q] = _mm256_unpacklo_epi16(e, o);
            x1[q] = _mm256_unpackhi_epi16(e, o);
          } else {
            x0[q] = x1[q] = _mm256_setzero_si256();  // a short last pass multiplies zeros
          }
        }
        for (int i = 0; i < rows; ++i) {
          __m256i *ci = reinterpret_cast<__m256i *>(c + i * ldc + j);
          __m256i acc0 = _mm256_loadu_si256(ci), acc1 = _mm256_loadu_si256(ci + 1);
          const uint32_t *api = ap[i] + p0;
          for (int64_t q = 0; q < kStreamPairs; ++q) {
            const __m256i ai = _mm256_set1_epi32(static_cast<int>(q < pn ? api[q] : 0));
            acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(ai, x0[q]));
            acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(ai, x1[q]));
          }
          _mm256_storeu_si256(ci, acc0);
          _mm256_storeu_si256(ci + 1, acc1);
        }
      }
    }
  }
  finish_stream(rows, k, a, lda, b, ldb, cols, c, ldc);
}

}  // namespace

namespace {

// `n` (4 or 8) int8 of one A column (rows contiguous), biased when asked.
inline __m128i load_col(const int8_t *p, int n, bool biased) {
  __m128i v;
  if (n == 8) {
    v = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(p));
  } else {
    int32_t w;
    std::memcpy(&w, p, 4);
    v = _mm_cvtsi32_si128(w);
  }
  return biased ? _mm_xor_si128(v, _mm_set1_epi8(static_cast<char>(0x80))) : v;
}

// A stored column-major (rows contiguous along M, e.g. the convolution's im2col columns read as
// cols^T): each k-quad of a panel is four columns' mr bytes interleaved into mr words, 8 or 4 rows
// at a time by byte / word unpacks. Groups 0 .. kc / 4 - 1 (all four k inside the block) of full
// panels with mr a multiple of 4. (The element-by-element packer took 60 % of QuantConvolution's
// time on 64x56x56 k3.)
void pack_a_quads_col_major(const IgemmTiles &t, const int8_t *a, int64_t cs, int64_t k0, int64_t groups,
                            uint32_t *dst) {
  for (int64_t g = 0; g < groups; ++g) {
    const int8_t *c0 = a + (k0 + 4 * g) * cs;
    uint32_t *out = dst + g * t.mr_max;
    for (int i = 0; i < t.mr_max;) {
      const int n = t.mr_max - i >= 8 ? 8 : 4;
      const __m128i x0 = load_col(c0 + i, n, t.a_biased), x1 = load_col(c0 + cs + i, n, t.a_biased);
      const __m128i x2 = load_col(c0 + 2 * cs + i, n, t.a_biased), x3 = load_col(c0 + 3 * cs + i, n, t.a_biased);
      const __m128i p01 = _mm_unpacklo_epi8(x0, x1), p23 = _mm_unpacklo_epi8(x2, x3);
      _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i), _mm_unpacklo_epi16(p01, p23));
      if (n == 8) _mm_storeu_si128(reinterpret_cast<__m128i *>(out + i + 4), _mm_unpackhi_epi16(p01, p23));
      i += n;
    }
  }
}

}  // namespace

void pack_a_avx2(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0, int64_t kc,
                 uint32_t *dst) {
  const int64_t groups = (kc + t.kgroup - 1) / t.kgroup, chunked = kc / t.kgroup / 8 * 8;
  const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80));
  for (int64_t r0 = 0; r0 < rows; r0 += t.mr_max, dst += groups * t.mr_max) {
    const int64_t rn = std::min<int64_t>(t.mr_max, rows - r0);
    const int8_t *ap = a + r0 * rs;
    int64_t done = 0;
    if (cs == 1 && rn == t.mr_max) {
      for (int64_t g0 = 0; g0 < chunked; g0 += 8)
        for (int s0 = 0; s0 < t.mr_max; s0 += 8) {  // rows s0 .. s0 + 7 of the panel
          const int n = std::min(8, t.mr_max - s0);
          __m256i r[8];
          for (int i = 0; i < 8; ++i) {
            const int8_t *src = ap + (s0 + i) * rs + k0 + g0 * t.kgroup;
            if (i >= n) r[i] = _mm256_setzero_si256();
            else if (t.kgroup == 2) r[i] = load16_i16(src);
            else if (t.a_biased) r[i] = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(src)), bias);
            else r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(src));
          }
          transpose8_words(r);  // r[g]: group g0 + g of the 8 rows
          const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
          for (int g = 0; g < 8; ++g)
            _mm256_maskstore_epi32(reinterpret_cast<int *>(dst + (g0 + g) * t.mr_max + s0), mask, r[g]);
        }
      done = chunked;
    } else if (rs == 1 && t.kgroup == 4 && rn == t.mr_max && t.mr_max % 4 == 0) {
      done = kc / 4;
      pack_a_quads_col_major(t, ap, cs, k0, done, dst);
    }
    pack_a_groups(t, ap, rs, cs, rn, k0, kc, done, groups, dst);
  }
}

void stream_avx2(int rows, int64_t k, const int8_t *a, int64_t lda, const int8_t *b, int64_t ldb, int64_t cols,
                 int32_t *c, int64_t ldc) {
  if (rows > kDotMaxRows) return stream_rows_many(rows, k, a, lda, b, ldb, cols, c, ldc);
  with_rows(rows, [&](auto r) { stream_rows<decltype(r)::value>(k, a, lda, b, ldb, cols, c, ldc); });
}

void pack_b_avx2(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t cols, int64_t k0, int64_t kc,
                 uint32_t *dst, int32_t *colsum) {
  const int64_t groups = (kc + t.kgroup - 1) / t.kgroup, full = kc / t.kgroup;
  const int64_t whole = cols / t.nr;  // panels with nr valid columns
  if (cs == 1) pack_rows(t, b, rs, k0, full, whole, groups * t.nr, dst, colsum);
  for (int64_t c0 = 0; c0 < cols; c0 += t.nr, dst += groups * t.nr) {
    const int64_t w = std::min<int64_t>(t.nr, cols - c0);
    int64_t done = 0;
    if (w == t.nr && cs == 1) {
      done = full;
    } else if (w == t.nr && rs == 1) {
      done = full / 8 * 8;
      pack_cols(t, b + c0 * cs, cs, k0, done, dst, colsum + c0);
    }
    pack_b_groups(t, b, rs, cs, c0, w, k0, kc, done, groups, dst, colsum);
  }
}

constexpr IgemmTiles kIgemmAvx2Tiles = {
    kMr, kNr, 2,
    {nullptr, &tile_avx2<1>, &tile_avx2<2>, &tile_avx2<3>, &tile_avx2<4>, &tile_avx2<5>, &tile_avx2<6>},
    &pack_b_avx2, &dot_avx2, &stream_avx2, &pack_a_avx2, false, kStreamMaxRows};

}  // namespace opsnn::kernels::igemm_detail

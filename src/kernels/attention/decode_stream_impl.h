// The streaming decode pieces of AttnRowFns (attention_rows.h): the scores of a group of query
// heads against a run of key rows, and P.V accumulated from a run of value rows. Each key / value
// row is read once for all the heads of the group (they sit in registers), so decode is one pass
// over the KV cache. Written on vec.h's 64-byte vectors, compiled once per ISA tier; the order of
// every sum is fixed (a tree of lanes), so results depend on neither the thread count nor the run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__F16C__) || defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "common/half.h"
#include "kernels/simd/vec.h"
#if defined(OPSNN_ATTN_ROWS_BF16DP)
#include "kernels/simd/avx512_intrinsics.h"
#endif

namespace opsnn::kernels::attn_rows_impl {
namespace {

using vec::f32v;
using vec::i32v;
using vec::kF32;
// Rows ahead a key / value row is prefetched: the rows of one KV head follow each other in memory,
// but a tile reads 4-16 of them side by side, which the hardware prefetchers follow late.
constexpr int64_t kPrefetchRows = 32;

inline void store(float *p, const f32v &v) { std::memcpy(p, &v, sizeof v); }
// x in every lane: a plain broadcast (vec::splat's 0 + x keeps a scalar add, which -0 needs).
inline f32v bcast(float x) { return x - f32v{}; }

// Key / value elements as stored: FLOAT, or BF16 / FLOAT16 bits widened in registers as they load
// (no converted copy of the cache).
struct Bf16 {
  uint16_t bits;
};
struct F16 {
  uint16_t bits;
};
inline float to_float(float x) { return x; }
inline float to_float(Bf16 x) {
  const uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline float to_float(F16 x) { return half_to_float(x.bits); }

inline f32v load16(const float *p) { return vec::load(p); }
inline f32v load16(const Bf16 *p) {
  f32v r;
#if defined(__AVX512F__)
  // One widening load and a shift (the generic form below becomes two half-width widenings); the
  // zero-masked forms as for FLOAT16 below.
  const __m512i w = _mm512_maskz_slli_epi32(
      0xFFFF, _mm512_maskz_cvtepu16_epi32(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p))), 16);
  std::memcpy(&r, &w, sizeof r);
#elif defined(__AVX2__)
  const __m256i lo = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p))), 16);
  const __m256i hi =
      _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 8))), 16);
  std::memcpy(&r, &lo, 32);
  std::memcpy(reinterpret_cast<char *>(&r) + 32, &hi, 32);
#else
  using u16v = uint16_t __attribute__((vector_size(32)));
  u16v h;
  std::memcpy(&h, p, sizeof h);
  const i32v w = __builtin_convertvector(h, i32v) << 16;
  std::memcpy(&r, &w, sizeof r);
#endif
  return r;
}
inline f32v load16(const F16 *p) {
  f32v r;
#if defined(__AVX512F__)
  // (the zero-masked form: GCC 12 warns about the undefined source of the plain one)
  const __m512 x = _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
  std::memcpy(&r, &x, sizeof r);
#elif defined(__F16C__)
  const __m256 lo = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
  const __m256 hi = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 8)));
  std::memcpy(&r, &lo, 32);
  std::memcpy(reinterpret_cast<char *>(&r) + 32, &hi, 32);
#else
  for (int i = 0; i < 16; ++i) r[i] = half_to_float(p[i].bits);
#endif
  return r;
}

// Lane i of the result = the sum of a[i]'s 16 lanes. Four levels, each folding one lane bit of a
// pair of vectors x, y into one: a blend (x's lanes where the bit is 0, y's where it is 1) plus the
// same pair with those halves swapped, so a level costs one shuffle, one blend and one add where
// taking the halves of each source apart costs two shuffles. The levels with the most pairs fold
// the bits whose swap is one in-lane or 128-bit-block shuffle (bit 3: vshuff32x4, bit 1: vshufps);
// the sums end in lane 8 b0 + 4 b2 + 2 b1 + b3 of accumulator b3 b2 b1 b0, put back in order by one
// permute. The order of every sum is fixed (thread count and run never change a result).
#define OPSNN_PAIR(x, y, ...) (__builtin_shufflevector(x, y, __VA_ARGS__))
// x where bit B of the lane index is 0, y where it is 1 (a blend, not a shuffle).
template <int B>
inline __attribute__((always_inline)) f32v pick(const f32v &x, const f32v &y) {
  const i32v bit = (i32v{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15} >> B) & 1;
  return bit != 0 ? y : x;
}
inline __attribute__((always_inline)) f32v hsum16(const f32v (&a)[16]) {
  f32v t[8], u[4], w[2];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i)  // lane bit 3 (256-bit halves)
    t[i] = pick<3>(a[2 * i], a[2 * i + 1]) +
           OPSNN_PAIR(a[2 * i], a[2 * i + 1], 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)  // lane bit 1 (64-bit halves of each 128-bit block)
    u[i] = pick<1>(t[2 * i], t[2 * i + 1]) +
           OPSNN_PAIR(t[2 * i], t[2 * i + 1], 2, 3, 16, 17, 6, 7, 20, 21, 10, 11, 24, 25, 14, 15, 28, 29);
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i)  // lane bit 2 (128-bit blocks)
    w[i] = pick<2>(u[2 * i], u[2 * i + 1]) +
           OPSNN_PAIR(u[2 * i], u[2 * i + 1], 4, 5, 6, 7, 16, 17, 18, 19, 12, 13, 14, 15, 24, 25, 26, 27);
  const f32v r = pick<0>(w[0], w[1]) +  // lane bit 0
                 OPSNN_PAIR(w[0], w[1], 1, 16, 3, 18, 5, 20, 7, 22, 9, 24, 11, 26, 13, 28, 15, 30);
  return OPSNN_PAIR(r, r, 0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7, 15);
}
#undef OPSNN_PAIR

// Where a tile's scores go: s[g * lds + j] = scale * (q[g] . k[j]).
struct ScoreOut {
  float *s;
  int64_t lds;
  float scale;
};

// A tile at the edge (keys past n, or columns past D's last whole vector): the sums of the
// accumulators plus those columns, stored key by key (keys past n were repeats of the last one).
template <int HK, class E>
__attribute__((noinline)) void store_scores_edge(const float (&r)[16], const float *q, int64_t D, int64_t Dv,
                                                 const E *const (&kr)[16 / HK], int64_t n, int64_t j0, int64_t g0,
                                                 const ScoreOut &o) {
  constexpr int KK = 16 / HK;
  for (int h = 0; h < HK; ++h)
    for (int j = 0; j < KK && j0 + j < n; ++j) {
      float x = r[h * KK + j];
      for (int64_t c = Dv; c < D; ++c) x += q[(g0 + h) * D + c] * to_float(kr[j][c]);
      o.s[(g0 + h) * o.lds + j0 + j] = x * o.scale;
    }
}

// A tile's 16 dot products (accumulator h * KK + j: head g0 + h, key j0 + j), scaled, into the
// scores: KK consecutive keys of a head are one store. Keys past n (repeats of the last one) and
// columns past D's last whole vector (Dv < D) go the edge way.
template <int HK, class E>
inline __attribute__((always_inline)) void store_scores(const f32v (&acc)[16], const float *q, int64_t D, int64_t Dv,
                                                        const E *const (&kr)[16 / HK], int64_t n, int64_t j0,
                                                        int64_t g0, const ScoreOut &o) {
  constexpr int KK = 16 / HK;
  const f32v sums = hsum16(acc);
  if (j0 + KK <= n && Dv == D) {
    const f32v r = sums * bcast(o.scale);
#pragma GCC unroll 16
    for (int h = 0; h < HK; ++h)
      std::memcpy(o.s + (g0 + h) * o.lds + j0, reinterpret_cast<const float *>(&r) + h * KK, KK * sizeof(float));
    return;
  }
  float r[16];
  store(r, sums);
  store_scores_edge<HK>(r, q, D, Dv, kr, n, j0, g0, o);
}

// Scores of HK heads x (16 / HK) keys: 16 accumulators, one key load feeding HK heads. Inlined in
// the tile loop (the row addresses and the call cost as much as a reduction otherwise).
template <int HK, class E>
inline __attribute__((always_inline)) void qk_tile(const float *q, int64_t D, const E *k, int64_t ks, int64_t n,
                                                   int64_t j0, int64_t g0, const ScoreOut &o) {
  constexpr int KK = 16 / HK;
  const int64_t Dv = D / kF32 * kF32;
  const E *kr[KK];
#pragma GCC unroll 16
  for (int j = 0; j < KK; ++j) kr[j] = k + std::min<int64_t>(j0 + j, n - 1) * ks;  // past n: a repeat, dropped
  f32v acc[16];
#pragma GCC unroll 16
  for (f32v &a : acc) a = f32v{};
  for (int64_t c = 0; c < Dv; c += kF32) {
    f32v kv[KK];
#pragma GCC unroll 16
    for (int j = 0; j < KK; ++j) {
      // One hint per 64-byte line; past the end of the cache: a hint, never a fault.
      if (c * static_cast<int64_t>(sizeof(E)) % 64 == 0) __builtin_prefetch(kr[j] + c + kPrefetchRows * ks);
      kv[j] = load16(kr[j] + c);
    }
#pragma GCC unroll 16
    for (int h = 0; h < HK; ++h) {
      const f32v qv = vec::load(q + (g0 + h) * D + c);
#pragma GCC unroll 16
      for (int j = 0; j < KK; ++j) acc[h * KK + j] += qv * kv[j];
    }
  }
  store_scores<HK>(acc, q, D, Dv, kr, n, j0, g0, o);
}

#if defined(OPSNN_ATTN_ROWS_BF16DP)
// BF16 keys on AVX512_BF16 hardware (the avx512bf16 unit): vdpbf16ps takes each key row as stored
// and the query as bf16, two products per fp32 lane (a product of two bf16 is exact; bf16 denormals
// count as 0), so a key row costs neither a widening nor more than half the FMAs. A BF16 key means
// a BF16 query (phase 1 checks it), which q holds unscaled, so its bf16 copy is exact and the scores
// are as accurate as fp32 FMAs (scale applied to the sums). FLOAT16 and FLOAT keys keep fp32 FMAs.
constexpr int64_t kDpQuery = 8192;  // query elements (G x D) the bf16 copy on the stack holds

inline __m512bh as_bh(const void *p) {
  const __m512i x = _mm512_loadu_si512(p);
  __m512bh r;
  std::memcpy(&r, &x, sizeof r);
  return r;
}
inline f32v dp(f32v acc, __m512bh a, __m512bh b) {
  __m512 x;
  std::memcpy(&x, &acc, sizeof x);
  x = _mm512_dpbf16_ps(x, a, b);
  std::memcpy(&acc, &x, sizeof x);
  return acc;
}

// qk_tile on vdpbf16ps: 32 bf16 (one 64-byte line of each key row) per step; D % 32 == 0.
template <int HK>
inline __attribute__((always_inline)) void qk_tile_dp(const uint16_t *qb, int64_t D, const Bf16 *k, int64_t ks, int64_t n, int64_t j0, int64_t g0,
                const ScoreOut &o) {
  constexpr int KK = 16 / HK;
  const Bf16 *kr[KK];
#pragma GCC unroll 16
  for (int j = 0; j < KK; ++j) kr[j] = k + std::min<int64_t>(j0 + j, n - 1) * ks;  // past n: a repeat, dropped
  f32v acc[16];
#pragma GCC unroll 16
  for (f32v &a : acc) a = f32v{};
  for (int64_t c = 0; c < D; c += 2 * kF32) {
    __m512bh kv[KK];
#pragma GCC unroll 16
    for (int j = 0; j < KK; ++j) {
      __builtin_prefetch(kr[j] + c + kPrefetchRows * ks);
      kv[j] = as_bh(kr[j] + c);
    }
#pragma GCC unroll 16
    for (int h = 0; h < HK; ++h) {
      const __m512bh qv = as_bh(qb + (g0 + h) * D + c);
#pragma GCC unroll 16
      for (int j = 0; j < KK; ++j) acc[h * KK + j] = dp(acc[h * KK + j], qv, kv[j]);
    }
  }
  store_scores<HK>(acc, static_cast<const float *>(nullptr), D, D, kr, n, j0, g0, o);
}

template <int HK>
void qk_heads_dp(const uint16_t *qb, int64_t G, int64_t D, const Bf16 *k, int64_t ks, int64_t n,
                 const ScoreOut &o) {
  for (int64_t j0 = 0; j0 < n; j0 += 16 / HK)
    for (int64_t g0 = 0; g0 < G; g0 += HK) qk_tile_dp<HK>(qb, D, k, ks, n, j0, g0, o);
}

// True when it took the keys (else the fp32 path does).
bool qk_bf16_dp(const float *q, int64_t G, int64_t D, const Bf16 *k, int64_t ks, int64_t n, const ScoreOut &o) {
  if (D % (2 * kF32) != 0 || G * D > kDpQuery) return false;
  alignas(64) uint16_t qb[kDpQuery];
  for (int64_t i = 0; i < G * D; ++i) qb[i] = float_to_bf16(q[i]);
  if (G % 4 == 0) {
    qk_heads_dp<4>(qb, G, D, k, ks, n, o);
  } else if (G % 2 == 0) {
    qk_heads_dp<2>(qb, G, D, k, ks, n, o);
  } else {
    qk_heads_dp<1>(qb, G, D, k, ks, n, o);
  }
  return true;
}
#endif

template <int HK, class E>
void qk_heads(const float *q, int64_t G, int64_t D, const E *k, int64_t ks, int64_t n, const ScoreOut &o) {
  constexpr int KK = 16 / HK;
  for (int64_t j0 = 0; j0 < n; j0 += KK)  // keys outer: a key row comes from memory once, for every head
    for (int64_t g0 = 0; g0 < G; g0 += HK) qk_tile<HK>(q, D, k, ks, n, j0, g0, o);
}

template <class E>
void qk_typed(const float *q, int64_t G, int64_t D, const E *k, int64_t ks, int64_t n, const ScoreOut &o) {
  if (G % 4 == 0) return qk_heads<4>(q, G, D, k, ks, n, o);
  if (G % 2 == 0) return qk_heads<2>(q, G, D, k, ks, n, o);
  qk_heads<1>(q, G, D, k, ks, n, o);
}

void qk(const float *q, int64_t G, int64_t D, float scale, const void *k, AttnKv kt, int64_t ks, int64_t n, float *s,
        int64_t lds) {
  if (n <= 0) return;
  const ScoreOut o{s, lds, scale};
#if defined(OPSNN_ATTN_ROWS_BF16DP)
  if (kt == AttnKv::kBf16 && qk_bf16_dp(q, G, D, static_cast<const Bf16 *>(k), ks, n, o)) return;
#endif
  if (kt == AttnKv::kBf16) return qk_typed(q, G, D, static_cast<const Bf16 *>(k), ks, n, o);
  if (kt == AttnKv::kF16) return qk_typed(q, G, D, static_cast<const F16 *>(k), ks, n, o);
  qk_typed(q, G, D, static_cast<const float *>(k), ks, n, o);
}

// o[h][c0, c0 + 16 DC) += sum_j p[h][j] v[j][...] for HK heads from g0: HK x DC accumulators; the
// first column pass prefetches (the whole rows, so the next passes find them in cache).
template <int HK, int DC, class E>
void pv_cols(const float *p, int64_t ldp, int64_t g0, int64_t n, const E *v, int64_t vs, int64_t c0, float *o,
             int64_t D, bool prefetch) {
  f32v acc[HK][DC];
#pragma GCC unroll 4
  for (int h = 0; h < HK; ++h)
#pragma GCC unroll 8
    for (int d = 0; d < DC; ++d) acc[h][d] = vec::load(o + (g0 + h) * D + c0 + d * kF32);
  for (int64_t j = 0; j < n; ++j) {
    f32v vv[DC];
    if (prefetch)  // the whole row ahead, one hint per 64-byte line (the later column passes read it from cache)
      for (int64_t b = 0; b < D * static_cast<int64_t>(sizeof(E)); b += 64)
        __builtin_prefetch(reinterpret_cast<const char *>(v + (j + kPrefetchRows) * vs) + b);
#pragma GCC unroll 8
    for (int d = 0; d < DC; ++d) vv[d] = load16(v + j * vs + c0 + d * kF32);
#pragma GCC unroll 4
    for (int h = 0; h < HK; ++h) {
      const f32v pj = bcast(p[(g0 + h) * ldp + j]);
#pragma GCC unroll 8
      for (int d = 0; d < DC; ++d) acc[h][d] += pj * vv[d];
    }
  }
#pragma GCC unroll 4
  for (int h = 0; h < HK; ++h)
#pragma GCC unroll 8
    for (int d = 0; d < DC; ++d) store(o + (g0 + h) * D + c0 + d * kF32, acc[h][d]);
}

template <int HK, class E>
void pv_heads(const float *p, int64_t ldp, int64_t G, int64_t n, const E *v, int64_t vs, int64_t D, float *o) {
  const int64_t Dv = D / kF32 * kF32;
  for (int64_t g0 = 0; g0 < G; g0 += HK) {
    int64_t c = 0;
    if constexpr (HK <= 2)
      for (; c + 8 * kF32 <= Dv; c += 8 * kF32) pv_cols<HK, 8>(p, ldp, g0, n, v, vs, c, o, D, g0 == 0 && c == 0);
    for (; c + 4 * kF32 <= Dv; c += 4 * kF32) pv_cols<HK, 4>(p, ldp, g0, n, v, vs, c, o, D, g0 == 0 && c == 0);
    for (; c < Dv; c += kF32) pv_cols<HK, 1>(p, ldp, g0, n, v, vs, c, o, D, g0 == 0 && c == 0);
    for (int64_t h = g0; h < g0 + HK; ++h)  // the columns past the last whole vector
      for (int64_t e = Dv; e < D; ++e) {
        float x = o[h * D + e];
        for (int64_t j = 0; j < n; ++j) x += p[h * ldp + j] * to_float(v[j * vs + e]);
        o[h * D + e] = x;
      }
  }
}

template <class E>
void pv_typed(const float *p, int64_t ldp, int64_t G, int64_t n, const E *v, int64_t vs, int64_t D, float *o) {
  if (G % 4 == 0) return pv_heads<4>(p, ldp, G, n, v, vs, D, o);
  if (G % 2 == 0) return pv_heads<2>(p, ldp, G, n, v, vs, D, o);
  pv_heads<1>(p, ldp, G, n, v, vs, D, o);
}

void pv(const float *p, int64_t ldp, int64_t G, int64_t n, const void *v, AttnKv vt, int64_t vs, int64_t D, float *o) {
  if (n <= 0) return;
  if (vt == AttnKv::kBf16) return pv_typed(p, ldp, G, n, static_cast<const Bf16 *>(v), vs, D, o);
  if (vt == AttnKv::kF16) return pv_typed(p, ldp, G, n, static_cast<const F16 *>(v), vs, D, o);
  pv_typed(p, ldp, G, n, static_cast<const float *>(v), vs, D, o);
}

}  // namespace
}  // namespace opsnn::kernels::attn_rows_impl

// Row primitives on FLOAT lines written with GCC vector extensions: one 64-byte vector type that
// each per-ISA unit lowers to its own registers (one zmm for avx512, two ymm for avx2, four xmm or
// NEON q registers elsewhere). Auto-vectorisation leaves a float max scalar and a float sum on one
// accumulator (add latency bound); these keep four independent accumulators instead. The lane
// count and the combining order are fixed, so results never depend on the tier or thread count.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"  // 64-byte vectors passed between inline functions only
#endif

#include <cstdint>
#include <cstring>
#include <limits>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace opsnn::kernels::vec {
// Internal linkage: every per-ISA unit keeps its own copy, compiled with its own flags.
namespace {

using f32v = float __attribute__((vector_size(64)));
using i32v = int32_t __attribute__((vector_size(64)));
constexpr int64_t kF32 = 16;        // floats per vector
constexpr int64_t kStep = 4 * kF32;  // floats per step of four accumulators

inline f32v load(const float *p) {
  f32v v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline f32v splat(float x) { return f32v{} + x; }
inline float hsum(f32v v) {  // a tree of halves (a chain of 16 dependent adds costs 4x the latency)
  float a[kF32];
  std::memcpy(a, &v, sizeof a);
  for (int w = kF32 / 2; w >= 1; w /= 2)
    for (int k = 0; k < w; ++k) a[k] += a[k + w];
  return a[0];
}

// The hardware prefetchers follow a stream within a 4 KiB page and restart on the next page's
// first misses, so a long read pays about one memory latency per page. Called once per step of
// `step_bytes` (<= 4 KiB) at p: the step that enters a page asks for the next page's first two
// lines, so its stream is under way before the loads reach it. Measured on Zen 5 (a stand-alone
// loop over rows of 4096 floats, 1 thread): a 256 MiB row sum 1.3x faster, a 64 MiB one partly in
// L3 ~1.1x; prefetching every line ahead, or more lines per page, did not help.
inline void prefetch_next_page(const float *p, int64_t step_bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (static_cast<int64_t>(a & 4095) < step_bytes) {
    const char *next = reinterpret_cast<const char *>((a | 4095) + 1);
    __builtin_prefetch(next);
    __builtin_prefetch(next + 64);
  }
}

// Calls body(i, y) for the steps of kV vectors over x[0, n) while a whole step fits, y[k] holding
// x[i + 16k, i + 16k + 16) for the step at i; returns the first position after them. Each step
// that enters a page prefetches the next one. On AVX-512 a row that does not start on a 64-byte
// line reads, after its first step, whole aligned lines inside the row and assembles each vector
// from the two it straddles (vpermt2ps), so no load splits a cache line: the same vectors in the
// same order, so the same results. Rows of 4095 floats against torch 1.13 (same-process A/B on
// Zen 5, issue #14): sums 0.78-0.80x -> 0.98-1.04x, amax 0.68-0.84x -> 0.97-1.32x.
template <int kV, class Body>
inline int64_t for_steps(const float *x, int64_t n, Body &&body) {
  constexpr int64_t kS = kV * kF32;
  f32v y[kV];
  auto plain = [&](int64_t i) {
    prefetch_next_page(x + i, kS * 4);
    for (int k = 0; k < kV; ++k) y[k] = load(x + i + k * kF32);
    body(i, y);
  };
  int64_t i = 0;
#if defined(__AVX512F__)
  const auto addr = reinterpret_cast<uintptr_t>(x);
  if ((addr & 63) != 0 && (addr & 3) == 0 && 2 * kS + kF32 <= n) {
    const int sh = static_cast<int>((addr & 63) >> 2);
    plain(0);
    i = kS;
    const __m512i idx = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                         _mm512_set1_epi32(sh));
    const float *line = x + i - sh;  // 64-byte aligned, inside the row
    __m512 cur = _mm512_load_ps(line);
    for (; i + kS + kF32 <= n; i += kS, line += kS) {  // (the last line read ends inside the row)
      prefetch_next_page(x + i, kS * 4);
      for (int k = 0; k < kV; ++k) {
        const __m512 next = _mm512_load_ps(line + (k + 1) * kF32);
        y[k] = f32v(_mm512_permutex2var_ps(cur, idx, next));
        cur = next;
      }
      body(i, y);
    }
  }
#endif
  for (; i + kS <= n; i += kS) plain(i);
  return i;
}

// sum of x[0, n) in float: four accumulators of 16 lanes, then the tail, combined in fixed order.
// One row at a time on purpose: on Zen 5 (1 thread, same-process A/B) walking 2 or 4 rows of a
// [4096, 4096] / [16384, 4096] matrix interleaved was 4-23 % slower (likely rows 16 KiB apart
// meeting in the same DRAM banks; this guest has no counters to tell). Prefetching 2 pages ahead,
// 8 accumulators, or 4 KiB instead of 2 MiB pages measured within +-3 %; prefetching every line
// 1-8 KiB ahead (T0 / T1 / NTA) up to 17 % slower from DRAM (2026-12-03, issue #14).
inline float sum(const float *x, int64_t n) {
  f32v a0{}, a1{}, a2{}, a3{};
  int64_t i = for_steps<4>(x, n, [&](int64_t, const f32v *y) {
    a0 += y[0];
    a1 += y[1];
    a2 += y[2];
    a3 += y[3];
  });
  for (; i + kF32 <= n; i += kF32) a0 += load(x + i);
  float s = hsum((a0 + a1) + (a2 + a3));
  for (; i < n; ++i) s += x[i];
  return s;
}

// sum of (x[i] - c)^2 over [0, n) in float, and in *dev the sum of x[i] - c (four accumulators each, as
// sum; the steps through for_steps, so misaligned rows read whole lines too).
inline float sum_sq_dev(const float *x, int64_t n, float c, float *dev) {
  const f32v cv = splat(c);
  f32v q0{}, q1{}, q2{}, q3{}, d0{}, d1{}, d2{}, d3{};
  int64_t i = for_steps<4>(x, n, [&](int64_t, const f32v *y) {
    const f32v e0 = y[0] - cv, e1 = y[1] - cv, e2 = y[2] - cv, e3 = y[3] - cv;
    q0 += e0 * e0;
    q1 += e1 * e1;
    q2 += e2 * e2;
    q3 += e3 * e3;
    d0 += e0;
    d1 += e1;
    d2 += e2;
    d3 += e3;
  });
  for (; i + kF32 <= n; i += kF32) {
    const f32v e = load(x + i) - cv;
    q0 += e * e;
    d0 += e;
  }
  float q = hsum((q0 + q1) + (q2 + q3)), d = hsum((d0 + d1) + (d2 + d3));
  for (; i < n; ++i) {
    const float e = x[i] - c;
    q += e * e;
    d += e;
  }
  *dev = d;
  return q;
}

// Whether any lane of the vectors folded in so far was NaN. AVX-512: a mask register of lanes still
// ordered, one masked ordered-compare per pair of vectors (GCC lowers the generic flag vector through
// general registers there, mask -> GPR -> mask each step, which made the max over streaming rows
// ~1.5-2x slower than the sum); elsewhere a vector of compare results.
#if defined(__AVX512F__)
struct NanFlag {
  __mmask16 ok = 0xffff;  // lanes where everything so far was ordered (the compare ANDs it in)
  void add(f32v a, f32v b) { ok = _mm512_mask_cmp_ps_mask(ok, __m512(a), __m512(b), _CMP_ORD_Q); }
  bool any() const { return ok != 0xffff; }
};
#else
struct NanFlag {
  i32v m{};
  void add(f32v a, f32v b) { m |= (a != a) | (b != b); }
  bool any() const {
    for (int k = 0; k < kF32; ++k)
      if (m[k] != 0) return true;
    return false;
  }
};
#endif

// Whether any lane of a compare result is set (AVX-512: the compare's mask register, tested once;
// AVX2: one vptest of the two halves ORed; a memcmp against zero is lowered through the stack).
inline bool any_lane(i32v m) {
#if defined(__AVX512F__)
  return _mm512_test_epi32_mask(__m512i(m), __m512i(m)) != 0;
#elif defined(__AVX2__)
  __m256i h[2];
  std::memcpy(h, &m, sizeof m);
  const __m256i o = _mm256_or_si256(h[0], h[1]);
  return _mm256_testz_si256(o, o) == 0;
#else
  i32v z{};
  return std::memcmp(&m, &z, sizeof m) != 0;
#endif
}

// The largest (kMax) or smallest element of x[0, n) ignoring NaNs (n > 0 or the identity
// -inf / +inf); *nan set when any element is NaN (callers then return NaN, as PyTorch does). Eight
// independent vmaxps / vminps chains (128 floats a step: a row streamed from memory keeps more
// loads in flight), the NaN test a separate ordered-compare flag looked at once at the end.
template <bool kMax>
inline float extremum(const float *x, int64_t n, bool *nan) {
  constexpr float w = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  constexpr int kChains = 8;
  f32v m[kChains];
  for (f32v &c : m) c = splat(w);
  NanFlag bad0, bad1;  // (two: each compare waits for the previous one's mask)
  // (y > m ? y : m keeps m when y is NaN: one vmaxps / vminps)
  auto fold = [](f32v &m, f32v y) { m = kMax ? (y > m ? y : m) : (y < m ? y : m); };
  int64_t i = for_steps<kChains>(x, n, [&](int64_t, const f32v *y) {
    for (int k = 0; k < kChains; ++k) fold(m[k], y[k]);
    for (int k = 0; k < kChains; k += 4) {
      bad0.add(y[k], y[k + 1]);
      bad1.add(y[k + 2], y[k + 3]);
    }
  });
  for (; i + kF32 <= n; i += kF32) {
    const f32v y = load(x + i);
    fold(m[0], y);
    bad0.add(y, y);
  }
  for (int h = kChains / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) fold(m[k], m[k + h]);
  float a[kF32];
  std::memcpy(a, &m[0], sizeof a);
  for (int h = kF32 / 2; h >= 1; h /= 2)  // a tree of halves, as hsum
    for (int k = 0; k < h; ++k) a[k] = kMax ? (a[k + h] > a[k] ? a[k + h] : a[k]) : (a[k + h] < a[k] ? a[k + h] : a[k]);
  float r = a[0];
  bool any = bad0.any() || bad1.any();
  for (; i < n; ++i) {
    r = kMax ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
    any = any || x[i] != x[i];
  }
  *nan = any;
  return r;
}

// The position of the first largest (kMax) or smallest element of x[0, n) ignoring NaNs (n when
// there is none: n == 0 or every element NaN; n < 2^31); *nan set when any element is NaN. One
// pass: eight chains of (value, position) lanes, a lane taking a vector's value and position where
// it is strictly better (so each lane keeps its first best) — a compare, a max and a masked move
// per vector, free in a loop bound by memory reads, where a second pass to find the best value's
// first position cost ~15 %. The 128 lanes then meet: the smallest position among those holding
// the best value. Also measured slower (issue #14): one running best per lane fed by each step's
// vmaxps tree (20 % from memory), the extremum then a search for its first position (20 %); and no
// faster: each lane keeping its step's start instead of a position vector per chain.
template <bool kMax>
inline int64_t arg_extremum(const float *x, int64_t n, bool *nan) {
  constexpr float w = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  constexpr int kChains = 8;
  constexpr int32_t kNone = std::numeric_limits<int32_t>::max();
  alignas(64) static constexpr int32_t kLane[kF32] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  i32v lane;
  std::memcpy(&lane, kLane, sizeof lane);
  f32v m[kChains];
  i32v at[kChains], pos[kChains];  // each lane's best position so far; the positions of a step at 0
  for (int k = 0; k < kChains; ++k) {
    m[k] = splat(w);
    at[k] = i32v{} + kNone;
    pos[k] = lane + static_cast<int32_t>(k * kF32);
  }
  NanFlag bad0, bad1;  // (two: each compare waits for the previous one's mask)
  auto fold = [](f32v &m, i32v &at, f32v y, i32v p) {
    const i32v take = kMax ? y > m : y < m;  // (false for a NaN y)
    m = take ? y : m;
    at = take ? p : at;
  };
  int64_t i = for_steps<kChains>(x, n, [&](int64_t i0, const f32v *y) {
    const i32v base = i32v{} + static_cast<int32_t>(i0);
    for (int k = 0; k < kChains; ++k) fold(m[k], at[k], y[k], pos[k] + base);
    for (int k = 0; k < kChains; k += 4) {
      bad0.add(y[k], y[k + 1]);
      bad1.add(y[k + 2], y[k + 3]);
    }
  });
  for (; i + kF32 <= n; i += kF32) {  // (chain 0's positions: i + lane)
    const f32v y = load(x + i);
    fold(m[0], at[0], y, lane + static_cast<int32_t>(i));
    bad0.add(y, y);
  }
  // The best value of all lanes, then the first position holding it (ties: the smallest position).
  auto better = [](auto a, auto b) { return kMax ? (b > a ? b : a) : (b < a ? b : a); };
  f32v t[kChains];  // (trees of halves, as extremum)
  std::memcpy(t, m, sizeof t);
  for (int h = kChains / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) t[k] = better(t[k], t[k + h]);
  float bl[kF32];
  std::memcpy(bl, &t[0], sizeof bl);
  for (int h = kF32 / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) bl[k] = better(bl[k], bl[k + h]);
  float best = bl[0];
  const f32v bv = splat(best);
  i32v first = i32v{} + kNone;
  for (int k = 0; k < kChains; ++k) {
    const i32v c = m[k] == bv ? at[k] : i32v{} + kNone;
    first = c < first ? c : first;
  }
  int32_t fl[kF32];
  std::memcpy(fl, &first, sizeof fl);
  for (int h = kF32 / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) fl[k] = fl[k + h] < fl[k] ? fl[k + h] : fl[k];
  int64_t r = fl[0];
  bool any = bad0.any() || bad1.any();
  for (; i < n; ++i) {  // the tail, after every vector's position
    if (kMax ? x[i] > best : x[i] < best) {
      best = x[i];
      r = i;
    }
    any = any || x[i] != x[i];
  }
  *nan = any;
  if (r == kNone) {  // no element beat the identity: the first one equal to it, if any
    for (r = 0; r < n && x[r] != w; ++r) {}
  }
  return r;
}

// The first i in [0, n) where lane_hit(x + i) (a compare of one vector) is set, else n: four
// vectors per test (a row just read is in L1, so the scan costs about a compare per vector), then
// the hit's 64 floats element by element through `hit`.
template <class LaneHit, class Hit>
inline int64_t find_first_where(const float *x, int64_t n, LaneHit lane_hit, Hit hit) {
  int64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    const i32v m = lane_hit(x + i) | lane_hit(x + i + kF32) | lane_hit(x + i + 2 * kF32) | lane_hit(x + i + 3 * kF32);
    if (any_lane(m)) break;
  }
  for (; i < n; ++i)
    if (hit(x[i])) return i;
  return n;
}

// The first i in [0, n) with x[i] NaN, else n.
inline int64_t find_first_nan(const float *x, int64_t n) {
  return find_first_where(x, n, [](const float *p) { const f32v y = load(p); return y != y; },
                          [](float e) { return e != e; });
}

}  // namespace
}  // namespace opsnn::kernels::vec

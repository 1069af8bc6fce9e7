// Sorting and selection of one line for the dim-wise engine (sort, argsort, topk, kthvalue,
// median). Every element becomes a 64-bit key whose unsigned order is the sort order (NaN the
// largest value, -0 equal to +0, descending by complementing) paired with its position; the order
// is (key, position), so ties keep their positions (a stable sort), whatever the algorithm:
//   - full sorts: an LSD radix sort of the pairs, 8 bits per pass, skipping the passes whose byte
//     is the same in every key (for lines that came from FLOAT / FLOAT16 / BF16 or small integers
//     that is most of them);
//   - top-k with k small against the line: one pass keeping the k best in a heap (one compare per
//     element once the heap is full), then the k sorted; FLOAT lines are read in place and
//     filtered against the worst kept value in vector lanes first (sorted_prefix_f32);
//   - single positions (k-th value, median): nth_element on the pairs.
// Internal linkage: included by the per-ISA line units.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/simd/vec.h"

namespace opsnn::kernels::dimwise_impl {
namespace {

struct KeyPos {
  uint64_t key;
  int64_t pos;
};
inline bool operator<(const KeyPos &a, const KeyPos &b) { return a.key < b.key || (a.key == b.key && a.pos < b.pos); }

// The order key of x (a line value in the compute type: double or int64).
template <class T>
inline uint64_t order_key(T x, bool descending) {
  uint64_t k;
  if constexpr (std::is_integral_v<T>) {
    k = static_cast<uint64_t>(x) ^ (uint64_t{1} << 63);
  } else {
    double d = static_cast<double>(x);
    d = d != d ? __builtin_nan("") : d;  // every NaN the same (positive, quiet): above +inf
    d = d == 0 ? 0.0 : d;                // -0 ties with +0
    std::memcpy(&k, &d, sizeof k);
    // Branch-free (signs are random): negatives complemented, positives get the top bit.
    k ^= static_cast<uint64_t>(static_cast<int64_t>(k) >> 63) | (uint64_t{1} << 63);
  }
  return descending ? ~k : k;
}

// Sorts pairs a[0, n) by (key, pos) — positions must be increasing in a (then the radix sort's
// stability gives that order); b is a buffer of n pairs. Returns the array holding the result.
inline KeyPos *radix_sort(KeyPos *a, KeyPos *b, int64_t n) {
  if (n < 64) {
    std::sort(a, a + n);
    return a;
  }
  uint64_t count[8][256] = {};
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = a[i].key;
    for (int d = 0; d < 8; ++d) ++count[d][(k >> (8 * d)) & 0xff];
  }
  for (int d = 0; d < 8; ++d) {
    const uint64_t first = (a[0].key >> (8 * d)) & 0xff;
    if (count[d][first] == static_cast<uint64_t>(n)) continue;  // every key has this byte
    uint64_t start[256];
    uint64_t s = 0;
    for (int v = 0; v < 256; ++v) {
      start[v] = s;
      s += count[d][v];
    }
    for (int64_t i = 0; i < n; ++i) b[start[(a[i].key >> (8 * d)) & 0xff]++] = a[i];
    std::swap(a, b);
  }
  return a;
}

// The first k of x[0, n) in sort order into values / positions (k <= n). `buf` holds 2n pairs.
template <class T>
void sorted_prefix(const T *x, int64_t n, int64_t k, bool descending, KeyPos *buf, T *values, T *positions) {
  if (k <= 0) return;
  KeyPos *best;
  if (k * 64 <= n) {  // a max-heap of the k best so far; its top is the worst of them
    KeyPos *heap = buf;
    for (int64_t i = 0; i < k; ++i) heap[i] = KeyPos{order_key(x[i], descending), i};
    std::make_heap(heap, heap + k);
    uint64_t worst = heap[0].key;
    // Blocks of keys computed and tested at once (vectorised); a block with no candidate is
    // skipped whole, which is nearly every block once the heap holds good values.
    constexpr int64_t kBlock = 64;
    uint64_t keys[kBlock];
    for (int64_t b = k; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      int any = 0;
      for (int64_t j = 0; j < m; ++j) {
        keys[j] = order_key(x[b + j], descending);
        any |= keys[j] < worst;
      }
      if (!any) continue;
      for (int64_t j = 0; j < m; ++j) {
        if (keys[j] >= worst) continue;  // not better (a tie comes later, so it loses)
        std::pop_heap(heap, heap + k);
        heap[k - 1] = KeyPos{keys[j], b + j};
        std::push_heap(heap, heap + k);
        worst = heap[0].key;
      }
    }
    std::sort_heap(heap, heap + k);
    best = heap;
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = KeyPos{order_key(x[i], descending), i};
    best = radix_sort(buf, buf + n, n);
  }
  for (int64_t i = 0; i < k; ++i) {
    values[i] = x[best[i].pos];
    positions[i] = static_cast<T>(best[i].pos);
  }
}

// The first k (k <= 64) of a FLOAT line of 64 <= n <= kShortF32Line elements without NaN, in
// sort order, into heap[0, k) (heap holds n pairs): one vectorised pass takes the extremum of each
// of 64 lanes over the whole 64-element blocks — 64 distinct elements, so the k-th best of them,
// tau, is a bound the k best all reach — and a second pass (the line is still in L1 / L2) keeps
// the elements reaching tau, which are then ordered by (key, position). False (nothing written)
// when the line has a NaN.
constexpr int64_t kShortF32Line = 16384;
inline bool short_line_prefix_f32(const float *x, int64_t n, int64_t k, bool descending, KeyPos *heap) {
  constexpr int64_t kBlock = 4 * vec::kF32;
  vec::f32v m[4];
  for (int q = 0; q < 4; ++q) m[q] = vec::load(x + q * vec::kF32);
  vec::i32v bad{};
  const int64_t whole = n / kBlock * kBlock;
  for (int64_t b = 0; b < whole; b += kBlock)
    for (int q = 0; q < 4; ++q) {
      const vec::f32v v = vec::load(x + b + q * vec::kF32);
      m[q] = descending ? (v > m[q] ? v : m[q]) : (v < m[q] ? v : m[q]);
      bad |= v != v;
    }
  for (int64_t i = whole; i < n; ++i)
    if (x[i] != x[i]) return false;
  const vec::i32v none{};
  if (std::memcmp(&bad, &none, sizeof bad) != 0) return false;
  float lanes[kBlock];
  std::memcpy(lanes, m, sizeof lanes);
  if (descending) std::nth_element(lanes, lanes + k - 1, lanes + kBlock, [](float a, float b) { return a > b; });
  else std::nth_element(lanes, lanes + k - 1, lanes + kBlock);
  const float tau = lanes[k - 1];
  const vec::f32v t = vec::splat(tau);
  int64_t c = 0;
  auto keep = [&](int64_t i) {
    if (descending ? x[i] >= tau : x[i] <= tau) heap[c++] = KeyPos{order_key(static_cast<double>(x[i]), descending), i};
  };
  int64_t i = 0;
  for (; i + vec::kF32 <= n; i += vec::kF32) {
    const vec::f32v v = vec::load(x + i);
    const vec::i32v hit = descending ? v >= t : v <= t;
    if (std::memcmp(&hit, &none, sizeof hit) == 0) continue;
    for (int64_t j = 0; j < vec::kF32; ++j)
      if (hit[j] != 0) keep(i + j);
  }
  for (; i < n; ++i) keep(i);
  std::partial_sort(heap, heap + k, heap + c);
  return true;
}

// sorted_prefix's heap path (k * 64 <= n) on a FLOAT line read in place, with a float threshold in
// front of the heap: the worst kept value is compared with 64 elements at a time in 16-float vector
// lanes, and only a block with a lane that may beat it (larger, or NaN, for the largest; smaller,
// or any lane while the worst is NaN, for the smallest) reaches the exact key test. The keys, the
// heap and so the result (ties: the earlier position) are sorted_prefix's.
inline void sorted_prefix_f32(const float *x, int64_t n, int64_t k, bool descending, KeyPos *heap, double *values,
                              double *positions) {
  if (k <= 64 && n >= 64 && n <= kShortF32Line && short_line_prefix_f32(x, n, k, descending, heap)) {
    for (int64_t i = 0; i < k; ++i) {
      values[i] = static_cast<double>(x[heap[i].pos]);
      positions[i] = static_cast<double>(heap[i].pos);
    }
    return;
  }
  for (int64_t i = 0; i < k; ++i) heap[i] = KeyPos{order_key(static_cast<double>(x[i]), descending), i};
  std::make_heap(heap, heap + k);
  uint64_t worst = heap[0].key;
  float thr = x[heap[0].pos];
  // Whether v may beat the worst kept value t (the exact key test decides).
  auto may = [descending](vec::f32v v, vec::f32v t) { return descending ? ((v > t) | (v != v)) : ((v < t) | (t != t)); };
  auto offer = [&](int64_t i) {  // element i, already past the vector test
    const float v = x[i];
    if (descending ? !(v > thr || v != v) : !(v < thr || thr != thr)) return;
    const uint64_t key = order_key(static_cast<double>(v), descending);
    if (key >= worst) return;  // not better (a tie comes later, so it loses)
    std::pop_heap(heap, heap + k);
    heap[k - 1] = KeyPos{key, i};
    std::push_heap(heap, heap + k);
    worst = heap[0].key;
    thr = x[heap[0].pos];
  };
  auto any = [](vec::i32v m) {
    const vec::i32v none{};
    return std::memcmp(&m, &none, sizeof m) != 0;
  };
  constexpr int64_t kBlock = 4 * vec::kF32;
  int64_t b = k;
  for (; b + kBlock <= n; b += kBlock) {  // four vectors tested at once; a hit is resolved per vector
    const vec::f32v t = vec::splat(thr);
    vec::i32v m[4];
    for (int q = 0; q < 4; ++q) m[q] = may(vec::load(x + b + q * vec::kF32), t);
    if (!any((m[0] | m[1]) | (m[2] | m[3]))) continue;
    for (int q = 0; q < 4; ++q) {
      if (!any(m[q])) continue;
      for (int64_t j = 0; j < vec::kF32; ++j)
        if (m[q][j] != 0) offer(b + q * vec::kF32 + j);
    }
  }
  for (; b < n; ++b) offer(b);
  std::sort_heap(heap, heap + k);
  for (int64_t i = 0; i < k; ++i) {
    values[i] = static_cast<double>(x[heap[i].pos]);
    positions[i] = static_cast<double>(heap[i].pos);
  }
}

// The position of the element at place `at` (0-based) of the ascending sort order of x[0, n).
template <class T>
int64_t select_position(const T *x, int64_t n, int64_t at, KeyPos *buf) {
  for (int64_t i = 0; i < n; ++i) buf[i] = KeyPos{order_key(x[i], false), i};
  std::nth_element(buf, buf + at, buf + n);
  return buf[at].pos;
}

}  // namespace
}  // namespace opsnn::kernels::dimwise_impl

// Sorting and selection of one line for the dim-wise engine (sort, argsort, topk, kthvalue,
// median). Every element becomes a 64-bit key whose unsigned order is the sort order (NaN the
// largest value, -0 equal to +0, descending by complementing) paired with its position; the order
// is (key, position), so ties keep their positions (a stable sort), whatever the algorithm:
//   - full sorts: an LSD radix sort of the pairs, 8 bits per pass, skipping the passes whose byte
//     is the same in every key (for lines that came from FLOAT / FLOAT16 / BF16 or small integers
//     that is most of them);
//   - top-k with k small against the line: one pass keeping the k best in a heap (one compare per
//     element once the heap is full), then the k sorted;
//   - single positions (k-th value, median): nth_element on the pairs.
// Internal linkage: included by the per-ISA line units.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

// The position of the element at place `at` (0-based) of the ascending sort order of x[0, n).
template <class T>
int64_t select_position(const T *x, int64_t n, int64_t at, KeyPos *buf) {
  for (int64_t i = 0; i < n; ++i) buf[i] = KeyPos{order_key(x[i], false), i};
  std::nth_element(buf, buf + at, buf + n);
  return buf[at].pos;
}

}  // namespace
}  // namespace opsnn::kernels::dimwise_impl

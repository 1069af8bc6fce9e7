// The reducers of the reduction engine: each one folds contiguous compute-type chunks into an
// accumulator (row: one output; col: `n` neighbouring outputs for one reduced index), merges the
// accumulators of two consecutive blocks (earlier first) and finishes one or two results.
// T is double, or int64_t for integral inputs of sums, products, extrema, indices and predicates
// (wrapping arithmetic, as PyTorch's integer reductions).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/reduction/reduce.h"
#include "kernels/simd/vec.h"

namespace opsnn::kernels::reduce_detail {
// Internal linkage: the per-ISA runner units each compile their own copy (an inline function shared
// across units built with different flags could be linked into the wrong one).
namespace {

template <class T>
struct Acc {
  T v;        // sum / product / extremum / running max / shift
  T s1, s2;   // second and third moments (var), sum of exponentials (logsumexp)
  int64_t n;  // element count (var), index (arg), flags (logsumexp)
};
static_assert(sizeof(Acc<double>) == 32 && sizeof(Acc<int64_t>) == 32);

constexpr int kLanes = 8;  // independent partial sums of a row chunk (fixed: results never depend on it)
// Wide column mode folds this many FLOAT rows at once (col_f32_rows): their values meet in float
// registers first, so the double accumulator row is loaded and stored once per group, not per row.
constexpr int kWideRows = 8;
// col_f32_rows prefetch each of their rows this many floats (2 KiB) ahead: the hardware
// prefetchers do not keep eight interleaved row streams far enough ahead (the [4096, 4096] outer
// sums ran 13-17 % faster with it).
constexpr int64_t kWidePrefetch = 512;

// (always inlined: GCC's IPA otherwise takes an out-of-line copy for a pure function and drops
// the calls, prefetches and all)
inline __attribute__((always_inline)) void prefetch_wide_rows(const float *const *x, int64_t j, int64_t n) {
  if (j + kWidePrefetch < n)
    for (int k = 0; k < kWideRows; ++k) __builtin_prefetch(x[k] + j + kWidePrefetch);
}
// Columns [j, j + 16) of the kWideRows rows x[0..7] into y (the rows prefetched), and whether any
// of those values is NaN (then the extrema take their rare NaN path).
inline __attribute__((always_inline)) bool load_wide_rows(const float *const *x, int64_t j, int64_t n, vec::f32v *y) {
  prefetch_wide_rows(x, j, n);
  vec::NanFlag nan;
  for (int k = 0; k < kWideRows; ++k) y[k] = vec::load(x[k] + j);
  for (int k = 0; k < kWideRows; k += 2) nan.add(y[k], y[k + 1]);
  return nan.any();
}
// Per lane the larger (kMax) or smaller of a and y; a where either is NaN (one vmaxps / vminps).
template <bool kMax>
inline vec::f32v better_lanes(vec::f32v a, vec::f32v y) {
  return kMax ? (y > a ? y : a) : (y < a ? y : a);
}
// The best of the kWideRows vectors y per lane, as a tree (NaN lanes: see better_lanes).
template <bool kMax>
inline vec::f32v best_of_rows(const vec::f32v *y) {
  vec::f32v m[kWideRows / 2];
  for (int k = 0; k < kWideRows / 2; ++k) m[k] = better_lanes<kMax>(y[2 * k], y[2 * k + 1]);
  for (int w = kWideRows / 4; w >= 1; w /= 2)
    for (int k = 0; k < w; ++k) m[k] = better_lanes<kMax>(m[k], m[k + w]);
  return m[0];
}

template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else return a + b;
}
template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else return a * b;
}
template <class T>
inline bool is_nan(T x) {
  if constexpr (std::is_integral_v<T>) return false;
  else return x != x;
}

// Element transforms of the sum-like reducers.
struct Identity { template <class T> T operator()(T x) const { return x; } };
struct Abs { double operator()(double x) const { return std::fabs(x); } };
struct Square { double operator()(double x) const { return x * x; } };
struct NonZero { template <class T> T operator()(T x) const { return x != 0 ? T(1) : T(0); } };
struct NanToZero { template <class T> T operator()(T x) const { return x != x ? T(0) : x; } };  // nansum
struct IsZero { template <class T> T operator()(T x) const { return x == 0 ? T(1) : T(0); } };  // NaN: not zero
struct PowAbs {
  double p;
  double operator()(double x) const { return std::pow(std::fabs(x), p); }
};

// What a sum-like reduction's total becomes.
enum class SumFinish { kValue, kMean, kSqrt, kRoot, kIsZero, kNonZero };

template <class T, class Tr, SumFinish F>
struct SumReducer {
  Tr tr;
  double p = 1;  // kRoot: the norm's p
  void init(Acc<T> &a) const { a = Acc<T>{T(0), T(0), T(0), 0}; }
  void row(Acc<T> &a, const T *x, int64_t n, int64_t) const {
    T lane[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lane[k] = wrap_add(lane[k], tr(x[i + k]));
    for (int k = 0; i < n; ++i, ++k) lane[k] = wrap_add(lane[k], tr(x[i]));
    T s = lane[0];
    for (int k = 1; k < kLanes; ++k) s = wrap_add(s, lane[k]);
    a.v = wrap_add(a.v, s);
  }
  void col(Acc<T> *a, const T *x, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) a[j].v = wrap_add(a[j].v, tr(x[j]));
  }
  void merge(Acc<T> &a, const Acc<T> &b) const { a.v = wrap_add(a.v, b.v); }
  // FLOAT input read in place (no conversion pass): a chunk (<= 4096 elements) summed in float
  // vector lanes (kernels/simd/vec.h), then added in double — blocked accumulation, within the
  // precision standard.
  void row_f32(Acc<T> &a, const float *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    a.v += static_cast<double>(vec::sum(x, n));
  }
  void col_f32(double *v, const float *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    for (int64_t j = 0; j < n; ++j) v[j] += x[j];
  }
  // kWideRows rows x[0..7] at once: each column's eight values summed in float (in row order), then
  // added in double — a blocked sum, as row_f32's chunks.
  void col_f32_rows(double *v, const float *const *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    int64_t j = 0;
    for (; j + vec::kF32 <= n; j += vec::kF32) {
      prefetch_wide_rows(x, j, n);
      vec::f32v s = vec::load(x[0] + j);
      for (int k = 1; k < kWideRows; ++k) s += vec::load(x[k] + j);
      for (int l = 0; l < vec::kF32; ++l) v[j + l] += static_cast<double>(s[l]);
    }
    for (; j < n; ++j) {
      float s = x[0][j];
      for (int k = 1; k < kWideRows; ++k) s += x[k][j];
      v[j] += static_cast<double>(s);
    }
  }
  void finish(const Acc<T> &a, int64_t count, T *res) const {
    switch (F) {
      case SumFinish::kValue: res[0] = a.v; break;
      case SumFinish::kMean: res[0] = static_cast<T>(static_cast<double>(a.v) / static_cast<double>(count)); break;
      case SumFinish::kSqrt: res[0] = static_cast<T>(std::sqrt(static_cast<double>(a.v))); break;
      case SumFinish::kRoot: res[0] = static_cast<T>(std::pow(static_cast<double>(a.v), 1.0 / p)); break;
      case SumFinish::kIsZero: res[0] = a.v == 0 ? T(1) : T(0); break;
      case SumFinish::kNonZero: res[0] = a.v != 0 ? T(1) : T(0); break;
    }
  }
};

template <class T>
struct ProdReducer {
  void init(Acc<T> &a) const { a = Acc<T>{T(1), T(0), T(0), 0}; }
  void row(Acc<T> &a, const T *x, int64_t n, int64_t) const {
    for (int64_t i = 0; i < n; ++i) a.v = wrap_mul(a.v, x[i]);
  }
  void col(Acc<T> *a, const T *x, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) a[j].v = wrap_mul(a[j].v, x[j]);
  }
  void merge(Acc<T> &a, const Acc<T> &b) const { a.v = wrap_mul(a.v, b.v); }
  void finish(const Acc<T> &a, int64_t, T *res) const { res[0] = a.v; }
};

// max / min of tr(x), NaN winning (PyTorch's amax / amin / inf-norms).
template <class T, bool kMax, class Tr = Identity>
struct ExtremumReducer {
  Tr tr;
  static T worst() {
    if constexpr (std::is_integral_v<T>) return kMax ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    else return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }
  static T pick(T v, T x) { return (is_nan(x) || (kMax ? x > v : x < v)) ? x : v; }  // v NaN stays
  void init(Acc<T> &a) const { a = Acc<T>{worst(), T(0), T(0), 0}; }
  void row(Acc<T> &a, const T *x, int64_t n, int64_t) const {
    T lane[kLanes];
    for (T &l : lane) l = worst();
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) lane[k] = pick(lane[k], tr(x[i + k]));
    for (int k = 0; i < n; ++i, ++k) lane[k] = pick(lane[k], tr(x[i]));
    for (T l : lane) a.v = pick(a.v, l);
  }
  void col(Acc<T> *a, const T *x, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) a[j].v = pick(a[j].v, tr(x[j]));
  }
  void merge(Acc<T> &a, const Acc<T> &b) const { a.v = pick(a.v, b.v); }
  // FLOAT input read in place: the extremum of floats is exact in float; any NaN makes it NaN.
  void row_f32(Acc<T> &a, const float *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    bool nan = false;
    const float m = vec::extremum<kMax>(x, n, &nan);
    a.v = nan ? std::numeric_limits<double>::quiet_NaN() : pick(a.v, static_cast<double>(m));
  }
  void col_f32(double *v, const float *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    for (int64_t j = 0; j < n; ++j) v[j] = pick(v[j], static_cast<double>(x[j]));
  }
  // Wide column mode keeps the extrema of FLOAT rows in a float row v (exact; a NaN wins and stays).
  void col_f32(float *v, const float *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    int64_t j = 0;
    for (; j + vec::kF32 <= n; j += vec::kF32) {
      const vec::f32v y = vec::load(x + j);
      const vec::f32v a = (y != y) ? y : better_lanes<kMax>(vec::load(v + j), y);
      std::memcpy(v + j, &a, sizeof a);
    }
    for (; j < n; ++j) v[j] = static_cast<float>(pick(static_cast<double>(v[j]), static_cast<double>(x[j])));
  }
  // kWideRows rows at once: their extremum per column as a tree of vmaxps / vminps (which skip NaN),
  // merged into v; lanes of the group holding a NaN then take it (a flag per group, rarely set).
  void col_f32_rows(float *v, const float *const *x, int64_t n) const
    requires(std::is_same_v<T, double> && std::is_same_v<Tr, Identity>)
  {
    int64_t j = 0;
    for (; j + vec::kF32 <= n; j += vec::kF32) {
      vec::f32v y[kWideRows];
      const bool nan = load_wide_rows(x, j, n, y);
      vec::f32v a = better_lanes<kMax>(vec::load(v + j), best_of_rows<kMax>(y));
      if (nan)
        for (int k = 0; k < kWideRows; ++k) a = (y[k] != y[k]) ? y[k] : a;
      std::memcpy(v + j, &a, sizeof a);
    }
    for (; j < n; ++j)
      for (int k = 0; k < kWideRows; ++k) v[j] = static_cast<float>(pick(static_cast<double>(v[j]), static_cast<double>(x[k][j])));
  }
  void finish(const Acc<T> &a, int64_t, T *res) const { res[0] = a.v; }
};

// The extremum and the index of its first occurrence (the first NaN, if any): argmax / max.dim.
// res[0] the value, res[1] the index; kIndexOnly puts the index in res[0].
template <class T, bool kMax, bool kIndexOnly>
struct ArgReducer {
  // x replaces the best value v (met earlier) when it is strictly better, or the first NaN.
  static bool better(T x, T v) { return !is_nan(v) && (is_nan(x) || (kMax ? x > v : x < v)); }
  void init(Acc<T> &a) const { a = Acc<T>{T(0), T(0), T(0), -1}; }
  void row(Acc<T> &a, const T *x, int64_t n, int64_t r0) const {
    for (int64_t i = 0; i < n; ++i)
      if (a.n < 0 || better(x[i], a.v)) {
        a.v = x[i];
        a.n = r0 + i;
      }
  }
  void col(Acc<T> *a, const T *x, int64_t n, int64_t r) const {
    for (int64_t j = 0; j < n; ++j)
      if (a[j].n < 0 || better(x[j], a[j].v)) {
        a[j].v = x[j];
        a[j].n = r;
      }
  }
  void merge(Acc<T> &a, const Acc<T> &b) const {
    if (b.n >= 0 && (a.n < 0 || better(b.v, a.v))) a = b;
  }
  // FLOAT input read in place: the chunk's first best position in one pass of (value, position)
  // vector lanes — or, when the chunk has a NaN, its first NaN's (it wins; a rare second pass).
  void row_f32(Acc<T> &a, const float *x, int64_t n, int64_t r0) const
    requires(std::is_same_v<T, double>)
  {
    if (n <= 0 || (a.n >= 0 && is_nan(a.v))) return;  // a NaN already won
    bool nan = false;
    int64_t at = vec::arg_extremum<kMax>(x, n, &nan);
    if (nan) at = vec::find_first_nan(x, n);
    if (a.n < 0 || better(static_cast<double>(x[at]), a.v)) {
      a.v = x[at];  // (the element itself: -0 and +0 compare equal)
      a.n = r0 + at;
    }
  }
  // Lanes where y (from later rows) is better than the best bv so far (better()'s rule) take y and
  // its rows yi.
  static void fold_lanes(vec::f32v &bv, vec::i32v &bi, vec::f32v y, vec::i32v yi) {
    const vec::i32v take = (bv == bv) & ((y != y) | (kMax ? y > bv : y < bv));
    bv = take ? y : bv;
    bi = take ? yi : bi;
  }
  // The 16 lanes of v / at from their position on, folded with (y, yi) and written back.
  static void fold_into(float *v, int32_t *at, vec::f32v y, vec::i32v yi) {
    vec::f32v bv = vec::load(v);
    vec::i32v bi;
    std::memcpy(&bi, at, sizeof bi);
    fold_lanes(bv, bi, y, yi);
    std::memcpy(v, &bv, sizeof bv);
    std::memcpy(at, &bi, sizeof bi);
  }
  // Wide column mode (FLOAT rows in place): row r folded into n outputs' best values v and their
  // row indices at, 16 lanes at a time: a lane takes x when better() holds, the same rule as col.
  void col_f32(float *v, int32_t *at, const float *x, int64_t n, int32_t r) const
    requires(std::is_same_v<T, double>)
  {
    const vec::i32v rv = vec::i32v{} + r;
    int64_t j = 0;
    for (; j + vec::kF32 <= n; j += vec::kF32) fold_into(v + j, at + j, vec::load(x + j), rv);
    for (; j < n; ++j)
      if (better(static_cast<double>(x[j]), static_cast<double>(v[j]))) {
        v[j] = x[j];
        at[j] = r;
      }
  }
  // kWideRows consecutive rows r, r+1, ... at once: their best per lane found in registers (the
  // same rule, so the first NaN or the first best of the group), then merged into v / at by col_f32's
  // rule (earlier rows win ties). Without a NaN among the group's values (the flag of
  // load_wide_rows) better() is a plain strict compare (a NaN best so far is never beaten by it),
  // and lanes whose best so far no value of the group beats stay as they are: past the first rows
  // that is almost every vector, which then costs a tree of vmaxps and one compare.
  void col_f32_rows(float *v, int32_t *at, const float *const *x, int64_t n, int32_t r) const
    requires(std::is_same_v<T, double>)
  {
    int64_t j = 0;
    for (; j + vec::kF32 <= n; j += vec::kF32) {
      vec::f32v y[kWideRows];
      const bool nan = load_wide_rows(x, j, n, y);
      vec::f32v bv = y[0];
      vec::i32v bi = vec::i32v{} + r;
      if (nan) {
        for (int k = 1; k < kWideRows; ++k) fold_lanes(bv, bi, y[k], vec::i32v{} + (r + k));
        fold_into(v + j, at + j, bv, bi);
        continue;
      }
      vec::f32v av = vec::load(v + j);
      const vec::f32v m = best_of_rows<kMax>(y);
      const vec::i32v take = kMax ? m > av : m < av;
      if (!vec::any_lane(take)) continue;
      // The group's first row holding m (compares independent of each other, unlike a fold).
      bv = y[kWideRows - 1];
      bi = vec::i32v{} + (r + kWideRows - 1);
      for (int k = kWideRows - 2; k >= 0; --k) {
        const vec::i32v eq = y[k] == m;
        bv = eq ? y[k] : bv;  // (the element itself: -0 and +0 compare equal)
        bi = eq ? vec::i32v{} + (r + k) : bi;
      }
      vec::i32v ai;
      std::memcpy(&ai, at + j, sizeof ai);
      av = take ? bv : av;
      ai = take ? bi : ai;
      std::memcpy(v + j, &av, sizeof av);
      std::memcpy(at + j, &ai, sizeof ai);
    }
    for (; j < n; ++j)
      for (int k = 0; k < kWideRows; ++k)
        if (better(static_cast<double>(x[k][j]), static_cast<double>(v[j]))) {
          v[j] = x[k][j];
          at[j] = r + k;
        }
  }
  void finish(const Acc<T> &a, int64_t, T *res) const {
    const int64_t idx = a.n < 0 ? 0 : a.n;
    if (kIndexOnly) {
      res[0] = static_cast<T>(idx);
    } else {
      res[0] = a.v;
      res[1] = static_cast<T>(idx);
    }
  }
};

// log(sum(exp(x))) as a running (max, sum of exp(x - max)) pair; n's bits flag a NaN (1) and +inf (2).
struct LogSumExpReducer {
  static void add_pair(Acc<double> &a, double m, double s) {
    if (m == -INFINITY) return;
    if (m > a.v) {
      a.s1 = a.s1 * std::exp(a.v - m) + s;
      a.v = m;
    } else {
      a.s1 += s * std::exp(m - a.v);
    }
  }
  void init(Acc<double> &a) const { a = Acc<double>{-INFINITY, 0, 0, 0}; }
  void row(Acc<double> &a, const double *x, int64_t n, int64_t) const {
    double m = -INFINITY;
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] != x[i]) a.n |= 1;
      else if (x[i] == INFINITY) a.n |= 2;
      else if (x[i] > m) m = x[i];
    }
    if (m == -INFINITY) return;
    double s = 0;
    for (int64_t i = 0; i < n; ++i)
      if (x[i] == x[i] && x[i] != INFINITY) s += std::exp(x[i] - m);
    add_pair(a, m, s);
  }
  void col(Acc<double> *a, const double *x, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) {
      const double v = x[j];
      if (v != v) a[j].n |= 1;
      else if (v == INFINITY) a[j].n |= 2;
      else add_pair(a[j], v, 1.0);
    }
  }
  void merge(Acc<double> &a, const Acc<double> &b) const {
    a.n |= b.n;
    add_pair(a, b.v, b.s1);
  }
  void finish(const Acc<double> &a, int64_t, double *res) const {
    res[0] = (a.n & 1) ? NAN : (a.n & 2) ? INFINITY : a.v == -INFINITY ? -INFINITY : a.v + std::log(a.s1);
  }
};

// Variance from shifted sums (shift = the block's first element; sums in double; FLOAT rows in
// place: each chunk's mean, row_f32), blocks merged with Chan's formula. res[0] var (or std), res[1] the mean.
template <bool kStd>
struct VarReducer {
  double correction = 1;
  // An infinite shift would turn every difference into NaN (the mean of [-inf, -inf] is -inf).
  static double shift_for(double x) { return std::isfinite(x) ? x : 0.0; }
  void init(Acc<double> &a) const { a = Acc<double>{0, 0, 0, 0}; }
  void row(Acc<double> &a, const double *x, int64_t n, int64_t) const {
    if (n == 0) return;
    if (a.n == 0) a.v = shift_for(x[0]);
    double l1[kLanes] = {}, l2[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const double d = x[i + k] - a.v;
        l1[k] += d;
        l2[k] += d * d;
      }
    for (int k = 0; i < n; ++i, ++k) {
      const double d = x[i] - a.v;
      l1[k] += d;
      l2[k] += d * d;
    }
    for (int k = 0; k < kLanes; ++k) {
      a.s1 += l1[k];
      a.s2 += l2[k];
    }
    a.n += n;
  }
  // FLOAT input read in place: a chunk (<= 4096 elements, still in L1 for its second pass) shifted
  // by its own mean, the sums of the deviations taken in float vector lanes (kernels/simd/vec.h),
  // then merged like a block (Chan). Memory is read once; the shift at the chunk's mean leaves no
  // cancellation for m2 = s2 - s1^2 / n. A chunk whose float sums are not finite (infinities, NaN,
  // or squares beyond float's range) takes the double path instead.
  void row_f32(Acc<double> &a, const float *x, int64_t n) const {
    if (n == 0) return;
    const float c = static_cast<float>(static_cast<double>(vec::sum(x, n)) / static_cast<double>(n));
    float dev = 0;
    const float sq = std::isfinite(c) ? vec::sum_sq_dev(x, n, c, &dev) : NAN;
    Acc<double> b{c, dev, sq, n};
    if (!std::isfinite(sq) || !std::isfinite(dev)) {
      init(b);
      double buf[256];
      for (int64_t i = 0; i < n; i += 256) {
        const int64_t m = std::min<int64_t>(256, n - i);
        for (int64_t j = 0; j < m; ++j) buf[j] = x[i + j];
        row(b, buf, m, 0);
      }
    }
    merge(a, b);
  }
  void col(Acc<double> *a, const double *x, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) {
      if (a[j].n == 0) a[j].v = shift_for(x[j]);
      const double d = x[j] - a[j].v;
      a[j].s1 += d;
      a[j].s2 += d * d;
      a[j].n += 1;
    }
  }
  static void moments(const Acc<double> &a, double *mean, double *m2) {
    const double n = static_cast<double>(a.n);
    *mean = a.v + a.s1 / n;
    *m2 = a.s2 - a.s1 * a.s1 / n;
    if (*m2 < 0) *m2 = 0;  // rounding
  }
  void merge(Acc<double> &a, const Acc<double> &b) const {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    double ma, m2a, mb, m2b;
    moments(a, &ma, &m2a);
    moments(b, &mb, &m2b);
    const double na = static_cast<double>(a.n), nb = static_cast<double>(b.n), n = na + nb;
    if (!std::isfinite(ma) || !std::isfinite(mb)) {  // an infinity (or NaN) decides the mean; var is NaN
      a = Acc<double>{ma + mb, 0, NAN, a.n + b.n};
      return;
    }
    const double delta = mb - ma;
    a = Acc<double>{ma + delta * nb / n, 0, m2a + m2b + delta * delta * na * nb / n, a.n + b.n};
  }
  void finish(const Acc<double> &a, int64_t, double *res) const {
    double mean = NAN, m2 = NAN;
    if (a.n > 0) moments(a, &mean, &m2);
    const double dof = std::fmax(static_cast<double>(a.n) - correction, 0.0);
    const double var = m2 / dof;
    res[0] = kStd ? std::sqrt(var) : var;
    res[1] = mean;
  }
};

}  // namespace
}  // namespace opsnn::kernels::reduce_detail

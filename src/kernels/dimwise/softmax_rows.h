// Softmax / log-softmax of many FLOAT rows of one length, read and written in place, as a
// three-stage software pipeline: one sweep over the vectors of a row folds row k into its max
// (the row's first read, from memory), takes exp(x - max) of row k - 1 and its sum, and writes
// row k - 2's output. One row at a time, each pass waited on the previous pass's reduction (the
// max, then the sum) and the exp pass ran with no load from memory in flight; here the memory
// stream, the exp arithmetic and the stores of three rows overlap. Per row the arithmetic and its
// order are those of the one-row path (line() in dimwise_lines_impl.h), so results are identical;
// only the max skips the NaN flag: a NaN makes the sum of exponentials NaN, and so every output.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/elementwise/vmath.h"
#include "kernels/simd/vec.h"
#include "kernels/simd/vec_exp.h"
#include "kernels/simd/vec_stream.h"

namespace opsnn::kernels::dimwise_impl {
namespace {

// One row in flight: its input and output, its max, and 1 / sum (softmax) or log(sum); softmax's
// exponentials wait in `e` (a line of the task's scratch) for the output stage.
struct SoftmaxRow {
  const float *x = nullptr;
  float *y = nullptr, *e = nullptr;
  float m = 0, p = 0;
};

inline void fold_max(vec::f32v &m, vec::f32v v) { m = v > m ? v : m; }  // (one vmaxps)

inline float hmax(vec::f32v v) {  // a tree of halves, as vec::hsum
  float a[vec::kF32];
  std::memcpy(a, &v, sizeof a);
  for (int w = vec::kF32 / 2; w >= 1; w /= 2)
    for (int k = 0; k < w; ++k) a[k] = a[k + w] > a[k] ? a[k + w] : a[k];
  return a[0];
}

// The partial last vector of a row, padded with -inf (the max's identity; its exp is 0).
inline vec::f32v load_padded(const float *x, int64_t c) {
  float part[vec::kF32];
  for (int64_t k = 0; k < vec::kF32; ++k) part[k] = k < c ? x[k] : -std::numeric_limits<float>::infinity();
  return vec::load(part);
}

// One sweep: stage M on row a, E on row b, S on row c (each stage only where its flag is set).
// kNt: S stores non-temporally (the caller checked that every output row is 64-byte aligned and
// n a multiple of 16).
template <bool kLog, bool kNt, bool kM, bool kE, bool kS>
void softmax_sweep(int64_t n, SoftmaxRow *a, SoftmaxRow *b, SoftmaxRow *c) {
  using vec::f32v;
  using vec::kF32;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  f32v mx0 = vec::splat(kNegInf), mx1 = mx0, s0{}, s1{};
  const float *xa = kM ? a->x : nullptr, *xb = kE ? b->x : nullptr;
  float *eb = kE ? b->e : nullptr;
  const f32v mb = vec::splat(kE ? b->m : 0.0f);
  // S: softmax y = e * (1 / sum); log-softmax y = x - max - log(sum) (not x - (max + log(sum)):
  // the max may dwarf the log)
  const float *sc = kS ? (kLog ? c->x : c->e) : nullptr;
  float *yc = kS ? c->y : nullptr;
  const float c1 = kS ? (kLog ? c->m : c->p) : 0.0f, c2 = kS ? c->p : 0.0f;
  const f32v c1v = vec::splat(c1), c2v = vec::splat(c2);
  auto out = [&](int64_t i) {
    const f32v v = kLog ? vec::load(sc + i) - c1v - c2v : vec::load(sc + i) * c1v;
    if constexpr (kNt) vec::store_nt(yc + i, v);
    else std::memcpy(yc + i, &v, sizeof v);
  };
  int64_t i = 0;
  for (; i + 2 * kF32 <= n; i += 2 * kF32) {
    if constexpr (kM) {
      fold_max(mx0, vec::load(xa + i));
      fold_max(mx1, vec::load(xa + i + kF32));
    }
    if constexpr (kE) {
      const f32v e0 = vec::exp_nonpos(vec::load(xb + i) - mb), e1 = vec::exp_nonpos(vec::load(xb + i + kF32) - mb);
      if constexpr (!kLog) {
        std::memcpy(eb + i, &e0, sizeof e0);
        std::memcpy(eb + i + kF32, &e1, sizeof e1);
      }
      s0 += e0;
      s1 += e1;
    }
    if constexpr (kS) {
      out(i);
      out(i + kF32);
    }
  }
  for (; i < n; i += kF32) {  // a last full vector and / or a partial one (the sum's order of vec::exp_shifted_sum)
    const int64_t cnt = n - i < kF32 ? n - i : kF32;
    if constexpr (kM) fold_max(mx0, load_padded(xa + i, cnt));
    if constexpr (kE) {
      const f32v e = vec::exp_nonpos(load_padded(xb + i, cnt) - mb);
      if constexpr (!kLog) std::memcpy(eb + i, &e, static_cast<size_t>(cnt) * sizeof(float));
      s0 += e;
    }
    if constexpr (kS) {
      if (cnt == kF32) out(i);
      else if constexpr (kLog) for (int64_t k = i; k < n; ++k) yc[k] = sc[k] - c1 - c2;
      else for (int64_t k = i; k < n; ++k) yc[k] = sc[k] * c1;
    }
  }
  if constexpr (kM) {
    fold_max(mx0, mx1);
    a->m = hmax(mx0);
  }
  if constexpr (kE) {
    const float s = vec::hsum(s0 + s1);
    b->p = kLog ? vmath::log(s) : 1 / s;
  }
}

// Rows [0, rows) of n > 0 elements; next_row(&x, &y) yields each row's input and output in order
// (an output row either is its input row or overlaps no input row); ring: 2 * n floats of scratch
// (softmax's exponentials). kNt: see softmax_sweep; the caller fences after the last task's row.
template <bool kLog, bool kNt, class NextRow>
void softmax_rows(int64_t rows, int64_t n, NextRow next_row, float *ring) {
  SoftmaxRow q[3];
  for (int64_t k = 0; k < rows + 2; ++k) {
    SoftmaxRow *a = k < rows ? &q[k % 3] : nullptr;
    SoftmaxRow *b = k >= 1 && k <= rows ? &q[(k - 1) % 3] : nullptr;
    SoftmaxRow *c = k >= 2 ? &q[(k - 2) % 3] : nullptr;
    if (a != nullptr) {
      next_row(&a->x, &a->y);
      a->e = ring + (k & 1) * n;
    }
    switch ((a != nullptr ? 4 : 0) | (b != nullptr ? 2 : 0) | (c != nullptr ? 1 : 0)) {
      case 7: softmax_sweep<kLog, kNt, true, true, true>(n, a, b, c); break;
      case 6: softmax_sweep<kLog, kNt, true, true, false>(n, a, b, c); break;
      case 4: softmax_sweep<kLog, kNt, true, false, false>(n, a, b, c); break;
      case 3: softmax_sweep<kLog, kNt, false, true, true>(n, a, b, c); break;
      case 2: softmax_sweep<kLog, kNt, false, true, false>(n, a, b, c); break;
      case 1: softmax_sweep<kLog, kNt, false, false, true>(n, a, b, c); break;
      default: break;
    }
  }
}

}  // namespace
}  // namespace opsnn::kernels::dimwise_impl

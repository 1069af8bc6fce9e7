// The row kernel of the sampling ops (kernels/dimwise/sample_rows.h says what it computes), included by its
// per-ISA units sample_rows_<tier>.cpp: the dim-wise engine's selection (line_sort.h) and its FLOAT line's
// vector pre-filter compiled with each tier's flags. Internal linkage.
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/dimwise/line_sort.h"
#include "kernels/dimwise/sample_rows.h"

namespace opsnn::kernels::sample_impl {
namespace {

using dimwise_impl::KeyPos;

// The softmax mass by distance below the row's max, in bins of 1 / kMassBinsPerUnit (the last bin takes
// everything further down).
constexpr int64_t kMassBins = 2048, kMassBinsPerUnit = 8;
inline int64_t mass_bin(double distance) {
  return distance < static_cast<double>(kMassBins - 1) / kMassBinsPerUnit
             ? static_cast<int64_t>(distance * kMassBinsPerUnit)
             : kMassBins - 1;
}

// The scratch: 2n (key, position) pairs for the selection, its values and positions (double), the
// FLOAT values / positions of a full sort, and the mass bins.
struct Scratch {
  KeyPos *pairs;
  double *values, *positions;
  float *fvalues, *fpositions;
  double *bins;
};
inline Scratch carve(void *scratch, int64_t n) {
  auto *pairs = static_cast<KeyPos *>(scratch);
  auto *values = reinterpret_cast<double *>(pairs + 2 * n);
  auto *fvalues = reinterpret_cast<float *>(values + 2 * n);
  return Scratch{pairs, values, values + n, fvalues, fvalues + n, reinterpret_cast<double *>(fvalues + 2 * n)};
}

// The row's probabilities: a softmax with shift m and sum s, or the values themselves.
struct Probability {
  bool softmax = true;
  double m = 0, s = 1;
  double operator()(double v) const { return softmax ? std::exp(v - m) / s : v; }
};

inline int64_t keep_row(const float *x, int64_t n, const SampleRowRule &rule, void *scratch, int64_t *pos,
                        double *prob) {
  Scratch s = carve(scratch, n);
  Probability f;
  f.softmax = rule.input_is_logits;
  const bool top_k = rule.k >= 1 && rule.k <= std::min(n, rule.k_cap);
  const int64_t limit = top_k ? rule.k : n;  // the candidates: the top k, or the whole row
  int64_t have = 0;  // the sorted prefix known: pos / prob [0, have)
  // The first `want` in descending order: a k-best heap read in place while want is small against the
  // row (the FLOAT line's vector pre-filter), else one full radix sort.
  auto select = [&](int64_t want) {
    if (want * 64 <= n) {
      dimwise_impl::sorted_prefix_f32(x, n, want, true, s.pairs, s.values, s.positions);
    } else {
      dimwise_impl::sorted_prefix<float>(x, n, want, true, s.pairs, s.fvalues, s.fpositions);
      for (int64_t j = 0; j < want; ++j) {
        s.values[j] = s.fvalues[j];
        s.positions[j] = s.fpositions[j];  // exact: n <= 2^20
      }
    }
    for (int64_t j = 0; j < want; ++j) pos[j] = static_cast<int64_t>(s.positions[j]);
  };
  auto grow = [&](int64_t want) {
    want = std::min(want, limit);
    if (want <= have) return;
    if (want * 64 > n) want = limit;  // past the heap's range: sort every candidate once
    select(want);
    for (int64_t j = 0; j < want; ++j) prob[j] = f(s.values[j]);
    have = want;
  };
  if (top_k) {
    select(limit);
    f.m = s.values[0];  // the softmax of the candidates only
    f.s = 0;
    for (int64_t j = 0; j < limit; ++j) f.s += std::exp(s.values[j] - f.m);
    for (int64_t j = 0; j < limit; ++j) prob[j] = f(s.values[j]);
    have = limit;
  } else if (f.softmax) {
    f.m = -INFINITY;
    for (int64_t i = 0; i < n; ++i) f.m = std::isnan(x[i]) || x[i] > f.m ? static_cast<double>(x[i]) : f.m;
    f.s = 0;
    const bool nucleus = rule.p > 0 && rule.p < 1 && std::isfinite(f.m);
    if (nucleus) std::fill(s.bins, s.bins + kMassBins, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const double e = std::exp(static_cast<double>(x[i]) - f.m);
      f.s += e;
      if (nucleus) s.bins[mass_bin(f.m - x[i])] += e;
    }
    if (nucleus) {
      // The top-p cut lies in the first bin where the binned mass reaches p: the tokens up to one bin
      // further (slack for the binned sums' rounding) are gathered and sorted, the first prefix the cut
      // is looked for in (if it is not found there, the prefix grows below as without this bound).
      int64_t last = 0;
      for (double mass = s.bins[0]; last + 1 < kMassBins && mass < rule.p * f.s; mass += s.bins[++last]) {
      }
      last = std::min(last + 1, kMassBins - 1);
      int64_t c = 0;
      for (int64_t i = 0; i < n; ++i)
        if (mass_bin(f.m - x[i]) <= last) s.pairs[c++] = KeyPos{dimwise_impl::order_key(x[i], true), i};
      std::sort(s.pairs, s.pairs + c);
      for (int64_t j = 0; j < c; ++j) {
        pos[j] = s.pairs[j].pos;
        prob[j] = f(x[pos[j]]);
      }
      have = c;
    }
  }
  int64_t kept = limit;
  if (rule.p < 1) {  // top-p: the shortest prefix whose mass reaches p (the mass before a kept one is < p)
    if (rule.p <= 0) {
      kept = 1;
    } else {
      // Without top-k: prefixes of guess, 4 guess, ... (after the binned bound's) until the cut falls inside one.
      for (int64_t want = std::max<int64_t>(rule.guess, 1);; want = have * 4) {
        grow(want);
        double mass = 0;
        int64_t j = 0;
        for (; j < have && (j == 0 || mass < rule.p); ++j) mass += prob[j];
        if (j < have || have == limit) {
          kept = j;
          break;
        }
      }
    }
  }
  if (rule.min_p > 0) {  // min-p: probabilities below min_p times the largest one
    if (rule.min_p >= 1) {
      kept = 1;
    } else {
      grow(1);
      const double thr = prob[0] * rule.min_p;
      if (kept > have) {  // nothing cut yet: how many reach thr (a prefix: f is monotone)
        int64_t count = 0;
        for (int64_t i = 0; i < n; ++i) count += f(x[i]) >= thr;
        kept = std::max<int64_t>(std::min(kept, count), 1);
      }
      grow(kept);
      for (int64_t j = 1; j < kept; ++j)
        if (!(prob[j] >= thr)) {
          kept = j;
          break;
        }
    }
  }
  grow(kept);  // nothing filtered: the whole order
  return kept;
}

}  // namespace
}  // namespace opsnn::kernels::sample_impl

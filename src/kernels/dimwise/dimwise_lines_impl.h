// The dim-wise line kernels, compiled once per ISA (dimwise_lines_<tier>.cpp include this header
// with their own flags; the tier is chosen in phase 1, kernels/dimwise/dimwise.h). Internal
// linkage: each unit keeps its own copy, so no AVX code reaches the portable build.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/dimwise/dimwise.h"
#include "kernels/dimwise/line_sort.h"
#include "kernels/dimwise/softmax_rows.h"
#include "kernels/elementwise/convert.h"
#include "kernels/elementwise/vmath.h"
#include "kernels/simd/vec.h"
#include "kernels/simd/vec_exp.h"
#include "kernels/simd/vec_stream.h"

namespace opsnn::kernels::dimwise_impl {
namespace {


template <class T>
bool is_nan(T x) {
  if constexpr (std::is_integral_v<T>) return false;
  else return x != x;
}

// Row arithmetic written for GCC to vectorise (lanes of independent partial results, combined in a
// fixed order: results never depend on the thread count). FLOAT / FLOAT16 / BF16 lines compute in
// float (vmath's vectorisable exp / log), DOUBLE lines in double.
constexpr int kLanes = 16;

template <class T>
OPSNN_VM_INLINE T ex(T x) {
  if constexpr (std::is_same_v<T, float>) return vmath::exp(x);
  else return std::exp(x);
}
template <class T>
OPSNN_VM_INLINE T lg(T x) {
  if constexpr (std::is_same_v<T, float>) return vmath::log(x);
  else return std::log(x);
}

// sum of f(i) over [0, n): the lanes, then the tail on its own (a tail indexing the lanes kept
// them in memory, each step's add waiting on the last one's store).
template <class T, class F>
OPSNN_VM_INLINE T lane_sum(int64_t n, F f) {
  T lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lane[k] += f(i + k);
  T tail = 0;
  for (; i < n; ++i) tail += f(i);
  T s = 0;
  for (T l : lane) s += l;
  return s + tail;
}

// sum of x[0, n), and of (x[i] - c)^2: FLOAT through kernels/simd/vec.h's vector accumulators.
template <class T>
OPSNN_VM_INLINE T row_sum(const T *x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) return vec::sum(x, n);
  else return lane_sum<T>(n, [&](int64_t i) { return x[i]; });
}
template <class T>
OPSNN_VM_INLINE T row_sum_sq_dev(const T *x, int64_t n, T c) {
  if constexpr (std::is_same_v<T, float>) {
    float dev;
    return vec::sum_sq_dev(x, n, c, &dev);
  } else {
    return lane_sum<T>(n, [&](int64_t i) { return (x[i] - c) * (x[i] - c); });
  }
}

// exp(x[i] - m) into y (null: not stored) and its sum; FLOAT through vec_exp.h's cheaper exp for
// arguments <= 0 (m is the line's max).
template <class T>
OPSNN_VM_INLINE T exp_shifted_sum(const T *x, int64_t n, T m, T *y) {
  if constexpr (std::is_same_v<T, float>) {
    return vec::exp_shifted_sum(x, n, m, y);
  } else {
    if (y == nullptr) return lane_sum<T>(n, [&](int64_t i) { return ex(x[i] - m); });
    for (int64_t i = 0; i < n; ++i) y[i] = ex(x[i] - m);
    return row_sum(y, n);
  }
}

// max of x, NaN winning
template <class T>
OPSNN_VM_INLINE T lane_max(const T *x, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {  // four vector accumulators (auto-vectorisation stays scalar)
    bool nan = false;
    const float m = vec::extremum<true>(x, n, &nan);
    return nan ? std::numeric_limits<float>::quiet_NaN() : m;
  }
  T lane[kLanes];
  for (T &l : lane) l = -std::numeric_limits<T>::infinity();
  auto pick = [](T m, T v) { return (v > m || v != v) ? v : m; };
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) lane[k] = pick(lane[k], x[i + k]);
  for (int k = 0; i < n; ++i, ++k) lane[k] = pick(lane[k], x[i]);
  T m = lane[0];
  for (int k = 1; k < kLanes; ++k) m = (m != m) ? m : pick(m, lane[k]);
  return m;
}

// The output pass of a FLOAT line: y[i] = f(i) for a vector f over 16 elements at i (scalar f1 for
// the unaligned head and the tail); kNt: the 64-byte-aligned body by non-temporal stores
// (DimwiseLoop::stream_out); meanwhile the next line `pf` (n floats) is prefetched to L2, so its
// first pass reads from cache while this line's stores go out.
template <bool kNt, class F, class F1>
OPSNN_VM_INLINE void store_pass(float *y, int64_t n, const float *pf, F f, F1 f1) {
  int64_t i = 0;
  if constexpr (kNt)
    for (const int64_t head = vec::aligned_head(y, n); i < head; ++i) y[i] = f1(i);
  for (; i + vec::kF32 <= n; i += vec::kF32) {
    vec::prefetch_l2(pf + i);
    const vec::f32v v = f(i);
    if constexpr (kNt) vec::store_nt(y + i, v);
    else std::memcpy(y + i, &v, sizeof v);
  }
  for (; i < n; ++i) y[i] = f1(i);
}
template <class F, class F1>
OPSNN_VM_INLINE void store_pass(bool nt, float *y, int64_t n, const float *next, F f, F1 f1) {
  const float *pf = next != nullptr ? next : y;  // (no next line: prefetches of lines in L1)
  if (nt && vec::aligned_head(y, n) >= 0) store_pass<true>(y, n, pf, f, f1);
  else store_pass<false>(y, n, pf, f, f1);
}

// y = ((x - mean) * rstd) * gamma + beta (either may be null) for a FLOAT line, the roundings of the
// scalar expression, through store_pass.
inline void affine_line(const float *x, int64_t n, float mean, float rstd, const float *g, const float *b, float *y,
                        bool nt, const float *next) {
  const vec::f32v mv = vec::splat(mean), rv = vec::splat(rstd);
  auto run = [&](auto has_g, auto has_b) {
    store_pass(
        nt, y, n, next,
        [&](int64_t i) {
          vec::f32v t = (vec::load(x + i) - mv) * rv;
          if constexpr (has_g()) t = t * vec::load(g + i);
          if constexpr (has_b()) t = t + vec::load(b + i);
          return t;
        },
        [&](int64_t i) {
          float t = (x[i] - mean) * rstd;
          if constexpr (has_g()) t = t * g[i];
          if constexpr (has_b()) t = t + b[i];
          return t;
        });
  };
  using Y = std::true_type;
  using N = std::false_type;
  if (g != nullptr) b != nullptr ? run(Y{}, Y{}) : run(Y{}, N{});
  else b != nullptr ? run(N{}, Y{}) : run(N{}, N{});
}

// Normalisation of one line (layer / RMS / group norm): results y, mean, rstd, and the summed input.
// nt / next: see store_pass (FLOAT lines).
template <class T>
void normalize(const DimwiseParams &p, T *const *x, int64_t n, T *const *res, bool nt, const T *next) {
  if constexpr (std::is_floating_point_v<T>) {
    const T *v = x[0];
    if (p.add_input) {
      const T *a = x[0], *b = x[1];
      T *sum = res[3];
      if (p.alpha == 1) for (int64_t i = 0; i < n; ++i) sum[i] = a[i] + b[i];
      else for (int64_t i = 0; i < n; ++i) sum[i] = static_cast<T>(p.alpha) * a[i] + b[i];
      if (p.bias_in >= 0)
        for (int64_t i = 0; i < n; ++i) sum[i] += x[p.bias_in][i];
      v = sum;
    }
    const T mean = p.rms ? T(0) : row_sum(v, n) / static_cast<T>(n);
    const T var = row_sum_sq_dev(v, n, mean) / static_cast<T>(n);
    const T rstd = 1 / std::sqrt(var + static_cast<T>(p.eps));
    const T *gamma = p.gamma_in >= 0 ? x[p.gamma_in] : nullptr;
    const T *beta = p.beta_in >= 0 ? x[p.beta_in] : nullptr;
    T *y = res[0];
    // One pass for y = (x - mean) * rstd * gamma + beta while the row is still in L1 (the same
    // roundings as one pass per factor; separate passes cost LayerNorm a fifth of its time).
    const bool post = p.scale_in >= 0 || p.shift_in >= 0 || p.silu;  // passes over y after this one
    if constexpr (std::is_same_v<T, float>) {
      if (!p.gemma) affine_line(v, n, mean, rstd, gamma, beta, y, nt && !post, next);
    }
    if (!std::is_same_v<T, float> || p.gemma) {
      if (gamma == nullptr) for (int64_t i = 0; i < n; ++i) y[i] = (v[i] - mean) * rstd;
      else if (p.gemma) for (int64_t i = 0; i < n; ++i) y[i] = ((v[i] - mean) * rstd) * (1 + gamma[i]);
      else if (beta == nullptr) for (int64_t i = 0; i < n; ++i) y[i] = ((v[i] - mean) * rstd) * gamma[i];
      else for (int64_t i = 0; i < n; ++i) y[i] = ((v[i] - mean) * rstd) * gamma[i] + beta[i];
      if (beta != nullptr && (gamma == nullptr || p.gemma))
        for (int64_t i = 0; i < n; ++i) y[i] += beta[i];
    }
    if (p.scale_in >= 0)
      for (int64_t i = 0; i < n; ++i) y[i] *= 1 + x[p.scale_in][i];
    if (p.shift_in >= 0)
      for (int64_t i = 0; i < n; ++i) y[i] += x[p.shift_in][i];
    if (p.silu)
      for (int64_t i = 0; i < n; ++i) y[i] = y[i] / (1 + ex(-static_cast<T>(p.swish_scale) * y[i]));
    res[1][0] = mean;
    res[2][0] = rstd;
    res[4][0] = var;
  }
}

// One line: x[k] the n elements of input k; res[k] result k (indices as T); next: the next line's
// first input read in place, or null (prefetched by the row ops' output pass); nt: result 0 is the
// output in place and DimwiseLoop::stream_out asks for non-temporal stores.
template <class T>
void line(const DimwiseLoop &L, T *const *xs, int64_t n, T *const *res, KeyPos *pairs, const T *next, bool nt) {
  const T *x = xs[0], *x2 = xs[1];
  T *y0 = res[0], *y1 = res[1];
  switch (L.op) {
    case DimwiseOp::kNormalize: normalize(L.params, xs, n, res, nt, next); return;
    case DimwiseOp::kMaskedSoftmax: {  // softmax of scale * x + mask + bias (a row of -inf: NaN)
      if constexpr (std::is_floating_point_v<T>) {
        const T sc = static_cast<T>(L.params.scale);
        for (int64_t i = 0; i < n; ++i) y0[i] = sc * x[i];
        if (L.params.mask_in >= 0)
          for (int64_t i = 0; i < n; ++i) y0[i] += xs[L.params.mask_in][i];
        if (L.params.pos_bias_in >= 0)
          for (int64_t i = 0; i < n; ++i) y0[i] += xs[L.params.pos_bias_in][i];
        const T s = exp_shifted_sum(y0, n, lane_max(y0, n), y0);
        const T inv = 1 / s;
        for (int64_t i = 0; i < n; ++i) y0[i] *= inv;
      }
      return;
    }
    case DimwiseOp::kRenorm: {  // torch.renorm: the line is one sub-tensor; its p-norm bounded by maxnorm
      if constexpr (std::is_floating_point_v<T>) {
        const double p = L.params.p;
        T norm;
        if (p == 1) {
          norm = lane_sum<T>(n, [&](int64_t i) { return std::fabs(x[i]); });
        } else if (p == 2) {
          norm = std::sqrt(lane_sum<T>(n, [&](int64_t i) { return x[i] * x[i]; }));
        } else if (std::isinf(p)) {
          norm = 0;
          for (int64_t i = 0; i < n; ++i) {
            const T a = std::fabs(x[i]);
            norm = (a > norm || a != a) ? a : norm;
            if (a != a) break;
          }
        } else {
          const T tp = static_cast<T>(p);
          norm = std::pow(lane_sum<T>(n, [&](int64_t i) { return std::pow(std::fabs(x[i]), tp); }), 1 / tp);
        }
        const T maxnorm = static_cast<T>(L.params.maxnorm);
        const T factor = norm > maxnorm ? maxnorm / (norm + static_cast<T>(1e-7)) : T(1);
        for (int64_t i = 0; i < n; ++i) y0[i] = x[i] * factor;
      }
      return;
    }
    case DimwiseOp::kRope: {  // rotate: half mode cat(-x2, x1); interleave mode pairs (a, b) -> (-b, a)
      const T *cs = xs[1], *sn = xs[2];
      if (L.params.k == 0) {
        const int64_t h = n / 2;
        for (int64_t i = 0; i < h; ++i) {
          y0[i] = x[i] * cs[i] - x[i + h] * sn[i];
          y0[i + h] = x[i + h] * cs[i + h] + x[i] * sn[i + h];
        }
      } else {
        for (int64_t i = 0; i + 1 < n; i += 2) {
          y0[i] = x[i] * cs[i] - x[i + 1] * sn[i];
          y0[i + 1] = x[i + 1] * cs[i + 1] + x[i] * sn[i + 1];
        }
      }
      return;
    }
    case DimwiseOp::kSoftmaxCrossEntropy: {  // loss = -sum(labels * log_softmax), backprop = softmax - labels
      if constexpr (std::is_floating_point_v<T>) {
        const T m = lane_max(x, n);
        const T s = exp_shifted_sum(x, n, m, y1);
        const T ls = lg(s), inv = 1 / s;
        y0[0] = -lane_sum<T>(n, [&](int64_t i) { return x2[i] * (x[i] - m - ls); });
        for (int64_t i = 0; i < n; ++i) y1[i] = y1[i] * inv - x2[i];
      }
      return;
    }
    case DimwiseOp::kSoftmax: case DimwiseOp::kLogSoftmax: {
      // Passes over the line: the max; exp(x - max) and its sum (stored for softmax); the scale, or
      // x - max - log(sum).
      if constexpr (std::is_floating_point_v<T>) {
        const T m = lane_max(x, n);
        if (L.op == DimwiseOp::kSoftmax) {
          const T inv = 1 / exp_shifted_sum(x, n, m, y0);
          for (int64_t i = 0; i < n; ++i) y0[i] *= inv;
        } else {
          const T ls = lg(exp_shifted_sum(x, n, m, static_cast<T *>(nullptr)));
          // (not x - (m + ls): m may dwarf ls)
          if constexpr (std::is_same_v<T, float>) {
            const vec::f32v mv = vec::splat(m), lv = vec::splat(ls);
            store_pass(nt, y0, n, next, [&](int64_t i) { return vec::load(x + i) - mv - lv; },
                       [&](int64_t i) { return x[i] - m - ls; });
          } else {
            for (int64_t i = 0; i < n; ++i) y0[i] = x[i] - m - ls;
          }
        }
      }
      return;
    }
    case DimwiseOp::kSoftmaxBackward: {  // x = gradOutput, x2 = softmax output
      const T dot = lane_sum<T>(n, [&](int64_t i) { return x[i] * x2[i]; });
      for (int64_t i = 0; i < n; ++i) y0[i] = x2[i] * (x[i] - dot);
      return;
    }
    case DimwiseOp::kLogSoftmaxBackward: {  // x = gradOutput, x2 = log-softmax output
      if constexpr (std::is_floating_point_v<T>) {
        const T sum = lane_sum<T>(n, [&](int64_t i) { return x[i]; });
        for (int64_t i = 0; i < n; ++i) y0[i] = x[i] - ex(x2[i]) * sum;
      }
      return;
    }
    case DimwiseOp::kCumsum: case DimwiseOp::kCumprod: {
      const bool sum = L.op == DimwiseOp::kCumsum;
      T acc = sum ? T(0) : T(1);
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<T>) {  // wrapping, as PyTorch's integer cumsum
          acc = static_cast<T>(sum ? static_cast<uint64_t>(acc) + static_cast<uint64_t>(x[i])
                                   : static_cast<uint64_t>(acc) * static_cast<uint64_t>(x[i]));
        } else {
          acc = sum ? acc + x[i] : acc * x[i];
        }
        y0[i] = acc;
      }
      return;
    }
    case DimwiseOp::kCummax: case DimwiseOp::kCummin: {
      // PyTorch's rule: an element at least as large (small) as the running value, or a NaN,
      // replaces it (ties take the later index); once the running value is NaN it stays.
      const bool mx = L.op == DimwiseOp::kCummax;
      T best = n > 0 ? x[0] : T(0);
      int64_t at = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T v = x[i];
        if (!is_nan(best) && (is_nan(v) || (mx ? v >= best : v <= best))) {
          best = v;
          at = i;
        }
        y0[i] = best;
        y1[i] = static_cast<T>(at);
      }
      return;
    }
    case DimwiseOp::kSort: case DimwiseOp::kTopk:
      sorted_prefix(x, n, L.out_len[0], L.params.descending, pairs, y0, y1);
      return;
    case DimwiseOp::kKthvalue: case DimwiseOp::kMedian: case DimwiseOp::kNanMedian: {
      if (n == 0) {
        y0[0] = T(0);
        y1[0] = T(0);
        return;
      }
      int64_t pick = 0;
      if (L.op == DimwiseOp::kKthvalue) {
        pick = L.params.k - 1;
      } else {
        int64_t valid = n;  // NaNs sort last
        for (int64_t i = 0; i < n; ++i) valid -= is_nan(x[i]) ? 1 : 0;
        if (L.op == DimwiseOp::kMedian && valid < n) pick = valid;  // any NaN: the (first) NaN
        else pick = valid > 0 ? (valid - 1) / 2 : 0;              // (all NaN: nanmedian gives the first NaN)
      }
      const int64_t at = select_position(x, n, pick, pairs);
      y0[0] = x[at];
      y1[0] = static_cast<T>(at);
      return;
    }
  }
}

// The dtype whose memory already is a line of T (read and written in place, no gather / scatter).
template <class T>
aclDataType storage_of() {
  if constexpr (std::is_integral_v<T>) return ACL_INT64;
  else if constexpr (std::is_same_v<T, float>) return ACL_FLOAT;
  else return ACL_DOUBLE;
}

// Byte offset of line element r (row-major over the line dims) for strides `st`.
inline int64_t line_offset(const DimwiseLoop &L, const int64_t *st, int64_t r) {
  int64_t off = 0;
  for (int d = L.nline - 1; d >= 0; --d) {
    off += (r % L.line_shape[d]) * st[d];
    r /= L.line_shape[d];
  }
  return off;
}

template <class T>
void run_lines(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch, int64_t l0, int64_t l1) {
  // Scratch: one line per input, one per result, the sort's key / position pairs.
  T *scratch_in[kDimwiseMaxIo] = {}, *scratch_res[kDimwiseMaxIo] = {};
  T *p = reinterpret_cast<T *>(scratch);
  for (int k = 0; k < L.nin; ++k, p += L.len) scratch_in[k] = p;
  for (int k = 0; k < kDimwiseMaxIo; ++k, p += L.len) scratch_res[k] = p;
  // The pairs: the next 8-byte boundary (float lines may end at 4 mod 8); within the scratch.
  auto *pairs = reinterpret_cast<KeyPos *>((reinterpret_cast<uintptr_t>(p) + 7) & ~uintptr_t{7});
  const int64_t inner = L.nline > 0 ? L.line_shape[L.nline - 1] : 1;
  // Lines that already are contiguous compute-type memory are used in place (no gather / scatter):
  // an input read directly; a full-length output written directly unless it overlaps an input line.
  const int64_t es = static_cast<int64_t>(sizeof(T));
  auto dense = [&](aclDataType dt, const int64_t *st) { return dt == storage_of<T>() && L.nline == 1 && st[0] == es; };
  bool direct_in[kDimwiseMaxIo] = {}, direct_out[kDimwiseMaxIo] = {};
  for (int k = 0; k < L.nin; ++k) direct_in[k] = dense(L.in_dtype[k], L.in_line[k]);
  for (int k = 0; k < L.nout; ++k) direct_out[k] = L.out_len[k] == L.len && dense(L.out_dtype[k], L.out_line[k]);
  T *xs[kDimwiseMaxIo] = {}, *res[kDimwiseMaxIo] = {};
  auto offsets = [&](int64_t l, int64_t *in_off, int64_t *out_off) {
    for (int d = L.nouter - 1; d >= 0; --d) {
      const int64_t i = l % L.outer_shape[d];
      l /= L.outer_shape[d];
      for (int k = 0; k < L.nin; ++k) in_off[k] += i * L.in_outer[k][d];
      for (int k = 0; k < L.nout; ++k) out_off[k] += i * L.out_outer[k][d];
    }
  };
  int64_t next_in[kDimwiseMaxIo] = {}, next_out[kDimwiseMaxIo] = {};
  if (l0 < l1) offsets(l0, next_in, next_out);
  for (int64_t l = l0; l < l1; ++l) {
    int64_t in_off[kDimwiseMaxIo], out_off[kDimwiseMaxIo];
    std::copy(next_in, next_in + kDimwiseMaxIo, in_off);
    std::copy(next_out, next_out + kDimwiseMaxIo, out_off);
    std::fill(next_in, next_in + kDimwiseMaxIo, int64_t{0});
    std::fill(next_out, next_out + kDimwiseMaxIo, int64_t{0});
    if (l + 1 < l1) offsets(l + 1, next_in, next_out);
    const T *next = direct_in[0] && l + 1 < l1 ? reinterpret_cast<const T *>(in[0] + next_in[0]) : nullptr;
    // Gather each input line, one innermost run of the line dims at a time.
    for (int k = 0; k < L.nin; ++k) {
      const char *src = in[k] + in_off[k];
      if (direct_in[k]) {
        xs[k] = const_cast<T *>(reinterpret_cast<const T *>(src));
        continue;
      }
      xs[k] = scratch_in[k];
      const int64_t st = L.nline > 0 ? L.in_line[k][L.nline - 1] : 0;
      for (int64_t r = 0; r < L.len; r += inner)
        load_as<T>(L.in_dtype[k], src + line_offset(L, L.in_line[k], r), st, xs[k] + r, inner);
    }
    for (int k = 0; k < kDimwiseMaxIo; ++k) res[k] = scratch_res[k];
    bool wrote[kDimwiseMaxIo] = {}, claimed[kDimwiseMaxIo] = {};
    for (int k = 0; k < L.nout; ++k) {
      // (a result feeding two outputs is computed into the first one's memory only)
      if (!direct_out[k] || claimed[L.out_src[k]]) continue;
      const char *lo = out[k] + out_off[k], *hi = lo + L.len * es;
      bool overlaps = false;
      for (int i = 0; i < L.nin; ++i) {
        const char *a = in[i] + in_off[i];
        overlaps = overlaps || (a < hi && a + L.len * es > lo) || !direct_in[i];  // strided inputs: be safe
      }
      if (overlaps) continue;
      res[L.out_src[k]] = reinterpret_cast<T *>(out[k] + out_off[k]);
      wrote[k] = claimed[L.out_src[k]] = true;
    }
    line<T>(L, xs, L.len, res, pairs, next, L.stream_out && claimed[0]);
    // Scatter: full-length results along the line dims; top-k along its one dim; single results.
    for (int k = 0; k < L.nout; ++k) {
      if (wrote[k]) continue;
      const T *y = res[L.out_src[k]];
      char *base = out[k] + out_off[k];
      const int64_t st = L.nline > 0 ? L.out_line[k][L.nline - 1] : 0;
      if (L.out_len[k] == L.len && L.len > 1) {
        for (int64_t r = 0; r < L.len; r += inner)
          store_from<T>(y + r, L.out_dtype[k], base + line_offset(L, L.out_line[k], r), st, inner);
      } else {
        store_from<T>(y, L.out_dtype[k], base, st, L.out_len[k]);
      }
    }
  }
  if (L.stream_out) vec::store_fence();
}


// FLOAT cumsum without the gather / scatter through double lines: the same double accumulator and
// order per line (results identical to the generic path), read and written as floats in place.
// Unit-stride lines are scanned kCumLines at a time (independent add chains hide the add latency);
// lines along a strided dim whose neighbours are adjacent floats (the innermost outer dim has
// stride 4 in and out) kCumBlock at a time, one row of neighbours per step (vectorised across the
// lines). False: not this case.
constexpr int64_t kCumBlock = 256, kCumLines = 4;
inline bool cumsum_float_in_place(const DimwiseLoop &L, const char *const *in, char *const *out, int64_t l0,
                                  int64_t l1) {
  if (L.op != DimwiseOp::kCumsum || L.compute != core::ComputeType::kDouble || L.nin != 1 || L.nout != 1 ||
      L.nline != 1 || L.in_dtype[0] != ACL_FLOAT || L.out_dtype[0] != ACL_FLOAT || L.out_len[0] != L.len)
    return false;
  const int64_t si = L.in_line[0][0], so = L.out_line[0][0], n = L.len;
  const int last = L.nouter - 1;
  const bool rows = si != 4 && last >= 0 && L.in_outer[0][last] == 4 && L.out_outer[0][last] == 4;
  if (!(si == 4 && so == 4) && !rows) return false;
  const int64_t width = rows ? L.outer_shape[last] : 1;
  auto offsets = [&](int64_t l, int64_t *in_off, int64_t *out_off) {
    *in_off = *out_off = 0;
    for (int d = L.nouter - 1; d >= 0; --d) {
      const int64_t i = l % L.outer_shape[d];
      l /= L.outer_shape[d];
      *in_off += i * L.in_outer[0][d];
      *out_off += i * L.out_outer[0][d];
    }
  };
  for (int64_t l = l0; l < l1;) {
    if (!rows) {
      // kCumLines unit-stride lines at once: independent add chains, each line in its own order.
      const int64_t c = std::min(kCumLines, l1 - l);
      const float *xf[kCumLines];
      float *yf[kCumLines];
      for (int64_t k = 0; k < c; ++k) {
        int64_t io = 0, oo = 0;
        offsets(l + k, &io, &oo);
        xf[k] = reinterpret_cast<const float *>(in[0] + io);
        yf[k] = reinterpret_cast<float *>(out[0] + oo);
      }
      double acc[kCumLines] = {};
      if (c == kCumLines) {
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < kCumLines; ++k) {
            acc[k] += static_cast<double>(xf[k][i]);
            yf[k][i] = static_cast<float>(acc[k]);
          }
      } else {
        for (int64_t k = 0; k < c; ++k)
          for (int64_t i = 0; i < n; ++i) {
            acc[k] += static_cast<double>(xf[k][i]);
            yf[k][i] = static_cast<float>(acc[k]);
          }
      }
      l += c;
      continue;
    }
    int64_t in_off = 0, out_off = 0;
    offsets(l, &in_off, &out_off);
    const char *x = in[0] + in_off;
    char *y = out[0] + out_off;
    const int64_t c = std::min({kCumBlock, width - l % width, l1 - l});
    double acc[kCumBlock];
    std::fill(acc, acc + c, 0.0);
    for (int64_t i = 0; i < n; ++i) {
      const auto *xr = reinterpret_cast<const float *>(x + i * si);
      auto *yr = reinterpret_cast<float *>(y + i * so);
      for (int64_t j = 0; j < c; ++j) {
        acc[j] += static_cast<double>(xr[j]);
        yr[j] = static_cast<float>(acc[j]);
      }
    }
    l += c;
  }
  return true;
}

// FLOAT top-k with k * 64 <= n along a unit-stride line: the line is read in place through
// sorted_prefix_f32 (no gather into double), the k results go through the scratch. False: not this case.
inline bool topk_float_in_place(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch,
                                int64_t l0, int64_t l1) {
  const int64_t n = L.len, k = L.out_len[0];
  if (L.op != DimwiseOp::kTopk || L.compute != core::ComputeType::kDouble || L.nin != 1 || L.nline != 1 ||
      L.in_dtype[0] != ACL_FLOAT || L.in_line[0][0] != 4 || k <= 0 || k * 64 > n)
    return false;
  for (int o = 0; o < L.nout; ++o)
    if (L.out_src[o] > 1) return false;
  auto *res = reinterpret_cast<double *>(scratch);  // values, positions, then the heap
  double *const result[2] = {res, res + k};
  auto *heap = reinterpret_cast<KeyPos *>(res + 2 * k);
  for (int64_t l = l0; l < l1; ++l) {
    int64_t in_off = 0, out_off[kDimwiseMaxIo] = {};
    for (int64_t d = L.nouter - 1, rem = l; d >= 0; --d) {
      const int64_t i = rem % L.outer_shape[d];
      rem /= L.outer_shape[d];
      in_off += i * L.in_outer[0][d];
      for (int o = 0; o < L.nout; ++o) out_off[o] += i * L.out_outer[o][d];
    }
    sorted_prefix_f32(reinterpret_cast<const float *>(in[0] + in_off), n, k, L.params.descending, heap, result[0],
                      result[1]);
    for (int o = 0; o < L.nout; ++o)
      store_from<double>(result[L.out_src[o]], L.out_dtype[o], out[o] + out_off[o], L.out_line[o][0], k);
  }
  return true;
}

// FLOAT softmax / log-softmax lines that phase 1 gave to softmax_rows (DimwiseLoop::softmax_rows),
// read and written in place. False (the line path runs) when the output overlaps the input other
// than exactly (in place). Non-temporal stores where phase 1 asked for them and every output row is
// 64-byte aligned and a whole number of vectors.
inline bool softmax_float_rows(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch,
                               int64_t l0, int64_t l1) {
  if (!L.softmax_rows || l0 >= l1) return false;
  const int64_t n = L.len;
  if (n == 0) return true;
  // The byte spans of input and output (the outer strides may be negative only in theory: views here
  // have non-negative strides, but stay safe).
  auto span = [&](const int64_t *st, const char *base, const char **lo, const char **hi) {
    int64_t a = 0, b = (n - 1) * 4 + 4;
    for (int d = 0; d < L.nouter; ++d) (st[d] < 0 ? a : b) += (L.outer_shape[d] - 1) * st[d];
    *lo = base + a;
    *hi = base + b;
  };
  const char *ilo, *ihi, *olo, *ohi;
  span(L.in_outer[0], in[0], &ilo, &ihi);
  span(L.out_outer[0], out[0], &olo, &ohi);
  const bool same = in[0] == out[0] && std::equal(L.in_outer[0], L.in_outer[0] + L.nouter, L.out_outer[0]);
  if (!same && olo < ihi && ilo < ohi) return false;
  bool nt = L.stream_out && n % vec::kF32 == 0 && reinterpret_cast<uintptr_t>(out[0]) % 64 == 0;
  for (int d = 0; d < L.nouter; ++d) nt = nt && L.out_outer[0][d] % 64 == 0;
  // The rows in order: an odometer over the outer dims from line l0.
  int64_t idx[kMaxLoopDims] = {}, ioff = 0, ooff = 0;
  for (int64_t d = L.nouter - 1, rem = l0; d >= 0; --d) {
    idx[d] = rem % L.outer_shape[d];
    rem /= L.outer_shape[d];
    ioff += idx[d] * L.in_outer[0][d];
    ooff += idx[d] * L.out_outer[0][d];
  }
  auto next_row = [&](const float **x, float **y) {
    *x = reinterpret_cast<const float *>(in[0] + ioff);
    *y = reinterpret_cast<float *>(out[0] + ooff);
    for (int d = L.nouter - 1; d >= 0; --d) {
      ioff += L.in_outer[0][d];
      ooff += L.out_outer[0][d];
      if (++idx[d] < L.outer_shape[d]) break;
      ioff -= idx[d] * L.in_outer[0][d];
      ooff -= idx[d] * L.out_outer[0][d];
      idx[d] = 0;
    }
  };
  auto *ring = reinterpret_cast<float *>(scratch);
  const bool lg = L.op == DimwiseOp::kLogSoftmax;
  if (nt) {
    if (lg) softmax_rows<true, true>(l1 - l0, n, next_row, ring);
    else softmax_rows<false, true>(l1 - l0, n, next_row, ring);
    vec::store_fence();
  } else {
    if (lg) softmax_rows<true, false>(l1 - l0, n, next_row, ring);
    else softmax_rows<false, false>(l1 - l0, n, next_row, ring);
  }
  return true;
}

// Lines [l0, l1) of the loop in the compute type.
inline void run_lines_any(const DimwiseLoop &L, const char *const *in, char *const *out, char *scratch, int64_t l0,
                          int64_t l1) {
  if (cumsum_float_in_place(L, in, out, l0, l1) || topk_float_in_place(L, in, out, scratch, l0, l1) ||
      softmax_float_rows(L, in, out, scratch, l0, l1))
    return;
  switch (L.compute) {
    case core::ComputeType::kInt64: run_lines<int64_t>(L, in, out, scratch, l0, l1); break;
    case core::ComputeType::kFloat: run_lines<float>(L, in, out, scratch, l0, l1); break;
    default: run_lines<double>(L, in, out, scratch, l0, l1); break;
  }
}

}  // namespace
}  // namespace opsnn::kernels::dimwise_impl

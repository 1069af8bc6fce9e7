#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "core/thread_pool.h"
#include "kernels/dimwise/dimwise.h"
#include "kernels/elementwise/convert.h"

namespace opsnn::kernels {
namespace {

template <class T>
bool is_nan(T x) {
  if constexpr (std::is_integral_v<T>) return false;
  else return x != x;
}

// Sorting order with NaN as the largest value (PyTorch): ascending puts NaNs last, descending first.
template <class T>
bool before(T a, T b, bool descending) {
  if (descending) return is_nan(a) ? !is_nan(b) : (!is_nan(b) && a > b);
  return is_nan(b) ? !is_nan(a) : (!is_nan(a) && a < b);
}

// idx[0..n) ordered by x (stable: ties keep their positions).
template <class T>
void sort_indices(const T *x, int64_t n, bool descending, int64_t *idx) {
  std::iota(idx, idx + n, int64_t{0});
  std::stable_sort(idx, idx + n, [&](int64_t a, int64_t b) { return before(x[a], x[b], descending); });
}

// Normalisation of one line (layer / RMS / group norm): results y, mean, rstd, and the summed input.
template <class T>
void normalize(const DimwiseParams &p, T *const *x, int64_t n, T *const *res) {
  if constexpr (std::is_floating_point_v<T>) {
    T *v = x[0];
    if (p.add_input) {
      for (int64_t i = 0; i < n; ++i) res[3][i] = v[i] + x[1][i];
      v = res[3];
    }
    T mean = 0;
    if (!p.rms) {
      for (int64_t i = 0; i < n; ++i) mean += v[i];
      mean /= static_cast<T>(n);
    }
    T var = 0;
    for (int64_t i = 0; i < n; ++i) var += (v[i] - mean) * (v[i] - mean);
    var /= static_cast<T>(n);
    const T rstd = 1 / std::sqrt(var + static_cast<T>(p.eps));
    const T *gamma = p.gamma_in >= 0 ? x[p.gamma_in] : nullptr;
    const T *beta = p.beta_in >= 0 ? x[p.beta_in] : nullptr;
    for (int64_t i = 0; i < n; ++i) {
      T y = (v[i] - mean) * rstd;
      if (gamma != nullptr) y *= p.gemma ? 1 + gamma[i] : gamma[i];
      if (beta != nullptr) y += beta[i];
      if (p.silu) y = y / (1 + std::exp(-y));
      res[0][i] = y;
    }
    res[1][0] = mean;
    res[2][0] = rstd;
  }
}

// One line: x[k] the n elements of input k; res[k] result k (indices as T).
template <class T>
void line(const DimwiseLoop &L, T *const *xs, int64_t n, T *const *res, int64_t *idx) {
  const T *x = xs[0], *x2 = xs[1];
  T *y0 = res[0], *y1 = res[1];
  switch (L.op) {
    case DimwiseOp::kNormalize: normalize(L.params, xs, n, res); return;
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
        T m = -INFINITY;
        for (int64_t i = 0; i < n; ++i) m = (is_nan(x[i]) || x[i] > m) && !is_nan(m) ? x[i] : m;
        T s = 0;
        for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
        const T ls = std::log(s);
        T loss = 0;
        for (int64_t i = 0; i < n; ++i) {
          loss -= x2[i] * (x[i] - m - ls);
          y1[i] = std::exp(x[i] - m) / s - x2[i];
        }
        y0[0] = loss;
      }
      return;
    }
    case DimwiseOp::kSoftmax: case DimwiseOp::kLogSoftmax: {
      if constexpr (std::is_floating_point_v<T>) {
        T m = -INFINITY;
        for (int64_t i = 0; i < n; ++i) m = (is_nan(x[i]) || x[i] > m) && !is_nan(m) ? x[i] : m;
        T s = 0;
        for (int64_t i = 0; i < n; ++i) s += std::exp(x[i] - m);
        if (L.op == DimwiseOp::kSoftmax) {
          const T inv = 1 / s;
          for (int64_t i = 0; i < n; ++i) y0[i] = std::exp(x[i] - m) * inv;
        } else {
          const T ls = std::log(s);
          for (int64_t i = 0; i < n; ++i) y0[i] = x[i] - m - ls;
        }
      }
      return;
    }
    case DimwiseOp::kSoftmaxBackward: {  // x = gradOutput, x2 = softmax output
      T dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += x[i] * x2[i];
      for (int64_t i = 0; i < n; ++i) y0[i] = x2[i] * (x[i] - dot);
      return;
    }
    case DimwiseOp::kLogSoftmaxBackward: {  // x = gradOutput, x2 = log-softmax output
      if constexpr (std::is_floating_point_v<T>) {
        T sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += x[i];
        for (int64_t i = 0; i < n; ++i) y0[i] = x[i] - std::exp(x2[i]) * sum;
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
    case DimwiseOp::kSort: case DimwiseOp::kTopk: {
      sort_indices(x, n, L.params.descending, idx);
      for (int64_t i = 0; i < L.out_len[0]; ++i) {
        y0[i] = x[idx[i]];
        y1[i] = static_cast<T>(idx[i]);
      }
      return;
    }
    case DimwiseOp::kKthvalue: case DimwiseOp::kMedian: case DimwiseOp::kNanMedian: {
      sort_indices(x, n, false, idx);
      int64_t pick = 0;
      if (L.op == DimwiseOp::kKthvalue) {
        pick = L.params.k - 1;
      } else {
        int64_t valid = n;  // NaNs sort last
        while (valid > 0 && is_nan(x[idx[valid - 1]])) --valid;
        if (L.op == DimwiseOp::kMedian && valid < n) pick = valid;  // any NaN: the (first) NaN
        else pick = valid > 0 ? (valid - 1) / 2 : 0;
      }
      y0[0] = n > 0 ? x[idx[pick]] : T(0);
      y1[0] = static_cast<T>(n > 0 ? idx[pick] : 0);  // (all NaN: nanmedian gives the first NaN)
      return;
    }
  }
}

template <class T>
aclDataType storage_of() {
  return std::is_integral_v<T> ? ACL_INT64 : ACL_DOUBLE;
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
  // Scratch: one line per input, one per result, the sort's indices.
  T *xs[kDimwiseMaxIo] = {}, *res[kDimwiseMaxIo] = {};
  T *p = reinterpret_cast<T *>(scratch);
  for (int k = 0; k < L.nin; ++k, p += L.len) xs[k] = p;
  for (int k = 0; k < kDimwiseMaxIo; ++k, p += L.len) res[k] = p;
  auto *idx = reinterpret_cast<int64_t *>(p);
  const int64_t inner = L.nline > 0 ? L.line_shape[L.nline - 1] : 1;
  for (int64_t l = l0; l < l1; ++l) {
    int64_t in_off[kDimwiseMaxIo] = {}, out_off[kDimwiseMaxIo] = {};
    int64_t rem = l;
    for (int d = L.nouter - 1; d >= 0; --d) {
      const int64_t i = rem % L.outer_shape[d];
      rem /= L.outer_shape[d];
      for (int k = 0; k < L.nin; ++k) in_off[k] += i * L.in_outer[k][d];
      for (int k = 0; k < L.nout; ++k) out_off[k] += i * L.out_outer[k][d];
    }
    // Gather each input line, one innermost run of the line dims at a time.
    for (int k = 0; k < L.nin; ++k) {
      const int64_t st = L.nline > 0 ? L.in_line[k][L.nline - 1] : 0;
      for (int64_t r = 0; r < L.len; r += inner)
        load_as<T>(L.in_dtype[k], in[k] + in_off[k] + line_offset(L, L.in_line[k], r), st, xs[k] + r, inner);
    }
    line<T>(L, xs, L.len, res, idx);
    // Scatter: full-length results along the line dims; top-k along its one dim; single results.
    for (int k = 0; k < L.nout; ++k) {
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
}

}  // namespace

const char *dimwise_op_name(DimwiseOp op) {
  switch (op) {
    case DimwiseOp::kSoftmax: return "softmax";
    case DimwiseOp::kLogSoftmax: return "log_softmax";
    case DimwiseOp::kSoftmaxBackward: return "softmax_backward";
    case DimwiseOp::kLogSoftmaxBackward: return "log_softmax_backward";
    case DimwiseOp::kCumsum: return "cumsum";
    case DimwiseOp::kCumprod: return "cumprod";
    case DimwiseOp::kSort: return "sort";
    case DimwiseOp::kTopk: return "topk";
    case DimwiseOp::kKthvalue: return "kthvalue";
    case DimwiseOp::kMedian: return "median";
    case DimwiseOp::kNanMedian: return "nanmedian";
    case DimwiseOp::kNormalize: return "normalize";
    case DimwiseOp::kSoftmaxCrossEntropy: return "softmax_cross_entropy";
    case DimwiseOp::kRope: return "rope";
  }
  return "?";
}

void finish_dimwise_plan(DimwiseLoop &L, int max_tasks) {
  L.len = 1;
  for (int d = 0; d < L.nline; ++d) L.len *= L.line_shape[d];
  L.lines = 1;
  for (int d = 0; d < L.nouter; ++d) L.lines *= L.outer_shape[d];
  // Scratch per task: a line per input and per result, the sort's indices (8-byte elements).
  L.scratch_bytes_per_task = static_cast<uint64_t>(std::max<int64_t>(L.len, 1)) * (L.nin + kDimwiseMaxIo + 1) * 8;
  L.tasks = std::max<int64_t>(1, std::min<int64_t>(L.lines, max_tasks));
}

void run_dimwise(const DimwiseLoop &L, const char *const *in, char *const *out, void *workspace) {
  if (L.lines == 0) return;
  auto *ws = static_cast<char *>(workspace);
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t l0 = L.lines * t / L.tasks, l1 = L.lines * (t + 1) / L.tasks;
      char *scratch = ws + t * static_cast<int64_t>(L.scratch_bytes_per_task);
      if (L.compute == core::ComputeType::kInt64) run_lines<int64_t>(L, in, out, scratch, l0, l1);
      else run_lines<double>(L, in, out, scratch, l0, l1);
    }
  };
  if (L.tasks == 1) body(0, 1);
  else core::parallel_for(L.tasks, 1, body);
}

}  // namespace opsnn::kernels

#include "ops/layout/layout_steps.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/error.h"
#include "core/dtype.h"
#include "core/op_checks.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/elementwise/convert.h"
#include "kernels/elementwise/stream_copy.h"
#include "kernels/layout/transpose_tile.h"
#include "ops/layout/view_walk.h"

namespace opsnn::ops {
namespace {

template <size_t N>
void copy_or_zero(char *dst, int64_t dst_stride, const char *src, int64_t src_stride, int64_t begin, int64_t end,
                  int64_t cols) {
  static const unsigned char zero[8] = {};
  for (int64_t j = 0; j < cols; ++j) {
    const bool keep = j >= begin && j < end;
    std::memcpy(dst + j * dst_stride, keep ? src + j * src_stride : reinterpret_cast<const char *>(zero), N);
  }
}

class TriangleStep final : public core::Step {
 public:
  aclTensor in{}, out{};
  int in_slot = -1, out_slot = -1;
  bool lower = true;
  int64_t diagonal = 0;

  int run(const core::LaunchArgs &args) const override {
    const size_t es = core::dtype_size(out.dtype);
    const char *src = core::view_base(args, in_slot, in, es);
    char *dst = core::view_base(args, out_slot, out, es);
    const int64_t rows_per_matrix = out.dims[out.ndim - 2], cols = out.dims[out.ndim - 1];
    int64_t rows = 1;
    for (int d = 0; d < out.ndim - 1; ++d) rows *= out.dims[d];
    const int64_t ss = in.strides[in.ndim - 1] * static_cast<int64_t>(es);
    const int64_t ds = out.strides[out.ndim - 1] * static_cast<int64_t>(es);
    auto body = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r % rows_per_matrix;
        // tril keeps j <= i + diagonal; triu keeps j >= i + diagonal.
        const int64_t edge = i + diagonal;
        const int64_t begin = lower ? 0 : std::clamp<int64_t>(edge, 0, cols);
        const int64_t end = lower ? std::clamp<int64_t>(edge + 1, 0, cols) : cols;
        const char *s = src + row_offset(in, r) * static_cast<int64_t>(es);
        char *d = dst + row_offset(out, r) * static_cast<int64_t>(es);
        switch (es) {
          case 1: copy_or_zero<1>(d, ds, s, ss, begin, end, cols); break;
          case 2: copy_or_zero<2>(d, ds, s, ss, begin, end, cols); break;
          case 4: copy_or_zero<4>(d, ds, s, ss, begin, end, cols); break;
          default: copy_or_zero<8>(d, ds, s, ss, begin, end, cols); break;
        }
      }
    };
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(cols, 1));
    if (rows <= grain) body(0, rows);
    else core::parallel_for(rows, grain, body);
    return 0;
  }
};

class ArangeStep final : public core::Step {
 public:
  aclTensor out{};
  int out_slot = -1;
  bool integral = false;
  bool linspace = false;  // values from both ends (end used after the middle)
  double start = 0, step = 1, end = 0;
  int64_t istart = 0, istep = 1;

  int run(const core::LaunchArgs &args) const override {
    const size_t es = core::dtype_size(out.dtype);
    char *dst = core::view_base(args, out_slot, out, es);
    const int64_t n = out.dims[0], stride = out.strides[0] * static_cast<int64_t>(es);
    constexpr int64_t kChunk = 512;
    for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
      const int64_t len = std::min(kChunk, n - k0);
      if (integral) {
        int64_t buf[kChunk];
        for (int64_t k = 0; k < len; ++k) buf[k] = istart + (k0 + k) * istep;
        kernels::store_from<int64_t>(buf, out.dtype, dst + k0 * stride, stride, len);
      } else {
        double buf[kChunk];
        for (int64_t k = 0; k < len; ++k) {
          const int64_t i = k0 + k;
          buf[k] = linspace && i >= n / 2 ? end - step * static_cast<double>(n - i - 1)
                                          : start + static_cast<double>(i) * step;
        }
        kernels::store_from<double>(buf, out.dtype, dst + k0 * stride, stride, len);
      }
    }
    return 0;
  }
};

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// dst = dst + alpha * src, dst * src, max / min (a NaN wins), dst / src for one element, computed in T (INT64 for integers and BOOL,
// DOUBLE for floating dtypes) and stored back in dst's dtype.
template <class T>
void combine_one(const IndexPlan &p, const char *src, char *dst) {
  T a, b;
  kernels::load_as<T>(p.dst.dtype, dst, 0, &a, 1);
  kernels::load_as<T>(p.dst.dtype, src, 0, &b, 1);
  T r;
  if constexpr (std::is_integral_v<T>) {  // INT64 arithmetic wrapping around (as the narrower dtypes do)
    const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (p.combine) {
      case IndexPlan::Combine::kMul: r = static_cast<T>(ua * ub); break;
      case IndexPlan::Combine::kMax: r = a > b ? a : b; break;
      case IndexPlan::Combine::kMin: r = a < b ? a : b; break;
      case IndexPlan::Combine::kDiv:  // truncation; x / 0 = 0; x / -1 negates (wrapping, never a trap)
        r = b == 0 ? 0 : b == -1 ? static_cast<T>(0 - ua) : a / b;
        break;
      default: r = static_cast<T>(ua + static_cast<uint64_t>(static_cast<T>(p.alpha)) * ub); break;
    }
  } else {
    switch (p.combine) {
      case IndexPlan::Combine::kMul: r = a * b; break;
      case IndexPlan::Combine::kMax: r = is_nan(a) || a > b ? a : b; break;  // a NaN wins
      case IndexPlan::Combine::kMin: r = is_nan(a) || a < b ? a : b; break;
      case IndexPlan::Combine::kDiv: r = a / b; break;
      default: r = a + static_cast<T>(p.alpha) * b; break;
    }
  }
  kernels::store_from<T>(&r, p.dst.dtype, dst, 0, 1);
}
void combine_slab(const IndexPlan &p, const char *src, char *dst, size_t es) {
  int64_t n = 1;
  for (int d = 0; d < p.slab_ndim; ++d) n *= p.slab_dims[d];
  const bool floating = core::is_floating(p.dst.dtype);
  for (int64_t i = 0; i < n; ++i) {
    int64_t so = 0, doff = 0, rem = i;
    for (int d = p.slab_ndim - 1; d >= 0; --d) {
      so += (rem % p.slab_dims[d]) * p.slab_src[d];
      doff += (rem % p.slab_dims[d]) * p.slab_dst[d];
      rem /= p.slab_dims[d];
    }
    const char *s = src + so * static_cast<int64_t>(es);
    char *d = dst + doff * static_cast<int64_t>(es);
    if (floating) combine_one<double>(p, s, d);
    else combine_one<int64_t>(p, s, d);
  }
}

// Copies one slab of es-byte elements (row-major over dims; contiguous inner rows by memcpy).
void copy_slab(const IndexPlan &p, const char *src, char *dst, size_t es) {
  if (p.combine != IndexPlan::Combine::kReplace) return combine_slab(p, src, dst, es);
  const int nd = p.slab_ndim;
  if (nd == 0) {
    std::memcpy(dst, src, es);
    return;
  }
  const int64_t inner = p.slab_dims[nd - 1];
  const int64_t is = p.slab_src[nd - 1] * static_cast<int64_t>(es), os = p.slab_dst[nd - 1] * static_cast<int64_t>(es);
  const bool rows = is == static_cast<int64_t>(es) && os == static_cast<int64_t>(es);
  int64_t outer = 1;
  for (int d = 0; d < nd - 1; ++d) outer *= p.slab_dims[d];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t so = 0, doff = 0, rem = o;
    for (int d = nd - 2; d >= 0; --d) {
      const int64_t i = rem % p.slab_dims[d];
      rem /= p.slab_dims[d];
      so += i * p.slab_src[d];
      doff += i * p.slab_dst[d];
    }
    const char *s = src + so * static_cast<int64_t>(es);
    char *d = dst + doff * static_cast<int64_t>(es);
    if (rows) {
      std::memcpy(d, s, static_cast<size_t>(inner) * es);
    } else {
      for (int64_t j = 0; j < inner; ++j) std::memcpy(d + j * os, s + j * is, es);
    }
  }
}

class IndexStep final : public core::Step {
 public:
  IndexPlan p;

  int64_t positions() const {
    int64_t n = 1;
    for (int d = 0; d < p.pos_ndim; ++d) n *= p.pos_dims[d];
    return n;
  }
  // The k-th index value (row-major over the index's dims).
  int64_t index_at(const char *base, int64_t k) const {
    int64_t off = 0;
    for (int d = p.index.ndim - 1; d >= 0; --d) {
      off += (k % p.index.dims[d]) * p.index.strides[d];
      k /= p.index.dims[d];
    }
    if (p.index.dtype == ACL_INT32) {
      int32_t v;
      std::memcpy(&v, base + off * 4, 4);
      return v;
    }
    int64_t v;
    std::memcpy(&v, base + off * 8, 8);
    return v;
  }
  // Expands the repeat counts into map (its length must be exactly n).
  int expand_repeats(const char *rep, int64_t *map, int64_t n) const {
    const int64_t count = p.index.numel();
    int64_t total = 0;
    for (int64_t i = 0; i < p.bound; ++i) {
      const int64_t r = index_at(rep, count == 1 ? 0 : i);
      if (r < 0)
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: entry %lld is %lld; repeats must be non-negative", p.index_name,
                    static_cast<long long>(count == 1 ? 0 : i), static_cast<long long>(r));
      if (r > n - total)
        return fail(ACLNN_ERR_PARAM_INVALID, "%s sum to more than outputSize %lld", p.index_name,
                    static_cast<long long>(n));
      for (int64_t j = 0; j < r; ++j) map[total + j] = i;
      total += r;
    }
    if (total != n)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s sum to %lld; outputSize is %lld", p.index_name,
                  static_cast<long long>(total), static_cast<long long>(n));
    return 0;
  }

  int run(const core::LaunchArgs &args) const override {
    const int64_t n = positions();
    const char *ix = p.index_ws.booked()  ? args.get(p.index_ws)
                     : p.index_slot >= 0 ? core::view_base(args, p.index_slot, p.index, core::dtype_size(p.index.dtype))
                                         : nullptr;
    const int64_t *map = nullptr;
    if (p.repeats) {
      auto *m = reinterpret_cast<int64_t *>(args.get(p.map));
      if (const int rc = expand_repeats(ix, m, n)) return rc;
      map = m;
      if (p.map_only) {
        const size_t es = core::dtype_size(p.dst.dtype);
        kernels::store_from<int64_t>(m, p.dst.dtype, core::view_base(args, p.dst_slot, p.dst, es),
                                     p.dst.strides[0] * static_cast<int64_t>(es), n);
        return 0;
      }
    } else {
      const int kk = std::max(p.nd_k, 1);
      for (int64_t k = 0; k < n * kk; ++k) {
        const int64_t v = index_at(ix, k);
        const int64_t bound = p.nd_k > 0 ? p.nd_bounds[k % kk] : p.bound;
        const int64_t low = p.wrap_negative ? -bound : 0;
        if (v < low || v >= bound)
          return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %lld at position %lld is out of range [%lld, %lld)",
                      p.index_name, static_cast<long long>(v), static_cast<long long>(k / kk),
                      static_cast<long long>(low), static_cast<long long>(bound));
      }
    }
    const size_t es = core::dtype_size(p.dst.dtype);
    const char *src = p.src_constant        ? reinterpret_cast<const char *>(p.constant)
                      : p.src_ws.booked() ? args.get(p.src_ws)
                                          : core::view_base(args, p.src_slot, p.src, es);
    char *dst = p.dst_ws.booked() ? args.get(p.dst_ws) : core::view_base(args, p.dst_slot, p.dst, es);
    auto body = [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k) {
        int64_t off = 0;  // v * val_stride, or the n-d index's offset
        if (p.nd_k > 0) {
          for (int j = 0; j < p.nd_k; ++j) {
            int64_t v = index_at(ix, k * p.nd_k + j);
            if (v < 0) v += p.nd_bounds[j];  // wrap_negative (checked above)
            off += v * p.nd_strides[j];
          }
        } else {
          int64_t v = map ? map[k] : index_at(ix, k);
          if (v < 0) v += p.bound;  // wrap_negative (checked above)
          off = v * p.val_stride;
        }
        int64_t pos = 0, pos_val = 0, rem = k;
        for (int d = p.pos_ndim - 1; d >= 0; --d) {
          const int64_t i = rem % p.pos_dims[d];
          pos += i * p.pos_strides[d];
          pos_val += i * p.pos_val_strides[d];
          rem /= p.pos_dims[d];
        }
        const int64_t e = static_cast<int64_t>(es);
        const int64_t at = (off + pos_val) * e;
        if (p.scatter) copy_slab(p, p.src_constant ? src : src + pos * e, dst + at, es);
        else copy_slab(p, src + at, dst + pos * e, es);
      }
    };
    int64_t slab = 1;
    for (int d = 0; d < p.slab_ndim; ++d) slab *= p.slab_dims[d];
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(slab, 1));
    // Scatters run in order (a repeated index: the last write wins); gathers in parallel.
    if (p.scatter || n <= grain) body(0, n);
    else core::parallel_for(n, grain, body);
    return 0;
  }
};

// torch.scatter_reduce (record_scatter_reduce). The accumulators are indexed by dst's row-major
// element number (`acc_strides`: dst's contiguous strides, 0 along the scattered dim, whose
// contribution is v * acc_val_stride).
class ScatterReduceStep final : public core::Step {
 public:
  IndexPlan p;
  int reduce = 1;
  bool include_self = true;
  int64_t acc_strides[core::kMaxDims] = {};
  int64_t acc_val_stride = 0;
  core::WsKey acc_ws, count_ws, at_ws;

  template <class T>
  int run_typed(const core::LaunchArgs &args, const char *ix, const char *src, char *dst) const {
    const int64_t es = static_cast<int64_t>(core::dtype_size(p.dst.dtype));
    const int64_t total = p.dst.numel();
    T *acc = reinterpret_cast<T *>(args.get(acc_ws));
    int64_t *count = reinterpret_cast<int64_t *>(args.get(count_ws));
    int64_t *at = reinterpret_cast<int64_t *>(args.get(at_ws));  // dst's element offset of each touched element
    std::memset(count, 0, static_cast<size_t>(total) * sizeof(int64_t));
    T identity = 0;
    if (reduce == 2) identity = 1;
    if constexpr (std::is_floating_point_v<T>) {
      if (reduce == 3) identity = -std::numeric_limits<T>::infinity();
      if (reduce == 4) identity = std::numeric_limits<T>::infinity();
    } else {
      if (reduce == 3) identity = std::numeric_limits<T>::min();
      if (reduce == 4) identity = std::numeric_limits<T>::max();
    }
    int64_t n = 1;
    for (int d = 0; d < p.pos_ndim; ++d) n *= p.pos_dims[d];
    for (int64_t k = 0; k < n; ++k) {  // in order: deterministic for repeated indices
      const int64_t v = index_value(p.index, ix, k);
      int64_t pos = 0, pos_val = 0, e = v * acc_val_stride, rem = k;
      for (int d = p.pos_ndim - 1; d >= 0; --d) {
        const int64_t i = rem % p.pos_dims[d];
        pos += i * p.pos_strides[d];
        pos_val += i * p.pos_val_strides[d];
        e += i * acc_strides[d];
        rem /= p.pos_dims[d];
      }
      T x;
      kernels::load_as<T>(p.dst.dtype, src + pos * es, 0, &x, 1);
      T &a = acc[e];
      if (count[e] == 0) {
        at[e] = v * p.val_stride + pos_val;
        if (include_self) kernels::load_as<T>(p.dst.dtype, dst + at[e] * es, 0, &a, 1);
        else a = identity;
      }
      ++count[e];
      switch (reduce) {
        case 0: a = x; break;
        case 1:
        case 5:
          if constexpr (std::is_floating_point_v<T>) a += x;
          else a = static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(x));  // wraps
          break;
        case 2:
          if constexpr (std::is_floating_point_v<T>) a *= x;
          else a = static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(x));
          break;
        case 3: a = is_nan(a) || a > x ? a : x; break;  // a NaN wins (torch's amax)
        default: a = is_nan(a) || a < x ? a : x; break;
      }
    }
    for (int64_t e = 0; e < total; ++e) {
      if (count[e] == 0) continue;
      char *d = dst + at[e] * es;
      T r = acc[e];
      if (reduce == 5) {
        const int64_t c = count[e] + (include_self ? 1 : 0);
        if constexpr (std::is_floating_point_v<T>) {
          r = r / static_cast<T>(c);
        } else {  // the sum as the dtype would hold it, floor-divided
          kernels::store_from<T>(&r, p.dst.dtype, d, 0, 1);
          kernels::load_as<T>(p.dst.dtype, d, 0, &r, 1);
          const T q = r / c;
          r = (r % c != 0 && r < 0) ? q - 1 : q;
        }
      }
      kernels::store_from<T>(&r, p.dst.dtype, d, 0, 1);
    }
    return 0;
  }

  int run(const core::LaunchArgs &args) const override {
    const char *ix = core::view_base(args, p.index_slot, p.index, core::dtype_size(p.index.dtype));
    int64_t n = 1;
    for (int d = 0; d < p.pos_ndim; ++d) n *= p.pos_dims[d];
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = index_value(p.index, ix, k);
      if (v < 0 || v >= p.bound)
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %lld at position %lld is out of range [0, %lld)",
                    p.index_name, static_cast<long long>(v), static_cast<long long>(k),
                    static_cast<long long>(p.bound));
    }
    if (n == 0) return 0;
    const size_t es = core::dtype_size(p.dst.dtype);
    const char *src = core::view_base(args, p.src_slot, p.src, es);
    char *dst = core::view_base(args, p.dst_slot, p.dst, es);
    return core::is_floating(p.dst.dtype) ? run_typed<double>(args, ix, src, dst)
                                          : run_typed<int64_t>(args, ix, src, dst);
  }
};

// Copy in tiles over two loop dims: a (the output's innermost) and b (the input's innermost).
class BlockedCopyStep final : public core::Step {
 public:
  aclTensor out{}, in{};  // the slots' views (for their offsets and dtype)
  int out_slot = -1, in_slot = -1;
  int ndim = 0;  // loop dims (merged, size > 1); a and b among them
  int64_t size[core::kMaxDims] = {}, os[core::kMaxDims] = {}, is[core::kMaxDims] = {};  // elements
  int a = 0, b = 0;
  // Elements of a unit: 1, or the length of an innermost dim contiguous on both sides (a row moved
  // whole; its dim is not among the loop dims). Tiles then hold about kTileBytes of rows.
  int64_t row = 1;
  int64_t tile_a = 32, tile_b = 32;  // a tile's extent along a and b
  // The output outgrows the cache (kernels::copy_streams): the 16 x 16 blocks' whole output lines,
  // or the rows when they are whole 64-byte lines, leave with streaming stores (no read for
  // ownership). Streamed rows go position by position along a, each a run along b, so the input
  // reads as one stream and every output row is written whole at once.
  bool streaming = false;

  // The block mover for the (a, b) transposes of single elements, chosen in phase 1.
  kernels::TransposeKernel kern;

  // A tile of rows: each (a, b) position moves `row` contiguous elements; with `stream`, rows of
  // whole lines at 64-byte aligned addresses (phase 1 checked the strides, the launch the base).
  void tile_rows(const char *src, char *dst, size_t es, int64_t a0, int64_t a1, int64_t b0, int64_t b1,
                 bool stream) const {
    const int64_t bytes = row * static_cast<int64_t>(es);
    if (stream) {
      for (int64_t i = a0; i < a1; ++i)
        for (int64_t j = b0; j < b1; ++j)
          kernels::copy_lines_streaming(dst + (j * os[b] + i * os[a]) * static_cast<int64_t>(es),
                                        src + (j * is[b] + i * is[a]) * static_cast<int64_t>(es),
                                        static_cast<size_t>(bytes / 64));
      return;
    }
    for (int64_t j = b0; j < b1; ++j)
      for (int64_t i = a0; i < a1; ++i)
        std::memcpy(dst + (j * os[b] + i * os[a]) * static_cast<int64_t>(es),
                    src + (j * is[b] + i * is[a]) * static_cast<int64_t>(es), static_cast<size_t>(bytes));
  }

  // One tile of single elements: whole blocks through the kernel when the input runs along b and
  // the output along a, the edges (and every other case) element by element.
  template <class T>
  void tile(const char *src0, char *dst0, int64_t a0, int64_t a1, int64_t b0, int64_t b1) const {
    const T *src = reinterpret_cast<const T *>(src0);
    T *dst = reinterpret_cast<T *>(dst0);
    if (kern.blocks != nullptr && os[a] == 1 && is[b] == 1) {
      const int64_t k = kern.block;
      const int64_t an = (a1 - a0) / k * k, bn = (b1 - b0) / k * k;
      if (an > 0 && bn > 0) kern.blocks(src + a0 * is[a] + b0, is[a], dst + b0 * os[b] + a0, os[b], an, bn, streaming);
      tile_scalar(src, dst, a0 + an, a1, b0, b1);
      tile_scalar(src, dst, a0, a0 + an, b0 + bn, b1);
      return;
    }
    tile_scalar(src, dst, a0, a1, b0, b1);
  }
  template <class T>
  void tile_scalar(const T *src, T *dst, int64_t a0, int64_t a1, int64_t b0, int64_t b1) const {
    const int64_t osa = os[a], osb = os[b], isa = is[a], isb = is[b];
    for (int64_t j = b0; j < b1; ++j) {
      const T *s = src + j * isb;
      T *d = dst + j * osb;
      for (int64_t i = a0; i < a1; ++i) d[i * osa] = s[i * isa];
    }
  }

  int run(const core::LaunchArgs &args) const override {
    const size_t es = core::dtype_size(out.dtype);
    const char *src = core::view_base(args, in_slot, in, es);
    char *dst = core::view_base(args, out_slot, out, es);
    const bool stream_rows = row > 1 && streaming && (reinterpret_cast<uintptr_t>(dst) & 63) == 0;
    const int64_t ta = (size[a] + tile_a - 1) / tile_a, tb = (size[b] + tile_b - 1) / tile_b;
    int64_t outer = 1;
    for (int d = 0; d < ndim; ++d)
      if (d != a && d != b) outer *= size[d];
    auto body = [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int64_t rem = t / (ta * tb), so = 0, doff = 0;
        for (int d = ndim - 1; d >= 0; --d) {
          if (d == a || d == b) continue;
          so += (rem % size[d]) * is[d];
          doff += (rem % size[d]) * os[d];
          rem /= size[d];
        }
        const int64_t ia = (t % (ta * tb)) / tb, ib = t % tb;
        const int64_t a0 = ia * tile_a, a1 = std::min(size[a], a0 + tile_a);
        const int64_t b0 = ib * tile_b, b1 = std::min(size[b], b0 + tile_b);
        const char *s = src + so * static_cast<int64_t>(es);
        char *d = dst + doff * static_cast<int64_t>(es);
        if (row > 1) {
          tile_rows(s, d, es, a0, a1, b0, b1, stream_rows);
          continue;
        }
        switch (es) {
          case 1: tile<uint8_t>(s, d, a0, a1, b0, b1); break;
          case 2: tile<uint16_t>(s, d, a0, a1, b0, b1); break;
          case 4: tile<uint32_t>(s, d, a0, a1, b0, b1); break;
          default: tile<uint64_t>(s, d, a0, a1, b0, b1); break;
        }
      }
      if (streaming) kernels::copy_fence();
    };
    const int64_t tiles = outer * ta * tb;
    if (tiles <= 4) body(0, tiles);
    else core::parallel_for(tiles, 4, body);
    return 0;
  }
};

// Tiles of rows (phase 1): streamed when the output outgrows the cache and every row starts a
// 64-byte line and ends one (the launch still checks the base address), else plain stores in
// square tiles.
void choose_row_streaming(BlockedCopyStep &s, int64_t es) {
  core::ImplTrace trace;
  bool lines = s.row * es % 64 == 0;
  for (int d = 0; d < s.ndim; ++d) lines = lines && s.os[d] * es % 64 == 0;
  if (!s.streaming) trace.add("streamed", "the output fits the cache (or the CPU has no streaming stores)");
  else if (!lines) trace.add("streamed", "rows are not whole 64-byte lines");
  s.streaming = s.streaming && lines;
  if (s.streaming) {
    // Up to 256 rows along b (the input's nearest dim) for each position along a, a few positions
    // per tile when b is shorter: the input is read in order and the output rows leave whole.
    // Measured on Zen 5 ([64, 512, 32, 64] heads permute, 256 MiB): ~1.5x the square tiles with
    // plain stores; square tiles streamed no faster.
    s.tile_b = std::min<int64_t>(s.size[s.b], 256);
    s.tile_a = std::max<int64_t>(1, 256 / s.tile_b);
  }
  if (core::current_phase1_trace() != nullptr)
    core::record_choice(s.streaming ? "layout:tiles/rows-streamed" : "layout:tiles/rows", &trace);
}

}  // namespace

bool record_blocked_copy(core::OpBuilder &b, int out_slot, const aclTensor &out_view, int in_slot,
                         const aclTensor &in_view) {
  if (out_view.dtype != in_view.dtype || out_view.numel() == 0) return false;
  // Loop dims: size > 1, ordered by the output stride (largest outermost), merged where both sides
  // step evenly.
  int order[core::kMaxDims], n = 0;
  for (int d = 0; d < out_view.ndim; ++d)
    if (out_view.dims[d] > 1) order[n++] = d;
  std::stable_sort(order, order + n, [&](int x, int y) { return out_view.strides[x] > out_view.strides[y]; });
  BlockedCopyStep s;
  for (int k = 0; k < n; ++k) {
    const int d = order[k];
    const int64_t sz = out_view.dims[d], o = out_view.strides[d], i = in_view.strides[d];
    if (s.ndim > 0 && s.os[s.ndim - 1] == o * sz && s.is[s.ndim - 1] == i * sz) {
      s.size[s.ndim - 1] *= sz;
      s.os[s.ndim - 1] = o;
      s.is[s.ndim - 1] = i;
      continue;
    }
    s.size[s.ndim] = sz;
    s.os[s.ndim] = o;
    s.is[s.ndim] = i;
    ++s.ndim;
  }
  if (s.ndim < 2) return false;
  // An innermost dim contiguous on both sides and at least a cache line long moves as rows (the
  // [B, S, N, D] <-> [B, N, S, D] permutes of attention): the tiles then run over the dims above it.
  const int64_t es = static_cast<int64_t>(core::dtype_size(out_view.dtype));
  if (s.ndim >= 3 && s.os[s.ndim - 1] == 1 && s.is[s.ndim - 1] == 1 && s.size[s.ndim - 1] * es >= 64) {
    s.row = s.size[s.ndim - 1];
    --s.ndim;
    constexpr int64_t kTileBytes = 64 << 10;  // a tile's rows stay in L2 between their read and write
    int64_t edge = 4;
    while (edge < 32 && (2 * edge) * (2 * edge) * s.row * es <= kTileBytes) edge *= 2;
    s.tile_a = s.tile_b = edge;
  }
  core::check_no_internal_overlap(out_view, "the output");
  s.streaming = kernels::copy_streams(static_cast<uint64_t>(out_view.numel()) * static_cast<uint64_t>(es));
  s.a = s.ndim - 1;
  s.b = 0;
  for (int d = 1; d < s.ndim - 1; ++d)
    if (std::abs(s.is[d]) < std::abs(s.is[s.b])) s.b = d;
  if ((s.row == 1 && std::abs(s.is[s.a]) <= 1) || std::abs(s.is[s.b]) >= std::abs(s.is[s.a])) return false;
  if (s.row == 1) {
    // Single elements: whole blocks in registers when the output runs along a and the input along b.
    core::ImplTrace trace;
    const bool traced = core::current_phase1_trace() != nullptr;
    if (s.os[s.a] == 1 && s.is[s.b] == 1) {
      s.kern = kernels::choose_transpose_kernel(static_cast<size_t>(es), traced ? &trace : nullptr);
      if (s.kern.blocks != nullptr) {
        // Tiles of 512 source rows x 128 bytes: the tile's input (64 KiB) and output (the lines of
        // 32 / 16 output rows) stay in L2, and tiles walk along the source rows while the kernel
        // prefetches the next tile's lines. Measured on Zen 5 (4096 x 4096 FLOAT): 512 x 32 beat
        // 16 x 256, 64 x 64, 256 x 64, 1024 x 64 and 2048 x 32 by 10-60 %. Retried for issue #14
        // (same-process A/B, 4096 x 4096 FLOAT): 256 x 32 and a prefetch 2-3 tiles ahead -1..+8 %;
        // a tile transposed into an L2 buffer then streamed out one output row at a time -7..+17 %;
        // output-row order inside the tile 40-80 % slower, square 128-256 tiles 18-130 %, bands of
        // 16-64 source rows across the width 3.2-3.4x. The reads bound it (this walk's reads alone
        // take ~1.7x its writes alone), and an order that reads longer runs per source row writes
        // shorter ones per output row.
        s.tile_a = 512;
        s.tile_b = std::max<int64_t>(s.kern.block, 128 / es);
      }
    } else if (traced) {
      trace.add("blocks", "the input's unit-stride dim is not the output's rows' neighbour");
    }
    if (traced) core::record_choice(std::string("layout:tiles/") + s.kern.name, &trace);
  } else {
    choose_row_streaming(s, es);
  }
  s.out = out_view;
  s.in = in_view;
  s.out_slot = out_slot;
  s.in_slot = in_slot;
  b.add_step<BlockedCopyStep>(std::move(s));
  return true;
}

void record_index_copy(core::OpBuilder &b, const IndexPlan &plan) {
  auto &s = b.add_step<IndexStep>();
  s.p = plan;
  if (plan.repeats) {
    int64_t n = 1;
    for (int d = 0; d < plan.pos_ndim; ++d) n *= plan.pos_dims[d];
    s.p.map = b.book("repeat_interleave.map", static_cast<uint64_t>(std::max<int64_t>(n, 1)) * sizeof(int64_t));
  }
}

namespace {

class SearchStep final : public core::Step {
 public:
  SearchPlan p;
  aclTensor vals{}, seq{}, sorter{}, out{};

  // The insertion point of v among keys[0, n) (ascending): PyTorch's lower / upper bound loops,
  // so a NaN value (no comparison holds) lands at n.
  template <class K>
  int64_t bound(const K *keys, int64_t n, K v) const {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + ((hi - lo) >> 1);
      const bool go_right = p.right ? !(keys[mid] > v) : !(keys[mid] >= v);
      if (go_right) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  double round_to_compare(double v) const {
    alignas(8) char buf[8];
    kernels::store_one(v, p.compare, buf, 0);
    return kernels::load_one(p.compare, buf, 0);
  }

  template <class K>
  int run_as(const core::LaunchArgs &args) const {
    const char *sq = core::view_base(args, p.seq_slot, seq, core::dtype_size(seq.dtype));
    const char *sr = p.sorter_slot >= 0 ? core::view_base(args, p.sorter_slot, sorter, 8) : nullptr;
    const char *vv = p.val_slot >= 0 ? core::view_base(args, p.val_slot, vals, core::dtype_size(vals.dtype)) : nullptr;
    char *ob = core::view_base(args, p.out_slot, out, core::dtype_size(out.dtype));
    const int64_t n = seq.dims[seq.ndim - 1];
    const int64_t total = out.numel();
    int64_t rows = 1;
    for (int d = 0; d + 1 < seq.ndim; ++d) rows *= seq.dims[d];
    const int64_t per_row = seq.ndim > 1 ? (rows > 0 ? total / rows : 0) : total;
    if (sr != nullptr) {  // every sorter value indexes its row
      const int64_t m = sorter.numel();
      for (int64_t k = 0; k < m; ++k) {
        int64_t v;
        std::memcpy(&v, sr + element_offset(sorter, k) * 8, 8);
        if (v < 0 || v >= n)
          return fail(ACLNN_ERR_PARAM_INVALID, "sorter: value %lld at position %lld is out of range [0, %lld)",
                      static_cast<long long>(v), static_cast<long long>(k), static_cast<long long>(n));
      }
    }
    auto load = [&](const aclTensor &t, const char *base, int64_t lin) -> K {
      const size_t es = core::dtype_size(t.dtype);
      K v;
      kernels::load_as<K>(t.dtype, base + element_offset(t, lin) * static_cast<int64_t>(es), 0, &v, 1);
      if constexpr (std::is_same_v<K, double>) v = round_to_compare(v);
      return v;
    };
    const size_t oes = core::dtype_size(out.dtype);
    auto do_rows = [&](int64_t r0, int64_t r1, int64_t p0, int64_t p1) {
      std::vector<K> keys(static_cast<size_t>(n));
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t j = 0; j < n; ++j) {
          int64_t at = j;
          if (sr != nullptr) std::memcpy(&at, sr + element_offset(sorter, r * n + j) * 8, 8);
          keys[static_cast<size_t>(j)] = load(seq, sq, r * n + at);
        }
        const int64_t b0 = rows == 1 ? p0 : r * per_row, b1 = rows == 1 ? p1 : (r + 1) * per_row;
        for (int64_t q = b0; q < b1; ++q) {
          K v;
          if (vv != nullptr) v = load(vals, vv, q);
          else if constexpr (std::is_same_v<K, double>) v = round_to_compare(p.scalar_double);
          else v = p.scalar_int;
          const int64_t idx = bound(keys.data(), n, v);
          kernels::store_from<int64_t>(&idx, out.dtype, ob + element_offset(out, q) * static_cast<int64_t>(oes), 0, 1);
        }
      }
    };
    if (total == 0) return 0;
    if (rows == 1) {
      core::parallel_for(total, 4096, [&](int64_t q0, int64_t q1) { do_rows(0, 1, q0, q1); });
    } else {
      const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(per_row + n, 1));
      core::parallel_for(rows, grain, [&](int64_t r0, int64_t r1) { do_rows(r0, r1, 0, 0); });
    }
    return 0;
  }

  int run(const core::LaunchArgs &args) const override {
    return core::is_floating(p.compare) ? run_as<double>(args) : run_as<int64_t>(args);
  }
};

}  // namespace

void record_search(core::OpBuilder &b, const SearchPlan &plan) {
  auto &s = b.add_step<SearchStep>();
  s.p = plan;
  if (plan.val_slot >= 0) s.vals = b.tensor(plan.val_slot);
  s.seq = b.tensor(plan.seq_slot);
  if (plan.sorter_slot >= 0) s.sorter = b.tensor(plan.sorter_slot);
  s.out = b.tensor(plan.out_slot);
}

void record_scatter_reduce(core::OpBuilder &b, const IndexPlan &plan, int dim, int reduce, bool include_self) {
  auto &s = b.add_step<ScatterReduceStep>();
  s.p = plan;
  s.reduce = reduce;
  s.include_self = include_self;
  const aclTensor &d = plan.dst;
  int64_t acc = 1;
  for (int k = d.ndim - 1; k >= 0; --k) {  // dst's contiguous strides; the scattered dim's moves with v
    (k == dim ? s.acc_val_stride : s.acc_strides[k]) = acc;
    acc *= std::max<int64_t>(d.dims[k], 1);
  }
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(d.numel(), 1));
  s.acc_ws = b.book("scatter_reduce.acc", n * 8);
  s.count_ws = b.book("scatter_reduce.count", n * 8);
  s.at_ws = b.book("scatter_reduce.offset", n * 8);
}

void record_triangle(core::OpBuilder &b, int in_slot, int out_slot, bool lower, int64_t diagonal) {
  auto &s = b.add_step<TriangleStep>();
  s.in = b.tensor(in_slot);
  s.out = b.tensor(out_slot);
  s.in_slot = in_slot;
  s.out_slot = out_slot;
  s.lower = lower;
  s.diagonal = diagonal;
}

void record_arange(core::OpBuilder &b, int out_slot, double start, double step, int64_t istart, int64_t istep) {
  auto &s = b.add_step<ArangeStep>();
  s.out = b.tensor(out_slot);
  s.out_slot = out_slot;
  s.integral = !core::is_floating(s.out.dtype);
  s.start = start;
  s.step = step;
  s.istart = istart;
  s.istep = istep;
}

void record_linspace(core::OpBuilder &b, int out_slot, double start, double end) {
  auto &s = b.add_step<ArangeStep>();
  s.out = b.tensor(out_slot);
  s.out_slot = out_slot;
  s.linspace = true;
  s.start = start;
  s.end = end;
  const int64_t n = s.out.dims[0];
  s.step = n > 1 ? (end - start) / static_cast<double>(n - 1) : 0;
}

}  // namespace opsnn::ops

// The reduction runner and its reducers' dispatch, compiled once per ISA (reduce_run_<tier>.cpp
// include this header with their own flags; the tier is chosen in phase 1). Internal linkage: each
// unit keeps its own copy.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/thread_pool.h"
#include "kernels/elementwise/convert.h"
#include "kernels/loop/loop_walk.h"
#include "kernels/reduction/reduce.h"
#include "kernels/reduction/reducers.h"

namespace opsnn::kernels::reduce_impl {
namespace {


using reduce_detail::Acc;

constexpr int64_t kChunk = 512;              // elements converted at a time (row mode)
// FLOAT rows read in place by a reducer's row_f32: elements per call (each of its 64 float lanes
// then adds 64 elements before the result joins the double total; longer calls would save more
// boundaries but let float rounding grow).
constexpr int64_t kF32Chunk = 4096;
constexpr int64_t kTaskElements = 1 << 15;   // input elements per parallel task, at least

// Byte offsets of linear index `i` over dims [0, nd) of `shape` (row-major), for up to 3 operands.

template <class T>
aclDataType storage_of() {
  return std::is_integral_v<T> ? ACL_INT64 : ACL_DOUBLE;
}

// Loads n elements at byte stride `st` as T: the source itself when it already is contiguous T.
template <class T>
const T *load(const ReduceLoop &L, const char *p, int64_t st, T *buf, int64_t n) {
  if (L.in_dtype == storage_of<T>() && st == static_cast<int64_t>(sizeof(T))) return reinterpret_cast<const T *>(p);
  load_as<T>(L.in_dtype, p, st, buf, n);
  return buf;
}

// A mapped reduction's values at n positions: the first input at p (byte stride st), the second
// at p2 (st2), combined by the loop's map into buf.
template <class T>
const T *load_mapped(const ReduceLoop &L, const char *p, int64_t st, const char *p2, int64_t st2, T *buf, int64_t n) {
  T b[kChunk];
  load_as<T>(L.in_dtype, p, st, buf, n);
  load_as<T>(L.in2_dtype, p2, st2, b, n);
  for (int64_t j = 0; j < n; ++j) buf[j] = b[j] > T(0) ? T(0) : buf[j] * b[j];  // kMulUnlessPositive
  return buf;
}

template <class T, class R>
class Runner {
 public:
  Runner(const ReduceLoop &L, const R &r, const char *in, char *const *out, Acc<T> *partials, const char *in2)
      : L_(L), r_(r), in_(in), in2_(in2 != nullptr ? in2 : in), out_(out), partials_(partials) {}

  void run() {
    if (L_.out_numel == 0) return;
    const int64_t per_item = std::max<int64_t>(std::min(L_.block, L_.red_numel), 1) * (L_.column ? L_.tile : 1);
    const int64_t grain = std::max<int64_t>(1, kTaskElements / per_item);
    const int64_t items = output_items() * L_.nblocks;
    auto body = [&](int64_t b, int64_t e) {
      if (rows_f32(b, e)) return;
      for (int64_t it = b; it < e; ++it) L_.column ? column_item(it) : row_item(it);
    };
    if (items <= grain) body(0, items);
    else core::parallel_for(items, grain, body);
    if (L_.nblocks > 1) {
      auto fin = [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          Acc<T> a = partials_[o * L_.nblocks];
          for (int64_t k = 1; k < L_.nblocks; ++k) r_.merge(a, partials_[o * L_.nblocks + k]);
          store(o, 1, &a, -1);
        }
      };
      fin(0, L_.out_numel);
    }
  }

 private:
  int64_t output_items() const {
    if (!L_.column) return L_.out_numel;
    const int64_t last = L_.kept_shape[L_.nkept - 1];
    return L_.out_numel / last * ((last + L_.tile - 1) / L_.tile);
  }

  // Input and output byte offsets of output `o` (linear over the kept dims): off[0] the input,
  // off[1], off[2] the outputs, off[3] the second input.
  void kept_offsets(int64_t o, int64_t *off) const {
    Odometer<4> w = kept_walk();
    w.seek(o);
    for (int k = 0; k < 4; ++k) off[k] = w.off[k];
  }
  Odometer<4> kept_walk() const {
    Odometer<4> w;
    w.nd = L_.nkept;
    w.shape = L_.kept_shape;
    w.nops = 4;
    w.stride[0] = L_.in_kept;
    w.stride[1] = L_.out_kept[0];
    w.stride[2] = L_.out_kept[1];
    w.stride[3] = L_.in2_kept;
    return w;
  }
  // The reduced dims (the inputs' offsets); `outer`: without the innermost one.
  Odometer<2> red_walk(bool outer) const {
    Odometer<2> w;
    w.nd = outer ? std::max(L_.nred - 1, 0) : L_.nred;
    w.shape = L_.red_shape;
    w.nops = 2;
    w.stride[0] = L_.in_red;
    w.stride[1] = L_.in2_red;
    return w;
  }
  bool mapped() const { return L_.map != ReduceMap::kNone; }

  // Finishes `n` accumulators of consecutive outputs o, o+1, ... (neighbours along the innermost
  // kept dim when n > 1) and writes their results; or, for block >= 0 of a split reduction, keeps
  // them as that block's partials.
  void store(int64_t o, int64_t n, const Acc<T> *acc, int64_t block) {
    if (block >= 0) {  // one block of a split reduction: its partial results, merged later
      for (int64_t j = 0; j < n; ++j) partials_[(o + j) * L_.nblocks + block] = acc[j];
      return;
    }
    int64_t off[4];
    kept_offsets(o, off);
    T res[2][kReduceColumnTile];
    for (int64_t j = 0; j < n; ++j) {
      T r[2] = {T(0), T(0)};
      r_.finish(acc[j], L_.red_numel, r);
      res[0][j] = r[0];
      res[1][j] = r[1];
    }
    for (int k = 0; k < L_.nout; ++k) {
      const int64_t st = L_.nkept > 0 ? L_.out_kept[k][L_.nkept - 1] : 0;
      store_from<T>(res[k], L_.out_dtype[k], out_[k] + off[k + 1], st, n);
    }
  }

  // Outputs b .. e of FLOAT rows along one unit-stride reduced dim, up to kReduceColumnTile
  // neighbours at a time: row_item's arithmetic (the same chunks, so the same result) without its
  // per-output offset walks and single stores, which cost about a third of a 4096-float row's read.
  bool rows_f32(int64_t b, int64_t e) {
    Acc<T> acc[kReduceColumnTile];
    if constexpr (has_row_f32 || has_indexed_row_f32) {
      if (L_.column || L_.nblocks != 1 || L_.nred != 1 || L_.nkept < 1 || mapped() || L_.in_dtype != ACL_FLOAT ||
          L_.in_red[0] != 4)
        return false;
      const int64_t last = L_.kept_shape[L_.nkept - 1], st = L_.in_kept[L_.nkept - 1], len = L_.red_shape[0];
      for (int64_t o = b; o < e;) {
        const int64_t n = std::min({kReduceColumnTile, e - o, last - o % last});
        int64_t off[4];
        kept_offsets(o, off);
        for (int64_t j = 0; j < n; ++j) {
          r_.init(acc[j]);
          row_f32_chunks(acc[j], reinterpret_cast<const float *>(in_ + off[0] + j * st), len);
        }
        store(o, n, acc, -1);
        o += n;
      }
      return true;
    }
    return false;
  }

  // Whether the reducer reads FLOAT runs in place: row_f32(a, x, n), or with the run's first
  // position (the index reducers) row_f32(a, x, n, r0).
  static constexpr bool has_row_f32 = requires(const R &r, Acc<T> &a) { r.row_f32(a, static_cast<const float *>(nullptr), int64_t{0}); };
  static constexpr bool has_indexed_row_f32 =
      requires(const R &r, Acc<T> &a) { r.row_f32(a, static_cast<const float *>(nullptr), int64_t{0}, int64_t{0}); };

  // A unit-stride FLOAT run of len values into a, kF32Chunk at a time (row_item's chunks: the same result).
  void row_f32_chunks(Acc<T> &a, const float *x, int64_t len) const {
    for (int64_t c = 0; c < len; c += kF32Chunk) {
      if constexpr (has_row_f32) r_.row_f32(a, x + c, std::min(kF32Chunk, len - c));
      else r_.row_f32(a, x + c, std::min(kF32Chunk, len - c), c);
    }
  }

  void row_item(int64_t item) {
    const int64_t o = item / L_.nblocks, blk = item % L_.nblocks;
    int64_t off[4];
    kept_offsets(o, off);
    const char *base = in_ + off[0], *base2 = in2_ + off[3];
    Acc<T> a;
    r_.init(a);
    const int64_t r0 = blk * L_.block, r1 = std::min(L_.red_numel, r0 + L_.block);
    const int64_t inner = L_.nred > 0 ? L_.red_shape[L_.nred - 1] : 1;
    const int64_t st = L_.nred > 0 ? L_.in_red[L_.nred - 1] : 0;
    const int64_t st2 = L_.nred > 0 ? L_.in2_red[L_.nred - 1] : 0;
    Odometer<2> outer = red_walk(true);
    alignas(64) T buf[kChunk];
    for (int64_t r = r0; r < r1;) {
      const int64_t i = r % inner;
      int64_t roff = 0, roff2 = 0;
      if (L_.nred > 1) {
        outer.seek(r / inner);
        roff = outer.off[0];
        roff2 = outer.off[1];
      }
      const int64_t len = std::min(inner - i, r1 - r);
      const char *p = base + roff + i * st;
      if (mapped()) {  // the map's values, chunk by chunk
        const char *p2 = base2 + roff2 + i * st2;
        for (int64_t c = 0; c < len; c += kChunk) {
          const int64_t n = std::min(kChunk, len - c);
          r_.row(a, load_mapped<T>(L_, p + c * st, st, p2 + c * st2, st2, buf, n), n, r + c);
        }
        r += len;
        continue;
      }
      const bool f32 = L_.in_dtype == ACL_FLOAT && st == 4;
      const int64_t chunk = f32 ? kF32Chunk : kChunk;
      for (int64_t c = 0; c < len; c += chunk) {
        const int64_t n = std::min(chunk, len - c);
        if constexpr (has_row_f32) {
          if (f32) {
            r_.row_f32(a, reinterpret_cast<const float *>(p + c * st), n);
            continue;
          }
        } else if constexpr (has_indexed_row_f32) {
          if (f32) {  // index reducers: the chunk's first position too
            r_.row_f32(a, reinterpret_cast<const float *>(p + c * st), n, r + c);
            continue;
          }
        }
        for (int64_t k = 0; k < n; k += kChunk) {  // (a reducer without row_f32 on a FLOAT row)
          const int64_t m = std::min(kChunk, n - k);
          r_.row(a, load<T>(L_, p + (c + k) * st, st, buf, m), m, r + c + k);
        }
      }
      r += len;
    }
    store(o, 1, &a, L_.nblocks > 1 ? blk : -1);
  }

  void column_item(int64_t item) {
    const int64_t tile_item = item / L_.nblocks, blk = item % L_.nblocks;
    const int64_t last = L_.kept_shape[L_.nkept - 1];
    const int64_t tiles_per_row = (last + L_.tile - 1) / L_.tile;
    const int64_t o = tile_item / tiles_per_row * last + tile_item % tiles_per_row * L_.tile;
    const int64_t n = std::min(L_.tile, last - (o % last));
    int64_t off[4];
    kept_offsets(o, off);
    const char *base = in_ + off[0], *base2 = in2_ + off[3];
    const int64_t st = L_.in_kept[L_.nkept - 1], st2 = L_.in2_kept[L_.nkept - 1];
    const int64_t r0 = blk * L_.block, r1 = std::min(L_.red_numel, r0 + L_.block);
    // The reduced multi-index advances like an odometer (no division per row).
    Odometer<2> red = red_walk(false);
    if (r0 < r1) red.seek(r0);  // (an empty reduced dim has no position to start from)
    if (L_.wide) return wide_item(o, n, base, r0, r1, red, blk);  // (n up to kReduceWideTile)
    Acc<T> acc[kReduceColumnTile];
    for (int64_t j = 0; j < n; ++j) r_.init(acc[j]);
    alignas(64) T buf[kReduceColumnTile];
    if constexpr (requires { r_.col_f32(static_cast<double *>(nullptr), static_cast<const float *>(nullptr), n); }) {
      if (L_.in_dtype == ACL_FLOAT && st == 4 && !mapped()) {  // FLOAT rows read in place into contiguous values
        alignas(64) double v[kReduceColumnTile];
        for (int64_t j = 0; j < n; ++j) v[j] = acc[j].v;
        for (int64_t r = r0; r < r1; ++r) {
          r_.col_f32(v, reinterpret_cast<const float *>(base + red.off[0]), n);
          red.next();
        }
        for (int64_t j = 0; j < n; ++j) acc[j].v = v[j];
        store(o, n, acc, L_.nblocks > 1 ? blk : -1);
        return;
      }
    }
    for (int64_t r = r0; r < r1; ++r) {
      const T *v = mapped() ? load_mapped<T>(L_, base + red.off[0], st, base2 + red.off[1], st2, buf, n)
                            : load<T>(L_, base + red.off[0], st, buf, n);
      r_.col(acc, v, n, r);
      red.next();
    }
    store(o, n, acc, L_.nblocks > 1 ? blk : -1);
  }

  // Wide column mode (FLOAT rows in place, loop.wide): rows [r0, r1) of `n` neighbouring outputs
  // folded into a row of accumulators — doubles for the sums, floats for the extrema (exact), float
  // values and int32 row indices for the arg-extrema — then finished (or kept as partials) 64 outputs at a time.
  void wide_item(int64_t o, int64_t n, const char *base, int64_t r0, int64_t r1, Odometer<2> &red, int64_t blk) {
    auto rows = [&](auto &&fold) {
      for (int64_t r = r0; r < r1; ++r) {
        fold(reinterpret_cast<const float *>(base + red.off[0]), r);
        red.next();
      }
    };
    Acc<T> acc[kReduceColumnTile];
    auto finish = [&](auto &&acc_of) {
      for (int64_t j0 = 0; j0 < n; j0 += kReduceColumnTile) {
        const int64_t m = std::min(kReduceColumnTile, n - j0);
        for (int64_t j = 0; j < m; ++j) acc[j] = acc_of(j0 + j);
        store(o + j0, m, acc, L_.nblocks > 1 ? blk : -1);
      }
    };
    if constexpr (requires { r_.col_f32(static_cast<float *>(nullptr), static_cast<int32_t *>(nullptr),
                                        static_cast<const float *>(nullptr), n, int32_t{0}); }) {
      alignas(64) float v[kReduceWideTile];
      alignas(64) int32_t at[kReduceWideTile];
      bool first = true;
      const float *group[reduce_detail::kWideRows];  // consecutive rows from group_r on
      int g = 0;
      int32_t group_r = 0;
      rows([&](const float *x, int64_t r) {
        if (first) {  // the block's first row: every output's best so far
          std::memcpy(v, x, static_cast<size_t>(n) * sizeof(float));
          std::fill(at, at + n, static_cast<int32_t>(r));
          first = false;
          return;
        }
        if (g == 0) group_r = static_cast<int32_t>(r);
        group[g++] = x;
        if (g == reduce_detail::kWideRows) {
          r_.col_f32_rows(v, at, group, n, group_r);
          g = 0;
        }
      });
      for (int k = 0; k < g; ++k) r_.col_f32(v, at, group[k], n, group_r + k);  // the block's last rows
      if (first) {  // an empty block (no reduced position): the reducer's identity
        finish([&](int64_t) { Acc<T> a; r_.init(a); return a; });
        return;
      }
      finish([&](int64_t j) { return Acc<T>{static_cast<T>(v[j]), T(0), T(0), at[j]}; });
    } else if constexpr (requires { r_.col_f32_rows(static_cast<float *>(nullptr),
                                                    static_cast<const float *const *>(nullptr), n); }) {
      alignas(64) float v[kReduceWideTile];  // the extrema: exact in float
      fold_wide_rows(v, n, rows);
      finish([&](int64_t j) { Acc<T> a; r_.init(a); a.v = v[j]; return a; });
    } else if constexpr (requires { r_.col_f32(static_cast<double *>(nullptr), static_cast<const float *>(nullptr), n); }) {
      alignas(64) double v[kReduceWideTile];
      fold_wide_rows(v, n, rows);
      finish([&](int64_t j) { Acc<T> a; r_.init(a); a.v = v[j]; return a; });
    }
  }

  // The value-only wide paths: a row of n accumulators (V float or double) started at the reducer's
  // identity, fed every row through `rows`, kWideRows at a time where the reducer has col_f32_rows.
  template <class V, class Rows>
  void fold_wide_rows(V *v, int64_t n, Rows &&rows) const {
    Acc<T> init;
    r_.init(init);
    std::fill(v, v + n, static_cast<V>(init.v));
    if constexpr (requires { r_.col_f32_rows(v, static_cast<const float *const *>(nullptr), n); }) {
      const float *group[reduce_detail::kWideRows];  // rows in order, folded kWideRows at a time
      int g = 0;
      rows([&](const float *x, int64_t) {
        group[g++] = x;
        if (g == reduce_detail::kWideRows) {
          r_.col_f32_rows(v, group, n);
          g = 0;
        }
      });
      for (int k = 0; k < g; ++k) r_.col_f32(v, group[k], n);  // the block's last rows, one by one
    } else {
      rows([&](const float *x, int64_t) { r_.col_f32(v, x, n); });
    }
  }

  const ReduceLoop &L_;
  const R &r_;
  const char *in_, *in2_;
  char *const *out_;
  Acc<T> *partials_;
};

template <class T, class R>
void go(const ReduceLoop &L, const R &r, const char *in, char *const *out, void *partials, const char *in2) {
  Runner<T, R>(L, r, in, out, static_cast<Acc<T> *>(partials), in2).run();
}

using namespace reduce_detail;

// Integral or floating: the reducers valid in both.
template <class T>
void run_typed(const ReduceLoop &L, const char *in, char *const *out, void *ws, const char *in2) {
  switch (L.op) {
    case ReduceOp::kSum: return go<T>(L, SumReducer<T, Identity, SumFinish::kValue>{}, in, out, ws, in2);
    case ReduceOp::kProd: return go<T>(L, ProdReducer<T>{}, in, out, ws, in2);
    case ReduceOp::kMax:
      if (L.nout == 2) return go<T>(L, ArgReducer<T, true, false>{}, in, out, ws, in2);
      return go<T>(L, ExtremumReducer<T, true>{}, in, out, ws, in2);
    case ReduceOp::kMin:
      if (L.nout == 2) return go<T>(L, ArgReducer<T, false, false>{}, in, out, ws, in2);
      return go<T>(L, ExtremumReducer<T, false>{}, in, out, ws, in2);
    case ReduceOp::kArgMax: return go<T>(L, ArgReducer<T, true, true>{}, in, out, ws, in2);
    case ReduceOp::kArgMin: return go<T>(L, ArgReducer<T, false, true>{}, in, out, ws, in2);
    case ReduceOp::kAll: return go<T>(L, SumReducer<T, IsZero, SumFinish::kIsZero>{}, in, out, ws, in2);
    case ReduceOp::kAny: return go<T>(L, SumReducer<T, NonZero, SumFinish::kNonZero>{}, in, out, ws, in2);
    case ReduceOp::kCountNonzero: return go<T>(L, SumReducer<T, NonZero, SumFinish::kValue>{}, in, out, ws, in2);
    case ReduceOp::kNansum: return go<T>(L, SumReducer<T, NanToZero, SumFinish::kValue>{}, in, out, ws, in2);
    default: break;
  }
  if constexpr (std::is_same_v<T, double>) {
    switch (L.op) {
      case ReduceOp::kMean: return go<T>(L, SumReducer<T, Identity, SumFinish::kMean>{}, in, out, ws, in2);
      case ReduceOp::kLogSumExp: return go<T>(L, LogSumExpReducer{}, in, out, ws, in2);
      case ReduceOp::kVar: case ReduceOp::kVarMean:
        return go<T>(L, VarReducer<false>{L.params.correction}, in, out, ws, in2);
      case ReduceOp::kStd: case ReduceOp::kStdMean:
        return go<T>(L, VarReducer<true>{L.params.correction}, in, out, ws, in2);
      case ReduceOp::kNorm: {
        const double p = L.params.p;
        if (p == 0) return go<T>(L, SumReducer<T, NonZero, SumFinish::kValue>{}, in, out, ws, in2);
        if (p == 1) return go<T>(L, SumReducer<T, Abs, SumFinish::kValue>{}, in, out, ws, in2);
        if (p == 2) return go<T>(L, SumReducer<T, Square, SumFinish::kSqrt>{}, in, out, ws, in2);
        if (p == INFINITY) return go<T>(L, ExtremumReducer<T, true, Abs>{}, in, out, ws, in2);
        if (p == -INFINITY) return go<T>(L, ExtremumReducer<T, false, Abs>{}, in, out, ws, in2);
        SumReducer<T, PowAbs, SumFinish::kRoot> r{PowAbs{p}, p};
        return go<T>(L, r, in, out, ws, in2);
      }
      default: break;
    }
  }
}


inline void run_any(const ReduceLoop &loop, const char *in, char *const *out, void *partials,
                    const char *in2) {
  if (loop.compute == core::ComputeType::kInt64) run_typed<int64_t>(loop, in, out, partials, in2);
  else run_typed<double>(loop, in, out, partials, in2);
}

}  // namespace
}  // namespace opsnn::kernels::reduce_impl

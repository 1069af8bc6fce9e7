#include "ops/layout/dyn_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "core/shape_publish.h"
#include "kernels/elementwise/convert.h"
#include "ops/layout/view_walk.h"

namespace opsnn::ops {
namespace {

using core::Shape;

int64_t esize(const aclTensor &t) { return static_cast<int64_t>(core::dtype_size(t.dtype)); }

// A dynamic output: the caller's descriptor (rewritten at launch), the maximum view phase 1 saw and
// the dim whose length the data decides.
struct DynOut {
  const aclTensor *caller = nullptr;
  const void *owner = nullptr;  // the step (core/shape_publish.h: written only while registered)
  aclTensor max{};
  int slot = -1;
  int dyn_dim = 0;
  bool packed = false;  // contiguous at the maximum shape: the result is packed at the real shape

  // The view at the real length n (what the caller's descriptor becomes).
  aclTensor at(int64_t n) const {
    aclTensor t = max;
    t.dims[dyn_dim] = n;
    if (packed) {
      int64_t acc = 1;
      for (int d = t.ndim - 1; d >= 0; --d) {
        t.strides[d] = acc;
        acc *= std::max<int64_t>(t.dims[d], 1);  // PyTorch's contiguous strides
      }
    }
    return t;
  }
  void publish(int64_t n) const {
    const aclTensor t = at(n);
    core::shape_target_publish(caller, owner, t.dims, t.strides);
  }
};

DynOut dyn_out(core::OpBuilder &b, const aclTensor *t, int dyn_dim, const void *owner) {
  DynOut o;
  o.caller = t;
  o.owner = owner;
  core::shape_target_register(t, owner);
  b.refers_to_caller_objects();  // the launch rewrites this very descriptor
  o.slot = b.output(t);
  o.max = b.tensor(o.slot);
  o.dyn_dim = dyn_dim;
  o.packed = o.max.is_contiguous();
  return o;
}

void put_int64(char *base, int64_t off, int64_t v) { std::memcpy(base + off * 8, &v, 8); }

// t as a view of `shape` (t broadcasts to it): stride 0 along the dims it lacks or has as 1.
aclTensor broadcast_view(const aclTensor &t, const Shape &shape) {
  int64_t strides[core::kMaxDims] = {};
  core::broadcast_strides(t, shape, strides);
  aclTensor v = t;
  v.ndim = shape.ndim;
  for (int d = 0; d < shape.ndim; ++d) {
    v.dims[d] = shape.dims[d];
    v.strides[d] = strides[d];
  }
  return v;
}

// Which bits of an element make it nonzero: all of them, except a floating dtype's sign bit (-0.0
// is zero; NaN, infinities and subnormals are not). One test for every dtype the rule takes, the
// UINT16 / UINT32 / UINT64 ones OpsNN does not otherwise compute in included.
uint64_t nonzero_bits(aclDataType dt) {
  const int bits = static_cast<int>(core::dtype_size(dt)) * 8;
  const uint64_t all = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return core::is_floating(dt) ? all & ~(uint64_t{1} << (bits - 1)) : all;
}

// aclnnNonzero / aclnnNonzeroV2: the coordinates of the nonzero elements (NaN is nonzero) in
// row-major order; out is [N, ndim] (V2: [ndim, N]).
class NonzeroStep final : public core::Step {
 public:
  ~NonzeroStep() override { core::shape_target_unregister_owner(this); }
  aclTensor self{};
  int self_slot = -1;
  DynOut out;
  bool transposed = false;

  template <class Fn>
  void each_nonzero(const char *base, Fn &&fn) const {
    const int64_t n = self.numel();
    if (n == 0) return;
    const int64_t last = self.ndim == 0 ? 1 : self.dims[self.ndim - 1];
    const int64_t es = esize(self), step = (self.ndim == 0 ? 0 : self.strides[self.ndim - 1]) * es;
    const uint64_t mask = nonzero_bits(self.dtype);
    for (int64_t r = 0; r < n / last; ++r) {
      const char *p = base + (self.ndim == 0 ? 0 : row_offset(self, r)) * es;
      for (int64_t j = 0; j < last; ++j, p += step) {
        uint64_t v = 0;
        std::memcpy(&v, p, static_cast<size_t>(es));  // little-endian: the low bytes
        if ((v & mask) != 0) fn(r * last + j);
      }
    }
  }

  int run(const core::LaunchArgs &args) const override {
    const char *in = core::view_base(args, self_slot, self, core::dtype_size(self.dtype));
    int64_t count = 0;
    each_nonzero(in, [&](int64_t) { ++count; });
    const aclTensor o = out.at(count);
    char *ob = core::view_base(args, out.slot, out.max, 8);
    int64_t i = 0;
    const int nd = self.ndim;
    each_nonzero(in, [&](int64_t lin) {
      for (int d = nd - 1; d >= 0; --d) {
        const int64_t c = lin % self.dims[d];
        lin /= self.dims[d];
        put_int64(ob, transposed ? d * o.strides[0] + i * o.strides[1] : i * o.strides[0] + d * o.strides[1], c);
      }
      ++i;
    });
    out.publish(count);
    return 0;
  }
};

// A strict weak order for the unique ops: ascending, NaN after everything (NaNs equivalent).
template <class K>
int compare(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na && nb ? 0 : na ? 1 : -1;
  }
  return a < b ? -1 : b < a ? 1 : 0;
}

// The unique ops over "slices": slice s of the line view is its elements [s * len, (s + 1) * len)
// in row-major order (flattened: every element is a slice of length 1; with a dim: the view with
// that dim moved first). Slices are ordered (sorted: stable, lexicographic by compare) or kept in
// place (consecutive); runs of equal slices (every element ==, so a NaN equals nothing) become one
// value, its first slice in that order. inverse[s] = the run of slice s; counts[run] = its length.
class UniqueStep final : public core::Step {
 public:
  ~UniqueStep() override { core::shape_target_unregister_owner(this); }
  aclTensor line{};  // self, dim first (flattened: self itself)
  int self_slot = -1;
  int64_t slices = 0, len = 1;
  bool sort = true, floating = true;
  DynOut values;
  aclTensor values_line{};  // values' view with the dim first (its dims / strides permuted)
  int perm[core::kMaxDims] = {};
  int inverse_slot = -1;  // -1: not written
  aclTensor inverse{};
  DynOut counts;
  int counts_mode = 0;  // 0: none; 1: written; 2: not requested (shape [0])
  core::WsKey keys_ws, order_ws, run_ws;

  template <class K>
  int run_as(const core::LaunchArgs &args) const {
    const int64_t n = slices * len;
    K *keys = reinterpret_cast<K *>(args.get(keys_ws));
    int64_t *order = reinterpret_cast<int64_t *>(args.get(order_ws));
    int64_t *run_of = reinterpret_cast<int64_t *>(args.get(run_ws));
    const char *in = core::view_base(args, self_slot, line, core::dtype_size(line.dtype));
    const int64_t es = esize(line);
    for (int64_t e = 0; e < n; ++e) kernels::load_as<K>(line.dtype, in + element_offset(line, e) * es, 0, keys + e, 1);
    for (int64_t s = 0; s < slices; ++s) order[s] = s;
    auto slice_cmp = [&](int64_t a, int64_t b) {
      for (int64_t e = 0; e < len; ++e)
        if (const int c = compare<K>(keys[a * len + e], keys[b * len + e])) return c;
      return 0;
    };
    if (sort) std::stable_sort(order, order + slices, [&](int64_t a, int64_t b) { return slice_cmp(a, b) < 0; });
    auto equal = [&](int64_t a, int64_t b) {
      for (int64_t e = 0; e < len; ++e)
        if (!(keys[a * len + e] == keys[b * len + e])) return false;
      return true;
    };
    // Runs: run_of[k] = the run of the k-th slice in order; the runs' first positions in order[]
    // are collected at the front of order[] afterwards (k >= r always).
    int64_t runs = 0;
    for (int64_t k = 0; k < slices; ++k) {
      if (k == 0 || !equal(order[k - 1], order[k])) ++runs;
      run_of[k] = runs - 1;
    }
    // Inverse (by slice), before order[] is compacted.
    if (inverse_slot >= 0) {
      char *ib = core::view_base(args, inverse_slot, inverse, 8);
      for (int64_t k = 0; k < slices; ++k) put_int64(ib, element_offset(inverse, order[k]), run_of[k]);
    }
    // Counts: run r spans the positions k with run_of[k] == r.
    const aclTensor co = counts_mode == 1 ? counts.at(runs) : aclTensor{};
    char *cb = counts_mode == 1 ? core::view_base(args, counts.slot, counts.max, 8) : nullptr;
    if (counts_mode == 1)
      for (int64_t k = 0, start = 0; k < slices; ++k)
        if (k + 1 == slices || run_of[k + 1] != run_of[k]) {
          put_int64(cb, run_of[k] * co.strides[0], k + 1 - start);
          start = k + 1;
        }
    // Values: the first slice of each run, written to the values' line view at the real length.
    aclTensor vo = values.at(runs);
    aclTensor vl = values_line;
    vl.dims[0] = runs;
    for (int d = 0; d < vl.ndim; ++d) vl.strides[d] = vo.strides[perm[d]];
    char *vb = core::view_base(args, values.slot, values.max, core::dtype_size(values.max.dtype));
    const int64_t ves = esize(vl);
    for (int64_t k = 0; k < slices; ++k) {
      if (k > 0 && run_of[k] == run_of[k - 1]) continue;
      const int64_t r = run_of[k], s = order[k];
      for (int64_t e = 0; e < len; ++e)
        kernels::store_from<K>(keys + s * len + e, vl.dtype, vb + element_offset(vl, r * len + e) * ves, 0, 1);
    }
    values.publish(runs);
    if (counts_mode == 1) counts.publish(runs);
    if (counts_mode == 2) counts.publish(0);
    return 0;
  }

  int run(const core::LaunchArgs &args) const override {
    return floating ? run_as<double>(args) : run_as<int64_t>(args);
  }
};

// Tensor.masked_scatter_: self's positions where the (broadcast) mask is true, in row-major order,
// take source's elements in row-major order; more true positions than source elements fails the
// launch (161002 naming source) before anything is written.
class MaskedScatterStep final : public core::Step {
 public:
  aclTensor self{}, mask{}, source{};
  int self_slot = -1, mask_slot = -1, source_slot = -1;
  const char *source_name = "source", *mask_name = "mask";

  int run(const core::LaunchArgs &args) const override {
    const int64_t n = self.numel();
    const char *mb = core::view_base(args, mask_slot, mask, 1);
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += mb[element_offset(mask, i)] != 0;
    if (count > source.numel())
      return fail(ACLNN_ERR_PARAM_INVALID, "%s has %lld elements; %s has %lld true positions to fill", source_name,
                  static_cast<long long>(source.numel()), mask_name, static_cast<long long>(count));
    char *sb = core::view_base(args, self_slot, self, core::dtype_size(self.dtype));
    const char *src = core::view_base(args, source_slot, source, core::dtype_size(source.dtype));
    const int64_t es = esize(self);
    for (int64_t i = 0, k = 0; i < n; ++i)
      if (mb[element_offset(mask, i)] != 0)
        std::memcpy(sb + element_offset(self, i) * es, src + element_offset(source, k++) * es,
                    static_cast<size_t>(es));
    return 0;
  }
};

// aclnnMaskedSelect (torch.masked_select): self and mask broadcast to one shape; the elements of
// self at the true mask positions, in row-major order, fill the 1-D out, whose length becomes their
// count (core/shape_publish.h). A mask byte other than 0 counts as true.
class MaskedSelectStep final : public core::Step {
 public:
  ~MaskedSelectStep() override { core::shape_target_unregister_owner(this); }
  aclTensor self{}, mask{};  // both as views of the broadcast shape
  int self_slot = -1, mask_slot = -1;
  DynOut out;

  int run(const core::LaunchArgs &args) const override {
    const int64_t n = self.numel(), es = esize(self);
    const char *sb = core::view_base(args, self_slot, self, core::dtype_size(self.dtype));
    const char *mb = core::view_base(args, mask_slot, mask, 1);
    char *ob = core::view_base(args, out.slot, out.max, core::dtype_size(out.max.dtype));
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i)
      if (mb[element_offset(mask, i)] != 0)
        std::memcpy(ob + count++ * out.max.strides[0] * es, sb + element_offset(self, i) * es,
                    static_cast<size_t>(es));
    out.publish(count);
    return 0;
  }
};

// Calls fn(dst_offset, src_offset, last) for every element of the block `dims` (nd dims): its element
// offsets by the strides ds / ss and its coordinate along the last dim.
template <class Fn>
void walk_block(const int64_t *ds, const int64_t *ss, const int64_t *dims, int nd, Fn fn) {
  int64_t n = 1;
  for (int d = 0; d < nd; ++d) n *= dims[d];
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t r = lin, doff = 0, soff = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const int64_t c = r % dims[d];
      r /= dims[d];
      doff += c * ds[d];
      soff += c * ss[d];
    }
    fn(doff, soff, nd > 0 ? lin % dims[nd - 1] : 0);
  }
}

// Copies the block `dims` (nd dims) element by element from src (element strides ss) to dst
// (element strides ds); both pointers address the block's first element.
void copy_block(char *dst, const int64_t *ds, const char *src, const int64_t *ss, const int64_t *dims, int nd,
                int64_t es) {
  walk_block(ds, ss, dims, nd, [&](int64_t doff, int64_t soff, int64_t) {
    std::memcpy(dst + doff * es, src + soff * es, static_cast<size_t>(es));
  });
}

// The same block quantised into INT8: saturate(rint(x / scale[h] + zero[h])), h the last coordinate,
// in DOUBLE rounded once (half to even); NaN gives 0.
void quant_block(char *dst, const int64_t *ds, const char *src, aclDataType st, const int64_t *ss,
                 const int64_t *dims, int nd, const double *scale, const double *zero) {
  walk_block(ds, ss, dims, nd, [&](int64_t doff, int64_t soff, int64_t h) {
    const double q = std::nearbyint(kernels::load_one(st, src, soff) / scale[h] + zero[h]);
    dst[doff] = static_cast<char>(std::isnan(q) ? 0 : static_cast<int8_t>(std::clamp(q, -128.0, 127.0)));
  });
}

// InplaceScatterUpdate (the vendor's own op): batch i of updates (dim 0) is written into batch b of
// data along `axis` from offset `start`: data[b, .., start + k, ..] = updates[i, .., k, ..].
// indices 1-D [n] (0-d: n = 1): b = i, start = indices[i]; 2-D [n, 2]: b = indices[i][0], start =
// indices[i][1]. Every target is checked first (0 <= b < data.size(0), 0 <= start <= data.size(axis)
// - updates.size(axis), else 161002 naming indices, nothing written); batches are written in order
// of i, so a repeated target keeps the last one's values. InplaceQuantScatter: each batch quantised
// to INT8 on the way (quant_block).
class ScatterUpdateStep final : public core::Step {
 public:
  aclTensor data{}, idx{}, upd{}, scales{}, zeros{};
  int data_slot = -1, idx_slot = -1, upd_slot = -1, scales_slot = -1, zeros_slot = -1, axis = 1;
  bool pairs = false;  // 2-D indices: (batch, start) per row
  bool quant = false;  // InplaceQuantScatter
  core::WsKey params_ws;  // quant: the scales, then the zero points (DOUBLE, one per last-dim position)
  const char *idx_name = "indices";

  void target(const char *ib, int64_t i, int64_t *batch, int64_t *start) const {
    *batch = pairs ? index_value(idx, ib, 2 * i) : i;
    *start = index_value(idx, ib, pairs ? 2 * i + 1 : i);
  }

  int run(const core::LaunchArgs &args) const override {
    const char *ib = core::view_base(args, idx_slot, idx, core::dtype_size(idx.dtype));
    const int64_t n = upd.dims[0], room = data.dims[axis] - upd.dims[axis];
    for (int64_t i = 0; i < n; ++i) {
      int64_t bt = 0, v = 0;
      target(ib, i, &bt, &v);
      if (bt < 0 || bt >= data.dims[0])
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: batch %lld in row %lld is out of range [0, %lld)", idx_name,
                    static_cast<long long>(bt), static_cast<long long>(i), static_cast<long long>(data.dims[0]));
      if (v < 0 || v > room)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: offset %lld for updates batch %lld is out of range [0, %lld] (the %lld updates along axis "
                    "%d must fit in %lld)",
                    idx_name, static_cast<long long>(v), static_cast<long long>(i), static_cast<long long>(room),
                    static_cast<long long>(upd.dims[axis]), axis, static_cast<long long>(data.dims[axis]));
    }
    char *db = core::view_base(args, data_slot, data, core::dtype_size(data.dtype));
    const char *ub = core::view_base(args, upd_slot, upd, core::dtype_size(upd.dtype));
    const int64_t es = esize(data), ues = esize(upd), h = upd.dims[upd.ndim - 1];
    double *scale = quant ? reinterpret_cast<double *>(args.get(params_ws)) : nullptr;
    double *zero = quant ? scale + h : nullptr;
    if (quant) {
      const char *sb = core::view_base(args, scales_slot, scales, core::dtype_size(scales.dtype));
      const char *zb = zeros_slot < 0 ? nullptr : core::view_base(args, zeros_slot, zeros, core::dtype_size(zeros.dtype));
      for (int64_t k = 0; k < h; ++k) {
        scale[k] = kernels::load_one(scales.dtype, sb, element_offset(scales, k));
        zero[k] = zb == nullptr ? 0.0 : kernels::load_one(zeros.dtype, zb, element_offset(zeros, k));
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t bt = 0, start = 0;
      target(ib, i, &bt, &start);
      char *dst = db + (bt * data.strides[0] + start * data.strides[axis]) * es;
      const char *src = ub + i * upd.strides[0] * ues;
      if (quant)
        quant_block(dst, data.strides + 1, src, upd.dtype, upd.strides + 1, upd.dims + 1, upd.ndim - 1, scale, zero);
      else
        copy_block(dst, data.strides + 1, src, upd.strides + 1, upd.dims + 1, upd.ndim - 1, es);
    }
    return 0;
  }
};

// aclnnScatterList: for each list element i whose mask byte is 1 (no mask: every one), the first
// len_i positions of updates[i] along the axis overwrite varRef[i] from `start_i`:
// varRef[i][.., start_i + k, ..] = updates[i, .., k, ..], k < len_i. indice [B]: start_i =
// indice[i], len_i = updates.size(axis); [B, 2]: (start_i, len_i) rows. Every start / length (0 <=
// start, 0 <= len <= updates.size(axis), start + len <= varRef[i].size(axis)) and mask byte (0 or
// 1) is checked first: 161002 naming it, nothing written.
class ScatterListStep final : public core::Step {
 public:
  std::vector<aclTensor> vars;
  std::vector<int> var_slots;
  aclTensor idx{}, upd{}, mask{};
  int idx_slot = -1, upd_slot = -1, mask_slot = -1, axis = 0;  // axis: of varRef's elements
  bool pairs = false;
  const char *idx_name = "indice", *mask_name = "maskOptional";

  void segment(const char *ib, int64_t i, int64_t *start, int64_t *len) const {
    *start = index_value(idx, ib, pairs ? 2 * i : i);
    *len = pairs ? index_value(idx, ib, 2 * i + 1) : upd.dims[axis + 1];
  }

  int run(const core::LaunchArgs &args) const override {
    const char *ib = core::view_base(args, idx_slot, idx, core::dtype_size(idx.dtype));
    const char *mb = mask_slot < 0 ? nullptr : core::view_base(args, mask_slot, mask, 1);
    const int64_t n = static_cast<int64_t>(vars.size()), most = upd.dims[axis + 1];
    for (int64_t i = 0; i < n; ++i) {
      const unsigned m = mb ? static_cast<unsigned char>(mb[i * mask.strides[0]]) : 1u;
      if (m > 1)
        return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %u at position %lld is not 0 or 1", mask_name, m,
                    static_cast<long long>(i));
      int64_t start = 0, len = 0;
      segment(ib, i, &start, &len);
      const int64_t size = vars[static_cast<size_t>(i)].dims[axis];
      if (start < 0 || len < 0 || len > most || start + len > size)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: start %lld, length %lld for element %lld are out of range (0 <= start, 0 <= length <= %lld "
                    "= updates' size along the axis, start + length <= %lld)",
                    idx_name, static_cast<long long>(start), static_cast<long long>(len), static_cast<long long>(i),
                    static_cast<long long>(most), static_cast<long long>(size));
    }
    const char *ub = core::view_base(args, upd_slot, upd, core::dtype_size(upd.dtype));
    const int64_t es = esize(upd);
    for (int64_t i = 0; i < n; ++i) {
      if (mb && mb[i * mask.strides[0]] == 0) continue;
      const aclTensor &v = vars[static_cast<size_t>(i)];
      int64_t start = 0, dims[core::kMaxDims] = {};
      segment(ib, i, &start, &dims[axis]);
      for (int d = 0; d < v.ndim; ++d)
        if (d != axis) dims[d] = v.dims[d];
      char *vb = core::view_base(args, var_slots[static_cast<size_t>(i)], v, core::dtype_size(v.dtype));
      copy_block(vb + start * v.strides[axis] * es, v.strides, ub + i * upd.strides[0] * es, upd.strides + 1, dims,
                 v.ndim, es);
    }
    return 0;
  }
};

[[noreturn]] void too_small(const char *name, const aclTensor &t, int dim, int64_t need) {
  throw_error(ACLNN_ERR_PARAM_INVALID,
              "%s has shape %s; its dim %d must hold at least %lld elements (the largest possible result; "
              "the real size is set at launch)",
              name, core::shape_string(t).c_str(), dim, static_cast<long long>(need));
}

void check_int64(const aclTensor *t, const char *name) {
  if (t->dtype != ACL_INT64)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be INT64", name, core::dtype_name(t->dtype));
}

void plan_nonzero(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensor &s = *c.self;
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  check_int64(c.out, c.out_name);
  const bool tr = rule.kind == DynKind::kNonzeroT;
  const int dyn = tr ? 1 : 0;
  if (c.out->ndim != 2 || c.out->dims[1 - dyn] != s.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s (%s has %d dims)", c.out_name,
                core::shape_string(*c.out).c_str(), tr ? "[ndim, >= numel]" : "[>= numel, ndim]", c.self_name,
                s.ndim);
  if (c.out->dims[dyn] < s.numel()) too_small(c.out_name, *c.out, dyn, s.numel());
  auto &st = b.add_step<NonzeroStep>();
  st.self_slot = b.input(c.self);
  st.self = b.tensor(st.self_slot);
  st.out = dyn_out(b, c.out, dyn, &st);
  st.transposed = tr;
}

void plan_unique(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensor &s = *c.self;
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  if (c.out->dtype != s.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                core::dtype_name(c.out->dtype), c.self_name, core::dtype_name(s.dtype));
  // The dim: UniqueDim always has one; UniqueConsecutive's kDynNoDim means the flattened tensor.
  int dim = -1;
  if (rule.kind == DynKind::kUniqueDim || (rule.kind == DynKind::kUniqueConsecutive && c.dim != kDynNoDim)) {
    if (s.ndim == 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; dim %lld needs a tensor with at least one dim", c.self_name,
                  static_cast<long long>(c.dim));
    dim = core::wrap_dim(c.dim, s.ndim, "dim");
  }
  const int64_t slices = dim < 0 ? s.numel() : s.dims[dim];
  const int64_t len = dim < 0 ? 1 : (slices == 0 ? 0 : s.numel() / slices);
  // valueOut: [>= numel] flattened; self's shape with dim >= its length otherwise.
  if (dim < 0) {
    if (c.out->ndim != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 1-D", c.out_name,
                  core::shape_string(*c.out).c_str());
    if (c.out->dims[0] < slices) too_small(c.out_name, *c.out, 0, slices);
  } else {
    bool ok = c.out->ndim == s.ndim;
    for (int d = 0; ok && d < s.ndim; ++d) ok = d == dim || c.out->dims[d] == s.dims[d];
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s's shape %s except along dim %d",
                  c.out_name, core::shape_string(*c.out).c_str(), c.self_name, core::shape_string(s).c_str(), dim);
    if (c.out->dims[dim] < slices) too_small(c.out_name, *c.out, dim, slices);
  }
  const bool want_inverse = c.return_inverse && c.inverse != nullptr;
  if (want_inverse) {
    check_int64(c.inverse, c.inverse_name);
    core::check_shape_equals(*c.inverse, c.inverse_name, dim < 0 ? Shape::of(s) : Shape{1, {slices}});
  }
  const bool has_counts = c.counts != nullptr;
  const bool want_counts = has_counts && (!c.has_return_counts || c.return_counts);
  if (want_counts) {
    check_int64(c.counts, c.counts_name);
    if (c.counts->ndim != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 1-D", c.counts_name,
                  core::shape_string(*c.counts).c_str());
    if (c.counts->dims[0] < slices) too_small(c.counts_name, *c.counts, 0, slices);
  }
  auto &st = b.add_step<UniqueStep>();
  st.self_slot = b.input(c.self);
  const aclTensor &self = b.tensor(st.self_slot);
  st.values = dyn_out(b, c.out, dim < 0 ? 0 : dim, &st);
  // The line views: the dim moved first (flattened: unchanged).
  st.line = self;
  st.values_line = st.values.max;
  for (int d = 0; d < core::kMaxDims; ++d) st.perm[d] = d;
  if (dim > 0) {
    int k = 0;
    st.perm[k++] = dim;
    for (int d = 0; d < s.ndim; ++d)
      if (d != dim) st.perm[k++] = d;
    for (int d = 0; d < s.ndim; ++d) {
      st.line.dims[d] = self.dims[st.perm[d]];
      st.line.strides[d] = self.strides[st.perm[d]];
      st.values_line.dims[d] = st.values.max.dims[st.perm[d]];
    }
  }
  if (c.inverse != nullptr) {
    const int slot = b.output(c.inverse);
    if (want_inverse) {
      st.inverse_slot = slot;
      st.inverse = b.tensor(slot);
    }
  }
  if (has_counts) {
    if (want_counts) {
      st.counts = dyn_out(b, c.counts, 0, &st);
      st.counts_mode = 1;
    } else {
      if (c.counts->ndim != 1)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 1-D", c.counts_name,
                    core::shape_string(*c.counts).c_str());
      st.counts = dyn_out(b, c.counts, 0, &st);  // its view becomes [0]
      st.counts.packed = true;
      st.counts_mode = 2;
    }
  }
  st.slices = slices;
  st.len = len;
  st.sort = rule.kind != DynKind::kUniqueConsecutive;
  st.floating = core::is_floating(s.dtype);
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(s.numel(), 1));
  const uint64_t ns = static_cast<uint64_t>(std::max<int64_t>(slices, 1));
  st.keys_ws = b.book("unique.keys", n * 8);
  st.order_ws = b.book("unique.order", ns * 8);
  st.run_ws = b.book("unique.run", ns * 8);
}

void plan_masked_scatter(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensor &s = *c.self;
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.mask, c.mask_name, {ACL_BOOL});
  if (c.source->dtype != s.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.source_name,
                core::dtype_name(c.source->dtype), c.self_name, core::dtype_name(s.dtype));
  const Shape bs = core::broadcast_shapes(Shape::of(s), c.self_name, Shape::of(*c.mask), c.mask_name);
  if (!(bs == Shape::of(s)))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must broadcast to %s's shape %s", c.mask_name,
                core::shape_string(*c.mask).c_str(), c.self_name, core::shape_string(s).c_str());
  core::check_no_internal_overlap(s, c.self_name);
  auto &st = b.add_step<MaskedScatterStep>();
  st.self_slot = b.inout(c.self);
  st.mask_slot = b.input(c.mask);
  st.source_slot = b.input(c.source);
  st.self = b.tensor(st.self_slot);
  st.mask = b.tensor(st.mask_slot);
  st.source = b.tensor(st.source_slot);
  st.mask = broadcast_view(st.mask, Shape::of(s));  // stride 0 along its broadcast dims
  st.source_name = c.source_name;
  st.mask_name = c.mask_name;
}

void plan_masked_select(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensor &s = *c.self;
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.mask, c.mask_name, {ACL_BOOL, ACL_UINT8});
  if (c.out->dtype != s.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                core::dtype_name(c.out->dtype), c.self_name, core::dtype_name(s.dtype));
  const Shape bs = core::broadcast_shapes(Shape::of(s), c.self_name, Shape::of(*c.mask), c.mask_name);
  int64_t n = 1;
  for (int d = 0; d < bs.ndim; ++d) n *= bs.dims[d];
  if (c.out->ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 1-D", c.out_name,
                core::shape_string(*c.out).c_str());
  if (c.out->dims[0] < n) too_small(c.out_name, *c.out, 0, n);
  auto &st = b.add_step<MaskedSelectStep>();
  st.self_slot = b.input(c.self);
  st.mask_slot = b.input(c.mask);
  st.self = broadcast_view(b.tensor(st.self_slot), bs);
  st.mask = broadcast_view(b.tensor(st.mask_slot), bs);
  st.out = dyn_out(b, c.out, 0, &st);
}

// The shape rules InplaceScatterUpdate and InplaceQuantScatter share (data, indices, updates; the
// dtypes are checked by the caller). Returns the axis, wrapped.
int check_scatter_update_shapes(const DynCall &c, bool allow_empty) {
  const aclTensor &d = *c.self, &u = *c.source, &ix = *c.index;
  const int axis = core::wrap_dim(c.dim, d.ndim, "axis");
  if (axis == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "axis %lld is the batch dim 0 that %s indexes; it must be another dim",
                static_cast<long long>(c.dim), c.index_name);
  // The vendor's index forms: 0-d (one batch), [n] (batch i at offset indices[i]), [n, 2] (rows of
  // (batch, offset)).
  if (ix.ndim > 2 || (ix.ndim == 2 && ix.dims[1] != 2))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 0-d, [n] or [n, 2]", c.index_name,
                core::shape_string(ix).c_str());
  for (const auto &[t, name] : {std::pair{&d, c.self_name}, std::pair{&ix, c.index_name}, std::pair{&u, c.source_name}})
    if (t->numel() == 0 && !allow_empty)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; empty tensors are not supported", name,
                  core::shape_string(*t).c_str());
  const int64_t n = ix.ndim == 0 ? 1 : ix.dims[0];
  bool ok = u.ndim == d.ndim && u.dims[0] == n && n <= d.dims[0] && u.dims[axis] <= d.dims[axis];
  for (int k = 1; ok && k < d.ndim; ++k) ok = k == axis || u.dims[k] == d.dims[k];
  if (!ok)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s has shape %s; it must be %s's shape %s with dim 0 = %lld (one batch per %s entry, at most %s's) "
                "and axis %d at most as long",
                c.source_name, core::shape_string(u).c_str(), c.self_name, core::shape_string(d).c_str(),
                static_cast<long long>(n), c.index_name, c.self_name, axis);
  core::check_no_internal_overlap(d, c.self_name);
  return axis;
}

ScatterUpdateStep &add_scatter_update_step(core::OpBuilder &b, const DynCall &c, int axis) {
  auto &st = b.add_step<ScatterUpdateStep>();
  st.data_slot = b.inout(c.self);
  st.idx_slot = b.input(c.index);
  st.upd_slot = b.input(c.source);
  st.data = b.tensor(st.data_slot);
  st.idx = b.tensor(st.idx_slot);
  st.upd = b.tensor(st.upd_slot);
  st.axis = axis;
  st.pairs = c.index->ndim == 2;
  st.idx_name = c.index_name;
  return st;
}

void plan_scatter_update(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensor &d = *c.self, &u = *c.source;
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  if (d.ndim < 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it needs 2 to 8 (a batch dim and the axis)", c.self_name,
                d.ndim);
  if (u.dtype != d.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.source_name,
                core::dtype_name(u.dtype), c.self_name, core::dtype_name(d.dtype));
  core::check_dtype_in(c.index, c.index_name, {ACL_INT32, ACL_INT64});
  add_scatter_update_step(b, c, check_scatter_update_shapes(c, false));
}

// InplaceQuantScatter / V2 (formulas: src/ops/layout/dynamic.ops).
void plan_quant_scatter(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensor &d = *c.self, &u = *c.source, &ix = *c.index, &sc = *c.quant_scales;
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  core::check_dtype_in(c.index, c.index_name, {ACL_INT32, ACL_INT64});
  core::check_dtype_in(c.source, c.source_name, {ACL_FLOAT16, ACL_BF16});
  const bool bf16 = u.dtype == ACL_BF16;
  const aclDataType scale_dt = bf16 ? ACL_BF16 : ACL_FLOAT, zero_dt = bf16 ? ACL_BF16 : ACL_INT32;
  if (sc.dtype != scale_dt)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; with %s %s it must be %s", c.quant_scales_name,
                core::dtype_name(sc.dtype), c.source_name, core::dtype_name(u.dtype), core::dtype_name(scale_dt));
  if (c.quant_zero_points != nullptr && c.quant_zero_points->dtype != zero_dt)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; with %s %s it must be %s", c.quant_zero_points_name,
                core::dtype_name(c.quant_zero_points->dtype), c.source_name, core::dtype_name(u.dtype),
                core::dtype_name(zero_dt));
  if (d.ndim < 3 || d.ndim > 8)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it needs 3 to 8", c.self_name, d.ndim);
  if (u.ndim != d.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have %s's %d", c.source_name, u.ndim, c.self_name,
                d.ndim);
  const int64_t axis = c.dim < 0 ? c.dim + d.ndim : c.dim;
  if (c.has_round_mode ? (axis < 1 || axis >= d.ndim - 1) : axis != d.ndim - 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "axis %lld is not supported; it must be %s", static_cast<long long>(c.dim),
                c.has_round_mode ? "a dim other than the first and the last" : "-2");
  if (c.quant_axis != -1 && c.quant_axis != d.ndim - 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "quantAxis %lld is not supported; it must be -1 or %d (the last dim)",
                static_cast<long long>(c.quant_axis), d.ndim - 1);
  if (c.reduction != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "reduction %lld is not supported; it must be 1 (update)",
                static_cast<long long>(c.reduction));
  if (c.has_round_mode) {
    core::check_not_null(c.round_mode, "roundMode");
    if (std::strcmp(c.round_mode, "rint") != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "roundMode is \"%s\"; an INT8 %s takes \"rint\" only", c.round_mode,
                  c.self_name);
  }
  if (ix.ndim != 1 && !(c.has_round_mode && ix.ndim == 2))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s", c.index_name, core::shape_string(ix).c_str(),
                c.has_round_mode ? "[n] or [n, 2]" : "[n]");
  const int64_t h = u.dims[u.ndim - 1];
  for (const aclTensor *t : {c.quant_scales, c.quant_zero_points})
    if (t != nullptr && t->numel() != h)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must hold %lld values (%s's last dim)",
                  t == c.quant_scales ? c.quant_scales_name : c.quant_zero_points_name, core::shape_string(*t).c_str(),
                  static_cast<long long>(h), c.source_name);
  ScatterUpdateStep &st = add_scatter_update_step(b, c, check_scatter_update_shapes(c, true));
  st.quant = true;
  st.scales_slot = b.input(c.quant_scales);
  st.scales = b.tensor(st.scales_slot);
  if (c.quant_zero_points != nullptr) {
    st.zeros_slot = b.input(c.quant_zero_points);
    st.zeros = b.tensor(st.zeros_slot);
  }
  st.params_ws = b.book("quant_scatter.params", static_cast<uint64_t>(std::max<int64_t>(h, 1)) * 16);
}

void plan_scatter_list(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  const aclTensorList &l = *c.list;
  const aclTensor &u = *c.source, &ix = *c.index;
  const int64_t n = static_cast<int64_t>(l.tensors.size());
  if (n == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty; it needs at least one tensor", c.list_name);
  const aclTensor &v0 = *l.tensors[0];
  for (int64_t i = 0; i < n; ++i) {
    const std::string name = std::string(c.list_name) + "[" + std::to_string(i) + "]";
    const aclTensor *t = l.tensors[static_cast<size_t>(i)];
    core::check_dtype_in(t, name.c_str(), rule.dtypes);
    if (t->dtype != v0.dtype || !(Shape::of(*t) == Shape::of(v0)))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %s %s; every element must be %s[0]'s %s %s", name.c_str(),
                  core::dtype_name(t->dtype), core::shape_string(*t).c_str(), c.list_name,
                  core::dtype_name(v0.dtype), core::shape_string(v0).c_str());
    core::check_no_internal_overlap(*t, name.c_str());
  }
  if (v0.ndim < 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s's elements are 0-d; they need at least one dim", c.list_name);
  if (u.dtype != v0.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.source_name,
                core::dtype_name(u.dtype), c.list_name, core::dtype_name(v0.dtype));
  if (c.reduce != nullptr && std::strcmp(c.reduce, "update") != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "reduceOptional is \"%s\"; only \"update\" is supported", c.reduce);
  // axis counts updates' dims ([B, element dims...]); it may not be the list dim 0.
  if (u.ndim != v0.ndim + 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have one more than %s's elements (%d)",
                c.source_name, u.ndim, c.list_name, v0.ndim);
  const int64_t ua = c.dim < 0 ? c.dim + u.ndim : c.dim;
  if (ua <= 0 || ua >= u.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "axis %lld must name a dim of %s other than dim 0 (%s has %d dims)",
                static_cast<long long>(c.dim), c.source_name, c.source_name, u.ndim);
  const int axis = static_cast<int>(ua) - 1;
  bool ok = u.dims[0] == n && u.dims[ua] <= v0.dims[axis];
  for (int d = 0; ok && d < v0.ndim; ++d) ok = d == axis || u.dims[d + 1] == v0.dims[d];
  if (!ok)
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s has shape %s; it must be [%lld (the list length), %s's element shape %s], at most as long along "
                "axis %lld",
                c.source_name, core::shape_string(u).c_str(), static_cast<long long>(n), c.list_name,
                core::shape_string(v0).c_str(), static_cast<long long>(c.dim));
  core::check_dtype_in(c.index, c.index_name, {ACL_INT32, ACL_INT64});
  if (!(ix.ndim == 1 && ix.dims[0] == n) && !(ix.ndim == 2 && ix.dims[0] == n && ix.dims[1] == 2))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be [%lld] or [%lld, 2]", c.index_name,
                core::shape_string(ix).c_str(), static_cast<long long>(n), static_cast<long long>(n));
  if (c.mask != nullptr) {
    core::check_dtype_in(c.mask, c.mask_name, {ACL_UINT8});
    core::check_shape_equals(*c.mask, c.mask_name, Shape{1, {n}});
  }
  auto &st = b.add_step<ScatterListStep>();
  st.var_slots = b.inout_list(0, c.list);
  for (int s : st.var_slots) st.vars.push_back(b.tensor(s));
  st.idx_slot = b.input(c.index);
  st.upd_slot = b.input(c.source);
  st.mask_slot = b.input(c.mask);
  st.idx = b.tensor(st.idx_slot);
  st.upd = b.tensor(st.upd_slot);
  if (st.mask_slot >= 0) st.mask = b.tensor(st.mask_slot);
  st.axis = axis;
  st.pairs = ix.ndim == 2;
  st.idx_name = c.index_name;
  st.mask_name = c.mask_name;
}

}  // namespace

void dyn_phase1(core::OpBuilder &b, const DynRule &rule, const DynCall &c) {
  if (rule.kind == DynKind::kScatterList) {  // null checks in prototype order (the mask is optional)
    core::check_not_null(c.list, c.list_name);
    for (size_t i = 0; i < c.list->tensors.size(); ++i)
      if (c.list->tensors[i] == nullptr)
        throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s[%zu] is null", c.list_name, i);
    core::check_not_null(c.index, c.index_name);
    core::check_not_null(c.source, c.source_name);
    return plan_scatter_list(b, rule, c);
  }
  // Null checks in prototype order. Nonzero's self may have a dtype OpsNN computes nothing in
  // (UINT16 / 32 / 64): its rule alone decides.
  if (rule.kind == DynKind::kNonzero || rule.kind == DynKind::kNonzeroT)
    core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  else
    core::check_tensor(c.self, c.self_name);
  if (rule.kind == DynKind::kScatterUpdate || rule.kind == DynKind::kQuantScatter) {
    core::check_tensor(c.index, c.index_name);
    core::check_tensor(c.source, c.source_name);
    if (rule.kind == DynKind::kScatterUpdate) return plan_scatter_update(b, rule, c);
    core::check_tensor(c.quant_scales, c.quant_scales_name);
    if (c.quant_zero_points != nullptr) core::check_tensor(c.quant_zero_points, c.quant_zero_points_name);
    return plan_quant_scatter(b, rule, c);
  }
  if (rule.kind == DynKind::kMaskedScatter) {
    core::check_tensor(c.mask, c.mask_name);
    core::check_tensor(c.source, c.source_name);
    return plan_masked_scatter(b, rule, c);
  }
  if (rule.kind == DynKind::kMaskedSelect) {
    core::check_tensor(c.mask, c.mask_name);
    core::check_tensor(c.out, c.out_name);
    return plan_masked_select(b, rule, c);
  }
  core::check_tensor(c.out, c.out_name);
  if (rule.kind == DynKind::kNonzero || rule.kind == DynKind::kNonzeroT) return plan_nonzero(b, rule, c);
  core::check_tensor(c.inverse, c.inverse_name);
  if (rule.kind != DynKind::kUnique || c.has_return_counts) core::check_tensor(c.counts, c.counts_name);
  plan_unique(b, rule, c);
}

}  // namespace opsnn::ops

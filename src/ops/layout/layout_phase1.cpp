#include "ops/layout/layout_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "kernels/elementwise/convert.h"
#include "core/op_checks.h"
#include "core/size_math.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"
#include "ops/layout/layout_steps.h"

namespace opsnn::ops {
namespace {

using core::Shape;

using core::wrap_dim;

// A list of distinct dims of a tensor with nd dims, wrapped.
std::vector<int> dim_list(const std::vector<int64_t> &dims, int nd, const char *name) {
  std::vector<int> out;
  uint32_t seen = 0;
  for (int64_t d : dims) {
    const int w = static_cast<int>(wrap_dim(d, nd, name));
    if (seen >> w & 1u)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: dim %d appears more than once", name, w);
    seen |= 1u << w;
    out.push_back(w);
  }
  return out;
}

Shape shape_of(const aclTensor &t) { return Shape::of(t); }

// A contiguous descriptor of `dtype` and `shape` at element offset 0 (a workspace operand).
aclTensor contiguous_desc(aclDataType dtype, const Shape &shape) {
  aclTensor t;
  t.dtype = dtype;
  t.ndim = shape.ndim;
  int64_t acc = 1;
  for (int d = shape.ndim - 1; d >= 0; --d) {
    t.dims[d] = shape.dims[d];
    t.strides[d] = acc;
    acc *= std::max<int64_t>(shape.dims[d], 1);
  }
  return t;
}

// dst = src (same shape), converting dtypes; nothing to record for an empty view.
void copy(core::OpBuilder &b, const EwInput &dst, const EwInput &src) {
  if (dst.view.numel() == 0) return;
  EwSpec spec;
  spec.op = kernels::EwOp::kIdentity;
  spec.compute_dtype = conversion_compute_dtype(src.view.dtype, dst.view.dtype);
  record_elementwise(b, spec, dst, {src});
}
void copy_views(core::OpBuilder &b, int out_slot, const aclTensor &out_view, int in_slot, const aclTensor &in_view) {
  if (record_blocked_copy(b, out_slot, out_view, in_slot, in_view)) return;  // transposes, in tiles
  copy(b, EwInput::tensor_view(out_slot, out_view), EwInput::tensor_view(in_slot, in_view));
}

// Fills a view of a slot with `value`, or (null) with the number `number`.
void fill_view(core::OpBuilder &b, int out_slot, const aclTensor &view, const aclScalar *value, double number = 0) {
  if (view.numel() == 0) return;
  EwSpec spec;
  spec.op = kernels::EwOp::kFill;
  spec.compute_dtype = conversion_compute_dtype(value ? value->dtype : view.dtype, view.dtype);
  if (value) spec.set_scalar(0, value);
  else spec.set_scalar(0, number);
  record_elementwise(b, spec, EwInput::tensor_view(out_slot, view), {});
}

const std::vector<int64_t> &int_list(const LayoutCall &c, int k) {
  core::check_not_null(c.arr[k], c.arr_name[k]);
  return c.arr[k]->values;
}

// Registers self and out (in prototype order), checks out's shape; returns {in, out} slots.
std::pair<int, int> register_self_out(core::OpBuilder &b, const LayoutCall &c, const Shape &expect) {
  core::check_shape_equals(*c.out, c.out_name, expect);
  if (c.inplace) {
    const int s = b.inout(c.self);
    return {s, s};
  }
  const int in = b.input(c.self);
  return {in, b.output(c.out)};
}

// The output is a view of self copied as it is (permute, slice, flip).
void copy_view_of_self(core::OpBuilder &b, const LayoutCall &c, const aclTensor &view) {
  const auto [in, out] = register_self_out(b, c, shape_of(view));
  copy_views(b, out, b.tensor(out), in, view);
}

void plan_permute(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const auto &dims = int_list(c, 0);
  if (static_cast<int>(dims.size()) != self.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries; it needs one per dim of %s (%d)", c.arr_name[0],
                dims.size(), c.self_name, self.ndim);
  const std::vector<int> perm = dim_list(dims, self.ndim, c.arr_name[0]);
  aclTensor v = self;
  for (int i = 0; i < self.ndim; ++i) {
    v.dims[i] = self.dims[perm[static_cast<size_t>(i)]];
    v.strides[i] = self.strides[perm[static_cast<size_t>(i)]];
  }
  copy_view_of_self(b, c, v);
}

void plan_slice(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  if (self.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; a slice needs a dim", c.self_name);
  const int d = static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0]));
  const int64_t step = c.i[3];
  if (step <= 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be positive, got %lld", c.i_name[3], static_cast<long long>(step));
  const int64_t n = self.dims[d];
  int64_t start = c.i[1], end = c.i[2];
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  // ceil((end - start) / step) without end - start + step - 1, which overflows for steps near INT64_MAX.
  copy_view_of_self(b, c, narrow_view(self, d, start, end == start ? 0 : (end - start - 1) / step + 1, step));
}

void plan_flip(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  aclTensor v = self;
  for (int d : dim_list(int_list(c, 0), self.ndim, c.arr_name[0])) {
    if (self.ndim == 0 || self.dims[d] == 0) continue;
    v.offset += (self.dims[d] - 1) * self.strides[d];
    v.strides[d] = -self.strides[d];
  }
  copy_view_of_self(b, c, v);
}

// A tensor list's elements (non-empty list, no null element, dtypes in the rule, out castable
// from their promoted dtype).
void check_list(const LayoutRule &rule, const LayoutCall &c) {
  const auto &ts = c.list->tensors;
  if (ts.empty()) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty", c.list_name);
  aclDataType result = ACL_DT_UNDEFINED;
  for (size_t k = 0; k < ts.size(); ++k) {
    if (ts[k] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s[%zu] is null", c.list_name, k);
    const std::string name = std::string(c.list_name) + "[" + std::to_string(k) + "]";
    core::check_dtype_in(ts[k], name.c_str(), rule.dtypes);
    result = result == ACL_DT_UNDEFINED ? ts[k]->dtype : core::promote_types(result, ts[k]->dtype);
  }
  if (!core::can_cast(result, c.out->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; the result dtype %s cannot be cast to it", c.out_name,
                core::dtype_name(c.out->dtype), core::dtype_name(result));
}

void plan_cat(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  check_list(rule, c);
  const auto &ts = c.list->tensors;
  const aclTensor *ref = nullptr;
  size_t ref_index = 0;
  for (size_t k = 0; k < ts.size(); ++k) {
    // As in PyTorch, 1-D empty tensors take no part in the shape checks (legacy behaviour).
    if (ref == nullptr && !(ts[k]->ndim == 1 && ts[k]->dims[0] == 0)) {
      ref = ts[k];
      ref_index = k;
    }
  }
  if (ref == nullptr) ref = ts[0];
  if (ref->ndim == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%zu] is 0-d; zero-dimensional tensors cannot be concatenated",
                c.list_name, ref_index);
  const int d = static_cast<int>(wrap_dim(c.i[0], ref->ndim, c.i_name[0]));
  Shape expect = shape_of(*ref);
  expect.dims[d] = 0;
  for (size_t k = 0; k < ts.size(); ++k) {
    const aclTensor &t = *ts[k];
    if (t.ndim == 1 && t.dims[0] == 0 && ref->ndim != 1) continue;
    bool same = t.ndim == ref->ndim;
    for (int i = 0; same && i < t.ndim; ++i) same = i == d || t.dims[i] == ref->dims[i];
    if (!same)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%zu] has shape %s; it must match %s[%zu]'s shape %s except in dim %d",
                  c.list_name, k, core::shape_string(t).c_str(), c.list_name, ref_index,
                  core::shape_string(*ref).c_str(), d);
    expect.dims[d] += t.dims[d];
  }
  core::check_shape_equals(*c.out, c.out_name, expect);
  const std::vector<int> slots = b.input_list(0, c.list);
  const int out = b.output(c.out);
  int64_t offset = 0;
  for (size_t k = 0; k < ts.size(); ++k) {
    const aclTensor &t = b.tensor(slots[k]);
    if (t.ndim == 1 && t.dims[0] == 0 && ref->ndim != 1) continue;
    copy_views(b, out, narrow_view(b.tensor(out), d, offset, t.dims[d]), slots[k], t);
    offset += t.dims[d];
  }
}

// n + l + r, or an error naming the pad list when the sum does not fit in int64.
int64_t padded_size(int64_t n, int64_t l, int64_t r, const char *pad_name) {
  return core::size_add(core::size_add(n, l, pad_name), r, pad_name);
}

void plan_constant_pad(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const auto &pad = int_list(c, 0);
  core::check_scalar(c.s[0], c.s_name[0]);
  if (pad.size() % 2 != 0 || static_cast<int>(pad.size() / 2) > self.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries; it needs an even count of at most 2 * %d (self's dims)",
                c.arr_name[0], pad.size(), self.ndim);
  Shape expect = shape_of(self);
  int64_t before[core::kMaxDims] = {};
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int d = self.ndim - 1 - static_cast<int>(k);
    before[d] = pad[2 * k];
    expect.dims[d] = padded_size(self.dims[d], pad[2 * k], pad[2 * k + 1], c.arr_name[0]);
    if (expect.dims[d] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: dim %d of size %lld padded by (%lld, %lld) has a negative size",
                  c.arr_name[0], d, static_cast<long long>(self.dims[d]), static_cast<long long>(pad[2 * k]),
                  static_cast<long long>(pad[2 * k + 1]));
  }
  const auto [in, out] = register_self_out(b, c, expect);
  fill_view(b, out, b.tensor(out), c.s[0]);
  aclTensor iv = b.tensor(in), ov = b.tensor(out);
  for (int d = 0; d < self.ndim; ++d) {
    const int64_t lo = std::max<int64_t>(0, -before[d]);
    const int64_t hi = std::min<int64_t>(self.dims[d], expect.dims[d] - before[d]);
    if (hi <= lo) return;  // no element of self survives
    iv = narrow_view(iv, d, lo, hi - lo);
    ov = narrow_view(ov, d, lo + before[d], hi - lo);
  }
  copy_views(b, out, ov, in, iv);
}

// Reflection and replication pads of the last rule.pad_dims dims: per padded dim, three blocks
// (left, self, right) that read self with step -1 (reflection) or 0 (replication); every
// combination of blocks is one copy.
void plan_edge_pad(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const int pd = rule.pad_dims;
  const bool reflect = rule.kind == LayoutKind::kReflectionPad;
  const bool circular = rule.kind == LayoutKind::kCircularPad;
  if (self.ndim != pd + 1 && self.ndim != pd + 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it needs %d or %d", c.self_name, self.ndim, pd + 1, pd + 2);
  const auto &pad = int_list(c, 0);
  if (static_cast<int>(pad.size()) != 2 * pd)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries; it needs %d", c.arr_name[0], pad.size(), 2 * pd);
  struct Block {
    int64_t out_start, len, in_start, in_step;
  };
  std::vector<std::vector<Block>> blocks(static_cast<size_t>(pd));
  Shape expect = shape_of(self);
  for (int k = 0; k < pd; ++k) {
    const int d = self.ndim - 1 - k;
    const int64_t n = self.dims[d], l = pad[2 * static_cast<size_t>(k)], r = pad[2 * static_cast<size_t>(k) + 1];
    const bool bad = l < 0 || r < 0 ||
                     (circular  ? l > n || r > n
                      : reflect ? (l >= n || r >= n) && (l > 0 || r > 0)
                                : n == 0 && (l > 0 || r > 0));
    if (bad)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: (%lld, %lld) for dim %d of size %lld; each must be %s", c.arr_name[0],
                  static_cast<long long>(l), static_cast<long long>(r), d, static_cast<long long>(n),
                  circular  ? "non-negative and at most the dim's size (padding wraps around once)"
                  : reflect ? "non-negative and smaller than the dim's size"
                            : "non-negative (and 0 for an empty dim)");
    expect.dims[d] = padded_size(n, l, r, c.arr_name[0]);
    if (circular)  // left: self's last l elements; right: its first r
      blocks[static_cast<size_t>(k)] = {{0, l, n - l, 1}, {l, n, 0, 1}, {l + n, r, 0, 1}};
    else
      blocks[static_cast<size_t>(k)] = {{0, l, reflect ? l : 0, reflect ? -1 : 0},
                                        {l, n, 0, 1},
                                        {l + n, r, reflect ? n - 2 : n - 1, reflect ? -1 : 0}};
  }
  const auto [in, out] = register_self_out(b, c, expect);
  int pick[3] = {0, 0, 0};
  for (;;) {
    aclTensor iv = b.tensor(in), ov = b.tensor(out);
    for (int k = 0; k < pd; ++k) {
      const int d = self.ndim - 1 - k;
      const Block &bl = blocks[static_cast<size_t>(k)][static_cast<size_t>(pick[k])];
      iv = narrow_view(iv, d, bl.in_start, bl.len, bl.in_step);
      ov = narrow_view(ov, d, bl.out_start, bl.len);
    }
    copy_views(b, out, ov, in, iv);
    int k = 0;
    while (k < pd && ++pick[k] == 3) pick[k++] = 0;
    if (k == pd) break;
  }
}

void plan_triangle(core::OpBuilder &b, const LayoutCall &c, bool lower) {
  if (c.self->ndim < 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; %s needs at least 2", c.self_name, c.self->ndim,
                lower ? "tril" : "triu");
  const auto [in, out] = register_self_out(b, c, shape_of(*c.self));
  // Beyond +-2^62 every diagonal selects all or nothing: the clamp keeps i + diagonal in int64.
  const int64_t bound = int64_t{1} << 62;
  if (c.self->numel() > 0) record_triangle(b, in, out, lower, std::clamp(c.i[0], -bound, bound));
}

void plan_roll(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const auto &shifts = int_list(c, 0);
  const auto &dims = int_list(c, 1);
  if (dims.empty() && shifts.size() != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries; without %s it needs exactly 1", c.arr_name[0],
                shifts.size(), c.arr_name[1]);
  if (!dims.empty() && shifts.size() != dims.size())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries and %s %zu; they must have the same length",
                c.arr_name[0], shifts.size(), c.arr_name[1], dims.size());
  int64_t shift[core::kMaxDims] = {};
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = wrap_dim(dims[k], self.ndim, c.arr_name[1]);
    // Summed modulo the dim's size: repeated dims with shifts near INT64_MAX must not overflow.
    if (self.ndim > 0 && self.dims[d] > 0) shift[d] = (shift[d] + ((shifts[k] % self.dims[d]) + self.dims[d])) % self.dims[d];
  }
  const auto [in, out] = register_self_out(b, c, shape_of(self));
  const int64_t numel = self.numel();
  if (numel == 0) return;
  auto mod = [](int64_t a, int64_t n) { return ((a % n) + n) % n; };
  if (dims.empty()) {
    // The flattened roll: self -> a contiguous block, rolled into a second one, copied to out.
    const int64_t s = mod(shifts[0], numel);
    const uint64_t bytes = static_cast<uint64_t>(numel) * core::dtype_size(self.dtype);
    const aclTensor flat = contiguous_desc(self.dtype, Shape{1, {numel}});
    const aclTensor full = contiguous_desc(self.dtype, shape_of(self));
    const core::WsKey a = b.book("roll_input", bytes), r = b.book("roll_output", bytes);
    copy(b, EwInput::workspace(a, full), EwInput::tensor_view(in, b.tensor(in)));
    copy(b, EwInput::workspace(r, narrow_view(flat, 0, s, numel - s)),
         EwInput::workspace(a, narrow_view(flat, 0, 0, numel - s)));
    copy(b, EwInput::workspace(r, narrow_view(flat, 0, 0, s)), EwInput::workspace(a, narrow_view(flat, 0, numel - s, s)));
    copy(b, EwInput::tensor_view(out, b.tensor(out)), EwInput::workspace(r, full));
    return;
  }
  // Per rolled dim two blocks: out[s:] = in[:n-s] and out[:s] = in[n-s:].
  std::vector<int> rolled;
  for (int d = 0; d < self.ndim; ++d)
    if (mod(shift[d], self.dims[d]) != 0) rolled.push_back(d);
  for (uint32_t combo = 0; combo < (1u << rolled.size()); ++combo) {
    aclTensor iv = b.tensor(in), ov = b.tensor(out);
    for (size_t k = 0; k < rolled.size(); ++k) {
      const int d = rolled[k];
      const int64_t n = self.dims[d], s = mod(shift[d], n);
      if (combo >> k & 1u) {
        iv = narrow_view(iv, d, n - s, s);
        ov = narrow_view(ov, d, 0, s);
      } else {
        iv = narrow_view(iv, d, 0, n - s);
        ov = narrow_view(ov, d, s, n - s);
      }
    }
    copy_views(b, out, ov, in, iv);
  }
}

void plan_repeat(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const auto &reps = int_list(c, 0);
  if (static_cast<int>(reps.size()) < self.ndim || reps.size() > static_cast<size_t>(core::kMaxDims))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries; it needs at least %s's %d dims and at most %d",
                c.arr_name[0], reps.size(), c.self_name, self.ndim, core::kMaxDims);
  const int nd = static_cast<int>(reps.size()), extra = nd - self.ndim;
  Shape expect;
  expect.ndim = nd;
  for (int k = 0; k < nd; ++k) {
    if (reps[static_cast<size_t>(k)] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: entry %d is %lld; repeats must be non-negative", c.arr_name[0], k,
                  static_cast<long long>(reps[static_cast<size_t>(k)]));
    expect.dims[k] = core::size_mul(reps[static_cast<size_t>(k)], k < extra ? 1 : self.dims[k - extra], c.arr_name[0]);
  }
  const auto [in, out] = register_self_out(b, c, expect);
  if (c.out->numel() == 0) return;
  // Each out dim k of size r * s is the loop pair (r: out stride s * os, in stride 0) x
  // (s: os, is); pairs with r or s equal to 1 are one loop. Beyond 8 loops, the outermost repeat
  // loops run as separate copies.
  struct Loop {
    int64_t size, os, is;
    int dim;  // out dim
    bool repeat;
  };
  std::vector<Loop> loops;
  const aclTensor &o = b.tensor(out);
  for (int k = 0; k < nd; ++k) {
    const int64_t r = reps[static_cast<size_t>(k)], s = k < extra ? 1 : self.dims[k - extra];
    const int64_t is = k < extra ? 0 : self.strides[k - extra];
    if (s == 1) loops.push_back({r, o.strides[k], 0, k, true});
    else if (r == 1) loops.push_back({s, o.strides[k], is, k, false});
    else {
      loops.push_back({r, o.strides[k] * s, 0, k, true});
      loops.push_back({s, o.strides[k], is, k, false});
    }
  }
  std::vector<Loop> outer;  // run as separate copies
  while (static_cast<int>(loops.size()) > core::kMaxDims) {
    const auto it = std::find_if(loops.begin(), loops.end(), [](const Loop &l) { return l.repeat; });
    outer.push_back(*it);
    loops.erase(it);
  }
  aclTensor ov = o, iv = b.tensor(in);
  ov.ndim = iv.ndim = static_cast<int>(loops.size());
  for (size_t k = 0; k < loops.size(); ++k) {
    ov.dims[k] = iv.dims[k] = loops[k].size;
    ov.strides[k] = loops[k].os;
    iv.strides[k] = loops[k].is;
  }
  std::vector<int64_t> idx(outer.size(), 0);
  for (;;) {
    aclTensor v = ov;
    for (size_t k = 0; k < outer.size(); ++k) v.offset += idx[k] * outer[k].os;
    copy_views(b, out, v, in, iv);
    size_t k = 0;
    while (k < outer.size() && ++idx[k] == outer[k].size) idx[k++] = 0;
    if (k == outer.size()) break;
  }
}

// RepeatInterleaveIntWithDim (i = repeats, dim, outputSize) and RepeatInterleaveInt (i = repeats,
// outputSize: self flattened).
void plan_repeat_interleave(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const bool with_dim = std::strcmp(c.i_name[1], "dim") == 0;
  const int64_t r = c.i[0], output_size = with_dim ? c.i[2] : c.i[1];
  const char *size_name = with_dim ? c.i_name[2] : c.i_name[1];
  if (r < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be non-negative, got %lld", c.i_name[0], static_cast<long long>(r));
  if (self.ndim >= core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; at most %d are supported", c.self_name, self.ndim,
                core::kMaxDims - 1);
  const int d = with_dim && self.ndim > 0 ? static_cast<int>(wrap_dim(c.i[1], self.ndim, c.i_name[1])) : -1;
  if (with_dim && self.ndim == 0) wrap_dim(c.i[1], 0, c.i_name[1]);
  Shape expect = shape_of(self);
  if (d >= 0) expect.dims[d] = core::size_mul(expect.dims[d], r, c.i_name[0]);
  else expect = Shape{1, {core::size_mul(self.numel(), r, c.i_name[0])}};
  const int64_t length = d >= 0 ? expect.dims[d] : expect.dims[0];
  if (output_size != length)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %lld; the repeated length is %lld", size_name,
                static_cast<long long>(output_size), static_cast<long long>(length));
  const auto [in, out] = register_self_out(b, c, expect);
  if (length == 0) return;
  // out viewed with a repeat dim of size r (in stride 0) after dim d (or after every dim of the
  // flattened self).
  const aclTensor &o = b.tensor(out);
  aclTensor iv = b.tensor(in), ov = o;
  const int at = d >= 0 ? d + 1 : self.ndim;
  for (int k = self.ndim; k > at; --k) {
    iv.dims[k] = iv.dims[k - 1];
    iv.strides[k] = iv.strides[k - 1];
  }
  iv.ndim = self.ndim + 1;
  iv.dims[at] = r;
  iv.strides[at] = 0;
  ov.ndim = iv.ndim;
  if (d >= 0) {
    for (int k = 0; k < iv.ndim; ++k) {
      const int src = k < at ? k : k == at ? d : k - 1;
      ov.dims[k] = iv.dims[k];
      ov.strides[k] = o.strides[src] * (k == d ? r : 1);
    }
  } else {
    int64_t acc = o.strides[0];
    for (int k = iv.ndim - 1; k >= 0; --k) {
      ov.dims[k] = iv.dims[k];
      ov.strides[k] = acc;
      acc *= iv.dims[k];
    }
  }
  copy_views(b, out, ov, in, iv);
}

// t with dim d removed at index k (a slice of out for one stacked input).
aclTensor select_view(const aclTensor &t, int d, int64_t k) {
  aclTensor v = t;
  v.offset += k * t.strides[d];
  for (int i = d; i + 1 < t.ndim; ++i) {
    v.dims[i] = t.dims[i + 1];
    v.strides[i] = t.strides[i + 1];
  }
  --v.ndim;
  return v;
}

void plan_stack(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  check_list(rule, c);
  const auto &ts = c.list->tensors;
  for (size_t k = 1; k < ts.size(); ++k)
    if (!(shape_of(*ts[k]) == shape_of(*ts[0])))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s[%zu] has shape %s; every tensor must have %s[0]'s shape %s",
                  c.list_name, k, core::shape_string(*ts[k]).c_str(), c.list_name, core::shape_string(*ts[0]).c_str());
  const int nd = ts[0]->ndim;
  if (nd >= core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s[0] has %d dims; at most %d can be stacked", c.list_name, nd,
                core::kMaxDims - 1);
  const int d = static_cast<int>(wrap_dim(c.i[0], nd + 1, c.i_name[0]));
  Shape expect;
  expect.ndim = nd + 1;
  for (int i = 0, j = 0; i <= nd; ++i) expect.dims[i] = i == d ? static_cast<int64_t>(ts.size()) : ts[0]->dims[j++];
  core::check_shape_equals(*c.out, c.out_name, expect);
  const std::vector<int> slots = b.input_list(0, c.list);
  const int out = b.output(c.out);
  for (size_t k = 0; k < ts.size(); ++k)
    copy_views(b, out, select_view(b.tensor(out), d, static_cast<int64_t>(k)), slots[k], b.tensor(slots[k]));
}

void plan_eye(core::OpBuilder &b, const LayoutCall &c) {
  for (int k = 0; k < 2; ++k)
    if (c.i[k] < 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be non-negative, got %lld", c.i_name[k],
                  static_cast<long long>(c.i[k]));
  core::check_shape_equals(*c.out, c.out_name, Shape{2, {c.i[0], c.i[1]}});
  const int out = b.output(c.out);
  const aclTensor &o = b.tensor(out);
  fill_view(b, out, o, nullptr, 0);
  aclTensor diag = o;
  diag.ndim = 1;
  diag.dims[0] = std::min(c.i[0], c.i[1]);
  diag.strides[0] = o.strides[0] + o.strides[1];
  fill_view(b, out, diag, nullptr, 1);
}

void plan_linspace(core::OpBuilder &b, const LayoutCall &c) {
  const int64_t steps = c.i[0];
  if (steps < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be non-negative, got %lld", c.i_name[0], static_cast<long long>(steps));
  core::check_shape_equals(*c.out, c.out_name, Shape{1, {steps}});
  const int out = b.output(c.out);
  if (steps > 0) record_linspace(b, out, c.s[0]->to_double(), c.s[1]->to_double());
}

void plan_arange(core::OpBuilder &b, const LayoutCall &c) {
  for (int k = 0; k < 3; ++k) core::check_scalar(c.s[k], c.s_name[k]);
  const bool integral = !c.s[0]->is_floating() && !c.s[1]->is_floating() && !c.s[2]->is_floating();
  const double start = c.s[0]->to_double(), end = c.s[1]->to_double(), step = c.s[2]->to_double();
  if (step == 0 || std::isnan(step))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be non-zero, got %g", c.s_name[2], step);
  if (!std::isfinite(start) || !std::isfinite(end))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s and %s must be finite, got %g and %g", c.s_name[0], c.s_name[1], start,
                end);
  if ((step > 0 && end < start) || (step < 0 && end > start))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s %g has the wrong sign for the range from %s %g to %s %g", c.s_name[2],
                step, c.s_name[0], start, c.s_name[1], end);
  int64_t n;
  if (integral) {
    const int64_t s = c.s[0]->to_int64(), e = c.s[1]->to_int64(), st = c.s[2]->to_int64();
    // In 128 bits: e - s and the rounding term overflow int64 for ranges near its limits.
    const __int128 span = st > 0 ? static_cast<__int128>(e) - s : static_cast<__int128>(s) - e;
    const __int128 stride = st > 0 ? static_cast<__int128>(st) : -static_cast<__int128>(st);
    const __int128 count = (span + stride - 1) / stride;
    if (count >= (static_cast<__int128>(1) << 62))
      throw_error(ACLNN_ERR_PARAM_INVALID, "the range from %s %lld to %s %lld by %s %lld has too many elements",
                  c.s_name[0], static_cast<long long>(s), c.s_name[1], static_cast<long long>(e), c.s_name[2],
                  static_cast<long long>(st));
    n = static_cast<int64_t>(count);
  } else {
    const double count = std::ceil((end - start) / step);
    if (!(count < 0x1p62))
      throw_error(ACLNN_ERR_PARAM_INVALID, "the range from %s %g to %s %g by %s %g has too many elements",
                  c.s_name[0], start, c.s_name[1], end, c.s_name[2], step);
    n = static_cast<int64_t>(count);
  }
  core::check_shape_equals(*c.out, c.out_name, Shape{1, {n}});
  const int out = b.output(c.out);
  if (n > 0) record_arange(b, out, start, step, c.s[0]->to_int64(), c.s[2]->to_int64());
}

// An index (or repeats) tensor: INT32 or INT64 with at most `max_ndim` dims.
void check_index(const aclTensor *t, const char *name, int max_ndim) {
  core::check_dtype_in(t, name, {ACL_INT32, ACL_INT64});
  if (t->ndim > max_ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have at most %d", name, t->ndim, max_ndim);
}

// The slab of `src` without dim d, and the matching dims of dst (dst's dims [d, d + skip) are the
// positions).
void set_slab(IndexPlan &p, const aclTensor &src, const aclTensor &dst, int d, int skip) {
  p.slab_ndim = 0;
  for (int k = 0; k < src.ndim; ++k) {
    if (k == d) continue;
    p.slab_dims[p.slab_ndim] = src.dims[k];
    p.slab_src[p.slab_ndim] = src.strides[k];
    p.slab_dst[p.slab_ndim] = dst.strides[k < d ? k : k - 1 + skip];
    ++p.slab_ndim;
  }
}

// An index step's plan over registered slots (src -1: set later).
IndexPlan index_plan(core::OpBuilder &b, int src, int dst, int index, const char *index_name) {
  IndexPlan p;
  p.src_slot = src;
  p.dst_slot = dst;
  p.index_slot = index;
  if (src >= 0) p.src = b.tensor(src);
  p.dst = b.tensor(dst);
  p.index = b.tensor(index);
  p.index_name = index_name;
  return p;
}

// GatherV2 / Embedding (kGather) and IndexSelect.
void plan_gather(core::OpBuilder &b, const LayoutCall &c, bool select) {
  const aclTensor &self = *c.self;
  const bool embedding = c.i_name[0][0] == '\0';
  if (embedding ? self.ndim != 2 : self.ndim == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have %s", c.self_name, self.ndim,
                embedding ? "2" : "at least 1");
  const int d = embedding ? 0 : static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0]));
  // GatherV3: batchDims 0 is GatherV2 (mode, a kernel choice, changes no result); batched gathers
  // are not implemented.
  if (std::strcmp(c.i_name[1], "batchDims") == 0 && c.i[1] != 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "batchDims = %lld is not supported (only 0)", static_cast<long long>(c.i[1]));
  const aclTensor &index = *c.index;
  check_index(&index, c.index_name, select ? 1 : core::kMaxDims);
  const int nidx = select ? 1 : index.ndim;
  if (self.ndim - 1 + nidx > core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "the result would have %d dims; at most %d are supported",
                self.ndim - 1 + nidx, core::kMaxDims);
  Shape expect;
  for (int k = 0; k < d; ++k) expect.dims[expect.ndim++] = self.dims[k];
  if (select) expect.dims[expect.ndim++] = index.numel();
  else
    for (int k = 0; k < index.ndim; ++k) expect.dims[expect.ndim++] = index.dims[k];
  for (int k = d + 1; k < self.ndim; ++k) expect.dims[expect.ndim++] = self.dims[k];
  core::check_shape_equals(*c.out, c.out_name, expect);
  const int in = b.input(c.self), ix = b.input(c.index), out = b.output(c.out);
  IndexPlan p = index_plan(b, in, out, ix, c.index_name);
  p.pos_ndim = nidx;
  for (int k = 0; k < nidx; ++k) {
    p.pos_dims[k] = expect.dims[d + k];
    p.pos_strides[k] = p.dst.strides[d + k];
  }
  p.val_stride = self.strides[d];
  p.bound = self.dims[d];
  set_slab(p, p.src, p.dst, d, nidx);
  record_index_copy(b, p);
}

// The scatters into self's copy (or selfRef): registers self, index, source and out in prototype
// order (out = self first) and returns the plan writing out (no dim yet).
IndexPlan register_scatter(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  if (c.source != nullptr && c.source->dtype != self.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.source_name,
                core::dtype_name(c.source->dtype), c.self_name, core::dtype_name(self.dtype));
  int in = -1, out = -1, src = -1;
  if (c.inplace) in = out = b.inout(c.self);
  else {
    core::check_shape_equals(*c.out, c.out_name, shape_of(self));
    in = b.input(c.self);
  }
  const int ix = b.input(c.index);
  if (c.source != nullptr) src = b.input(c.source);
  if (!c.inplace) {
    out = b.output(c.out);
    copy_views(b, out, b.tensor(out), in, b.tensor(in));
  }
  IndexPlan p = index_plan(b, src, out, ix, c.index_name);
  p.scatter = true;
  return p;
}

// The scatters along a dim: checks what they share and returns the plan (bound and stride of dim).
IndexPlan scatter_plan(core::OpBuilder &b, const LayoutCall &c, int *d, int max_index_ndim, const char *what) {
  const aclTensor &self = *c.self;
  if (self.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; %s needs a dim", c.self_name, what);
  *d = static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0]));
  check_index(c.index, c.index_name, max_index_ndim);
  if (c.s_name[0][0] != '\0') core::check_scalar(c.s[0], c.s_name[0]);
  IndexPlan p = register_scatter(b, c);
  p.bound = self.dims[*d];
  p.val_stride = p.dst.strides[*d];
  return p;
}

// GatherNd / ScatterNd: indices [p..., K] address self's first K dims; the slabs are self's others.
// Returns K; `rest` gets indices.shape[:-1] + self.shape[K:] (the output / the updates' shape).
int nd_index(const LayoutCall &c, Shape *rest) {
  const aclTensor &self = *c.self, &index = *c.index;
  check_index(&index, c.index_name, core::kMaxDims);
  const int k = index.ndim > 0 ? static_cast<int>(index.dims[index.ndim - 1]) : 0;
  if (index.ndim == 0 || k < 1 || k > self.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; its last dim must be in [1, %d] (%s's dims)",
                c.index_name, core::shape_string(index).c_str(), self.ndim, c.self_name);
  if (index.ndim - 1 + self.ndim - k > core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "the result would have more than %d dims", core::kMaxDims);
  *rest = Shape{};
  for (int j = 0; j + 1 < index.ndim; ++j) rest->dims[rest->ndim++] = index.dims[j];
  for (int j = k; j < self.ndim; ++j) rest->dims[rest->ndim++] = self.dims[j];
  return k;
}

// The n-d plan's positions (indices.shape[:-1], stepping `pos` in the positional tensor) and slabs
// (self's dims from K: `indexed` is the tensor the index values address, `other` the other one).
void set_nd(IndexPlan &p, const aclTensor &index, int k, const aclTensor &indexed, const aclTensor &other) {
  const int np = index.ndim - 1;
  p.nd_k = k;
  for (int j = 0; j < k; ++j) {
    p.nd_bounds[j] = indexed.dims[j];
    p.nd_strides[j] = indexed.strides[j];
  }
  p.pos_ndim = np;
  for (int j = 0; j < np; ++j) {
    p.pos_dims[j] = index.dims[j];
    p.pos_strides[j] = other.strides[j];
  }
  p.slab_ndim = 0;
  for (int j = k; j < indexed.ndim; ++j, ++p.slab_ndim) {
    p.slab_dims[p.slab_ndim] = indexed.dims[j];
    const int64_t si = indexed.strides[j], so = other.strides[np + j - k];
    p.slab_src[p.slab_ndim] = p.scatter ? so : si;
    p.slab_dst[p.slab_ndim] = p.scatter ? si : so;
  }
}

void plan_gather_nd(core::OpBuilder &b, const LayoutCall &c) {
  Shape expect;
  const int k = nd_index(c, &expect);
  core::check_shape_equals(*c.out, c.out_name, expect);
  const int in = b.input(c.self), ix = b.input(c.index), out = b.output(c.out);
  IndexPlan p = index_plan(b, in, out, ix, c.index_name);
  p.wrap_negative = c.i[0] != 0;  // negativeIndexSupport
  set_nd(p, p.index, k, p.src, p.dst);
  record_index_copy(b, p);
}

// The K index tensors of aclnnIndex / IndexPutImpl (broadcast together) address self's first K
// dims: checked, their broadcast shape returned in `bshape`, and stacked (once their slots are
// registered) by stack_indices into an INT64 workspace block [bshape..., K], the plan's index.
int check_index_list(const LayoutCall &c, Shape *bshape) {
  const auto &ts = c.list->tensors;
  const int k = static_cast<int>(ts.size());
  if (k == 0 || k > c.self->ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d tensors; it needs 1 to %d (%s's dims)", c.list_name, k,
                c.self->ndim, c.self_name);
  for (int j = 0; j < k; ++j) {
    const std::string name = std::string(c.list_name) + "[" + std::to_string(j) + "]";
    if (ts[static_cast<size_t>(j)] == nullptr) throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s is null", name.c_str());
    check_index(ts[static_cast<size_t>(j)], name.c_str(), core::kMaxDims);
    *bshape = j == 0 ? shape_of(*ts[0])
                     : core::broadcast_shapes(*bshape, c.list_name, shape_of(*ts[static_cast<size_t>(j)]), name.c_str());
  }
  if (bshape->ndim + 1 > core::kMaxDims || bshape->ndim + c.self->ndim - k > core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s: the result would have more than %d dims", c.list_name, core::kMaxDims);
  return k;
}
void stack_indices(core::OpBuilder &b, const LayoutCall &c, const std::vector<int> &slots, const Shape &bshape,
                   IndexPlan &p) {
  const int k = static_cast<int>(slots.size());
  Shape stacked = bshape;
  stacked.dims[stacked.ndim++] = k;
  p.index = contiguous_desc(ACL_INT64, stacked);
  p.index_slot = -1;
  p.index_name = c.list_name;
  p.index_ws = b.book("index.indices", static_cast<uint64_t>(std::max<int64_t>(p.index.numel(), 1)) * 8);
  for (int j = 0; j < k; ++j) {  // component j of every position: the index tensor broadcast, as INT64
    aclTensor col = narrow_view(p.index, bshape.ndim, j, 1);
    col.ndim = bshape.ndim;
    const int slot = slots[static_cast<size_t>(j)];
    copy(b, EwInput::workspace(p.index_ws, col), EwInput::tensor_view(slot, b.tensor(slot)));
  }
  p.wrap_negative = true;
}

// aclnnIndex: gathered as by GatherNd from the stacked indices.
void plan_index_tensors(core::OpBuilder &b, const LayoutCall &c) {
  Shape bshape;
  const int k = check_index_list(c, &bshape);
  Shape expect = bshape;
  for (int j = k; j < c.self->ndim; ++j) expect.dims[expect.ndim++] = c.self->dims[j];
  core::check_shape_equals(*c.out, c.out_name, expect);
  const int in = b.input(c.self);
  const std::vector<int> slots = b.input_list(1, c.list);
  const int out = b.output(c.out);
  IndexPlan p;
  p.src_slot = in;
  p.src = b.tensor(in);
  p.dst_slot = out;
  p.dst = b.tensor(out);
  stack_indices(b, c, slots, bshape, p);
  set_nd(p, p.index, k, p.src, p.dst);
  record_index_copy(b, p);
}

// IndexPutImpl: selfRef[indices...] = values (accumulate: +=), values broadcast to the indexed shape;
// scattered as by ScatterNd from the stacked indices (in order: a repeated index's last write wins).
void plan_index_put(core::OpBuilder &b, const LayoutCall &c) {
  Shape bshape;
  const int k = check_index_list(c, &bshape);
  const aclTensor &values = *c.source;
  if (values.dtype != c.self->dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.source_name,
                core::dtype_name(values.dtype), c.self_name, core::dtype_name(c.self->dtype));
  Shape want = bshape;
  for (int j = k; j < c.self->ndim; ++j) want.dims[want.ndim++] = c.self->dims[j];
  if (!(core::broadcast_shapes(want, "the indexed shape", shape_of(values), c.source_name) == want))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must broadcast to the indexed shape %s", c.source_name,
                core::shape_string(values).c_str(), want.str().c_str());
  const int s = b.inout(c.self);
  const std::vector<int> slots = b.input_list(1, c.list);
  const int v = b.input(c.source);
  IndexPlan p;
  p.scatter = true;
  p.dst_slot = s;
  p.dst = b.tensor(s);
  p.src_slot = v;
  p.src = b.tensor(v);  // viewed with values broadcast to the indexed shape
  p.src.ndim = want.ndim;
  for (int j = 0; j < want.ndim; ++j) p.src.dims[j] = want.dims[j];
  core::broadcast_strides(values, want, p.src.strides);
  stack_indices(b, c, slots, bshape, p);
  if (c.i[0] != 0) p.combine = IndexPlan::Combine::kAdd;  // accumulate
  set_nd(p, p.index, k, p.dst, p.src);
  record_index_copy(b, p);
}

void flat_source(core::OpBuilder &b, IndexPlan &p, int in, const char *name);

// InplacePut: selfRef and source flattened (contiguous workspace copies), the put scattered into
// self's copy, which is copied back.
void plan_put(core::OpBuilder &b, const LayoutCall &c) {
  check_index(c.index, c.index_name, core::kMaxDims);
  if (c.source->numel() != c.index->numel())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld elements; it needs one per %s element (%lld)", c.source_name,
                static_cast<long long>(c.source->numel()), c.index_name, static_cast<long long>(c.index->numel()));
  IndexPlan p = register_scatter(b, c);
  const aclTensor self = p.dst;
  const aclTensor flat = contiguous_desc(self.dtype, shape_of(self));
  const core::WsKey ws = b.book("put.self", static_cast<uint64_t>(std::max<int64_t>(self.numel(), 1)) *
                                                core::dtype_size(self.dtype));
  copy(b, EwInput::workspace(ws, flat), EwInput::tensor_view(p.dst_slot, self));
  p.dst = contiguous_desc(self.dtype, Shape{1, {self.numel()}});
  p.dst_ws = ws;
  flat_source(b, p, p.src_slot, "put.source");
  const Shape ishape = shape_of(*c.index);
  const aclTensor iflat = contiguous_desc(ACL_INT64, ishape);  // position k: the k-th source element
  p.pos_ndim = ishape.ndim;
  for (int j = 0; j < ishape.ndim; ++j) {
    p.pos_dims[j] = ishape.dims[j];
    p.pos_strides[j] = iflat.strides[j];
  }
  p.bound = self.numel();
  p.wrap_negative = true;
  if (c.i[0] != 0) p.combine = IndexPlan::Combine::kAdd;  // accumulate
  record_index_copy(b, p);
  copy(b, EwInput::tensor_view(p.dst_slot, self), EwInput::workspace(ws, flat));
}

void plan_scatter_nd(core::OpBuilder &b, const LayoutCall &c) {
  Shape want;
  const int k = nd_index(c, &want);
  core::check_shape_equals(*c.source, c.source_name, want);
  IndexPlan p = register_scatter(b, c);
  set_nd(p, p.index, k, p.dst, p.src);
  record_index_copy(b, p);
}

// The scalar as one element of the plan's dst dtype (the scattered constant).
void set_constant(IndexPlan &p, const aclScalar *value) {
  p.src_constant = true;
  const aclDataType dt = p.dst.dtype;
  if (core::is_floating(dt)) {
    const double v = value->to_double();
    kernels::store_from<double>(&v, dt, reinterpret_cast<char *>(p.constant), 0, 1);
  } else {
    const int64_t v = value->to_int64();
    kernels::store_from<int64_t>(&v, dt, reinterpret_cast<char *>(p.constant), 0, 1);
  }
}

// IndexCopy (replace) and IndexAdd (dst + alpha * source): source's slabs along dim, one per index.
void plan_index_copy(core::OpBuilder &b, const LayoutCall &c, bool add) {
  core::check_tensor(c.source, c.source_name);
  int d = 0;
  if (c.self->ndim > 0) {
    d = static_cast<int>(wrap_dim(c.i[0], c.self->ndim, c.i_name[0]));
    Shape want = shape_of(*c.self);
    want.dims[d] = c.index->numel();
    core::check_shape_equals(*c.source, c.source_name, want);
  }
  IndexPlan p = scatter_plan(b, c, &d, 1, add ? "index_add" : "index_copy");
  if (add) {
    p.combine = IndexPlan::Combine::kAdd;
    p.alpha = c.s[0]->to_double();
  }
  p.pos_ndim = 1;
  p.pos_dims[0] = c.source->dims[d];
  p.pos_strides[0] = c.source->strides[d];
  set_slab(p, p.src, p.dst, d, 1);
  record_index_copy(b, p);
}

// Scatter / ScatterAdd / ScatterValue (torch.scatter with reduce 0 replace, 1 add, 2 multiply): one
// element per index position, at the position with dim replaced by the index value.
// ScatterReduce (scatter_reduce: reduce 0 replace, 1 sum, 2 prod, 3 amax, 4 amin, 5 mean, includeSelf) takes
// the same checks and plan, reduced by its own step.
void plan_scatter(core::OpBuilder &b, const LayoutCall &c, bool scatter_reduce = false) {
  const bool has_reduce = c.i_name[1][0] != '\0';
  const int64_t reduce = has_reduce ? c.i[1] : 1;
  if (scatter_reduce && (reduce < 0 || reduce > 5))
    throw_error(ACLNN_ERR_PARAM_INVALID,
                "%s must be 0 (replace), 1 (sum), 2 (prod), 3 (amax), 4 (amin) or 5 (mean), got %lld", c.i_name[1],
                static_cast<long long>(reduce));
  if (!scatter_reduce && (reduce < 0 || reduce > 2))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be 0 (replace), 1 (add) or 2 (multiply), got %lld", c.i_name[1],
                static_cast<long long>(reduce));
  if (c.source_name[0] != '\0') core::check_tensor(c.source, c.source_name);
  const aclTensor &self = *c.self, &index = *c.index;
  const int dd = self.ndim > 0 ? static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0])) : 0;
  bool fits = index.ndim == self.ndim && (c.source == nullptr || c.source->ndim == self.ndim);
  for (int k = 0; fits && k < index.ndim; ++k)
    fits = (k == dd || index.dims[k] <= self.dims[k]) && (c.source == nullptr || index.dims[k] <= c.source->dims[k]);
  if (!fits)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it needs %s's %d dims, none larger than %s's%s%s",
                c.index_name, core::shape_string(index).c_str(), c.self_name, self.ndim, c.source ? c.source_name : "",
                c.source ? " nor " : "", c.self_name);
  int d = 0;
  IndexPlan p = scatter_plan(b, c, &d, core::kMaxDims, "scatter");
  p.combine = reduce == 0 ? IndexPlan::Combine::kReplace : reduce == 1 ? IndexPlan::Combine::kAdd
                                                                        : IndexPlan::Combine::kMul;
  if (c.source == nullptr) set_constant(p, c.s[0]);
  p.pos_ndim = index.ndim;
  for (int k = 0; k < index.ndim; ++k) {
    p.pos_dims[k] = index.dims[k];
    p.pos_strides[k] = c.source ? c.source->strides[k] : 0;
    p.pos_val_strides[k] = k == d ? 0 : p.dst.strides[k];
  }
  if (scatter_reduce) record_scatter_reduce(b, p, d, static_cast<int>(reduce), c.i[2] != 0);
  else record_index_copy(b, p);
}

// ScatterMax / Min / Mul / Div (tf.scatter_*): updates is indices.shape + varRef.shape[1:]; the
// slab varRef[indices[p]] combined with updates[p] for each position p in order.
void plan_scatter_update(core::OpBuilder &b, const LayoutCall &c, IndexPlan::Combine combine) {
  const aclTensor &var = *c.self, &index = *c.index;
  if (var.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; it needs a first dim to index", c.self_name);
  check_index(c.index, c.index_name, core::kMaxDims);
  core::check_tensor(c.source, c.source_name);
  if (index.ndim + var.ndim - 1 > core::kMaxDims)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s would have more than %d dims", c.source_name, core::kMaxDims);
  Shape want = shape_of(index);
  for (int k = 1; k < var.ndim; ++k) want.dims[want.ndim++] = var.dims[k];
  core::check_shape_equals(*c.source, c.source_name, want);
  IndexPlan p = register_scatter(b, c);
  p.combine = combine;
  p.bound = var.dims[0];
  p.val_stride = p.dst.strides[0];
  p.pos_ndim = index.ndim;
  for (int k = 0; k < index.ndim; ++k) {
    p.pos_dims[k] = index.dims[k];
    p.pos_strides[k] = p.src.strides[k];
  }
  p.slab_ndim = 0;
  for (int k = 1; k < var.ndim; ++k, ++p.slab_ndim) {
    p.slab_dims[p.slab_ndim] = var.dims[k];
    p.slab_src[p.slab_ndim] = p.src.strides[index.ndim + k - 1];
    p.slab_dst[p.slab_ndim] = p.dst.strides[k];
  }
  record_index_copy(b, p);
}

void plan_index_fill(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  if (self.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; index_fill needs a dim", c.self_name);
  const int d = static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0]));
  const int64_t n = self.dims[d];
  for (int64_t v : int_list(c, 0))
    if (v < -n || v >= n)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s: %lld is out of range [%lld, %lld) for dim %d", c.arr_name[0],
                  static_cast<long long>(v), static_cast<long long>(-n), static_cast<long long>(n), d);
  core::check_scalar(c.s[0], c.s_name[0]);
  const auto [in, out] = register_self_out(b, c, shape_of(self));
  if (!c.inplace) copy_views(b, out, b.tensor(out), in, b.tensor(in));
  for (int64_t v : c.arr[0]->values) fill_view(b, out, narrow_view(b.tensor(out), d, v < 0 ? v + n : v, 1), c.s[0]);
}

// IndexFill / InplaceIndexFill: the indices are a device tensor, scattered slabs of one constant.
void plan_index_fill_tensor(core::OpBuilder &b, const LayoutCall &c) {
  int d = 0;
  IndexPlan p = scatter_plan(b, c, &d, 1, "index_fill");
  set_constant(p, c.s[0]);
  p.wrap_negative = true;
  p.pos_ndim = 1;
  p.pos_dims[0] = c.index->numel();
  set_slab(p, p.dst, p.dst, d, 1);
  for (int k = 0; k < p.slab_ndim; ++k) p.slab_src[k] = 0;
  record_index_copy(b, p);
}

// self as a contiguous workspace copy (the flattened ops gather single elements from it).
void flat_source(core::OpBuilder &b, IndexPlan &p, int in, const char *name) {
  const aclTensor &self = b.tensor(in);
  p.src = contiguous_desc(self.dtype, shape_of(self));
  p.src_ws = b.book(name, static_cast<uint64_t>(std::max<int64_t>(self.numel(), 1)) * core::dtype_size(self.dtype));
  copy(b, EwInput::workspace(p.src_ws, p.src), EwInput::tensor_view(in, self));
  p.val_stride = 1;
  p.slab_ndim = 0;
}

// torch.gather (kGatherElements) and torch.take: one element per index value; out has the index's
// shape.
void plan_gather_elements(core::OpBuilder &b, const LayoutCall &c, bool take) {
  const aclTensor &self = *c.self, &index = *c.index;
  check_index(&index, c.index_name, core::kMaxDims);
  int d = 0;
  if (!take) {
    if (self.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; gather needs a dim", c.self_name);
    d = static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0]));
    bool fits = index.ndim == self.ndim;
    for (int k = 0; fits && k < self.ndim; ++k) fits = k == d || index.dims[k] <= self.dims[k];
    if (!fits)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it needs %s's %d dims, none larger than %s %s except dim %d",
                  c.index_name, core::shape_string(index).c_str(), c.self_name, self.ndim, c.self_name,
                  core::shape_string(self).c_str(), d);
  }
  core::check_shape_equals(*c.out, c.out_name, shape_of(index));
  const int in = b.input(c.self), ix = b.input(c.index), out = b.output(c.out);
  IndexPlan p = index_plan(b, take ? -1 : in, out, ix, c.index_name);
  p.pos_ndim = index.ndim;
  for (int k = 0; k < index.ndim; ++k) {
    p.pos_dims[k] = index.dims[k];
    p.pos_strides[k] = p.dst.strides[k];
    p.pos_val_strides[k] = take || k == d ? 0 : self.strides[k];
  }
  if (take) {
    flat_source(b, p, in, "take.self");
    p.bound = self.numel();
    p.wrap_negative = true;
  } else {
    p.val_stride = self.strides[d];
    p.bound = self.dims[d];
  }
  record_index_copy(b, p);
}

// RepeatInterleave (repeats a tensor; self flattened), RepeatInterleaveWithDim and
// RepeatInterleaveTensor (self is the repeats; out the expanded indices).
void plan_repeat_interleave_tensor(core::OpBuilder &b, const LayoutCall &c) {
  const bool indices_only = c.index_name[0] == '\0';
  const bool with_dim = !indices_only && std::strcmp(c.i_name[0], "dim") == 0;
  const int64_t output_size = with_dim ? c.i[1] : c.i[0];
  const char *size_name = with_dim ? c.i_name[1] : c.i_name[0];
  if (output_size < 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s must be non-negative, got %lld", size_name,
                static_cast<long long>(output_size));
  const aclTensor &self = *c.self;
  const aclTensor &reps = indices_only ? self : *c.index;
  const char *reps_name = indices_only ? c.self_name : c.index_name;
  check_index(&reps, reps_name, 1);
  if (indices_only) {
    if (reps.ndim != 1) throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must be 1-D", reps_name, reps.ndim);
    core::check_shape_equals(*c.out, c.out_name, Shape{1, {output_size}});
    const int in = b.input(c.self), out = b.output(c.out);
    IndexPlan p = index_plan(b, -1, out, in, reps_name);
    p.repeats = p.map_only = true;
    p.bound = reps.numel();
    p.pos_ndim = 1;
    p.pos_dims[0] = output_size;
    record_index_copy(b, p);
    return;
  }
  const int d = with_dim ? static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0])) : 0;
  if (with_dim && self.ndim == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; repeat_interleave with a dim needs one", c.self_name);
  const int64_t sources = with_dim ? self.dims[d] : self.numel();
  if (reps.numel() != 1 && reps.numel() != sources)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld entries; it needs 1 or %lld (%s)", reps_name,
                static_cast<long long>(reps.numel()), static_cast<long long>(sources),
                with_dim ? "the dim's size" : "self's element count");
  Shape expect = with_dim ? shape_of(self) : Shape{1, {output_size}};
  expect.dims[d] = output_size;
  core::check_shape_equals(*c.out, c.out_name, expect);
  const int in = b.input(c.self), ix = b.input(c.index), out = b.output(c.out);
  IndexPlan p = index_plan(b, with_dim ? in : -1, out, ix, reps_name);
  p.repeats = true;
  p.bound = sources;
  p.pos_ndim = 1;
  p.pos_dims[0] = output_size;
  p.pos_strides[0] = p.dst.strides[d];
  if (with_dim) {
    p.val_stride = self.strides[d];
    set_slab(p, p.src, p.dst, d, 1);
  } else {
    flat_source(b, p, in, "repeat_interleave.self");  // flattened: one element at a time
  }
  record_index_copy(b, p);
}

// RepeatInterleaveGrad: out = 0, then yGrad's slabs along axis added into the slab they repeat
// (the repeats expanded at launch; they must sum to yGrad's length along axis).
void plan_repeat_interleave_grad(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &grad = *c.self, &reps = *c.index;
  if (grad.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; it needs the repeated axis", c.self_name);
  const int d = static_cast<int>(wrap_dim(c.i[0], grad.ndim, c.i_name[0]));
  check_index(&reps, c.index_name, 1);
  if (c.out->ndim != grad.ndim)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it needs %s's %d", c.out_name, c.out->ndim, c.self_name,
                grad.ndim);
  Shape expect = shape_of(grad);
  expect.dims[d] = c.out->dims[d];
  core::check_shape_equals(*c.out, c.out_name, expect);
  if (reps.numel() != 1 && reps.numel() != expect.dims[d])
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %lld entries; it needs 1 or %lld (%s's size along the axis)",
                c.index_name, static_cast<long long>(reps.numel()), static_cast<long long>(expect.dims[d]), c.out_name);
  const int in = b.input(c.self), ix = b.input(c.index), out = b.output(c.out);
  fill_view(b, out, b.tensor(out), nullptr, 0);
  IndexPlan p = index_plan(b, in, out, ix, c.index_name);
  p.scatter = p.repeats = true;
  p.combine = IndexPlan::Combine::kAdd;
  p.bound = expect.dims[d];
  p.val_stride = p.dst.strides[d];
  p.pos_ndim = 1;
  p.pos_dims[0] = grad.dims[d];
  p.pos_strides[0] = grad.strides[d];
  set_slab(p, p.src, p.dst, d, 1);
  record_index_copy(b, p);
}

// CircularPad2d/3dBackward (self = gradOutput, source = the forward input, arr[0] = padding):
// gradInput[i] = the sum of gradOutput over the positions that wrap to i. The center block is copied
// and the wrapped blocks added in a fixed order, in FLOAT (a workspace copy for FLOAT16 / BF16) or
// DOUBLE.
void plan_circular_pad_grad(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  const aclTensor &grad = *c.self, &x = *c.source;
  const int pd = rule.pad_dims;
  if (x.dtype != grad.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.source_name,
                core::dtype_name(x.dtype), c.self_name, core::dtype_name(grad.dtype));
  if (x.ndim != pd + 1 && x.ndim != pd + 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it needs %d or %d", c.source_name, x.ndim, pd + 1, pd + 2);
  const auto &pad = int_list(c, 0);
  if (static_cast<int>(pad.size()) != 2 * pd)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu entries; it needs %d", c.arr_name[0], pad.size(), 2 * pd);
  Shape gshape = shape_of(x);
  struct Block {
    int64_t out_start, len, in_start;
  };
  std::vector<std::vector<Block>> blocks(static_cast<size_t>(pd));
  for (int k = 0; k < pd; ++k) {
    const int d = x.ndim - 1 - k;
    const int64_t n = x.dims[d], l = pad[2 * static_cast<size_t>(k)], r = pad[2 * static_cast<size_t>(k) + 1];
    if (l < 0 || r < 0 || l > n || r > n)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s: (%lld, %lld) for dim %d of size %lld; each must be non-negative and at most the dim's size",
                  c.arr_name[0], static_cast<long long>(l), static_cast<long long>(r), d, static_cast<long long>(n));
    gshape.dims[d] = n + l + r;
    // gradOutput block (start, len) -> gradInput start: the center first, then the wrapped ones.
    blocks[static_cast<size_t>(k)] = {{l, n, 0}, {0, l, n - l}, {l + n, r, 0}};
  }
  core::check_shape_equals(grad, c.self_name, gshape);
  core::check_shape_equals(*c.out, c.out_name, shape_of(x));
  const int g = b.input(c.self);
  b.input(c.source);
  const int out = b.output(c.out);
  if (c.out->numel() == 0) return;
  const aclDataType acc = grad.dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
  const bool direct = c.out->dtype == acc;
  const EwInput dst = direct ? EwInput::tensor_view(out, b.tensor(out))
                             : EwInput::scratch(b, "circular_pad_grad.acc", shape_of(x), acc);
  int pick[3] = {0, 0, 0};
  for (bool first = true;; first = false) {
    aclTensor gv = b.tensor(g), dv = dst.view;
    bool empty = false;
    for (int k = 0; k < pd; ++k) {
      const int d = x.ndim - 1 - k;
      const Block &bl = blocks[static_cast<size_t>(k)][static_cast<size_t>(pick[k])];
      gv = narrow_view(gv, d, bl.out_start, bl.len);
      dv = narrow_view(dv, d, bl.in_start, bl.len);
      empty = empty || bl.len == 0;
    }
    if (!empty) {
      EwInput to = dst, from = EwInput::tensor_view(g, gv);
      to.view = dv;
      EwSpec spec;
      spec.compute_dtype = acc;
      if (first) {
        spec.op = kernels::EwOp::kIdentity;
        record_elementwise(b, spec, to, {from});
      } else {
        spec.op = kernels::EwOp::kAdd;
        spec.set_scalar(0, 1.0);
        record_elementwise(b, spec, to, {to, from});
      }
    }
    int k = 0;
    while (k < pd && ++pick[k] == 3) pick[k++] = 0;
    if (k == pd) break;
  }
  if (!direct) copy(b, EwInput::tensor_view(out, b.tensor(out)), dst);
}

// SplitTensor (i[0] = splitSections, i[1] = dim) and SplitWithSize (arr[0] = splitSize, i[0] =
// dim): the output list's tensors are self's consecutive chunks along dim (torch.split).
void plan_split(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  const bool with_sizes = c.arr_name[0][0] != '\0';
  core::check_tensor(c.self, c.self_name);
  if (with_sizes) core::check_not_null(c.arr[0], c.arr_name[0]);
  core::check_not_null(c.list, c.list_name);
  core::check_dtype_in(c.self, c.self_name, rule.dtypes);
  const aclTensor &self = *c.self;
  if (self.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; split needs a dim", c.self_name);
  const int dim_k = with_sizes ? 0 : 1;
  const int d = static_cast<int>(wrap_dim(c.i[dim_k], self.ndim, c.i_name[dim_k]));
  const int64_t n = self.dims[d];
  std::vector<int64_t> sizes;
  if (with_sizes) {
    int64_t total = 0;
    for (size_t k = 0; k < c.arr[0]->values.size(); ++k) {
      const int64_t v = c.arr[0]->values[k];
      if (v < 0)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s: entry %zu is %lld; sizes must be non-negative", c.arr_name[0], k,
                    static_cast<long long>(v));
      if (v > n - total)
        throw_error(ACLNN_ERR_PARAM_INVALID, "%s sums to more than %lld, the size of dim %d of %s", c.arr_name[0],
                    static_cast<long long>(n), d, c.self_name);
      total += v;
      sizes.push_back(v);
    }
    if (total != n)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s sums to %lld; it must sum to %lld, the size of dim %d of %s",
                  c.arr_name[0], static_cast<long long>(total), static_cast<long long>(n), d, c.self_name);
  } else {
    const int64_t s = c.i[0];
    if (s < 0 || (s == 0 && n != 0))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %lld; it must be positive (0 only for a dim of size 0, here %lld)",
                  c.i_name[0], static_cast<long long>(s), static_cast<long long>(n));
    if (n == 0) sizes.push_back(0);
    for (int64_t at = 0; at < n; at += s) sizes.push_back(std::min(s, n - at));
  }
  const auto &outs = c.list->tensors;
  if (outs.size() != sizes.size())
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %zu tensors; splitting dim %d of size %lld makes %zu chunks",
                c.list_name, outs.size(), d, static_cast<long long>(n), sizes.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string name = std::string(c.list_name) + "[" + std::to_string(k) + "]";
    core::check_tensor(outs[k], name.c_str());
    if (outs[k]->dtype != self.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", name.c_str(),
                  core::dtype_name(outs[k]->dtype), c.self_name, core::dtype_name(self.dtype));
    Shape want = shape_of(self);
    want.dims[d] = sizes[k];
    core::check_shape_equals(*outs[k], name.c_str(), want);
  }
  const int in = b.input(c.self);
  const std::vector<int> slots = b.output_list(0, c.list);
  int64_t at = 0;
  for (size_t k = 0; k < slots.size(); ++k) {
    copy_views(b, slots[k], b.tensor(slots[k]), in, narrow_view(b.tensor(in), d, at, sizes[k]));
    at += sizes[k];
  }
}

// Bucketize (self, boundaries, outInt32, right, out), SearchSorted (sortedSequence, self,
// outInt32, right, sorter, out) and SearchSorteds (self a scalar): torch.searchsorted. The
// sequence is 1-D (every value searches it) or has self's leading dims (each row searches its own
// row); values and sequence compare in their promoted dtype; sorter (INT64, the sequence's shape)
// orders each row (checked at launch: 161002).
void plan_search(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  const bool scalar = c.s_name[0][0] != '\0';
  const bool self_first = std::strcmp(c.source_name, "boundaries") == 0;  // Bucketize's order
  const char *self_name = scalar ? c.s_name[0] : c.self_name;
  auto check_self = [&] {
    if (scalar) core::check_scalar(c.s[0], c.s_name[0]);
    else core::check_tensor(c.self, c.self_name);
  };
  if (self_first) check_self();
  core::check_tensor(c.source, c.source_name);
  if (!self_first) check_self();
  core::check_tensor(c.out, c.out_name);
  const aclTensor &seq = *c.source;
  core::check_dtype_in(c.source, c.source_name, rule.dtypes);
  aclDataType vdt;
  if (scalar) {
    vdt = c.s[0]->dtype;
    if (!core::dtype_in(vdt, rule.dtypes))
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which a search does not take", self_name,
                  core::dtype_name(vdt));
  } else {
    core::check_dtype_in(c.self, c.self_name, rule.dtypes);
    vdt = c.self->dtype;
  }
  const aclDataType want = c.i[0] ? ACL_INT32 : ACL_INT64;
  if (c.out->dtype != want)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; %s = %s needs %s", c.out_name,
                core::dtype_name(c.out->dtype), c.i_name[0], c.i[0] ? "true" : "false", core::dtype_name(want));
  if (seq.ndim == 0)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; it needs at least 1 dim", c.source_name);
  if (self_first && seq.ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must be 1-D", c.source_name, seq.ndim);
  Shape vshape = scalar ? Shape{} : shape_of(*c.self);
  if (seq.ndim > 1) {
    bool same = vshape.ndim == seq.ndim;
    for (int k = 0; same && k + 1 < seq.ndim; ++k) same = vshape.dims[k] == seq.dims[k];
    if (!same)
      throw_error(ACLNN_ERR_PARAM_INVALID,
                  "%s has shape %s; a %s of more than 1 dim needs %s's leading dims (%s has shape %s)", self_name,
                  scalar ? "[]" : core::shape_string(*c.self).c_str(), c.source_name, c.source_name, c.source_name,
                  core::shape_string(seq).c_str());
  }
  if (scalar && c.out->ndim == 1 && c.out->dims[0] == 1) vshape = Shape{1, {1}};  // a one-element out is taken too
  core::check_shape_equals(*c.out, c.out_name, vshape);
  if (c.index != nullptr) {
    core::check_dtype_in(c.index, c.index_name, {ACL_INT64});
    core::check_shape_equals(*c.index, c.index_name, shape_of(seq));
  }
  SearchPlan p;
  p.right = c.i[1] != 0;
  p.compare = core::promote_types(seq.dtype, vdt);
  if (self_first) p.val_slot = b.input(c.self);
  p.seq_slot = b.input(c.source);
  if (!self_first && !scalar) p.val_slot = b.input(c.self);
  if (!self_first) p.sorter_slot = b.input(c.index);
  p.out_slot = b.output(c.out);
  if (scalar) {
    p.scalar_double = c.s[0]->to_double();
    p.scalar_int = c.s[0]->to_int64();
  }
  record_search(b, p);
}

// Narrow (i = dim, start, length): torch.narrow, start in [-n, n], length in [0, n - start].
void plan_narrow(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  if (self.ndim == 0) throw_error(ACLNN_ERR_PARAM_INVALID, "%s is 0-d; narrow needs a dim", c.self_name);
  const int d = static_cast<int>(wrap_dim(c.i[0], self.ndim, c.i_name[0]));
  const int64_t n = self.dims[d];
  int64_t start = c.i[1];
  const int64_t length = c.i[2];
  if (start < -n || start > n)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %lld; it must be in [%lld, %lld] for dim %d of size %lld",
                c.i_name[1], static_cast<long long>(start), static_cast<long long>(-n), static_cast<long long>(n), d,
                static_cast<long long>(n));
  if (start < 0) start += n;
  if (length < 0 || length > n - start)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %lld; it must be in [0, %lld] (start %lld in dim %d of size %lld)",
                c.i_name[2], static_cast<long long>(length), static_cast<long long>(n - start),
                static_cast<long long>(start), d, static_cast<long long>(n));
  copy_view_of_self(b, c, narrow_view(self, d, start, length));
}

// The diagonal `k` of a [rows, cols] view as a 1-D view (its length clamped at 0).
aclTensor diagonal_view(const aclTensor &m, int64_t k) {
  aclTensor v = m;
  const int64_t rows = m.dims[0], cols = m.dims[1];
  const int64_t len = k >= 0 ? std::min(rows, cols - std::min(k, cols)) : std::min(rows - std::min(-k, rows), cols);
  v.ndim = 1;
  v.dims[0] = std::max<int64_t>(len, 0);
  v.strides[0] = m.strides[0] + m.strides[1];
  if (v.dims[0] > 0) v.offset += k >= 0 ? k * m.strides[1] : -k * m.strides[0];
  return v;
}

// Diag (i[0] = diagonal): torch.diag.
void plan_diag(core::OpBuilder &b, const LayoutCall &c) {
  const aclTensor &self = *c.self;
  const int64_t k = c.i[0];
  if (self.ndim != 1 && self.ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; diag needs a vector (1-D) or a matrix (2-D)", c.self_name,
                self.ndim);
  if (self.ndim == 2) {
    const aclTensor v = diagonal_view(self, k);
    copy_view_of_self(b, c, v);
    return;
  }
  if (k > (int64_t{1} << 40) || k < -(int64_t{1} << 40))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is %lld; for a vector its magnitude must be at most 2^40", c.i_name[0],
                static_cast<long long>(k));
  const int64_t n = self.dims[0] + (k < 0 ? -k : k);
  const auto [in, out] = register_self_out(b, c, Shape{2, {n, n}});
  fill_view(b, out, b.tensor(out), nullptr, 0);
  copy_views(b, out, diagonal_view(b.tensor(out), k), in, b.tensor(in));
}

}  // namespace

void layout_phase1(core::OpBuilder &b, const LayoutRule &rule, const LayoutCall &c) {
  const LayoutKind k = rule.kind;
  if (k == LayoutKind::kSplit) return plan_split(b, rule, c);
  if (k == LayoutKind::kSearch) return plan_search(b, rule, c);
  // Null checks in prototype order: input, parameters, output.
  const bool no_input = k == LayoutKind::kArange || k == LayoutKind::kLinspace || k == LayoutKind::kEye;
  if (k == LayoutKind::kCat || k == LayoutKind::kStack) core::check_not_null(c.list, c.list_name);
  else if (!no_input) core::check_tensor(c.self, c.self_name);
  if (k == LayoutKind::kIndexTensors || k == LayoutKind::kIndexPut) core::check_not_null(c.list, c.list_name);
  if (c.index_name[0] != '\0') core::check_not_null(c.index, c.index_name);
  if (c.source_name[0] != '\0') core::check_not_null(c.source, c.source_name);
  for (int i = 0; i < 2; ++i)
    if (c.arr_name[i][0] != '\0') core::check_not_null(c.arr[i], c.arr_name[i]);
  for (int i = 0; i < 3; ++i)
    if (c.s_name[i][0] != '\0') core::check_scalar(c.s[i], c.s_name[i]);
  core::check_tensor(c.out, c.out_name);
  if (no_input) {
    core::check_dtype_in(c.out, c.out_name, rule.dtypes);
  } else if (k != LayoutKind::kCat && k != LayoutKind::kStack) {
    core::check_dtype_in(c.self, c.self_name, rule.dtypes);
    const bool ok = rule.out_castable ? core::can_cast(c.self->dtype, c.out->dtype) : c.out->dtype == c.self->dtype;
    if (!ok)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must %s %s's dtype %s", c.out_name,
                  core::dtype_name(c.out->dtype), rule.out_castable ? "be castable from" : "have", c.self_name,
                  core::dtype_name(c.self->dtype));
  }
  switch (k) {
    case LayoutKind::kPermute: return plan_permute(b, c);
    case LayoutKind::kCat: return plan_cat(b, rule, c);
    case LayoutKind::kSlice: return plan_slice(b, c);
    case LayoutKind::kConstantPad: return plan_constant_pad(b, c);
    case LayoutKind::kReflectionPad:
    case LayoutKind::kReplicationPad:
    case LayoutKind::kCircularPad: return plan_edge_pad(b, rule, c);
    case LayoutKind::kNarrow: return plan_narrow(b, c);
    case LayoutKind::kCircularPadGrad: return plan_circular_pad_grad(b, rule, c);
    case LayoutKind::kDiag: return plan_diag(b, c);
    case LayoutKind::kSplit:
    case LayoutKind::kSearch: return;  // planned above
    case LayoutKind::kTril: return plan_triangle(b, c, true);
    case LayoutKind::kTriu: return plan_triangle(b, c, false);
    case LayoutKind::kRoll: return plan_roll(b, c);
    case LayoutKind::kRepeat: return plan_repeat(b, c);
    case LayoutKind::kRepeatInterleave: return plan_repeat_interleave(b, c);
    case LayoutKind::kFlip: return plan_flip(b, c);
    case LayoutKind::kArange: return plan_arange(b, c);
    case LayoutKind::kLinspace: return plan_linspace(b, c);
    case LayoutKind::kEye: return plan_eye(b, c);
    case LayoutKind::kStack: return plan_stack(b, rule, c);
    case LayoutKind::kGather: return plan_gather(b, c, false);
    case LayoutKind::kIndexSelect: return plan_gather(b, c, true);
    case LayoutKind::kIndexCopy: return plan_index_copy(b, c, false);
    case LayoutKind::kIndexAdd: return plan_index_copy(b, c, true);
    case LayoutKind::kScatter: return plan_scatter(b, c);
    case LayoutKind::kScatterReduce: return plan_scatter(b, c, true);
    case LayoutKind::kScatterMax: return plan_scatter_update(b, c, IndexPlan::Combine::kMax);
    case LayoutKind::kScatterMin: return plan_scatter_update(b, c, IndexPlan::Combine::kMin);
    case LayoutKind::kScatterMul: return plan_scatter_update(b, c, IndexPlan::Combine::kMul);
    case LayoutKind::kScatterDiv: return plan_scatter_update(b, c, IndexPlan::Combine::kDiv);
    case LayoutKind::kScatterAddTf: return plan_scatter_update(b, c, IndexPlan::Combine::kAdd);
    case LayoutKind::kIndexFill: return c.index_name[0] ? plan_index_fill_tensor(b, c) : plan_index_fill(b, c);
    case LayoutKind::kGatherElements: return plan_gather_elements(b, c, false);
    case LayoutKind::kTake: return plan_gather_elements(b, c, true);
    case LayoutKind::kRepeatInterleaveTensor: return plan_repeat_interleave_tensor(b, c);
    case LayoutKind::kRepeatInterleaveGrad: return plan_repeat_interleave_grad(b, c);
    case LayoutKind::kGatherNd: return plan_gather_nd(b, c);
    case LayoutKind::kScatterNd: return plan_scatter_nd(b, c);
    case LayoutKind::kIndexTensors: return plan_index_tensors(b, c);
    case LayoutKind::kIndexPut: return plan_index_put(b, c);
    case LayoutKind::kPut: return plan_put(b, c);
  }
}

}  // namespace opsnn::ops

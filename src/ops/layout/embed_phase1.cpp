#include "ops/layout/embed_phase1.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/error.h"
#include "core/op_checks.h"
#include "kernels/elementwise/convert.h"
#include "ops/layout/view_walk.h"

namespace opsnn::ops {
namespace {

using core::Shape;

int64_t bytes(const aclTensor &t) { return static_cast<int64_t>(core::dtype_size(t.dtype)); }

// Row k of a 2-D-like view (last dim D) loaded as double / stored from double.
void load_row(const aclTensor &t, const char *base, int64_t k, double *buf) {
  const int64_t es = bytes(t);
  kernels::load_as<double>(t.dtype, base + row_offset(t, k) * es, t.strides[t.ndim - 1] * es, buf,
                           t.dims[t.ndim - 1]);
}
void store_row(const aclTensor &t, char *base, int64_t k, const double *buf) {
  const int64_t es = bytes(t);
  kernels::store_from<double>(buf, t.dtype, base + row_offset(t, k) * es, t.strides[t.ndim - 1] * es,
                              t.dims[t.ndim - 1]);
}

// Every value of an index view in [0, bound), else the launch fails (nothing read or written).
int check_values(const aclTensor &t, const char *base, const char *name, int64_t bound) {
  const int64_t n = t.numel();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = index_value(t, base, k);
    if (v < 0 || v >= bound)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %lld at position %lld is out of range [0, %lld)", name,
                    static_cast<long long>(v), static_cast<long long>(k), static_cast<long long>(bound));
  }
  return 0;
}

// EmbeddingDenseBackward: rows of grad (by position) summed into out's row indices[k], in position
// order in DOUBLE, rounded once.
class DenseBackwardStep final : public core::Step {
 public:
  aclTensor grad{}, idx{}, out{};
  int grad_slot = -1, idx_slot = -1, out_slot = -1;
  int64_t num_weights = 0, padding = -1;
  bool scale = false;
  const char *idx_name = "indices";
  core::WsKey acc_ws, count_ws, row_ws;

  int run(const core::LaunchArgs &args) const override {
    const char *ix = core::view_base(args, idx_slot, idx, core::dtype_size(idx.dtype));
    if (const int rc = check_values(idx, ix, idx_name, num_weights)) return rc;
    const int64_t d = out.dims[1], n = idx.numel();
    double *acc = reinterpret_cast<double *>(args.get(acc_ws));
    int64_t *count = reinterpret_cast<int64_t *>(args.get(count_ws));
    std::fill(acc, acc + num_weights * d, 0.0);
    std::fill(count, count + num_weights, int64_t{0});
    if (scale)
      for (int64_t k = 0; k < n; ++k) ++count[index_value(idx, ix, k)];
    const char *g = core::view_base(args, grad_slot, grad, core::dtype_size(grad.dtype));
    double *row = reinterpret_cast<double *>(args.get(row_ws));
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = index_value(idx, ix, k);
      if (v == padding) continue;
      load_row(grad, g, k, row);
      const double s = scale ? 1.0 / static_cast<double>(count[v]) : 1.0;
      double *a = acc + v * d;
      for (int64_t j = 0; j < d; ++j) a[j] += row[j] * s;
    }
    char *o = core::view_base(args, out_slot, out, core::dtype_size(out.dtype));
    for (int64_t r = 0; r < num_weights; ++r) store_row(out, o, r, acc + r * d);
    return 0;
  }
};

// The p-norm of a row (p 0: the nonzero count, inf: the largest magnitude).
double row_norm(const double *x, int64_t n, double p) {
  double s = 0;
  if (std::isinf(p)) {
    for (int64_t j = 0; j < n; ++j) s = std::isnan(x[j]) || std::fabs(x[j]) > s ? std::fabs(x[j]) : s;
    return s;
  }
  for (int64_t j = 0; j < n; ++j) {
    const double a = std::fabs(x[j]);
    s += p == 0 ? (a != 0 ? 1.0 : 0.0) : p == 1 ? a : p == 2 ? a * a : std::pow(a, p);
  }
  return p == 0 || p == 1 ? s : p == 2 ? std::sqrt(s) : std::pow(s, 1 / p);
}

// EmbeddingRenorm: each row some index names (once, however often) scaled by maxNorm / (norm + 1e-7)
// when its norm exceeds maxNorm (torch.embedding_renorm_), in DOUBLE, rounded once.
class RenormStep final : public core::Step {
 public:
  aclTensor self{}, idx{};
  int self_slot = -1, idx_slot = -1;
  double max_norm = 0, p = 2;
  const char *idx_name = "indices";
  core::WsKey seen_ws, row_ws;

  int run(const core::LaunchArgs &args) const override {
    const char *ix = core::view_base(args, idx_slot, idx, core::dtype_size(idx.dtype));
    const int64_t rows = self.dims[0], d = self.dims[1];
    if (const int rc = check_values(idx, ix, idx_name, rows)) return rc;
    unsigned char *seen = reinterpret_cast<unsigned char *>(args.get(seen_ws));
    std::memset(seen, 0, static_cast<size_t>(rows));
    const int64_t n = idx.numel();
    for (int64_t k = 0; k < n; ++k) seen[index_value(idx, ix, k)] = 1;
    double *row = reinterpret_cast<double *>(args.get(row_ws));
    char *base = core::view_base(args, self_slot, self, core::dtype_size(self.dtype));
    for (int64_t r = 0; r < rows; ++r) {
      if (!seen[r]) continue;
      load_row(self, base, r, row);
      const double norm = row_norm(row, d, p);
      if (!(norm > max_norm)) continue;
      const double scale = max_norm / (norm + 1e-7);
      for (int64_t j = 0; j < d; ++j) row[j] *= scale;
      store_row(self, base, r, row);
    }
    return 0;
  }
};

// EmbeddingBag: bag b is indices [offsets[b], offsets[b + 1]) (the last bag without
// includeLastOffset: up to the end); its rows (padding skipped) summed (times perSampleWeights),
// averaged or maxed per column in DOUBLE, in index order.
class BagStep final : public core::Step {
 public:
  aclTensor weight{}, idx{}, offs{}, psw{}, out{}, o2b{}, bag_size{}, max_idx{};
  int weight_slot = -1, idx_slot = -1, offs_slot = -1, psw_slot = -1, out_slot = -1, o2b_slot = -1,
      bag_size_slot = -1, max_idx_slot = -1;
  int64_t mode = 0, padding = -1, bags = 0;
  const char *idx_name = "indices", *offs_name = "offsets";
  core::WsKey acc_ws, arg_ws, row_ws;

  void store_int(const aclTensor &t, char *base, int64_t k, int64_t v) const {
    const int64_t es = bytes(t);
    kernels::store_from<int64_t>(&v, t.dtype, base + k * t.strides[0] * es, 0, 1);
  }

  int run(const core::LaunchArgs &args) const override {
    const char *ix = core::view_base(args, idx_slot, idx, core::dtype_size(idx.dtype));
    const char *of = core::view_base(args, offs_slot, offs, core::dtype_size(offs.dtype));
    const int64_t n = idx.numel(), noff = offs.numel(), d = weight.dims[1];
    if (const int rc = check_values(idx, ix, idx_name, weight.dims[0])) return rc;
    int64_t prev = 0;
    for (int64_t k = 0; k < noff; ++k) {
      const int64_t v = index_value(offs, of, k);
      if ((k == 0 && v != 0) || v < prev || v > n)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: value %lld at position %lld; offsets must start at 0, not decrease and not pass %s's "
                    "%lld entries",
                    offs_name, static_cast<long long>(v), static_cast<long long>(k), idx_name,
                    static_cast<long long>(n));
      prev = v;
    }
    const char *w = core::view_base(args, weight_slot, weight, core::dtype_size(weight.dtype));
    const char *ps = psw_slot >= 0 ? core::view_base(args, psw_slot, psw, core::dtype_size(psw.dtype)) : nullptr;
    char *o = core::view_base(args, out_slot, out, core::dtype_size(out.dtype));
    char *o2b_base = core::view_base(args, o2b_slot, o2b, core::dtype_size(o2b.dtype));
    char *bs = core::view_base(args, bag_size_slot, bag_size, core::dtype_size(bag_size.dtype));
    char *mi = core::view_base(args, max_idx_slot, max_idx, core::dtype_size(max_idx.dtype));
    double *acc = reinterpret_cast<double *>(args.get(acc_ws));
    double *row = reinterpret_cast<double *>(args.get(row_ws));
    int64_t *arg = reinterpret_cast<int64_t *>(args.get(arg_ws));
    const bool max = mode != 0 && mode != 1;
    for (int64_t i = 0; i < n; ++i) store_int(o2b, o2b_base, i, bags);  // past the last bag's end: no bag
    for (int64_t b = 0; b < bags; ++b) {
      const int64_t start = index_value(offs, of, b), end = b + 1 < noff ? index_value(offs, of, b + 1) : n;
      std::fill(acc, acc + d, 0.0);
      std::fill(arg, arg + d, int64_t{0});  // an empty bag's (PyTorch's)
      int64_t count = 0;
      for (int64_t i = start; i < end; ++i) {
        store_int(o2b, o2b_base, i, b);
        const int64_t v = index_value(idx, ix, i);
        if (v == padding) continue;
        load_row(weight, w, v, row);
        if (max) {
          for (int64_t j = 0; j < d; ++j)
            if (count == 0 || std::isnan(row[j]) || row[j] > acc[j]) {  // the first maximum; a NaN wins
              acc[j] = row[j];
              arg[j] = v;
            }
        } else {
          double s = 1;
          if (ps != nullptr) s = kernels::load_one(psw.dtype, ps, i * psw.strides[0]);
          for (int64_t j = 0; j < d; ++j) acc[j] += row[j] * s;
        }
        ++count;
      }
      if (mode == 1 && count > 0)
        for (int64_t j = 0; j < d; ++j) acc[j] /= static_cast<double>(count);
      store_row(out, o, b, acc);
      store_int(bag_size, bs, b, count);
      if (max) {
        const int64_t es = bytes(max_idx);
        kernels::store_from<int64_t>(arg, max_idx.dtype, mi + b * max_idx.strides[0] * es, max_idx.strides[1] * es,
                                     d);
      } else {
        store_int(max_idx, mi, b, 0);
      }
    }
    return 0;
  }
};

void check_index_tensor(const aclTensor *t, const char *name) {
  core::check_dtype_in(t, name, {ACL_INT32, ACL_INT64});
}

void plan_dense_backward(core::OpBuilder &b, const EmbedRule &rule, const EmbedCall &c) {
  const aclTensor &grad = *c.weight, &idx = *c.indices;
  core::check_dtype_in(c.weight, c.weight_name, rule.dtypes);
  check_index_tensor(c.indices, c.indices_name);
  bool fits = grad.ndim == idx.ndim + 1;
  for (int k = 0; fits && k < idx.ndim; ++k) fits = grad.dims[k] == idx.dims[k];
  if (!fits)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be %s's shape %s plus the embedding dim",
                c.weight_name, core::shape_string(grad).c_str(), c.indices_name, core::shape_string(idx).c_str());
  if (c.num_weights < 0 || c.num_weights > (int64_t{1} << 40))
    throw_error(ACLNN_ERR_PARAM_INVALID, "numWeights = %llu is too large", static_cast<unsigned long long>(c.num_weights));
  if (c.out->dtype != grad.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                core::dtype_name(c.out->dtype), c.weight_name, core::dtype_name(grad.dtype));
  const int64_t d = grad.dims[grad.ndim - 1];
  core::check_shape_equals(*c.out, c.out_name, Shape{2, {c.num_weights, d}});
  auto &s = b.add_step<DenseBackwardStep>();
  s.grad_slot = b.input(c.weight);
  s.idx_slot = b.input(c.indices);
  s.out_slot = b.output(c.out);
  s.grad = b.tensor(s.grad_slot);
  s.idx = b.tensor(s.idx_slot);
  s.out = b.tensor(s.out_slot);
  s.num_weights = c.num_weights;
  s.padding = c.padding_idx;
  s.scale = c.scale_grad;
  s.idx_name = c.indices_name;
  s.acc_ws = b.book("embedding_backward.acc", static_cast<uint64_t>(std::max<int64_t>(c.num_weights * d, 1)) * 8);
  s.count_ws = b.book("embedding_backward.count", static_cast<uint64_t>(std::max<int64_t>(c.num_weights, 1)) * 8);
  s.row_ws = b.book("embedding_backward.row", static_cast<uint64_t>(std::max<int64_t>(d, 1)) * 8);
}

void plan_renorm(core::OpBuilder &b, const EmbedRule &rule, const EmbedCall &c) {
  core::check_dtype_in(c.weight, c.weight_name, rule.dtypes);
  check_index_tensor(c.indices, c.indices_name);
  if (c.weight->ndim != 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have 2", c.weight_name, c.weight->ndim);
  if (!(c.max_norm >= 0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "maxNorm must be non-negative, got %g", c.max_norm);
  if (!(c.norm_type >= 0))
    throw_error(ACLNN_ERR_PARAM_INVALID, "normType must be non-negative, got %g", c.norm_type);
  auto &s = b.add_step<RenormStep>();
  s.self_slot = b.inout(c.weight);
  s.idx_slot = b.input(c.indices);
  s.self = b.tensor(s.self_slot);
  s.idx = b.tensor(s.idx_slot);
  s.max_norm = c.max_norm;
  s.p = c.norm_type;
  s.idx_name = c.indices_name;
  s.seen_ws = b.book("embedding_renorm.rows", static_cast<uint64_t>(std::max<int64_t>(c.weight->dims[0], 1)));
  s.row_ws = b.book("embedding_renorm.row", static_cast<uint64_t>(std::max<int64_t>(c.weight->dims[1], 1)) * 8);
}

void plan_bag(core::OpBuilder &b, const EmbedRule &rule, const EmbedCall &c) {
  const aclTensor &w = *c.weight;
  core::check_dtype_in(c.weight, c.weight_name, rule.dtypes);
  if (w.ndim != 2) throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have 2", c.weight_name, w.ndim);
  check_index_tensor(c.indices, c.indices_name);
  check_index_tensor(c.offsets, c.offsets_name);
  if (c.indices->ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must be 1-D", c.indices_name, c.indices->ndim);
  if (c.offsets->ndim != 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must be 1-D", c.offsets_name, c.offsets->ndim);
  const int64_t n = c.indices->numel(), noff = c.offsets->numel();
  if (c.include_last && noff < 1)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s is empty; with includeLastOffset it needs at least the end offset",
                c.offsets_name);
  const int64_t bags = c.include_last ? noff - 1 : noff, d = w.dims[1];
  const bool max = c.mode != 0 && c.mode != 1;
  if (c.per_sample_weights != nullptr) {
    const aclTensor &p = *c.per_sample_weights;
    core::check_tensor(c.per_sample_weights, c.per_sample_weights_name);
    if (c.mode != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s is given with mode %lld; it is only taken with mode 0 (sum)",
                  c.per_sample_weights_name, static_cast<long long>(c.mode));
    if (p.dtype != w.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.per_sample_weights_name,
                  core::dtype_name(p.dtype), c.weight_name, core::dtype_name(w.dtype));
    if (p.ndim != 1 || p.numel() != n)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has shape %s; it must be 1-D with one weight per %s entry (%lld)",
                  c.per_sample_weights_name, core::shape_string(p).c_str(), c.indices_name, static_cast<long long>(n));
  }
  if (c.out->dtype != w.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                core::dtype_name(c.out->dtype), c.weight_name, core::dtype_name(w.dtype));
  core::check_shape_equals(*c.out, c.out_name, Shape{2, {bags, d}});
  const aclDataType it =
      c.indices->dtype == ACL_INT64 || c.offsets->dtype == ACL_INT64 ? ACL_INT64 : ACL_INT32;
  const std::pair<const aclTensor *, const char *> ints[] = {
      {c.offset2bag, c.offset2bag_name}, {c.bag_size, c.bag_size_name}, {c.max_indices, c.max_indices_name}};
  for (const auto &[t, name] : ints)
    if (t->dtype != it)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must be %s (the wider of %s's and %s's)", name,
                  core::dtype_name(t->dtype), core::dtype_name(it), c.indices_name, c.offsets_name);
  core::check_shape_equals(*c.offset2bag, c.offset2bag_name, Shape{1, {n}});
  core::check_shape_equals(*c.bag_size, c.bag_size_name, Shape{1, {bags}});
  core::check_shape_equals(*c.max_indices, c.max_indices_name, max ? Shape{2, {bags, d}} : Shape{1, {bags}});
  auto &s = b.add_step<BagStep>();
  s.weight_slot = b.input(c.weight);
  s.idx_slot = b.input(c.indices);
  s.offs_slot = b.input(c.offsets);
  s.psw_slot = b.input(c.per_sample_weights);
  s.out_slot = b.output(c.out);
  s.o2b_slot = b.output(c.offset2bag);
  s.bag_size_slot = b.output(c.bag_size);
  s.max_idx_slot = b.output(c.max_indices);
  s.weight = b.tensor(s.weight_slot);
  s.idx = b.tensor(s.idx_slot);
  s.offs = b.tensor(s.offs_slot);
  if (s.psw_slot >= 0) s.psw = b.tensor(s.psw_slot);
  s.out = b.tensor(s.out_slot);
  s.o2b = b.tensor(s.o2b_slot);
  s.bag_size = b.tensor(s.bag_size_slot);
  s.max_idx = b.tensor(s.max_idx_slot);
  s.mode = c.mode;
  s.padding = c.padding_idx;
  s.bags = bags;
  s.idx_name = c.indices_name;
  s.offs_name = c.offsets_name;
  const uint64_t dd = static_cast<uint64_t>(std::max<int64_t>(d, 1));
  s.acc_ws = b.book("embedding_bag.acc", dd * 8);
  s.arg_ws = b.book("embedding_bag.argmax", dd * 8);
  s.row_ws = b.book("embedding_bag.row", dd * 8);
}

// ApplyTopKTopP, per row (the vendor's formula): the row sorted ascending (stable; NaN last);
// values below the k-th largest -> -inf; softmax of the rest (DOUBLE), cumulated from the
// smallest: positions whose cumulated mass is <= 1 - p -> -inf, the largest always kept; written
// back in the row's order.
class TopKTopPStep final : public core::Step {
 public:
  aclTensor logits{}, pv{}, kv{}, out{};
  int logits_slot = -1, p_slot = -1, k_slot = -1, out_slot = -1;
  const char *k_name = "k";
  core::WsKey vals_ws, order_ws, prob_ws, sorted_ws;

  int run(const core::LaunchArgs &args) const override {
    const int64_t rows = logits.dims[0], v = logits.dims[1];
    const char *kb = k_slot >= 0 ? core::view_base(args, k_slot, kv, core::dtype_size(kv.dtype)) : nullptr;
    if (kb != nullptr)
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t k = index_value(kv, kb, r);
        if (k < 1 || k > v)
          return fail(ACLNN_ERR_PARAM_INVALID, "%s: value %lld at position %lld is out of range [1, %lld]", k_name,
                      static_cast<long long>(k), static_cast<long long>(r), static_cast<long long>(v));
      }
    if (rows == 0 || v == 0) return 0;
    const char *lb = core::view_base(args, logits_slot, logits, core::dtype_size(logits.dtype));
    const char *pb = p_slot >= 0 ? core::view_base(args, p_slot, pv, core::dtype_size(pv.dtype)) : nullptr;
    char *ob = core::view_base(args, out_slot, out, core::dtype_size(out.dtype));
    double *x = reinterpret_cast<double *>(args.get(vals_ws));
    double *prob = reinterpret_cast<double *>(args.get(prob_ws));
    int64_t *order = reinterpret_cast<int64_t *>(args.get(order_ws));
    double *sorted = reinterpret_cast<double *>(args.get(sorted_ws));
    for (int64_t r = 0; r < rows; ++r) {
      load_row(logits, lb, r, x);
      for (int64_t i = 0; i < v; ++i) order[i] = i;
      std::stable_sort(order, order + v, [&](int64_t a, int64_t b) {
        return !std::isnan(x[a]) && (std::isnan(x[b]) || x[a] < x[b]);
      });
      for (int64_t i = 0; i < v; ++i) sorted[i] = x[order[i]];
      if (kb != nullptr) {
        const double thr = sorted[static_cast<size_t>(v - index_value(kv, kb, r))];
        for (int64_t i = 0; i < v; ++i)
          if (sorted[i] < thr) sorted[i] = -INFINITY;
      }
      if (pb != nullptr) {
        const double p = kernels::load_one(pv.dtype, pb, r * pv.strides[0]);
        const double m = sorted[static_cast<size_t>(v - 1)];
        double sum = 0;
        for (int64_t i = 0; i < v; ++i) sum += prob[i] = std::exp(sorted[i] - m);
        double cum = 0;
        for (int64_t i = 0; i + 1 < v; ++i) {
          cum += prob[i] / sum;
          if (cum <= 1 - p) sorted[i] = -INFINITY;
        }
      }
      for (int64_t i = 0; i < v; ++i) x[order[i]] = sorted[i];
      store_row(out, ob, r, x);
    }
    return 0;
  }
};

void plan_top_k_top_p(core::OpBuilder &b, const EmbedRule &rule, const EmbedCall &c) {
  const aclTensor &l = *c.weight;
  core::check_dtype_in(c.weight, c.weight_name, rule.dtypes);
  if (l.ndim != 2) throw_error(ACLNN_ERR_PARAM_INVALID, "%s has %d dims; it must have 2", c.weight_name, l.ndim);
  if (c.p == nullptr && c.k == nullptr)
    throw_error(ACLNN_ERR_PARAM_NULLPTR, "%s and %s are both null; at least one is needed", c.p_name, c.k_name);
  if (c.p != nullptr) {
    core::check_tensor(c.p, c.p_name);
    if (c.p->dtype != l.dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.p_name,
                  core::dtype_name(c.p->dtype), c.weight_name, core::dtype_name(l.dtype));
    core::check_shape_equals(*c.p, c.p_name, Shape{1, {l.dims[0]}});
  }
  if (c.k != nullptr) {
    core::check_dtype_in(c.k, c.k_name, {ACL_INT32});
    core::check_shape_equals(*c.k, c.k_name, Shape{1, {l.dims[0]}});
  }
  if (c.out->dtype != l.dtype)
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s; it must have %s's dtype %s", c.out_name,
                core::dtype_name(c.out->dtype), c.weight_name, core::dtype_name(l.dtype));
  core::check_shape_equals(*c.out, c.out_name, Shape::of(l));
  auto &s = b.add_step<TopKTopPStep>();
  s.logits_slot = b.input(c.weight);
  s.p_slot = b.input(c.p);
  s.k_slot = b.input(c.k);
  s.out_slot = b.output(c.out);
  s.logits = b.tensor(s.logits_slot);
  if (s.p_slot >= 0) s.pv = b.tensor(s.p_slot);
  if (s.k_slot >= 0) s.kv = b.tensor(s.k_slot);
  s.out = b.tensor(s.out_slot);
  s.k_name = c.k_name;
  const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(l.dims[1], 1));
  s.vals_ws = b.book("top_k_top_p.row", n * 8);
  s.order_ws = b.book("top_k_top_p.order", n * 8);
  s.prob_ws = b.book("top_k_top_p.prob", n * 8);
  s.sorted_ws = b.book("top_k_top_p.sorted", n * 8);
}

}  // namespace

void embed_phase1(core::OpBuilder &b, const EmbedRule &rule, const EmbedCall &c) {
  // Null checks in prototype order.
  core::check_tensor(c.weight, c.weight_name);
  if (rule.kind == EmbedKind::kTopKTopP) {
    core::check_tensor(c.out, c.out_name);
    return plan_top_k_top_p(b, rule, c);
  }
  core::check_not_null(c.indices, c.indices_name);
  if (rule.kind == EmbedKind::kBag) {
    core::check_not_null(c.offsets, c.offsets_name);
    core::check_tensor(c.out, c.out_name);
    core::check_not_null(c.offset2bag, c.offset2bag_name);
    core::check_not_null(c.bag_size, c.bag_size_name);
    core::check_not_null(c.max_indices, c.max_indices_name);
    return plan_bag(b, rule, c);
  }
  if (rule.kind == EmbedKind::kRenorm) return plan_renorm(b, rule, c);
  core::check_tensor(c.out, c.out_name);
  plan_dense_backward(b, rule, c);
}

}  // namespace opsnn::ops

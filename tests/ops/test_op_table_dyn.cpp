// The test harness of the data-dependent-size ops (src/ops/layout/dynamic.ops), registered from the
// table by tools/gen_ops.py (dyn_table_cases.inc in the build tree). Every op runs:
//   - every accepted dtype on random shapes (0-d and empty ones included) with many repeated
//     values and zeros, all-zero and all-nonzero tensors, random attributes (sorted, returnInverse,
//     returnCounts, dim), contiguous and strided (reversed dim order + offset) inputs, contiguous
//     outputs larger than needed and padded (non-contiguous) outputs; the result is read through
//     the shape / strides / offset aclGetViewShape / aclGetViewStrides / aclGetViewOffset report
//     after the synchronisation, and compared exactly with the float64 references
//     (tests/common/float64_refs.h nonzero_ref / unique_ref, computed by search rather than sort);
//     outputs that are not requested are untouched (countsOut's shape becomes [0]);
//   - NaN, infinities and signed zeros;
//   - a repeatable executor launched again on other data: the shape is the new real one, also
//     when it is larger than the previous launch's (no cumulative shrinking), and a descriptor
//     destroyed before a launch is not written;
//   - InplaceMaskedScatter against a walk of the broadcast mask, and a source shorter than the
//     mask's true count failing the launch with 161002 (nothing written);
//   - phase-1 errors with their code and the argument named (null tensors, dtypes, shapes, an
//     output too small for the largest result, dims out of range).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "dyn_table_case.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

#include "dyn_table_cases.inc"

// InplaceQuantScatter / V2 have their own harness (test_op_table_quant_scatter.cpp).
const std::vector<DynTableCase> &all_cases() {
  static const std::vector<DynTableCase> c = [] {
    std::vector<DynTableCase> v;
    for (DynTableCase &k : harness::sampled(dyn_table_cases()))
      if (k.kind != "quant_scatter") v.push_back(std::move(k));
    return v;
  }();
  return c;
}

int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }

std::vector<int64_t> contiguous(const std::vector<int64_t> &shape) { return contiguous_strides(shape); }

// A view of `shape` stored in reversed dim order after an offset of 3 elements (an input).
std::unique_ptr<DeviceTensor> strided(const std::vector<int64_t> &shape, aclDataType dt) {
  std::vector<int64_t> st(shape.size());
  int64_t acc = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    st[d] = acc;
    acc *= std::max<int64_t>(shape[d], 1);
  }
  return std::make_unique<DeviceTensor>(shape, dt, st, 3, 3 + acc + 2);
}
// A view of `shape` with its rows padded by 2 elements after an offset of 5 (an output).
std::unique_ptr<DeviceTensor> padded(const std::vector<int64_t> &shape, aclDataType dt) {
  std::vector<int64_t> st(shape.size());
  int64_t acc = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    st[d] = acc;
    acc *= std::max<int64_t>(shape[d], 1) + (d + 1 == shape.size() ? 2 : 0);
  }
  return std::make_unique<DeviceTensor>(shape, dt, st, 5, 5 + acc + 1);
}
std::unique_ptr<DeviceTensor> make_in(const std::vector<int64_t> &shape, aclDataType dt, bool strided_view) {
  return strided_view ? strided(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
}
std::unique_ptr<DeviceTensor> make_out(const std::vector<int64_t> &shape, aclDataType dt, bool padded_view) {
  auto t = padded_view && !shape.empty() ? padded(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
  t->poison();
  return t;
}

// What a descriptor describes now (after a launch rewrote it): shape, strides, offset, and the
// values read through them from the tensor's storage, row-major.
struct Seen {
  std::vector<int64_t> shape, strides;
  std::vector<double> values;
};
Seen seen(const DeviceTensor &t) {
  Seen s;
  int64_t *dims = nullptr, *st = nullptr;
  uint64_t nd = 0, ns = 0;
  int64_t offset = 0;
  EXPECT_EQ(aclGetViewShape(t.get(), &dims, &nd), 0);
  EXPECT_EQ(aclGetViewStrides(t.get(), &st, &ns), 0);
  EXPECT_EQ(aclGetViewOffset(t.get(), &offset), 0);
  s.shape.assign(dims, dims + nd);
  s.strides.assign(st, st + ns);
  delete[] dims;
  delete[] st;
  const int64_t n = numel_of(s.shape);
  const auto *p = static_cast<const unsigned char *>(t.data());
  for (int64_t lin = 0; lin < n; ++lin) {
    int64_t off = offset, r = lin;
    for (size_t d = s.shape.size(); d-- > 0;) {
      off += (r % s.shape[d]) * s.strides[d];
      r /= s.shape[d];
    }
    s.values.push_back(read_elem(t.dtype(), p + off * static_cast<int64_t>(elem_size(t.dtype()))));
  }
  return s;
}

::testing::AssertionResult same_values(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
  for (size_t i = 0; i < a.size(); ++i) {
    const bool ok = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i];
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": " << a[i] << " vs expected " << b[i];
  }
  return ::testing::AssertionSuccess();
}

bool is_dim_kind(const DynTableCase &c, int64_t dim) {
  return c.kind == "unique_dim" || (c.kind == "unique_consecutive" && dim != kNoDim);
}

// Random values with many repeats and zeros; `specials`: NaN, +-inf, -0.0 among them.
std::vector<double> random_values(aclDataType dt, int64_t n, int pool, bool specials) {
  std::vector<double> v(static_cast<size_t>(n));
  const bool fl = dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
  for (auto &x : v) {
    const bool nonneg = dt == ACL_UINT8 || dt == ACL_BOOL || dt == ACL_UINT16 || dt == ACL_UINT32 || dt == ACL_UINT64;
    x = static_cast<double>(uniform(nonneg ? 0 : -pool, pool));
    if (dt == ACL_BOOL) x = x != 0;
    if (fl && uniform(0, 3) == 0) x += 0.5;
  }
  if (specials && fl && n > 0) {
    const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, NAN};
    for (double s : sp) v[static_cast<size_t>(uniform(0, n - 1))] = s;
  }
  return v;
}

struct Problem {
  DynArgs a;
  std::unique_ptr<DeviceTensor> self, out, inverse, counts, mask, source, index;
  // InplaceScatterUpdate: updates batch i goes to data batch targets[i] at offsets[i] along dim;
  // index_form 0: 0-d indices, 1: [n] (targets[i] = i), 2: [n, 2] rows (target, offset).
  std::vector<int64_t> targets, offsets;
  int index_form = 1;
  // ScatterList: element i of the list (vars, stored values var_x) takes lengths[i] positions of
  // updates[i] from offsets[i] along dim (of the elements) when mask_values[i] (no mask: all 1).
  std::vector<std::unique_ptr<DeviceTensor>> vars;
  std::vector<std::vector<double>> var_x;
  std::vector<int64_t> lengths;
  std::vector<double> mask_values;
  std::shared_ptr<aclTensorList> list;
  std::vector<int64_t> bshape;  // MaskedSelect: the broadcast shape of self and mask
  std::vector<int64_t> shape;
  std::vector<double> x;  // self as stored, row-major
  int dim = -1;            // wrapped dim of the dim kinds
  bool out_padded = false;
};

// InplaceScatterUpdate's indices tensor from the problem's targets and offsets.
void set_scatter_indices(Problem &p) {
  std::vector<double> v;
  for (size_t i = 0; i < p.offsets.size(); ++i) {
    if (p.index_form == 2) v.push_back(static_cast<double>(p.targets[i]));
    v.push_back(static_cast<double>(p.offsets[i]));
  }
  p.index->set_values(v);
}

// ScatterList's indice: [B] starts, or [B, 2] rows (start, length).
void set_list_indices(Problem &p) {
  std::vector<double> v;
  for (size_t i = 0; i < p.offsets.size(); ++i) {
    v.push_back(static_cast<double>(p.offsets[i]));
    if (p.index_form == 2) v.push_back(static_cast<double>(p.lengths[i]));
  }
  p.index->set_values(v);
}

// A tensor list holding copies of the descriptors (the list owns its elements).
std::shared_ptr<aclTensorList> list_of(const std::vector<aclTensor *> &ts) {
  std::vector<aclTensor *> copies;
  for (aclTensor *t : ts)
    copies.push_back(aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset,
                                     t->format, t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data));
  return std::shared_ptr<aclTensorList>(aclCreateTensorList(copies.data(), copies.size()),
                                        [](aclTensorList *l) { aclDestroyTensorList(l); });
}

char g_update[] = "update";

// The row-major index into a tensor of shape `t` (right-aligned, size-1 dims broadcast) of element
// `lin` of the broadcast shape `b`.
int64_t broadcast_source(const std::vector<int64_t> &b, const std::vector<int64_t> &t, int64_t lin) {
  int64_t idx = 0, acc = 1;
  const int lead = static_cast<int>(b.size() - t.size());
  for (int d = static_cast<int>(b.size()) - 1; d >= 0; --d) {
    const int64_t c = lin % b[static_cast<size_t>(d)];
    lin /= b[static_cast<size_t>(d)];
    if (d < lead) continue;
    const int64_t td = t[static_cast<size_t>(d - lead)];
    idx += (td == 1 ? 0 : c) * acc;
    acc *= td;
  }
  return idx;
}

// A shape that broadcasts to b: a suffix of b with some dims 1.
std::vector<int64_t> broadcastable_to(const std::vector<int64_t> &b) {
  std::vector<int64_t> t;
  for (size_t d = static_cast<size_t>(uniform(0, static_cast<int64_t>(b.size()))); d < b.size(); ++d)
    t.push_back(uniform(0, 2) == 0 ? 1 : b[d]);
  return t;
}

std::vector<int64_t> random_shape(bool need_dim, bool empty) {
  std::vector<int64_t> s;
  for (int64_t k = uniform(need_dim ? 1 : 0, 4); k > 0; --k) s.push_back(uniform(1, 4));
  if (empty) {
    if (s.empty()) s.push_back(0);
    s[static_cast<size_t>(uniform(0, static_cast<int64_t>(s.size()) - 1))] = 0;
  }
  return s;
}

// mode: 0 random values, 1 all zero, 2 all nonzero.
Problem make_problem(const DynTableCase &c, aclDataType dt, bool strided_view, bool padded_out, bool specials,
                     bool empty = false, int mode = 0) {
  Problem p;
  p.out_padded = padded_out;
  if (c.kind == "scatter_update") {
    // data [B, ...] (2-4 dims), n <= B batches of updates shorter along a random axis != 0; indices
    // 0-d (n = 1), [n] (batch i, offset per batch) or [n, 2] (rows of random batch, offset).
    for (int64_t k = uniform(2, 4); k > 0; --k) p.shape.push_back(uniform(1, 4));
    const int nd = static_cast<int>(p.shape.size());
    p.dim = static_cast<int>(uniform(1, nd - 1));
    p.a.dim = uniform(0, 1) ? p.dim : p.dim - nd;
    p.index_form = static_cast<int>(uniform(0, 2));
    const int64_t n = p.index_form == 0 ? 1 : uniform(1, p.shape[0]);
    const int64_t room = p.shape[static_cast<size_t>(p.dim)];
    std::vector<int64_t> us = p.shape;
    us[0] = n;
    us[static_cast<size_t>(p.dim)] = uniform(1, room);
    for (int64_t i = 0; i < n; ++i) {
      p.targets.push_back(p.index_form == 2 ? uniform(0, p.shape[0] - 1) : i);
      p.offsets.push_back(uniform(0, room - us[static_cast<size_t>(p.dim)]));
    }
    p.self = make_in(p.shape, dt, strided_view);
    p.self->set_values(random_values(dt, numel_of(p.shape), 9, specials));
    p.x = p.self->values();
    p.source = make_in(us, dt, strided_view);
    p.source->set_values(random_values(dt, numel_of(us), 9, specials));
    const std::vector<int64_t> is = p.index_form == 0 ? std::vector<int64_t>{}
                                    : p.index_form == 1 ? std::vector<int64_t>{n} : std::vector<int64_t>{n, 2};
    p.index = make_in(is, uniform(0, 1) ? ACL_INT32 : ACL_INT64, strided_view);
    set_scatter_indices(p);
    p.a.self = p.self->get();
    p.a.source = p.source->get();
    p.a.index = p.index->get();
    return p;
  }
  if (c.kind == "scatter_list") {
    // B elements of one shape (1-3 dims); updates [B, shape] shorter along a random axis; indice [B]
    // or [B, 2]; a random mask (mode 1: all 0, mode 2: all 1) or none; reduce null or "update".
    const int64_t nb = uniform(1, 3);
    for (int64_t k = uniform(1, 3); k > 0; --k) p.shape.push_back(uniform(1, 4));
    const int nd = static_cast<int>(p.shape.size());
    p.dim = static_cast<int>(uniform(0, nd - 1));
    p.a.dim = uniform(0, 1) ? p.dim + 1 : p.dim - nd;  // counted in updates' nd + 1 dims
    p.index_form = static_cast<int>(uniform(1, 2));
    const int64_t size = p.shape[static_cast<size_t>(p.dim)];
    std::vector<int64_t> us = p.shape;
    us.insert(us.begin(), nb);
    const int64_t most = uniform(1, size);
    us[static_cast<size_t>(p.dim) + 1] = most;
    std::vector<aclTensor *> ts;
    for (int64_t i = 0; i < nb; ++i) {
      p.lengths.push_back(p.index_form == 2 ? uniform(0, most) : most);
      p.offsets.push_back(uniform(0, size - p.lengths.back()));
      p.vars.push_back(make_in(p.shape, dt, strided_view));
      p.vars.back()->set_values(random_values(dt, numel_of(p.shape), 9, specials));
      p.var_x.push_back(p.vars.back()->values());
      p.x.insert(p.x.end(), p.var_x.back().begin(), p.var_x.back().end());
      ts.push_back(p.vars.back()->get());
    }
    p.list = list_of(ts);
    p.source = make_in(us, dt, strided_view);
    p.source->set_values(random_values(dt, numel_of(us), 9, specials));
    p.index = make_in(p.index_form == 1 ? std::vector<int64_t>{nb} : std::vector<int64_t>{nb, 2},
                      uniform(0, 1) ? ACL_INT32 : ACL_INT64, strided_view);
    set_list_indices(p);
    if (mode != 0 || uniform(0, 1)) {
      p.mask = make_in({nb}, ACL_UINT8, strided_view);
      for (int64_t i = 0; i < nb; ++i) p.mask_values.push_back(mode ? mode - 1 : static_cast<double>(uniform(0, 1)));
      p.mask->set_values(p.mask_values);
      p.a.mask = p.mask->get();
    } else {
      p.mask_values.assign(static_cast<size_t>(nb), 1.0);
    }
    p.a.list = p.list.get();
    p.a.index = p.index->get();
    p.a.source = p.source->get();
    p.a.reduce = uniform(0, 1) ? g_update : nullptr;
    return p;
  }
  if (c.kind == "masked_select") {
    // self and mask both broadcast to a random shape (either may be the smaller one); mode 1: no
    // true position, 2: every position true.
    p.bshape = random_shape(false, empty);
    p.shape = broadcastable_to(p.bshape);
    std::vector<int64_t> ms = broadcastable_to(p.bshape);
    if (uniform(0, 1)) p.shape = p.bshape;
    else if (uniform(0, 1)) ms = p.bshape;
    // The broadcast of the two (smaller than bshape when both left a dim out or at 1).
    std::vector<int64_t> b(std::max(p.shape.size(), ms.size()));
    for (size_t i = 0; i < b.size(); ++i) {
      const size_t r = b.size() - 1 - i;
      const int64_t x = i < p.shape.size() ? p.shape[p.shape.size() - 1 - i] : 1;
      const int64_t y = i < ms.size() ? ms[ms.size() - 1 - i] : 1;
      b[r] = x == 1 ? y : x;
    }
    p.bshape = b;
    p.self = make_in(p.shape, dt, strided_view);
    p.self->set_values(random_values(dt, numel_of(p.shape), 9, specials));
    p.x = p.self->values();
    const aclDataType mdt = uniform(0, 1) ? ACL_BOOL : ACL_UINT8;
    p.mask = make_in(ms, mdt, strided_view);
    std::vector<double> mv(static_cast<size_t>(numel_of(ms)));
    for (auto &e : mv) e = mode ? mode - 1 : static_cast<double>(uniform(0, 1));
    p.mask->set_values(mv);
    p.out = make_out({numel_of(b) + uniform(0, 2)}, dt, padded_out);
    p.a.self = p.self->get();
    p.a.mask = p.mask->get();
    p.a.out = p.out->get();
    return p;
  }
  if (c.has("sorted")) p.a.sorted = uniform(0, 1) == 1;
  if (c.has("return_inverse")) p.a.return_inverse = uniform(0, 3) != 0;
  if (c.has("return_counts")) p.a.return_counts = uniform(0, 3) != 0;
  const bool dim_kind = c.kind == "unique_dim" || (c.kind == "unique_consecutive" && uniform(0, 1) == 1);
  p.shape = random_shape(dim_kind, empty);
  const int nd = static_cast<int>(p.shape.size());
  if (dim_kind) {
    p.dim = static_cast<int>(uniform(0, nd - 1));
    p.a.dim = uniform(0, 1) ? p.dim : p.dim - nd;  // negative dims too
  } else if (c.has("dim")) {
    p.a.dim = kNoDim;
  }
  const int64_t n = numel_of(p.shape);
  // Few distinct values for the slice kinds (whole slices then repeat).
  std::vector<double> v = random_values(dt, n, dim_kind ? 1 : 2, specials);
  if (mode == 1) std::fill(v.begin(), v.end(), 0.0);
  if (mode == 2)
    for (auto &e : v)
      if (e == 0) e = 1;
  p.self = make_in(p.shape, dt, strided_view);
  p.self->set_values(v);
  p.x = p.self->values();
  p.a.self = p.self->get();
  const int64_t extra = uniform(0, 2);
  if (c.kind == "nonzero" || c.kind == "nonzero_t") {
    std::vector<int64_t> os = c.kind == "nonzero" ? std::vector<int64_t>{n + extra, nd}
                                                 : std::vector<int64_t>{nd, n + extra};
    p.out = make_out(os, ACL_INT64, padded_out);
    p.a.out = p.out->get();
    return p;
  }
  if (c.kind == "masked_scatter") {
    // mask: self's shape with some dims 1 or left out (broadcast).
    std::vector<int64_t> ms;
    const int lead = static_cast<int>(uniform(0, nd));
    for (int d = lead; d < nd; ++d) ms.push_back(uniform(0, 2) == 0 ? 1 : p.shape[static_cast<size_t>(d)]);
    p.mask = make_in(ms, ACL_BOOL, strided_view);
    std::vector<double> mv(static_cast<size_t>(numel_of(ms)));
    for (auto &e : mv) e = static_cast<double>(uniform(0, 1));
    if (mode == 1) std::fill(mv.begin(), mv.end(), 0.0);
    if (mode == 2) std::fill(mv.begin(), mv.end(), 1.0);
    p.mask->set_values(mv);
    // true positions of the broadcast mask
    int64_t count = 0;
    for (int64_t lin = 0; lin < n; ++lin) {
      int64_t r = lin, mlin = 0, macc = 1;
      for (int d = nd - 1; d >= 0; --d) {
        const int64_t cd = r % p.shape[static_cast<size_t>(d)];
        r /= p.shape[static_cast<size_t>(d)];
        const int md = d - lead;
        if (md >= 0) {
          mlin += (ms[static_cast<size_t>(md)] == 1 ? 0 : cd) * macc;
          macc *= ms[static_cast<size_t>(md)];
        }
      }
      count += mv[static_cast<size_t>(mlin)] != 0;
    }
    const int64_t sn = count + extra;
    std::vector<int64_t> ss = uniform(0, 1) && sn % 2 == 0 && sn > 0 ? std::vector<int64_t>{2, sn / 2}
                                                                      : std::vector<int64_t>{sn};
    p.source = make_in(ss, dt, strided_view);
    p.source->set_values(random_values(dt, sn, 9, false));
    p.a.mask = p.mask->get();
    p.a.source = p.source->get();
    return p;
  }
  // The unique kinds.
  const int64_t slices = p.dim < 0 ? n : p.shape[static_cast<size_t>(p.dim)];
  std::vector<int64_t> vs = p.dim < 0 ? std::vector<int64_t>{n + extra} : p.shape;
  if (p.dim >= 0) vs[static_cast<size_t>(p.dim)] += extra;
  p.out = make_out(vs, dt, padded_out);
  p.inverse = make_out(p.dim < 0 ? p.shape : std::vector<int64_t>{slices}, ACL_INT64, padded_out);
  p.a.out = p.out->get();
  p.a.inverse = p.inverse->get();
  if (c.names.count("counts")) {
    p.counts = make_out({slices + uniform(0, 2)}, ACL_INT64, padded_out);
    p.a.counts = p.counts->get();
  }
  return p;
}

// self's values as slices along the dim (dim first; flattened: unchanged).
std::vector<double> as_slices(const Problem &p, int64_t *slices, int64_t *len) {
  const int64_t n = static_cast<int64_t>(p.x.size());
  if (p.dim < 0) {
    *slices = n;
    *len = 1;
    return p.x;
  }
  const int64_t s = p.shape[static_cast<size_t>(p.dim)];
  *slices = s;
  *len = s == 0 ? 0 : n / s;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(p.dim) + 1; d < p.shape.size(); ++d) inner *= p.shape[d];
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t lin = 0; lin < n; ++lin) {
    const int64_t outer = lin / (s * inner), k = (lin / inner) % s, i = lin % inner;
    out[static_cast<size_t>(k * *len + outer * inner + i)] = p.x[static_cast<size_t>(lin)];
  }
  return out;
}

void check_result(const DynTableCase &c, Problem &p) {
  const int64_t n = static_cast<int64_t>(p.x.size());
  const int nd = static_cast<int>(p.shape.size());
  if (c.kind == "nonzero" || c.kind == "nonzero_t") {
    const auto ref = refs::nonzero_ref(p.x, p.shape);
    const int64_t cnt = static_cast<int64_t>(ref.size());
    const Seen s = seen(*p.out);
    std::vector<double> want;
    if (c.kind == "nonzero") {
      EXPECT_EQ(s.shape, (std::vector<int64_t>{cnt, nd}));
      for (const auto &r : ref) want.insert(want.end(), r.begin(), r.end());
    } else {
      EXPECT_EQ(s.shape, (std::vector<int64_t>{nd, cnt}));
      for (int d = 0; d < nd; ++d)
        for (const auto &r : ref) want.push_back(static_cast<double>(r[static_cast<size_t>(d)]));
    }
    if (!p.out_padded) EXPECT_EQ(s.strides, contiguous(s.shape));
    EXPECT_TRUE(same_values(s.values, want));
    EXPECT_TRUE(p.out->untouched_outside_view());
    return;
  }
  if (c.kind == "scatter_update") {  // data[targets[i], .., offsets[i] + k, ..] = updates[i, .., k, ..], i in order
    std::vector<double> want = p.x;
    const std::vector<double> u = p.source->values();
    const std::vector<int64_t> &us = p.source->shape();
    for (int64_t lin = 0; lin < numel_of(us); ++lin) {
      int64_t r = lin, dlin = 0, acc = 1;
      std::vector<int64_t> co(us.size());
      for (size_t d = us.size(); d-- > 0;) {
        co[d] = r % us[d];
        r /= us[d];
      }
      const size_t i = static_cast<size_t>(co[0]);
      co[0] = p.targets[i];
      co[static_cast<size_t>(p.dim)] += p.offsets[i];
      for (size_t d = us.size(); d-- > 0;) {
        dlin += co[d] * acc;
        acc *= p.shape[d];
      }
      want[static_cast<size_t>(dlin)] = u[static_cast<size_t>(lin)];
    }
    EXPECT_TRUE(same_values(p.self->values(), want));
    EXPECT_TRUE(p.self->untouched_outside_view());
    return;
  }
  if (c.kind == "masked_select") {  // self's values at the true positions of the broadcast walk
    const std::vector<double> mv = p.mask->values();
    std::vector<double> want;
    for (int64_t lin = 0; lin < numel_of(p.bshape); ++lin)
      if (mv[static_cast<size_t>(broadcast_source(p.bshape, p.mask->shape(), lin))] != 0)
        want.push_back(p.x[static_cast<size_t>(broadcast_source(p.bshape, p.shape, lin))]);
    const Seen s = seen(*p.out);
    EXPECT_EQ(s.shape, (std::vector<int64_t>{static_cast<int64_t>(want.size())}));
    if (!p.out_padded) EXPECT_EQ(s.strides, contiguous(s.shape));
    EXPECT_TRUE(same_values(s.values, want));
    EXPECT_TRUE(p.out->untouched_outside_view());
    return;
  }
  if (c.kind == "scatter_list") {  // var[i][.., offsets[i] + k, ..] = updates[i, .., k, ..], k < lengths[i]
    const std::vector<double> u = p.source->values();
    const std::vector<int64_t> &us = p.source->shape();
    const int64_t per = numel_of(us) / us[0];
    for (size_t i = 0; i < p.vars.size(); ++i) {
      std::vector<double> want = p.var_x[i];
      for (int64_t lin = 0; lin < per && p.mask_values[i] != 0; ++lin) {
        int64_t r = lin, vlin = 0, acc = 1;
        std::vector<int64_t> co(static_cast<size_t>(nd));
        for (int d = nd - 1; d >= 0; --d) {
          co[static_cast<size_t>(d)] = r % us[static_cast<size_t>(d) + 1];
          r /= us[static_cast<size_t>(d) + 1];
        }
        if (co[static_cast<size_t>(p.dim)] >= p.lengths[i]) continue;
        co[static_cast<size_t>(p.dim)] += p.offsets[i];
        for (int d = nd - 1; d >= 0; --d) {
          vlin += co[static_cast<size_t>(d)] * acc;
          acc *= p.shape[static_cast<size_t>(d)];
        }
        want[static_cast<size_t>(vlin)] = u[static_cast<size_t>(static_cast<int64_t>(i) * per + lin)];
      }
      EXPECT_TRUE(same_values(p.vars[i]->values(), want)) << "element " << i;
      EXPECT_TRUE(p.vars[i]->untouched_outside_view());
    }
    return;
  }
  if (c.kind == "masked_scatter") {
    std::vector<double> want = p.x, src = p.source->values();
    // re-derive the broadcast mask walk from the mask's own values
    const std::vector<int64_t> &ms = p.mask->shape();
    const std::vector<double> mv = p.mask->values();
    const int lead = nd - static_cast<int>(ms.size());
    size_t k = 0;
    for (int64_t lin = 0; lin < n; ++lin) {
      int64_t r = lin, mlin = 0, macc = 1;
      for (int d = nd - 1; d >= 0; --d) {
        const int64_t cd = r % p.shape[static_cast<size_t>(d)];
        r /= p.shape[static_cast<size_t>(d)];
        if (d - lead >= 0) {
          const int64_t m = ms[static_cast<size_t>(d - lead)];
          mlin += (m == 1 ? 0 : cd) * macc;
          macc *= m;
        }
      }
      if (mv[static_cast<size_t>(mlin)] != 0) want[static_cast<size_t>(lin)] = src[k++];
    }
    EXPECT_TRUE(same_values(p.self->values(), want));
    EXPECT_TRUE(p.self->untouched_outside_view());
    return;
  }
  int64_t slices = 0, len = 0;
  const std::vector<double> lines = as_slices(p, &slices, &len);
  const refs::UniqueRef ref = refs::unique_ref(lines, slices, len, c.kind == "unique_consecutive");
  const int64_t u = static_cast<int64_t>(ref.counts.size());
  {  // values
    const Seen s = seen(*p.out);
    std::vector<int64_t> want_shape = p.dim < 0 ? std::vector<int64_t>{u} : p.shape;
    if (p.dim >= 0) want_shape[static_cast<size_t>(p.dim)] = u;
    EXPECT_EQ(s.shape, want_shape);
    if (!p.out_padded) EXPECT_EQ(s.strides, contiguous(s.shape));
    std::vector<double> want(static_cast<size_t>(numel_of(want_shape)));
    if (p.dim < 0) {
      want = ref.values;
    } else {
      int64_t inner = 1;
      for (size_t d = static_cast<size_t>(p.dim) + 1; d < want_shape.size(); ++d) inner *= want_shape[d];
      for (int64_t lin = 0; lin < static_cast<int64_t>(want.size()); ++lin) {
        const int64_t outer = lin / (u * inner), g = (lin / inner) % u, i = lin % inner;
        want[static_cast<size_t>(lin)] = ref.values[static_cast<size_t>(g * len + outer * inner + i)];
      }
    }
    EXPECT_TRUE(same_values(s.values, want)) << "values";
    EXPECT_TRUE(p.out->untouched_outside_view());
  }
  {  // inverse
    const Seen s = seen(*p.inverse);
    EXPECT_EQ(s.shape, p.inverse->shape());
    if (p.a.return_inverse) {
      EXPECT_TRUE(same_values(s.values, std::vector<double>(ref.inverse.begin(), ref.inverse.end()))) << "inverse";
    } else {
      EXPECT_TRUE(same_values(s.values, std::vector<double>(s.values.size(), -1.0))) << "inverse not requested";
    }
    EXPECT_TRUE(p.inverse->untouched_outside_view());
  }
  if (p.counts) {
    const Seen s = seen(*p.counts);
    const bool want_counts = !c.has("return_counts") || p.a.return_counts;
    EXPECT_EQ(s.shape, (std::vector<int64_t>{want_counts ? u : 0}));
    if (want_counts)
      EXPECT_TRUE(same_values(s.values, std::vector<double>(ref.counts.begin(), ref.counts.end()))) << "counts";
    EXPECT_TRUE(p.counts->untouched_outside_view());
  }
}

void check(const DynTableCase &c, Problem &p) {
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(p.a, w, x); }, c.launch), 0)
      << aclGetRecentErrMsg();
  check_result(c, p);
}

class OpTableDyn : public ::testing::TestWithParam<DynTableCase> {};
// Suites that only some kinds have: instantiated for those (no skipped cases).
class OpTableDynShrinking : public OpTableDyn {};       // a dynamic-size output
class OpTableDynMaskedScatter : public OpTableDyn {};   // masked_scatter
class OpTableDynScatterUpdate : public OpTableDyn {};   // scatter_update
class OpTableDynScatterList : public OpTableDyn {};     // scatter_list

TEST_P(OpTableDyn, RandomShapesEveryDtype) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int trial = 0; trial < 8; ++trial) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " trial " << trial);
      Problem p = make_problem(c, dt, false, false, false);
      check(c, p);
    }
}

TEST_P(OpTableDyn, StridedInputsAndPaddedOutputs) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int trial = 0; trial < 4; ++trial) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " trial " << trial);
      Problem p = make_problem(c, dt, true, trial % 2 == 1, false);
      check(c, p);
    }
}

TEST_P(OpTableDyn, SpecialValuesEmptyAllZeroAllNonzero) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  auto takes = [&](aclDataType dt) { return std::find(c.dtypes.begin(), c.dtypes.end(), dt) != c.dtypes.end(); };
  for (aclDataType dt : {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16})
    for (int trial = 0; trial < 6 && takes(dt); ++trial) {
      SCOPED_TRACE(::testing::Message() << c.name << " specials dtype " << dt << " trial " << trial);
      Problem p = make_problem(c, dt, trial % 2 == 1, trial % 3 == 2, true);
      check(c, p);
    }
  for (aclDataType dt : {ACL_FLOAT, ACL_INT64, ACL_BOOL, ACL_INT32})
    for (int mode = 0; mode < 3 && takes(dt); ++mode) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << (mode ? mode == 1 ? " all zero" : " all nonzero"
                                                                           : " empty"));
      const bool empty = mode == 0 && c.kind != "scatter_update" && c.kind != "scatter_list";  // (empty: an error)
      Problem p = make_problem(c, dt, false, false, false, empty, mode);
      check(c, p);
    }
  // Nonzero: unsigned values whose low bytes are zero or whose top bit alone is set (a test reading
  // fewer bytes, or a sign, would call them zero).
  const bool nonzero = c.kind == "nonzero" || c.kind == "nonzero_t";
  for (aclDataType dt : {ACL_UINT16, ACL_UINT32, ACL_UINT64})
    for (int trial = 0; trial < 4 && nonzero && takes(dt); ++trial) {
      SCOPED_TRACE(::testing::Message() << c.name << " high bits dtype " << dt << " trial " << trial);
      Problem p = make_problem(c, dt, trial % 2 == 1, trial % 3 == 2, false);
      const int bits = static_cast<int>(elem_size(dt)) * 8;
      const double high[] = {std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits / 2), std::ldexp(1.0, bits) - std::ldexp(1.0, bits - 8)};
      std::vector<double> v = p.x;
      for (double &e : v)
        if (uniform(0, 1)) e = high[uniform(0, 2)];
      p.self->set_values(v);
      p.x = p.self->values();
      check(c, p);
    }
  {  // 0-d self
    if (c.kind == "unique_dim" || c.kind == "scatter_update" || c.kind == "scatter_list") return;
    for (double v : {0.0, 2.5}) {
      Problem p;
      do p = make_problem(c, ACL_FLOAT, false, false, false);
      while (!p.shape.empty() || p.dim >= 0);
      p.self->set_values({v});
      p.x = p.self->values();
      SCOPED_TRACE(::testing::Message() << c.name << " 0-d self " << v);
      check(c, p);
    }
  }
}

// A repeatable executor: every launch starts from the largest shape (the second launch's result
// may be larger than the first one's); the data of the second launch are other values in the same
// buffers.
TEST_P(OpTableDynShrinking, RepeatableExecutorStartsFromTheLargestShape) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (int trial = 0; trial < 6; ++trial) {
    Problem p;
    do p = make_problem(c, ACL_FLOAT, trial % 2 == 1, false, false, false, trial < 2 ? 1 : 0);
    while (p.x.size() < 2);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(c.phase1(p.a, &ws, &ex), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
    void *w = nullptr;
    if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    for (int launch = 0; launch < 3; ++launch) {
      SCOPED_TRACE(::testing::Message() << c.name << " trial " << trial << " launch " << launch);
      if (launch > 0) {  // other data: launch 1 all distinct / nonzero, launch 2 random again
        std::vector<double> v(p.x.size());
        for (size_t i = 0; i < v.size(); ++i)
          v[i] = launch == 1 ? static_cast<double>(i % 2 ? i + 1 : -static_cast<double>(i) - 1)
                             : static_cast<double>(uniform(0, 1));
        p.self->set_values(v);
        p.x = p.self->values();
        for (DeviceTensor *t : {p.out.get(), p.inverse.get(), p.counts.get()})
          if (t) t->poison();
      }
      ASSERT_EQ(c.launch(w, ws, ex, nullptr), 0) << aclGetRecentErrMsg();
      ASSERT_EQ(aclrtSynchronizeDevice(), 0) << aclGetRecentErrMsg();
      check_result(c, p);
    }
    // A descriptor destroyed after phase 1 is never written by a later launch (its memory may
    // hold another descriptor by then). Fresh tensors: the launches above shrank p's descriptors.
    aclDestroyAclOpExecutor(ex);
    if (w) aclrtFree(w);
    w = nullptr;
    p = make_problem(c, ACL_FLOAT, false, false, false);
    aclTensor *fresh = nullptr;
    {
      const std::vector<int64_t> s = p.out->shape();
      const std::vector<int64_t> st = p.out->strides();
      const int64_t storage = numel_of(s);
      fresh = aclCreateTensor(s.data(), s.size(), p.out->dtype(), st.data(), 0, ACL_FORMAT_ND, &storage, 1,
                              p.out->data());
      ASSERT_NE(fresh, nullptr);
    }
    DynArgs a = p.a;
    a.out = fresh;
    ASSERT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
    if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
    aclDestroyTensor(fresh);
    aclTensor *other = nullptr;  // likely the same memory, from the descriptor cache
    {
      const int64_t d1[] = {7}, s1[] = {1}, st1 = 7;
      other = aclCreateTensor(d1, 1, ACL_INT64, s1, 0, ACL_FORMAT_ND, &st1, 1, p.out->data());
    }
    ASSERT_EQ(c.launch(w, ws, ex, nullptr), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSynchronizeDevice(), 0);
    int64_t *dims = nullptr;
    uint64_t nd = 0;
    ASSERT_EQ(aclGetViewShape(other, &dims, &nd), 0);
    EXPECT_EQ(std::vector<int64_t>(dims, dims + nd), std::vector<int64_t>{7});
    delete[] dims;
    aclDestroyTensor(other);
    aclDestroyAclOpExecutor(ex);
    if (w) aclrtFree(w);
  }
}

// InplaceMaskedScatter: fewer source elements than true mask positions fails the launch.
TEST_P(OpTableDynMaskedScatter, SourceTooShortFailsTheLaunch) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  int checked = 0;
  for (int trial = 0; trial < 40 && checked < 5; ++trial) {
    Problem q = make_problem(c, ACL_FLOAT, trial % 2 == 1, false, false, false, 2);  // every position true
    const int64_t count = numel_of(q.shape);
    if (count == 0) continue;
    DeviceTensor shorter({count - 1}, ACL_FLOAT);
    q.a.source = shorter;
    const std::vector<double> before = q.self->values();
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(q.a, w, x); }, c.launch),
                           ACLNN_ERR_PARAM_INVALID, {c.names.at("source").c_str(), c.names.at("mask").c_str()}));
    EXPECT_TRUE(same_values(q.self->values(), before));
    EXPECT_TRUE(q.self->untouched_outside_view());
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// InplaceScatterUpdate: an offset that puts the updates outside data (or is negative), or a batch
// outside data ([n, 2] indices), fails the launch with 161002 naming indices; nothing is written.
TEST_P(OpTableDynScatterUpdate, TargetsCheckedAtLaunch) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (int trial = 0; trial < 12; ++trial) {
    Problem p = make_problem(c, ACL_FLOAT, trial % 2 == 1, false, false);
    const int64_t room = p.shape[static_cast<size_t>(p.dim)] - p.source->shape()[static_cast<size_t>(p.dim)];
    const size_t i = static_cast<size_t>(uniform(0, static_cast<int64_t>(p.offsets.size()) - 1));
    if (p.index_form == 2 && trial % 3 == 0)
      p.targets[i] = trial % 2 ? p.shape[0] : -1;
    else
      p.offsets[i] = trial % 2 ? room + 1 : -1;
    set_scatter_indices(p);
    const std::vector<double> before = p.self->values();
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " index form " << p.index_form);
    EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(p.a, w, x); }, c.launch),
                           ACLNN_ERR_PARAM_INVALID, {c.names.at("index").c_str(), "out of range"}));
    EXPECT_TRUE(same_values(p.self->values(), before));
    EXPECT_TRUE(p.self->untouched_outside_view());
  }
}

// ScatterList: starts / lengths outside the elements or updates, and mask bytes other than 0 / 1,
// fail the launch with 161002 naming the argument; nothing is written.
TEST_P(OpTableDynScatterList, StartsLengthsAndMaskCheckedAtLaunch) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  for (int trial = 0; trial < 12; ++trial) {
    Problem p = make_problem(c, ACL_FLOAT, trial % 2 == 1, false, false, false, 2);  // mask (all 1)
    const size_t i = static_cast<size_t>(uniform(0, static_cast<int64_t>(p.offsets.size()) - 1));
    const int64_t size = p.shape[static_cast<size_t>(p.dim)];
    const int64_t most = p.source->shape()[static_cast<size_t>(p.dim) + 1];
    std::string word = c.names.at("index");
    if (trial % 4 == 3) {
      p.mask_values[i] = 2;
      p.mask->set_values(p.mask_values);
      word = c.names.at("mask");
    } else if (trial % 4 == 2 && p.index_form == 2) {
      p.lengths[i] = trial % 8 == 2 ? -1 : most + 1;  // negative, or longer than updates
    } else {
      p.offsets[i] = trial % 2 ? size - p.lengths[i] + 1 : -1;
    }
    set_list_indices(p);
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " index form " << p.index_form << " " << word);
    EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(p.a, w, x); }, c.launch),
                           ACLNN_ERR_PARAM_INVALID, {word.c_str()}));
    for (size_t k = 0; k < p.vars.size(); ++k) {
      EXPECT_TRUE(same_values(p.vars[k]->values(), p.var_x[k]));
      EXPECT_TRUE(p.vars[k]->untouched_outside_view());
    }
  }
}

// ScatterList's phase-1 errors, each naming its argument.
void scatter_list_errors(const DynTableCase &c, const Problem &p) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const DynArgs &a, const std::string &word) {
    return fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), word.c_str()});
  };
  const std::string lname = c.names.at("list"), iname = c.names.at("index"), uname = c.names.at("source"),
                    mname = c.names.at("mask");
  const aclDataType dt = p.source->dtype(), other = dt == ACL_FLOAT ? ACL_INT32 : ACL_FLOAT;
  const std::vector<int64_t> us = p.source->shape();
  const int64_t nb = us[0];
  auto with_list = [&](const std::vector<aclTensor *> &ts, const std::string &word) {
    auto l = list_of(ts);
    DynArgs a = p.a;
    a.list = l.get();
    return fails(a, word);
  };
  std::vector<aclTensor *> ts;
  for (const auto &v : p.vars) ts.push_back(v->get());
  {  // an element of another dtype / shape; a dtype outside the rule; 0-d elements; an empty list
    DeviceTensor od(p.shape, other), bad(p.shape, ACL_DOUBLE);
    std::vector<int64_t> longer = p.shape;
    longer.back() += 1;
    DeviceTensor os(longer, dt), zd({}, dt);
    for (aclTensor *t : {od.get(), os.get()}) {
      std::vector<aclTensor *> v = ts;
      v.push_back(t);
      EXPECT_TRUE(with_list(v, lname + "[" + std::to_string(ts.size()) + "]"));
    }
    EXPECT_TRUE(with_list(std::vector<aclTensor *>(ts.size(), bad.get()), lname));
    EXPECT_TRUE(with_list({}, lname));
    DeviceTensor z0({nb}, dt);
    DynArgs a = p.a;
    auto l = list_of(std::vector<aclTensor *>(static_cast<size_t>(nb), zd.get()));
    a.list = l.get();
    a.source = z0;
    EXPECT_TRUE(fails(a, lname));
  }
  {  // updates: another dtype, another rank, another list length, longer along the axis
    DynArgs a = p.a;
    DeviceTensor ud(us, other);
    a.source = ud;
    EXPECT_TRUE(fails(a, uname));
    std::vector<int64_t> s = p.shape;
    DeviceTensor ur(s, dt);
    a.source = ur;
    EXPECT_TRUE(fails(a, uname));
    s = us;
    s[0] += 1;
    DeviceTensor ub(s, dt);
    a.source = ub;
    EXPECT_TRUE(fails(a, uname));
    s = us;
    s[static_cast<size_t>(p.dim) + 1] = p.shape[static_cast<size_t>(p.dim)] + 1;
    DeviceTensor ul(s, dt);
    a.source = ul;
    EXPECT_TRUE(fails(a, uname));
  }
  {  // axis: 0 (the list dim) and out of range
    const int64_t und = static_cast<int64_t>(us.size());
    for (int64_t bad : {int64_t{0}, -und, und}) {
      DynArgs a = p.a;
      a.dim = bad;
      SCOPED_TRACE(::testing::Message() << "axis " << bad);
      EXPECT_TRUE(fails(a, "axis"));
    }
  }
  {  // indice: FLOAT, [B + 1], [B, 3], [B, 2, 1]
    DeviceTensor f({nb}, ACL_FLOAT), w({nb + 1}, ACL_INT64), r3({nb, 3}, ACL_INT64), d3({nb, 2, 1}, ACL_INT64);
    for (DeviceTensor *t : {&f, &w, &r3, &d3}) {
      DynArgs a = p.a;
      a.index = *t;
      EXPECT_TRUE(fails(a, iname));
    }
  }
  {  // maskOptional: BOOL, [B + 1]
    DeviceTensor mb({nb}, ACL_BOOL), mw({nb + 1}, ACL_UINT8);
    for (DeviceTensor *t : {&mb, &mw}) {
      DynArgs a = p.a;
      a.mask = *t;
      EXPECT_TRUE(fails(a, mname));
    }
  }
  {  // reduceOptional other than "update"
    char add[] = "add";
    DynArgs a = p.a;
    a.reduce = add;
    EXPECT_TRUE(fails(a, "reduceOptional"));
  }
}

TEST_P(OpTableDyn, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const DynTableCase &c = GetParam();
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Problem p;
  do p = make_problem(c, c.dtypes.front(), false, false, false);
  while (p.x.empty() || p.shape.empty());
  auto fails = [&](const DynArgs &a, int code, const char *word) {
    return fails_with(c.phase1(a, &ws, &ex), code, {api, word});
  };
  ASSERT_EQ(c.phase1(p.a, &ws, &ex), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
  ex = nullptr;
  for (const auto &[role, name] : c.names) {  // each tensor, null (an optional one: accepted)
    DynArgs a = p.a;
    SCOPED_TRACE(role);
    if (role == "list") {
      a.list = nullptr;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, name.c_str()));
      continue;
    }
    if (name.size() > 8 && name.compare(name.size() - 8, 8, "Optional") == 0) {
      a.mask = nullptr;
      EXPECT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
      aclDestroyAclOpExecutor(ex);
      ex = nullptr;
      continue;
    }
    aclTensor **slot = role == "self" ? &a.self : role == "out" ? &a.out : role == "inverse" ? &a.inverse
                       : role == "counts" ? &a.counts : role == "mask" ? &a.mask : role == "index" ? &a.index
                                                                                       : &a.source;
    *slot = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, name.c_str()));
  }
  if (c.kind == "scatter_list") return scatter_list_errors(c, p);
  const std::string sname = c.names.at("self");
  for (aclDataType bad : {ACL_UINT16, ACL_UINT32, ACL_UINT64, ACL_COMPLEX64}) {  // self dtypes outside the rule
    if (std::find(c.dtypes.begin(), c.dtypes.end(), bad) != c.dtypes.end()) continue;
    DeviceTensor s(p.shape, bad);
    DynArgs a = p.a;
    a.self = s;
    SCOPED_TRACE(::testing::Message() << "self dtype " << bad);
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, sname.c_str()));
  }
  if (c.kind == "scatter_update") {
    const std::string iname = c.names.at("index"), uname = c.names.at("source");
    const int nd = static_cast<int>(p.shape.size());
    DynArgs a = p.a;
    a.dim = 0;  // the batch dim
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "axis"));
    a.dim = nd;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "axis"));
    const int64_t n = p.source->shape()[0];
    DeviceTensor i3({n, 3}, ACL_INT64), i2x({n, 2, 1}, ACL_INT64), iw({n + 1}, ACL_INT64), fi({n}, ACL_FLOAT),
        ie({0}, ACL_INT64);
    for (DeviceTensor *t : {&i3, &i2x, &iw, &fi, &ie}) {
      a = p.a;
      a.index = *t;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, iname.c_str()));
    }
    {  // more batches of updates than data has
      std::vector<int64_t> ds = p.shape, us = p.source->shape();
      ds[0] = 1;
      us[0] = 2;
      DeviceTensor dsmall(ds, p.self->dtype()), u2(us, p.self->dtype()), i2({2}, ACL_INT64);
      a = p.a;
      a.self = dsmall;
      a.source = u2;
      a.index = i2;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, uname.c_str()));
    }
    {  // empty data / updates
      std::vector<int64_t> es = p.shape;
      es.back() = 0;
      DeviceTensor de(es, p.self->dtype());
      a = p.a;
      a.self = de;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "empty"));
      es = p.source->shape();
      es.back() = 0;
      DeviceTensor ue(es, p.self->dtype());
      a = p.a;
      a.source = ue;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, uname.c_str()));
    }
    std::vector<int64_t> us = p.source->shape();
    us[static_cast<size_t>(p.dim)] = p.shape[static_cast<size_t>(p.dim)] + 1;  // longer than data
    DeviceTensor ul(us, p.self->dtype());
    a = p.a;
    a.source = ul;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, uname.c_str()));
    us = p.source->shape();
    us[0] += 1;
    DeviceTensor ub(us, p.self->dtype());
    a.source = ub;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, uname.c_str()));
    DeviceTensor ud(p.source->shape(), p.self->dtype() == ACL_FLOAT ? ACL_INT32 : ACL_FLOAT);
    a.source = ud;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, uname.c_str()));
    DeviceTensor d1({p.shape[0]}, p.self->dtype());
    a = p.a;
    a.self = d1;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.names.at("self").c_str()));
    return;
  }
  if (c.kind == "masked_select") {
    const std::string mname = c.names.at("mask"), oname = c.names.at("out");
    const int64_t n = numel_of(p.bshape);
    DynArgs a = p.a;
    DeviceTensor mf(p.mask->shape(), ACL_FLOAT);
    a.mask = mf;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, mname.c_str()));
    std::vector<int64_t> wrong = p.bshape;
    wrong.back() += 1;  // broadcasts with neither
    DeviceTensor mw(wrong, ACL_BOOL);
    a.mask = mw;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, mname.c_str()));
    DeviceTensor od({n}, p.self->dtype() == ACL_FLOAT ? ACL_DOUBLE : ACL_FLOAT), o2({n, 1}, p.self->dtype()),
        os({n - 1}, p.self->dtype());
    for (DeviceTensor *t : {&od, &o2, &os}) {
      a = p.a;
      a.out = *t;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    }
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "at least"));
    return;
  }
  if (c.kind == "masked_scatter") {
    const std::string mname = c.names.at("mask"), srcname = c.names.at("source");
    DynArgs a = p.a;
    DeviceTensor mf(p.mask->shape(), ACL_FLOAT);
    a.mask = mf;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, mname.c_str()));
    std::vector<int64_t> big = p.shape;
    big.insert(big.begin(), 2);  // broadcasts, but not to self's shape
    DeviceTensor mb(big, ACL_BOOL);
    a = p.a;
    a.mask = mb;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, mname.c_str()));
    std::vector<int64_t> wrong = p.shape;
    wrong.back() += 1;
    DeviceTensor mw(wrong, ACL_BOOL);
    a.mask = mw;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, mname.c_str()));
    DeviceTensor sd(p.source->shape(), p.self->dtype() == ACL_FLOAT ? ACL_DOUBLE : ACL_FLOAT);
    a = p.a;
    a.source = sd;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, srcname.c_str()));
    return;
  }
  const std::string oname = c.names.at("out");
  const int64_t n = numel_of(p.shape);
  const int nd = static_cast<int>(p.shape.size());
  if (c.kind == "nonzero" || c.kind == "nonzero_t") {
    const bool tr = c.kind == "nonzero_t";
    auto shape = [&](int64_t m, int64_t d) { return tr ? std::vector<int64_t>{d, m} : std::vector<int64_t>{m, d}; };
    DynArgs a = p.a;
    DeviceTensor small(shape(n - 1, nd), ACL_INT64);  // too small for the largest result
    a.out = small;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "at least"));
    DeviceTensor wd(shape(n, nd + 1), ACL_INT64);
    a.out = wd;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    DeviceTensor o3({n, nd, 1}, ACL_INT64);
    a.out = o3;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    DeviceTensor o32(shape(n, nd), ACL_INT32);
    a.out = o32;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    return;
  }
  // The unique kinds.
  {  // valueOut: another dtype; too small
    DeviceTensor od(p.out->shape(), p.self->dtype() == ACL_FLOAT ? ACL_DOUBLE : ACL_FLOAT);
    DynArgs a = p.a;
    a.out = od;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    std::vector<int64_t> s = p.dim < 0 ? std::vector<int64_t>{n - 1} : p.shape;
    if (p.dim >= 0) s[static_cast<size_t>(p.dim)] -= 1;
    DeviceTensor small(s, p.self->dtype());
    a.out = small;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, oname.c_str()));
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "at least"));
  }
  {  // inverseOut (when requested): INT32, wrong shape
    DynArgs a = p.a;
    a.return_inverse = true;
    DeviceTensor i32(p.inverse->shape(), ACL_INT32);
    a.inverse = i32;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.names.at("inverse").c_str()));
    std::vector<int64_t> s = p.inverse->shape();
    s.back() += 1;
    DeviceTensor iw(s, ACL_INT64);
    a.inverse = iw;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.names.at("inverse").c_str()));
  }
  if (p.counts) {  // countsOut (when requested): too small, wrong dtype
    DynArgs a = p.a;
    a.return_counts = true;
    const int64_t slices = p.dim < 0 ? n : p.shape[static_cast<size_t>(p.dim)];
    DeviceTensor small({slices - 1}, ACL_INT64);
    a.counts = small;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.names.at("counts").c_str()));
    DeviceTensor cf({slices}, ACL_FLOAT);
    a.counts = cf;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.names.at("counts").c_str()));
  }
  if (c.has("dim")) {  // dims out of range (UniqueConsecutive: 1000 is "none", 999 is not)
    for (int64_t bad : {static_cast<int64_t>(nd), static_cast<int64_t>(-nd - 1), int64_t{999}}) {
      DynArgs a = p.a;
      a.dim = bad;
      SCOPED_TRACE(::testing::Message() << "dim " << bad);
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "dim"));
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<DynTableCase> &i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(Tables, OpTableDyn, ::testing::ValuesIn(all_cases()), case_name);

std::vector<DynTableCase> cases_where(bool (*keep)(const DynTableCase &)) {
  std::vector<DynTableCase> v;
  for (const DynTableCase &c : all_cases())
    if (keep(c)) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableDynShrinking, ::testing::ValuesIn(cases_where([](const DynTableCase &c) {
                           return c.kind != "masked_scatter" && c.kind != "scatter_update" && c.kind != "scatter_list";  // dynamic outputs
                         })),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableDynMaskedScatter,
                         ::testing::ValuesIn(cases_where([](const DynTableCase &c) { return c.kind == "masked_scatter"; })),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableDynScatterUpdate,
                         ::testing::ValuesIn(cases_where([](const DynTableCase &c) { return c.kind == "scatter_update"; })),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableDynScatterList,
                         ::testing::ValuesIn(cases_where([](const DynTableCase &c) { return c.kind == "scatter_list"; })),
                         case_name);
// (a sampled run may leave one of them without a case)
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableDynShrinking);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableDynMaskedScatter);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableDynScatterUpdate);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpTableDynScatterList);

}  // namespace
}  // namespace opsnn::test

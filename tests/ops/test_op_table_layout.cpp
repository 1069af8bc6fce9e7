// The test harness of the table-driven copy / layout ops (src/ops/layout/layout.ops): every op and
// sample of its parameters (tools/gen_ops.py --tests writes layout_table_cases.inc) runs the same
// suites against an exact reference (data movement: an index map from each output element to its
// input element or fill value, computed here in float64):
//   - every accepted dtype, contiguous input and output;
//   - strided views: inputs stored in reversed dim order after an offset, outputs with padded rows
//     after an offset (nothing outside the output view is written), a wider output dtype where
//     the row allows one;
//   - the in-place twin on a strided view;
//   - empty tensors (the rows' samples with size-0 dims);
//   - NaN and infinities through the scatters that combine values (sum, prod, max, min, mean, div);
//   - errors with their code and the argument named: each null tensor / list / scalar, a wrong
//     output shape or dtype, input dtypes outside the rule, and the rows' rejected parameters.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/cpu_features.h"
#include "core/tensor.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct LayoutSample {
  std::vector<int64_t> shape;                // self
  std::vector<std::vector<int64_t>> shapes;  // a tensor list's elements
  std::vector<std::vector<int64_t>> arr;     // int-list parameters in prototype order
  std::vector<int64_t> ints;                 // int64_t parameters
  std::vector<double> scalars;               // aclScalar parameters
  std::vector<int64_t> index;                // an index (or repeats) tensor's values
  std::vector<int64_t> index_shape;
  std::vector<int64_t> source_shape;         // a source tensor's shape
  std::vector<std::vector<int64_t>> index_lists;        // a list of index tensors: values
  std::vector<std::vector<int64_t>> index_list_shapes;  // and shapes
};

struct LayoutArgs {
  aclTensor *self = nullptr;
  aclTensorList *list = nullptr;
  aclIntArray *arr[2] = {nullptr, nullptr};
  int64_t i[4] = {0, 0, 0, 0};
  aclScalar *s[3] = {nullptr, nullptr, nullptr};
  aclTensor *out = nullptr;
  aclTensor *index = nullptr;
  aclTensor *source = nullptr;
};

using Phase1 = int (*)(const LayoutArgs &, uint64_t *, aclOpExecutor **);
using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct LayoutTableCase {
  std::string name, api, kind, self_name, out_name;
  int pad_dims = 0;
  std::vector<aclDataType> dtypes;
  bool out_castable = false;
  std::vector<std::string> arr_names, s_names;
  std::string index_name, source_name;  // "" when the op has none
  LayoutSample sample;
  Phase1 phase1 = nullptr, inplace_phase1 = nullptr;
  Launch launch = nullptr, inplace_launch = nullptr;
  std::vector<std::pair<std::string, LayoutSample>> rejects;
};
void PrintTo(const LayoutTableCase &c, std::ostream *os) { *os << c.name; }

#include "layout_table_cases.inc"

const std::vector<LayoutTableCase> &all_cases() {
  static const std::vector<LayoutTableCase> c = harness::sampled(layout_table_cases());
  return c;
}

bool is_float(aclDataType dt) { return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE; }

// The ops without an input tensor (their dtype rule is the output's).
bool no_input(const LayoutTableCase &c) { return c.kind == "arange" || c.kind == "linspace" || c.kind == "eye"; }

int64_t wrap(int64_t d, size_t nd) { return d < 0 ? d + static_cast<int64_t>(std::max<size_t>(nd, 1)) : d; }
int64_t pmod(int64_t a, int64_t n) { return ((a % n) + n) % n; }
int64_t linear(const std::vector<int64_t> &idx, const std::vector<int64_t> &shape) {
  int64_t l = 0;
  for (size_t d = 0; d < shape.size(); ++d) l = l * shape[d] + idx[d];
  return l;
}

// A list of index tensors: their broadcast shape, and self's linear index of element o of
// [broadcast shape..., self's dims after the indexed ones] (negative indices count from the end).
std::vector<int64_t> index_list_shape(const LayoutSample &s) {
  std::vector<int64_t> b;
  for (const auto &sh : s.index_list_shapes) {
    if (sh.size() > b.size()) b.insert(b.begin(), sh.size() - b.size(), 1);
    for (size_t j = 0; j < sh.size(); ++j) {
      int64_t &d = b[b.size() - sh.size() + j];
      if (d == 1) d = sh[j];
    }
  }
  return b;
}
int64_t indexed_element(const LayoutSample &s, const std::vector<int64_t> &bshape, const std::vector<int64_t> &o) {
  const std::vector<int64_t> pos(o.begin(), o.begin() + static_cast<long>(bshape.size()));
  std::vector<int64_t> idx;
  for (size_t j = 0; j < s.index_lists.size(); ++j) {
    const int64_t v = s.index_lists[j][static_cast<size_t>(broadcast_source(pos, bshape, s.index_list_shapes[j]))];
    idx.push_back(v < 0 ? v + s.shape[j] : v);
  }
  idx.insert(idx.end(), o.begin() + static_cast<long>(bshape.size()), o.end());
  return linear(idx, s.shape);
}

// The expected output of a valid sample: its shape and row-major values. `in` holds self's values
// (or the list elements') in row-major order.
struct Expected {
  std::vector<int64_t> shape;
  std::vector<double> values;
};
Expected reference(const LayoutTableCase &c, const LayoutSample &s, const std::vector<std::vector<double>> &in,
                   aclDataType out_dt) {
  const std::string &k = c.kind;
  const std::vector<int64_t> &x = s.shape;
  const size_t nd = x.size();
  Expected e;
  e.shape = x;
  // Source of output element o: {tensor, linear index}, or tensor -1 and a value.
  std::function<std::pair<int, double>(const std::vector<int64_t> &, int64_t)> src;
  auto from = [&](const std::vector<int64_t> &idx) { return std::pair<int, double>{0, linear(idx, x)}; };
  if (k == "permute") {
    for (size_t i = 0; i < nd; ++i) e.shape[i] = x[static_cast<size_t>(wrap(s.arr[0][i], nd))];
    src = [&](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx(nd);
      for (size_t i = 0; i < nd; ++i) idx[static_cast<size_t>(wrap(s.arr[0][i], nd))] = o[i];
      return from(idx);
    };
  } else if (k == "cat") {
    std::vector<size_t> used;
    for (size_t t = 0; t < s.shapes.size(); ++t)
      if (!(s.shapes[t].size() == 1 && s.shapes[t][0] == 0)) used.push_back(t);
    if (used.empty()) used.push_back(0);
    e.shape = s.shapes[used[0]];
    const size_t d = static_cast<size_t>(wrap(s.ints[0], e.shape.size()));
    e.shape[d] = 0;
    for (size_t t : used) e.shape[d] += s.shapes[t][d];
    src = [&, used, d](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      for (size_t t : used) {
        if (idx[d] < s.shapes[t][d]) return std::pair<int, double>{static_cast<int>(t), linear(idx, s.shapes[t])};
        idx[d] -= s.shapes[t][d];
      }
      return std::pair<int, double>{-1, 0};
    };
  } else if (k == "slice") {
    const size_t d = static_cast<size_t>(wrap(s.ints[0], nd));
    const int64_t n = x[d], step = s.ints[3];
    int64_t start = s.ints[1] < 0 ? s.ints[1] + n : s.ints[1], end = s.ints[2] < 0 ? s.ints[2] + n : s.ints[2];
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, start, n);
    e.shape[d] = static_cast<int64_t>((static_cast<__int128>(end) - start + step - 1) / step);  // steps near INT64_MAX
    src = [&, d, start, step](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      idx[d] = start + o[d] * step;
      return from(idx);
    };
  } else if (k == "constant_pad") {
    std::vector<int64_t> before(nd, 0);
    for (size_t p = 0; p < s.arr[0].size() / 2; ++p) {
      const size_t d = nd - 1 - p;
      before[d] = s.arr[0][2 * p];
      e.shape[d] = x[d] + s.arr[0][2 * p] + s.arr[0][2 * p + 1];
    }
    const double value = round_to(out_dt, s.scalars[0]);
    src = [&, before, value](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx(nd);
      for (size_t d = 0; d < nd; ++d) {
        idx[d] = o[d] - before[d];
        if (idx[d] < 0 || idx[d] >= x[d]) return std::pair<int, double>{-1, value};
      }
      return from(idx);
    };
  } else if (k == "reflection_pad" || k == "replication_pad") {
    const bool reflect = k == "reflection_pad";
    for (int p = 0; p < c.pad_dims; ++p) {
      const size_t d = nd - 1 - static_cast<size_t>(p);
      e.shape[d] = x[d] + s.arr[0][2 * static_cast<size_t>(p)] + s.arr[0][2 * static_cast<size_t>(p) + 1];
    }
    src = [&, reflect](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      for (int p = 0; p < c.pad_dims; ++p) {
        const size_t d = nd - 1 - static_cast<size_t>(p);
        const int64_t n = x[d];
        int64_t i = o[d] - s.arr[0][2 * static_cast<size_t>(p)];
        if (reflect) {
          if (i < 0) i = -i;
          if (i >= n) i = 2 * (n - 1) - i;
        } else {
          i = std::clamp<int64_t>(i, 0, n - 1);
        }
        idx[d] = i;
      }
      return from(idx);
    };
  } else if (k == "circular_pad") {
    for (int p = 0; p < c.pad_dims; ++p) {
      const size_t d = nd - 1 - static_cast<size_t>(p);
      e.shape[d] = x[d] + s.arr[0][2 * static_cast<size_t>(p)] + s.arr[0][2 * static_cast<size_t>(p) + 1];
    }
    src = [&](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      for (int p = 0; p < c.pad_dims; ++p) {
        const size_t d = nd - 1 - static_cast<size_t>(p);
        idx[d] = pmod(o[d] - s.arr[0][2 * static_cast<size_t>(p)], x[d]);  // wraps around the dim
      }
      return from(idx);
    };
  } else if (k == "circular_pad_grad") {
    // gradInput[i] = the sum of gradOutput over the positions j with (j - left) mod n == i per
    // padded dim (summed in double, rounded once).
    e.shape = s.source_shape;
    e.values.assign(static_cast<size_t>(numel_of(e.shape)), 0.0);
    for (int64_t lin = 0; lin < numel_of(x); ++lin) {
      std::vector<int64_t> idx = unravel(lin, x);
      for (int p = 0; p < c.pad_dims; ++p) {
        const size_t d = nd - 1 - static_cast<size_t>(p);
        idx[d] = pmod(idx[d] - s.arr[0][2 * static_cast<size_t>(p)], e.shape[d]);
      }
      e.values[static_cast<size_t>(linear(idx, e.shape))] += in[0][static_cast<size_t>(lin)];
    }
    for (double &v : e.values) v = round_to(out_dt, v);
    return e;
  } else if (k == "narrow") {
    const size_t d = static_cast<size_t>(wrap(s.ints[0], nd));
    const int64_t start = s.ints[1] < 0 ? s.ints[1] + x[d] : s.ints[1];
    e.shape[d] = s.ints[2];
    src = [&, d, start](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      idx[d] += start;
      return from(idx);
    };
  } else if (k == "diag") {
    const int64_t dk = s.ints[0];
    if (nd == 1) {
      const int64_t n = x[0] + (dk < 0 ? -dk : dk);
      e.shape = {n, n};
      src = [&, dk](const std::vector<int64_t> &o, int64_t) {
        if (o[1] - o[0] != dk) return std::pair<int, double>{-1, 0};
        return from({dk >= 0 ? o[0] : o[1]});
      };
    } else {
      int64_t len = 0;
      while (len < x[0] + x[1] && (dk >= 0 ? len < x[0] && len + dk < x[1] : len - dk < x[0] && len < x[1])) ++len;
      e.shape = {len};
      src = [&, dk](const std::vector<int64_t> &o, int64_t) {
        return from({dk >= 0 ? o[0] : o[0] - dk, dk >= 0 ? o[0] + dk : o[0]});
      };
    }
  } else if (k == "tril" || k == "triu") {
    const bool lower = k == "tril";
    src = [&, lower](const std::vector<int64_t> &o, int64_t) {
      const int64_t t = o[nd - 1] - o[nd - 2];
      const bool keep = lower ? t <= s.ints[0] : t >= s.ints[0];
      return keep ? from(o) : std::pair<int, double>{-1, 0};
    };
  } else if (k == "roll") {
    const int64_t numel = numel_of(x);
    std::vector<int64_t> shift(nd, 0);
    for (size_t j = 0; j < s.arr[1].size(); ++j) {  // summed modulo the dim (shifts near INT64_MAX)
      const size_t d = static_cast<size_t>(wrap(s.arr[1][j], nd));
      if (x[d] > 0) shift[d] = pmod(shift[d] + pmod(s.arr[0][j], x[d]), x[d]);
    }
    const bool flat = s.arr[1].empty();
    src = [&, shift, flat, numel](const std::vector<int64_t> &o, int64_t lin) {
      if (flat) return std::pair<int, double>{0, static_cast<double>(pmod(lin - s.arr[0][0], numel))};
      std::vector<int64_t> idx(nd);
      for (size_t d = 0; d < nd; ++d) idx[d] = pmod(o[d] - shift[d], x[d]);
      return from(idx);
    };
  } else if (k == "repeat") {
    const auto &r = s.arr[0];
    const size_t extra = r.size() - nd;
    e.shape.assign(r.size(), 0);
    for (size_t d = 0; d < r.size(); ++d) e.shape[d] = r[d] * (d < extra ? 1 : x[d - extra]);
    src = [&, extra](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx(nd);
      for (size_t d = 0; d < nd; ++d) idx[d] = o[d + extra] % x[d];
      return from(idx);
    };
  } else if (k == "repeat_interleave") {
    const int64_t r = s.ints[0];
    const bool with_dim = s.ints.size() == 3;
    if (!with_dim) e.shape = {numel_of(x) * r};
    const size_t d = with_dim ? static_cast<size_t>(wrap(s.ints[1], nd)) : 0;
    if (with_dim) e.shape[d] *= r;
    src = [&, r, with_dim, d](const std::vector<int64_t> &o, int64_t lin) {
      if (!with_dim) return std::pair<int, double>{0, static_cast<double>(lin / r)};
      std::vector<int64_t> idx = o;
      idx[d] = o[d] / r;
      return from(idx);
    };
  } else if (k == "flip") {
    std::vector<bool> flipped(nd, false);
    for (int64_t d : s.arr[0]) flipped[static_cast<size_t>(wrap(d, nd))] = true;
    src = [&, flipped](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      for (size_t d = 0; d < nd; ++d)
        if (flipped[d]) idx[d] = x[d] - 1 - o[d];
      return from(idx);
    };
  } else if (k == "gather" || k == "index_select") {
    const size_t d = s.ints.empty() ? 0 : static_cast<size_t>(wrap(s.ints[0], nd));
    const std::vector<int64_t> ishape = k == "gather" ? s.index_shape : std::vector<int64_t>{numel_of(s.index_shape)};
    e.shape.assign(x.begin(), x.begin() + static_cast<long>(d));
    e.shape.insert(e.shape.end(), ishape.begin(), ishape.end());
    e.shape.insert(e.shape.end(), x.begin() + static_cast<long>(d) + 1, x.end());
    src = [&, d, ishape](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx(o.begin(), o.begin() + static_cast<long>(d));
      const std::vector<int64_t> pos(o.begin() + static_cast<long>(d), o.begin() + static_cast<long>(d + ishape.size()));
      idx.push_back(s.index[static_cast<size_t>(linear(pos, ishape))]);
      idx.insert(idx.end(), o.begin() + static_cast<long>(d + ishape.size()), o.end());
      return from(idx);
    };
  } else if (k == "scatter_reduce") {
    // Each source element's target: its position with dim replaced by the index value.
    const size_t d = static_cast<size_t>(wrap(s.ints[0], nd));
    std::vector<int64_t> target;
    std::vector<double> vals;
    for (int64_t lin = 0; lin < numel_of(s.index_shape); ++lin) {
      const std::vector<int64_t> m = unravel(lin, s.index_shape);
      std::vector<int64_t> t = m;
      t[d] = s.index[static_cast<size_t>(lin)];
      target.push_back(linear(t, x));
      vals.push_back(in[1][static_cast<size_t>(linear(m, s.source_shape))]);
    }
    e.values = refs::scatter_reduce_ref(in[0], target, vals, static_cast<int>(s.ints[1]), s.ints[2] != 0,
                                        !is_float(out_dt), [&](double v) { return round_to(out_dt, v); });
    for (double &v : e.values) v = round_to(out_dt, v);
    return e;
  } else if (k == "scatter_max" || k == "scatter_min" || k == "scatter_mul" || k == "scatter_div" ||
             k == "scatter_add_tf") {
    // In order: varRef[indices[p], r...] combined with updates[p..., r...], rounded at each step.
    e.values = in[0];
    const std::vector<int64_t> rest(x.begin() + 1, x.end());
    const int64_t slab = numel_of(rest);
    for (int64_t p = 0; p < numel_of(s.index_shape); ++p)
      for (int64_t r = 0; r < slab; ++r) {
        double &o = e.values[static_cast<size_t>(s.index[static_cast<size_t>(p)] * slab + r)];
        const double u = in[1][static_cast<size_t>(p * slab + r)];
        double v;
        if (k == "scatter_max") v = std::isnan(o) || o > u ? o : u;
        else if (k == "scatter_min") v = std::isnan(o) || o < u ? o : u;
        else if (k == "scatter_mul") v = o * u;
        else if (k == "scatter_add_tf") v = o + u;
        else if (is_float(out_dt)) v = o / u;
        else v = u == 0 ? 0 : std::trunc(o / u);  // integers: truncated, x / 0 = 0
        o = round_to(out_dt, v);
      }
    return e;
  } else if (k == "scatter" || k == "index_add") {
    // Sequential in index order: out = self, then each position combined (rounded to out's dtype).
    const size_t d = static_cast<size_t>(wrap(s.ints[0], nd));
    e.values = in[0];
    for (double &v : e.values) v = round_to(out_dt, v);
    const bool has_src = !c.source_name.empty();
    const int64_t reduce = k == "index_add" ? 1 : s.ints.size() > 1 ? s.ints[1] : 1;
    const double alpha = k == "index_add" ? s.scalars[0] : 1;
    auto combine = [&](size_t at, double v) {
      double &o = e.values[at];
      o = round_to(out_dt, reduce == 0 ? v : reduce == 1 ? o + alpha * v : o * v);
    };
    if (k == "scatter") {
      for (int64_t lin = 0; lin < numel_of(s.index_shape); ++lin) {
        std::vector<int64_t> m = unravel(lin, s.index_shape), t = m;
        t[d] = s.index[static_cast<size_t>(lin)];
        combine(static_cast<size_t>(linear(t, x)),
                has_src ? in[1][static_cast<size_t>(linear(m, s.source_shape))] : s.scalars[0]);
      }
    } else {
      for (size_t j = 0; j < s.index.size(); ++j)
        for (int64_t l = 0; l < numel_of(x); ++l) {
          std::vector<int64_t> o = unravel(l, x);
          if (o[d] != s.index[j]) continue;
          o[d] = static_cast<int64_t>(j);
          combine(static_cast<size_t>(l), in[1][static_cast<size_t>(linear(o, s.source_shape))]);
        }
    }
    return e;
  } else if (k == "repeat_interleave_grad") {
    // out = 0, then each yGrad element added into the slab its axis position repeats.
    const size_t d = static_cast<size_t>(wrap(s.ints[0], nd));
    const int64_t sources = s.index.size() > 1 ? static_cast<int64_t>(s.index.size()) : x[d] / s.index[0];
    std::vector<int64_t> map;
    for (int64_t i = 0; i < sources; ++i)
      for (int64_t r = 0; r < s.index[s.index.size() == 1 ? 0 : static_cast<size_t>(i)]; ++r) map.push_back(i);
    e.shape[d] = sources;
    e.values.assign(static_cast<size_t>(numel_of(e.shape)), 0.0);
    for (int64_t l = 0; l < numel_of(x); ++l) {
      std::vector<int64_t> t = unravel(l, x);
      t[d] = map[static_cast<size_t>(t[d])];
      double &o = e.values[static_cast<size_t>(linear(t, e.shape))];
      o = round_to(out_dt, o + in[0][static_cast<size_t>(l)]);
    }
    return e;
  } else if (k == "put" || k == "index_put") {
    // In order: selfRef[target of each source element] = (or +=) the element (a repeated target: the
    // last write wins).
    const bool add = s.ints[0] != 0;
    e.values = in[0];
    auto put = [&](int64_t at, double v) {
      double &o = e.values[static_cast<size_t>(at)];
      o = round_to(out_dt, add ? o + v : v);
    };
    if (k == "put") {
      for (size_t j = 0; j < s.index.size(); ++j)
        put(s.index[j] < 0 ? s.index[j] + numel_of(x) : s.index[j], in[1][j]);
      return e;
    }
    const std::vector<int64_t> bshape = index_list_shape(s);
    std::vector<int64_t> both = bshape;
    both.insert(both.end(), x.begin() + static_cast<long>(s.index_lists.size()), x.end());
    for (int64_t lin = 0; lin < numel_of(both); ++lin) {
      const std::vector<int64_t> o = unravel(lin, both);
      put(indexed_element(s, bshape, o), in[1][static_cast<size_t>(broadcast_source(o, both, s.source_shape))]);
    }
    return e;
  } else if (k == "index_tensors") {
    // out[p..., r...] = self[i_0[p], ..., i_{K-1}[p], r...], the index tensors broadcast to p's shape.
    const std::vector<int64_t> bshape = index_list_shape(s);
    e.shape = bshape;
    e.shape.insert(e.shape.end(), x.begin() + static_cast<long>(s.index_lists.size()), x.end());
    src = [&s, bshape](const std::vector<int64_t> &o, int64_t) {
      return std::pair<int, double>{0, static_cast<double>(indexed_element(s, bshape, o))};
    };
  } else if (k == "gather_nd" || k == "scatter_nd") {
    // Position p of indices [p..., K] addresses self[indices[p, :], r...]; r runs over self's dims from K.
    const size_t kk = static_cast<size_t>(s.index_shape.back());
    const std::vector<int64_t> pos_shape(s.index_shape.begin(), s.index_shape.end() - 1);
    const std::vector<int64_t> rest(x.begin() + static_cast<long>(kk), x.end());
    std::vector<int64_t> both = pos_shape;
    both.insert(both.end(), rest.begin(), rest.end());
    auto self_index = [&s, &x, kk, pos_shape, both](int64_t lin) {  // self's linear index of both's element lin
      const std::vector<int64_t> o = unravel(lin, both);
      std::vector<int64_t> idx;
      const int64_t pl = linear(std::vector<int64_t>(o.begin(), o.begin() + static_cast<long>(pos_shape.size())), pos_shape);
      for (size_t j = 0; j < kk; ++j) {
        const int64_t v = s.index[static_cast<size_t>(pl) * kk + j];
        idx.push_back(v < 0 ? v + x[j] : v);
      }
      idx.insert(idx.end(), o.begin() + static_cast<long>(pos_shape.size()), o.end());
      return linear(idx, x);
    };
    if (k == "gather_nd") {
      e.shape = both;
      src = [self_index](const std::vector<int64_t> &, int64_t lin) {
        return std::pair<int, double>{0, static_cast<double>(self_index(lin))};
      };
    } else {
      e.values = in[0];
      for (int64_t lin = 0; lin < numel_of(both); ++lin)
        e.values[static_cast<size_t>(self_index(lin))] = in[1][static_cast<size_t>(lin)];
      return e;
    }
  } else if (k == "index_copy" || k == "index_fill") {
    // out = self, then the slabs at the indices written (index_copy: source's slabs in order).
    const size_t d = static_cast<size_t>(wrap(s.ints[0], nd));
    std::vector<std::pair<int, double>> map(static_cast<size_t>(numel_of(x)));
    for (size_t l = 0; l < map.size(); ++l) map[l] = {0, static_cast<double>(l)};
    const auto &targets = k == "index_copy" || !c.index_name.empty() ? s.index : s.arr[0];
    for (size_t j = 0; j < targets.size(); ++j) {
      const int64_t t = targets[j] < 0 ? targets[j] + x[d] : targets[j];
      for (size_t l = 0; l < map.size(); ++l) {
        std::vector<int64_t> o = unravel(static_cast<int64_t>(l), x);
        if (o[d] != t) continue;
        o[d] = static_cast<int64_t>(j);
        map[l] = k == "index_copy" ? std::pair<int, double>{1, static_cast<double>(linear(o, s.source_shape))}
                                   : std::pair<int, double>{-1, round_to(out_dt, s.scalars[0])};
      }
    }
    src = [map](const std::vector<int64_t> &, int64_t lin) { return map[static_cast<size_t>(lin)]; };
  } else if (k == "repeat_interleave_tensor") {
    const bool indices_only = c.index_name.empty(), with_dim = !indices_only && s.ints.size() == 2;
    const int64_t out_size = s.ints.back();
    std::vector<int64_t> map;
    const int64_t sources = indices_only ? numel_of(x) : with_dim ? x[static_cast<size_t>(wrap(s.ints[0], nd))]
                                                                  : numel_of(x);
    for (int64_t i = 0; i < (indices_only ? static_cast<int64_t>(s.index.size()) : sources); ++i)
      for (int64_t r = 0; r < s.index[s.index.size() == 1 ? 0 : static_cast<size_t>(i)]; ++r) map.push_back(i);
    const size_t d = with_dim ? static_cast<size_t>(wrap(s.ints[0], nd)) : 0;
    if (with_dim) e.shape[d] = out_size;
    else e.shape = {out_size};
    src = [&, map, d, with_dim, indices_only](const std::vector<int64_t> &o, int64_t lin) {
      if (indices_only) return std::pair<int, double>{-1, static_cast<double>(map[static_cast<size_t>(lin)])};
      if (!with_dim) return std::pair<int, double>{0, static_cast<double>(map[static_cast<size_t>(lin)])};
      std::vector<int64_t> idx = o;
      idx[d] = map[static_cast<size_t>(o[d])];
      return from(idx);
    };
  } else if (k == "stack") {
    e.shape = s.shapes[0];
    const size_t d = static_cast<size_t>(wrap(s.ints[0], e.shape.size() + 1));
    e.shape.insert(e.shape.begin() + static_cast<long>(d), static_cast<int64_t>(s.shapes.size()));
    src = [&, d](const std::vector<int64_t> &o, int64_t) {
      std::vector<int64_t> idx = o;
      idx.erase(idx.begin() + static_cast<long>(d));
      return std::pair<int, double>{static_cast<int>(o[d]), static_cast<double>(linear(idx, s.shapes[0]))};
    };
  } else if (k == "gather_elements" || k == "take") {
    e.shape = s.index_shape;
    const bool take = k == "take";
    const size_t d = take ? 0 : static_cast<size_t>(wrap(s.ints[0], nd));
    src = [&, take, d](const std::vector<int64_t> &o, int64_t lin) {
      const int64_t v = s.index[static_cast<size_t>(lin)];
      if (take) return std::pair<int, double>{0, static_cast<double>(v < 0 ? v + numel_of(x) : v)};
      std::vector<int64_t> idx = o;
      idx[d] = v;
      return from(idx);
    };
  } else if (k == "eye") {
    e.shape = {s.ints[0], s.ints[1]};
    src = [](const std::vector<int64_t> &o, int64_t) { return std::pair<int, double>{-1, o[0] == o[1] ? 1.0 : 0.0}; };
  } else if (k == "linspace") {
    const double start = s.scalars[0], end = s.scalars[1];
    const int64_t n = s.ints[0];
    const double step = n > 1 ? (end - start) / static_cast<double>(n - 1) : 0;
    e.shape = {n};
    src = [=](const std::vector<int64_t> &, int64_t i) {
      const double v = i >= n / 2 ? end - step * static_cast<double>(n - i - 1) : start + static_cast<double>(i) * step;
      return std::pair<int, double>{-1, round_to(out_dt, v)};
    };
  } else if (k == "arange") {
    const double start = s.scalars[0], end = s.scalars[1], step = s.scalars[2];
    e.shape = {static_cast<int64_t>(std::ceil((end - start) / step))};
    src = [start, step, out_dt](const std::vector<int64_t> &, int64_t lin) {
      return std::pair<int, double>{-1, round_to(out_dt, start + static_cast<double>(lin) * step)};
    };
  } else {
    ADD_FAILURE() << "no reference for kind " << k;
    return e;
  }
  const int64_t n = numel_of(e.shape);
  for (int64_t lin = 0; lin < n; ++lin) {
    const auto [t, v] = src(unravel(lin, e.shape), lin);
    e.values.push_back(t < 0 ? v : round_to(out_dt, in[static_cast<size_t>(t)][static_cast<size_t>(v)]));
  }
  return e;
}

std::pair<double, double> value_range(aclDataType dt) {
  if (dt == ACL_BOOL) return {0, 1};
  if (dt == ACL_UINT8) return {0, 250};
  return {-120, 120};
}

// A view of `shape` stored in reversed dim order after an offset of 3 elements.
std::unique_ptr<DeviceTensor> strided_input(const std::vector<int64_t> &shape, aclDataType dt) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    strides[d] = acc;
    acc *= std::max<int64_t>(shape[d], 1);
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, 3, 3 + acc + 2);
}
// A view of `shape` with rows padded by 2 elements after an offset of 5 elements.
std::unique_ptr<DeviceTensor> padded_output(const std::vector<int64_t> &shape, aclDataType dt) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = acc;
    acc *= std::max<int64_t>(shape[d], 1) + (d + 1 == shape.size() ? 2 : 0);
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, 5, 5 + acc + 1);
}

// The call's arguments, owning the host objects (int lists, scalars, the tensor list).
struct Call {
  LayoutArgs a;
  std::vector<double> scalar_values;
  Call(const LayoutTableCase &c, const LayoutSample &s, aclTensor *self, const std::vector<aclTensor *> &list,
       aclTensor *out, aclTensor *index = nullptr, aclTensor *source = nullptr) {
    a.self = self;
    a.out = out;
    a.index = index;
    a.source = source;
    if (!s.shapes.empty() || !s.index_lists.empty()) {
      std::vector<aclTensor *> copies;
      for (aclTensor *t : list)
        copies.push_back(aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset,
                                         t->format, t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data));
      a.list = aclCreateTensorList(copies.data(), copies.size());
    }
    for (size_t k = 0; k < s.arr.size() && k < 2; ++k) a.arr[k] = aclCreateIntArray(s.arr[k].data(), s.arr[k].size());
    for (size_t k = 0; k < s.ints.size() && k < 4; ++k) a.i[k] = s.ints[k];
    scalar_values = s.scalars;
    const bool integral = std::all_of(s.scalars.begin(), s.scalars.end(), [](double v) { return v == std::round(v); });
    for (size_t k = 0; k < s.scalars.size() && k < 3; ++k) {
      if (integral) {
        int64_t v = static_cast<int64_t>(s.scalars[k]);
        a.s[k] = aclCreateScalar(&v, ACL_INT64);
      } else {
        a.s[k] = aclCreateScalar(&scalar_values[k], ACL_DOUBLE);
      }
    }
    (void)c;
  }
  ~Call() {
    if (a.list) aclDestroyTensorList(a.list);
    for (auto *p : a.arr)
      if (p) aclDestroyIntArray(p);
    for (auto *p : a.s)
      if (p) aclDestroyScalar(p);
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
};

// Inputs of a sample (self, or the list elements), random, contiguous or strided.
struct Inputs {
  std::vector<std::unique_ptr<DeviceTensor>> t;
  std::vector<aclTensor *> list;
  aclTensor *self = nullptr;
  std::vector<std::vector<double>> values;
  Inputs(const LayoutTableCase &c, const LayoutSample &s, aclDataType dt, bool strided,
         aclDataType index_dtype = ACL_INT64) {
    const auto [lo, hi] = value_range(dt);
    std::vector<std::vector<int64_t>> shapes = s.shapes;
    const bool has_self = !no_input(c) && s.shapes.empty();
    if (has_self) shapes = {s.shape};
    for (const auto &sh : shapes) {
      t.push_back(strided ? strided_input(sh, dt) : std::make_unique<DeviceTensor>(sh, dt));
      t.back()->fill_random(lo, hi);
      values.push_back(t.back()->values());
      list.push_back(t.back()->get());
    }
    if (has_self) self = t[0]->get();
    if (has_self) list.clear();
    for (size_t j = 0; j < s.index_lists.size(); ++j) {  // index tensors (INT64, or index_dtype strided)
      index_list_t.push_back(std::make_unique<DeviceTensor>(s.index_list_shapes[j], index_dtype));
      index_list_t.back()->set_values(std::vector<double>(s.index_lists[j].begin(), s.index_lists[j].end()));
      list.push_back(index_list_t.back()->get());
    }
    if (c.kind == "repeat_interleave_tensor" && c.index_name.empty()) {  // self holds the repeats
      t[0]->set_values(std::vector<double>(s.index.begin(), s.index.end()));
      values[0] = t[0]->values();
    }
    if (!c.index_name.empty()) {
      index_t = std::make_unique<DeviceTensor>(s.index_shape, index_dtype);
      index_t->set_values(std::vector<double>(s.index.begin(), s.index.end()));
      index = index_t->get();
    }
    if (!c.source_name.empty()) {
      source_t = strided ? strided_input(s.source_shape, dt) : std::make_unique<DeviceTensor>(s.source_shape, dt);
      source_t->fill_random(lo, hi);
      values.push_back(source_t->values());
      source = source_t->get();
    }
  }
  std::unique_ptr<DeviceTensor> index_t, source_t;
  std::vector<std::unique_ptr<DeviceTensor>> index_list_t;
  aclTensor *index = nullptr, *source = nullptr;
};

// Runs one valid sample and compares exactly.
// `out_offset` >= 0 (with strided false): the output is a contiguous view that many elements into
// its storage instead of the storage itself.
void check_sample(const LayoutTableCase &c, const LayoutSample &s, aclDataType in_dt, aclDataType out_dt,
                  bool strided, int64_t out_offset = -1) {
  Inputs in(c, s, in_dt, strided, strided ? ACL_INT32 : ACL_INT64);
  const Expected e = reference(c, s, in.values, out_dt);
  auto out = strided          ? padded_output(e.shape, out_dt)
             : out_offset < 0 ? std::make_unique<DeviceTensor>(e.shape, out_dt)
                              : std::make_unique<DeviceTensor>(e.shape, out_dt, contiguous_strides(e.shape), out_offset,
                                                               out_offset + numel_of(e.shape) + 3);
  out->poison();
  Call call(c, s, in.self, in.list, *out, in.index, in.source);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(call.a, w, x); }, c.launch), 0)
      << aclGetRecentErrMsg();
  if (c.kind == "circular_pad_grad") EXPECT_TRUE(meets_precision(out_dt, out->values(), e.values));  // sums
  else EXPECT_EQ(out->values(), e.values);
  EXPECT_TRUE(out->untouched_outside_view());
}

// ---- Split (an output tensor list) and search (Bucketize, SearchSorted(s)): their own suites. ----

int64_t random_int(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }

// A tensor list holding copies of the descriptors (the list owns its elements).
aclTensorList *list_of(const std::vector<aclTensor *> &ts) {
  std::vector<aclTensor *> copies;
  for (aclTensor *t : ts)
    copies.push_back(aclCreateTensor(t->dims, static_cast<uint64_t>(t->ndim), t->dtype, t->strides, t->offset,
                                     t->format, t->storage_dims, static_cast<uint64_t>(t->storage_ndim), t->data));
  return aclCreateTensorList(copies.data(), copies.size());
}

// torch.split's chunk sizes along the sample's dim (SplitWithSize: the sizes; SplitTensor: full
// chunks of splitSections and a smaller last one; one empty chunk for an empty dim).
std::pair<size_t, std::vector<int64_t>> split_chunks(const LayoutTableCase &c, const LayoutSample &s) {
  const bool with_sizes = !c.arr_names.empty();
  const size_t d = static_cast<size_t>(wrap(with_sizes ? s.ints[0] : s.ints[1], s.shape.size()));
  if (with_sizes) return {d, s.arr[0]};
  const int64_t n = s.shape[d], step = s.ints[0];
  std::vector<int64_t> sizes;
  if (n == 0) sizes.push_back(0);
  for (int64_t at = 0; at < n; at += step) sizes.push_back(std::min(step, n - at));
  return {d, sizes};
}

void check_split(const LayoutTableCase &c, const LayoutSample &s, aclDataType dt, bool strided) {
  Inputs in(c, s, dt, strided);
  const auto [d, sizes] = split_chunks(c, s);
  std::vector<std::unique_ptr<DeviceTensor>> outs;
  std::vector<aclTensor *> ptrs;
  for (int64_t len : sizes) {
    std::vector<int64_t> shape = s.shape;
    shape[d] = len;
    outs.push_back(strided ? padded_output(shape, dt) : std::make_unique<DeviceTensor>(shape, dt));
    outs.back()->poison();
    ptrs.push_back(outs.back()->get());
  }
  Call call(c, s, in.self, {}, nullptr);
  call.a.list = list_of(ptrs);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(call.a, w, x); }, c.launch), 0)
      << aclGetRecentErrMsg();
  int64_t at = 0;
  for (size_t k = 0; k < outs.size(); ++k) {
    std::vector<int64_t> shape = s.shape;
    shape[d] = sizes[k];
    std::vector<double> want;
    for (int64_t lin = 0; lin < numel_of(shape); ++lin) {
      std::vector<int64_t> idx = unravel(lin, shape);
      idx[d] += at;
      want.push_back(in.values[0][static_cast<size_t>(linear(idx, s.shape))]);
    }
    EXPECT_EQ(outs[k]->values(), want) << "chunk " << k;
    EXPECT_TRUE(outs[k]->untouched_outside_view()) << "chunk " << k;
    at += sizes[k];
  }
}

void split_errors(const LayoutTableCase &c) {
  const char *api = c.api.c_str();
  const LayoutSample &s = c.sample;
  const aclDataType dt = c.dtypes.front();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Inputs in(c, s, dt, false);
  const auto [d, sizes] = split_chunks(c, s);
  std::vector<std::unique_ptr<DeviceTensor>> outs;
  std::vector<aclTensor *> ptrs;
  for (int64_t len : sizes) {
    std::vector<int64_t> shape = s.shape;
    shape[d] = len;
    outs.push_back(std::make_unique<DeviceTensor>(shape, dt));
    ptrs.push_back(outs.back()->get());
  }
  auto call_with = [&](aclTensor *self, aclTensorList *list, const LayoutSample *sample = nullptr) {
    auto call = std::make_unique<Call>(c, sample ? *sample : s, self, std::vector<aclTensor *>{}, nullptr);
    call->a.list = list;
    return call;
  };
  {
    auto call = call_with(nullptr, list_of(ptrs));
    EXPECT_TRUE(fails_with(c.phase1(call->a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.self_name.c_str()}));
  }
  {
    auto call = call_with(in.self, nullptr);
    EXPECT_TRUE(fails_with(c.phase1(call->a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.out_name.c_str()}));
  }
  for (size_t k = 0; k < c.arr_names.size(); ++k) {
    auto call = call_with(in.self, list_of(ptrs));
    aclDestroyIntArray(call->a.arr[k]);
    call->a.arr[k] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(call->a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.arr_names[k].c_str()}));
  }
  {  // one chunk too many, one too few
    DeviceTensor extra(s.shape, dt);
    std::vector<aclTensor *> more = ptrs;
    more.push_back(extra);
    auto call = call_with(in.self, list_of(more));
    EXPECT_TRUE(fails_with(c.phase1(call->a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str()}));
    std::vector<aclTensor *> fewer(ptrs.begin(), ptrs.end() - 1);
    auto call2 = call_with(in.self, list_of(fewer));
    EXPECT_TRUE(fails_with(c.phase1(call2->a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str()}));
  }
  {  // the last chunk with a wrong shape, then a wrong dtype
    std::vector<int64_t> bad = s.shape;
    bad[d] = sizes.back() + 1;
    DeviceTensor wrong(bad, dt);
    std::vector<aclTensor *> v = ptrs;
    v.back() = wrong;
    auto call = call_with(in.self, list_of(v));
    EXPECT_TRUE(fails_with(c.phase1(call->a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str()}));
    std::vector<int64_t> good = s.shape;
    good[d] = sizes.back();
    DeviceTensor wrong_dt(good, dt == ACL_DOUBLE ? ACL_FLOAT : ACL_DOUBLE);
    v.back() = wrong_dt;
    auto call2 = call_with(in.self, list_of(v));
    EXPECT_TRUE(fails_with(c.phase1(call2->a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
  for (const auto &[word, r] : c.rejects) {
    SCOPED_TRACE(::testing::Message() << "reject " << word);
    Inputs rin(c, r, dt, false);
    DeviceTensor o(r.shape, dt);
    auto call = call_with(rin.self, list_of({o.get()}), &r);
    EXPECT_TRUE(fails_with(c.phase1(call->a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, word.c_str()}));
  }
}

// The search tensors of a sample: values (unless the op takes a scalar), the sequence (each row
// ascending through the sorter when there is one: seq[row, sorter[row, j]] is the j-th smallest),
// the sorter, and the expected insertion points.
struct SearchSetup {
  std::unique_ptr<DeviceTensor> vals, seq, sorter;
  std::vector<double> expected;
  std::vector<int64_t> out_shape;
};
SearchSetup search_setup(const LayoutTableCase &c, const LayoutSample &s, aclDataType val_dt, aclDataType seq_dt,
                         bool strided) {
  SearchSetup st;
  const bool scalar = !c.s_names.empty();
  const auto &ss = s.source_shape;
  const int64_t n = ss.empty() ? 1 : ss.back(), rows = n > 0 ? numel_of(ss) / n : 0;
  auto make = [&](const std::vector<int64_t> &shape, aclDataType dt) {
    return strided ? strided_input(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
  };
  // Sorted keys per row: small integers with repeats.
  std::vector<std::vector<double>> keys(static_cast<size_t>(rows));
  std::vector<double> seqv(static_cast<size_t>(numel_of(ss)), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    auto &kr = keys[static_cast<size_t>(r)];
    for (int64_t j = 0; j < n; ++j) kr.push_back(static_cast<double>(random_int(0, 10)));
    std::sort(kr.begin(), kr.end());
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = s.index.empty() ? j : s.index[static_cast<size_t>(r * n + j)];
      seqv[static_cast<size_t>(r * n + at)] = kr[static_cast<size_t>(j)];
    }
  }
  st.seq = make(ss, seq_dt);
  st.seq->set_values(seqv);
  if (!s.index.empty()) {
    st.sorter = std::make_unique<DeviceTensor>(s.index_shape, ACL_INT64);
    st.sorter->set_values(std::vector<double>(s.index.begin(), s.index.end()));
  }
  std::vector<double> v;
  if (scalar) {
    st.out_shape = {};
    v = {s.scalars[0]};
  } else {
    st.out_shape = s.shape;
    const bool fl = is_float(val_dt);
    for (int64_t k = 0; k < numel_of(s.shape); ++k)
      v.push_back(static_cast<double>(random_int(-2, 12)) + (fl && random_int(0, 1) ? 0.5 : 0.0));
    if (fl && !v.empty()) v[v.size() / 2] = std::nan("");  // no key compares with NaN: the end
    if (fl && v.size() >= 3) {  // the infinities: before every key, after every key
      v.front() = -std::numeric_limits<double>::infinity();
      v.back() = std::numeric_limits<double>::infinity();
    }
    st.vals = make(s.shape, val_dt);
    st.vals->set_values(v);
    v = st.vals->values();
  }
  const bool right = s.ints[1] != 0;
  const int64_t per_row = ss.size() > 1 && rows > 0 ? static_cast<int64_t>(v.size()) / rows : 0;
  for (size_t q = 0; q < v.size(); ++q) {
    const auto &kr = keys[ss.size() > 1 ? static_cast<size_t>(static_cast<int64_t>(q) / per_row) : 0];
    int64_t j = 0;  // the first key >= v (right: > v), else n
    while (j < n && !(right ? kr[static_cast<size_t>(j)] > v[q] : kr[static_cast<size_t>(j)] >= v[q])) ++j;
    st.expected.push_back(static_cast<double>(j));
  }
  return st;
}

// The search call's arguments (sorter in the index slot, the sequence in the source slot).
int search_phase1(const LayoutTableCase &c, Call &call, aclTensor *vals, aclTensor *seq, aclTensor *sorter,
                  aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {
  call.a.self = vals;
  call.a.source = seq;
  call.a.index = sorter;
  call.a.out = out;
  return c.phase1(call.a, ws, ex);
}

void check_search(const LayoutTableCase &c, const LayoutSample &s, aclDataType val_dt, aclDataType seq_dt,
                  bool strided) {
  SearchSetup st = search_setup(c, s, val_dt, seq_dt, strided);
  const aclDataType odt = s.ints[0] ? ACL_INT32 : ACL_INT64;
  auto out = strided ? padded_output(st.out_shape, odt) : std::make_unique<DeviceTensor>(st.out_shape, odt);
  out->poison();
  Call call(c, s, nullptr, {}, nullptr);
  ASSERT_EQ(run_op(
                [&](uint64_t *w, aclOpExecutor **x) {
                  return search_phase1(c, call, st.vals ? st.vals->get() : nullptr, *st.seq,
                                       st.sorter ? st.sorter->get() : nullptr, *out, w, x);
                },
                c.launch),
            0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(out->values(), st.expected);
  EXPECT_TRUE(out->untouched_outside_view());
}

void search_errors(const LayoutTableCase &c) {
  const char *api = c.api.c_str();
  const LayoutSample &s = c.sample;
  const aclDataType dt = ACL_FLOAT;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  SearchSetup st = search_setup(c, s, dt, dt, false);
  const aclDataType odt = s.ints[0] ? ACL_INT32 : ACL_INT64;
  DeviceTensor out(st.out_shape, odt);
  aclTensor *vals = st.vals ? st.vals->get() : nullptr, *sorter = st.sorter ? st.sorter->get() : nullptr;
  auto fails = [&](aclTensor *v, aclTensor *q, aclTensor *so, aclTensor *o, int code, const char *word,
                   bool null_scalar = false) {
    Call call(c, s, nullptr, {}, nullptr);
    if (null_scalar) {
      aclDestroyScalar(call.a.s[0]);
      call.a.s[0] = nullptr;
    }
    return fails_with(search_phase1(c, call, v, q, so, o, &ws, &ex), code, {api, word});
  };
  if (vals) EXPECT_TRUE(fails(nullptr, *st.seq, sorter, out, ACLNN_ERR_PARAM_NULLPTR, c.self_name.c_str()));
  else EXPECT_TRUE(fails(nullptr, *st.seq, sorter, out, ACLNN_ERR_PARAM_NULLPTR, c.s_names[0].c_str(), true));
  EXPECT_TRUE(fails(vals, nullptr, sorter, out, ACLNN_ERR_PARAM_NULLPTR, c.source_name.c_str()));
  EXPECT_TRUE(fails(vals, *st.seq, sorter, nullptr, ACLNN_ERR_PARAM_NULLPTR, c.out_name.c_str()));
  {  // the output: the other index dtype, a floating dtype, a wrong shape
    DeviceTensor o1(st.out_shape, odt == ACL_INT32 ? ACL_INT64 : ACL_INT32), o2(st.out_shape, ACL_FLOAT);
    EXPECT_TRUE(fails(vals, *st.seq, sorter, o1, ACLNN_ERR_PARAM_INVALID, "dtype"));
    EXPECT_TRUE(fails(vals, *st.seq, sorter, o2, ACLNN_ERR_PARAM_INVALID, "dtype"));
    std::vector<int64_t> bad = st.out_shape;
    bad.push_back(2);
    DeviceTensor o3(bad, odt);
    EXPECT_TRUE(fails(vals, *st.seq, sorter, o3, ACLNN_ERR_PARAM_INVALID, c.out_name.c_str()));
  }
  for (aclDataType bad : {ACL_BOOL}) {  // dtypes outside the rule, for the sequence and the values
    DeviceTensor q(s.source_shape, bad);
    EXPECT_TRUE(fails(vals, q, sorter, out, ACLNN_ERR_PARAM_INVALID, "dtype"));
    if (vals) {
      DeviceTensor v(s.shape, bad);
      EXPECT_TRUE(fails(v, *st.seq, sorter, out, ACLNN_ERR_PARAM_INVALID, "dtype"));
    }
  }
  if (!c.index_name.empty()) {  // the sorter: INT32, and a wrong shape
    DeviceTensor s32(s.source_shape, ACL_INT32);
    EXPECT_TRUE(fails(vals, *st.seq, s32, out, ACLNN_ERR_PARAM_INVALID, c.index_name.c_str()));
    std::vector<int64_t> bad = s.source_shape;
    bad.back() += 1;
    DeviceTensor sb(bad, ACL_INT64);
    EXPECT_TRUE(fails(vals, *st.seq, sb, out, ACLNN_ERR_PARAM_INVALID, c.index_name.c_str()));
  }
  for (const auto &[word, r] : c.rejects) {
    SCOPED_TRACE(::testing::Message() << "reject " << word);
    DeviceTensor q(r.source_shape, dt), o(r.shape, ACL_INT64);
    std::unique_ptr<DeviceTensor> v;
    if (vals) v = std::make_unique<DeviceTensor>(r.shape, dt);
    Call call(c, r, nullptr, {}, nullptr);
    EXPECT_TRUE(fails_with(search_phase1(c, call, v ? v->get() : nullptr, q, nullptr, o, &ws, &ex),
                           ACLNN_ERR_PARAM_INVALID, {api, word.c_str()}));
  }
}

// A sorter value outside [0, N) fails the launch with 161002; nothing is written.
void search_sorter_checked_at_launch(const LayoutTableCase &c) {
  if (c.sample.index.empty()) return;
  for (int64_t bad : {c.sample.source_shape.back(), int64_t{-1}}) {
    LayoutSample s = c.sample;
    s.index.back() = bad;
    SearchSetup st = search_setup(c, c.sample, ACL_FLOAT, ACL_FLOAT, false);
    st.sorter->set_values(std::vector<double>(s.index.begin(), s.index.end()));
    DeviceTensor out(st.out_shape, s.ints[0] ? ACL_INT32 : ACL_INT64);
    out.poison();
    Call call(c, s, nullptr, {}, nullptr);
    EXPECT_EQ(run_op(
                  [&](uint64_t *w, aclOpExecutor **x) {
                    return search_phase1(c, call, st.vals ? st.vals->get() : nullptr, *st.seq, *st.sorter, out, w, x);
                  },
                  c.launch),
              ACLNN_ERR_PARAM_INVALID)
        << bad;
    EXPECT_TRUE(out.untouched_outside_view());
  }
}

aclDataType input_dtype(const LayoutTableCase &c) { return no_input(c) ? ACL_FLOAT : c.dtypes.front(); }

class OpTableLayout : public ::testing::TestWithParam<LayoutTableCase> {};

TEST_P(OpTableLayout, EveryDtypeContiguous) {
  reseed_for_current_test();
  const LayoutTableCase &c = GetParam();
  if (c.kind == "split" || c.kind == "search") {
    for (aclDataType dt : c.dtypes) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
      if (c.kind == "split") check_split(c, c.sample, dt, false);
      else check_search(c, c.sample, dt, dt, false);
    }
    return;
  }
  for (aclDataType dt : c.dtypes) {
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
    check_sample(c, c.sample, no_input(c) ? ACL_FLOAT : dt, dt, false);
  }
}

TEST_P(OpTableLayout, StridedViews) {
  reseed_for_current_test();
  const LayoutTableCase &c = GetParam();
  if (c.kind == "split" || c.kind == "search") {
    for (aclDataType dt : {ACL_FLOAT16, ACL_BF16, ACL_INT64, ACL_BOOL}) {
      if (std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) continue;
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
      if (c.kind == "split") check_split(c, c.sample, dt, true);
      else check_search(c, c.sample, dt, dt, true);
    }
    if (c.kind == "search") {  // mixed dtypes compare in the promoted one (x.5 values against integers)
      SCOPED_TRACE(::testing::Message() << c.name << " FLOAT values, INT32 sequence");
      check_search(c, c.sample, ACL_FLOAT, ACL_INT32, true);
      SCOPED_TRACE(::testing::Message() << c.name << " INT64 values, FLOAT16 sequence");
      check_search(c, c.sample, ACL_INT64, ACL_FLOAT16, false);
    }
    return;
  }
  for (aclDataType dt : {ACL_FLOAT16, ACL_INT64, ACL_BOOL}) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) continue;
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
    check_sample(c, c.sample, no_input(c) ? ACL_FLOAT : dt, dt, true);
  }
  if (c.out_castable) {  // a wider output dtype
    SCOPED_TRACE(::testing::Message() << c.name << " FLOAT16 into FLOAT");
    check_sample(c, c.sample, ACL_FLOAT16, ACL_FLOAT, true);
  }
}

// The in-place twins (the rows with one).
class OpTableLayoutInPlace : public ::testing::TestWithParam<LayoutTableCase> {};
const std::vector<LayoutTableCase> &inplace_cases() {
  static const std::vector<LayoutTableCase> c = [] {
    std::vector<LayoutTableCase> v;
    for (const auto &x : all_cases())
      if (x.inplace_phase1 != nullptr) v.push_back(x);
    return v;
  }();
  return c;
}

TEST_P(OpTableLayoutInPlace, OnStridedView) {
  reseed_for_current_test();
  const LayoutTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
    Inputs in(c, c.sample, dt, true);
    const Expected e = reference(c, c.sample, in.values, dt);
    Call call(c, c.sample, in.self, in.list, nullptr, in.index, in.source);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.inplace_phase1(call.a, w, x); }, c.inplace_launch),
              0)
        << aclGetRecentErrMsg();
    EXPECT_EQ(in.t[0]->values(), e.values);
    EXPECT_TRUE(in.t[0]->untouched_outside_view());
  }
}

TEST_P(OpTableLayout, ErrorsNameTheArgument) {
  const LayoutTableCase &c = GetParam();
  if (c.kind == "split") return split_errors(c);
  if (c.kind == "search") return search_errors(c);
  const aclDataType dt = input_dtype(c);
  const aclDataType odt = c.dtypes.front();
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Inputs in(c, c.sample, dt, false);
  const Expected e = reference(c, c.sample, in.values, odt);
  DeviceTensor out(e.shape, odt);
  if (!no_input(c)) {  // the input, null
    Call call(c, c.sample, nullptr, in.list, out, in.index, in.source);
    if (call.a.list) {
      aclDestroyTensorList(call.a.list);
      call.a.list = nullptr;
    }
    const std::string name = c.sample.shapes.empty() ? c.self_name : "tensors";
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name.c_str()}));
  }
  {  // the output, null
    Call call(c, c.sample, in.self, in.list, nullptr, in.index, in.source);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.out_name.c_str()}));
  }
  if (!c.index_name.empty()) {  // the index, null and of a floating dtype
    Call call(c, c.sample, in.self, in.list, out, nullptr, in.source);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.index_name.c_str()}));
    DeviceTensor fidx(c.sample.index_shape, ACL_FLOAT);
    Call fcall(c, c.sample, in.self, in.list, out, fidx, in.source);
    EXPECT_TRUE(fails_with(c.phase1(fcall.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.index_name.c_str()}));
  }
  if (!c.sample.index_lists.empty()) {  // the list of index tensors, null
    Call call(c, c.sample, in.self, in.list, out, in.index, in.source);
    aclDestroyTensorList(call.a.list);
    call.a.list = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "indices"}));
  }
  if (!c.source_name.empty()) {  // the source, null
    Call call(c, c.sample, in.self, in.list, out, in.index, nullptr);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.source_name.c_str()}));
  }
  for (size_t k = 0; k < c.arr_names.size(); ++k) {  // each int list, null
    Call call(c, c.sample, in.self, in.list, out, in.index, in.source);
    aclDestroyIntArray(call.a.arr[k]);
    call.a.arr[k] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.arr_names[k].c_str()}));
  }
  for (size_t k = 0; k < c.s_names.size(); ++k) {  // each scalar, null
    Call call(c, c.sample, in.self, in.list, out, in.index, in.source);
    aclDestroyScalar(call.a.s[k]);
    call.a.s[k] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.s_names[k].c_str()}));
  }
  {  // a wrong output shape
    std::vector<int64_t> bad = e.shape;
    if (bad.empty()) bad = {2};
    else bad[0] += 1;
    DeviceTensor o(bad, odt);
    Call call(c, c.sample, in.self, in.list, o, in.index, in.source);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str()}));
  }
  if (!no_input(c)) {  // a wrong output dtype
    const aclDataType bad = c.out_castable ? (is_float(dt) ? ACL_INT32 : ACL_BOOL) : (dt == ACL_DOUBLE ? ACL_FLOAT : ACL_DOUBLE);
    if (!(c.out_castable && dt == ACL_BOOL)) {
      DeviceTensor o(e.shape, bad);
      Call call(c, c.sample, in.self, in.list, o, in.index, in.source);
      EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
    }
  }
  // Input (arange: output) dtypes outside the rule.
  for (aclDataType bad : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64,
                          ACL_UINT8, ACL_BOOL}) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), bad) != c.dtypes.end()) continue;
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    Inputs bin(c, c.sample, no_input(c) ? ACL_FLOAT : bad, false);
    DeviceTensor o(e.shape, bad);
    Call call(c, c.sample, bin.self, bin.list, o, bin.index, bin.source);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
  // The rows' rejected parameters (the output gets the input's shape: the parameters are at fault).
  for (const auto &[word, s] : c.rejects) {
    SCOPED_TRACE(::testing::Message() << "reject " << word);
    Inputs rin(c, s, dt, false);
    DeviceTensor o(s.shape.empty() && !s.shapes.empty() ? s.shapes[0] : s.shape, odt);
    Call call(c, s, rin.self, rin.list, o, rin.index, rin.source);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, word.c_str()}));
  }
}

// Device indices out of range (and negative repeats) fail the launch with 161002, never reading or
// writing outside the tensors.
TEST_P(OpTableLayout, IndexValuesCheckedAtLaunch) {
  const LayoutTableCase &c = GetParam();
  if (c.kind == "split") return;
  if (c.kind == "search") return search_sorter_checked_at_launch(c);
  const bool repeats = c.kind == "repeat_interleave_tensor";
  if (!c.sample.index_lists.empty() && !c.sample.index_lists[0].empty()) {  // a list of index tensors
    for (int64_t bad : {1000, -1000}) {
      LayoutSample s = c.sample;
      s.index_lists[0].back() = bad;
      Inputs in(c, s, c.dtypes.front(), false);
      const Expected e = reference(c, c.sample, Inputs(c, c.sample, c.dtypes.front(), false).values, c.dtypes.front());
      DeviceTensor out(e.shape, c.dtypes.front());
      out.poison();
      Call call(c, s, in.self, in.list, out);
      EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(call.a, w, x); }, c.launch),
                ACLNN_ERR_PARAM_INVALID) << bad;
      EXPECT_TRUE(out.untouched_outside_view());
    }
    return;
  }
  if ((c.index_name.empty() && !repeats) || c.sample.index.empty()) return;
  const aclDataType dt = c.dtypes.front();
  LayoutSample s = c.sample;
  const int64_t d = s.ints.empty() || repeats ? 0 : wrap(s.ints[0], s.shape.size());
  const int64_t bound = c.kind == "take" || s.shape.empty() ? numel_of(s.shape) : s.shape[static_cast<size_t>(d)];
  const bool wraps = c.kind == "take" || c.kind == "index_fill" || c.kind == "gather_nd";  // may count from the end
  const bool nd = c.kind == "gather_nd" || c.kind == "scatter_nd";  // any value beyond every dim will do
  const int64_t big = nd ? 1000 : bound;
  for (int64_t bad : repeats ? std::vector<int64_t>{-1} : std::vector<int64_t>{big, wraps ? -big - 1 : -1}) {
    SCOPED_TRACE(::testing::Message() << c.name << " index value " << bad);
    s.index.back() = bad;
    Inputs in(c, s, dt, false);
    const Expected e = reference(c, c.sample, Inputs(c, c.sample, dt, false).values, dt);
    DeviceTensor out(e.shape, dt);
    out.poison();
    Call call(c, s, in.self, in.list, out, in.index, in.source);
    const int rc = run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(call.a, w, x); }, c.launch);
    EXPECT_EQ(rc, ACLNN_ERR_PARAM_INVALID) << aclGetRecentErrMsg();
    EXPECT_TRUE(out.untouched_outside_view());
  }
}

// The in-place-only ops (no out-of-place form to run the suites above): their errors, with the code
// and the argument named, and their device indices checked at launch.
TEST_P(OpTableLayoutInPlace, InPlaceOnlyErrors) {
  const LayoutTableCase &c = GetParam();
  if (c.phase1 != nullptr) return;  // covered by OpTableLayout
  const aclDataType dt = c.dtypes.front();
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Inputs in(c, c.sample, dt, false);
  auto fails = [&](const LayoutArgs &a, int code, const char *word) {
    return fails_with(c.inplace_phase1(a, &ws, &ex), code, {api, word});
  };
  {
    Call call(c, c.sample, nullptr, in.list, nullptr, in.index, in.source);
    EXPECT_TRUE(fails(call.a, ACLNN_ERR_PARAM_NULLPTR, c.self_name.c_str()));
  }
  if (!c.index_name.empty()) {
    Call call(c, c.sample, in.self, in.list, nullptr, nullptr, in.source);
    EXPECT_TRUE(fails(call.a, ACLNN_ERR_PARAM_NULLPTR, c.index_name.c_str()));
  }
  if (!c.source_name.empty()) {
    Call call(c, c.sample, in.self, in.list, nullptr, in.index, nullptr);
    EXPECT_TRUE(fails(call.a, ACLNN_ERR_PARAM_NULLPTR, c.source_name.c_str()));
  }
  if (!c.sample.index_lists.empty()) {
    Call call(c, c.sample, in.self, in.list, nullptr, in.index, in.source);
    aclDestroyTensorList(call.a.list);
    call.a.list = nullptr;
    EXPECT_TRUE(fails(call.a, ACLNN_ERR_PARAM_NULLPTR, "indices"));
  }
  for (const auto &[word, s] : c.rejects) {
    SCOPED_TRACE(::testing::Message() << "reject " << word);
    Inputs rin(c, s, dt, false);
    Call call(c, s, rin.self, rin.list, nullptr, rin.index, rin.source);
    EXPECT_TRUE(fails(call.a, ACLNN_ERR_PARAM_INVALID, word.c_str()));
  }
  LayoutSample s = c.sample;  // an index out of range fails the launch, nothing written
  auto &v = s.index_lists.empty() ? s.index : s.index_lists[0];
  if (v.empty()) return;
  v.back() = 1000;
  Inputs bad(c, s, dt, false);
  Call call(c, s, bad.self, bad.list, nullptr, bad.index, bad.source);
  EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.inplace_phase1(call.a, w, x); }, c.inplace_launch),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(bad.t[0]->untouched_outside_view());
}

// Random geometry for the split, search, narrow, diag and circular pad rows (beyond the table's
// samples): each row's first case with random shapes, dims and parameters, every dtype.
const LayoutTableCase *case_of(const std::string &api) {
  static const std::vector<LayoutTableCase> every = layout_table_cases();
  for (const auto &c : every)
    if (c.api == api) return &c;
  return nullptr;
}
std::vector<int64_t> random_shape(int nd, int64_t lo, int64_t hi) {
  std::vector<int64_t> v;
  for (int k = 0; k < nd; ++k) v.push_back(random_int(lo, hi));
  return v;
}

// Permutes whose output exceeds the streaming threshold (kernels/elementwise/stream_copy.h, at
// most 16 MiB): the 2-D transpose's 16 x 16 blocks leave with streaming stores into an aligned
// output, with plain stores into a padded one at an offset; the heads permute moves 256-byte rows.
TEST(OpTableLayoutLarge, PermutesAboveTheStreamingThreshold) {
  reseed_for_current_test();
  const LayoutTableCase *c = case_of("aclnnPermute");
  ASSERT_NE(c, nullptr);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> perms = {
      {{2100, 2100}, {1, 0}}, {{4, 512, 34, 64}, {0, 2, 1, 3}}};
  for (const auto &[shape, dims] : perms)
    for (bool strided : {false, true}) {
      SCOPED_TRACE(::testing::Message() << ::testing::PrintToString(shape) << " strided " << strided);
      LayoutSample s = c->sample;
      s.shape = shape;
      s.arr = {dims};
      check_sample(*c, s, ACL_FLOAT, ACL_FLOAT, strided);
    }
}

// Permutes of rows (an innermost dim contiguous on both sides) whose output exceeds the streaming
// threshold: rows of whole 64-byte lines stream in tiles of one output position by up to 256 rows
// (300 rows along the input's nearest dim: a tile edge), unless the output's base is not 64-byte
// aligned at launch (an offset of 4 elements; 16 elements is aligned); rows of 160 bytes keep
// plain stores. The test above covers padded outputs.
TEST(OpTableLayoutLarge, PermutedRowsStreamedInWholeLines) {
  reseed_for_current_test();
  const LayoutTableCase *c = case_of("aclnnPermute");
  ASSERT_NE(c, nullptr);
  struct Case {
    std::vector<int64_t> shape, dims;
    int64_t out_offset;
  };
  const std::vector<Case> cases = {{{2, 260, 300, 32}, {0, 2, 1, 3}, -1},  {{2, 260, 300, 32}, {0, 2, 1, 3}, 16},
                                   {{2, 260, 300, 32}, {0, 2, 1, 3}, 4},   {{2, 50, 9, 300, 16}, {1, 0, 3, 2, 4}, -1},
                                   {{8, 512, 40, 40}, {0, 2, 1, 3}, -1},   {{4, 512, 34, 64}, {0, 2, 1, 3}, 4}};
  for (const Case &k : cases) {
    SCOPED_TRACE(::testing::Message() << ::testing::PrintToString(k.shape) << " -> " << ::testing::PrintToString(k.dims)
                                      << " output offset " << k.out_offset);
    LayoutSample s = c->sample;
    s.shape = k.shape;
    s.arr = {k.dims};
    check_sample(*c, s, ACL_FLOAT, ACL_FLOAT, false, k.out_offset);
  }
}

// Transposes through the blocked kernels (kernels/layout/transpose_tile.h: register blocks of 16 x
// 16 / 8 x 8, tiles of 512 source rows) for every dtype of each element size: sizes that leave
// edges on both sides of the blocks and of the tiles, shorter than one block, batched [B, M, N] ->
// [B, N, M], and padded inputs / outputs.
TEST(OpTableLayoutLarge, TransposesInBlocksEveryElementSize) {
  reseed_for_current_test();
  const LayoutTableCase *c = case_of("aclnnPermute");
  ASSERT_NE(c, nullptr);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> perms = {
      {{1030, 70}, {1, 0}}, {{70, 1030}, {1, 0}}, {{16, 16}, {1, 0}}, {{5, 300}, {1, 0}}, {{300, 5}, {1, 0}},
      {{3, 67, 45}, {0, 2, 1}}, {{2, 33, 48}, {0, 2, 1}}, {{17, 2, 40}, {2, 1, 0}}};
  for (auto [isa, kernels] : {std::pair<const char *, const char *>{"avx512", nullptr}, {"avx2", nullptr},
                              {"portable", nullptr}, {nullptr, "reference"}}) {
    core::reset_kernel_env_for_testing(isa, kernels);
    for (aclDataType dt : c->dtypes)
      for (const auto &[shape, dims] : perms)
        for (bool strided : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "OPSNN_MAX_ISA=" << (isa ? isa : "-") << " OPSNN_KERNELS="
                                            << (kernels ? kernels : "-") << " " << dt << " "
                                            << ::testing::PrintToString(shape) << " strided " << strided);
          LayoutSample s = c->sample;
          s.shape = shape;
          s.arr = {dims};
          check_sample(*c, s, dt, dt, strided);
        }
  }
  core::reset_kernel_env_for_testing(std::getenv("OPSNN_MAX_ISA"), std::getenv("OPSNN_KERNELS"));
}

TEST(OpTableLayoutRandom, SplitNarrowDiagCircularPadSearch) {
  reseed_for_current_test();
  for (int iter = 0; iter < 6; ++iter) {
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);
    {
      const LayoutTableCase *c = case_of("aclnnSplitTensor");
      ASSERT_NE(c, nullptr);
      LayoutSample s = c->sample;
      s.shape = random_shape(static_cast<int>(random_int(1, 4)), 0, 7);
      const int64_t d = random_int(0, static_cast<int64_t>(s.shape.size()) - 1);
      s.ints = {s.shape[static_cast<size_t>(d)] == 0 ? random_int(0, 3) : random_int(1, 8),
                d - (random_int(0, 1) ? static_cast<int64_t>(s.shape.size()) : 0)};
      for (aclDataType dt : c->dtypes) check_split(*c, s, dt, random_int(0, 1) != 0);
    }
    {
      const LayoutTableCase *c = case_of("aclnnSplitWithSize");
      ASSERT_NE(c, nullptr);
      LayoutSample s = c->sample;
      s.shape = random_shape(static_cast<int>(random_int(1, 4)), 1, 7);
      const int64_t d = random_int(0, static_cast<int64_t>(s.shape.size()) - 1);
      std::vector<int64_t> sizes;
      for (int64_t left = s.shape[static_cast<size_t>(d)]; left > 0;) {
        sizes.push_back(random_int(0, left));
        left -= sizes.back();
      }
      s.arr = {sizes};
      s.ints = {d};
      for (aclDataType dt : c->dtypes) check_split(*c, s, dt, random_int(0, 1) != 0);
    }
    {
      const LayoutTableCase *c = case_of("aclnnNarrow");
      ASSERT_NE(c, nullptr);
      LayoutSample s = c->sample;
      s.shape = random_shape(static_cast<int>(random_int(1, 4)), 1, 7);
      const int64_t d = random_int(0, static_cast<int64_t>(s.shape.size()) - 1), n = s.shape[static_cast<size_t>(d)];
      const int64_t start = random_int(0, n), length = random_int(0, n - start);
      s.ints = {d, random_int(0, 1) && start < n ? start - n : start, length};
      for (aclDataType dt : c->dtypes) check_sample(*c, s, dt, dt, random_int(0, 1) != 0);
    }
    {
      const LayoutTableCase *c = case_of("aclnnDiag");
      ASSERT_NE(c, nullptr);
      LayoutSample s = c->sample;
      s.shape = random_shape(static_cast<int>(random_int(1, 2)), 0, 6);
      s.ints = {random_int(-7, 7)};
      for (aclDataType dt : c->dtypes) check_sample(*c, s, dt, dt, random_int(0, 1) != 0);
    }
    for (const char *api : {"aclnnCircularPad1d", "aclnnCircularPad2d", "aclnnCircularPad3d"}) {
      const LayoutTableCase *c = case_of(api);
      ASSERT_NE(c, nullptr);
      LayoutSample s = c->sample;
      s.shape = random_shape(c->pad_dims + static_cast<int>(random_int(1, 2)), 1, 5);
      s.arr = {{}};
      for (int p = 0; p < c->pad_dims; ++p) {
        const int64_t n = s.shape[s.shape.size() - 1 - static_cast<size_t>(p)];
        s.arr[0].push_back(random_int(0, n));
        s.arr[0].push_back(random_int(0, n));
      }
      for (aclDataType dt : c->dtypes) check_sample(*c, s, dt, dt, random_int(0, 1) != 0);
    }
    for (const char *api : {"aclnnSearchSorted", "aclnnBucketize"}) {
      const LayoutTableCase *c = case_of(api);
      ASSERT_NE(c, nullptr);
      LayoutSample s = c->sample;
      const bool bucketize = c->api == "aclnnBucketize";
      s.shape = random_shape(static_cast<int>(random_int(bucketize ? 0 : 1, 3)), 0, 6);
      const int64_t n = random_int(0, 9);
      if (bucketize || random_int(0, 1)) {
        s.source_shape = {n};
      } else {
        s.source_shape = std::vector<int64_t>(s.shape.begin(), s.shape.end() - 1);
        s.source_shape.push_back(n);
      }
      s.index.clear();
      s.ints = {random_int(0, 1), random_int(0, 1)};
      for (aclDataType dt : c->dtypes) check_search(*c, s, dt, dt, random_int(0, 1) != 0);
    }
  }
}

// NaN and infinities through the scatters that combine values (ScatterReduce's sum / prod / amax /
// amin / mean, ScatterMax / Min / Mul / Div, Scatter, IndexAdd): FLOAT self and source with a NaN,
// +inf and -inf each, against the reference's IEEE arithmetic (a NaN compared as a NaN).
bool combines(const LayoutTableCase &c) {
  return !c.source_name.empty() && std::find(c.dtypes.begin(), c.dtypes.end(), ACL_FLOAT) != c.dtypes.end() &&
         (c.kind == "scatter_reduce" || c.kind == "scatter" || c.kind == "index_add" || c.kind == "scatter_max" ||
          c.kind == "scatter_min" || c.kind == "scatter_mul" || c.kind == "scatter_div" || c.kind == "scatter_add_tf");
}
void check_special_values(const LayoutTableCase &c) {
  for (int trial = 0; trial < 4; ++trial) {
    SCOPED_TRACE(::testing::Message() << c.name << " NaN / inf trial " << trial);
    Inputs in(c, c.sample, ACL_FLOAT, trial % 2 == 1);
    for (DeviceTensor *t : {in.t[0].get(), in.source_t.get()}) {
      std::vector<double> v = t->values();
      if (v.empty()) continue;
      const double sp[] = {NAN, INFINITY, -INFINITY};
      for (double x : sp) v[static_cast<size_t>(std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng()))] = x;
      t->set_values(v);
    }
    in.values[0] = in.t[0]->values();
    in.values[1] = in.source_t->values();
    const Expected e = reference(c, c.sample, in.values, ACL_FLOAT);
    std::unique_ptr<DeviceTensor> out;
    if (c.phase1 != nullptr) {
      out = padded_output(e.shape, ACL_FLOAT);
      out->poison();
      Call call(c, c.sample, in.self, in.list, *out, in.index, in.source);
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(call.a, w, x); }, c.launch), 0)
          << aclGetRecentErrMsg();
    } else {
      Call call(c, c.sample, in.self, in.list, nullptr, in.index, in.source);
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.inplace_phase1(call.a, w, x); },
                       c.inplace_launch), 0)
          << aclGetRecentErrMsg();
    }
    const std::vector<double> got = out ? out->values() : in.t[0]->values();
    ASSERT_EQ(got.size(), e.values.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(got[i] == e.values[i] || (std::isnan(got[i]) && std::isnan(e.values[i])))
          << "element " << i << ": got " << got[i] << ", expected " << e.values[i];
  }
}
class OpTableLayoutCombining : public ::testing::TestWithParam<LayoutTableCase> {};
const std::vector<LayoutTableCase> &combining_cases() {
  static const std::vector<LayoutTableCase> c = [] {
    std::vector<LayoutTableCase> v;
    for (const auto &x : all_cases())
      if (combines(x)) v.push_back(x);
    return v;
  }();
  return c;
}
TEST_P(OpTableLayoutCombining, SpecialValues) {
  reseed_for_current_test();
  check_special_values(GetParam());
}

std::string case_name(const ::testing::TestParamInfo<LayoutTableCase> &i) {
  std::string s;
  for (char ch : i.param.name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

const std::vector<LayoutTableCase> &main_cases() {  // the ops with an output (not in place only)
  static const std::vector<LayoutTableCase> c = [] {
    std::vector<LayoutTableCase> v;
    for (const auto &x : all_cases())
      if (x.phase1 != nullptr) v.push_back(x);
    return v;
  }();
  return c;
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableLayout, ::testing::ValuesIn(main_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableLayoutInPlace, ::testing::ValuesIn(inplace_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableLayoutCombining, ::testing::ValuesIn(combining_cases()), case_name);

}  // namespace
}  // namespace opsnn::test

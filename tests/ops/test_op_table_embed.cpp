// The test harness of the table-driven embedding ops (src/ops/layout/embedding.ops), registered
// from the table by tools/gen_ops.py --tests (embed_table_cases.inc in the build tree). Every op runs:
//   - every accepted dtype, INT32 and INT64 indices, random shapes (empty ones included), padding
//     indices, repeated indices, contiguous and strided (reversed dim order + offset) inputs and
//     padded outputs (nothing outside the views written), against the float64 references
//     (tests/common/float64_refs.h embedding_dense_backward_ref / embedding_renorm_ref /
//     embedding_bag_ref, top_k_top_p_ref) with precision.md's rule for floating results, exactly for
//     integers (ApplyTopKTopP: ties, k only, p only, both);
//   - NaN and infinities in the floating input;
//   - index values (bag offsets, ApplyTopKTopP's k) out of range: the launch fails with 161002,
//     nothing written;
//   - phase-1 errors with their code and the argument named.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct EmbedArgs {
  aclTensor *weight = nullptr, *indices = nullptr, *offsets = nullptr, *per_sample_weights = nullptr, *out = nullptr,
            *offset2bag = nullptr, *bag_size = nullptr, *max_indices = nullptr, *p = nullptr, *k = nullptr;
  int64_t num_weights = 0, padding_idx = -1, mode = 0;
  bool scale_grad = false, sparse = false, include_last = false;
  double max_norm = 1, norm_type = 2;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct EmbedTableCase {
  std::string name, api, kind;  // kind: dense_backward, renorm, bag
  std::vector<aclDataType> dtypes;
  std::map<std::string, std::string> names;  // role -> parameter name
  int (*phase1)(const EmbedArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const EmbedTableCase &c, std::ostream *os) { *os << c.name; }

#include "embed_table_cases.inc"

const std::vector<EmbedTableCase> &all_cases() {
  static const std::vector<EmbedTableCase> c = harness::sampled(embed_table_cases());
  return c;
}

int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng()); }

// A view of `shape` stored in reversed dim order after an offset of 3 elements.
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
std::unique_ptr<DeviceTensor> make(const std::vector<int64_t> &shape, aclDataType dt, bool strided_view, bool output) {
  if (!strided_view) return std::make_unique<DeviceTensor>(shape, dt);
  return output ? padded(shape, dt) : strided(shape, dt);
}

std::unique_ptr<DeviceTensor> index_tensor(const std::vector<int64_t> &shape, aclDataType dt,
                                           const std::vector<int64_t> &values, bool strided_view) {
  auto t = make(shape, dt, strided_view, false);
  t->set_values(std::vector<double>(values.begin(), values.end()));
  return t;
}

std::vector<int64_t> as_ints(const std::vector<double> &v) { return std::vector<int64_t>(v.begin(), v.end()); }

// Random floating values; with specials, a few NaN / +-inf among them.
void fill(DeviceTensor &t, bool specials) {
  t.fill_random(-3, 3);
  if (!specials || t.numel() == 0) return;
  std::vector<double> v = t.values();
  const double sp[] = {NAN, INFINITY, -INFINITY};
  for (int k = 0; k < 3; ++k) v[static_cast<size_t>(uniform(0, t.numel() - 1))] = sp[k];
  t.set_values(v);
}

// One random problem of the case's kind, its tensors and its expected results.
struct Problem {
  EmbedArgs a;
  std::unique_ptr<DeviceTensor> weight, indices, offsets, psw, out, offset2bag, bag_size, max_indices, pt, kt;
  std::vector<int64_t> idx, offs;
  std::vector<double> golden;  // out (renorm: selfRef)
  refs::EmbeddingBagRef bag;
  int64_t bound = 0;  // the index values' range
  aclDataType dt = ACL_FLOAT;
};

Problem make_problem(const EmbedTableCase &c, aclDataType dt, aclDataType idt, aclDataType odt, bool strided_view,
                     bool specials, bool empty = false) {
  Problem p;
  p.dt = dt;
  const int64_t d = uniform(1, 9);
  if (c.kind == "dense_backward") {
    p.bound = p.a.num_weights = uniform(1, 7);
    std::vector<int64_t> ishape;
    for (int64_t k = uniform(0, 2); k > 0; --k) ishape.push_back(empty ? 0 : uniform(1, 5));
    for (int64_t k = 0; k < numel_of(ishape); ++k) p.idx.push_back(uniform(0, p.bound - 1));
    p.a.padding_idx = uniform(0, 2) == 0 ? -1 : uniform(0, p.bound - 1);
    p.a.scale_grad = uniform(0, 1) == 1;
    std::vector<int64_t> gshape = ishape;
    gshape.push_back(d);
    p.weight = make(gshape, dt, strided_view, false);
    fill(*p.weight, specials);
    p.indices = index_tensor(ishape, idt, p.idx, strided_view);
    p.out = make({p.bound, d}, dt, strided_view, true);
    p.out->poison();
    p.golden = refs::embedding_dense_backward_ref(p.weight->values(), d, p.idx, p.bound, p.a.padding_idx,
                                                   p.a.scale_grad);
  } else if (c.kind == "renorm") {
    const int64_t rows = empty ? 0 : uniform(1, 7);
    p.bound = rows;
    const int64_t n = rows == 0 ? 0 : uniform(0, 8);
    for (int64_t k = 0; k < n; ++k) p.idx.push_back(uniform(0, rows - 1));
    const double ps[] = {1, 2, 3, INFINITY, 0, 1.5};
    p.a.norm_type = ps[uniform(0, 5)];
    p.a.max_norm = static_cast<double>(uniform(0, 30)) / 10.0;
    p.weight = make({rows, d}, dt, strided_view, false);
    fill(*p.weight, specials);
    p.indices = index_tensor({n}, idt, p.idx, strided_view);
    p.golden = refs::embedding_renorm_ref(p.weight->values(), d, p.idx, p.a.max_norm, p.a.norm_type);
  } else if (c.kind == "top_k_top_p") {
    const int64_t rows = empty ? 0 : uniform(1, 5), v = uniform(1, 12);
    p.bound = v + 1;  // k's range is [1, V]
    p.weight = make({rows, v}, dt, strided_view, false);
    fill(*p.weight, specials);
    if (uniform(0, 3) == 0) {  // ties
      std::vector<double> w = p.weight->values();
      for (double &x : w) x = std::round(x);
      p.weight->set_values(w);
    }
    const int which = static_cast<int>(uniform(0, 2));  // 0: both, 1: k only, 2: p only
    std::vector<double> pv, kv;
    for (int64_t r = 0; r < rows; ++r) {
      pv.push_back(static_cast<double>(uniform(0, 20)) / 20.0);
      kv.push_back(static_cast<double>(uniform(1, v)));
    }
    if (which != 2) {
      p.kt = make({rows}, ACL_INT32, strided_view, false);
      p.kt->set_values(kv);
      p.idx = as_ints(kv);
    }
    if (which != 1) {
      p.pt = make({rows}, dt, strided_view, false);
      p.pt->set_values(pv);
      pv = p.pt->values();  // as stored
    }
    const std::vector<double> w = p.weight->values();
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> row(w.begin() + r * v, w.begin() + (r + 1) * v);
      row = refs::top_k_top_p_ref(row, which != 2 ? static_cast<int64_t>(kv[static_cast<size_t>(r)]) : 0,
                                  which != 1 ? pv[static_cast<size_t>(r)] : -1);
      p.golden.insert(p.golden.end(), row.begin(), row.end());
    }
    p.out = make({rows, v}, dt, strided_view, true);
    p.out->poison();
  } else {  // bag
    const int64_t rows = uniform(1, 7), n = empty ? 0 : uniform(0, 12);
    p.bound = rows;
    for (int64_t k = 0; k < n; ++k) p.idx.push_back(uniform(0, rows - 1));
    p.a.mode = uniform(0, 3);  // 2 and 3: max
    p.a.include_last = uniform(0, 1) == 1;
    p.a.padding_idx = uniform(0, 2) == 0 ? -1 : uniform(0, rows - 1);
    const int64_t bags = uniform(0, 5);
    p.offs.push_back(0);
    for (int64_t b = 1; b < bags + (p.a.include_last ? 1 : 0); ++b) p.offs.push_back(uniform(p.offs.back(), n));
    if (!p.a.include_last && bags == 0) p.offs.clear();
    if (p.a.include_last && uniform(0, 1) == 1 && p.offs.size() > 1) p.offs.back() = n;
    p.weight = make({rows, d}, dt, strided_view, false);
    fill(*p.weight, specials);
    p.indices = index_tensor({n}, idt, p.idx, strided_view);
    p.offsets = index_tensor({static_cast<int64_t>(p.offs.size())}, odt, p.offs, strided_view);
    std::vector<double> w;
    if (p.a.mode == 0 && uniform(0, 1) == 1) {
      p.psw = make({n}, dt, strided_view, false);
      p.psw->fill_random(-2, 2);
      w = p.psw->values();
    }
    p.bag = refs::embedding_bag_ref(p.weight->values(), d, p.idx, p.offs, static_cast<int>(p.a.mode),
                                    p.psw ? &w : nullptr, p.a.include_last, p.a.padding_idx);
    const int64_t nb = static_cast<int64_t>(p.offs.size()) - (p.a.include_last ? 1 : 0);
    const aclDataType it = idt == ACL_INT64 || odt == ACL_INT64 ? ACL_INT64 : ACL_INT32;
    p.out = make({nb, d}, dt, strided_view, true);
    p.offset2bag = make({n}, it, strided_view, true);
    p.bag_size = make({nb}, it, strided_view, true);
    p.max_indices = make(p.a.mode >= 2 ? std::vector<int64_t>{nb, d} : std::vector<int64_t>{nb}, it, strided_view,
                         true);
    for (auto *t : {p.out.get(), p.offset2bag.get(), p.bag_size.get(), p.max_indices.get()}) t->poison();
    p.golden = p.bag.out;
  }
  p.a.weight = p.weight->get();
  if (p.indices) p.a.indices = p.indices->get();
  if (p.pt) p.a.p = p.pt->get();
  if (p.kt) p.a.k = p.kt->get();
  if (p.offsets) p.a.offsets = p.offsets->get();
  if (p.psw) p.a.per_sample_weights = p.psw->get();
  if (p.out) p.a.out = p.out->get();
  if (p.offset2bag) {
    p.a.offset2bag = p.offset2bag->get();
    p.a.bag_size = p.bag_size->get();
    p.a.max_indices = p.max_indices->get();
  }
  return p;
}

// The result the op wrote (renorm: selfRef).
DeviceTensor &result(Problem &p) { return p.out ? *p.out : *p.weight; }

void check(const EmbedTableCase &c, Problem &p) {
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(p.a, w, x); }, c.launch), 0)
      << aclGetRecentErrMsg();
  DeviceTensor &r = result(p);
  EXPECT_TRUE(meets_precision(p.dt, r.values(), p.golden));
  EXPECT_TRUE(r.untouched_outside_view());
  if (c.kind == "bag") {
    EXPECT_EQ(as_ints(p.offset2bag->values()), p.bag.offset2bag);
    EXPECT_EQ(as_ints(p.bag_size->values()), p.bag.bag_size);
    EXPECT_EQ(as_ints(p.max_indices->values()), p.bag.max_indices);
    for (auto *t : {p.offset2bag.get(), p.bag_size.get(), p.max_indices.get()}) EXPECT_TRUE(t->untouched_outside_view());
  }
}

class OpTableEmbed : public ::testing::TestWithParam<EmbedTableCase> {};

TEST_P(OpTableEmbed, RandomShapesEveryDtype) {
  reseed_for_current_test();
  const EmbedTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (aclDataType idt : {ACL_INT64, ACL_INT32})
      for (int trial = 0; trial < 6; ++trial) {
        const aclDataType odt = trial % 2 ? ACL_INT32 : ACL_INT64;
        SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " index dtype " << idt << " trial " << trial);
        Problem p = make_problem(c, dt, idt, odt, false, false);
        check(c, p);
      }
}

TEST_P(OpTableEmbed, StridedViewsAndPaddedOutputs) {
  reseed_for_current_test();
  const EmbedTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int trial = 0; trial < 6; ++trial) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " trial " << trial);
      Problem p = make_problem(c, dt, trial % 2 ? ACL_INT32 : ACL_INT64, ACL_INT64, true, false);
      check(c, p);
    }
}

TEST_P(OpTableEmbed, SpecialValuesAndEmptyTensors) {
  reseed_for_current_test();
  const EmbedTableCase &c = GetParam();
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE(::testing::Message() << c.name << " NaN / inf trial " << trial);
    Problem p = make_problem(c, ACL_FLOAT, ACL_INT64, ACL_INT64, trial % 2 == 1, true);
    check(c, p);
  }
  SCOPED_TRACE("empty");
  Problem p = make_problem(c, ACL_FLOAT, ACL_INT64, ACL_INT64, false, false, true);
  check(c, p);
}

// Index values out of range (and bag offsets that do not start at 0, decrease or pass the end) fail
// the launch with 161002 naming the argument; nothing is written.
TEST_P(OpTableEmbed, ValuesCheckedAtLaunch) {
  reseed_for_current_test();
  const EmbedTableCase &c = GetParam();
  int checked = 0;
  for (int trial = 0; trial < 40 && checked < 6; ++trial) {
    Problem p = make_problem(c, ACL_FLOAT, ACL_INT64, ACL_INT64, false, false);
    if (p.idx.empty()) continue;
    const bool topk = c.kind == "top_k_top_p";
    const int64_t bad = trial % 2 ? p.bound : topk ? 0 : -1;
    std::vector<int64_t> idx = p.idx;
    idx[static_cast<size_t>(uniform(0, static_cast<int64_t>(idx.size()) - 1))] = bad;
    (topk ? p.kt : p.indices)->set_values(std::vector<double>(idx.begin(), idx.end()));
    const std::vector<double> before = p.weight->values();
    SCOPED_TRACE(::testing::Message() << c.name << " index value " << bad);
    EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(p.a, w, x); }, c.launch),
                           ACLNN_ERR_PARAM_INVALID, {c.names.at(topk ? "k" : "indices").c_str(), "out of range"}));
    if (c.kind == "renorm") {
      const std::vector<double> after = p.weight->values();
      for (size_t i = 0; i < after.size(); ++i)
        EXPECT_TRUE(after[i] == before[i] || (std::isnan(after[i]) && std::isnan(before[i])));
    }
    EXPECT_TRUE(result(p).untouched_outside_view());
    ++checked;
  }
  EXPECT_GT(checked, 0);
  if (c.kind != "bag") return;
  for (int trial = 0; trial < 3; ++trial) {  // offsets
    Problem p;
    do p = make_problem(c, ACL_FLOAT, ACL_INT64, ACL_INT64, false, false);
    while (p.offs.size() < 2 || p.idx.empty());
    std::vector<int64_t> offs = p.offs;
    if (trial == 0) offs[0] = 1;
    if (trial == 1) offs.back() = static_cast<int64_t>(p.idx.size()) + 1;
    if (trial == 2) {
      offs[1] = static_cast<int64_t>(p.idx.size());
      offs.back() = 0;
      if (offs.size() == 2) offs[1] = -1;
    }
    p.offsets->set_values(std::vector<double>(offs.begin(), offs.end()));
    SCOPED_TRACE(::testing::Message() << "offsets trial " << trial);
    EXPECT_TRUE(fails_with(run_op([&](uint64_t *w, aclOpExecutor **x) { return c.phase1(p.a, w, x); }, c.launch),
                           ACLNN_ERR_PARAM_INVALID, {"offsets"}));
  }
}

TEST_P(OpTableEmbed, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const EmbedTableCase &c = GetParam();
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  Problem p = make_problem(c, c.dtypes.front(), ACL_INT64, ACL_INT64, false, false);
  auto fails = [&](const EmbedArgs &a, int code, const char *word) {
    return fails_with(c.phase1(a, &ws, &ex), code, {api, word});
  };
  ASSERT_EQ(c.phase1(p.a, &ws, &ex), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
  ex = nullptr;
  // Each required tensor, null.
  for (const auto &[role, name] : c.names) {
    if (role == "per_sample_weights" || role == "p" || role == "k") continue;  // optional
    EmbedArgs a = p.a;
    aclTensor **slot = role == "weight" ? &a.weight : role == "indices" ? &a.indices : role == "offsets" ? &a.offsets
                       : role == "out" ? &a.out : role == "offset2bag" ? &a.offset2bag
                       : role == "bag_size" ? &a.bag_size : &a.max_indices;
    *slot = nullptr;
    SCOPED_TRACE(role);
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, name.c_str()));
  }
  const bool topk = c.kind == "top_k_top_p";
  const std::string wname = c.names.at("weight"), iname = c.names.at(topk ? "k" : "indices");
  {  // weight dtypes outside the rule
    for (aclDataType bad : {ACL_INT32, ACL_INT64, ACL_DOUBLE, ACL_BOOL}) {
      if (std::find(c.dtypes.begin(), c.dtypes.end(), bad) != c.dtypes.end()) continue;
      DeviceTensor w(p.weight->shape(), bad);
      EmbedArgs a = p.a;
      a.weight = w;
      SCOPED_TRACE(::testing::Message() << "weight dtype " << bad);
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, wname.c_str()));
    }
  }
  if (!topk) {  // a floating index tensor
    DeviceTensor fi(p.indices->shape(), ACL_FLOAT);
    EmbedArgs a = p.a;
    a.indices = fi;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, iname.c_str()));
  }
  if (topk) {  // p and k: both null, wrong dtypes, wrong lengths
    const int64_t rows = p.weight->shape()[0];
    EmbedArgs a = p.a;
    a.p = a.k = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, "p"));
    DeviceTensor kf({rows}, ACL_FLOAT), k2({rows + 1}, ACL_INT32), pf({rows}, ACL_INT32), p2({rows + 1}, p.dt);
    a = p.a;
    a.k = kf;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "k"));
    a.k = k2;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "k"));
    a = p.a;
    a.p = pf;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "p"));
    a.p = p2;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "p"));
  }
  if (p.out) {  // the output: a wrong shape, a wrong dtype
    std::vector<int64_t> bad = p.out->shape();
    bad[0] += 1;
    DeviceTensor o(bad, p.dt);
    EmbedArgs a = p.a;
    a.out = o;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.names.at("out").c_str()));
    DeviceTensor od(p.out->shape(), p.dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT);
    a.out = od;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "dtype"));
  }
  if (c.kind == "dense_backward") {
    std::vector<int64_t> gs = p.weight->shape();
    gs.insert(gs.begin(), 2);
    DeviceTensor g(gs, p.dt);
    EmbedArgs a = p.a;
    a.weight = g;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, wname.c_str()));
  }
  if (c.kind == "renorm") {
    EmbedArgs a = p.a;
    a.max_norm = -1;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "maxNorm"));
    a = p.a;
    a.norm_type = NAN;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "normType"));
    DeviceTensor w3({2, 2, 2}, p.dt);
    a = p.a;
    a.weight = w3;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, wname.c_str()));
  }
  if (c.kind == "bag") {
    const int64_t n = static_cast<int64_t>(p.idx.size());
    {  // perSampleWeights: with a mode other than sum, a wrong length, a wrong dtype
      DeviceTensor w({n}, p.dt);
      EmbedArgs a = p.a;
      a.per_sample_weights = w;
      a.mode = 1;
      a.max_indices = p.a.max_indices;
      if (p.a.mode == 0) {
        EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "perSampleWeights"));
        DeviceTensor w2({n + 1}, p.dt);
        a.mode = 0;
        a.per_sample_weights = w2;
        EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "perSampleWeights"));
        DeviceTensor w3({n}, p.dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT);
        a.per_sample_weights = w3;
        EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "perSampleWeights"));
      }
    }
    {  // 2-D indices / offsets
      DeviceTensor i2({1, n}, ACL_INT64);
      EmbedArgs a = p.a;
      a.indices = i2;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "indices"));
      DeviceTensor o2({1, static_cast<int64_t>(p.offs.size())}, ACL_INT64);
      a = p.a;
      a.offsets = o2;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "offsets"));
    }
    {  // integer outputs: wrong dtype / shape
      DeviceTensor o({n}, ACL_INT32);
      EmbedArgs a = p.a;
      a.offset2bag = o;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "offset2bag"));
      DeviceTensor bs({static_cast<int64_t>(p.offs.size()) + 3}, ACL_INT64);
      a = p.a;
      a.bag_size = bs;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "bagSize"));
      std::vector<int64_t> ms = p.max_indices->shape();
      ms.push_back(1);
      DeviceTensor mi(ms, ACL_INT64);
      a = p.a;
      a.max_indices = mi;
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "maxIndices"));
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<EmbedTableCase> &i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(Tables, OpTableEmbed, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace opsnn::test

// The test harness of the table-driven reductions (src/ops/reduction/reduction.ops): every op and
// sample of its parameters runs the same suites, registered from the table by tools/gen_ops.py
// --tests (reduce_table_cases.inc in the build tree):
//   - every accepted dtype on random shapes (0-d to 4-d), random dim sets (negative dims too),
//     keepdim on and off, contiguous and permuted + offset input views, against the float64
//     reference (tests/common/float64_refs.h reduce_ref) with the precision standard;
//   - long reductions split into blocks (row and column mode), and their bit-identical repeat;
//   - special values (NaN, +-Inf) and empty tensors (the op's identity, or its documented error);
//   - errors with their code and the argument named: null tensors, dims out of range or repeated,
//     a wrong output shape or dtype, an input dtype outside the rule.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ReduceArgs {
  aclTensor *self = nullptr;
  aclIntArray *dims = nullptr;
  int64_t dim = 0;
  bool keepdim = false;
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclScalar *p = nullptr;
  int64_t correction = 1;
  bool unbiased = true;
  aclTensor *out[2] = {nullptr, nullptr};
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct ReduceTableCase {
  std::string name, api, kind, dims_kind, self_name;
  std::vector<aclDataType> dtypes;
  std::vector<std::string> results;  // per output: same / dtype / float / bool / index / int64
  bool has_keepdim = false, null_dims_all = false, nonempty = false;
  double p = 2, correction = 1;
  int (*phase1)(const ReduceArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const ReduceTableCase &c, std::ostream *os) { *os << c.name; }

#include "reduce_table_cases.inc"

const std::vector<ReduceTableCase> &all_cases() {
  static const std::vector<ReduceTableCase> c = harness::sampled(reduce_table_cases());
  return c;
}

using harness::is_float;

// The dtype of output k for input dtype `in` (for `dtype` results: the dtype argument passed).
aclDataType out_dtype(const ReduceTableCase &c, int k, aclDataType in) {
  const std::string &r = c.results[static_cast<size_t>(k)];
  if (r == "same") return in;
  if (r == "dtype") return is_float(in) ? in : ACL_INT64;
  if (r == "float") return is_float(in) ? in : ACL_FLOAT;
  if (r == "bool") return ACL_BOOL;
  return ACL_INT64;  // index, int64
}

double wrap_to(aclDataType dt, double v) {
  if (is_float(dt)) return round_to(dt, v);
  return harness::wrap_to(dt, v);
}

// The call's arguments, owning the host objects (dim list, p scalar).
struct Call {
  ReduceArgs a;
  std::vector<int64_t> dims;
  float p = 2;
  Call(const ReduceTableCase &c, aclTensor *self, std::vector<int64_t> d, bool keepdim, aclTensor *o0, aclTensor *o1,
       aclDataType dtype)
      : dims(std::move(d)) {
    a.self = self;
    a.dims = aclCreateIntArray(dims.data(), dims.size());
    a.dim = dims.empty() ? 0 : dims[0];
    a.keepdim = keepdim;
    a.dtype = dtype;
    p = static_cast<float>(c.p);
    a.p = aclCreateScalar(&p, ACL_FLOAT);
    a.correction = static_cast<int64_t>(c.correction);
    a.unbiased = c.correction != 0;
    a.out[0] = o0;
    a.out[1] = o1;
  }
  ~Call() {
    aclDestroyIntArray(a.dims);
    aclDestroyScalar(a.p);
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;
};

// The reduced-dim mask and the output shape of a call.
uint32_t mask_of(const ReduceTableCase &c, int nd, const std::vector<int64_t> &dims) {
  if (c.dims_kind == "all" || (c.dims_kind == "list" && dims.empty())) return nd == 0 ? 0 : (1u << nd) - 1;
  uint32_t m = 0;
  for (int64_t d : dims)
    if (nd > 0) m |= 1u << (d < 0 ? d + nd : d);
  return m;
}
std::vector<int64_t> out_shape(const std::vector<int64_t> &shape, uint32_t mask, bool keepdim) {
  std::vector<int64_t> s;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (mask >> d & 1u) {
      if (keepdim) s.push_back(1);
    } else {
      s.push_back(shape[d]);
    }
  }
  return s;
}

// Golden outputs: for each output element, reduce_ref over its reduced elements in row-major order.
std::vector<std::vector<double>> golden(const ReduceTableCase &c, const std::vector<int64_t> &shape,
                                        const std::vector<double> &x, uint32_t mask, aclDataType in_dt) {
  std::vector<int64_t> kept, red;
  for (size_t d = 0; d < shape.size(); ++d) (mask >> d & 1u ? red : kept).push_back(shape[d]);
  const int64_t nk = numel_of(kept), nr = numel_of(red);
  const auto strides = contiguous_strides(shape);
  std::vector<std::vector<double>> g(2, std::vector<double>(static_cast<size_t>(nk)));
  const bool integral = !is_float(out_dtype(c, 0, in_dt)) && !is_float(in_dt);
  for (int64_t o = 0; o < nk; ++o) {
    const auto ki = unravel(o, kept);
    std::vector<double> vals;
    for (int64_t r = 0; r < nr; ++r) {
      const auto ri = unravel(r, red);
      int64_t lin = 0;
      size_t k = 0, j = 0;
      for (size_t d = 0; d < shape.size(); ++d) lin += strides[d] * (mask >> d & 1u ? ri[j++] : ki[k++]);
      vals.push_back(x[static_cast<size_t>(lin)]);
    }
    const refs::ReduceRef r = refs::reduce_ref(c.kind, vals, c.p, c.correction, integral);
    g[0][static_cast<size_t>(o)] = r.v0;
    g[1][static_cast<size_t>(o)] = r.v1;
  }
  return g;
}

std::pair<double, double> input_range(const ReduceTableCase &c, aclDataType dt) {
  if (dt == ACL_BOOL) return {0, 1};
  if (c.kind == "prod") return is_float(dt) ? std::pair{0.6, 1.4} : std::pair{-3.0, 3.0};
  if (!is_float(dt)) return {dt == ACL_UINT8 ? 0.0 : -100.0, 100.0};
  return {-4, 4};
}

// Runs one call on `in` and checks every output against the float64 reference.
void check_call(const ReduceTableCase &c, DeviceTensor &in, const std::vector<int64_t> &dims, bool keepdim) {
  const aclDataType dt = in.dtype();
  const uint32_t mask = mask_of(c, static_cast<int>(in.shape().size()), dims);
  const auto oshape = out_shape(in.shape(), mask, keepdim);
  const int nout = static_cast<int>(c.results.size());
  DeviceTensor o0(oshape, out_dtype(c, 0, dt)), o1(oshape, out_dtype(c, nout - 1, dt));
  o0.poison();
  o1.poison();
  Call call(c, in, dims, keepdim, o0, nout > 1 ? o1.get() : nullptr, out_dtype(c, 0, dt));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(call.a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto g = golden(c, in.shape(), in.values(), mask, dt);
  DeviceTensor *outs[2] = {&o0, &o1};
  for (int k = 0; k < nout; ++k) {
    const aclDataType odt = outs[k]->dtype();
    std::vector<double> want = g[static_cast<size_t>(k)];
    for (double &v : want) v = wrap_to(odt, v);
    EXPECT_TRUE(meets_precision(odt, outs[k]->values(), want)) << "output " << k;
    EXPECT_TRUE(outs[k]->untouched_outside_view());
  }
}

// A random call: shape, dims (as the op takes them) and keepdim.
struct RandomCall {
  std::vector<int64_t> shape, dims;
  bool keepdim;
};
RandomCall random_call(const ReduceTableCase &c) {
  auto &g = rng();
  RandomCall r;
  const int nd = static_cast<int>(g() % 5);
  for (int d = 0; d < nd; ++d) r.shape.push_back(1 + static_cast<int64_t>(g() % 6));
  r.keepdim = c.has_keepdim && (g() & 1);
  const int64_t span = std::max(nd, 1);
  if (c.dims_kind == "one") {
    const int64_t d = static_cast<int64_t>(g() % static_cast<uint64_t>(span));
    r.dims.push_back(g() & 1 ? d - span : d);
  } else if (c.dims_kind == "list") {
    for (int d = 0; d < nd; ++d)
      if (g() % 3 == 0) r.dims.push_back(g() & 1 ? d - nd : d);
    std::shuffle(r.dims.begin(), r.dims.end(), g);
  }
  return r;
}

class OpTableReduce : public ::testing::TestWithParam<ReduceTableCase> {};

TEST_P(OpTableReduce, EveryDtypeRandomShapesAndDims) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    const auto [lo, hi] = input_range(c, dt);
    for (int t = 0; t < 6; ++t) {
      const RandomCall r = random_call(c);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(r.shape)
                                        << " dims " << ::testing::PrintToString(r.dims) << " keepdim " << r.keepdim);
      DeviceTensor in(r.shape, dt);
      in.fill_random(lo, hi);
      check_call(c, in, r.dims, r.keepdim);
    }
  }
}

TEST_P(OpTableReduce, PermutedOffsetViews) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  const auto [lo, hi] = input_range(c, dt);
  // [5, 7, 9] stored as [9, 5, 7] (dim order 2, 0, 1) after 3 padding elements.
  const std::vector<int64_t> shape = {5, 7, 9}, strides = {7, 1, 35};
  for (int t = 0; t < 4; ++t) {
    RandomCall r = random_call(c);
    if (c.dims_kind == "one") r.dims = {static_cast<int64_t>(t % 3)};
    if (c.dims_kind == "list") r.dims = t == 0 ? std::vector<int64_t>{0} : t == 1 ? std::vector<int64_t>{2, 0}
                                      : t == 2 ? std::vector<int64_t>{-2} : std::vector<int64_t>{};
    SCOPED_TRACE(::testing::Message() << c.name << " dims " << ::testing::PrintToString(r.dims));
    DeviceTensor in(shape, dt, strides, 3, 3 + 5 * 7 * 9 + 4);
    in.fill_random(lo, hi);
    check_call(c, in, r.dims, r.keepdim);
  }
}

// Long rows and long columns: reductions split into fixed blocks, combined in order; a repeat
// gives the same bits.
TEST_P(OpTableReduce, LongReductionsInBlocks) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  const auto [lo, hi] = input_range(c, dt);
  if (c.kind == "prod") return;  // a product of 10^5 factors only over/underflows
  for (const auto &shape : {std::vector<int64_t>{2, 100003}, std::vector<int64_t>{100003, 3}}) {
    const int64_t dim = shape[0] == 2 ? 1 : 0;
    if (c.dims_kind == "all") {
      DeviceTensor in(shape, dt);
      in.fill_random(lo, hi);
      check_call(c, in, {}, false);
      continue;
    }
    SCOPED_TRACE(::testing::Message() << c.name << " shape " << ::testing::PrintToString(shape));
    DeviceTensor in(shape, dt);
    in.fill_random(lo, hi);
    check_call(c, in, {dim}, false);
    // Bit-identical repeat.
    const std::vector<int64_t> oshape = {shape[1 - dim]};
    const int last = static_cast<int>(c.results.size()) - 1;
    DeviceTensor a(oshape, out_dtype(c, 0, dt)), b(oshape, out_dtype(c, 0, dt)), s0(oshape, out_dtype(c, last, dt)),
        s1(oshape, out_dtype(c, last, dt));
    const bool two = c.results.size() > 1;
    Call ca(c, in, {dim}, false, a, two ? s0.get() : nullptr, out_dtype(c, 0, dt));
    Call cb(c, in, {dim}, false, b, two ? s1.get() : nullptr, out_dtype(c, 0, dt));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(ca.a, w, e); }, c.launch), 0);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(cb.a, w, e); }, c.launch), 0);
    EXPECT_EQ(a.values(), b.values());
  }
}

// Wide column mode (FLOAT rows read in place, a whole row of outputs per task; sums, means,
// extrema, arg-extrema): a column split into two fixed blocks, a kept dim longer than one tile
// (4096) whose last tile ends in a partial 16-lane vector; then NaNs in the first row, in the second
// block and in a tail lane (the extrema and arg-extrema propagate NaN: the first one wins); ties.
TEST_P(OpTableReduce, WideColumnsBlocksTailsAndNaN) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = ACL_FLOAT;
  const std::vector<std::string> wide = {"sum", "nansum", "mean", "max", "min", "argmax", "argmin"};
  if (c.dims_kind == "all" || std::find(wide.begin(), wide.end(), c.kind) == wide.end() ||
      std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end())
    return;
  const auto [lo, hi] = input_range(c, dt);
  for (const auto &shape : {std::vector<int64_t>{1100, 2100}, std::vector<int64_t>{37, 4100}}) {
    SCOPED_TRACE(::testing::Message() << c.name << " shape " << ::testing::PrintToString(shape));
    DeviceTensor in(shape, dt);
    in.fill_random(lo, hi);
    check_call(c, in, {0}, false);
    const std::vector<double> clean = in.values();
    const int64_t rows = shape[0], cols = shape[1];
    // Ties everywhere (the values rounded to a few integers: the first best row wins), and column 2
    // rising with the row (a new best in every group of rows).
    std::vector<double> v = clean;
    for (double &x : v) x = std::round(x);
    for (int64_t r = 0; r < rows; ++r) v[static_cast<size_t>(r * cols + 2)] = static_cast<double>(r % 64);
    in.set_values(v);
    check_call(c, in, {0}, false);
    v = clean;
    v[5] = NAN;                                        // first row
    v[static_cast<size_t>((rows - 2) * cols + 7)] = NAN;  // second block (1100 rows: blocks of 998)
    v[static_cast<size_t>(3 * cols + 7)] = NAN;        // the same column earlier: this one wins
    v[static_cast<size_t>(rows / 2 * cols + cols - 1)] = NAN;  // the tail lane
    in.set_values(v);
    check_call(c, in, {0}, false);
  }
}

// Extrema and arg-extrema along FLOAT rows read in place (vec::arg_extremum: eight chains of
// 16-lane vectors, 128 floats a step, then the vectors left, then single elements; rows of 4100 are
// a 4096 chunk and a 4-element one): ties across chain, step and chunk boundaries and between the
// vectors and the scalar tail (the first wins), the best only in the tail, NaN at the last element
// and several NaNs (the first wins), rows of one repeated value and of the identity -inf / +inf.
TEST_P(OpTableReduce, FloatRowsTiesAndNaN) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = ACL_FLOAT;
  const std::vector<std::string> kinds = {"max", "min", "argmax", "argmin"};
  if (c.dims_kind == "all" || std::find(kinds.begin(), kinds.end(), c.kind) == kinds.end() ||
      std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end())
    return;
  const bool mx = c.kind == "max" || c.kind == "argmax";
  const double best = mx ? 10 : -10, identity = mx ? -INFINITY : INFINITY;
  for (const int64_t len : {int64_t{300}, int64_t{4100}}) {
    const std::vector<std::vector<int64_t>> ties = {
        {15, 16}, {16, 15 + 128}, {127, 128}, {200, 16}, {5, len - 1}, {len - 1}, {len - 5, len - 1}, {3, 4097}};
    const int64_t rows = static_cast<int64_t>(ties.size()) + 5;
    DeviceTensor in({rows, len}, dt);
    in.fill_random(-4, 4);
    std::vector<double> v = in.values();
    auto at = [&](int64_t r, int64_t i) -> double & { return v[static_cast<size_t>(r * len + i)]; };
    int64_t r = 0;
    for (const auto &t : ties) {
      for (int64_t i : t)
        if (i < len) at(r, i) = best;
      ++r;
    }
    at(r++, len - 1) = NAN;  // NaN at the last element
    at(r, 100) = at(r, 200) = at(r, len - 1) = NAN;  // the first NaN wins
    ++r;
    for (int64_t i = 0; i < len; ++i) at(r, i) = 1.5;  // one repeated value
    ++r;
    for (int64_t i = 0; i < len; ++i) at(r, i) = identity;  // the identity everywhere
    ++r;
    for (int64_t i = 0; i < len; ++i) at(r, i) = i % 2 == 0 ? -0.0 : 0.0;  // -0 and +0 tie
    in.set_values(v);
    SCOPED_TRACE(::testing::Message() << c.name << " rows of " << len);
    check_call(c, in, {1}, false);
  }
}

// Sums, means, variances, extrema and arg-extrema along FLOAT rows read in place from every 4-byte offset of a
// 64-byte line (vec::for_steps: on AVX-512 a misaligned row after its first step reads whole aligned
// lines and assembles its vectors from them): odd widths, so consecutive rows start at all 16
// offsets, after a view offset of 5 elements; rows of two chunks (4096 + 4101); 145 elements (just
// enough for the sums' aligned walk) and 143 (not: unaligned loads only); 300 and 271 around the
// extrema's (steps of 128); the vectors and single elements after the walk.
TEST_P(OpTableReduce, FloatRowsAtEveryLineOffset) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = ACL_FLOAT;
  const std::vector<std::string> kinds = {"sum", "mean", "max", "min", "argmax", "argmin", "var", "std", "var_mean",
                                          "std_mean"};
  if (c.dims_kind == "all" || std::find(kinds.begin(), kinds.end(), c.kind) == kinds.end() ||
      std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end())
    return;
  const auto [lo, hi] = input_range(c, dt);
  for (const auto &shape : {std::vector<int64_t>{17, 4095}, std::vector<int64_t>{16, 8197}, std::vector<int64_t>{33, 145},
                            std::vector<int64_t>{16, 143}, std::vector<int64_t>{18, 1001}, std::vector<int64_t>{17, 300},
                            std::vector<int64_t>{16, 271}}) {
    SCOPED_TRACE(::testing::Message() << c.name << " shape " << ::testing::PrintToString(shape));
    const int64_t off = 5;
    DeviceTensor in(shape, dt, {shape[1], 1}, off, off + shape[0] * shape[1]);
    in.fill_random(lo, hi);
    check_call(c, in, {1}, false);
  }
}

// Var / Std over FLOAT rows read in place (a chunk's mean, then float sums of the deviations):
// rows far from zero (1e4 + [-1, 1]: the shift must remove the offset), a first element that is an
// outlier, and values whose float squares overflow (+-3e19: the chunk falls back to double); rows
// of 5000 elements, so two chunks merge.
TEST_P(OpTableReduce, VarFloatRowsOffsetOutlierAndHugeValues) {
  reseed_for_current_test();
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = ACL_FLOAT;
  if (c.kind != "var" && c.kind != "std" && c.kind != "var_mean" && c.kind != "std_mean") return;
  if (c.dims_kind == "all" || std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) return;
  const int64_t n = 5000;
  DeviceTensor in({3, n}, dt);
  in.fill_random(-1, 1);
  std::vector<double> v = in.values();
  for (int64_t j = 0; j < n; ++j) {
    v[static_cast<size_t>(j)] += 1e4;             // row 0: offset
    v[static_cast<size_t>(2 * n + j)] *= 3e19;    // row 2: squares beyond float's range
  }
  v[static_cast<size_t>(n)] = 1e3;                // row 1: an outlier first
  in.set_values(v);
  SCOPED_TRACE(::testing::Message() << c.name);
  check_call(c, in, {1}, false);
}

TEST_P(OpTableReduce, SpecialValues) {
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = ACL_FLOAT;
  if (std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) return;
  // Rows: NaN inside, +inf inside, -inf inside, +inf and -inf, all -inf, zeros with a -0.
  const std::vector<std::vector<double>> rows = {{1, NAN, 2, -3}, {1, INFINITY, 2, -3}, {1, -INFINITY, 2, -3},
                                                 {INFINITY, 1, -INFINITY, 0}, {-INFINITY, -INFINITY, -INFINITY, -INFINITY},
                                                 {0, -0.0, 0, 0}};
  for (const auto &row : rows) {
    SCOPED_TRACE(::testing::Message() << c.name << " row " << ::testing::PrintToString(row));
    DeviceTensor in({1, 4}, dt);
    in.set_values(row);
    check_call(c, in, c.dims_kind == "all" ? std::vector<int64_t>{} : std::vector<int64_t>{1}, false);
  }
}

TEST_P(OpTableReduce, EmptyTensors) {
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  // Reducing the non-empty dim of a [0, 4] tensor: an empty output, never an error.
  if (c.dims_kind != "all") {
    DeviceTensor in({0, 4}, dt);
    check_call(c, in, {1}, false);
    // The empty dim kept and fastest (column mode's shape), the reduced one of size 1: found by
    // tests/fuzz (a division by zero planning the column tile).
    DeviceTensor in10({1, 0}, dt);
    check_call(c, in10, {0}, false);
    if (c.has_keepdim) check_call(c, in10, {0}, true);
  }
  // Reducing the empty dim: the identity (sum 0, prod 1, all true, any false, mean / var NaN, ...),
  // or 161002 for the ops without one (extrema and their indices).
  const bool all = c.dims_kind == "all";
  const std::vector<int64_t> red = all ? std::vector<int64_t>{} : std::vector<int64_t>{0};
  DeviceTensor in({0, 4}, dt);
  if (c.nonempty) {
    const std::vector<int64_t> oshape = all ? std::vector<int64_t>{} : std::vector<int64_t>{4};
    DeviceTensor o0(oshape, out_dtype(c, 0, dt)), o1(oshape, out_dtype(c, 1 % c.results.size(), dt));
    Call call(c, in, red, false, o0, c.results.size() > 1 ? o1.get() : nullptr, out_dtype(c, 0, dt));
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "size 0"}));
    return;
  }
  if (c.kind == "norm" && std::isinf(c.p)) {  // undefined: rejected
    DeviceTensor o({4}, out_dtype(c, 0, dt));
    Call call(c, in, red, false, o, nullptr, out_dtype(c, 0, dt));
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "empty"}));
    return;
  }
  check_call(c, in, red, false);
  // The same input with no data behind it (allowed: it is never read) and a view offset: the
  // launch must not do arithmetic on the null pointer (found by tests/fuzz under UBSan).
  const int64_t dims[2] = {0, 4}, strides[2] = {4, 1};
  aclTensor *nodata = aclCreateTensor(dims, 2, dt, strides, 6, ACL_FORMAT_ND, nullptr, 0, nullptr);
  ASSERT_NE(nodata, nullptr) << aclGetRecentErrMsg();
  const std::vector<int64_t> oshape = all ? std::vector<int64_t>{} : std::vector<int64_t>{4};
  DeviceTensor o0(oshape, out_dtype(c, 0, dt)), o1(oshape, out_dtype(c, 1 % c.results.size(), dt));
  {
    Call call(c, nodata, red, false, o0, c.results.size() > 1 ? o1.get() : nullptr, out_dtype(c, 0, dt));
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(call.a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
  aclDestroyTensor(nodata);
}

TEST_P(OpTableReduce, ErrorsNameTheArgument) {
  const ReduceTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  const int nout = static_cast<int>(c.results.size());
  DeviceTensor in({3, 4}, dt);
  const bool all = c.dims_kind == "all";
  const std::vector<int64_t> oshape = all ? std::vector<int64_t>{} : std::vector<int64_t>{3};
  DeviceTensor o0(oshape, out_dtype(c, 0, dt)), o1(oshape, out_dtype(c, nout - 1, dt));
  aclTensor *second = nout > 1 ? o1.get() : nullptr;
  const std::vector<int64_t> dims = all ? std::vector<int64_t>{} : std::vector<int64_t>{1};
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  {  // the good call passes (so every failure below is the one argument's fault)
    Call call(c, in, dims, false, o0, second, out_dtype(c, 0, dt));
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(call.a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
  {
    Call call(c, nullptr, dims, false, o0, second, out_dtype(c, 0, dt));
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.self_name.c_str()}));
  }
  {
    Call call(c, in, dims, false, nullptr, second, out_dtype(c, 0, dt));
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  }
  if (!all) {
    Call range(c, in, {2}, false, o0, second, out_dtype(c, 0, dt));
    EXPECT_TRUE(fails_with(c.phase1(range.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out of range"}));
    Call range_neg(c, in, {-3}, false, o0, second, out_dtype(c, 0, dt));
    EXPECT_TRUE(fails_with(c.phase1(range_neg.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out of range"}));
  }
  if (c.dims_kind == "list") {
    DeviceTensor full({}, out_dtype(c, 0, dt)), full1({}, out_dtype(c, nout - 1, dt));
    Call dup(c, in, {1, -1}, false, full, nout > 1 ? full1.get() : nullptr, out_dtype(c, 0, dt));
    EXPECT_TRUE(fails_with(c.phase1(dup.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "more than once"}));
    ReduceArgs null_dims;
    Call good(c, in, {}, false, full, nout > 1 ? full1.get() : nullptr, out_dtype(c, 0, dt));
    null_dims = good.a;
    null_dims.dims = nullptr;
    if (c.null_dims_all)
      EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(null_dims, w, e); }, c.launch), 0);
    else
      EXPECT_TRUE(fails_with(c.phase1(null_dims, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  }
  {  // a wrong output shape
    DeviceTensor bad({5}, out_dtype(c, 0, dt));
    Call call(c, in, dims, false, bad, second, out_dtype(c, 0, dt));
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "[5]"}));
  }
  {  // a wrong output dtype
    const std::string &r = c.results[0];
    const aclDataType good = out_dtype(c, 0, dt);
    const aclDataType bad = r == "float" ? ACL_INT32 : r == "bool" ? ACL_INT32 : r == "index" || r == "int64" ? ACL_FLOAT
                            : good == ACL_DOUBLE ? ACL_FLOAT : ACL_DOUBLE;
    DeviceTensor o(oshape, bad);
    // `dtype` results: the dtype argument stays right, the output disagrees with it.
    Call call(c, in, dims, false, o, second, good);
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
  // Input dtypes outside the rule.
  for (aclDataType bad : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64,
                          ACL_UINT8, ACL_BOOL}) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), bad) != c.dtypes.end()) continue;
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    DeviceTensor b({3, 4}, bad);
    DeviceTensor bo(oshape, out_dtype(c, 0, bad)), bo1(oshape, out_dtype(c, nout - 1, bad));
    Call call(c, b, dims, false, bo, nout > 1 ? bo1.get() : nullptr, out_dtype(c, 0, bad));
    EXPECT_TRUE(fails_with(c.phase1(call.a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableReduce, ::testing::ValuesIn(all_cases()), harness::case_name<ReduceTableCase>);

}  // namespace
}  // namespace opsnn::test

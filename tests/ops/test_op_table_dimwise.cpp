// The test harness of the table-driven dim-wise ops (src/ops/dimwise/dimwise.ops): every op and
// sample of its parameters runs the same suites, registered from the table by tools/gen_ops.py
// --tests (dimwise_table_cases.inc in the build tree):
//   - every accepted dtype on random shapes (0-d to 4-d) and dims (negative too), keepdim on and
//     off, against the float64 reference (tests/common/float64_refs.h dimwise_ref): the precision
//     standard for softmax-like results, exact for sorted values and every index;
//   - permuted + offset input views and strided outputs; long lines;
//   - NaN and infinities; empty tensors;
//   - errors with their code and the argument named.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "kernels/dimwise/dimwise.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct DimwiseArgs {
  aclTensor *in[2] = {nullptr, nullptr};
  int64_t dim = 0, k = 1;
  bool keepdim = false, descending = false;
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclTensor *out[2] = {nullptr, nullptr};
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// The dim of a row whose prototype takes it as an aclScalar (aclnnCumprod): an INT64 scalar that
// lives until the next call (phase 1 reads it at once).
aclScalar *dim_scalar(int64_t d) {
  static thread_local aclScalar *s = nullptr;
  if (s != nullptr) aclDestroyScalar(s);
  s = aclCreateScalar(&d, ACL_INT64);
  return s;
}

struct DimwiseTableCase {
  std::string name, api, kind, shape, in_name;
  std::vector<aclDataType> dtypes;
  std::vector<std::string> results;  // per output: same / dtype / int64
  int nin = 1, out_first = 0;
  bool has_keepdim = false;
  int64_t k = 1;
  bool descending = false;
  bool inplace = false;  // one tensor, read and written (in[0] is the output)
  int (*phase1)(const DimwiseArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const DimwiseTableCase &c, std::ostream *os) { *os << c.name; }

#include "dimwise_table_cases.inc"

const std::vector<DimwiseTableCase> &all_cases() {
  static const std::vector<DimwiseTableCase> c = harness::sampled(dimwise_table_cases());
  return c;
}

using harness::is_float;

aclDataType out_dtype(const DimwiseTableCase &c, int k, aclDataType in) {
  const std::string &r = c.results[static_cast<size_t>(k)];
  if (r == "same") return in;
  if (r == "dtype") return is_float(in) ? in : ACL_INT64;
  return ACL_INT64;
}

double as_stored(aclDataType dt, double v) {
  if (is_float(dt)) return round_to(dt, v);
  return harness::wrap_to(dt, v);
}

// The shapes of one call: input, output, and which dims form the line.
struct Geometry {
  std::vector<int64_t> in_shape, out_shape;
  int dim = 0;  // normalised (kAll: unused)
};
Geometry geometry(const DimwiseTableCase &c, std::vector<int64_t> shape, int64_t dim_arg, bool keepdim) {
  Geometry g;
  g.in_shape = shape;
  const int nd = static_cast<int>(shape.size());
  g.dim = nd == 0 ? 0 : static_cast<int>(dim_arg < 0 ? dim_arg + nd : dim_arg);
  if (c.shape == "all") return g;
  for (int d = 0; d < nd; ++d) {
    if (d != g.dim || c.shape == "full") g.out_shape.push_back(shape[static_cast<size_t>(d)]);
    else if (c.shape == "topk") g.out_shape.push_back(c.k);
    else if (keepdim) g.out_shape.push_back(1);
  }
  return g;
}

std::pair<double, double> input_range(const DimwiseTableCase &c, int which, aclDataType dt) {
  if (dt == ACL_BOOL) return {0, 1};
  if (!is_float(dt)) return {dt == ACL_UINT8 ? 0.0 : -20.0, 20.0};
  if (c.kind == "log_softmax_backward" && which == 1) return {-4, 0};
  if (c.kind == "softmax_backward" && which == 1) return {0, 1};
  return {-4, 4};
}

// Golden outputs of a call, in row-major output order.
std::vector<std::vector<double>> golden(const DimwiseTableCase &c, const Geometry &g, const std::vector<double> &x,
                                        const std::vector<double> &x2, bool integral) {
  const int nd = static_cast<int>(g.in_shape.size());
  std::vector<int64_t> outer, line;
  for (int d = 0; d < nd; ++d)
    (c.shape == "all" || d == g.dim ? line : outer).push_back(g.in_shape[static_cast<size_t>(d)]);
  const auto st = contiguous_strides(g.in_shape);
  const int64_t nout_line = c.shape == "full" ? numel_of(line) : c.shape == "topk" ? c.k : 1;
  std::vector<std::vector<double>> out(2, std::vector<double>(static_cast<size_t>(numel_of(outer) * nout_line)));
  for (int64_t o = 0; o < numel_of(outer); ++o) {
    const auto oi = unravel(o, outer);
    std::vector<double> lx, lx2;
    for (int64_t r = 0; r < numel_of(line); ++r) {
      const auto li = unravel(r, line);
      int64_t lin = 0;
      size_t a = 0, b = 0;
      for (int d = 0; d < nd; ++d)
        lin += st[static_cast<size_t>(d)] * (c.shape == "all" || d == g.dim ? li[a++] : oi[b++]);
      lx.push_back(x[static_cast<size_t>(lin)]);
      if (!x2.empty()) lx2.push_back(x2[static_cast<size_t>(lin)]);
    }
    const refs::DimwiseRef ref = refs::dimwise_ref(c.kind, lx, lx2, c.k, c.descending, integral);
    // Output position of line element j: the outer index with the line dim at j (row-major).
    for (int64_t j = 0; j < nout_line; ++j) {
      int64_t pos = 0;
      if (c.shape == "full" || c.shape == "topk") {
        std::vector<int64_t> idx;
        size_t b = 0;
        for (int d = 0; d < nd; ++d) idx.push_back(d == g.dim ? j : oi[b++]);
        const auto ost = contiguous_strides(g.out_shape);
        for (int d = 0; d < nd; ++d) pos += idx[static_cast<size_t>(d)] * ost[static_cast<size_t>(d)];
      } else {
        pos = o;
      }
      const std::vector<double> *src[2] = {&ref.v0, &ref.v1};
      for (int k = 0; k < 2; ++k)
        if (!src[k]->empty()) out[static_cast<size_t>(k)][static_cast<size_t>(pos)] = (*src[k])[static_cast<size_t>(j)];
    }
  }
  return out;
}

// Runs one call and compares every output (index_dtype: the dtype of an `index` result).
void check_call(const DimwiseTableCase &c, DeviceTensor &x, DeviceTensor *x2, int64_t dim, bool keepdim,
                bool strided_out = false, aclDataType index_dtype = ACL_INT64) {
  const aclDataType dt = x.dtype();
  const Geometry g = geometry(c, x.shape(), dim, keepdim);
  const int nout = static_cast<int>(c.results.size());
  auto make_out = [&](int k) {
    const aclDataType odt = c.results[static_cast<size_t>(k)] == "index" ? index_dtype : out_dtype(c, k, dt);
    if (!strided_out || g.out_shape.empty()) return std::make_unique<DeviceTensor>(g.out_shape, odt);
    std::vector<int64_t> st = contiguous_strides(g.out_shape);
    for (auto &s : st) s *= 2;  // every other element
    return std::make_unique<DeviceTensor>(g.out_shape, odt, st, 1, numel_of(g.out_shape) * 2 + 2);
  };
  auto o0 = make_out(0), o1 = make_out(nout - 1);
  o0->poison();
  o1->poison();
  if (c.inplace) o0->set_values(x.values());  // the in-place tensor starts as the input
  DimwiseArgs a;
  a.in[0] = c.inplace ? o0->get() : x.get();
  a.in[1] = x2 != nullptr ? x2->get() : nullptr;
  a.dim = dim;
  a.k = c.k;
  a.keepdim = keepdim;
  a.descending = c.descending;
  a.dtype = out_dtype(c, 0, dt);
  a.out[0] = c.inplace ? nullptr : o0->get();
  a.out[1] = nout > 1 ? o1->get() : nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const bool integral = !is_float(dt) && !is_float(out_dtype(c, 0, dt));
  const auto gold = golden(c, g, x.values(), x2 != nullptr ? x2->values() : std::vector<double>{}, integral);
  DeviceTensor *outs[2] = {o0.get(), o1.get()};
  for (int k = 0; k < nout; ++k) {
    const aclDataType odt = outs[k]->dtype();
    std::vector<double> want = gold[static_cast<size_t>(k + c.out_first)];
    for (double &v : want) v = as_stored(odt, v);
    EXPECT_TRUE(meets_precision(odt, outs[k]->values(), want)) << "output " << k;
    EXPECT_TRUE(outs[k]->untouched_outside_view());
  }
}

struct RandomCall {
  std::vector<int64_t> shape;
  int64_t dim;
  bool keepdim;
};
RandomCall random_call(const DimwiseTableCase &c, int max_extent = 6) {
  auto &g = rng();
  RandomCall r;
  const int nd = static_cast<int>(g() % 5);
  for (int d = 0; d < nd; ++d) r.shape.push_back(1 + static_cast<int64_t>(g() % static_cast<uint64_t>(max_extent)));
  const int64_t span = std::max(nd, 1);
  r.dim = static_cast<int64_t>(g() % static_cast<uint64_t>(span));
  if (g() & 1) r.dim -= span;
  r.keepdim = c.has_keepdim && (g() & 1);
  // The line must hold k elements (topk, kthvalue).
  if (nd > 0 && (c.shape == "topk" || c.kind == "kthvalue")) {
    auto &ext = r.shape[static_cast<size_t>(r.dim < 0 ? r.dim + nd : r.dim)];
    ext = std::max(ext, c.k);
  }
  if (nd == 0 && (c.shape == "topk" || c.kind == "kthvalue") && c.k != 1) r.shape = {c.k + 2};  // 0-d: one element
  return r;
}

class OpTableDimwise : public ::testing::TestWithParam<DimwiseTableCase> {};

TEST_P(OpTableDimwise, EveryDtypeRandomShapes) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    for (int t = 0; t < 6; ++t) {
      const RandomCall r = random_call(c);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(r.shape)
                                        << " dim " << r.dim << " keepdim " << r.keepdim);
      DeviceTensor x(r.shape, dt), x2(r.shape, dt);
      const auto [lo, hi] = input_range(c, 0, dt);
      x.fill_random(lo, hi);
      const auto [lo2, hi2] = input_range(c, 1, dt);
      x2.fill_random(lo2, hi2);
      check_call(c, x, c.nin == 2 ? &x2 : nullptr, r.dim, r.keepdim);
    }
  }
}

TEST_P(OpTableDimwise, PermutedInputsStridedOutputs) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  // [5, 7, 9] stored as [9, 5, 7] after 3 padding elements.
  const std::vector<int64_t> shape = {5, 7, 9}, strides = {7, 1, 35};
  for (int64_t dim : {0, 1, 2, -1}) {
    SCOPED_TRACE(::testing::Message() << c.name << " dim " << dim);
    DeviceTensor x(shape, dt, strides, 3, 3 + 5 * 7 * 9), x2(shape, dt, strides, 3, 3 + 5 * 7 * 9);
    const auto [lo, hi] = input_range(c, 0, dt);
    x.fill_random(lo, hi);
    const auto [lo2, hi2] = input_range(c, 1, dt);
    x2.fill_random(lo2, hi2);
    check_call(c, x, c.nin == 2 ? &x2 : nullptr, dim, c.has_keepdim && dim == 1, true);
  }
}

TEST_P(OpTableDimwise, LongLines) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  for (const auto &shape : {std::vector<int64_t>{3, 5000}, std::vector<int64_t>{4000, 2}}) {
    SCOPED_TRACE(::testing::Message() << c.name << " shape " << ::testing::PrintToString(shape));
    DeviceTensor x(shape, dt), x2(shape, dt);
    const auto [lo, hi] = input_range(c, 0, dt);
    x.fill_random(lo, hi);
    const auto [lo2, hi2] = input_range(c, 1, dt);
    x2.fill_random(lo2, hi2);
    check_call(c, x, c.nin == 2 ? &x2 : nullptr, shape[0] == 3 ? 1 : 0, false);
  }
}

TEST_P(OpTableDimwise, SpecialValues) {
  const DimwiseTableCase &c = GetParam();
  if (std::find(c.dtypes.begin(), c.dtypes.end(), ACL_FLOAT) == c.dtypes.end()) return;
  const std::vector<std::vector<double>> rows = {{1, NAN, 2, -3, 0}, {1, INFINITY, 2, -3, 0},
                                                 {-INFINITY, 1, 2, -INFINITY, 0}, {0, -0.0, 0, 5, 5},
                                                 {NAN, NAN, 1, NAN, -1}};
  for (const auto &row : rows) {
    SCOPED_TRACE(::testing::Message() << c.name << " row " << ::testing::PrintToString(row));
    DeviceTensor x({1, 5}, ACL_FLOAT), x2({1, 5}, ACL_FLOAT);
    x.set_values(row);
    x2.set_values({0.1, 0.2, 0.3, 0.25, 0.15});
    check_call(c, x, c.nin == 2 ? &x2 : nullptr, 1, false);
  }
}

// FLOAT softmax / log-softmax rows go three at a time through kernels/dimwise/softmax_rows.h: row
// counts below and above the pipeline's depth, lengths around the vector width and the path's
// limits, and rows holding a NaN, +inf, only -inf, some -inf or values of 1e30 next to ordinary
// rows, so each stage meets them beside the others.
TEST_P(OpTableDimwise, FloatRowsInFlightWithSpecials) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  if (c.kind != "softmax" && c.kind != "log_softmax") return;
  for (const int64_t n : {1, 5, 16, 33, 512, 1000, 2048, 4096}) {
    for (const int64_t rows : {1, 2, 3, 11}) {
      SCOPED_TRACE(::testing::Message() << c.name << " rows " << rows << " n " << n);
      DeviceTensor x({rows, n}, ACL_FLOAT);
      x.fill_random(-4, 4);
      std::vector<double> v = x.values();
      auto at = [&](int64_t r, int64_t i) -> double & { return v[static_cast<size_t>(r * n + i)]; };
      const int64_t p = static_cast<int64_t>(rng()() % static_cast<uint64_t>(n));
      if (rows > 1) at(1, p) = NAN;
      if (rows > 2) at(2, p) = INFINITY;
      if (rows > 3)
        for (int64_t i = 0; i < n; ++i) at(3, i) = -INFINITY;
      if (rows > 4)
        for (int64_t i = 0; i < n; i += 3) at(4, i) = -INFINITY;
      if (rows > 5)
        for (int64_t i = 0; i < n; ++i) at(5, i) *= 2.5e29;
      x.set_values(v);
      check_call(c, x, nullptr, 1, false);
    }
  }
}

// An output larger than the last-level cache (phase 1 may choose non-temporal stores for it).
TEST_P(OpTableDimwise, FloatRowsPastTheLastLevelCache) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  if (c.kind != "softmax" && c.kind != "log_softmax") return;
  const int64_t n = 1024 + static_cast<int64_t>(rng()() % 2) * 16;
  DeviceTensor x({static_cast<int64_t>(kernels::dimwise_stream_out_bytes()) / (4 * n) + 3, n}, ACL_FLOAT);
  x.fill_random(-4, 4);
  check_call(c, x, nullptr, 1, false);
}

// Long lines drawn from a few values (many ties) with NaN, both zeros and infinities among them,
// in FLOAT and in each integer dtype the op accepts: the sorting ops' radix and heap paths (lines of
// 64 and more) must keep ties in position order, NaN largest and -0 tied with +0, as the reference.
TEST_P(OpTableDimwise, LongLinesOfTiesAndSpecials) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    if (dt != ACL_FLOAT && (is_float(dt) || dt == ACL_BOOL)) continue;
    const std::vector<double> pool = is_float(dt) ? std::vector<double>{NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -2, 3}
                                                  : std::vector<double>{0, 1, -1, 7, -100, 100, dt == ACL_UINT8 ? 200.0 : -7.0};
    for (const auto &shape : {std::vector<int64_t>{2, 3000}, std::vector<int64_t>{1, 64}, std::vector<int64_t>{1, 700}}) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(shape));
      std::vector<double> v(static_cast<size_t>(numel_of(shape)));
      for (double &e : v) e = pool[rng()() % pool.size()];
      if (dt == ACL_UINT8)
        for (double &e : v) e = std::fabs(e);
      DeviceTensor x(shape, dt), x2(shape, dt);
      x.set_values(v);
      const auto [lo2, hi2] = input_range(c, 1, dt);
      x2.fill_random(lo2, hi2);
      check_call(c, x, c.nin == 2 ? &x2 : nullptr, 1, false);
    }
  }
}

// FLOAT top-k read in place (k * 64 <= n): lines up to 16384 without NaN take the 64-lane bound
// and keep the elements reaching it; longer lines, and lines with a NaN, the heap behind a vector
// threshold. Lines of a few values (ties kept in position order, -0 tied with +0, infinities) and
// of random values, with and without a NaN, for k = 1, 8 and 64, largest and smallest.
TEST_P(OpTableDimwise, FloatTopkTiesBoundsAndNaN) {
  reseed_for_current_test();
  if (GetParam().kind != "topk") return;
  const std::vector<double> pool = {-0.0, 0.0, INFINITY, -INFINITY, 1.5, -2, 3};
  for (int64_t k : {1, 8, 64}) {
    DimwiseTableCase c = GetParam();
    c.k = k;
    for (const int64_t n : {int64_t{64 * 64}, int64_t{5000}, int64_t{20000}}) {
      if (k * 64 > n) continue;
      for (int variant = 0; variant < 4; ++variant) {  // ties, ties + NaN, random, random + NaN
        SCOPED_TRACE(::testing::Message() << c.name << " k " << k << " n " << n << " variant " << variant);
        std::vector<double> v(static_cast<size_t>(2 * n));
        for (double &e : v) e = variant < 2 ? pool[rng()() % pool.size()] : std::ldexp(double(rng()() % 1000000), -10) - 500;
        if (variant % 2 == 1) v[static_cast<size_t>(n + n / 3)] = v[static_cast<size_t>(n / 2)] = NAN;
        DeviceTensor x({2, n}, ACL_FLOAT);
        x.set_values(v);
        check_call(c, x, nullptr, 1, false);
      }
    }
  }
}

TEST_P(OpTableDimwise, EmptyTensors) {
  const DimwiseTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  if (c.shape == "all" || c.shape == "reduced" || (c.shape == "topk" && c.k > 0)) {
    // Selecting from an empty line is an error; an empty outer dim is an empty output.
    if (c.shape != "all") {
      DeviceTensor x({0, 4}, dt);
      check_call(c, x, nullptr, 1, false);
    }
    DeviceTensor x({4, 0}, dt);
    const Geometry g = geometry(c, x.shape(), 1, false);
    DeviceTensor o0(g.out_shape, out_dtype(c, 0, dt)), o1(g.out_shape, ACL_INT64);
    DimwiseArgs a;
    a.in[0] = x;
    a.dim = 1;
    a.k = c.k;
    a.dtype = out_dtype(c, 0, dt);
    a.out[0] = o0;
    a.out[1] = c.results.size() > 1 ? o1.get() : nullptr;
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID) << "selecting from an empty dim";
    return;
  }
  for (const auto &shape : {std::vector<int64_t>{0, 4}, std::vector<int64_t>{4, 0}}) {
    DeviceTensor x(shape, dt), x2(shape, dt);
    check_call(c, x, c.nin == 2 ? &x2 : nullptr, 1, false);
  }
}

TEST_P(OpTableDimwise, ErrorsNameTheArgument) {
  const DimwiseTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  const std::vector<int64_t> shape = {3, 4};
  const Geometry g = geometry(c, shape, 1, false);
  const int nout = static_cast<int>(c.results.size());
  DeviceTensor x(shape, dt), x2(shape, dt), o0(g.out_shape, out_dtype(c, 0, dt)),
      o1(g.out_shape, out_dtype(c, nout - 1, dt));
  x.fill_random(0, 1);
  x2.fill_random(0, 1);
  auto args = [&]() {
    DimwiseArgs a;
    a.in[0] = x;
    a.in[1] = c.nin == 2 ? x2.get() : nullptr;
    a.dim = 1;
    a.k = c.k;
    a.dtype = out_dtype(c, 0, dt);
    a.out[0] = o0;
    a.out[1] = nout > 1 ? o1.get() : nullptr;
    return a;
  };
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  {
    const DimwiseArgs a = args();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
  {
    DimwiseArgs a = args();
    a.in[0] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.in_name.c_str()}));
  }
  if (!c.inplace) {
    DimwiseArgs a = args();
    a.out[0] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  }
  if (c.shape != "all") {
    DimwiseArgs a = args();
    a.dim = 2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out of range"}));
    a.dim = -3;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "out of range"}));
  }
  if (c.shape == "topk" || c.kind == "kthvalue") {
    DimwiseArgs a = args();
    a.k = 5;  // the line holds 4
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "k = 5"}));
  }
  if (!c.inplace) {
    DeviceTensor bad({7}, out_dtype(c, 0, dt));
    DimwiseArgs a = args();
    a.out[0] = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "[7]"}));
  }
  if (!c.inplace) {
    const aclDataType good = out_dtype(c, 0, dt);
    DeviceTensor bad(g.out_shape, good == ACL_DOUBLE ? ACL_FLOAT : ACL_DOUBLE);
    DimwiseArgs a = args();
    a.out[0] = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
  for (aclDataType bad : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64,
                          ACL_UINT8, ACL_BOOL}) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), bad) != c.dtypes.end()) continue;
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    DeviceTensor b(shape, bad), b2(shape, bad), bo(g.out_shape, out_dtype(c, 0, bad)),
        bo1(g.out_shape, out_dtype(c, nout - 1, bad));
    DimwiseArgs a = args();
    a.in[0] = b;
    a.in[1] = c.nin == 2 ? b2.get() : nullptr;
    a.dtype = out_dtype(c, 0, bad);
    a.out[0] = bo;
    a.out[1] = nout > 1 ? bo1.get() : nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
}

// Rows whose indices may be INT32 or INT64 (cummax, cummin): the INT32 form, and a float output
// refused naming the argument.
TEST_P(OpTableDimwise, Int32Indices) {
  reseed_for_current_test();
  const DimwiseTableCase &c = GetParam();
  if (c.results.size() < 2 || c.results[1] != "index") return;
  for (aclDataType dt : c.dtypes) {
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
    DeviceTensor x({4, 6}, dt);
    const auto [lo, hi] = input_range(c, 0, dt);
    x.fill_random(lo, hi);
    check_call(c, x, nullptr, -1, false, true, ACL_INT32);
  }
  DeviceTensor x({4, 6}, c.dtypes.front()), v({4, 6}, c.dtypes.front()), bad({4, 6}, ACL_FLOAT);
  DimwiseArgs a;
  a.in[0] = x;
  a.dim = 1;
  a.out[0] = v;
  a.out[1] = bad;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "indicesOut"}));
}

// Ties and NaN of the running extremum (torch.cummax / cummin), written out.
TEST(OpTableDimwiseFixed, CummaxCumminTiesAndNaN) {
  DeviceTensor x({7}, ACL_FLOAT), v({7}, ACL_FLOAT), i({7}, ACL_INT64);
  x.set_values({1, 3, 3, 2, NAN, 5, NAN});
  auto run = [&](auto ph1, auto launch) {
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return ph1(x.get(), 0, v.get(), i.get(), w, e); }, launch), 0)
        << aclGetRecentErrMsg();
  };
  run(aclnnCummaxGetWorkspaceSize, aclnnCummax);
  EXPECT_EQ(i.values(), (std::vector<double>{0, 1, 2, 2, 4, 4, 4}));
  run(aclnnCumminGetWorkspaceSize, aclnnCummin);
  EXPECT_EQ(i.values(), (std::vector<double>{0, 0, 0, 0, 4, 4, 4}));
  DeviceTensor y({5}, ACL_INT32), yv({5}, ACL_INT32), yi({5}, ACL_INT32);
  y.set_values({2, 1, 1, 4, 1});
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCumminGetWorkspaceSize(y, -1, yv, yi, w, e); },
                   aclnnCummin), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(yv.values(), (std::vector<double>{2, 1, 1, 1, 1}));
  EXPECT_EQ(yi.values(), (std::vector<double>{0, 1, 2, 2, 4}));
}

// Cumprod's dim is an aclScalar: null is 161001, a floating one 161002, both naming it.
TEST(OpTableDimwiseFixed, CumprodDimScalar) {
  DeviceTensor x({2, 3}, ACL_FLOAT), o({2, 3}, ACL_FLOAT);
  x.set_values({1, 2, 3, 4, 5, 6});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnCumprodGetWorkspaceSize(x, nullptr, ACL_FLOAT, o, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                         {"aclnnCumprod", "dim"}));
  double d = 1.0;
  aclScalar *fs = aclCreateScalar(&d, ACL_DOUBLE);
  EXPECT_TRUE(fails_with(aclnnCumprodGetWorkspaceSize(x, fs, ACL_FLOAT, o, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnCumprod", "dim"}));
  aclDestroyScalar(fs);
  int32_t d32 = -1;
  aclScalar *is = aclCreateScalar(&d32, ACL_INT32);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCumprodGetWorkspaceSize(x, is, ACL_FLOAT, o, w, e); },
                   aclnnCumprod), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(o.values(), (std::vector<double>{1, 2, 6, 4, 20, 120}));
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceCumprodGetWorkspaceSize(x, is, w, e); },
                   aclnnInplaceCumprod), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(x.values(), (std::vector<double>{1, 2, 6, 4, 20, 120}));
  aclDestroyScalar(is);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableDimwise, ::testing::ValuesIn(all_cases()), harness::case_name<DimwiseTableCase>);

}  // namespace
}  // namespace opsnn::test

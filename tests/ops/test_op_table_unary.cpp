// The one test harness of the table-driven unary ops (src/ops/*/*.ops with `phase1 unary`): every
// op the tables list, and every sample of its parameters, runs the same suites, registered from
// the tables by tools/gen_ops.py --tests (op_table_cases.inc in the build tree):
//   - every accepted dtype (integers and BOOL too, where the rule takes them) on contiguous,
//     transposed + offset, padded, broadcast (stride 0), 0-d and size-1 views, against the row's
//     float64 reference, with the precision standard (shared/spec/precision.md);
//   - a wider output dtype than the result (the conversion on store), or its rejection where the
//     row documents `out_dtype same`;
//   - the in-place twin on a strided view, over its accepted dtypes;
//   - special values (NaN, +-Inf, +-0, denormals, extremes) in FLOAT and DOUBLE;
//   - zero-size tensors;
//   - errors, each with its code and the argument named: null tensors and required scalars, a
//     wrong output shape, every dtype outside the rule (and outside the in-place rule), an output
//     dtype the result cannot be cast to, and the rows' rejected parameter values.
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using harness::case_name;
using harness::is_float;
using harness::kAllDtypes;
using harness::kSpecials;
using harness::Launch;
using harness::same_special;
using harness::wrap_to;
using refs::elu;
using refs::erfinv_ref;
using refs::fast_gelu;
using refs::gelu_erf;
using refs::gelu_tanh;
using refs::hardshrink;
using refs::hardsigmoid;
using refs::hardswish;
using refs::kSeluAlpha;
using refs::kSeluScale;
using refs::logit;
using refs::logsig;
using refs::mish;
using refs::relu;
using refs::sigm;
using refs::softplus;
using refs::softshrink;

using Phase1 = int (*)(aclTensor *self, aclTensor *out, uint64_t *, aclOpExecutor **);
using Inplace1 = int (*)(aclTensor *self, uint64_t *, aclOpExecutor **);

struct ParamCall {
  std::string what;  // the argument name (null parameters) or the word the message contains (rejects)
  Phase1 phase1;
};

struct UnaryTableCase {
  std::string name, api, family, self_name, out_name, inplace_name;
  std::vector<aclDataType> dtypes, inplace_dtypes;
  bool float_result = false;
  bool out_same_dtype = false;
  double lo = -6, hi = 6;
  double special_tol = 1e-5;
  bool signed_zero = false;
  double (*ref)(double) = nullptr;
  Phase1 phase1 = nullptr;
  Launch launch = nullptr;
  Inplace1 inplace_phase1 = nullptr;
  Launch inplace_launch = nullptr;
  std::vector<ParamCall> null_params, rejects;
};

// GoogleTest prints a case by its name (not as bytes).
void PrintTo(const UnaryTableCase &c, std::ostream *os) { *os << c.name; }

using harness::scalar_arg;

#include "op_table_cases.inc"

const std::vector<UnaryTableCase> &all_cases() {
  static const std::vector<UnaryTableCase> c = harness::sampled(unary_table_cases());
  return c;
}


// The dtype the op returns for input dtype `in`, and the golden value as that output holds it.
aclDataType result_dtype(const UnaryTableCase &c, aclDataType in) {
  return c.float_result && !is_float(in) ? ACL_FLOAT : in;
}
double golden(const UnaryTableCase &c, aclDataType in, aclDataType out, double x) {
  const double r = c.ref(x);
  if (is_float(out)) {
    // computed in the result dtype's precision (FLOAT for integers), then stored in `out`
    return round_to(out, is_float(in) ? round_to(in == ACL_DOUBLE ? ACL_DOUBLE : in, r) : round_to(ACL_FLOAT, r));
  }
  return wrap_to(out, r);
}

// Random input range of dtype `dt` within the row's domain (integers: whole numbers in it).
std::pair<double, double> input_range(const UnaryTableCase &c, aclDataType dt) {
  return harness::dtype_range(c.lo, c.hi, dt);
}

struct Layout {
  const char *name;
  std::vector<int64_t> shape, strides;
  int64_t offset, storage;  // storage 0: just large enough
};
// The input views every dtype runs on (the output is contiguous).
const Layout kLayouts[] = {
    {"contiguous", {37, 29}, {29, 1}, 0, 0},
    {"transposed+offset", {37, 29}, {1, 37}, 3, 37 * 29 + 5},
    {"padded rows", {9, 11, 5}, {70, 6, 1}, 2, 9 * 70},
    {"broadcast (stride 0)", {6, 16}, {0, 1}, 1, 0},
    {"0-d", {}, {}, 4, 8},
    {"size-1 dims", {1, 7, 1}, {7, 1, 1}, 0, 0},
};

class OpTableUnary : public ::testing::TestWithParam<UnaryTableCase> {};

TEST_P(OpTableUnary, EveryDtypeOnEveryLayout) {
  reseed_for_current_test();
  const UnaryTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    const aclDataType odt = result_dtype(c, dt);
    const auto [lo, hi] = input_range(c, dt);
    for (const Layout &l : kLayouts) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " layout " << l.name);
      DeviceTensor in(l.shape, dt, l.strides, l.offset, l.storage);
      in.fill_random(lo, hi);
      DeviceTensor out(l.shape, odt);
      out.poison();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(in, out, w, e); }, c.launch), 0)
          << aclGetRecentErrMsg();
      auto gold = in.values();
      for (auto &x : gold) x = golden(c, dt, odt, x);
      EXPECT_TRUE(meets_precision(odt, out.values(), gold));
      EXPECT_TRUE(out.untouched_outside_view());
      EXPECT_TRUE(in.untouched_outside_view());
    }
  }
}

TEST_P(OpTableUnary, WiderOutputDtype) {
  reseed_for_current_test();
  const UnaryTableCase &c = GetParam();
  const aclDataType in_dt = c.dtypes.front();  // FLOAT for every floating rule, else the first
  const aclDataType odt = is_float(result_dtype(c, in_dt)) ? ACL_DOUBLE : ACL_INT64;
  DeviceTensor in({5, 33}, in_dt), out({5, 33}, odt);
  const auto [lo, hi] = input_range(c, in_dt);
  in.fill_random(lo, hi);
  out.poison();
  if (c.out_same_dtype) {  // documented: the output has the input's dtype
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(in, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.out_name.c_str(), "dtype"}));
    return;
  }
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(in, out, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  auto gold = in.values();
  const aclDataType rdt = result_dtype(c, in_dt);
  for (auto &x : gold) x = golden(c, in_dt, rdt, x);  // computed in the result dtype, widened exactly
  EXPECT_TRUE(meets_precision(rdt, out.values(), gold));
}

// The cases of ops with an in-place twin.
class OpTableUnaryInPlace : public ::testing::TestWithParam<UnaryTableCase> {};

TEST_P(OpTableUnaryInPlace, InPlaceOnStridedViews) {
  reseed_for_current_test();
  const UnaryTableCase &c = GetParam();
  for (aclDataType dt : c.inplace_dtypes) {
    SCOPED_TRACE(::testing::Message() << c.name << " in place, dtype " << dt);
    DeviceTensor io({24, 33}, dt, {40, 1}, 2, 24 * 40);
    const auto [lo, hi] = input_range(c, dt);
    io.fill_random(lo, hi);
    auto gold = io.values();
    for (auto &x : gold) x = golden(c, dt, dt, x);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.inplace_phase1(io, w, e); }, c.inplace_launch), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_precision(dt, io.values(), gold));
    EXPECT_TRUE(io.untouched_outside_view());
  }
}

TEST_P(OpTableUnary, SpecialValues) {
  const UnaryTableCase &c = GetParam();
  for (aclDataType dt : {ACL_FLOAT, ACL_DOUBLE}) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) continue;
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
    std::vector<double> x;
    for (double v : kSpecials) x.push_back(round_to(dt, v));
    const auto n = static_cast<int64_t>(x.size());
    DeviceTensor in({n}, dt), out({n}, dt);
    in.set_values(x);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(in, out, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    const auto got = out.values();
    const double tol = dt == ACL_FLOAT ? c.special_tol : 1e-12;
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = round_to(dt, c.ref(x[i]));
      EXPECT_TRUE(same_special(got[i], want, tol, c.signed_zero))
          << c.name << "(" << x[i] << ") = " << got[i] << ", want " << want;
    }
  }
}

TEST_P(OpTableUnary, ZeroSize) {
  const UnaryTableCase &c = GetParam();
  for (aclDataType dt : {c.dtypes.front(), c.dtypes.back()}) {
    DeviceTensor in({0, 3}, dt), out({0, 3}, result_dtype(c, dt));
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(in, out, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
}

TEST_P(OpTableUnary, ErrorsNameTheArgument) {
  const UnaryTableCase &c = GetParam();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclDataType dt = c.dtypes.front();
  const aclDataType odt = result_dtype(c, dt);
  DeviceTensor in({4}, dt), out({4}, odt), out5({5}, odt);
  const char *api = c.api.c_str();
  EXPECT_TRUE(fails_with(c.phase1(nullptr, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.self_name.c_str()}));
  EXPECT_TRUE(fails_with(c.phase1(in, nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.out_name.c_str()}));
  EXPECT_TRUE(fails_with(c.phase1(in, out5, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str(), "[5]", "[4]"}));
  // Every dtype outside the rule, named in the message.
  for (aclDataType bad : kAllDtypes) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), bad) != c.dtypes.end()) continue;
    DeviceTensor b({4}, bad), bo({4}, bad);
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    EXPECT_TRUE(fails_with(c.phase1(b, bo, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.self_name.c_str(), "dtype"}));
  }
  // An output dtype the result cannot be cast to (floating -> integer, or integer -> BOOL).
  {
    DeviceTensor bad_out({4}, is_float(odt) ? ACL_INT32 : ACL_BOOL);
    EXPECT_TRUE(fails_with(c.phase1(in, bad_out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str()}));
  }
  for (const ParamCall &p : c.null_params) {
    SCOPED_TRACE(p.what);
    EXPECT_TRUE(fails_with(p.phase1(in, out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, p.what.c_str()}));
  }
  for (const ParamCall &p : c.rejects) {
    SCOPED_TRACE(p.what);
    EXPECT_TRUE(fails_with(p.phase1(in, out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, p.what.c_str()}));
  }
  if (c.inplace_phase1) {
    EXPECT_TRUE(fails_with(c.inplace_phase1(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {c.inplace_name.c_str()}));
    for (aclDataType bad : kAllDtypes) {
      if (std::find(c.inplace_dtypes.begin(), c.inplace_dtypes.end(), bad) != c.inplace_dtypes.end()) continue;
      DeviceTensor b({4}, bad);
      SCOPED_TRACE(::testing::Message() << "in place, dtype " << bad);
      EXPECT_TRUE(fails_with(c.inplace_phase1(b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.inplace_name.c_str(), "dtype"}));
    }
  }
}

std::vector<UnaryTableCase> inplace_cases() {
  std::vector<UnaryTableCase> v;
  for (const auto &c : all_cases())
    if (c.inplace_phase1) v.push_back(c);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableUnary, ::testing::ValuesIn(all_cases()), case_name<UnaryTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableUnaryInPlace, ::testing::ValuesIn(inplace_cases()), case_name<UnaryTableCase>);

}  // namespace
}  // namespace opsnn::test

// The one test harness of the table-driven n-ary element-wise ops (src/ops/*/*.ops with `phase1
// nary`: binary.ops, comparison.ops, ternary.ops, activation_backward.ops): every op the tables list, and every sample of
// its parameters, runs the same suites, registered from the tables by tools/gen_ops.py
// --nary-tests (op_table_nary_cases.inc in the build tree):
//   - every promoted dtype the rule takes (operands of that dtype, scalars of its category) on
//     contiguous, transposed + offset, padded, broadcast, stride-0, 0-d, 0-d-with-dims and size-1
//     views, against the row's float64 reference, with the precision standard;
//   - type promotion: every pair of operand dtypes (tensors with dims, a 0-d tensor, scalars of
//     each category) against an independent torch.result_type (ew_test_common.h), accepted or
//     rejected by the rule (and operands of one dtype where the row asks for it);
//   - a wider output dtype than the result (the conversion on store);
//   - the in-place twin on a strided view with broadcast operands, over its dtypes;
//   - special values (NaN, +-Inf, +-0, denormals, extremes; every pair for two tensor operands)
//     in FLOAT and DOUBLE;
//   - zero-size tensors;
//   - errors, each with its code and the argument named: null tensors and scalars (all the
//     optional operands null), a wrong output
//     shape, operands that do not broadcast, an in-place operand the broadcast would grow, every
//     dtype outside the rule (and outside an operand's own list), an output dtype the result
//     cannot be cast to, a fractional parameter for an integral result, and the rows' rejected
//     attribute values;
//   - the gradient rows (`forward`): the float64 reference and the op's FLOAT result against a
//     central difference of the forward formula, at random points away from its kinks.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "ew_test_common.h"
#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using harness::is_float;
using harness::kAllDtypes;
using harness::Launch;
using harness::scalar_arg;
using harness::wrap_to;

enum class NaryResult { kPromoted, kFloating, kBool };

// One non-output parameter of the op, in prototype order.
struct NaryArg {
  // operand tensor / operand scalar / s0 scalar / attribute / value scalar (a gradient's alpha, lambd, ...)
  enum Kind { kTensor, kScalar, kParam, kAttr, kValue };
  std::string name;
  Kind kind;
  double value;    // scalars, params, attributes: the sample's value
  double lo, hi;   // tensors: the random input domain
  bool nonzero;    // tensors: no zero values (integer division)
  bool promotes;   // takes part in the result dtype
  std::vector<aclDataType> dtypes;  // the operand's own dtype list (empty: any)
  bool optional;   // may be null (the kernel follows the operands given)
  bool absent;     // null in this case
  bool zero_dim;   // a 0-dim tensor
  bool tensor() const { return kind == kTensor && !absent; }
  bool scalar() const { return (kind == kScalar || kind == kParam || kind == kValue) && !absent; }
  bool operand() const { return tensor() || (kind == kScalar && !absent); }  // takes part in the op's operands
};

// Tensors and scalars by parameter index (null where the parameter is of the other kind).
using NaryPhase1 = int (*)(aclTensor *const *t, aclScalar *const *s, aclTensor *out, uint64_t *, aclOpExecutor **);

struct NaryParamCall {
  std::string what;  // the word the message contains
  NaryPhase1 phase1 = nullptr;
};

struct NaryTableCase {
  std::string name, api, inplace_name, out_name = "out";
  std::vector<NaryArg> args;
  std::vector<aclDataType> dtypes, inplace_dtypes;
  NaryResult result = NaryResult::kPromoted;
  bool compute_self = false;  // computes in the first operand's dtype (masked fill)
  bool special = true;
  double special_limit = INFINITY;  // finite special values beyond it are left out (intermediate overflow)
  double special_tol = 1e-5;
  bool signed_zero = false;
  double (*ref)(const double *v) = nullptr;       // v: every argument's value, by parameter index
  double (*ref_bool)(const double *v) = nullptr;  // the reference when the op computes in BOOL
  NaryPhase1 phase1 = nullptr;  // null: the op is in place only
  Launch launch = nullptr;
  NaryPhase1 inplace_phase1 = nullptr;  // the in-place twin (or the op itself); `out` unused
  Launch inplace_launch = nullptr;
  std::vector<NaryParamCall> rejects;
  std::vector<NaryParamCall> null_attrs;  // a null string attribute (161001 naming it)
  NaryParamCall none_given;  // every optional operand null (161001 naming them); phase1 null: no optional ones
  bool shapes_equal = false;  // the tensor operands must have one shape (no broadcasting)
  bool same_dtype = false;    // the tensor operands must have one dtype
  bool out_same = false;      // the output must have the result dtype
  // Gradient rows: the forward formula of x (written with args[x_arg]'s name), differentiated by
  // the finite-difference test; from_result: args[x_arg] is the forward's result f(x).
  double (*forward)(const double *v) = nullptr;
  size_t grad_arg = 0, x_arg = 1;
  bool from_result = false;
  double fd_lo = -4, fd_hi = 4;
  std::vector<double> kinks;  // no finite difference within 1e-2 of these
};

void PrintTo(const NaryTableCase &c, std::ostream *os) { *os << c.name; }

#include "op_table_nary_cases.inc"

const std::vector<NaryTableCase> &all_cases() {
  static const std::vector<NaryTableCase> c = harness::sampled(nary_table_cases());
  return c;
}

// ---------------------------------------------------------------- one call's operands

struct View {
  std::vector<int64_t> shape, strides;  // strides empty: contiguous
  int64_t offset = 0, storage = 0;
};

// The scalar dtype a test gives a scalar next to tensors of dtype `dt`: its category's usual one.
aclDataType scalar_dtype_for(aclDataType dt) { return is_float(dt) ? ACL_FLOAT : dt == ACL_BOOL ? ACL_BOOL : ACL_INT64; }

std::vector<int64_t> broadcast(std::vector<int64_t> a, const std::vector<int64_t> &b) {
  if (a.size() < b.size()) a.insert(a.begin(), b.size() - a.size(), 1);
  for (size_t i = 0; i < b.size(); ++i) {
    int64_t &d = a[a.size() - b.size() + i];
    if (d == 1) d = b[i];
  }
  return a;
}

class Call {
 public:
  // dts: every argument's dtype (tensors and scalars; attributes ignored); views: the tensors'.
  Call(const NaryTableCase &c, const std::vector<aclDataType> &dts, const std::vector<View> &views)
      : c_(c), dts_(dts), t_(c.args.size()), tp_(c.args.size(), nullptr), s_(c.args.size(), nullptr),
        values_(c.args.size(), 0) {
    for (size_t i = 0; i < c.args.size(); ++i) {
      const NaryArg &a = c.args[i];
      if (a.tensor()) {
        const View &v = views[i];
        t_[i] = v.strides.empty() ? std::make_unique<DeviceTensor>(v.shape, dts[i])
                                  : std::make_unique<DeviceTensor>(v.shape, dts[i], v.strides, v.offset, v.storage);
        tp_[i] = *t_[i];
        out_shape_ = broadcast(out_shape_, v.shape);
      } else if (a.scalar()) {
        set_scalar(i, a.value);
      } else {
        values_[i] = a.value;
      }
    }
  }
  ~Call() {
    for (aclScalar *s : s_) aclDestroyScalar(s);
  }
  Call(const Call &) = delete;
  Call &operator=(const Call &) = delete;

  // A scalar argument of value v in its dtype (integers: whole, non-negative next to UINT8).
  void set_scalar(size_t i, double v) {
    const aclDataType dt = dts_[i];
    if (dt == ACL_BOOL) v = v != 0;
    else if (!is_float(dt)) v = std::round(v);
    if (dt == ACL_INT64 && std::count(dts_.begin(), dts_.end(), ACL_UINT8)) v = std::fabs(v);
    unsigned char buf[8] = {};
    write_elem(dt, buf, v);
    aclDestroyScalar(s_[i]);
    s_[i] = aclCreateScalar(buf, dt);
    values_[i] = read_elem(dt, buf);
  }
  void fill_random() {
    for (size_t i = 0; i < c_.args.size(); ++i) {
      if (!t_[i]) continue;
      const NaryArg &a = c_.args[i];
      const auto [lo, hi] = harness::dtype_range(a.lo, a.hi, dts_[i]);
      t_[i]->fill_random(lo, hi);
      // BOOL results (comparisons): values on a 0.5 grid, so that ties occur in every dtype.
      const bool grid = c_.result == NaryResult::kBool && is_float(dts_[i]);
      if (a.nonzero || grid) {
        auto v = t_[i]->values();
        for (auto &x : v) {
          if (grid) x = std::round(x * 2) / 2;
          if (a.nonzero && x == 0) x = 1;
        }
        t_[i]->set_values(v);
      }
    }
  }

  DeviceTensor &tensor(size_t i) { return *t_[i]; }
  aclTensor *const *tensors() const { return tp_.data(); }
  const std::vector<double> &values() const { return values_; }  // the scalars' and attributes' values
  aclScalar *const *scalars() const { return s_.data(); }
  const std::vector<int64_t> &out_shape() const { return out_shape_; }

  // torch.result_type of the promoting operands (the first operand's dtype for the masked fills).
  aclDataType promoted() const {
    if (c_.compute_self)
      for (size_t i = 0; i < c_.args.size(); ++i)
        if (c_.args[i].tensor()) return dts_[i];
    std::vector<std::pair<aclDataType, int>> ops;
    for (size_t i = 0; i < c_.args.size(); ++i) {
      const NaryArg &a = c_.args[i];
      if (!a.promotes || !a.operand()) continue;
      ops.push_back({dts_[i], a.tensor() ? static_cast<int>(t_[i]->shape().size()) : -1});
    }
    return ew::result_type(ops);
  }
  aclDataType result() const {
    const aclDataType p = promoted();
    if (c_.result == NaryResult::kBool) return ACL_BOOL;
    if (c_.result == NaryResult::kFloating && !is_float(p)) return ACL_FLOAT;
    return p;
  }
  // The rule takes the operands' dtypes (promoted, and each operand's own list).
  bool accepted() const {
    for (size_t i = 0; i < c_.args.size(); ++i) {
      if (c_.same_dtype && c_.args[i].tensor() && c_.args[i].promotes && dts_[i] != dts_[first_tensor()]) return false;
      const auto &l = c_.args[i].dtypes;
      if (c_.args[i].tensor() && !l.empty() && std::find(l.begin(), l.end(), dts_[i]) == l.end()) return false;
    }
    const aclDataType p = promoted();
    return std::find(c_.dtypes.begin(), c_.dtypes.end(), p) != c_.dtypes.end();
  }

  // The expected output over `shape` in dtype `out`: the reference on the broadcast operands,
  // through the dtype the op computes in.
  std::vector<double> golden(const std::vector<int64_t> &shape, aclDataType out) const {
    std::vector<std::vector<double>> tv(c_.args.size());
    for (size_t i = 0; i < c_.args.size(); ++i)
      if (t_[i]) tv[i] = t_[i]->values();
    const aclDataType p = promoted(), res = result();
    const aclDataType compute = c_.result == NaryResult::kBool ? p : res;
    std::vector<double> g(static_cast<size_t>(numel_of(shape)));
    std::vector<double> v = values_;
    for (size_t k = 0; k < g.size(); ++k) {
      const auto idx = unravel(static_cast<int64_t>(k), shape);
      for (size_t i = 0; i < c_.args.size(); ++i)
        if (t_[i]) v[i] = tv[i][static_cast<size_t>(broadcast_source(idx, shape, t_[i]->shape()))];
      const double r = compute == ACL_BOOL && c_.ref_bool ? c_.ref_bool(v.data()) : c_.ref(v.data());
      double x = res == ACL_BOOL ? (r != 0) : is_float(compute) ? round_to(compute, r) : wrap_to(compute, r);
      g[k] = is_float(out) ? round_to(out, x) : wrap_to(out, x);
    }
    return g;
  }

  int phase1(aclTensor *out, uint64_t *ws, aclOpExecutor **ex) const { return c_.phase1(tensors(), scalars(), out, ws, ex); }
  // Every tensor has one shape (the cases of `shapes equal` rows take only those).
  bool shapes_agree() const {
    for (size_t i = 0; i < t_.size(); ++i)
      if (t_[i] && t_[i]->shape() != t_[first_tensor()]->shape()) return false;
    return true;
  }
  int inplace_phase1(uint64_t *ws, aclOpExecutor **ex) const {
    return c_.inplace_phase1(tensors(), scalars(), nullptr, ws, ex);
  }

 private:
  size_t first_tensor() const {
    for (size_t i = 0; i < t_.size(); ++i)
      if (t_[i]) return i;
    return 0;
  }
  const NaryTableCase &c_;
  std::vector<aclDataType> dts_;
  std::vector<std::unique_ptr<DeviceTensor>> t_;
  std::vector<aclTensor *> tp_;
  std::vector<aclScalar *> s_;
  std::vector<double> values_;
  std::vector<int64_t> out_shape_;
};

// Every argument's dtype for promoted dtype `dt`: promoting tensors `dt`, the others their own
// first dtype, scalars of `dt`'s category.
std::vector<aclDataType> dtypes_for(const NaryTableCase &c, aclDataType dt) {
  std::vector<aclDataType> d;
  for (const NaryArg &a : c.args) {
    if (a.tensor()) d.push_back(a.promotes || a.dtypes.empty() ? dt : a.dtypes.front());
    else d.push_back(scalar_dtype_for(dt));
  }
  return d;
}

// The k-th tensor operand gets views[k]; other arguments no view.
std::vector<View> views_for(const NaryTableCase &c, const std::vector<View> &per_tensor) {
  std::vector<View> v(c.args.size());
  size_t k = 0;
  for (size_t i = 0; i < c.args.size(); ++i)
    if (c.args[i].tensor()) v[i] = c.args[i].zero_dim ? View{{}} : per_tensor[std::min(k++, per_tensor.size() - 1)];
  return v;
}

size_t first_tensor(const NaryTableCase &c) {
  for (size_t i = 0; i < c.args.size(); ++i)
    if (c.args[i].tensor()) return i;
  return 0;
}
size_t tensor_count(const NaryTableCase &c) {
  return static_cast<size_t>(std::count_if(c.args.begin(), c.args.end(), [](const NaryArg &a) { return a.tensor(); }));
}

// Runs the op out of place into a fresh output of dtype `out_dt` (the result dtype by default)
// and checks it against the reference.
void run_and_check(const NaryTableCase &c, Call &call, aclDataType out_dt = ACL_DT_UNDEFINED) {
  if (out_dt == ACL_DT_UNDEFINED) out_dt = call.result();
  DeviceTensor out(call.out_shape(), out_dt);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(out, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  // A wider output holds the result exactly: the result dtype's precision standard applies.
  const aclDataType res = call.result();
  const aclDataType prec = precision_threshold(res) > precision_threshold(out_dt) ? res : out_dt;
  EXPECT_TRUE(meets_precision(prec, out.values(), call.golden(call.out_shape(), out_dt)));
  EXPECT_TRUE(out.untouched_outside_view());
}

struct Layout {
  const char *name;
  std::vector<View> views;  // the tensor operands' (the last repeats)
};
const Layout kLayouts[] = {
    {"contiguous", {{{37, 29}}}},
    {"transposed+offset",
     {{{37, 29}, {1, 37}, 3, 37 * 29 + 5}, {{37, 29}, {1, 37}, 1, 37 * 29 + 1}, {{37, 29}, {1, 37}, 2, 37 * 29 + 4}}},
    {"padded rows", {{{9, 11, 5}, {70, 6, 1}, 2, 9 * 70}, {{9, 11, 5}, {60, 5, 1}, 0, 9 * 60}}},
    {"broadcast", {{{6, 16}}, {{16}}, {{6, 1}}}},
    {"stride 0", {{{6, 16}, {0, 1}, 1, 0}, {{6, 16}}}},
    {"0-d", {{{}, {}, 4, 8}, {{}, {}, 2, 8}, {{}, {}, 1, 8}}},
    {"0-d with dims", {{{}}, {{5, 4}}}},
    {"size-1 dims", {{{1, 7, 1}}}},
};

class OpTableNary : public ::testing::TestWithParam<NaryTableCase> {};

TEST_P(OpTableNary, EveryDtypeOnEveryLayout) {
  reseed_for_current_test();
  const NaryTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    for (const Layout &l : kLayouts) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " layout " << l.name);
      Call call(c, dtypes_for(c, dt), views_for(c, l.views));
      if (c.shapes_equal && !call.shapes_agree()) continue;  // a broadcast layout (rejected: ErrorsNameTheArgument)
      call.fill_random();
      run_and_check(c, call);
    }
  }
}

// Every pair of dtypes for the first two promoting operands (the third takes the first's), with
// dims, or the first a 0-d tensor; scalars of every category.
// The promoting operands (tensors and operand scalars) of a case.
std::vector<size_t> promoting(const NaryTableCase &c) {
  std::vector<size_t> prom;
  for (size_t i = 0; i < c.args.size(); ++i)
    if (c.args[i].promotes && c.args[i].operand()) prom.push_back(i);
  return prom;
}

// The cases with two or more promoting operands.
class OpTableNaryPromotion : public ::testing::TestWithParam<NaryTableCase> {};

TEST_P(OpTableNaryPromotion, TypePromotion) {
  reseed_for_current_test();
  const NaryTableCase &c = GetParam();
  const std::vector<size_t> prom = promoting(c);
  const std::vector<aclDataType> scalar_dts = {ACL_BOOL, ACL_INT64, ACL_FLOAT, ACL_DOUBLE};
  auto choices = [&](size_t i) {
    return c.args[i].tensor() ? std::vector<aclDataType>(std::begin(kAllDtypes), std::end(kAllDtypes)) : scalar_dts;
  };
  for (bool zero_d : {false, true}) {
    if (zero_d && (!c.args[prom[0]].tensor() || c.shapes_equal)) continue;
    for (aclDataType a : choices(prom[0])) {
      for (aclDataType b : choices(prom[1])) {
        std::vector<aclDataType> dts = dtypes_for(c, ACL_FLOAT);
        dts[prom[0]] = a;
        dts[prom[1]] = b;
        if (prom.size() > 2) dts[prom[2]] = c.args[prom[2]].tensor() ? a : scalar_dtype_for(a);
        std::vector<View> views(c.args.size(), View{{3, 4}});
        if (zero_d) views[prom[0]] = View{{}};
        // The parameter scalars (alpha, value) of the category of the operands' result.
        {
          Call probe(c, dts, views);
          for (size_t i = 0; i < c.args.size(); ++i)
            if (c.args[i].kind == NaryArg::kParam) dts[i] = scalar_dtype_for(probe.promoted());
        }
        Call call(c, dts, views);
        SCOPED_TRACE(::testing::Message() << c.name << (zero_d ? " 0-d " : " ") << c.args[prom[0]].name << " " << a
                                          << ", " << c.args[prom[1]].name << " " << b << " -> " << call.promoted());
        call.fill_random();
        if (call.accepted()) {
          run_and_check(c, call);
        } else {
          DeviceTensor out(call.out_shape(), ACL_DOUBLE);
          uint64_t ws = 0;
          aclOpExecutor *ex = nullptr;
          EXPECT_TRUE(fails_with(call.phase1(out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), "dtype"}));
        }
      }
    }
  }
}

TEST_P(OpTableNary, WiderOutputDtype) {
  reseed_for_current_test();
  const NaryTableCase &c = GetParam();
  Call call(c, dtypes_for(c, c.dtypes.front()), views_for(c, {{{5, 33}}, {{c.shapes_equal ? 5 : 1, 33}}}));
  call.fill_random();
  const aclDataType res = call.result();
  const aclDataType wider = is_float(res) ? ACL_DOUBLE : res == ACL_BOOL ? ACL_FLOAT : ACL_INT64;
  if (!c.out_same) return run_and_check(c, call, wider);
  // The row documents out's dtype as the result's: a wider one is an error naming it.
  DeviceTensor out(call.out_shape(), wider);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(call.phase1(out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), c.out_name.c_str(), "dtype"}));
}

// The cases of ops with an in-place twin.
class OpTableNaryInPlace : public ::testing::TestWithParam<NaryTableCase> {};

TEST_P(OpTableNaryInPlace, InPlaceOnStridedViews) {
  reseed_for_current_test();
  const NaryTableCase &c = GetParam();
  const size_t self = first_tensor(c);
  for (aclDataType dt : c.inplace_dtypes) {
    SCOPED_TRACE(::testing::Message() << c.name << " in place, dtype " << dt);
    Call call(c, dtypes_for(c, dt), views_for(c, {{{24, 33}, {40, 1}, 2, 24 * 40}, {{33}}, {{24, 1}}}));
    call.fill_random();
    DeviceTensor &io = call.tensor(self);
    const auto gold = call.golden(io.shape(), dt);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.inplace_phase1(w, e); }, c.inplace_launch), 0)
        << aclGetRecentErrMsg();
    EXPECT_TRUE(meets_precision(dt, io.values(), gold));
    EXPECT_TRUE(io.untouched_outside_view());
  }
}

TEST_P(OpTableNary, SpecialValues) {
  const NaryTableCase &c = GetParam();
  if (!c.special) GTEST_SKIP() << "the row opts out of the special-value test";
  std::vector<double> specials;
  for (double x : harness::kSpecials)
    if (!std::isfinite(x) || std::fabs(x) <= c.special_limit) specials.push_back(x);
  const size_t n = specials.size();
  for (aclDataType dt : {ACL_FLOAT, ACL_DOUBLE}) {
    if (std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) continue;
    SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt);
    // Two tensor operands: every pair of specials; one: each; a third: 0.75 (conditions alternate).
    const size_t len = tensor_count(c) >= 2 ? n * n : n;
    Call call(c, dtypes_for(c, dt), views_for(c, {{{static_cast<int64_t>(len)}}}));
    size_t k = 0;
    for (size_t i = 0; i < c.args.size(); ++i) {
      if (!c.args[i].tensor()) continue;
      std::vector<double> v(len);
      for (size_t j = 0; j < len; ++j) {
        if (!c.args[i].promotes) v[j] = static_cast<double>(j % 2);
        else if (k == 0) v[j] = specials[len == n ? j : j / n];
        else if (k == 1) v[j] = specials[j % n];
        else v[j] = 0.75;
        // A gradient row's gradient takes NaN, zeros and the moderate specials (1.5 for the others):
        // an infinite, huge or denormal gradient times a derivative that under- / overflows in
        // FLOAT gives NaN / 0 / a rounded product there but a finite float64 reference.
        if (c.forward && i == c.grad_arg && v[j] != 0 && !std::isnan(v[j]) &&
            !(std::fabs(v[j]) >= 1e-30 && std::fabs(v[j]) <= 10))
          v[j] = 1.5;
        v[j] = round_to(call.tensor(i).dtype(), v[j]);
      }
      call.tensor(i).set_values(v);
      if (c.args[i].promotes) ++k;
    }
    const aclDataType res = call.result();
    DeviceTensor out(call.out_shape(), res);
    out.poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(out, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
    const auto got = out.values();
    const auto want = call.golden(call.out_shape(), res);
    const double tol = dt == ACL_FLOAT ? c.special_tol : 1e-12;
    int bad = 0;
    for (size_t j = 0; j < got.size() && bad < 10; ++j) {
      const bool ok = harness::same_special(got[j], want[j], tol, c.signed_zero);
      if (!ok) ++bad;
      EXPECT_TRUE(ok) << c.name << " element " << j << " = " << got[j] << ", want " << want[j];
    }
  }
}

TEST_P(OpTableNary, ZeroSize) {
  const NaryTableCase &c = GetParam();
  for (aclDataType dt : {c.dtypes.front(), c.dtypes.back()}) {
    Call call(c, dtypes_for(c, dt), views_for(c, {{{0, 3}}}));
    DeviceTensor out(call.out_shape(), call.result());
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(out, w, e); }, c.launch), 0)
        << aclGetRecentErrMsg();
  }
}

// Each tensor and scalar argument null in turn (not the optional ones): a 161001 naming it, the
// first tensor by `first_name` when given.
void expect_nulls_named(const NaryTableCase &c, const Call &call, NaryPhase1 phase1, aclTensor *out,
                        const char *first_name) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (c.args[i].kind == NaryArg::kAttr || c.args[i].optional) continue;
    std::vector<aclTensor *> t(call.tensors(), call.tensors() + c.args.size());
    std::vector<aclScalar *> s(call.scalars(), call.scalars() + c.args.size());
    t[i] = nullptr;
    s[i] = nullptr;
    SCOPED_TRACE(c.args[i].name);
    const char *name = first_name && i == first_tensor(c) ? first_name : c.args[i].name.c_str();
    EXPECT_TRUE(fails_with(phase1(t.data(), s.data(), out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {name}));
  }
}

TEST_P(OpTableNary, ErrorsNameTheArgument) {
  const NaryTableCase &c = GetParam();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const char *api = c.api.c_str();
  const aclDataType dt = c.dtypes.front();
  Call call(c, dtypes_for(c, dt), views_for(c, {{{4}}}));
  const aclDataType res = call.result();
  DeviceTensor out({4}, res), out5({5}, res);
  // Null tensors and scalars, each named; all the optional operands null.
  expect_nulls_named(c, call, c.phase1, out, nullptr);
  if (c.none_given.phase1) {
    const int st = c.none_given.phase1(call.tensors(), call.scalars(), out, &ws, &ex);
    EXPECT_TRUE(fails_with(st, ACLNN_ERR_PARAM_NULLPTR, {api}));
    for (size_t i = 0; i < c.args.size(); ++i)  // the message names every optional operand
      if (c.args[i].optional) EXPECT_NE(std::string(aclGetRecentErrMsg()).find(c.args[i].name), std::string::npos);
  }
  EXPECT_TRUE(fails_with(call.phase1(nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.out_name.c_str()}));
  EXPECT_TRUE(fails_with(call.phase1(out5, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str(), "[5]", "[4]"}));
  // Operands that do not broadcast.
  if (tensor_count(c) >= 2) {
    Call bad(c, dtypes_for(c, dt), views_for(c, {{{4}}, {{3}}}));
    EXPECT_TRUE(fails_with(bad.phase1(out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "broadcast", "[4]", "[3]"}));
  }
  // Shapes that would broadcast, for a row whose operands must have one shape.
  if (c.shapes_equal) {
    Call bad(c, dtypes_for(c, dt), views_for(c, {{{2, 4}}, {{4}}}));
    DeviceTensor out24({2, 4}, res);
    EXPECT_TRUE(fails_with(bad.phase1(out24, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "equal", "[2, 4]", "[4]"}));
  }
  // Every promoted dtype outside the rule, and every dtype outside an operand's own list.
  for (aclDataType bad : kAllDtypes) {
    Call b(c, dtypes_for(c, bad), views_for(c, {{{4}}}));
    if (b.accepted()) continue;
    SCOPED_TRACE(::testing::Message() << "dtype " << bad);
    DeviceTensor o({4}, ACL_DOUBLE);
    EXPECT_TRUE(fails_with(b.phase1(o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  }
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (!c.args[i].tensor() || c.args[i].dtypes.empty()) continue;
    for (aclDataType bad : kAllDtypes) {
      if (std::find(c.args[i].dtypes.begin(), c.args[i].dtypes.end(), bad) != c.args[i].dtypes.end()) continue;
      auto dts = dtypes_for(c, dt);
      dts[i] = bad;
      Call b(c, dts, views_for(c, {{{4}}}));
      SCOPED_TRACE(::testing::Message() << c.args[i].name << " dtype " << bad);
      EXPECT_TRUE(fails_with(b.phase1(out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.args[i].name.c_str(), "dtype"}));
    }
  }
  // An output dtype the result cannot be cast to (floating -> integer, integer -> BOOL).
  if (res != ACL_BOOL) {
    DeviceTensor bad_out({4}, is_float(res) ? ACL_INT32 : ACL_BOOL);
    EXPECT_TRUE(fails_with(call.phase1(bad_out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.out_name.c_str()}));
  }
  // A fractional parameter (alpha, value) for an integral result.
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (c.args[i].kind != NaryArg::kParam) continue;
    const auto it = std::find_if(c.dtypes.begin(), c.dtypes.end(), [](aclDataType d) { return d == ACL_INT32; });
    if (it == c.dtypes.end()) continue;
    auto dts = dtypes_for(c, ACL_INT32);
    dts[i] = ACL_FLOAT;
    Call b(c, dts, views_for(c, {{{4}}}));
    b.set_scalar(i, 0.5);
    DeviceTensor o({4}, ACL_INT32);
    EXPECT_TRUE(fails_with(b.phase1(o, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.args[i].name.c_str()}));
  }
  for (const NaryParamCall &p : c.null_attrs)
    EXPECT_TRUE(fails_with(p.phase1(call.tensors(), call.scalars(), out, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
                           {api, p.what.c_str()}));
  for (const NaryParamCall &p : c.rejects) {
    SCOPED_TRACE(p.what);
    EXPECT_TRUE(fails_with(p.phase1(call.tensors(), call.scalars(), out, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                           {api, p.what.c_str()}));
  }
}

// The in-place twin's errors (and those of the ops that are in place only).
TEST_P(OpTableNaryInPlace, InPlaceErrorsNameTheArgument) {
  const NaryTableCase &c = GetParam();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const char *ip = c.inplace_name.c_str();
  const aclDataType dt = c.inplace_dtypes.front();
  Call call(c, dtypes_for(c, dt), views_for(c, {{{4}}}));
  // Null tensors and scalars, each named (the in-place operand by its twin's name).
  expect_nulls_named(c, call, c.inplace_phase1, nullptr, ip);
  // The broadcast would grow the in-place operand.
  if (tensor_count(c) >= 2) {
    Call grow(c, dtypes_for(c, dt), views_for(c, {{{1, 4}}, {{3, 4}}}));
    EXPECT_TRUE(fails_with(grow.inplace_phase1(&ws, &ex), ACLNN_ERR_PARAM_INVALID, {ip, "grow"}));
  }
  // Every dtype outside the in-place rule (outside the op's rule, or a result it cannot hold).
  for (aclDataType bad : kAllDtypes) {
    if (std::find(c.inplace_dtypes.begin(), c.inplace_dtypes.end(), bad) != c.inplace_dtypes.end()) continue;
    Call b(c, dtypes_for(c, bad), views_for(c, {{{4}}}));
    SCOPED_TRACE(::testing::Message() << "in place, dtype " << bad);
    EXPECT_TRUE(fails_with(b.inplace_phase1(&ws, &ex), ACLNN_ERR_PARAM_INVALID, {ip}));
  }
  // An operand outside its own dtype list; a 0-dim operand with dims.
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (!c.args[i].tensor()) continue;
    for (aclDataType bad : kAllDtypes) {
      const auto &l = c.args[i].dtypes;
      if (l.empty() || std::find(l.begin(), l.end(), bad) != l.end()) continue;
      auto dts = dtypes_for(c, dt);
      dts[i] = bad;
      Call b(c, dts, views_for(c, {{{4}}}));
      SCOPED_TRACE(::testing::Message() << c.args[i].name << " dtype " << bad);
      EXPECT_TRUE(fails_with(b.inplace_phase1(&ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.args[i].name.c_str(), "dtype"}));
    }
    if (c.args[i].zero_dim) {
      auto views = views_for(c, {{{4}}});
      views[i] = View{{1}};
      Call b(c, dtypes_for(c, dt), views);
      EXPECT_TRUE(fails_with(b.inplace_phase1(&ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.args[i].name.c_str(), "0-dim"}));
    }
  }
}

// The gradient rows: the reference (with a unit gradient) and the op's FLOAT result against a
// central difference of the forward formula in double.
class OpTableNaryGrad : public ::testing::TestWithParam<NaryTableCase> {};

TEST_P(OpTableNaryGrad, FiniteDifferenceOfTheForward) {
  reseed_for_current_test();
  const NaryTableCase &c = GetParam();
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> xs;
  while (xs.size() < 16) {
    const double x = static_cast<double>(static_cast<float>(c.fd_lo + (c.fd_hi - c.fd_lo) * u(rng())));
    bool near = false;
    for (double k : c.kinks) near |= std::fabs(x - k) < 1e-2;
    if (!near) xs.push_back(x);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  Call call(c, dtypes_for(c, ACL_FLOAT), views_for(c, {{{n}}}));
  call.fill_random();
  auto with = [&](size_t arg, double x, std::vector<double> v) {
    v[arg] = x;
    return v;
  };
  auto forward = [&](double x) { return c.forward(with(c.x_arg, x, call.values()).data()); };
  std::vector<double> in(xs);
  if (c.from_result)
    for (auto &e : in) e = forward(e);
  call.tensor(c.grad_arg).set_values(std::vector<double>(xs.size(), 1.0));
  call.tensor(c.x_arg).set_values(in);
  const auto stored = call.tensor(c.x_arg).values();
  DeviceTensor out(call.out_shape(), ACL_FLOAT);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call.phase1(out, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto got = out.values();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], h = 1e-6 * std::max(1.0, std::fabs(x));
    const double fd = (forward(x + h) - forward(x - h)) / (2 * h);
    const double ref = c.ref(with(c.x_arg, in[i], with(c.grad_arg, 1.0, call.values())).data());
    EXPECT_NEAR(ref, fd, 1e-6 * std::max(1.0, std::fabs(fd))) << c.name << " reference at x = " << x;
    // The op saw x (or f(x)) rounded to FLOAT; allow for that and for float arithmetic.
    const double tol = 2e-4 * std::max(1.0, std::fabs(fd)) + std::fabs(stored[i] - in[i]) * 10;
    EXPECT_NEAR(got[i], fd, tol) << c.name << " at x = " << x;
  }
}

std::vector<NaryTableCase> cases_where(bool (*pred)(const NaryTableCase &)) {
  std::vector<NaryTableCase> v;
  for (const auto &c : all_cases())
    if (pred(c)) v.push_back(c);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableNary,
                         ::testing::ValuesIn(cases_where([](const NaryTableCase &c) { return c.phase1 != nullptr; })),
                         harness::case_name<NaryTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableNaryPromotion, ::testing::ValuesIn(cases_where([](const NaryTableCase &c) {
                           return c.phase1 != nullptr && promoting(c).size() >= 2;
                         })),
                         harness::case_name<NaryTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableNaryGrad,
                         ::testing::ValuesIn(cases_where([](const NaryTableCase &c) { return c.forward != nullptr; })),
                         harness::case_name<NaryTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableNaryInPlace,
                         ::testing::ValuesIn(cases_where([](const NaryTableCase &c) { return c.inplace_phase1 != nullptr; })),
                         harness::case_name<NaryTableCase>);

}  // namespace
}  // namespace opsnn::test

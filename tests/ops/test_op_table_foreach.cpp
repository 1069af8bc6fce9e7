// The test harness of the table-driven foreach ops (src/ops/foreach/foreach.ops), cases registered from
// the table by tools/gen_ops.py --tests (foreach_table_cases.inc):
//   - every op and dtype on lists of 1-4 tensors of different shapes (0-d, empty, large), contiguous,
//     transposed + offset and padded views, against the row's float64 reference of the stored inputs
//     (written here, per element) with the precision standard; outputs poisoned first, nothing written
//     outside the views; in-place rows write x and leave the other lists alone;
//   - scalars held in device tensors read when the launch runs (a repeatable executor relaunched after
//     the value changed), RoundOffNumber's modes;
//   - the errors with their code and the argument named: null list / entry, length, shape and dtype
//     mismatches, a scalar tensor of two elements, a scalar list of the wrong length, a dtype outside
//     the row's.
#include <cmath>
#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"  // aclTensorList's entries: a null entry (aclCreateTensorList refuses one)
#include "device_lists.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ForeachArgs {
  aclTensorList *x = nullptr, *x2 = nullptr, *x3 = nullptr, *out = nullptr;
  aclTensor *alpha_t = nullptr, *scalar_t = nullptr, *scalars_t = nullptr, *round_t = nullptr;
  aclScalar *alpha = nullptr, *scalar = nullptr, *round = nullptr;
  aclScalarList *scalars = nullptr;
  aclTensor *found_inf = nullptr, *inv_scale = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
using Ref = double (*)(double, double, double, double);

struct ForeachTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  std::vector<std::string> roles, names;  // the prototype's roles and parameter names
  std::string scalar_use;                 // operand | value | first
  double s0 = 1;
  std::string kind;  // map | round | norm | unscale
  double lo = -2, hi = 2;
  Ref ref = nullptr, mag = nullptr;
  int (*phase1)(const ForeachArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const std::string &role) const {
    for (const auto &r : roles)
      if (r == role) return true;
    return false;
  }
  std::string name_of(const std::string &role) const {
    for (size_t i = 0; i < roles.size(); ++i)
      if (roles[i] == role) return names[i];
    return role;
  }
};
void PrintTo(const ForeachTableCase &c, std::ostream *os) { *os << c.name; }

#include "foreach_table_cases.inc"

const std::vector<ForeachTableCase> &all_cases() {
  static const std::vector<ForeachTableCase> c = harness::sampled(foreach_table_cases());
  return c;
}

enum class Layout { kContiguous, kTransposed, kPadded };

std::unique_ptr<DeviceTensor> make_view(const std::vector<int64_t> &shape, aclDataType dt, Layout layout) {
  if (layout == Layout::kTransposed && shape.size() >= 2) return transposed_view(shape, dt);
  if (layout == Layout::kPadded && !shape.empty()) return padded_view(shape, dt, 2);
  return std::make_unique<DeviceTensor>(shape, dt);
}

std::shared_ptr<aclScalar> scalar_of(double v, aclDataType dt) {
  aclScalar *s = nullptr;
  if (dt == ACL_INT64) {
    int64_t i = static_cast<int64_t>(v);
    s = aclCreateScalar(&i, ACL_INT64);
  } else {
    float f = static_cast<float>(v);  // clients create scalars as FLOAT whatever the tensors' dtype
    s = aclCreateScalar(&f, ACL_FLOAT);
  }
  return std::shared_ptr<aclScalar>(s, [](aclScalar *p) { aclDestroyScalar(p); });
}

bool is_int(aclDataType dt) { return dt == ACL_INT32; }

// One drawn call: the lists (x, x2, x3, out), the scalar parameters and their values as stored.
struct Problem {
  aclDataType dt = ACL_FLOAT;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::unique_ptr<DeviceTensor>> lists[4];  // x, x2, x3, out
  std::shared_ptr<aclTensorList> handles[4];
  std::unique_ptr<DeviceTensor> alpha_t, scalar_t, scalars_t, round_t, found_inf, inv_scale;
  std::shared_ptr<aclScalar> alpha, scalar, round;
  std::vector<std::shared_ptr<aclScalar>> scalar_list;
  std::shared_ptr<aclScalarList> scalars;
  double alpha_v = 1, scalar_v = 0, found_before = 0;
  std::vector<double> per_entry;  // the ScalarList values (aclScalarList or tensor)
  ForeachArgs args() const {
    ForeachArgs a;
    a.x = handles[0].get();
    a.x2 = handles[1].get();
    a.x3 = handles[2].get();
    a.out = handles[3].get();
    a.alpha_t = alpha_t ? alpha_t->get() : nullptr;
    a.scalar_t = scalar_t ? scalar_t->get() : nullptr;
    a.scalars_t = scalars_t ? scalars_t->get() : nullptr;
    a.round_t = round_t ? round_t->get() : nullptr;
    a.alpha = alpha.get();
    a.scalar = scalar.get();
    a.round = round.get();
    a.scalars = scalars.get();
    a.found_inf = found_inf ? found_inf->get() : nullptr;
    a.inv_scale = inv_scale ? inv_scale->get() : nullptr;
    return a;
  }
};

const char *kListRoles[4] = {"x", "x2", "x3", "out"};

double draw(std::mt19937_64 &g, double lo, double hi, aclDataType dt) {
  const double v = std::uniform_real_distribution<double>(lo, hi)(g);
  return is_int(dt) ? std::round(v) : round_to(dt, v);
}

// Builds a problem of `shapes` for case c in dtype dt, the k-th entry in layout (k + shift) % 3.
void make_problem(const ForeachTableCase &c, std::mt19937_64 &g, const std::vector<std::vector<int64_t>> &shapes,
                  aclDataType dt, int shift, Problem *p) {
  p->dt = dt;
  p->shapes = shapes;
  const double lo = is_int(dt) ? -9 : c.lo, hi = is_int(dt) ? 9 : c.hi;
  for (int r = 0; r < 4; ++r) {
    if (!c.has(kListRoles[r])) continue;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const Layout layout = static_cast<Layout>((static_cast<int>(k) + shift + r) % 3);
      // Norm's outputs hold one element (0-d or [1]).
      auto t = r == 3 && c.kind == "norm" ? std::make_unique<DeviceTensor>(k % 2 ? std::vector<int64_t>{1} : std::vector<int64_t>{}, dt)
                                          : make_view(shapes[k], dt, layout);
      if (r == 3) t->poison();
      else t->fill_random(lo, hi);
      p->lists[r].push_back(std::move(t));
    }
    p->handles[r] = list_of(p->lists[r]);
  }
  // Scalar values: in the domain for an operand (positive base for scalar ** x), moderate for a value.
  const double slo = c.scalar_use == "first" ? 0.5 : c.scalar_use == "value" ? -1.5 : lo;
  const double shi = c.scalar_use == "first" ? 2 : c.scalar_use == "value" ? 1.5 : hi;
  const aclDataType sdt = is_int(dt) ? ACL_INT32 : (g() % 2 ? ACL_FLOAT : ACL_DOUBLE);
  const double sv = draw(g, slo, shi, is_int(dt) ? dt : ACL_FLOAT);
  p->scalar_v = sv;
  if (c.kind == "norm") {  // p
    const double ps[] = {2, 1, 3, INFINITY, 0.5};
    p->scalar_v = ps[g() % 5];
  }
  if (c.kind == "unscale") {
    p->found_inf = std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, ACL_FLOAT);
    p->found_inf->set_values({0});
    p->inv_scale = std::make_unique<DeviceTensor>(std::vector<int64_t>{}, ACL_FLOAT);
    p->inv_scale->set_values({draw(g, 0.25, 2, ACL_FLOAT)});
  }
  p->alpha_v = is_int(dt) ? static_cast<double>(static_cast<int>(g() % 5) - 2) : draw(g, 0.25, 1.75, ACL_FLOAT);
  if (c.has("alpha_t")) {
    p->alpha_t = std::make_unique<DeviceTensor>(g() % 2 ? std::vector<int64_t>{1} : std::vector<int64_t>{}, sdt);
    p->alpha_t->set_values({p->alpha_v});
  }
  if (c.has("alpha")) p->alpha = scalar_of(p->alpha_v, is_int(dt) ? ACL_INT64 : ACL_FLOAT);
  if (c.has("scalar_t")) {
    p->scalar_t = std::make_unique<DeviceTensor>(g() % 2 ? std::vector<int64_t>{1} : std::vector<int64_t>{}, sdt);
    p->scalar_t->set_values({sv});
  }
  if (c.has("scalar")) p->scalar = scalar_of(p->scalar_v, is_int(dt) ? ACL_INT64 : ACL_FLOAT);
  if (c.has("scalars") || c.has("scalars_t")) {
    for (size_t k = 0; k < shapes.size(); ++k) p->per_entry.push_back(draw(g, slo, shi, is_int(dt) ? dt : ACL_FLOAT));
  }
  if (c.has("scalars")) {
    std::vector<aclScalar *> raw;
    for (double v : p->per_entry) {
      aclScalar *s = nullptr;
      if (is_int(dt)) {
        int64_t i = static_cast<int64_t>(v);
        s = aclCreateScalar(&i, ACL_INT64);
      } else {
        float f = static_cast<float>(v);
        s = aclCreateScalar(&f, ACL_FLOAT);
      }
      raw.push_back(s);
    }
    p->scalars = std::shared_ptr<aclScalarList>(aclCreateScalarList(raw.data(), raw.size()),
                                                [](aclScalarList *l) { aclDestroyScalarList(l); });
  }
  if (c.has("scalars_t")) {
    // A strided [n] view (every other element) so the per-entry offsets are exercised.
    const int64_t n = static_cast<int64_t>(shapes.size());
    p->scalars_t = std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, sdt, std::vector<int64_t>{2}, 1);
    p->scalars_t->set_values(p->per_entry);
  }
  if (c.has("round_t")) {
    p->round_t = std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, ACL_INT8);
    p->round_t->set_values({1});
  }
  if (c.has("round")) p->round = scalar_of(1, ACL_INT64);
}

// The reference of entry k from the stored inputs `in` (x, x2, x3 values), in the functor's operand order.
std::vector<double> reference(const ForeachTableCase &c, const Problem &p, size_t k,
                              const std::vector<std::vector<double>> &in, std::vector<double> *mag) {
  const size_t n = in[0].size();
  if (c.kind == "norm") {  // ||x||_p of the stored values, one element
    double acc = 0, mx = 0;
    for (double e : in[0]) {
      acc += std::pow(std::fabs(e), p.scalar_v);
      mx = std::max(mx, std::fabs(e));
    }
    mag->assign(1, 0.0);
    return {round_to(p.dt, std::isinf(p.scalar_v) ? mx : std::pow(acc, 1.0 / p.scalar_v))};
  }
  if (c.kind == "unscale") {  // x * invScale
    const double inv = p.inv_scale->values()[0];
    std::vector<double> want;
    for (double e : in[0]) want.push_back(round_to(p.dt, e * inv));
    mag->assign(n, 0.0);
    return want;
  }
  std::vector<double> want(n);
  mag->assign(n, 0.0);
  double v = c.s0;
  if (c.has("alpha_t") || c.has("alpha")) v = p.alpha_v;
  const bool per_entry = c.has("scalars") || c.has("scalars_t");
  const double s = per_entry ? p.per_entry[k] : p.scalar_v;
  const bool scalar_given = per_entry || c.has("scalar") || c.has("scalar_t");
  if (c.scalar_use == "value" && scalar_given) v = s;
  for (size_t e = 0; e < n; ++e) {
    std::vector<double> ops;
    for (int r = 0; r < 3; ++r)
      if (c.has(kListRoles[r])) ops.push_back(in[static_cast<size_t>(r)][e]);
    if (scalar_given && c.scalar_use != "value") {
      if (c.scalar_use == "first") ops.insert(ops.begin(), s);
      else ops.push_back(s);
    }
    ops.resize(3, 0.0);
    want[e] = round_to(p.dt, c.ref(ops[0], ops[1], ops[2], v));
    (*mag)[e] = c.mag(ops[0], ops[1], ops[2], v);
  }
  return want;
}

// precision.md with its near-zero allowance: a result that cancels terms of magnitude m is measured
// relative to max(|golden|, m * 2^-10) (the row's `mag`; 0: purely relative). Integers: exact.
::testing::AssertionResult meets(aclDataType dt, const std::vector<double> &got, const std::vector<double> &want,
                                 const std::vector<double> &mag) {
  if (is_int(dt)) return meets_precision(dt, got, want);
  const double T = precision_threshold(dt);
  double sum = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) || std::isinf(want[i])) {
      if (!(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]))
        return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " vs " << want[i];
      continue;
    }
    if (!std::isfinite(got[i])) return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " vs " << want[i];
    const double rel = std::fabs(got[i] - want[i]) / (std::max(std::fabs(want[i]), mag[i] / 1024) + 1e-7);
    sum += rel;
    if (rel > worst) worst = rel;
    if (rel >= 10 * T)
      return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " vs " << want[i] << " rel " << rel;
  }
  if (!got.empty() && sum / static_cast<double>(got.size()) >= T)
    return ::testing::AssertionFailure() << "MERE " << sum / static_cast<double>(got.size());
  return ::testing::AssertionSuccess();
}

// Runs the case on p and checks every entry of the written list; the read lists stay as they were.
void run_and_check(const ForeachTableCase &c, Problem &p) {
  std::vector<std::vector<std::vector<double>>> before(p.shapes.size());
  for (size_t k = 0; k < p.shapes.size(); ++k)
    for (int r = 0; r < 3; ++r)
      before[k].push_back(c.has(kListRoles[r]) ? p.lists[r][k]->values() : std::vector<double>{});
  const ForeachArgs a = p.args();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  if (c.kind == "unscale") {  // foundInf: 1 when an entry held an inf / NaN, else as it was
    bool non_finite = false;
    for (const auto &e : before)
      for (double v : e[0]) non_finite = non_finite || !std::isfinite(v);
    EXPECT_EQ(p.found_inf->values()[0], non_finite ? 1.0 : p.found_before) << "foundInf";
  }
  const int written = c.has("out") ? 3 : 0;
  for (size_t k = 0; k < p.shapes.size(); ++k) {
    SCOPED_TRACE(::testing::Message() << "entry " << k << " shape " << ::testing::PrintToString(p.shapes[k]));
    std::vector<double> mag;
    const std::vector<double> want = reference(c, p, k, before[k], &mag);
    EXPECT_TRUE(meets(p.dt, p.lists[written][k]->values(), want, mag));
    EXPECT_TRUE(p.lists[written][k]->untouched_outside_view());
    for (int r = 1; r < 3; ++r)
      if (c.has(kListRoles[r])) EXPECT_EQ(p.lists[r][k]->values(), before[k][static_cast<size_t>(r)]) << kListRoles[r];
    if (written == 3) EXPECT_EQ(p.lists[0][k]->values(), before[k][0]) << "x is read, not written";
  }
}

std::vector<std::vector<int64_t>> random_shapes(std::mt19937_64 &g) {
  static const std::vector<std::vector<int64_t>> kShapes = {{}, {7}, {3, 5}, {2, 3, 4}, {0, 3}, {1, 9, 2}, {129}, {4, 1}};
  std::vector<std::vector<int64_t>> out;
  const size_t n = 1 + g() % 4;
  for (size_t k = 0; k < n; ++k) out.push_back(kShapes[g() % kShapes.size()]);
  return out;
}

class OpTableForeach : public ::testing::TestWithParam<ForeachTableCase> {};

TEST_P(OpTableForeach, EveryDtypeAndLayout) {
  reseed_for_current_test();
  const ForeachTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (int rep = 0; rep < 4; ++rep) {
      const auto shapes = random_shapes(g);
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " rep " << rep);
      Problem p;
      make_problem(c, g, shapes, dt, rep, &p);
      if (c.kind == "unscale") {
        p.found_before = rep == 3 ? 1 : 0;  // a set flag stays set
        p.found_inf->set_values({p.found_before});
        for (size_t k = 0; k < shapes.size() && rep % 2 == 1; ++k)
          if (p.lists[0][k]->numel() > 0) {  // an inf or a NaN somewhere in one entry
            auto v = p.lists[0][k]->values();
            v[g() % v.size()] = g() % 2 ? INFINITY : NAN;
            p.lists[0][k]->set_values(v);
            break;
          }
      }
      run_and_check(c, p);
    }
}

TEST_P(OpTableForeach, LargeAndEmptyEntries) {
  reseed_for_current_test();
  const ForeachTableCase &c = GetParam();
  Problem p;
  make_problem(c, rng(), {{67, 129}, {0}, {2, 0, 3}, {5000}}, ACL_FLOAT, 1, &p);  // many threads' chunks
  run_and_check(c, p);
}

// A scalar kept in a device tensor is read when the launch runs: a repeatable executor relaunched
// after the value changed uses the new value.
TEST_P(OpTableForeach, DeviceScalarsReadAtLaunch) {
  const ForeachTableCase &c = GetParam();
  const char *role = c.has("alpha_t") ? "alpha_t" : c.has("scalar_t") ? "scalar_t" : c.has("scalars_t") ? "scalars_t" : nullptr;
  if (role == nullptr) return;  // no device scalar in this prototype: nothing to relaunch
  reseed_for_current_test();
  Problem p;
  make_problem(c, rng(), {{3, 4}, {5}}, ACL_FLOAT, 0, &p);
  const ForeachArgs a = p.args();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(c.phase1(a, &ws, &ex), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  std::vector<std::vector<std::vector<double>>> before(2);
  for (size_t k = 0; k < 2; ++k)
    for (int r = 0; r < 3; ++r)
      before[k].push_back(c.has(kListRoles[r]) ? p.lists[r][k]->values() : std::vector<double>{});
  // The new value, then the launch.
  if (c.has("alpha_t")) {
    p.alpha_v = 0.625;
    p.alpha_t->set_values({p.alpha_v});
  } else if (c.has("scalar_t")) {
    p.scalar_v = c.scalar_use == "value" ? -0.75 : std::max(c.lo, std::min(c.hi, 1.25));
    p.scalar_t->set_values({p.scalar_v});
  } else {
    p.per_entry = {0.5, -1.25};
    p.scalars_t->set_values(p.per_entry);
  }
  void *w = nullptr;
  if (ws > 0) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(c.launch(w, ws, ex, nullptr), 0) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  const int written = c.has("out") ? 3 : 0;
  for (size_t k = 0; k < 2; ++k) {
    std::vector<double> mag;
    EXPECT_TRUE(meets(ACL_FLOAT, p.lists[written][k]->values(), reference(c, p, k, before[k], &mag), mag)) << "entry " << k;
  }
  if (w != nullptr) aclrtFree(w);
  aclDestroyAclOpExecutor(ex);
}

TEST_P(OpTableForeach, ErrorsNameTheArgument) {
  const ForeachTableCase &c = GetParam();
  Problem p;
  make_problem(c, rng(), {{3, 4}, {5}}, c.dtypes[0], 0, &p);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(p.args(), w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const ForeachArgs &a, int code, const std::string &needle) {
    return fails_with(c.phase1(a, &ws, &ex), code, {needle.c_str()});
  };
  for (int r = 0; r < 4; ++r) {
    if (!c.has(kListRoles[r])) continue;
    const std::string name = c.name_of(kListRoles[r]);
    SCOPED_TRACE(name);
    ForeachArgs a = p.args();
    aclTensorList **field[4] = {&a.x, &a.x2, &a.x3, &a.out};
    *field[r] = nullptr;  // a null list
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, name));
    if (r != 0) {
      // Length mismatch: the list without its last entry.
      Problem q;
      make_problem(c, rng(), {{3, 4}}, c.dtypes[0], 0, &q);
      a = p.args();
      aclTensorList **f2[4] = {&a.x, &a.x2, &a.x3, &a.out};
      *f2[r] = q.handles[r].get();
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, name));
      // Shape mismatch at entry 1 (Norm's outputs: more than one element).
      Problem s;
      make_problem(c, rng(), {{3, 4}, {6}}, c.dtypes[0], 0, &s);
      a = p.args();
      aclTensorList **f3[4] = {&a.x, &a.x2, &a.x3, &a.out};
      *f3[r] = s.handles[r].get();
      std::vector<std::unique_ptr<DeviceTensor>> wide;
      std::shared_ptr<aclTensorList> wide_list;
      if (c.kind == "norm") {
        wide.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{1}, c.dtypes[0]));
        wide.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{2}, c.dtypes[0]));
        wide_list = list_of(wide);
        *f3[r] = wide_list.get();
      }
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, name + "[1]"));
      // Dtype mismatch at entry 0.
      const aclDataType other = c.dtypes[0] == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT;
      Problem d;
      make_problem(c, rng(), {{3, 4}, {5}}, other, 0, &d);
      a = p.args();
      aclTensorList **f4[4] = {&a.x, &a.x2, &a.x3, &a.out};
      *f4[r] = d.handles[r].get();
      EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, name + "[0]"));
    }
  }
  {  // A null entry.
    const std::string name = c.name_of("x");
    aclTensorList *l = p.handles[0].get();
    aclTensor *keep = l->tensors[1];
    l->tensors[1] = nullptr;
    EXPECT_TRUE(fails(p.args(), ACLNN_ERR_PARAM_NULLPTR, name + "[1]"));
    l->tensors[1] = keep;
  }
  {  // x's entries of two dtypes.
    Problem d;
    make_problem(c, rng(), {{3, 4}, {5}}, c.dtypes[0] == ACL_FLOAT ? ACL_BF16 : ACL_FLOAT, 0, &d);
    aclTensorList *l = p.handles[0].get(), *m = d.handles[0].get();
    std::swap(l->tensors[1], m->tensors[1]);
    EXPECT_TRUE(fails(p.args(), ACLNN_ERR_PARAM_INVALID, c.name_of("x") + "[1]"));
    std::swap(l->tensors[1], m->tensors[1]);
  }
  {  // A dtype outside the row's.
    Problem d;
    make_problem(c, rng(), {{3, 4}, {5}}, ACL_INT8, 0, &d);
    EXPECT_TRUE(fails(d.args(), ACLNN_ERR_PARAM_INVALID, c.name_of("x") + "[0]"));
  }
  for (const char *role : {"alpha_t", "scalar_t"}) {
    if (!c.has(role)) continue;
    DeviceTensor two({2}, ACL_FLOAT);
    ForeachArgs a = p.args();
    (std::string(role) == "alpha_t" ? a.alpha_t : a.scalar_t) = two;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.name_of(role)));
  }
  for (const char *role : {"found_inf", "inv_scale"}) {  // one FLOAT element
    if (!c.has(role)) continue;
    DeviceTensor two({2}, ACL_FLOAT), half({1}, ACL_FLOAT16);
    ForeachArgs a = p.args();
    (std::string(role) == "found_inf" ? a.found_inf : a.inv_scale) = two;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.name_of(role)));
    a = p.args();
    (std::string(role) == "found_inf" ? a.found_inf : a.inv_scale) = half;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.name_of(role)));
  }
  if (c.has("scalars_t")) {  // one value per entry
    DeviceTensor three({3}, ACL_FLOAT);
    ForeachArgs a = p.args();
    a.scalars_t = three;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, c.name_of("scalars_t")));
  }
  if (c.has("scalars")) {  // a scalar list of the wrong length
    float f = 1;
    aclScalar *one = aclCreateScalar(&f, ACL_FLOAT);
    aclScalarList *l = aclCreateScalarList(&one, 1);
    ForeachArgs a = p.args();
    a.scalars = l;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, "scalars"));
    aclDestroyScalarList(l);
  }
  if (c.has("scalar") || c.has("alpha") || c.has("round")) {  // a null aclScalar
    ForeachArgs a = p.args();
    a.scalar = a.alpha = a.round = nullptr;
    EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableForeach, ::testing::ValuesIn(all_cases()), harness::case_name<ForeachTableCase>);

// RoundOffNumber's modes (the vendor's rounding modes; read from the host-side roundMode): 1 half to
// even, 2 floor, 3 ceil, 5 trunc; others refused.
TEST(ForeachRoundOffNumber, EveryModeAndRefusedModes) {
  DeviceTensor x({4, 6}, ACL_FLOAT), out({4, 6}, ACL_FLOAT);
  std::vector<double> xs;
  for (int i = 0; i < 24; ++i) xs.push_back(-3.0 + 0.25 * i + (i % 5 == 0 ? 0.1 : 0.0));
  x.set_values(xs);
  std::vector<std::unique_ptr<DeviceTensor>> xv, ov;
  xv.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 6}, ACL_FLOAT));
  ov.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{4, 6}, ACL_FLOAT));
  xv[0]->set_values(xs);
  auto xl = list_of(xv), ol = list_of(ov);
  const struct {
    int mode;
    double (*f)(double);
  } modes[] = {{1, [](double v) { return std::nearbyint(v); }}, {2, [](double v) { return std::floor(v); }},
               {3, [](double v) { return std::ceil(v); }}, {5, [](double v) { return std::trunc(v); }}};
  for (const auto &m : modes) {
    SCOPED_TRACE(m.mode);
    DeviceTensor mode({1}, ACL_INT8);
    mode.set_values({static_cast<double>(m.mode)});
    ov[0]->poison();
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
                return aclnnForeachRoundOffNumberGetWorkspaceSize(xl.get(), mode, ol.get(), w, e);
              }, aclnnForeachRoundOffNumber), 0) << aclGetRecentErrMsg();
    std::vector<double> want;
    for (double v : xs) want.push_back(m.f(v));
    EXPECT_EQ(ov[0]->values(), want);
    ov[0]->poison();
    auto s = scalar_of(m.mode, ACL_INT64);
    ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) {
                return aclnnForeachRoundOffNumberV2GetWorkspaceSize(xl.get(), s.get(), ol.get(), w, e);
              }, aclnnForeachRoundOffNumberV2), 0) << aclGetRecentErrMsg();
    EXPECT_EQ(ov[0]->values(), want);
  }
  for (int bad : {0, 4, 6, -1}) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    DeviceTensor mode({1}, ACL_INT8);
    mode.set_values({static_cast<double>(bad)});
    EXPECT_TRUE(fails_with(aclnnForeachRoundOffNumberGetWorkspaceSize(xl.get(), mode, ol.get(), &ws, &ex),
                           ACLNN_ERR_PARAM_INVALID, {"roundMode"}));
    auto s = scalar_of(bad, ACL_INT64);
    EXPECT_TRUE(fails_with(aclnnForeachRoundOffNumberV2GetWorkspaceSize(xl.get(), s.get(), ol.get(), &ws, &ex),
                           ACLNN_ERR_PARAM_INVALID, {"roundMode"}));
  }
}

// One empty list is refused (torch: "Tensor list must have at least one tensor").
TEST(ForeachLists, EmptyListRefused) {
  aclTensorList *empty = aclCreateTensorList(nullptr, 0), *empty_out = aclCreateTensorList(nullptr, 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnForeachExpGetWorkspaceSize(empty, empty_out, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"x"}));
  aclDestroyTensorList(empty);
  aclDestroyTensorList(empty_out);
}

// An output list aliasing the input list entry by entry (the same views) is an in-place update.
TEST(ForeachLists, OutputMaySameViewAsInput) {
  std::vector<std::unique_ptr<DeviceTensor>> xv;
  xv.push_back(std::make_unique<DeviceTensor>(std::vector<int64_t>{5, 3}, ACL_FLOAT));
  xv[0]->fill_random(-2, 2);
  const auto before = xv[0]->values();
  auto xl = list_of(xv), ol = list_of(xv);
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnForeachNegGetWorkspaceSize(xl.get(), ol.get(), w, e); },
                   aclnnForeachNeg), 0) << aclGetRecentErrMsg();
  std::vector<double> want;
  for (double v : before) want.push_back(-v);
  EXPECT_EQ(xv[0]->values(), want);
}

}  // namespace
}  // namespace opsnn::test

// The test harness of the table-driven matmul family (src/ops/matmul/matmul.ops), cases registered
// from the table by tools/gen_ops.py --tests (matmul_table_cases.inc): every op and in-place twin,
// read through its row's rule (operand ranks, 1-D operands, batch handling, bias, transposes,
// scalars, cubeMathType), against the float64 reference refs::matmul_ref_elem:
//   - random problems over every dtype mix (FLOAT, FLOAT16, BF16; one dtype for same_dtype rows),
//     operand ranks, broadcast batch dims (dims of 1, missing leading dims), transposed / padded /
//     offset views, bias shapes that broadcast, empty and size-1 dims, K = 0, alpha / beta special
//     values (beta = 0 ignores a NaN bias, as in PyTorch), nothing written outside the output view;
//   - every cubeMathType with every dtype pair (a permission, never a gate: USE_FP16 rounds FLOAT x
//     FLOAT inputs to fp16, everything else keeps its precision);
//   - NaN / infinity propagation; a long reduction; out aliasing the bias;
//   - errors: each argument named (null: 161001; dtype, rank, inner dims, batch sizes, bias shape,
//     out shape, cubeMathType, mixed dtypes where one is required: 161002);
//   - the *WeightNz rows (their own suites at the end): mat2 in FRACTAL_NZ, built here from the
//     logical values by the documented layout (fractal_tensors.h), plain and transposed, against
//     the reference and bit-equal to the plain op; mat2 plain, and re-laid by aclnnTransMatmulWeight.
// Accuracy is precision.md's absolute-bound variant (a dot product's relative error is unbounded near
// zero): rel_i = |actual - golden| / (|alpha| sum |a b| + |beta bias| + 1e-7), MERE < T, MARE < 10 T.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "aclnnop/aclnn_trans_matmul_weight.h"
#include "float64_refs.h"
#include "fractal_tensors.h"
#include "op_table_harness.h"
#include "ops/matmul/matmul_phase1.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;
using Dev = std::unique_ptr<DeviceTensor>;
using ops::MmBatch;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr aclDataType kFloats[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

struct MatmulArgs {
  aclTensor *a = nullptr, *b = nullptr, *bias = nullptr, *out = nullptr;
  aclScalar *alpha_s = nullptr, *beta_s = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  int64_t trans_a = 0, trans_b = 0;
  int8_t cube = 0;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct MatmulTableCase {
  std::string name, api;
  ops::MatmulRule rule{};
  const char *a_name = "", *b_name = "", *bias_name = "";
  bool has_bias = false, inplace = false, scalar_alpha_beta = false, float_alpha_beta = false;
  bool has_trans = false, has_cube = false;
  int (*phase1)(const MatmulArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has_alpha() const { return scalar_alpha_beta || float_alpha_beta; }
};
void PrintTo(const MatmulTableCase &c, std::ostream *os) { *os << c.name; }

#include "matmul_table_cases.inc"

// The plain rows (the *WeightNz rows, whose mat2 is FLOAT16 / BF16 and may be blocked, have their own
// suites at the end).
const std::vector<MatmulTableCase> &all_cases() {
  static const std::vector<MatmulTableCase> c = [] {
    std::vector<MatmulTableCase> v;
    for (MatmulTableCase &m : harness::sampled(matmul_table_cases()))
      if (!m.rule.weight_nz) v.push_back(std::move(m));
    return v;
  }();
  return c;
}
template <class Pred>
std::vector<MatmulTableCase> cases_where(Pred pred) {
  std::vector<MatmulTableCase> v;
  for (const MatmulTableCase &c : all_cases())
    if (pred(c)) v.push_back(c);
  return v;
}

struct Scalar {
  aclScalar *s;
  explicit Scalar(float v) : s(aclCreateScalar(&v, ACL_FLOAT)) {}
  Scalar(const Scalar &) = delete;
  Scalar &operator=(const Scalar &) = delete;
  ~Scalar() { aclDestroyScalar(s); }
};

// A view of `shape`: its last two dims stored transposed (`transposed`), in padded storage with an
// offset (`padded`).
Dev make_view(const Dims &shape, aclDataType dt, bool transposed, bool padded) {
  const size_t r = shape.size();
  Dims strides(r);
  std::vector<size_t> order(r);
  for (size_t i = 0; i < r; ++i) order[i] = i;
  if (transposed && r >= 2) std::swap(order[r - 1], order[r - 2]);
  int64_t acc = 1;
  for (size_t k = r; k-- > 0;) {
    strides[order[k]] = acc;
    acc *= std::max<int64_t>(shape[order[k]], 1) + (padded && k == r - 1 ? 3 : 0);
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, padded ? 5 : 0);
}

int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng()); }
bool coin(int one_in = 2) { return pick(0, one_in - 1) == 0; }
template <class T, size_t N>
T pick_of(const T (&v)[N]) { return v[static_cast<size_t>(pick(0, static_cast<int>(N) - 1))]; }

// One problem of a row's rule: out = beta * bias + alpha * sum_s op(a)[s] @ op(b)[s].
struct Problem {
  Dims batch, a_batch, b_batch;  // a's / b's batch dims align right into batch (1: broadcast)
  int64_t M = 1, K = 1, N = 1;
  bool a_vec = false, b_vec = false, ta = false, tb = false;
  Dims bias;
  aclDataType da = ACL_FLOAT, db = ACL_FLOAT, dbias = ACL_FLOAT, dout = ACL_FLOAT;
  double alpha = 1, beta = 0;
  int8_t cube = 0;
};

bool summed(const MatmulTableCase &c) { return c.rule.batch == MmBatch::kSum; }
bool has_m(const MatmulTableCase &c, const Problem &p) { return !p.a_vec || c.rule.outer; }
bool has_n(const MatmulTableCase &c, const Problem &p) { return !p.b_vec || c.rule.outer; }

Dims a_shape(const MatmulTableCase &c, const Problem &p) {
  Dims s = p.a_batch;
  if (p.a_vec) s.push_back(c.rule.outer ? p.M : p.K);
  else s.insert(s.end(), {p.ta ? p.K : p.M, p.ta ? p.M : p.K});
  return s;
}
Dims b_shape(const MatmulTableCase &c, const Problem &p) {
  Dims s = p.b_batch;
  if (p.b_vec) s.push_back(c.rule.outer ? p.N : p.K);
  else s.insert(s.end(), {p.tb ? p.N : p.K, p.tb ? p.K : p.N});
  return s;
}
Dims res_shape(const MatmulTableCase &c, const Problem &p) {
  Dims s = summed(c) ? Dims{} : p.batch;
  if (has_m(c, p)) s.push_back(p.M);
  if (has_n(c, p)) s.push_back(p.N);
  return s;
}

// The linear index into a batch shape `from` (aligned right into `to`) of the batch index `idx` of `to`.
int64_t batch_lin(const Dims &idx, const Dims &to, const Dims &from) {
  int64_t lin = 0;
  const size_t off = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) lin = lin * from[d] + (from[d] == 1 ? 0 : idx[off + d]);
  return lin;
}

// The broadcast of two batch shapes (compatible by construction).
Dims broadcast(const Dims &x, const Dims &y) {
  Dims r(std::max(x.size(), y.size()), 1);
  for (size_t i = 0; i < r.size(); ++i) {
    const size_t ri = r.size() - 1 - i;
    const int64_t xd = i < x.size() ? x[x.size() - 1 - i] : 1, yd = i < y.size() ? y[y.size() - 1 - i] : 1;
    r[ri] = xd == 1 ? yd : xd;
  }
  return r;
}

// A random problem of the rule; `empty` 0..3: M, N, K or the first batch dim is 0 (where the rule
// has it), -1: none.
Problem random_problem(const MatmulTableCase &c, int empty = -1) {
  static const int64_t kSizes[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 33, 64, 97};
  static const int64_t kSmall[] = {1, 2, 3, 5, 8};
  Problem p;
  const int ra = pick(c.rule.a_min, c.rule.a_max), rb = pick(c.rule.b_min, c.rule.b_max);
  p.a_vec = ra == 1;
  p.b_vec = rb == 1;
  const int nb = std::max(std::max(ra, rb) - 2, 0);
  Dims base(static_cast<size_t>(nb));
  for (auto &d : base) d = pick(1, 3);
  if (c.rule.batch == MmBatch::kBroadcast) {
    auto part = [&](int r) {
      Dims s(base.end() - std::max(r - 2, 0), base.end());
      for (auto &d : s)
        if (coin(3)) d = 1;
      return s;
    };
    p.a_batch = part(ra);
    p.b_batch = part(rb);
    p.batch = broadcast(p.a_batch, p.b_batch);
  } else {
    p.batch = p.a_batch = p.b_batch = Dims{pick_of(kSmall)};
  }
  const bool small = nb > 1 || summed(c);
  auto size = [&] { return small ? pick_of(kSmall) : pick_of(kSizes); };
  p.M = has_m(c, p) ? size() : 1;
  p.N = has_n(c, p) ? size() : 1;
  p.K = c.rule.outer ? 1 : size();
  if (empty >= 0) {
    switch (empty) {
      case 0: if (has_m(c, p)) p.M = 0; break;
      case 1: if (has_n(c, p)) p.N = 0; break;
      case 2: if (!c.rule.outer) p.K = 0; break;
      default:  // an empty batch (a dim of 0 broadcasts against 1 and 0)
        if (p.batch.empty()) break;
        for (Dims *s : {&p.a_batch, &p.b_batch})
          if (s->size() == p.batch.size()) (*s)[0] = 0;
        p.batch = broadcast(p.a_batch, p.b_batch);
    }
  }
  p.ta = c.has_trans && coin();
  p.tb = c.has_trans && coin();
  if (c.has_bias) {
    p.bias = res_shape(c, p);
    if (!c.inplace) {
      const int drop = pick(0, static_cast<int>(p.bias.size()) - c.rule.bias_min);
      p.bias.erase(p.bias.begin(), p.bias.begin() + drop);
      for (auto &d : p.bias)
        if (coin(3)) d = 1;
    }
  }
  p.da = pick_of(kFloats);
  p.db = c.rule.same_dtype || coin() ? p.da : pick_of(kFloats);
  p.dout = c.rule.same_dtype ? p.da : coin() ? p.da : pick_of(kFloats);
  p.dbias = c.inplace ? p.dout : pick_of(kFloats);
  static const double kAlpha[] = {1.0, -0.75, 2.5, 0.3, 0.0};
  static const double kBeta[] = {1.0, 0.5, -1.25, 0.0, 2.0};
  if (c.has_alpha()) p.alpha = pick_of(kAlpha);
  if (c.has_bias) p.beta = pick_of(kBeta);
  if (c.has_cube) p.cube = static_cast<int8_t>(pick(0, 4));
  return p;
}

std::string describe(const MatmulTableCase &c, const Problem &p) {
  auto s = [](const Dims &d) { return ::testing::PrintToString(d); };
  return c.name + " a " + s(a_shape(c, p)) + (p.ta ? "^T" : "") + " b " + s(b_shape(c, p)) + (p.tb ? "^T" : "") +
         " bias " + (c.has_bias ? s(p.bias) : "-") + " dtypes " + std::to_string(p.da) + "," + std::to_string(p.db) +
         "," + std::to_string(p.dbias) + "->" + std::to_string(p.dout) + " alpha " + std::to_string(p.alpha) +
         " beta " + std::to_string(p.beta) + " cube " + std::to_string(p.cube);
}

// The tensors of a problem, views chosen at random (or contiguous).
struct Tensors {
  Dev a, b, bias, out;
};

Tensors make_tensors(const MatmulTableCase &c, const Problem &p, bool random_views) {
  auto view = [&](const Dims &s, aclDataType dt) { return make_view(s, dt, random_views && coin(), random_views && coin()); };
  Tensors t;
  t.a = view(a_shape(c, p), p.da);
  t.b = view(b_shape(c, p), p.db);
  if (c.has_bias) t.bias = view(p.bias, p.dbias);
  if (!c.inplace) t.out = view(res_shape(c, p), p.dout);
  return t;
}

// `alias`: out is the bias tensor itself.
int call_phase1(const MatmulTableCase &c, const Problem &p, const Tensors &t, uint64_t *ws, aclOpExecutor **ex,
                bool alias = false) {
  Scalar alpha(static_cast<float>(p.alpha)), beta(static_cast<float>(p.beta));
  MatmulArgs a;
  a.a = t.a ? t.a->get() : nullptr;
  a.b = t.b ? t.b->get() : nullptr;
  a.bias = t.bias ? t.bias->get() : nullptr;
  a.out = alias ? a.bias : t.out ? t.out->get() : nullptr;
  a.alpha_s = alpha.s;
  a.beta_s = beta.s;
  a.alpha = static_cast<float>(p.alpha);
  a.beta = static_cast<float>(p.beta);
  a.trans_a = p.ta;
  a.trans_b = p.tb ? 7 : 0;  // any non-zero value transposes
  a.cube = p.cube;
  return c.phase1(a, ws, ex);
}

// The float64 reference of the problem over the tensors' current values.
struct Expected {
  std::vector<double> value, bound;
};
Expected reference(const MatmulTableCase &c, const Problem &p, const Tensors &t) {
  auto av = t.a->values(), bv = t.b->values();
  if (p.cube == 2 && p.da == ACL_FLOAT && p.db == ACL_FLOAT) {  // USE_FP16: fp16-rounded inputs
    for (auto &v : av) v = round_to(ACL_FLOAT16, v);
    for (auto &v : bv) v = round_to(ACL_FLOAT16, v);
  }
  const std::vector<double> sv = c.has_bias ? t.bias->values() : std::vector<double>{};
  const Dims res = res_shape(c, p);
  const int64_t a_mat = p.a_vec ? (c.rule.outer ? p.M : p.K) : p.M * p.K;
  const int64_t b_mat = p.b_vec ? (c.rule.outer ? p.N : p.K) : p.K * p.N;
  const bool sum = summed(c);
  const int64_t nsum = sum ? p.batch[0] : 1;
  const size_t nbr = sum ? 0 : p.batch.size();  // batch dims in the result
  Expected e;
  for (int64_t o = 0; o < numel_of(res); ++o) {
    const Dims idx = res.empty() ? Dims{} : unravel(o, res);
    const int64_t i = has_m(c, p) ? idx[nbr] : 0, j = has_n(c, p) ? idx.back() : 0;
    auto term = [&](int64_t s, int64_t k) {
      const Dims bidx = sum ? Dims{s} : Dims(idx.begin(), idx.begin() + static_cast<int64_t>(nbr));
      const int64_t ai = p.a_vec ? (c.rule.outer ? i : k) : (p.ta ? k * p.M + i : i * p.K + k);
      const int64_t bi = p.b_vec ? (c.rule.outer ? j : k) : (p.tb ? j * p.K + k : k * p.N + j);
      return std::pair<double, double>{av[static_cast<size_t>(batch_lin(bidx, p.batch, p.a_batch) * a_mat + ai)],
                                       bv[static_cast<size_t>(batch_lin(bidx, p.batch, p.b_batch) * b_mat + bi)]};
    };
    const double bias = c.has_bias ? sv[static_cast<size_t>(broadcast_source(idx, res, p.bias))] : 0.0;
    const auto r = refs::matmul_ref_elem(nsum, p.K, p.alpha, c.has_bias ? p.beta : 0.0, bias, term);
    e.value.push_back(r.value);
    e.bound.push_back(r.bound);
  }
  return e;
}

::testing::AssertionResult close(const DeviceTensor &out, const Expected &e) {
  return meets_absolute_bound(out, e.value, e.bound);
}

// Fills the inputs (a NaN bias when beta == 0: it must be ignored), runs the op and checks the result.
void run_and_check(const MatmulTableCase &c, const Problem &p, Tensors &t, bool fill = true) {
  SCOPED_TRACE(describe(c, p));
  if (fill) {
    t.a->fill_random(-1, 1);
    t.b->fill_random(-1, 1);
    if (c.has_bias) {
      if (p.beta == 0) {  // NaN and an infinity, to be ignored
        std::vector<double> v(static_cast<size_t>(t.bias->numel()), kNaN);
        if (!v.empty()) v[0] = kInf;
        t.bias->set_values(v);
      } else {
        t.bias->fill_random(-1, 1);
      }
    }
  }
  if (t.out) t.out->poison();
  const Expected e = reference(c, p, t);
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return call_phase1(c, p, t, ws, ex); }, c.launch), 0)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(close(c.inplace ? *t.bias : *t.out, e));
}

class MatmulTable : public ::testing::TestWithParam<MatmulTableCase> {};

TEST_P(MatmulTable, DtypesViewsBroadcastsScalars) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (int iter = 0; iter < 60; ++iter) {
    const Problem p = random_problem(c, iter < 4 ? iter : -1);
    Tensors t = make_tensors(c, p, true);
    run_and_check(c, p, t);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
}

// cubeMathType is a permission to lower precision, never a gate (issue #18): every mode runs with
// every dtype pair within the precision standard.
TEST_P(MatmulTable, EveryCubeMathTypeWithEveryDtype) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (int cube = 0; cube <= (c.has_cube ? 4 : 0); ++cube)
    for (aclDataType da : kFloats)
      for (aclDataType db : kFloats) {
        if (c.rule.same_dtype && db != da) continue;
        Problem p = random_problem(c);
        p.cube = static_cast<int8_t>(cube);
        p.da = da;
        p.db = db;
        if (c.rule.same_dtype) p.dout = da;
        Tensors t = make_tensors(c, p, true);
        run_and_check(c, p, t);
        if (HasFatalFailure() || HasNonfatalFailure()) return;
      }
}

// NaN and infinities in the factors reach the outputs they feed (0 * inf included); a NaN bias with
// beta != 0 too.
TEST_P(MatmulTable, SpecialValuesPropagate) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (aclDataType dt : kFloats)
    for (int iter = 0; iter < 4; ++iter) {
      Problem p = random_problem(c);
      p.M = has_m(c, p) ? 5 : 1;
      p.N = has_n(c, p) ? 4 : 1;
      p.K = c.rule.outer ? 1 : 6;
      p.da = p.db = p.dout = dt;
      if (c.has_bias) {
        p.beta = iter % 2 ? 1.0 : -0.5;
        p.bias = res_shape(c, p);
        p.dbias = dt;
      }
      if (c.has_alpha()) p.alpha = iter % 2 ? 1.0 : 2.0;
      Tensors t = make_tensors(c, p, true);
      t.a->fill_random(-1, 1);
      t.b->fill_random(-1, 1);
      auto av = t.a->values(), bv = t.b->values();
      static const double kSpecial[] = {kNaN, kInf, -kInf, 0.0};
      for (int s = 0; s < 3; ++s) {
        if (!av.empty()) av[static_cast<size_t>(pick(0, static_cast<int>(av.size()) - 1))] = pick_of(kSpecial);
        if (!bv.empty()) bv[static_cast<size_t>(pick(0, static_cast<int>(bv.size()) - 1))] = pick_of(kSpecial);
      }
      t.a->set_values(av);
      t.b->set_values(bv);
      if (c.has_bias) {
        auto sv = std::vector<double>(static_cast<size_t>(t.bias->numel()), 0.5);
        if (!sv.empty()) sv[static_cast<size_t>(pick(0, static_cast<int>(sv.size()) - 1))] = kNaN;
        t.bias->set_values(sv);
      }
      run_and_check(c, p, t, false);
      if (HasFatalFailure() || HasNonfatalFailure()) return;
    }
}

// The ops with a reduction (all but the outer product, whose K is 1).
class MatmulTableReducing : public ::testing::TestWithParam<MatmulTableCase> {};

// Long reductions (K up to 8192; Addbmm: over 9 batches) in every dtype, on a few rows and on many
// register tiles (M 97, N 131). Thinned (OPSNN_TEST_THIN > 1, CI's qemu stage): K 2051 and 8192.
TEST_P(MatmulTableReducing, LongReductions) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  const std::vector<int64_t> ks = test_thin() > 1 ? std::vector<int64_t>{2051, 8192} : std::vector<int64_t>{1000, 2051, 4097, 8192};
  for (int64_t K : ks)
    for (aclDataType dt : kFloats) {
      Problem p = random_problem(c);
      p.M = has_m(c, p) ? (K == 2051 ? 97 : 9) : 1;
      p.N = has_n(c, p) ? (K == 2051 ? 131 : 11) : 1;
      p.K = summed(c) ? K / 9 : K;
      if (summed(c)) {
        p.batch = p.a_batch = p.b_batch = {9};
      } else if (K == 2051) {  // the many-tile problem once, not per batch
        for (Dims *b : {&p.a_batch, &p.b_batch}) std::fill(b->begin(), b->end(), 1);
        p.batch = broadcast(p.a_batch, p.b_batch);
      }
      if (c.has_bias) p.bias = res_shape(c, p);
      p.da = p.db = p.dout = p.dbias = dt;
      Tensors t = make_tensors(c, p, true);
      run_and_check(c, p, t);
      if (HasFatalFailure() || HasNonfatalFailure()) return;
    }
}

// out the bias tensor itself (torch.addmm(x, a, b, out=x)): each bias element is read before the same
// element of out is written.
class MatmulTableOutOfPlaceBias : public ::testing::TestWithParam<MatmulTableCase> {};

TEST_P(MatmulTableOutOfPlaceBias, OutAliasesBias) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (aclDataType dt : kFloats)
    for (int64_t nsum : {1, 4}) {
      Problem p = random_problem(c);
      p.M = has_m(c, p) ? 37 : 1;
      p.N = has_n(c, p) ? 45 : 1;
      p.K = c.rule.outer ? 1 : 300;
      if (summed(c)) p.batch = p.a_batch = p.b_batch = {nsum};
      p.bias = res_shape(c, p);
      p.dbias = p.dout = dt;
      p.beta = -0.5;
      if (c.has_alpha()) p.alpha = 1.5;
      Tensors t = make_tensors(c, p, true);
      t.a->fill_random(-1, 1);
      t.b->fill_random(-1, 1);
      t.bias->fill_random(-1, 1);
      const Expected e = reference(c, p, t);
      SCOPED_TRACE(describe(c, p));
      auto phase1 = [&](uint64_t *ws, aclOpExecutor **ex) { return call_phase1(c, p, t, ws, ex, true); };
      ASSERT_EQ(run_op(phase1, c.launch), 0) << aclGetRecentErrMsg();
      EXPECT_TRUE(close(*t.bias, e));
    }
}

// ---- errors

// A valid small problem of the rule: M 4, K 3, N 2, batch 2 where there is one.
Problem small_problem(const MatmulTableCase &c) {
  Problem p;
  const int ra = std::max<int>(c.rule.a_min, std::min<int>(c.rule.a_max, 2));
  const int rb = std::max<int>(c.rule.b_min, std::min<int>(c.rule.b_max, 2));
  p.a_vec = ra == 1;
  p.b_vec = rb == 1;
  if (ra == 3 || rb == 3) p.batch = p.a_batch = p.b_batch = {2};
  p.M = has_m(c, p) ? 4 : 1;
  p.N = has_n(c, p) ? 2 : 1;
  p.K = c.rule.outer ? 1 : 3;
  if (c.has_bias) p.bias = res_shape(c, p);
  p.alpha = p.beta = 1;
  return p;
}

::testing::AssertionResult fails(const MatmulTableCase &c, const Problem &p, const Tensors &t, int code,
                                 std::initializer_list<const char *> needles) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int st = call_phase1(c, p, t, &ws, &ex);
  if (st == 0) aclDestroyAclOpExecutor(ex);
  auto r = fails_with(st, code, needles);
  if (r) r = fails_with(st, code, {c.api.c_str()});
  return r << " [" << describe(c, p) << "]";
}

TEST_P(MatmulTable, ErrorsNameTheArgument) {
  const MatmulTableCase &c = GetParam();
  const Problem ok = small_problem(c);
  {
    Tensors t = make_tensors(c, ok, false);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(call_phase1(c, ok, t, &ws, &ex), 0) << aclGetRecentErrMsg();
    aclDestroyAclOpExecutor(ex);
  }
  const char *out_name = c.inplace ? c.bias_name : "out";
  // Null and non-float tensors, each named.
  for (int which = 0; which < 4; ++which) {
    if ((which == 2 && !c.has_bias) || (which == 3 && c.inplace)) continue;
    const char *name = which == 0 ? c.a_name : which == 1 ? c.b_name : which == 2 ? c.bias_name : "out";
    Tensors t = make_tensors(c, ok, false);
    Dev &slot = which == 0 ? t.a : which == 1 ? t.b : which == 2 ? t.bias : t.out;
    const Dims shape = slot->shape();
    slot.reset();
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_NULLPTR, {name}));
    slot = make_view(shape, ACL_INT32, false, false);
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {name, "INT32"}));
  }
  // Ranks outside the rule.
  for (int which = 0; which < 2; ++which) {
    const int lo = which == 0 ? c.rule.a_min : c.rule.b_min, hi = which == 0 ? c.rule.a_max : c.rule.b_max;
    for (int r : {lo - 1, hi + 1}) {
      if (r < 0 || r > 8) continue;
      Tensors t = make_tensors(c, ok, false);
      (which == 0 ? t.a : t.b) = make_view(Dims(static_cast<size_t>(r), 2), ACL_FLOAT, false, false);
      EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {which == 0 ? c.a_name : c.b_name}));
    }
  }
  // Inner dims that differ (a transposed operand counts its stored dims the other way).
  if (!c.rule.outer) {
    Problem bad = ok;
    Tensors t = make_tensors(c, ok, false);
    Dims bs = b_shape(c, ok);
    bs[bs.size() - (ok.b_vec ? 1 : 2)] += 2;
    t.b = make_view(bs, ACL_FLOAT, false, false);
    EXPECT_TRUE(fails(c, bad, t, ACLNN_ERR_PARAM_INVALID, {ok.a_vec && ok.b_vec ? "same shape" : "inner dims"}));
    if (c.has_trans) {
      bad.ta = true;  // a [4, 3] read as [3, 4]
      Tensors t2 = make_tensors(c, ok, false);
      EXPECT_TRUE(fails(c, bad, t2, ACLNN_ERR_PARAM_INVALID, {"inner dims"}));
    }
  }
  // Batch sizes that differ: a size error where they must be equal, else a broadcast error.
  if (!ok.batch.empty()) {
    Tensors t = make_tensors(c, ok, false);
    Dims bs = b_shape(c, ok);
    bs[0] = 3;
    t.b = make_view(bs, ACL_FLOAT, false, false);
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {c.rule.batch == MmBatch::kBroadcast ? "broadcast" : "batch size"}));
  }
  // The output's shape (a 0-D result: its rank).
  {
    Tensors t = make_tensors(c, ok, false);
    Dims os = res_shape(c, ok);
    if (os.empty()) os = {1};
    else os.back() += 1;
    (c.inplace ? t.bias : t.out) = make_view(os, ACL_FLOAT, false, false);
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {out_name}));
  }
  // A bias that does not broadcast to the result, or has too few dims.
  if (c.has_bias && !c.inplace) {
    Tensors t = make_tensors(c, ok, false);
    Dims bs = ok.bias;
    bs.back() += 1;
    t.bias = make_view(bs, ACL_FLOAT, false, false);
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {c.bias_name, "broadcast"}));
    Dims big = ok.bias;
    big.insert(big.begin(), 2);
    t.bias = make_view(big, ACL_FLOAT, false, false);
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {c.bias_name}));
    if (c.rule.bias_min > 0) {
      t.bias = make_view(Dims(static_cast<size_t>(c.rule.bias_min - 1), 1), ACL_FLOAT, false, false);
      EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {c.bias_name}));
    }
  }
  // cubeMathType outside 0..4.
  if (c.has_cube)
    for (int8_t cube : {int8_t{5}, int8_t{-1}}) {
      Problem bad = ok;
      bad.cube = cube;
      Tensors t = make_tensors(c, ok, false);
      EXPECT_TRUE(fails(c, bad, t, ACLNN_ERR_PARAM_INVALID, {"cubeMathType"}));
    }
  // A null alpha / beta.
  if (c.scalar_alpha_beta)
    for (int which = 0; which < 2; ++which) {
      Tensors t = make_tensors(c, ok, false);
      MatmulArgs a;
      Scalar one(1.0f);
      a.a = *t.a;
      a.b = *t.b;
      a.bias = t.bias ? t.bias->get() : nullptr;
      a.out = t.out ? t.out->get() : nullptr;
      (which == 0 ? a.alpha_s : a.beta_s) = one.s;
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {which == 0 ? "beta" : "alpha"}));
    }
  // One dtype throughout where the rule asks for it.
  if (c.rule.same_dtype) {
    Tensors t = make_tensors(c, ok, false);
    t.b = make_view(b_shape(c, ok), ACL_FLOAT16, false, false);
    EXPECT_TRUE(fails(c, ok, t, ACLNN_ERR_PARAM_INVALID, {"same dtype"}));
  }
}

// ---- the *WeightNz rows

std::vector<MatmulTableCase> nz_cases() {
  std::vector<MatmulTableCase> v;
  for (MatmulTableCase &m : harness::sampled(matmul_table_cases()))
    if (m.rule.weight_nz) v.push_back(std::move(m));
  return v;
}

// The row's plain twin ("MatmulWeightNz" -> "Matmul").
const MatmulTableCase &plain_twin(const MatmulTableCase &c) {
  static std::vector<MatmulTableCase> all = matmul_table_cases();
  const std::string want = c.name.substr(0, c.name.rfind("WeightNz"));
  for (const MatmulTableCase &m : all)
    if (m.name == want) return m;
  ADD_FAILURE() << "no plain twin " << want;
  return c;
}

// A problem of the row with a 16-bit mat2 (the documented dtypes).
Problem nz_problem(const MatmulTableCase &c, int empty = -1) {
  Problem p = random_problem(c, empty);
  p.db = coin() ? ACL_FLOAT16 : ACL_BF16;
  return p;
}

// Phase 1 of row `c` over t's tensors with mat2 = b.
int nz_phase1(const MatmulTableCase &c, const Problem &p, const Tensors &t, aclTensor *b, uint64_t *ws,
              aclOpExecutor **ex) {
  Scalar alpha(static_cast<float>(p.alpha)), beta(static_cast<float>(p.beta));
  MatmulArgs a;
  a.a = *t.a;
  a.b = b;
  a.bias = t.bias ? t.bias->get() : nullptr;
  a.out = *t.out;
  a.alpha_s = alpha.s;
  a.beta_s = beta.s;
  a.cube = p.cube;
  return c.phase1(a, ws, ex);
}

// Runs the row with mat2 as FRACTAL_NZ (a transposed view when `transposed`) holding t.b's values:
// within precision of the reference, and bit-equal to the plain twin on a contiguous mat2.
void run_nz_and_compare(const MatmulTableCase &c, const Problem &p, Tensors &t, bool transposed) {
  SCOPED_TRACE(describe(c, p) + (transposed ? " mat2 NZ transposed" : " mat2 NZ"));
  t.a->fill_random(-1, 1);
  t.b->fill_random(-1, 1);
  if (c.has_bias) t.bias->fill_random(-1, 1);
  t.out->poison();
  const Expected e = reference(c, p, t);
  const auto nz = make_fractal_nz(t.b->shape(), p.db, t.b->values(), transposed);
  Tensors tn;
  tn.b = std::move(t.b);
  t.b.reset();
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return nz_phase1(c, p, t, nz->get(), ws, ex); }, c.launch), 0)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(close(*t.out, e));
  const std::vector<double> got = t.out->values();
  // The plain twin on a contiguous mat2 of the same values.
  Dev plain = make_view(tn.b->shape(), p.db, false, false);
  plain->set_values(tn.b->values());
  t.out->poison();
  const MatmulTableCase &twin = plain_twin(c);
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) { return nz_phase1(twin, p, t, *plain, ws, ex); }, twin.launch), 0)
      << aclGetRecentErrMsg();
  const std::vector<double> want = t.out->values();
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))) {
      ADD_FAILURE() << "element " << i << ": WeightNz " << got[i] << ", " << twin.name << " " << want[i];
      break;
    }
  t.b = std::move(tn.b);
}

class MatmulTableNz : public ::testing::TestWithParam<MatmulTableCase> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MatmulTableNz);

// Sizes on both sides of the 16 x 16 blocks (padded rows and columns), empty dims, every cubeMathType.
TEST_P(MatmulTableNz, BlockedMat2MatchesReferenceAndPlainOp) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (int iter = 0; iter < 40; ++iter) {
    const Problem p = nz_problem(c, iter < 4 ? iter : -1);
    Tensors t = make_tensors(c, p, false);
    // transposed: the view [K, N] of a stored [N, K] (told by its strides, so K > 1)
    run_nz_and_compare(c, p, t, iter % 2 == 1 && p.K > 1);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
}

// K a multiple of 16 (a 2-D mat2: the NZ blocks are the GEMM engine's pre-packed layout, read in
// place): every small-M order and the blocked paths, bit-equal to the plain op.
TEST_P(MatmulTableNz, BlocksReadInPlaceMatchPlainOp) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (int64_t M : {1, 2, 3, 4, 5, 16, 67})
    for (int64_t K : {16, 48, 256}) {
      Problem p = nz_problem(c);
      p.M = M;
      p.K = K;
      static const int64_t kN[] = {1, 7, 16, 33, 130};
      p.N = pick_of(kN);
      for (Dims *b : {&p.batch, &p.a_batch, &p.b_batch}) std::fill(b->begin(), b->end(), 1);
      if (c.has_bias) p.bias = res_shape(c, p);
      Tensors t = make_tensors(c, p, false);
      run_nz_and_compare(c, p, t, false);
      if (HasFatalFailure() || HasNonfatalFailure()) return;
    }
}

// A repeatable executor relaunched after the blocked mat2 was rewritten through the runtime
// (aclrtMemcpy), and re-pointed at another one (aclSetInputTensorAddr): the kept dense copy
// (small M) and the in-place read (M > 4) both follow.
TEST_P(MatmulTableNz, RepeatableExecutorFollowsRewrittenAndRepointedMat2) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (int64_t M : {1, 9}) {
    Problem p = nz_problem(c);
    p.M = M;
    p.K = 32;
    p.N = 20;
    for (Dims *b : {&p.batch, &p.a_batch, &p.b_batch}) std::fill(b->begin(), b->end(), 1);
    if (c.has_bias) p.bias = res_shape(c, p);
    Tensors t = make_tensors(c, p, false);
    t.a->fill_random(-1, 1);
    if (c.has_bias) t.bias->fill_random(-1, 1);
    std::vector<std::unique_ptr<FractalTensor>> nz;
    std::vector<Expected> want;
    for (int v = 0; v < 3; ++v) {  // three weights' values
      t.b->fill_random(-1, 1);
      want.push_back(reference(c, p, t));
      nz.push_back(make_fractal_nz(t.b->shape(), p.db, t.b->values()));
    }
    SCOPED_TRACE(describe(c, p));
    uint64_t ws_size = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(nz_phase1(c, p, t, *nz[0], &ws_size, &ex), 0) << aclGetRecentErrMsg();
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACL_SUCCESS);
    void *ws = nullptr;
    if (ws_size > 0) ASSERT_EQ(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    auto launch_and_check = [&](const Expected &e, const char *what) {
      t.out->poison();
      ASSERT_EQ(c.launch(ws, ws_size, ex, nullptr), 0) << what;
      ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
      EXPECT_TRUE(close(*t.out, e)) << what;
    };
    launch_and_check(want[0], "first launch");
    launch_and_check(want[0], "relaunch");
    const int64_t bytes = numel_of(fractal_nz_storage(t.b->shape(), p.db)) * static_cast<int64_t>(elem_size(p.db));
    ASSERT_EQ(aclrtMemcpy(nz[0]->data(), bytes, nz[1]->data(), bytes, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    launch_and_check(want[1], "after aclrtMemcpy into mat2");
    const size_t mat2_input = c.has_bias ? 2 : 1;  // Addmm: self, mat1, mat2
    ASSERT_EQ(aclSetInputTensorAddr(ex, mat2_input, *nz[2], nz[2]->data()), ACL_SUCCESS);
    launch_and_check(want[2], "re-pointed at another mat2");
    aclDestroyAclOpExecutor(ex);
    if (ws) aclrtFree(ws);
  }
}

// The vendor's other flow: mat2 plain (ND), or re-laid in place by aclnnTransMatmulWeight, read as
// the plain op reads it.
TEST_P(MatmulTableNz, PlainAndTransMatmulWeightMat2) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  for (int iter = 0; iter < 12; ++iter) {
    const Problem p = nz_problem(c);
    Tensors t = make_tensors(c, p, iter < 6);
    if (iter >= 6 && t.b->shape().size() == 2) {
      // storage for the re-laid weight: K * align(N, 16) elements
      const Dims bs = t.b->shape();
      t.b = std::make_unique<DeviceTensor>(bs, p.db, contiguous_strides(bs), 0, bs[0] * ((bs[1] + 15) / 16 * 16));
      t.b->fill_random(-1, 1);
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      const std::vector<double> logical = t.b->values();
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnTransMatmulWeightGetWorkspaceSize(*t.b, w, e); },
                       aclnnTransMatmulWeight), 0)
          << aclGetRecentErrMsg();
      (void)ws;
      (void)ex;
      t.a->fill_random(-1, 1);
      if (c.has_bias) t.bias->fill_random(-1, 1);
      t.out->poison();
      // The reference from the logical values (the buffer now holds the re-laid ones).
      Tensors ref;
      ref.a = std::move(t.a);
      ref.b = make_view(t.b->shape(), p.db, false, false);
      ref.b->set_values(logical);
      ref.bias = std::move(t.bias);
      const Expected e = reference(c, p, ref);
      t.a = std::move(ref.a);
      t.bias = std::move(ref.bias);
      SCOPED_TRACE(describe(c, p) + " mat2 re-laid by aclnnTransMatmulWeight");
      ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return call_phase1(c, p, t, w, e); }, c.launch), 0)
          << aclGetRecentErrMsg();
      EXPECT_TRUE(close(*t.out, e));
    } else {
      run_and_check(c, p, t);
    }
    if (HasFatalFailure() || HasNonfatalFailure()) return;
  }
}

TEST_P(MatmulTableNz, ErrorsNameMat2) {
  reseed_for_current_test();
  const MatmulTableCase &c = GetParam();
  Problem p = small_problem(c);
  p.db = ACL_FLOAT16;
  p.M = 5;
  p.K = 40;
  p.N = 19;
  if (c.has_bias) p.bias = res_shape(c, p);
  Tensors t = make_tensors(c, p, false);
  const Dims bs = t.b->shape();
  auto fails_b = [&](aclTensor *b, int code, std::initializer_list<const char *> words) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    Scalar one(1.0f);
    MatmulArgs a;
    a.a = *t.a;
    a.b = b;
    a.bias = t.bias ? t.bias->get() : nullptr;
    a.out = *t.out;
    a.alpha_s = a.beta_s = one.s;
    const int st = c.phase1(a, &ws, &ex);
    if (st == 0) aclDestroyAclOpExecutor(ex);
    auto r = fails_with(st, code, words);
    return r ? fails_with(st, code, {c.api.c_str()}) : r;
  };
  EXPECT_TRUE(fails_b(nullptr, ACLNN_ERR_PARAM_NULLPTR, {c.b_name}));
  const std::vector<int64_t> good = fractal_nz_storage(bs, ACL_FLOAT16);
  {  // another blocked format
    FractalTensor w(bs, ACL_FLOAT16, ACL_FORMAT_FRACTAL_Z, good, 1 << 14);
    EXPECT_TRUE(fails_b(w, ACLNN_ERR_PARAM_INVALID, {c.b_name, "FRACTAL_NZ", "format"}));
  }
  for (int variant = 0; variant < 4; ++variant) {  // storage shapes of other layouts
    std::vector<int64_t> bad = good;
    const size_t r = bad.size();
    if (variant == 0) bad[r - 4] += 1;                          // a column block too many
    if (variant == 1) bad[r - 3] -= 1;                          // a row block short
    if (variant == 2) bad[r - 1] = 32;                          // the INT8 block width
    if (variant == 3) std::swap(bad[r - 4], bad[r - 3]);        // the transpose's blocks, plain view
    FractalTensor w(bs, ACL_FLOAT16, ACL_FORMAT_FRACTAL_NZ, bad, 1 << 14);
    EXPECT_TRUE(fails_b(w, ACLNN_ERR_PARAM_INVALID, {c.b_name, "storage shape"})) << variant;
  }
  {  // FLOAT is not one of the documented NZ dtypes
    FractalTensor w(bs, ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, fractal_nz_storage(bs, ACL_FLOAT), 1 << 14);
    EXPECT_TRUE(fails_b(w, ACLNN_ERR_PARAM_INVALID, {c.b_name, "dtype"}));
    Dev f32 = make_view(bs, ACL_FLOAT, false, false);
    EXPECT_TRUE(fails_b(*f32, ACLNN_ERR_PARAM_INVALID, {c.b_name, "dtype"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, MatmulTableNz, ::testing::ValuesIn(nz_cases()), harness::case_name<MatmulTableCase>);

INSTANTIATE_TEST_SUITE_P(Tables, MatmulTable, ::testing::ValuesIn(all_cases()), harness::case_name<MatmulTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, MatmulTableReducing,
                         ::testing::ValuesIn(cases_where([](const MatmulTableCase &c) { return !c.rule.outer; })),
                         harness::case_name<MatmulTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, MatmulTableOutOfPlaceBias,
                         ::testing::ValuesIn(cases_where([](const MatmulTableCase &c) { return c.has_bias && !c.inplace; })),
                         harness::case_name<MatmulTableCase>);

}  // namespace
}  // namespace opsnn::test

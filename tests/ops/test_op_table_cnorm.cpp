// The test harness of the table-driven batch-norm ops (src/ops/norm/batch_norm.ops): every op runs
// the same suites, registered from the table by tools/gen_ops.py --tests (cnorm_table_cases.inc in
// the build tree). Tensors are made from each row's roles (per element: x, dy, y; per channel:
// kernels::ChanVec names), and every output the op has is compared with one float64 reference
// (below, written from PyTorch's batch-norm formulas, independent of kernels/norm):
//   - every dtype; training and eval; optional weight / bias / running statistics absent;
//     outputMask and inputG / weightG / biasG variants (unwanted outputs untouched); random
//     2-d to 5-d shapes; NHWC as the channels-last layout; padded (non-contiguous) inputs and
//     updated tensors; INT32 counts where the op allows them;
//   - the quantised forward (kQuantForward): integer x and y, FLOAT vectors, scales and zero
//     points per dtype (saturating outputs included), exact ties rounded half to even;
//   - empty channels / batches where the op allows them;
//   - errors with their code and the argument named.
#include <cmath>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/tensor.h"  // aclTensor::format (DeviceTensor makes ND tensors)
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct CnormArgs {
  aclTensor *t[16] = {};
  bool training = true;
  double momentum = 0.1, eps = 1e-5;
  const aclBoolArray *output_mask = nullptr;
  bool input_g = true, weight_g = true, bias_g = true;
  const aclScalar *input_scale = nullptr, *input_zero_point = nullptr, *output_scale = nullptr,
                  *output_zero_point = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct CnormArgRole {
  std::string name, role;
  bool out = false, inout = false, optional = false;
};

struct CnormTableCase {
  std::string name, api, mode;
  std::vector<CnormArgRole> args;
  std::vector<aclDataType> dtypes;
  bool has_training = false, has_mask = false, has_flags = false;
  int (*phase1)(const CnormArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const std::string &role) const {
    for (const auto &a : args)
      if (a.role == role) return true;
    return false;
  }
};
void PrintTo(const CnormTableCase &c, std::ostream *os) { *os << c.name; }

#include "cnorm_table_cases.inc"

const std::vector<CnormTableCase> &all_cases() {
  static const std::vector<CnormTableCase> c = harness::sampled(cnorm_table_cases());
  return c;
}

using Values = std::map<std::string, std::vector<double>>;  // role -> values (row-major)

struct CnormSetup {
  std::vector<int64_t> shape;  // x's dims in memory order
  int cdim = 1;
  int64_t groups = 3;
  bool training = true;
  double momentum = 0.1, eps = 1e-5;
  bool mask[3] = {true, true, true};
  bool input_g = true, weight_g = true, bias_g = true;
  bool strided = false;     // inputs and updated tensors as padded views
  bool int_counts = false;  // INT32 counts (kSyncGather)
  double in_scale = 0.05, in_zp = 3, out_scale = 0.04, out_zp = -5;  // kQuantForward (INT8 saturates often)
};

bool is_quant(const CnormTableCase &c) { return c.mode == "kQuantForward"; }

// The integer range of a quantised output dtype.
std::pair<double, double> quant_range(aclDataType dt) {
  if (dt == ACL_INT8) return {-128, 127};
  if (dt == ACL_UINT8) return {0, 255};
  return {-2147483648.0, 2147483647.0};
}

// Quantised outputs against the reference's unrounded quotients q: the integer nearest to q
// clamped to the dtype's range (either neighbour when q is within 1e-6 of a tie; exact ties have
// their own test).
::testing::AssertionResult quant_matches(aclDataType dt, const std::vector<double> &got, const std::vector<double> &q) {
  if (got.size() != q.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << q.size();
  const auto range = quant_range(dt);
  for (size_t i = 0; i < q.size(); ++i) {
    const double t = std::min(std::max(q[i], range.first), range.second);
    if (!(std::fabs(got[i] - t) <= 0.5 + 1e-6))
      return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", reference quotient " << q[i];
  }
  return ::testing::AssertionSuccess();
}

using ScalarPtr = std::unique_ptr<aclScalar, void (*)(aclScalar *)>;
ScalarPtr float_scalar(double v) {
  const float f = static_cast<float>(v);
  return ScalarPtr(aclCreateScalar(const_cast<float *>(&f), ACL_FLOAT), [](aclScalar *p) { aclDestroyScalar(p); });
}
ScalarPtr int_scalar(double v) {
  const int32_t i = static_cast<int32_t>(v);
  return ScalarPtr(aclCreateScalar(const_cast<int32_t *>(&i), ACL_INT32), [](aclScalar *p) { aclDestroyScalar(p); });
}

// The float64 reference: every output role of the case from the input roles' values.
Values reference(const CnormTableCase &c, const CnormSetup &s, const Values &in) {
  const int64_t C = s.shape[static_cast<size_t>(s.cdim)];
  const int64_t total = numel_of(s.shape);
  const int64_t M = C > 0 ? total / C : 0;
  auto chan_of = [&](int64_t i) { return unravel(i, s.shape)[static_cast<size_t>(s.cdim)]; };
  auto get = [&](const std::string &r, int64_t k, double dflt) {
    auto it = in.find(r);
    return it == in.end() ? dflt : it->second[static_cast<size_t>(k)];
  };
  Values out;
  if (c.mode == "kGather") {
    for (int64_t ch = 0; ch < C; ++ch) {
      long double n = 0, s1 = 0, s2 = 0;
      for (int64_t g = 0; g < s.groups; ++g) {
        const long double cnt = get("kCounts", g, 0), mu = get("kMeanIn", g * C + ch, 0), is = get("kInvstdIn", g * C + ch, 1);
        const long double var = 1 / (is * is) - s.eps;
        n += cnt;
        s1 += cnt * mu;
        s2 += cnt * (var + mu * mu);
      }
      const long double mean = s1 / n, var = s2 / n - mean * mean;
      out["kMeanOut"].push_back(static_cast<double>(mean));
      out["kInvstdOut"].push_back(static_cast<double>(1 / sqrtl(var + s.eps)));
      out["kRunMean"].push_back(static_cast<double>((1 - s.momentum) * get("kRunMean", ch, 0) + s.momentum * mean));
      out["kRunVar"].push_back(
          static_cast<double>((1 - s.momentum) * get("kRunVar", ch, 0) + s.momentum * var * n / (n - 1)));
    }
    return out;
  }
  if (c.mode == "kSyncGather") {  // aclnnSyncBatchNormGatherStats' documented formulas
    for (int64_t ch = 0; ch < C; ++ch) {
      long double n = 0, s1 = 0, s2 = 0;
      for (int64_t g = 0; g < s.groups; ++g) {
        n += get("kCounts", g, 0);
        s1 += get("kSumIn", g * C + ch, 0);
        s2 += get("kSqSumIn", g * C + ch, 0);
      }
      const long double mean = s1 / n, var = s2 / n - mean * mean;
      out["kMeanOut"].push_back(static_cast<double>(mean));
      out["kInvstdOut"].push_back(static_cast<double>(1 / sqrtl(var + static_cast<float>(s.eps))));
      const long double mom = static_cast<float>(s.momentum);  // the prototype's float
      out["kRunMean"].push_back(static_cast<double>((1 - mom) * get("kRunMean", ch, 0) + mom * mean));
      out["kRunVar"].push_back(static_cast<double>((1 - mom) * get("kRunVar", ch, 0) + mom * var * n / (n - 1)));
    }
    return out;
  }
  if (c.mode == "kQuantForward") {  // aclnnQuantizedBatchNorm's documented formulas, before rounding
    const auto &x = in.at("x");
    const long double is = static_cast<float>(s.in_scale), os = static_cast<float>(s.out_scale);
    for (int64_t i = 0; i < total; ++i) {
      const int64_t ch = chan_of(i);
      const long double xd = (x[static_cast<size_t>(i)] - s.in_zp) * is;
      const long double y = (xd - get("kRunMean", ch, 0)) / sqrtl(get("kRunVar", ch, 1) + static_cast<float>(s.eps)) *
                                get("kWeight", ch, 1) +
                            get("kBias", ch, 0);
      out["y"].push_back(static_cast<double>(y / os + s.out_zp));
    }
    return out;
  }
  // Per-channel element lists.
  std::vector<std::vector<int64_t>> idx(static_cast<size_t>(C));
  for (int64_t i = 0; i < total; ++i) idx[static_cast<size_t>(chan_of(i))].push_back(i);
  const auto &x = in.at("x");
  out["y"].assign(static_cast<size_t>(total), 0.0);
  for (int64_t ch = 0; ch < C; ++ch) {
    const auto &e = idx[static_cast<size_t>(ch)];
    long double sum = 0, sq = 0;
    for (int64_t i : e) {
      sum += x[static_cast<size_t>(i)];
      sq += static_cast<long double>(x[static_cast<size_t>(i)]) * x[static_cast<size_t>(i)];
    }
    const long double data_mean = sum / M, data_var = sq / M - data_mean * data_mean;
    out["kSumOut"].push_back(static_cast<double>(sum));
    out["kSqSumOut"].push_back(static_cast<double>(sq));
    const bool eval = c.has_training && !s.training;
    long double mean, invstd;
    if (c.mode == "kForward" && c.has_training && s.training) {
      mean = data_mean;
      invstd = 1 / sqrtl(data_var + s.eps);
    } else if (eval) {
      mean = get("kRunMean", ch, 0);
      invstd = 1 / sqrtl(get("kRunVar", ch, 1) + s.eps);
    } else {
      mean = get("kMeanIn", ch, 0);
      invstd = get("kInvstdIn", ch, 1);
    }
    const long double w = get("kWeight", ch, 1), b = get("kBias", ch, 0);
    out["kMeanOut"].push_back(static_cast<double>(mean));
    out["kInvstdOut"].push_back(static_cast<double>(invstd));
    out["kRunMean"].push_back(static_cast<double>((1 - s.momentum) * get("kRunMean", ch, 0) + s.momentum * data_mean));
    out["kRunVar"].push_back(static_cast<double>((1 - s.momentum) * get("kRunVar", ch, 0) +
                                                 s.momentum * data_var * M / (M - 1)));
    if (c.mode == "kForward") {
      for (int64_t i : e) out["y"][static_cast<size_t>(i)] = static_cast<double>((x[static_cast<size_t>(i)] - mean) * invstd * w + b);
      continue;
    }
    if (c.mode == "kSums") continue;
    const auto &dy = in.at("dy");
    long double sdy = 0, sdyx = 0, count = M;
    if (c.mode == "kElemtBackward") {
      sdy = get("kSumDyIn", ch, 0);
      sdyx = get("kSumDyXmuIn", ch, 0);
      count = 0;
      for (int64_t g = 0; g < s.groups; ++g) count += get("kCounts", g, 0);
    } else {
      for (int64_t i : e) {
        sdy += dy[static_cast<size_t>(i)];
        sdyx += dy[static_cast<size_t>(i)] * (x[static_cast<size_t>(i)] - mean);
      }
    }
    out["kSumDyOut"].push_back(static_cast<double>(sdy));
    out["kSumDyXmuOut"].push_back(static_cast<double>(sdyx));
    out["kGradWeight"].push_back(static_cast<double>(sdyx * invstd));
    out["kGradBias"].push_back(static_cast<double>(sdy));
    for (int64_t i : e) {
      const long double g = dy[static_cast<size_t>(i)], xm = x[static_cast<size_t>(i)] - mean;
      out["y"][static_cast<size_t>(i)] =
          static_cast<double>(eval ? g * invstd * w : (g - sdy / count - xm * invstd * invstd * sdyx / count) * invstd * w);
    }
  }
  return out;
}

// Whether the case writes the output with this role under the setup.
bool written(const CnormTableCase &c, const CnormSetup &s, const CnormArgRole &a) {
  if (a.role == "y" && c.mode == "kBackward") return s.mask[0] && s.input_g;
  if (a.role == "kGradWeight") return s.mask[1] && s.weight_g;
  if (a.role == "kGradBias") return s.mask[2] && s.bias_g;
  if (a.role == "kSumDyOut" || a.role == "kSumDyXmuOut") return s.input_g;
  if (a.role == "kRunMean" || a.role == "kRunVar")
    return a.inout && (c.mode == "kGather" || c.mode == "kSyncGather" ||
                       (c.mode == "kForward" && c.has_training && s.training));
  return a.out;
}

std::vector<int64_t> role_shape(const CnormTableCase &c, const CnormSetup &s, const std::string &role) {
  const int64_t C = s.shape[static_cast<size_t>(s.cdim)];
  if (role == "x" || role == "dy" || role == "y") return s.shape;
  if (c.mode == "kGather" && (role == "kMeanIn" || role == "kInvstdIn")) return {s.groups, C};
  if (role == "kSumIn" || role == "kSqSumIn") return {s.groups, C};
  if (role == "kCounts") return {s.groups};
  return {C};
}

std::pair<double, double> role_range(const std::string &role) {
  if (role == "x") return {-2, 2};
  if (role == "dy" || role == "kBias" || role == "kRunMean") return {-1, 1};
  if (role == "kWeight") return {0.5, 1.5};
  if (role == "kMeanIn") return {-0.5, 0.5};
  if (role == "kInvstdIn" || role == "kRunVar") return {0.5, 2};
  // Square sums >= 30 per group against sums in [-3, 3] over >= 3 samples: a positive variance.
  if (role == "kSqSumIn") return {30, 60};
  return {-3, 3};  // given gradient sums
}

void check(const CnormTableCase &c, aclDataType dt, const CnormSetup &s, bool omit_optional) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(s.shape)
                                    << " cdim " << s.cdim << (s.training ? " training" : " eval")
                                    << (omit_optional ? " without optional inputs" : "") << " mask " << s.mask[0]
                                    << s.mask[1] << s.mask[2] << " flags " << s.input_g << s.weight_g << s.bias_g
                                    << (s.strided ? " strided" : "") << (s.int_counts ? " INT32 counts" : ""));
  auto &r = rng();
  CnormArgs a;
  a.training = s.training;
  a.momentum = s.momentum;
  a.eps = s.eps;
  a.input_g = s.input_g;
  a.weight_g = s.weight_g;
  a.bias_g = s.bias_g;
  const bool m3[3] = {s.mask[0], s.mask[1], s.mask[2]};
  std::unique_ptr<aclBoolArray, void (*)(aclBoolArray *)> mask(aclCreateBoolArray(m3, 3),
                                                                 [](aclBoolArray *p) { aclDestroyBoolArray(p); });
  a.output_mask = mask.get();
  ScalarPtr isc = float_scalar(s.in_scale), izp = int_scalar(s.in_zp), osc = float_scalar(s.out_scale),
            ozp = int_scalar(s.out_zp);
  a.input_scale = isc.get();
  a.input_zero_point = izp.get();
  a.output_scale = osc.get();
  a.output_zero_point = ozp.get();
  std::vector<std::unique_ptr<DeviceTensor>> ts;
  Values in;
  const bool eval = c.has_training && !s.training;
  for (size_t k = 0; k < c.args.size(); ++k) {
    const CnormArgRole &ar = c.args[k];
    bool omit = ar.optional && omit_optional && !ar.out;
    if ((ar.role == "kRunMean" || ar.role == "kRunVar") && eval) omit = false;  // eval needs them
    if ((ar.role == "kMeanIn" || ar.role == "kInvstdIn") && c.mode == "kBackward" && !eval) omit = false;
    if (ar.out && !written(c, s, ar)) omit = true;  // an unwanted output may be null
    const auto shape = role_shape(c, s, ar.role);
    const bool channels_last = s.cdim != 1 && shape.size() == s.shape.size();
    const bool per_elem = ar.role == "x" || ar.role == "y" || ar.role == "dy";
    const aclDataType tdt = ar.role == "kCounts" && s.int_counts ? ACL_INT32 : is_quant(c) && !per_elem ? ACL_FLOAT : dt;
    auto t = s.strided && !ar.out ? padded_view(shape, tdt) : std::make_unique<DeviceTensor>(shape, tdt);
    if (channels_last) t->get()->format = s.shape.size() == 4 ? ACL_FORMAT_NHWC : ACL_FORMAT_NDHWC;
    if (ar.role == "kCounts") {
      std::vector<double> v(static_cast<size_t>(s.groups));
      for (double &x : v) x = static_cast<double>(1 + r() % 6);
      t->set_values(v);
    } else if (ar.out) {
      t->poison();
    } else if (is_quant(c) && ar.role == "x") {
      const auto range = quant_range(dt);
      t->fill_random(std::max(range.first, -3000.0), std::min(range.second, 3000.0));
    } else {
      const auto range = role_range(ar.role);
      t->fill_random(range.first, range.second);
    }
    if (!omit && !ar.out) in[ar.role] = t->values();
    a.t[k] = omit ? nullptr : t->get();
    ts.push_back(std::move(t));
  }
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const Values want = reference(c, s, in);
  for (size_t k = 0; k < c.args.size(); ++k) {
    const CnormArgRole &ar = c.args[k];
    if (a.t[k] == nullptr || !(ar.out || ar.inout)) continue;
    SCOPED_TRACE(ar.name);
    if (!written(c, s, ar)) {
      if (ar.inout) EXPECT_EQ(ts[k]->values(), in[ar.role]);
      else EXPECT_TRUE(ts[k]->untouched_outside_view());
      continue;
    }
    if (is_quant(c)) {
      EXPECT_TRUE(quant_matches(dt, ts[k]->values(), want.at(ar.role)));
      continue;
    }
    std::vector<double> w;
    for (double v : want.at(ar.role)) w.push_back(round_to(dt, v));
    EXPECT_TRUE(meets_precision(dt, ts[k]->values(), w));
  }
}

std::vector<int64_t> random_shape(std::mt19937_64 &r) {
  const int nd = 2 + static_cast<int>(r() % 4);
  std::vector<int64_t> s;
  for (int d = 0; d < nd; ++d) s.push_back(2 + static_cast<int64_t>(r() % (nd > 3 ? 4 : 7)));
  return s;
}

class OpTableCnorm : public ::testing::TestWithParam<CnormTableCase> {};

TEST_P(OpTableCnorm, EveryDtypeModeAndOptionalInput) {
  reseed_for_current_test();
  const CnormTableCase &c = GetParam();
  auto &r = rng();
  int k = 0;
  for (aclDataType dt : c.dtypes)
    for (int variant = 0; variant < 4; ++variant, ++k) {
      CnormSetup s;
      s.shape = random_shape(r);
      if (k % 5 == 3 && (s.shape.size() == 4 || s.shape.size() == 5)) s.cdim = static_cast<int>(s.shape.size()) - 1;
      s.training = !c.has_training || variant < 2;
      s.momentum = variant % 2 ? 0.3 : 0.1;
      s.eps = variant % 2 ? 1e-3 : 1e-5;
      if (c.has_mask && variant == 1) s.mask[1] = false;
      if (c.has_mask && variant == 3) s.mask[0] = false;
      if (c.has_flags && variant == 1) s.weight_g = false;
      if (c.has_flags && variant == 3) s.input_g = false;
      s.strided = variant == 2;
      s.int_counts = c.mode == "kSyncGather" && variant == 3;
      if (is_quant(c)) {  // 4-d NCHW; scales and zero points within each dtype's range
        s.shape = {2 + static_cast<int64_t>(r() % 3), 2 + static_cast<int64_t>(r() % 4),
                   2 + static_cast<int64_t>(r() % 5), 1 + static_cast<int64_t>(r() % 9)};
        s.cdim = 1;
        if (dt == ACL_UINT8) s.in_zp = 128, s.out_zp = 120;
        if (dt == ACL_INT32) s.in_scale = 0.002, s.in_zp = 11, s.out_scale = 0.001, s.out_zp = 7;
        if (variant == 1) s.out_scale = -s.out_scale;  // a negative scale flips the output
      }
      check(c, dt, s, variant % 2 == 1);
    }
}

TEST_P(OpTableCnorm, LongChannels) {
  reseed_for_current_test();
  const CnormTableCase &c = GetParam();
  CnormSetup s;
  s.shape = {3, 5, 37, 41};  // 4551 elements per channel
  check(c, c.dtypes.front(), s, false);
}

// Exact ties of the requantisation round half to even: x' = x with var + eps = 1, output scale 2,
// so x = +-1, +-3, +-5 give +-0.5, +-1.5, +-2.5 (expected values worked out by hand).
TEST(OpTableCnormQuant, ExactTiesRoundHalfToEven) {
  const CnormTableCase *q = nullptr;
  static const std::vector<CnormTableCase> cases = cnorm_table_cases();
  for (const auto &c : cases)
    if (is_quant(c)) q = &c;
  ASSERT_NE(q, nullptr) << "no kQuantForward row in the batch-norm table";
  DeviceTensor x({1, 2, 1, 6}, ACL_INT8), y({1, 2, 1, 6}, ACL_INT8), mean({2}, ACL_FLOAT), var({2}, ACL_FLOAT);
  x.set_values({1, 3, 5, -1, -3, -5, 1, 3, 5, -1, -3, -5});
  mean.set_values({0, 0});
  var.set_values({0.75, 0.75});
  y.poison();
  ScalarPtr isc = float_scalar(1), izp = int_scalar(0), osc = float_scalar(2), ozp = int_scalar(0), ozp1 = int_scalar(1);
  CnormArgs a;
  a.eps = 0.25;
  a.input_scale = isc.get();
  a.input_zero_point = izp.get();
  a.output_scale = osc.get();
  a.output_zero_point = ozp.get();
  for (size_t k = 0; k < q->args.size(); ++k) {
    const std::string &role = q->args[k].role;
    a.t[k] = role == "x" ? x.get() : role == "y" ? y.get() : role == "kRunMean" ? mean.get() : role == "kRunVar" ? var.get() : nullptr;
  }
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return q->phase1(a, w, e); }, q->launch), 0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(y.values(), (std::vector<double>{0, 2, 2, 0, -2, -2, 0, 2, 2, 0, -2, -2}));
  a.output_zero_point = ozp1.get();  // the zero point is added before rounding: 1.5, 2.5, 3.5, ...
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return q->phase1(a, w, e); }, q->launch), 0)
      << aclGetRecentErrMsg();
  EXPECT_EQ(y.values(), (std::vector<double>{2, 2, 4, 0, 0, -2, 2, 2, 4, 0, 0, -2}));
}

TEST_P(OpTableCnorm, ErrorsNameTheArgument) {
  const CnormTableCase &c = GetParam();
  const bool quant = is_quant(c);  // 4-d INT8 x and y, FLOAT vectors, the four scalars
  const std::vector<int64_t> shape = quant ? std::vector<int64_t>{2, 3, 4, 2} : std::vector<int64_t>{2, 3, 4};
  std::vector<std::unique_ptr<DeviceTensor>> ts;
  CnormArgs good;
  ScalarPtr isc = float_scalar(0.5), izp = int_scalar(1), osc = float_scalar(0.25), ozp = int_scalar(-1);
  good.input_scale = isc.get();
  good.input_zero_point = izp.get();
  good.output_scale = osc.get();
  good.output_zero_point = ozp.get();
  for (size_t k = 0; k < c.args.size(); ++k) {
    const auto &ar = c.args[k];
    const bool per_elem = ar.role == "x" || ar.role == "dy" || ar.role == "y";
    std::vector<int64_t> sh = per_elem ? shape : std::vector<int64_t>{3};
    if (c.mode == "kGather" && (ar.role == "kMeanIn" || ar.role == "kInvstdIn")) sh = {2, 3};
    if (ar.role == "kSumIn" || ar.role == "kSqSumIn") sh = {2, 3};
    if (ar.role == "kCounts") sh = {2};
    ts.push_back(std::make_unique<DeviceTensor>(sh, quant && per_elem ? ACL_INT8 : ACL_FLOAT));
    ts.back()->fill_random(0.5, 1.5);
    good.t[k] = ts.back()->get();
  }
  const char *api = c.api.c_str();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  for (size_t k = 0; k < c.args.size(); ++k) {
    const auto &ar = c.args[k];
    SCOPED_TRACE(ar.name);
    CnormArgs a = good;
    if (!ar.optional && !ar.role.empty()) {
      a.t[k] = nullptr;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, ar.name.c_str()}));
    }
    // A wrong shape: per-element operands one longer in dim 0 (except x, whose channel count
    // then changes the vectors' expected size instead), per-channel ones one channel longer.
    if (ar.role == "x") continue;
    auto sh = ts[k]->shape();
    sh.back() += 1;
    if (ar.role == "kCounts") sh = {2, 1};  // counts: any length, but one dim
    DeviceTensor bad(sh, ts[k]->dtype());
    a = good;
    a.t[k] = bad;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, ar.name.c_str()}));
    const bool int_ok = ar.role == "kCounts" && c.mode == "kSyncGather";  // INT32 counts are allowed there
    const bool int_x = quant && ts[k]->dtype() == ACL_INT8;  // integers are x's dtypes there
    DeviceTensor ints(ts[k]->shape(), int_x ? ACL_FLOAT : int_ok ? ACL_INT64 : ACL_INT32);
    a = good;
    a.t[k] = ints;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, ar.name.c_str(), "dtype"}));
  }
  DeviceTensor x1({6}, ACL_FLOAT);  // a 1-d input has no channel dim (nor a 1-d sum a group dim)
  CnormArgs a = good;
  for (size_t k = 0; k < c.args.size(); ++k)
    if (c.args[k].role == "x" || c.args[k].role == "kSumIn") a.t[k] = x1;
  if (c.has("x") || c.has("kSumIn")) EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api}));
  if (c.mode == "kSyncGather") {  // at least one group
    DeviceTensor none({0}, ACL_FLOAT);
    a = good;
    for (size_t k = 0; k < c.args.size(); ++k)
      if (c.args[k].role == "kCounts") a.t[k] = none;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "sampleCount"}));
  }
  if (quant) {
    DeviceTensor x3({2, 3, 4}, ACL_INT8), y32(shape, ACL_INT32);
    a = good;
    for (size_t k = 0; k < c.args.size(); ++k)
      if (c.args[k].role == "x") a.t[k] = x3;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "input", "4-d"}));
    a = good;
    for (size_t k = 0; k < c.args.size(); ++k)
      if (c.args[k].role == "y") a.t[k] = y32;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "output", "dtype"}));
    const aclScalar *CnormArgs::*scalars[] = {&CnormArgs::input_scale, &CnormArgs::input_zero_point,
                                              &CnormArgs::output_scale, &CnormArgs::output_zero_point};
    const char *names[] = {"inputScale", "inputZeroPoint", "outputScale", "outputZeroPoint"};
    ScalarPtr zero = float_scalar(0), wide = int_scalar(128), frac = float_scalar(1.5);
    const aclScalar *bad_values[] = {nullptr, wide.get(), zero.get(), frac.get()};  // inputScale: only null
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE(names[i]);
      a = good;
      a.*scalars[i] = nullptr;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, names[i]}));
      if (bad_values[i] == nullptr) continue;
      a.*scalars[i] = bad_values[i];  // out of INT8's range, zero, not an integer
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, names[i]}));
    }
  }
  if (c.has_mask) {
    const bool two[2] = {true, true};
    std::unique_ptr<aclBoolArray, void (*)(aclBoolArray *)> m(aclCreateBoolArray(two, 2),
                                                              [](aclBoolArray *p) { aclDestroyBoolArray(p); });
    a = good;
    a.output_mask = m.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "outputMask"}));
  }
  if (c.has_training) {  // eval needs the running statistics
    a = good;
    a.training = false;
    for (size_t k = 0; k < c.args.size(); ++k)
      if (c.args[k].role == "kRunMean") a.t[k] = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "runningMean"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableCnorm, ::testing::ValuesIn(all_cases()), harness::case_name<CnormTableCase>);

}  // namespace
}  // namespace opsnn::test

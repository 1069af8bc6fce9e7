// The test harness of the channel-activation table (src/ops/activation/channel_act.ops), cases
// registered from the table by tools/gen_ops.py --tests (channel_table_cases.inc). Every case, against
// the float64 references of tests/common/float64_refs.h (refs::prelu, prelu_grad_input,
// prelu_grad_weight_term):
//   - every accepted dtype, ranks 0-5, a per-channel (dim 1) or single weight, contiguous / transposed
//     / offset / padded views (the outputs in another layout; nothing written outside the views);
//   - special values (NaN, infinities, signed zeros, denormals, extremes) and empty tensors;
//   - the errors with their code and the argument named (null, dtype, weight size, output shape);
// PreluBackward also against central differences of the forward op (aclnnPrelu in DOUBLE) for both
// gradients, and on long reductions (split into blocks) bit-identical from run to run. RReluWithNoise
// in training is checked by its noise output: out == self * noise exactly where self <= 0, noise 1
// elsewhere, slopes within [lower, upper] and uniform, the same for the same seed / offset and
// different for others; in eval against the mean slope with the noise untouched.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct ChannelArgs {
  aclTensor *self = nullptr, *weight = nullptr, *out = nullptr, *gradOutput = nullptr, *gradInput = nullptr,
            *gradWeight = nullptr, *noise = nullptr;
  aclScalar *lower = nullptr, *upper = nullptr;
  bool training = false;
  int64_t seed = 0, offset = 0;
};

struct ChannelTableCase {
  std::string name, api, op;  // op: the row's `op` (prelu, prelu_backward, rrelu)
  std::vector<aclDataType> dtypes;
  bool inplace = false;  // an rrelu row without `out`: self is written
  int (*phase1)(const ChannelArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  harness::Launch launch = nullptr;
};
void PrintTo(const ChannelTableCase &c, std::ostream *os) { *os << c.name; }

#include "channel_table_cases.inc"

std::vector<ChannelTableCase> cases_of(const char *op) {
  std::vector<ChannelTableCase> v;
  for (const ChannelTableCase &c : harness::sampled(channel_table_cases()))
    if (op == nullptr || c.op == op) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;

enum class Layout { kContiguous, kTransposed, kOffset, kPadded };
constexpr Layout kLayouts[] = {Layout::kContiguous, Layout::kTransposed, Layout::kOffset, Layout::kPadded};
const char *layout_name(Layout l) {
  switch (l) {
    case Layout::kContiguous: return "contiguous";
    case Layout::kTransposed: return "transposed";
    case Layout::kOffset: return "offset";
    case Layout::kPadded: return "padded";
  }
  return "?";
}
Layout next(Layout l) { return kLayouts[(static_cast<int>(l) + 1) % 4]; }

// A view of `shape` in layout `l`: row-major, dims reversed in storage (+3), row-major at offset 5,
// or every dim padded by one at offset 2.
Dev make(const std::vector<int64_t> &shape, aclDataType dt, Layout l) {
  switch (shape.empty() ? Layout::kContiguous : l) {
    case Layout::kContiguous: return std::make_unique<DeviceTensor>(shape, dt);
    case Layout::kTransposed: return transposed_view(shape, dt);
    case Layout::kOffset: return std::make_unique<DeviceTensor>(shape, dt, contiguous_strides(shape), 5);
    case Layout::kPadded: return padded_view(shape, dt, 2);
  }
  return nullptr;
}

// One call's tensors and scalars, and the inputs' values before the launch.
struct Problem {
  std::vector<int64_t> shape;
  aclDataType dt = ACL_FLOAT;
  bool per_channel = false, training = false;
  double lo = 0.125, hi = 0.375;
  Dev self, weight, out, gradOutput, gradInput, gradWeight, noise;
  std::unique_ptr<harness::ScalarArg> lower, upper;
  ChannelArgs args;
  std::vector<double> x, w, g, n;  // self, weight, gradOutput, noise before the launch

  int64_t channel(size_t i) const { return per_channel ? unravel(static_cast<int64_t>(i), shape)[1] : 0; }
  void capture() {
    x = self->values();
    if (weight) w = weight->values();
    if (gradOutput) g = gradOutput->values();
    if (noise) n = noise->values();
  }
};

struct Options {
  Layout layout = Layout::kContiguous;
  bool per_channel = true, training = false;
  double lo = 0.125, hi = 0.375;  // exact in every dtype
  int64_t seed = 1, offset = 0;
};

// The problem of case `c`: inputs random, outputs poisoned, every tensor in a view of its own.
Problem make_problem(const ChannelTableCase &c, aclDataType dt, const std::vector<int64_t> &shape, const Options &o) {
  Problem p;
  p.shape = shape;
  p.dt = dt;
  p.per_channel = o.per_channel && shape.size() >= 2;
  p.training = o.training;
  p.lo = o.lo;
  p.hi = o.hi;
  ChannelArgs &a = p.args;
  const Layout l = o.layout;
  p.self = make(shape, dt, l);
  p.self->fill_random(-2, 2);
  a.self = *p.self;
  // The weight: [C], or one value as [1] / 0-d; padded views are strided weights.
  const std::vector<int64_t> ws = p.per_channel ? std::vector<int64_t>{shape[1]}
                                                : (shape.size() % 2 == 0 ? std::vector<int64_t>{1} : std::vector<int64_t>{});
  if (c.op != "rrelu") {
    p.weight = make(ws, dt, l == Layout::kPadded ? Layout::kPadded : Layout::kContiguous);
    p.weight->fill_random(-0.9, 0.9);
    a.weight = *p.weight;
  }
  if (c.op == "prelu") {
    p.out = make(shape, dt, next(l));
    p.out->poison();
    a.out = *p.out;
  } else if (c.op == "prelu_backward") {
    p.gradOutput = make(shape, dt, next(l));
    p.gradOutput->fill_random(-2, 2);
    p.gradInput = make(shape, dt, next(next(l)));
    p.gradInput->poison();
    p.gradWeight = make(ws, dt, l == Layout::kOffset ? Layout::kPadded : Layout::kContiguous);
    p.gradWeight->poison();
    a.gradOutput = *p.gradOutput;
    a.gradInput = *p.gradInput;
    a.gradWeight = *p.gradWeight;
  } else {
    p.noise = make(shape, dt, next(l));
    p.noise->fill_random(5, 6);  // no slope: an unwritten element shows
    a.noise = *p.noise;
    p.lower = std::make_unique<harness::ScalarArg>(o.lo);
    p.upper = std::make_unique<harness::ScalarArg>(o.hi);
    a.lower = *p.lower;
    a.upper = *p.upper;
    a.training = o.training;
    a.seed = o.seed;
    a.offset = o.offset;
    if (!c.inplace) {
      p.out = make(shape, dt, next(next(l)));
      p.out->poison();
      a.out = *p.out;
    }
  }
  p.capture();
  return p;
}

int launch(const ChannelTableCase &c, const ChannelArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// The written result of an rrelu / prelu case (self for the in-place twin).
std::vector<double> result_of(const ChannelTableCase &c, const Problem &p) {
  return c.inplace ? p.self->values() : p.out->values();
}

// Same value, NaN equal to NaN, signed zeros told apart.
bool identical(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

// RRelu in training: noise 1 where self > 0 or NaN, else a slope in [lower, upper] with
// out == self * noise as the dtype rounds it; the result otherwise self.
void check_rrelu_training(const ChannelTableCase &c, const Problem &p) {
  const std::vector<double> got = result_of(c, p), noise = p.noise->values();
  const double lo = round_to(p.dt, p.lo), hi = round_to(p.dt, p.hi);
  int64_t bad = 0;
  for (size_t i = 0; i < p.x.size(); ++i) {
    const double x = p.x[i];
    const bool ok = x <= 0 ? noise[i] >= lo && noise[i] <= hi && identical(got[i], round_to(p.dt, x * noise[i]))
                           : noise[i] == 1.0 && identical(got[i], x);
    if (!ok && bad++ == 0)
      ADD_FAILURE() << "element " << i << ": self " << x << " noise " << noise[i] << " result " << got[i];
  }
  EXPECT_EQ(bad, 0);
}

// The results of the launched problem against the float64 references.
void check(const ChannelTableCase &c, const Problem &p) {
  const aclDataType dt = p.dt;
  const size_t n = p.x.size();
  if (c.op == "prelu_backward") {
    std::vector<double> gi(n), gw(p.w.size(), 0.0);
    for (size_t i = 0; i < n; ++i) {
      const int64_t ch = p.channel(i);
      gi[i] = round_to(dt, refs::prelu_grad_input(p.g[i], p.x[i], p.w[static_cast<size_t>(ch)]));
      gw[static_cast<size_t>(ch)] += refs::prelu_grad_weight_term(p.g[i], p.x[i]);
    }
    EXPECT_TRUE(meets_precision(dt, p.gradInput->values(), gi)) << "gradInput";
    EXPECT_TRUE(meets_precision(dt, p.gradWeight->values(), gw)) << "gradWeight";
    EXPECT_TRUE(p.gradInput->untouched_outside_view());
    EXPECT_TRUE(p.gradWeight->untouched_outside_view());
    return;
  }
  if (c.op == "rrelu") {
    EXPECT_TRUE(p.noise->untouched_outside_view());
    if (!c.inplace) EXPECT_TRUE(p.out->untouched_outside_view());
    if (p.training) return check_rrelu_training(c, p);
    EXPECT_EQ(p.noise->values(), p.n) << "eval leaves the noise alone";
  }
  std::vector<double> want(n);
  for (size_t i = 0; i < n; ++i) {
    const double slope = c.op == "rrelu" ? (p.lo + p.hi) / 2 : p.w[static_cast<size_t>(p.channel(i))];
    want[i] = round_to(dt, refs::prelu(p.x[i], slope));
  }
  EXPECT_TRUE(meets_precision(dt, result_of(c, p), want));
  if (c.op == "prelu") EXPECT_TRUE(p.out->untouched_outside_view());
}

int64_t pick(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng()() % static_cast<uint64_t>(hi - lo + 1)); }

std::vector<int64_t> random_shape(int rank, bool per_channel) {
  std::vector<int64_t> s(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) s[static_cast<size_t>(d)] = pick(1, rank <= 3 ? 6 : 3);
  if (per_channel && rank >= 2) s[1] = pick(2, 5);
  if (rank >= 1 && pick(0, 3) == 0) s.back() = pick(20, 70);  // a longer line now and then
  return s;
}

class OpTableChannel : public ::testing::TestWithParam<ChannelTableCase> {};

TEST_P(OpTableChannel, EveryDtypeRankAndView) {
  reseed_for_current_test();
  const ChannelTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int rank = 0; rank <= 5; ++rank)
      for (Layout l : kLayouts)
        for (bool per_channel : {false, true}) {
          if (per_channel && rank < 2) continue;
          for (bool training : {false, true}) {
            if (training && c.op != "rrelu") continue;
            Options o;
            o.layout = l;
            o.per_channel = per_channel;
            o.training = training;
            o.seed = pick(0, 1000);
            o.offset = pick(0, 1000);
            const std::vector<int64_t> shape = random_shape(rank, per_channel);
            SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(shape)
                                              << " " << layout_name(l) << (per_channel ? " per-channel" : " one weight")
                                              << (training ? " training" : ""));
            Problem p = make_problem(c, dt, shape, o);
            ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
            check(c, p);
          }
        }
}

TEST_P(OpTableChannel, SpecialValues) {
  reseed_for_current_test();
  const ChannelTableCase &c = GetParam();
  const std::vector<double> specials(std::begin(harness::kSpecials), std::end(harness::kSpecials));
  const std::vector<int64_t> shape{2, 3, 5};  // 30 elements: every special once
  for (aclDataType dt : c.dtypes)
    for (bool training : {false, true}) {
      if (training && c.op != "rrelu") continue;
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << (training ? " training" : ""));
      Options o;
      o.training = training;
      Problem p = make_problem(c, dt, shape, o);
      p.self->set_values(specials);
      p.capture();
      ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
      if (c.op == "rrelu" && training) {
        check_rrelu_training(c, p);
        continue;
      }
      // One rounding of the exact result (FLOAT16 / BF16 compute in FLOAT: within their precision).
      const double tol = dt == ACL_DOUBLE ? 1e-15 : dt == ACL_FLOAT ? 1e-7 : precision_threshold(dt);
      const std::vector<double> got = c.op == "prelu_backward" ? p.gradInput->values() : result_of(c, p);
      for (size_t i = 0; i < p.x.size(); ++i) {
        const double w = c.op == "rrelu" ? (p.lo + p.hi) / 2 : p.w[static_cast<size_t>(p.channel(i))];
        const double want = round_to(dt, c.op == "prelu_backward" ? refs::prelu_grad_input(p.g[i], p.x[i], w)
                                                                 : refs::prelu(p.x[i], w));
        EXPECT_TRUE(harness::same_special(got[i], want, tol, true)) << "self " << p.x[i] << ": " << got[i] << " vs " << want;
      }
      if (c.op != "prelu_backward") continue;
      // gradWeight: NaN / infinite where the float64 sum is; else within the rounding of the summed magnitudes.
      std::vector<double> sum(p.w.size(), 0.0), mag(p.w.size(), 0.0);
      for (size_t i = 0; i < p.x.size(); ++i) {
        const double t = refs::prelu_grad_weight_term(p.g[i], p.x[i]);
        sum[static_cast<size_t>(p.channel(i))] += t;
        mag[static_cast<size_t>(p.channel(i))] += std::fabs(t);
      }
      const std::vector<double> gw = p.gradWeight->values();
      for (size_t k = 0; k < sum.size(); ++k) {
        const double want = round_to(dt, sum[k]);
        if (!std::isfinite(want)) EXPECT_TRUE(identical(gw[k], want)) << "channel " << k << ": " << gw[k] << " vs " << want;
        else EXPECT_LE(std::fabs(gw[k] - sum[k]), precision_threshold(dt) * std::fabs(sum[k]) + 1e-13 * mag[k] + 1e-37)
            << "channel " << k;
      }
    }
}

TEST_P(OpTableChannel, EmptyTensors) {
  const ChannelTableCase &c = GetParam();
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{0, 3, 2}, std::vector<int64_t>{2, 0, 4},
                                            std::vector<int64_t>{0}})
    for (bool training : {false, true}) {
      SCOPED_TRACE(::testing::Message() << c.name << " shape " << ::testing::PrintToString(shape));
      Options o;
      o.per_channel = shape.size() >= 2 && shape[1] > 0;
      o.training = training;
      Problem p = make_problem(c, ACL_FLOAT, shape, o);
      ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
      if (c.op == "prelu_backward")  // a sum over no element: 0 for every channel
        for (double v : p.gradWeight->values()) EXPECT_EQ(v, 0.0);
      for (DeviceTensor *t : {p.out.get(), p.gradInput.get(), p.gradWeight.get(), p.noise.get(), p.self.get()})
        if (t != nullptr) EXPECT_TRUE(t->untouched_outside_view());
    }
}

TEST_P(OpTableChannel, ErrorsNameTheArgument) {
  const ChannelTableCase &c = GetParam();
  const char *api = c.api.c_str();
  Problem p = make_problem(c, ACL_FLOAT, {2, 3, 4}, Options{});
  ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
  const ChannelArgs good = p.args;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const ChannelArgs &a, int code, std::initializer_list<const char *> needles) {
    return fails_with(c.phase1(a, &ws, &ex), code, needles);
  };
  struct Field {
    aclTensor *ChannelArgs::*m;
    const char *name;
    std::vector<int64_t> shape;  // its shape in the good call
  };
  std::vector<Field> fields;
  const std::vector<int64_t> xs{2, 3, 4}, wsh{3};
  if (c.op == "prelu_backward") fields.push_back({&ChannelArgs::gradOutput, "gradOutput", xs});
  fields.push_back({&ChannelArgs::self, "self", xs});
  if (c.op == "rrelu") fields.push_back({&ChannelArgs::noise, "noise", xs});
  else fields.push_back({&ChannelArgs::weight, "weight", wsh});
  if (c.op == "prelu_backward") {
    fields.push_back({&ChannelArgs::gradInput, "gradInput", xs});
    fields.push_back({&ChannelArgs::gradWeight, "gradWeight", wsh});
  } else if (!c.inplace) {
    fields.push_back({&ChannelArgs::out, "out", xs});
  }
  for (const Field &f : fields) {  // null: 161001; INT32: 161002 naming the dtype
    ChannelArgs a = good;
    a.*f.m = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, f.name})) << f.name;
    DeviceTensor bad(f.shape, ACL_INT32);
    a.*f.m = bad;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, f.name, "dtype"})) << f.name;
  }
  DeviceTensor x5({2, 3, 5}, ACL_FLOAT), w2({2}, ACL_FLOAT), w31({3, 1}, ACL_FLOAT), x1({3}, ACL_FLOAT);
  for (const Field &f : fields) {  // the outputs and gradOutput: self's shape (or the weight's)
    if (std::strcmp(f.name, "self") == 0 || std::strcmp(f.name, "weight") == 0 || std::strcmp(f.name, "noise") == 0)
      continue;
    ChannelArgs a = good;
    a.*f.m = std::strcmp(f.name, "gradWeight") == 0 ? w2.get() : x5.get();
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, f.name, "shape"})) << f.name;
  }
  if (c.op == "rrelu") {
    ChannelArgs a = good;
    a.lower = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "lower"}));
    a = good;
    a.upper = nullptr;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_NULLPTR, {api, "upper"}));
    harness::ScalarArg big(0.5);
    a = good;
    a.lower = big;  // lower 0.5 > upper 0.375
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "lower", "upper"}));
    DeviceTensor small({5}, ACL_FLOAT);
    a = good;
    a.noise = small;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "noise", "fewer elements"}));
    // A noise of another shape is written in row-major order: it must be contiguous.
    DeviceTensor strided({30}, ACL_FLOAT, {2}, 0);
    a = good;
    a.noise = strided;
    a.training = true;
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "noise", "contiguous"}));
    return;
  }
  // The weight: 1 or C values; 1-D self has one channel (torch.nn.functional.prelu).
  ChannelArgs a = good;
  a.weight = w2;
  if (c.op == "prelu_backward") a.gradWeight = w2;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "channel"}));
  DeviceTensor o1({3}, ACL_FLOAT), g1({3}, ACL_FLOAT);
  a = good;
  a.self = x1;
  a.out = o1;
  a.gradOutput = g1;
  a.gradInput = o1;
  EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "1 value or one per channel"}));
  a = good;
  a.weight = w31;
  if (c.op == "prelu") {
    EXPECT_TRUE(fails(a, ACLNN_ERR_PARAM_INVALID, {api, "weight", "0-D or 1-D"}));
  } else {  // the gradient takes a weight of any rank with its C values along one dim
    DeviceTensor gw31({3, 1}, ACL_FLOAT);
    a.gradWeight = gw31;
    EXPECT_EQ(launch(c, a), 0) << aclGetRecentErrMsg();
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableChannel, ::testing::ValuesIn(cases_of(nullptr)),
                         harness::case_name<ChannelTableCase>);

// ---- PreluBackward

class OpTableChannelGrad : public ::testing::TestWithParam<ChannelTableCase> {};

// L(x, w) = sum(g * prelu(x, w)) with the forward op aclnnPrelu in DOUBLE: the central differences
// of L along each self and weight element against gradInput and gradWeight (FLOAT). L is linear in
// w and, away from x = 0, in x: the differences are exact up to rounding.
TEST_P(OpTableChannelGrad, MatchesFiniteDifferencesOfTheForwardOp) {
  reseed_for_current_test();
  const ChannelTableCase &c = GetParam();
  for (bool per_channel : {true, false}) {
    SCOPED_TRACE(per_channel ? "per-channel" : "one weight");
    const std::vector<int64_t> shape{2, 3, 5};
    Options o;
    o.per_channel = per_channel;
    Problem p = make_problem(c, ACL_FLOAT, shape, o);
    std::vector<double> xv = p.self->values();
    for (double &v : xv) v = v < 0 ? std::min(v, -0.05) : std::max(v, 0.05);  // away from the kink
    p.self->set_values(xv);
    p.capture();
    ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
    const std::vector<double> gi = p.gradInput->values(), gw = p.gradWeight->values();
    DeviceTensor x(shape, ACL_DOUBLE), w(p.weight->shape(), ACL_DOUBLE), y(shape, ACL_DOUBLE);
    auto loss = [&](const std::vector<double> &xs, const std::vector<double> &ws) {
      x.set_values(xs);
      w.set_values(ws);
      EXPECT_EQ(run_op([&](uint64_t *s, aclOpExecutor **e) { return aclnnPreluGetWorkspaceSize(x, w, y, s, e); },
                       aclnnPrelu),
                0)
          << aclGetRecentErrMsg();
      const std::vector<double> yv = y.values();
      double l = 0;
      for (size_t i = 0; i < yv.size(); ++i) l += p.g[i] * yv[i];
      return l;
    };
    auto central = [&](std::vector<double> xs, std::vector<double> ws, bool of_x, size_t i, double h) {
      std::vector<double> &u = of_x ? xs : ws;
      const double u0 = u[i];
      u[i] = u0 + h;
      const double lp = loss(xs, ws);
      u[i] = u0 - h;
      const double lm = loss(xs, ws);
      return (lp - lm) / (2 * h);
    };
    for (size_t i = 0; i < p.x.size(); ++i)
      EXPECT_NEAR(gi[i], central(p.x, p.w, true, i, 1e-3), 1e-5 * (1 + std::fabs(gi[i]))) << "gradInput[" << i << "]";
    for (size_t k = 0; k < p.w.size(); ++k)
      EXPECT_NEAR(gw[k], central(p.x, p.w, false, k, 0.25), 1e-5 * (1 + std::fabs(gw[k]))) << "gradWeight[" << k << "]";
  }
}

// Long reductions (row mode and column mode, split into fixed blocks): the reference, and the same
// bits on every run.
TEST_P(OpTableChannelGrad, LongReductionsAreDeterministic) {
  reseed_for_current_test();
  const ChannelTableCase &c = GetParam();
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{2, 3, 40000}, std::vector<int64_t>{40000, 3},
                                            std::vector<int64_t>{70001}})
    for (Layout l : {Layout::kContiguous, Layout::kTransposed}) {
      SCOPED_TRACE(::testing::Message() << ::testing::PrintToString(shape) << " " << layout_name(l));
      Options o;
      o.layout = l;
      Problem p = make_problem(c, ACL_FLOAT, shape, o);
      ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
      check(c, p);
      const std::vector<double> first = p.gradWeight->values();
      for (int rep = 0; rep < 2; ++rep) {
        p.gradWeight->poison();
        ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
        EXPECT_EQ(p.gradWeight->values(), first);
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableChannelGrad, ::testing::ValuesIn(cases_of("prelu_backward")),
                         harness::case_name<ChannelTableCase>);

// ---- RReluWithNoise: the drawn slopes

class OpTableChannelRandom : public ::testing::TestWithParam<ChannelTableCase> {};

std::vector<double> drawn_noise(const ChannelTableCase &c, aclDataType dt, const std::vector<int64_t> &shape,
                                int64_t seed, int64_t offset, Layout l = Layout::kContiguous) {
  Options o;
  o.training = true;
  o.seed = seed;
  o.offset = offset;
  o.layout = l;
  Problem p = make_problem(c, dt, shape, o);
  std::vector<double> xv(p.x.size());
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = -0.5 - static_cast<double>(i % 7);  // all negative
  p.self->set_values(xv);
  p.capture();
  EXPECT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
  check_rrelu_training(c, p);
  return p.noise->values();
}

TEST_P(OpTableChannelRandom, SlopesDependOnlyOnSeedAndOffset) {
  const ChannelTableCase &c = GetParam();
  const std::vector<int64_t> shape{3, 4, 5};
  for (aclDataType dt : c.dtypes) {
    SCOPED_TRACE(::testing::Message() << "dtype " << dt);
    const std::vector<double> a = drawn_noise(c, dt, shape, 7, 3);
    EXPECT_EQ(drawn_noise(c, dt, shape, 7, 3), a) << "same seed and offset";
    EXPECT_EQ(drawn_noise(c, dt, shape, 7, 3, Layout::kTransposed), a) << "another layout";
    EXPECT_NE(drawn_noise(c, dt, shape, 8, 3), a) << "another seed";
    EXPECT_NE(drawn_noise(c, dt, shape, 7, 4), a) << "another offset";
  }
}

TEST_P(OpTableChannelRandom, SlopesAreUniformInTheRange) {
  const ChannelTableCase &c = GetParam();
  const std::vector<double> v = drawn_noise(c, ACL_DOUBLE, {40, 500}, 12345, 0);
  const double lo = 0.125, hi = 0.375, span = hi - lo;
  double sum = 0, mn = hi, mx = lo;
  std::vector<int> bins(10, 0);
  for (double s : v) {
    sum += s;
    mn = std::min(mn, s);
    mx = std::max(mx, s);
    ++bins[static_cast<size_t>(std::min(9.0, std::floor((s - lo) / span * 10)))];
  }
  const double n = static_cast<double>(v.size());
  EXPECT_NEAR(sum / n, (lo + hi) / 2, 0.01 * span);  // standard error 0.002 span
  EXPECT_LT(mn, lo + 0.001 * span);
  EXPECT_GT(mx, hi - 0.001 * span);
  for (int b : bins) EXPECT_NEAR(b, n / 10, 0.15 * n / 10);  // about 7 standard deviations
}

// A noise of more elements than self: its first numel(self) elements, in row-major order.
TEST_P(OpTableChannelRandom, LargerNoiseIsWrittenInOrder) {
  const ChannelTableCase &c = GetParam();
  Options o;
  o.training = true;
  Problem p = make_problem(c, ACL_FLOAT, {3, 4}, o);
  DeviceTensor big({20}, ACL_FLOAT);
  big.fill_random(5, 6);
  const std::vector<double> before = big.values();
  p.args.noise = big;
  ASSERT_EQ(launch(c, p.args), 0) << aclGetRecentErrMsg();
  const std::vector<double> nv = big.values(), got = result_of(c, p);
  for (size_t i = 0; i < 12; ++i) {
    if (p.x[i] > 0) EXPECT_EQ(nv[i], 1.0);
    else EXPECT_TRUE(nv[i] >= 0.125 && nv[i] <= 0.375 && got[i] == round_to(ACL_FLOAT, p.x[i] * nv[i])) << i;
  }
  for (size_t i = 12; i < 20; ++i) EXPECT_EQ(nv[i], before[i]) << "beyond self's elements";
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableChannelRandom, ::testing::ValuesIn(cases_of("rrelu")),
                         harness::case_name<ChannelTableCase>);

}  // namespace
}  // namespace opsnn::test

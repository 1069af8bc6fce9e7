// The test harness of the fused linear cross-entropy table (src/ops/matmul/fused_linear_ce.ops), cases registered
// from the table by tools/gen_ops.py --tests (flce_table_cases.inc). Float64 references written here from the
// definitions (logits = input @ weight^T; row max, sum of exp, the target's logit, the packed mask; the gradient
// G = (softmax - onehot) * grad and G @ weight, G^T @ input), every dtype:
//   - random sizes (rows not a multiple of 8, empty rows), shard ranges narrower than the weight, targets inside
//     and outside, INT32 / INT64 targets, a transposed weight and padded views, the optional logits output; the
//     gradient in both forms (softmax given, or recomputed from logitsMax / sumExpLogits), masked rows whose
//     maskedTarget is junk;
//   - the gradient's launch failure (an unmasked maskedTarget outside the shard), and the errors by argument.
// Values computed through an fp32 GEMM are judged with precision.md's absolute variant: each bound is the sum of
// the magnitudes of the terms the value is made of.
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct FlceArgs {
  aclTensor *x = nullptr, *w = nullptr, *target = nullptr;
  int64_t start = 0, end = 0;
  aclTensor *max_out = nullptr, *sum_out = nullptr, *pred_out = nullptr, *mask_out = nullptr, *mt_out = nullptr,
            *logits_out = nullptr, *grad = nullptr, *mask = nullptr, *mt = nullptr;
  float smoothing = 0;
  aclTensor *max = nullptr, *sum = nullptr, *softmax = nullptr, *dx = nullptr, *dw = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct FlceTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const FlceArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const FlceTableCase &c, std::ostream *os) { *os << c.name; }

#include "flce_table_cases.inc"

const std::vector<FlceTableCase> &all_cases() {
  static const std::vector<FlceTableCase> c = harness::sampled(flce_table_cases());
  return c;
}

bool is_backward(const FlceTableCase &c) { return c.api.find("Grad") != std::string::npos; }

using Dev = std::unique_ptr<DeviceTensor>;

Dev make(const std::vector<int64_t> &shape, aclDataType dt, int form) {
  if (form == 1) return padded_view(shape, dt, 2);
  if (form == 2) return transposed_view(shape, dt);
  return std::make_unique<DeviceTensor>(shape, dt);
}

struct Problem {
  int64_t bt = 0, h = 0, v = 0;
  Dev x, w, target, max_out, sum_out, pred_out, mask_out, mt_out, logits_out, grad, mask, mt, max, sum, softmax, dx, dw;
  FlceArgs args;
  std::vector<double> xs, ws, logits, bound;  // logits [bt, v] and the sums of |x w| terms
};

void make_logits(Problem &p) {
  p.xs = p.x->values();
  p.ws = p.w->values();
  p.logits.assign(static_cast<size_t>(p.bt * p.v), 0.0);
  p.bound.assign(p.logits.size(), 0.0);
  for (int64_t r = 0; r < p.bt; ++r)
    for (int64_t j = 0; j < p.v; ++j)
      for (int64_t k = 0; k < p.h; ++k) {
        const double t = p.xs[r * p.h + k] * p.ws[j * p.h + k];
        p.logits[r * p.v + j] += t;
        p.bound[r * p.v + j] += std::abs(t);
      }
}

// k's bits: 1 padded views, 2 transposed weight, 4 INT64 indices, 8 the optional logits / softmax given.
Problem make_problem(std::mt19937_64 &g, aclDataType dt, int k, bool backward) {
  Problem p;
  auto pick = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1)); };
  p.bt = k == 0 ? 0 : pick(1, 19);  // k 0: no rows; k 1: no hidden features (zero logits, empty gradients)
  p.h = k == 1 ? 0 : pick(1, 9);
  p.v = pick(1, 11);
  const int form = k & 1;
  const aclDataType it = k & 4 ? ACL_INT64 : ACL_INT32;
  p.x = make({p.bt, p.h}, dt, form);
  p.x->fill_random(-1.5, 1.5);
  p.w = make({p.v, p.h}, dt, k & 2 ? 2 : form);
  p.w->fill_random(-1.5, 1.5);
  make_logits(p);
  FlceArgs &a = p.args;
  a.x = *p.x;
  a.w = *p.w;
  if (!backward) {
    a.start = pick(0, 5);
    a.end = a.start + pick(0, p.v);
    p.target = make({p.bt}, it, form);
    std::vector<double> t;
    for (int64_t r = 0; r < p.bt; ++r) t.push_back(static_cast<double>(pick(0, a.start + p.v + 2)));
    p.target->set_values(t);
    p.max_out = make({p.bt}, ACL_FLOAT, form);
    p.sum_out = make({p.bt}, ACL_FLOAT, 1 - form);
    p.pred_out = make({p.bt}, ACL_FLOAT, form);
    p.mask_out = make({(p.bt + 7) / 8}, ACL_UINT8, 1 - form);
    p.mt_out = make({p.bt}, it, form);
    if (k & 8) p.logits_out = make({p.bt, p.v}, dt, 1 - form);
    for (Dev *d : {&p.max_out, &p.sum_out, &p.pred_out, &p.mask_out, &p.mt_out, &p.logits_out})
      if (*d) (*d)->poison();
    a.target = *p.target;
    a.max_out = *p.max_out;
    a.sum_out = *p.sum_out;
    a.pred_out = *p.pred_out;
    a.mask_out = *p.mask_out;
    a.mt_out = *p.mt_out;
    a.logits_out = p.logits_out ? p.logits_out->get() : nullptr;
    return p;
  }
  p.grad = make({p.bt}, ACL_FLOAT, form);
  p.grad->fill_random(-2, 2);
  const int64_t bytes = (p.bt + 7) / 8 + pick(0, 1);
  p.mask = make({bytes}, ACL_UINT8, 1 - form);
  std::vector<double> mb, mt;
  for (int64_t i = 0; i < bytes; ++i) mb.push_back(static_cast<double>(g() % 256));
  p.mask->set_values(mb);
  for (int64_t r = 0; r < p.bt; ++r) {
    const bool masked = (static_cast<int64_t>(mb[r / 8]) >> (r % 8)) & 1;
    mt.push_back(static_cast<double>(masked ? pick(-3, p.v + 3) : pick(0, p.v - 1)));  // masked rows: junk
  }
  p.mt = make({p.bt}, it, form);
  p.mt->set_values(mt);
  if (k & 8) {
    p.softmax = make({p.bt, p.v}, ACL_FLOAT, form);
    p.softmax->fill_random(0, 1);
  } else {  // the statistics of the true logits
    std::vector<double> mx(p.bt), se(p.bt, 0.0);
    for (int64_t r = 0; r < p.bt; ++r) {
      mx[r] = p.logits[r * p.v];
      for (int64_t j = 0; j < p.v; ++j) mx[r] = std::max(mx[r], p.logits[r * p.v + j]);
      for (int64_t j = 0; j < p.v; ++j) se[r] += std::exp(p.logits[r * p.v + j] - mx[r]);
    }
    p.max = make({p.bt}, ACL_FLOAT, form);
    p.max->set_values(mx);
    p.sum = make({p.bt}, ACL_FLOAT, 1 - form);
    p.sum->set_values(se);
  }
  p.dx = make({p.bt, p.h}, dt, 1 - form);
  p.dw = make({p.v, p.h}, dt, form);
  p.dx->poison();
  p.dw->poison();
  a.grad = *p.grad;
  a.mask = *p.mask;
  a.mt = *p.mt;
  a.max = p.max ? p.max->get() : nullptr;
  a.sum = p.sum ? p.sum->get() : nullptr;
  a.softmax = p.softmax ? p.softmax->get() : nullptr;
  a.dx = *p.dx;
  a.dw = *p.dw;
  return p;
}

int run(const FlceTableCase &c, const FlceArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

void check_forward(const Problem &p) {
  const std::vector<double> t = p.target->values();
  std::vector<double> mx(p.bt), mxb(p.bt), se(p.bt, 0.0), seb(p.bt, 0.0), pred(p.bt), predb(p.bt), mt(p.bt);
  std::vector<double> bytes(static_cast<size_t>((p.bt + 7) / 8), 0.0);
  for (int64_t r = 0; r < p.bt; ++r) {
    int64_t arg = 0;
    for (int64_t j = 1; j < p.v; ++j)
      if (p.logits[r * p.v + j] > p.logits[r * p.v + arg]) arg = j;
    mx[r] = p.logits[r * p.v + arg];
    mxb[r] = 0;
    for (int64_t j = 0; j < p.v; ++j) mxb[r] = std::max(mxb[r], p.bound[r * p.v + j]);
    for (int64_t j = 0; j < p.v; ++j) {
      const double e = std::exp(p.logits[r * p.v + j] - mx[r]);
      se[r] += e;
      seb[r] += e * (1 + p.bound[r * p.v + j] + mxb[r]);
    }
    const bool outside = t[r] < p.args.start || t[r] >= p.args.end;
    mt[r] = outside ? 0 : t[r] - p.args.start;
    pred[r] = outside ? 0 : p.logits[r * p.v + static_cast<int64_t>(mt[r])] - mx[r];
    predb[r] = outside ? 0 : p.bound[r * p.v + static_cast<int64_t>(mt[r])] + mxb[r];
    if (outside) bytes[r / 8] += 1 << (r % 8);
  }
  for (int64_t r = p.bt; r < static_cast<int64_t>(bytes.size()) * 8; ++r) bytes[r / 8] += 1 << (r % 8);
  EXPECT_TRUE(meets_absolute_bound(*p.max_out, mx, mxb)) << "logitsMaxLocalOut";
  EXPECT_TRUE(meets_absolute_bound(*p.sum_out, se, seb)) << "sumExpLogitsLocalOut";
  EXPECT_TRUE(meets_absolute_bound(*p.pred_out, pred, predb)) << "predictedLogitsLocalOut";
  EXPECT_EQ(p.mask_out->values(), bytes) << "targetMaskOut";
  EXPECT_TRUE(p.mask_out->untouched_outside_view());
  EXPECT_EQ(p.mt_out->values(), mt) << "maskedTargetOut";
  EXPECT_TRUE(p.mt_out->untouched_outside_view());
  if (p.logits_out) EXPECT_TRUE(meets_absolute_bound(*p.logits_out, p.logits, p.bound)) << "vocabParallelLogitsOut";
}

void check_backward(const Problem &p) {
  // gb: the magnitude of each G term; recomputed softmax values also carry the fp32 logits' error, which scales
  // with the logit's own terms (p.bound) and the max.
  std::vector<double> gl(static_cast<size_t>(p.bt * p.v)), gb(gl.size());
  const std::vector<double> grad = p.grad->values(), mb = p.mask->values(), mt = p.mt->values();
  const std::vector<double> sm = p.softmax ? p.softmax->values() : std::vector<double>{};
  const std::vector<double> mx = p.max ? p.max->values() : std::vector<double>{};
  const std::vector<double> se = p.sum ? p.sum->values() : std::vector<double>{};
  for (int64_t r = 0; r < p.bt; ++r) {
    const bool masked = (static_cast<int64_t>(mb[r / 8]) >> (r % 8)) & 1;
    for (int64_t j = 0; j < p.v; ++j) {
      const double s = p.softmax ? sm[r * p.v + j] : std::exp(p.logits[r * p.v + j] - mx[r]) / se[r];
      gl[r * p.v + j] = (s - (!masked && j == static_cast<int64_t>(mt[r]) ? 1.0 : 0.0)) * grad[r];
      gb[r * p.v + j] = std::abs(gl[r * p.v + j]) +
                        (p.softmax ? 0.0 : std::abs(grad[r]) * s * (1 + p.bound[r * p.v + j] + std::abs(mx[r])));
    }
  }
  std::vector<double> dx(static_cast<size_t>(p.bt * p.h), 0.0), dxb(dx.size(), 0.0);
  std::vector<double> dw(static_cast<size_t>(p.v * p.h), 0.0), dwb(dw.size(), 0.0);
  for (int64_t r = 0; r < p.bt; ++r)
    for (int64_t j = 0; j < p.v; ++j)
      for (int64_t k = 0; k < p.h; ++k) {
        const double a = gl[r * p.v + j] * p.ws[j * p.h + k], b = gl[r * p.v + j] * p.xs[r * p.h + k];
        dx[r * p.h + k] += a;
        dxb[r * p.h + k] += gb[r * p.v + j] * std::abs(p.ws[j * p.h + k]);
        dw[j * p.h + k] += b;
        dwb[j * p.h + k] += gb[r * p.v + j] * std::abs(p.xs[r * p.h + k]);
      }
  EXPECT_TRUE(meets_absolute_bound(*p.dx, dx, dxb)) << "inputGradOut";
  EXPECT_TRUE(meets_absolute_bound(*p.dw, dw, dwb)) << "weightGradOut";
}

class OpTableFlce : public ::testing::TestWithParam<FlceTableCase> {};

TEST_P(OpTableFlce, EveryDtypeFormAndLayoutAgainstFloat64) {
  reseed_for_current_test();
  const FlceTableCase &c = GetParam();
  const bool bw = is_backward(c);
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 16; ++k) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " k " << k);
      Problem p = make_problem(rng(), dt, k, bw);
      ASSERT_EQ(run(c, p.args), 0) << aclGetRecentErrMsg();
      if (bw) check_backward(p);
      else check_forward(p);
    }
}

TEST_P(OpTableFlce, ErrorsNameTheArgument) {
  reseed_for_current_test();
  const FlceTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const bool bw = is_backward(c);
  Problem p = make_problem(rng(), ACL_FLOAT, 8, bw);
  const FlceArgs good = p.args;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *FlceArgs::*;
  const std::vector<std::pair<const char *, F>> required =
      bw ? std::vector<std::pair<const char *, F>>{{"grad", &FlceArgs::grad}, {"input", &FlceArgs::x},
                                                   {"weight", &FlceArgs::w}, {"targetMask", &FlceArgs::mask},
                                                   {"maskedTarget", &FlceArgs::mt}, {"inputGradOut", &FlceArgs::dx},
                                                   {"weightGradOut", &FlceArgs::dw}}
         : std::vector<std::pair<const char *, F>>{{"input", &FlceArgs::x}, {"weight", &FlceArgs::w},
                                                   {"target", &FlceArgs::target}, {"logitsMaxLocalOut", &FlceArgs::max_out},
                                                   {"sumExpLogitsLocalOut", &FlceArgs::sum_out},
                                                   {"predictedLogitsLocalOut", &FlceArgs::pred_out},
                                                   {"targetMaskOut", &FlceArgs::mask_out},
                                                   {"maskedTargetOut", &FlceArgs::mt_out}};
  DeviceTensor odd({p.bt + 1, 3}, ACL_INT8), small({p.bt + 2}, ACL_FLOAT);
  for (const auto &[name, f] : required) {
    FlceArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = odd;  // INT8 is no tensor's dtype
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name;
  }
  {  // weight's columns, an all-empty shard
    FlceArgs a = good;
    DeviceTensor w({p.v, p.h + 1}, ACL_FLOAT), none({0, p.h}, ACL_FLOAT);
    a.w = w;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "weight", "columns"}));
    a.w = none;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "weight", "row"}));
  }
  if (!bw) {
    for (const auto &[s, e] : {std::pair<int64_t, int64_t>{-1, 2}, {3, 2}, {0, p.v + 1}}) {
      FlceArgs a = good;
      a.start = s;
      a.end = e;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "vocabStartIndex", "vocabEndIndex"}));
    }
    FlceArgs a = good;
    DeviceTensor mask({(p.bt + 7) / 8 + 1}, ACL_UINT8), mt64({p.bt}, ACL_INT64), f16({p.bt, p.v}, ACL_FLOAT16);
    a.mask_out = mask;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "targetMaskOut", "shape"}));
    a = good;
    a.mt_out = mt64;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "maskedTargetOut", "dtype"}));
    a = good;
    a.logits_out = f16;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "vocabParallelLogitsOutOptional", "dtype"}));
    a = good;
    a.sum_out = small;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "sumExpLogitsLocalOut", "shape"}));
    return;
  }
  {  // labelSmoothing, the statistics the memory-saving form needs, a mask too short, the launch check
    FlceArgs a = good;
    a.smoothing = 0.1f;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "labelSmoothing"}));
    a = good;
    a.softmax = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "logitsMaxOptional"}));
    DeviceTensor st({p.bt}, ACL_FLOAT);
    a.max = st;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "sumExpLogitsOptional"}));
    a = good;
    DeviceTensor sm({p.bt, p.v + 1}, ACL_FLOAT), mask({(p.bt - 1) / 8}, ACL_UINT8);
    a.softmax = sm;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "softmaxOptional", "shape"}));
    if (p.bt > 8) {
      a = good;
      a.mask = mask;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "targetMask", "bytes"}));
    }
    std::vector<double> zeros(static_cast<size_t>(p.mask->numel()), 0.0), mt = p.mt->values();
    p.mask->set_values(zeros);
    mt.back() = static_cast<double>(p.v);
    p.mt->set_values(mt);
    p.dx->poison();
    EXPECT_EQ(run(c, good), ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("maskedTarget"), std::string::npos) << aclGetRecentErrMsg();
    for (double v : p.dx->values()) EXPECT_TRUE(std::isnan(v)) << "inputGradOut written";
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableFlce, ::testing::ValuesIn(all_cases()), harness::case_name<FlceTableCase>);

}  // namespace
}  // namespace opsnn::test

// The test harness of the table-driven point-wise losses (src/ops/loss/pointwise_losses.ops):
// every op and sample runs the same suites, registered from the table by tools/gen_ops.py --tests
// (ploss_table_cases.inc in the build tree):
//   - every accepted dtype, the three reductions (none, mean, sum), random shapes with a target
//     of the same shape or broadcast, against the float64 reference (tests/common/float64_refs.h
//     ploss_term / ploss_grad) with the precision standard;
//   - empty tensors (mean of nothing is NaN, sum 0);
//   - errors with their code and the argument named.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct PlossArgs {
  aclTensor *grad = nullptr, *self = nullptr, *target = nullptr, *out = nullptr, *weight = nullptr,
            *pos_weight = nullptr;
  int64_t reduction = 1;
  float beta = 1.0f;
  bool log_target = false;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct PlossTableCase {
  std::string name, api, ref;
  bool backward = false;
  std::vector<aclDataType> dtypes;
  float beta = 1.0f;
  bool log_target = false;  // KL divergence's logTarget
  bool batchmean = false;   // reduction 3 accepted
  bool has_weight = false, has_pos_weight = false;  // the prototype has weight / posWeight
  int (*phase1)(const PlossArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const PlossTableCase &c, std::ostream *os) { *os << c.name; }

#include "ploss_table_cases.inc"

const std::vector<PlossTableCase> &all_cases() {
  static const std::vector<PlossTableCase> c = harness::sampled(ploss_table_cases());
  return c;
}

// Runs one call and checks it: self of `shape`, target of `tshape` (broadcast to it); with
// `weighted`, the weight and posWeight the prototype has, over self's last dim (broadcast).
void check(const PlossTableCase &c, aclDataType dt, int64_t reduction, const std::vector<int64_t> &shape,
           const std::vector<int64_t> &tshape, bool weighted = false) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " reduction " << reduction << " shape "
                                    << ::testing::PrintToString(shape) << " target " << ::testing::PrintToString(tshape)
                                    << (weighted ? " weighted" : ""));
  DeviceTensor x(shape, dt), y(tshape, dt);
  x.fill_random(-3, 3);
  const bool kl = c.ref.rfind("kl_div", 0) == 0;
  if (c.ref == "bce") x.fill_random(0.02, 0.98);  // probabilities
  if (c.ref == "bce" || c.ref == "bce_logits") y.fill_random(0, 1);
  else if (kl && !c.log_target) y.fill_random(0, 2);  // probabilities (log of a negative target is NaN)
  else y.fill_random(c.ref == "soft_margin" ? -1 : -3, c.ref == "soft_margin" ? 1 : 3);
  const double param = kl ? (c.log_target ? 1.0 : 0.0) : c.beta;
  const std::vector<int64_t> single = {};
  const bool reduced = reduction != 0;
  DeviceTensor g(reduced ? single : shape, dt);
  g.fill_random(-2, 2);
  DeviceTensor out(c.backward || !reduced ? shape : single, dt);
  out.poison();
  PlossArgs a;
  a.grad = g;
  a.self = x;
  a.target = y;
  a.out = out;
  a.reduction = reduction;
  a.beta = c.beta;
  a.log_target = c.log_target;
  const std::vector<int64_t> wshape = shape.empty() ? std::vector<int64_t>{} : std::vector<int64_t>{shape.back()};
  DeviceTensor w(wshape, dt), pw(wshape, dt);
  w.fill_random(0.2, 2);
  pw.fill_random(0.5, 3);
  if (weighted && c.has_weight) a.weight = w;
  if (weighted && c.has_pos_weight) a.pos_weight = pw;
  const auto wv = w.values(), pwv = pw.values();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  const auto xv = x.values(), yv = y.values(), gv = g.values();
  const int64_t n = numel_of(shape);
  std::vector<double> want;
  long double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double xi = xv[static_cast<size_t>(i)];
    const double yi = yv[static_cast<size_t>(broadcast_source(unravel(i, shape), shape, tshape))];
    const size_t last = shape.empty() ? 0 : static_cast<size_t>(i % shape.back());
    const double wi = a.weight ? wv[last] : 1.0, pwi = a.pos_weight ? pwv[last] : 1.0;
    if (c.backward) {
      const double gi = reduced ? gv[0] : gv[static_cast<size_t>(i)];
      const double batch = shape.empty() ? 1.0 : static_cast<double>(shape[0]);
      const double scale = reduction == 1 ? 1.0 / static_cast<double>(n) : reduction == 3 ? 1.0 / batch : 1.0;
      want.push_back(round_to(dt, refs::ploss_grad(c.ref, xi, yi, param, pwi) * wi * gi * scale));
    } else if (!reduced) {
      want.push_back(round_to(dt, refs::ploss_term(c.ref, xi, yi, param, pwi) * wi));
    } else {
      total += static_cast<long double>(refs::ploss_term(c.ref, xi, yi, param, pwi)) * wi;
    }
  }
  if (!c.backward && reduced)
    want.push_back(round_to(dt, static_cast<double>(reduction == 1   ? total / static_cast<long double>(n)
                                                    : reduction == 3 ? total / (shape.empty() ? 1 : shape[0])
                                                                     : total)));
  EXPECT_TRUE(meets_precision(dt, out.values(), want));
  EXPECT_TRUE(out.untouched_outside_view());
}

class OpTablePloss : public ::testing::TestWithParam<PlossTableCase> {};

TEST_P(OpTablePloss, EveryDtypeAndReduction) {
  reseed_for_current_test();
  const PlossTableCase &c = GetParam();
  auto &r = rng();
  for (aclDataType dt : c.dtypes)
    for (int64_t reduction : {0, 1, 2, 3})
      for (int t = 0; t < 3 && (reduction < 3 || c.batchmean); ++t) {
        std::vector<int64_t> shape;
        const int nd = static_cast<int>(r() % 4);
        for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(r() % 7));
        std::vector<int64_t> tshape = shape;
        if (t == 2 && nd > 0) tshape[0] = 1;  // target broadcast along dim 0
        check(c, dt, reduction, shape, tshape, t == 1 && nd > 0);
      }
  check(c, c.dtypes.front(), 1, {3, 40000}, {3, 40000});  // a long mean (split reduction)
}

TEST_P(OpTablePloss, EmptyTensors) {
  const PlossTableCase &c = GetParam();
  for (int64_t reduction : {0, 1, 2}) check(c, ACL_FLOAT, reduction, {0, 3}, {0, 3});
}

TEST_P(OpTablePloss, ErrorsNameTheArgument) {
  const PlossTableCase &c = GetParam();
  const aclDataType dt = c.dtypes.front();
  DeviceTensor x({4, 5}, dt), y({4, 5}, dt), g({}, dt), out(c.backward ? std::vector<int64_t>{4, 5} : std::vector<int64_t>{}, dt);
  x.fill_random(-1, 1);
  y.fill_random(-1, 1);
  g.fill_random(-1, 1);
  PlossArgs good;
  good.grad = g;
  good.self = x;
  good.target = y;
  good.out = out;
  good.reduction = 1;
  good.beta = c.beta;
  good.log_target = c.log_target;
  const char *api = c.api.c_str();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  PlossArgs a = good;
  a.self = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "self"}));
  a = good;
  a.target = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "target"}));
  a = good;
  a.reduction = c.batchmean ? 4 : 3;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "reduction"}));
  DeviceTensor bad_out({7}, dt);
  a = good;
  a.out = bad_out;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "[7]"}));
  DeviceTensor bad_target({4, 6}, dt);
  a = good;
  a.target = bad_target;
  EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DeviceTensor ints({4, 5}, ACL_INT32);
  a = good;
  a.self = ints;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "self", "dtype"}));
  if (c.backward) {
    a = good;
    a.grad = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
    DeviceTensor g2({2}, dt);  // the gradient of a reduced loss holds one value
    a = good;
    a.grad = g2;
    EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTablePloss, ::testing::ValuesIn(all_cases()), harness::case_name<PlossTableCase>);

}  // namespace
}  // namespace opsnn::test

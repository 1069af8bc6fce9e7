// The test harness of the grouped SwiGLU table (src/ops/activation/swiglu_group.ops), cases registered from
// the table by tools/gen_ops.py --tests (swgroup_table_cases.inc). Against float64 references written here
// from the documented formulas (A | B halves of x's last dim, clamp, silu, per-row weight, group counts):
//   - every dtype, random shapes of 1-4 dims (halves across the kernel's 256-element chunks too), with and
//     without weight / group index / clamp / weight gradient, contiguous and padded + offset views; rows
//     past sum(groupIndex) are +0; nothing written outside the views;
//   - a negative group count fails the launch; the errors of phase 1, each naming its argument.
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct SwgroupArgs {
  aclTensor *x = nullptr, *weight = nullptr, *group = nullptr, *out = nullptr, *dy = nullptr, *y_origin = nullptr,
            *dx = nullptr, *dweight = nullptr;
  double clamp_limit = -1.0;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct SwgroupTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const SwgroupArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool backward() const { return api.find("Grad") != std::string::npos; }
};
void PrintTo(const SwgroupTableCase &c, std::ostream *os) { *os << c.name; }

#include "swgroup_table_cases.inc"

const std::vector<SwgroupTableCase> &all_cases() {
  static const std::vector<SwgroupTableCase> c = harness::sampled(swgroup_table_cases());
  return c;
}

using Dev = std::unique_ptr<DeviceTensor>;

Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool padded) {
  return padded ? padded_view(shape, dt, 2) : std::make_unique<DeviceTensor>(shape, dt);
}

struct Problem {
  std::vector<int64_t> lead;
  int64_t rows = 1, h = 0, valid = 0;
  double clamp = -1.0;
  Dev x, weight, group, y, dy, y_origin, dweight;  // y: out or gradXOut
  SwgroupArgs args(bool backward) const {
    SwgroupArgs a;
    a.x = x->get();
    a.weight = weight ? weight->get() : nullptr;
    a.group = group ? group->get() : nullptr;
    a.clamp_limit = clamp;
    (backward ? a.dx : a.out) = y->get();
    if (backward) {
      a.dy = dy->get();
      a.y_origin = y_origin ? y_origin->get() : nullptr;
      a.dweight = dweight ? dweight->get() : nullptr;
    }
    return a;
  }
};

// k's bits: 1 weight, 2 group index, 4 clamp, 8 padded views, 16 (backward) yOrigin and the weight's gradient.
Problem make_problem(std::mt19937_64 &g, aclDataType dt, int k, bool backward) {
  Problem p;
  const int nlead = static_cast<int>(g() % 4);
  for (int d = 0; d < nlead; ++d) p.lead.push_back(1 + static_cast<int64_t>(g() % 4));
  for (int64_t v : p.lead) p.rows *= v;
  p.h = g() % 5 == 0 ? 250 + static_cast<int64_t>(g() % 20) : 1 + static_cast<int64_t>(g() % 40);
  const bool padded = k & 8;
  std::vector<int64_t> full = p.lead, half = p.lead;
  full.push_back(2 * p.h);
  half.push_back(p.h);
  p.x = make(full, dt, padded);
  p.x->fill_random(-4, 4);
  p.y = make(backward ? full : half, dt, !padded);
  p.y->poison();
  p.valid = p.rows;
  if (k & 1) {  // one value per row: [rows] or x's leading dims
    p.weight = make(g() % 2 ? std::vector<int64_t>{p.rows} : (p.lead.empty() ? std::vector<int64_t>{1} : p.lead),
                    ACL_FLOAT, padded);
    p.weight->fill_random(-1.5, 1.5);
  }
  if (k & 2) {
    const int64_t n = 1 + static_cast<int64_t>(g() % 4);
    std::vector<double> counts;
    int64_t sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      counts.push_back(static_cast<double>(g() % (p.rows / 2 + 2)));
      sum += static_cast<int64_t>(counts.back());
    }
    p.group = make({n}, ACL_INT64, padded);
    p.group->set_values(counts);
    p.valid = std::min(sum, p.rows);
  }
  if (k & 4) p.clamp = 0.5 + static_cast<double>(g() % 5) * 0.5;
  if (backward) {
    p.dy = make(half, dt, padded);
    p.dy->fill_random(-2, 2);
    if (k & 16) {
      p.y_origin = make(half, dt, !padded);
      p.y_origin->fill_random(-2, 2);
      p.dweight = make(p.weight ? p.weight->shape() : std::vector<int64_t>{p.rows}, ACL_FLOAT, !padded);
      p.dweight->poison();
    }
  }
  return p;
}

int run(const SwgroupTableCase &c, const SwgroupArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

class OpTableSwgroup : public ::testing::TestWithParam<SwgroupTableCase> {};

TEST_P(OpTableSwgroup, EveryDtypeShapeAndOptionalAgainstFloat64) {
  reseed_for_current_test();
  const SwgroupTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < (c.backward() ? 32 : 16); ++k) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " k " << k);
      Problem p = make_problem(g, dt, k, c.backward());
      ASSERT_EQ(run(c, p.args(c.backward())), 0) << aclGetRecentErrMsg();
      const auto x = p.x->values();
      const auto w = p.weight ? p.weight->values() : std::vector<double>(p.rows, 1.0);
      const auto dy = c.backward() ? p.dy->values() : std::vector<double>{};
      const auto yo = p.y_origin ? p.y_origin->values() : std::vector<double>{};
      const double lim = p.clamp;
      const int64_t width = c.backward() ? 2 * p.h : p.h;
      std::vector<double> want(p.rows * width, 0.0), want_dw(p.rows, 0.0);
      for (int64_t r = 0; r < p.valid; ++r)
        for (int64_t j = 0; j < p.h; ++j) {
          const double a = x[r * 2 * p.h + j], b = x[r * 2 * p.h + p.h + j];
          const double a1 = lim > 0 ? std::min(a, lim) : a, b1 = lim > 0 ? std::max(-lim, std::min(b, lim)) : b;
          const double s = sigmoid(a1);
          if (!c.backward()) {
            want[r * width + j] = round_to(dt, a1 * s * b1 * w[r]);
            continue;
          }
          const double g0 = dy[r * p.h + j] * w[r];
          const bool in_a = !(lim > 0) || a < lim, in_b = !(lim > 0) || (-lim < b && b < lim);
          want[r * width + j] = round_to(dt, in_a ? g0 * b1 * s * (1 + a1 * (1 - s)) : 0.0);
          want[r * width + p.h + j] = round_to(dt, in_b ? g0 * a1 * s : 0.0);
          if (p.dweight) want_dw[r] += dy[r * p.h + j] * yo[r * p.h + j];
        }
      EXPECT_TRUE(meets_precision(dt, p.y->values(), want)) << (c.backward() ? "gradXOut" : "out");
      EXPECT_TRUE(p.y->untouched_outside_view());
      if (p.dweight) {
        for (double &v : want_dw) v = round_to(ACL_FLOAT, v);
        EXPECT_TRUE(meets_precision(ACL_FLOAT, p.dweight->values(), want_dw)) << "gradWeightOutOptional";
        EXPECT_TRUE(p.dweight->untouched_outside_view());
      }
    }
}

TEST_P(OpTableSwgroup, NegativeGroupCountFailsTheLaunchBeforeWriting) {
  const SwgroupTableCase &c = GetParam();
  Problem p = make_problem(rng(), ACL_FLOAT, 2, c.backward());
  p.group->set_values(std::vector<double>(static_cast<size_t>(p.group->numel()), -1.0));
  p.y->poison();
  EXPECT_EQ(run(c, p.args(c.backward())), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("groupIndexOptional"), std::string::npos);
  for (double v : p.y->values()) ASSERT_TRUE(std::isnan(v)) << "written despite the failure";
}

TEST_P(OpTableSwgroup, ErrorsNameTheArgument) {
  const SwgroupTableCase &c = GetParam();
  const char *api = c.api.c_str();
  Problem p = make_problem(rng(), ACL_FLOAT, 1 | 2 | 16, c.backward());
  const SwgroupArgs good = p.args(c.backward());
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *SwgroupArgs::*;
  const F y = c.backward() ? &SwgroupArgs::dx : &SwgroupArgs::out;
  const char *y_name = c.backward() ? "gradXOut" : "out";
  std::vector<std::pair<std::string, F>> required = {{"x", &SwgroupArgs::x}, {y_name, y}};
  if (c.backward()) required.push_back({"gradY", &SwgroupArgs::dy});
  for (const auto &[name, f] : required) {
    SwgroupArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name.c_str()})) << name;
  }
  std::vector<int64_t> full = p.lead, half = p.lead;
  full.push_back(2 * p.h);
  half.push_back(p.h);
  std::vector<int64_t> odd = p.lead;
  odd.push_back(2 * p.h + 1);
  DeviceTensor xi({full}, ACL_INT32), xodd(odd, ACL_FLOAT), x16(full, ACL_FLOAT16), yhalf16(half, ACL_FLOAT16),
      wrong_last(std::vector<int64_t>{p.rows, p.h + 1}, ACL_FLOAT), w16({p.rows}, ACL_FLOAT16),
      wmany({p.rows + 1}, ACL_FLOAT), g32({2}, ACL_INT32), g2d({1, 2}, ACL_INT64), gempty({0}, ACL_INT64);
  auto expect = [&](SwgroupArgs a, const char *name, const char *word) {
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, word})) << name << " " << word;
  };
  {
    SwgroupArgs a = good;
    a.x = xi;
    expect(a, "x", "dtype");
    a.x = xodd;
    expect(a, "x", "odd");
    a.x = x16;  // the others stay FLOAT
    expect(a, c.backward() ? "gradY" : y_name, "dtype");
  }
  {
    SwgroupArgs a = good;
    a.*y = wrong_last;
    expect(a, y_name, "shape");
    a = good;
    a.*y = a.x;
    expect(a, y_name, "");
  }
  for (aclTensor *bad : {w16.get(), wmany.get()}) {
    SwgroupArgs a = good;
    a.weight = bad;
    expect(a, "weightOptional", "");
  }
  for (aclTensor *bad : {g32.get(), g2d.get(), gempty.get()}) {
    SwgroupArgs a = good;
    a.group = bad;
    expect(a, "groupIndexOptional", "1-D INT64");
  }
  for (double lim : {-0.5, -2.0, std::nan("")}) {
    SwgroupArgs a = good;
    a.clamp_limit = lim;
    expect(a, "clampLimit", "");
  }
  if (!c.backward()) return;
  struct Bad {  // one argument replaced: which, by what, the argument the message names and a word in it
    F field;
    aclTensor *by;
    const char *name, *word;
  } const bads[] = {{&SwgroupArgs::dy, wrong_last, "gradY", "shape"},
                    {&SwgroupArgs::y_origin, yhalf16, "yOriginOptional", "dtype"},
                    {&SwgroupArgs::y_origin, nullptr, "gradWeightOutOptional", "yOriginOptional"},
                    {&SwgroupArgs::dweight, wmany, "gradWeightOutOptional", ""},
                    {&SwgroupArgs::dweight, good.weight, "gradWeightOutOptional", "overlaps"}};
  for (const Bad &bad : bads) {
    SwgroupArgs a = good;
    a.*bad.field = bad.by;
    expect(a, bad.name, bad.word);
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableSwgroup, ::testing::ValuesIn(all_cases()), harness::case_name<SwgroupTableCase>);

}  // namespace
}  // namespace opsnn::test

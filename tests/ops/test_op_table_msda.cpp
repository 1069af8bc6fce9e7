// The test harness of the multi-scale deformable attention table (src/ops/vfusion/msda.ops), cases registered
// from the table by tools/gen_ops.py --tests (msda_table_cases.inc). The float64 forward reference is written
// here from the definition (grid_sample's bilinear weights max(0, 1 - |x - xi|) max(0, 1 - |y - yi|) over the
// integer points around (x, y) = (u W - 0.5, v H - 0.5), zero outside the map); the gradient is checked against
// central differences of that reference (of sum(output * gradOutput)), every dtype:
//   - random level tables (INT32 / INT64, extra keys after the last level), locations partly outside [0, 1],
//     contiguous and padded + offset views; nothing written outside the views;
//   - the launch failure of a bad level table, and every phase-1 error by argument name.
#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct MsdaArgs {
  aclTensor *value = nullptr, *shapes = nullptr, *starts = nullptr, *loc = nullptr, *attn = nullptr, *out = nullptr,
            *dy = nullptr, *dvalue = nullptr, *dloc = nullptr, *dattn = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct MsdaTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const MsdaArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const MsdaTableCase &c, std::ostream *os) { *os << c.name; }

#include "msda_table_cases.inc"

const std::vector<MsdaTableCase> &all_cases() {
  static const std::vector<MsdaTableCase> c = harness::sampled(msda_table_cases());
  return c;
}

bool is_backward(const MsdaTableCase &c) { return c.api.find("Grad") != std::string::npos; }

using Dev = std::unique_ptr<DeviceTensor>;

Dev make(const std::vector<int64_t> &shape, aclDataType dt, bool padded) {
  return padded ? padded_view(shape, dt, 2) : std::make_unique<DeviceTensor>(shape, dt);
}

struct Problem {
  int64_t bs = 0, keys = 0, heads = 0, ch = 0, queries = 0, levels = 0, points = 0;
  std::vector<int64_t> h, w, start;
  Dev value, shapes, starts, loc, attn, out, dy, dvalue, dloc, dattn;
  MsdaArgs args() const {
    auto g = [](const Dev &d) { return d ? d->get() : nullptr; };
    return {g(value), g(shapes), g(starts), g(loc), g(attn), g(out), g(dy), g(dvalue), g(dloc), g(dattn)};
  }
};

Problem make_problem(std::mt19937_64 &g, aclDataType dt, bool padded, bool backward, aclDataType index_dt) {
  Problem p;
  auto pick = [&](int lo, int hi) { return lo + static_cast<int64_t>(g() % static_cast<uint64_t>(hi - lo + 1)); };
  p.bs = pick(1, 2);
  p.heads = pick(1, 3);
  p.ch = pick(1, 5);
  p.queries = pick(1, 4);
  p.levels = pick(1, 3);
  p.points = pick(1, 3);
  for (int64_t l = 0; l < p.levels; ++l) {
    p.h.push_back(pick(1, 4));
    p.w.push_back(pick(1, 4));
    p.start.push_back(p.keys);
    p.keys += p.h.back() * p.w.back();
  }
  p.keys += pick(0, 2);  // keys after the last level are never sampled
  p.value = make({p.bs, p.keys, p.heads, p.ch}, dt, padded);
  p.value->fill_random(-2, 2);
  p.shapes = make({p.levels, 2}, index_dt, padded);
  std::vector<double> hw;
  for (int64_t l = 0; l < p.levels; ++l) hw.insert(hw.end(), {double(p.h[l]), double(p.w[l])});
  p.shapes->set_values(hw);
  p.starts = make({p.levels}, index_dt, !padded);
  p.starts->set_values(std::vector<double>(p.start.begin(), p.start.end()));
  p.loc = make({p.bs, p.queries, p.heads, p.levels, p.points, 2}, dt, !padded);
  p.loc->fill_random(-0.15, 1.15);
  p.attn = make({p.bs, p.queries, p.heads, p.levels, p.points}, dt, padded);
  p.attn->fill_random(-1, 1);
  const std::vector<int64_t> out{p.bs, p.queries, p.heads * p.ch};
  if (backward) {
    p.dy = make(out, dt, !padded);
    p.dy->fill_random(-1, 1);
    p.dvalue = make({p.bs, p.keys, p.heads, p.ch}, dt, !padded);
    p.dloc = make({p.bs, p.queries, p.heads, p.levels, p.points, 2}, dt, padded);
    p.dattn = make({p.bs, p.queries, p.heads, p.levels, p.points}, dt, !padded);
    for (Dev *d : {&p.dvalue, &p.dloc, &p.dattn}) (*d)->poison();
  } else {
    p.out = make(out, dt, !padded);
    p.out->poison();
  }
  return p;
}

// The forward in float64 over row-major values; `mag` (optional) gets the sum of the terms' magnitudes.
std::vector<double> forward_ref(const Problem &p, const std::vector<double> &value, const std::vector<double> &loc,
                                const std::vector<double> &attn, std::vector<double> *mag = nullptr) {
  std::vector<double> out(static_cast<size_t>(p.bs * p.queries * p.heads * p.ch), 0.0);
  if (mag) mag->assign(out.size(), 0.0);
  for (int64_t b = 0; b < p.bs; ++b)
    for (int64_t q = 0; q < p.queries; ++q)
      for (int64_t h = 0; h < p.heads; ++h)
        for (int64_t l = 0; l < p.levels; ++l)
          for (int64_t pt = 0; pt < p.points; ++pt) {
            const int64_t i = (((b * p.queries + q) * p.heads + h) * p.levels + l) * p.points + pt;
            const double x = loc[2 * i] * p.w[l] - 0.5, y = loc[2 * i + 1] * p.h[l] - 0.5;
            for (int64_t yi = static_cast<int64_t>(std::floor(y)); yi <= static_cast<int64_t>(std::floor(y)) + 1; ++yi)
              for (int64_t xi = static_cast<int64_t>(std::floor(x)); xi <= static_cast<int64_t>(std::floor(x)) + 1; ++xi) {
                if (yi < 0 || yi >= p.h[l] || xi < 0 || xi >= p.w[l]) continue;
                const double wgt = std::max(0.0, 1 - std::abs(x - xi)) * std::max(0.0, 1 - std::abs(y - yi)) * attn[i];
                const int64_t key = p.start[l] + yi * p.w[l] + xi;
                for (int64_t c = 0; c < p.ch; ++c) {
                  const double term = wgt * value[((b * p.keys + key) * p.heads + h) * p.ch + c];
                  out[(b * p.queries + q) * p.heads * p.ch + h * p.ch + c] += term;
                  if (mag) (*mag)[(b * p.queries + q) * p.heads * p.ch + h * p.ch + c] += std::abs(term);
                }
              }
          }
  return out;
}

double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Forward differences of sum(forward * dy) with respect to each element of `which` (0 value, 1 location, 2 weight).
// The forward is linear in value and weight, and along one coordinate of a location linear within a cell; a
// FLOAT16 / BF16 location often sits exactly on a cell edge, where the op (like grid_sample, floor picks the cell)
// gives the derivative of the cell ahead: the one-sided difference is exact there too.
std::vector<double> numeric_grad(const Problem &p, std::vector<double> in[3], int which, const std::vector<double> &dy) {
  std::vector<double> g(in[which].size());
  const double step = 1e-6;
  for (size_t i = 0; i < g.size(); ++i) {
    const double keep = in[which][i];
    in[which][i] = keep + step;
    const double up = dot(forward_ref(p, in[0], in[1], in[2]), dy);
    in[which][i] = keep;
    const double here = dot(forward_ref(p, in[0], in[1], in[2]), dy);
    g[i] = (up - here) / step;
  }
  return g;
}

// A gradient is a sum of signed terms; the bound of each element is its magnitude plus the tensor's mean
// magnitude (precision.md's absolute variant: near-zero entries are judged on the tensor's scale).
std::vector<double> scale_bound(const std::vector<double> &want) {
  double mean = 0;
  for (double v : want) mean += std::abs(v);
  mean = want.empty() ? 0 : mean / static_cast<double>(want.size());
  std::vector<double> b(want.size());
  for (size_t i = 0; i < want.size(); ++i) b[i] = std::abs(want[i]) + mean;
  return b;
}

int run(const MsdaTableCase &c, const MsdaArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

class OpTableMsda : public ::testing::TestWithParam<MsdaTableCase> {};

TEST_P(OpTableMsda, EveryDtypeAndLayoutAgainstFloat64) {
  reseed_for_current_test();
  const MsdaTableCase &c = GetParam();
  const bool bw = is_backward(c);
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 6; ++k) {
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " k " << k);
      Problem p = make_problem(rng(), dt, k & 1, bw, k & 2 ? ACL_INT64 : ACL_INT32);
      ASSERT_EQ(run(c, p.args()), 0) << aclGetRecentErrMsg();
      std::vector<double> in[3] = {p.value->values(), p.loc->values(), p.attn->values()};
      if (!bw) {
        std::vector<double> mag;
        const std::vector<double> want = forward_ref(p, in[0], in[1], in[2], &mag);
        EXPECT_TRUE(meets_absolute_bound(*p.out, want, mag)) << "output";
        continue;
      }
      const std::vector<double> dy = p.dy->values();
      const DeviceTensor *got[3] = {p.dvalue.get(), p.dloc.get(), p.dattn.get()};
      const char *names[3] = {"gradValue", "gradLocation", "gradAttnWeight"};
      for (int w = 0; w < 3; ++w) {
        const std::vector<double> want = numeric_grad(p, in, w, dy);
        EXPECT_TRUE(meets_absolute_bound(*got[w], want, scale_bound(want))) << names[w];
      }
    }
}

TEST_P(OpTableMsda, BadLevelTableFailsAtLaunchWritingNothing) {
  reseed_for_current_test();
  const MsdaTableCase &c = GetParam();
  for (int bad = 0; bad < 3; ++bad) {
    Problem p = make_problem(rng(), ACL_FLOAT, false, is_backward(c), ACL_INT64);
    std::vector<double> hw = p.shapes->values(), st = p.starts->values();
    if (bad == 0) hw[0] = -1;                                  // a negative height
    if (bad == 1) st.back() = static_cast<double>(p.keys);     // the last level starts at the end
    if (bad == 2) hw[1] = static_cast<double>(p.keys + 1);     // wider than value
    p.shapes->set_values(hw);
    p.starts->set_values(st);
    EXPECT_EQ(run(c, p.args()), ACLNN_ERR_PARAM_INVALID) << bad;
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find(bad == 1 ? "levelStartIndex" : "spatialShape"), std::string::npos)
        << aclGetRecentErrMsg();
    for (const Dev *d : {&p.out, &p.dvalue, &p.dloc, &p.dattn})
      if (*d) {
        for (double v : (*d)->values()) EXPECT_TRUE(std::isnan(v) || v == 0 || std::abs(v) > 1e30) << "written";
      }
  }
}

TEST_P(OpTableMsda, ErrorsNameTheArgument) {
  const MsdaTableCase &c = GetParam();
  const char *api = c.api.c_str();
  const bool bw = is_backward(c);
  Problem p = make_problem(rng(), ACL_FLOAT, false, bw, ACL_INT32);
  const MsdaArgs good = p.args();
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  using F = aclTensor *MsdaArgs::*;
  std::vector<std::pair<const char *, F>> args = {{"value", &MsdaArgs::value},       {"spatialShape", &MsdaArgs::shapes},
                                                  {"levelStartIndex", &MsdaArgs::starts}, {"location", &MsdaArgs::loc},
                                                  {"attnWeight", &MsdaArgs::attn}};
  if (bw) {
    args.insert(args.end(), {{"gradOutput", &MsdaArgs::dy}, {"gradValue", &MsdaArgs::dvalue},
                             {"gradLocation", &MsdaArgs::dloc}, {"gradAttnWeight", &MsdaArgs::dattn}});
  } else {
    args.push_back({"output", &MsdaArgs::out});
  }
  DeviceTensor wrong({2, 3}, ACL_FLOAT), half({2, 3}, ACL_FLOAT16), f32_levels({p.levels, 2}, ACL_FLOAT),
      i32_value({p.bs, p.keys, p.heads, p.ch}, ACL_INT32);
  for (const auto &[name, f] : args) {
    MsdaArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, name})) << name;
    a.*f = wrong;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name})) << name;
    const bool index = f == &MsdaArgs::shapes || f == &MsdaArgs::starts;
    a.*f = index ? f32_levels.get() : f == &MsdaArgs::value ? i32_value.get() : half.get();
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, name, "dtype"})) << name;
  }
  {  // shapes that disagree: one more point in attnWeight, one more channel in the output side
    MsdaArgs a = good;
    DeviceTensor attn({p.bs, p.queries, p.heads, p.levels, p.points + 1}, ACL_FLOAT);
    a.attn = attn;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "attnWeight", "shape"}));
    a = good;
    DeviceTensor o({p.bs, p.queries, p.heads * p.ch + 1}, ACL_FLOAT);
    (bw ? a.dy : a.out) = o;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, bw ? "gradOutput" : "output", "shape"}));
    a = good;
    DeviceTensor levels({p.levels, 3}, ACL_INT32);
    a.shapes = levels;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "spatialShape", "shape"}));
  }
  {  // an output sharing memory with an input
    MsdaArgs a = good;
    if (bw) a.dvalue = a.value;
    else a.out = nullptr;
    if (bw) EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "gradValue", "overlaps"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableMsda, ::testing::ValuesIn(all_cases()), harness::case_name<MsdaTableCase>);

}  // namespace
}  // namespace opsnn::test

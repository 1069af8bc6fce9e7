// The test harness of the table-driven norm gradients (src/ops/norm/norm_grad.ops): every op runs
// the same suites, registered from the table by tools/gen_ops.py --tests (ngrad_table_cases.inc):
//   - every dtype, random shapes and normalised dims (layer / RMS) or groups (group norm),
//     contiguous and column-major inputs, with / without gamma where optional, outputMask
//     variants (outputs not asked for stay untouched), against a float64 reference written from
//     the formulas (mean / rstd given as the forward computes them);
//   - errors with their code and the argument named.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct NgradArgs {
  aclTensor *dy = nullptr, *x = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr, *beta = nullptr,
            *dx = nullptr, *dgamma = nullptr, *dbeta = nullptr;
  const aclIntArray *normalized_shape = nullptr;
  int64_t n = 0, c = 0, hxw = 0, group = 1;
  const aclBoolArray *output_mask = nullptr;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct NgradTableCase {
  std::string name, api, kind;  // layer, rms, group
  std::vector<aclDataType> dtypes;
  bool gamma_optional = false, has_dbeta = false, has_mask = false;
  int (*phase1)(const NgradArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
};
void PrintTo(const NgradTableCase &c, std::ostream *os) { *os << c.name; }

#include "ngrad_table_cases.inc"

const std::vector<NgradTableCase> &all_cases() {
  static const std::vector<NgradTableCase> c = harness::sampled(ngrad_table_cases());
  return c;
}

struct NgradSample {
  std::vector<int64_t> shape;
  int k = 1;          // layer / RMS: normalised trailing dims
  int64_t group = 1;  // group norm
  bool with_gamma = true, column_major = false;
  bool mask[3] = {true, true, true};
};

std::vector<int64_t> reversed_strides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> rev(shape.rbegin(), shape.rend());
  auto st = contiguous_strides(rev);
  return std::vector<int64_t>(st.rbegin(), st.rend());
}

void check(const NgradTableCase &c, aclDataType dt, const NgradSample &s) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(s.shape)
                                    << " k " << s.k << " group " << s.group << (s.with_gamma ? "" : " no gamma")
                                    << (s.column_major ? " column-major" : "") << " mask " << s.mask[0] << s.mask[1]
                                    << s.mask[2]);
  const bool group = c.kind == "group";
  const int nd = static_cast<int>(s.shape.size());
  const int64_t total = numel_of(s.shape);
  // Rows: the outer dims (layer / RMS) or [N, group]; the row of each element and its gamma index.
  std::vector<int64_t> gshape, stat_shape;
  if (group) {
    gshape = {s.shape[1]};
    stat_shape = {s.shape[0], s.group};
  } else {
    gshape.assign(s.shape.end() - s.k, s.shape.end());
    stat_shape.assign(s.shape.begin(), s.shape.end() - s.k);
    for (int d = 0; d < s.k; ++d) stat_shape.push_back(1);
  }
  const int64_t G = numel_of(gshape), rows = numel_of(stat_shape), len = rows > 0 ? total / rows : 0;
  auto row_of = [&](int64_t i) {
    if (!group) return i / len;
    const auto idx = unravel(i, s.shape);
    return idx[0] * s.group + idx[1] / (s.shape[1] / s.group);
  };
  auto gidx_of = [&](int64_t i) { return group ? unravel(i, s.shape)[1] : i % G; };

  DeviceTensor x = s.column_major ? DeviceTensor(s.shape, dt, reversed_strides(s.shape), 1) : DeviceTensor(s.shape, dt);
  DeviceTensor dy(s.shape, dt), gamma(gshape, dt), beta(gshape, dt), dx(s.shape, dt), dg(gshape, dt), db(gshape, dt);
  const aclDataType stat_dt = c.kind == "rms" ? ACL_FLOAT : dt;
  DeviceTensor mean(stat_shape, stat_dt), rstd(stat_shape, stat_dt);
  x.fill_random(-2, 2);
  dy.fill_random(-1, 1);
  gamma.fill_random(0.5, 1.5);
  beta.fill_random(-1, 1);
  dx.poison();
  dg.poison();
  db.poison();
  const auto xv = x.values();
  {  // the forward statistics, as stored
    std::vector<long double> s1(static_cast<size_t>(rows)), s2(static_cast<size_t>(rows));
    for (int64_t i = 0; i < total; ++i) {
      s1[static_cast<size_t>(row_of(i))] += xv[static_cast<size_t>(i)];
      s2[static_cast<size_t>(row_of(i))] += static_cast<long double>(xv[static_cast<size_t>(i)]) * xv[static_cast<size_t>(i)];
    }
    std::vector<double> mv, rv;
    for (int64_t r = 0; r < rows; ++r) {
      const long double m = c.kind == "rms" ? 0 : s1[static_cast<size_t>(r)] / len;
      const long double var = s2[static_cast<size_t>(r)] / len - m * m;
      mv.push_back(static_cast<double>(m));
      rv.push_back(static_cast<double>(1 / sqrtl(var + 1e-5L)));
    }
    mean.set_values(mv);
    rstd.set_values(rv);
  }
  const bool three[3] = {s.mask[0], s.mask[1], s.mask[2]};
  aclBoolArray *mask = aclCreateBoolArray(three, 3);
  aclIntArray *norm = aclCreateIntArray(gshape.data(), gshape.size());
  NgradArgs a;
  a.dy = dy;
  a.x = x;
  a.mean = mean;
  a.rstd = rstd;
  a.gamma = s.with_gamma ? gamma.get() : nullptr;
  a.beta = beta;
  a.normalized_shape = norm;
  a.n = s.shape[0];
  a.c = nd > 1 ? s.shape[1] : 1;
  a.hxw = group ? total / std::max<int64_t>(1, s.shape[0] * s.shape[1]) : 1;
  a.group = s.group;
  a.output_mask = mask;
  a.dx = s.mask[0] ? dx.get() : nullptr;
  a.dgamma = s.mask[1] ? dg.get() : nullptr;
  a.dbeta = s.mask[2] ? db.get() : nullptr;
  const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  aclDestroyBoolArray(mask);
  aclDestroyIntArray(norm);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();

  const auto dyv = dy.values(), gv = gamma.values(), mv = mean.values(), rv = rstd.values();
  std::vector<long double> sg(static_cast<size_t>(rows)), sgx(static_cast<size_t>(rows));
  std::vector<long double> wdg(static_cast<size_t>(G)), wdb(static_cast<size_t>(G));
  auto xhat = [&](int64_t i) {
    const int64_t r = row_of(i);
    return (static_cast<long double>(xv[static_cast<size_t>(i)]) - (c.kind == "rms" ? 0 : mv[static_cast<size_t>(r)])) *
           rv[static_cast<size_t>(r)];
  };
  auto g_of = [&](int64_t i) {
    return static_cast<long double>(dyv[static_cast<size_t>(i)]) * (s.with_gamma ? gv[static_cast<size_t>(gidx_of(i))] : 1.0);
  };
  for (int64_t i = 0; i < total; ++i) {
    sg[static_cast<size_t>(row_of(i))] += g_of(i);
    sgx[static_cast<size_t>(row_of(i))] += g_of(i) * xhat(i);
    wdg[static_cast<size_t>(gidx_of(i))] += dyv[static_cast<size_t>(i)] * xhat(i);
    wdb[static_cast<size_t>(gidx_of(i))] += dyv[static_cast<size_t>(i)];
  }
  if (s.mask[0]) {
    std::vector<double> want;
    for (int64_t i = 0; i < total; ++i) {
      const int64_t r = row_of(i);
      const long double m1 = c.kind == "rms" ? 0 : sg[static_cast<size_t>(r)] / len, m2 = sgx[static_cast<size_t>(r)] / len;
      want.push_back(round_to(dt, static_cast<double>(rv[static_cast<size_t>(r)] * (g_of(i) - m1 - xhat(i) * m2))));
    }
    EXPECT_TRUE(meets_precision(dt, dx.values(), want)) << "gradInput";
  } else {
    EXPECT_TRUE(dx.untouched_outside_view());
  }
  std::vector<double> wg, wb;
  for (int64_t k = 0; k < G; ++k) {
    wg.push_back(round_to(dt, static_cast<double>(wdg[static_cast<size_t>(k)])));
    wb.push_back(round_to(dt, static_cast<double>(wdb[static_cast<size_t>(k)])));
  }
  if (s.mask[1]) EXPECT_TRUE(meets_precision(dt, dg.values(), wg)) << "gradGamma";
  if (s.mask[2] && c.has_dbeta) EXPECT_TRUE(meets_precision(dt, db.values(), wb)) << "gradBeta";
}

class OpTableNgrad : public ::testing::TestWithParam<NgradTableCase> {};

TEST_P(OpTableNgrad, EveryDtypeShapeAndMask) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  auto &r = rng();
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int t = 0; t < 4; ++t, ++v) {
      NgradSample s;
      if (c.kind == "group") {
        const int64_t g = 1 + static_cast<int64_t>(r() % 3);
        s.group = g;
        s.shape = {1 + static_cast<int64_t>(r() % 3), g * (1 + static_cast<int64_t>(r() % 3))};
        for (int d = static_cast<int>(r() % 3); d > 0; --d) s.shape.push_back(1 + static_cast<int64_t>(r() % 5));
      } else {
        const int nd = 1 + static_cast<int>(r() % 4);
        for (int d = 0; d < nd; ++d) s.shape.push_back(1 + static_cast<int64_t>(r() % 6));
        s.shape.back() += 3;
        s.k = 1 + static_cast<int>(r() % static_cast<uint64_t>(std::min(nd, 2)));
      }
      s.with_gamma = !(c.gamma_optional && t == 1);
      s.column_major = t == 2;
      if (c.has_mask && t == 3) s.mask[v % 3] = false;
      if (!c.has_dbeta) s.mask[2] = true;
      check(c, dt, s);
    }
}

TEST_P(OpTableNgrad, LongRows) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  NgradSample s;
  s.shape = c.kind == "group" ? std::vector<int64_t>{2, 8, 33, 35} : std::vector<int64_t>{37, 3001};
  s.group = 4;
  check(c, ACL_FLOAT, s);
}

TEST_P(OpTableNgrad, ErrorsNameTheArgument) {
  const NgradTableCase &c = GetParam();
  const bool group = c.kind == "group";
  const std::vector<int64_t> shape = {2, 4, 3}, gshape = group ? std::vector<int64_t>{4} : std::vector<int64_t>{3};
  const std::vector<int64_t> sshape = group ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{2, 4, 1};
  DeviceTensor x(shape, ACL_FLOAT), dy(shape, ACL_FLOAT), dx(shape, ACL_FLOAT), g(gshape, ACL_FLOAT), b(gshape, ACL_FLOAT),
      dg(gshape, ACL_FLOAT), db(gshape, ACL_FLOAT), m(sshape, ACL_FLOAT), rs(sshape, ACL_FLOAT);
  for (DeviceTensor *t : {&x, &dy, &g, &b, &m, &rs}) t->fill_random(0.5, 1.5);
  aclIntArray *norm = aclCreateIntArray(gshape.data(), gshape.size());
  NgradArgs good;
  good.dy = dy;
  good.x = x;
  good.mean = m;
  good.rstd = rs;
  good.gamma = g;
  good.beta = b;
  good.dx = dx;
  good.dgamma = dg;
  good.dbeta = db;
  good.normalized_shape = norm;
  good.n = 2;
  good.c = 4;
  good.hxw = 3;
  good.group = 2;
  const char *api = c.api.c_str();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  NgradArgs a = good;
  a.x = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api}));
  a = good;
  a.rstd = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, "rstd"}));
  DeviceTensor dy2({2, 4, 4}, ACL_FLOAT);
  a = good;
  a.dy = dy2;
  EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DeviceTensor r2({5}, ACL_FLOAT);
  a = good;
  a.rstd = r2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "rstd"}));
  DeviceTensor g2({7}, ACL_FLOAT);
  a = good;
  a.gamma = g2;
  EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  DeviceTensor xi(shape, ACL_INT32);
  a = good;
  a.x = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dtype"}));
  if (group) {
    a = good;
    a.group = 3;  // 4 channels do not split into 3 groups
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "group"}));
  }
  if (c.kind == "layer") {
    const int64_t bad[] = {4};
    aclIntArray *n2 = aclCreateIntArray(bad, 1);
    a = good;
    a.normalized_shape = n2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "normalizedShape"}));
    aclDestroyIntArray(n2);
  }
  aclDestroyIntArray(norm);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableNgrad, ::testing::ValuesIn(all_cases()), harness::case_name<NgradTableCase>);

}  // namespace
}  // namespace opsnn::test

// The test harness of the table-driven norm gradients (src/ops/norm/norm_grad.ops): every op runs
// the same suites, registered from the table by tools/gen_ops.py --tests (ngrad_table_cases.inc):
//   - the float64 reference (norm_grad_ref, tests/common/float64_refs.h) against finite differences
//     of the float64 forward (norm_forward_ref) for the op's geometry and fused stages;
//   - every dtype, random shapes and normalised dims (layer / RMS) or groups (group norm),
//     contiguous and column-major inputs, with / without optional gamma / beta / dsum, outputMask or
//     required-flag variants (outputs not asked for stay untouched), scale as [B..., H] or
//     [B..., 1, H], against that reference (mean / rstd given as the forward computes them);
//   - NaN in dy and x, empty tensors, long rows;
//   - errors with their code and the argument named.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "float64_refs.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct NgradArgs {
  aclTensor *dy = nullptr, *x = nullptr, *x2 = nullptr, *mean = nullptr, *rstd = nullptr, *gamma = nullptr,
            *beta = nullptr, *scale = nullptr, *shift = nullptr, *dsum = nullptr, *dx = nullptr, *dx2 = nullptr,
            *dscale = nullptr, *dshift = nullptr, *dgamma = nullptr, *dbeta = nullptr;
  const aclIntArray *normalized_shape = nullptr;
  int64_t n = 0, c = 0, hxw = 0, group = 1;
  double alpha = 1, swish_scale = 1;
  char *data_format = nullptr;
  bool dgamma_required = true, dbeta_required = true;
  const aclBoolArray *output_mask = nullptr;
  aclTensor *scales_x = nullptr, *offset_x = nullptr;  // RmsNormGradQuant
  const char *quant_mode = "static";
  bool div_mode = false;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct NgradTableCase {
  std::string name, api, kind;  // layer, rms, group
  std::vector<aclDataType> dtypes;
  std::vector<std::string> roles;
  std::map<std::string, std::string> names;  // role -> parameter name
  bool gamma_optional = false, has_dbeta = false, has_mask = false;
  double alpha = 1, swish_scale = 1;
  int (*phase1)(const NgradArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const std::string &r) const { return std::find(roles.begin(), roles.end(), r) != roles.end(); }
  const char *name_of(const std::string &r) const { return names.at(r).c_str(); }
};
void PrintTo(const NgradTableCase &c, std::ostream *os) { *os << c.name; }

#include "ngrad_table_cases.inc"

// The generic suites: every row but RmsNormGradQuant's (its INT8 dx has a suite of its own, below).
const std::vector<NgradTableCase> &all_cases() {
  static const std::vector<NgradTableCase> c = [] {
    std::vector<NgradTableCase> v;
    for (auto &k : harness::sampled(ngrad_table_cases()))
      if (!k.has("scales_x")) v.push_back(k);
    return v;
  }();
  return c;
}
std::vector<NgradTableCase> quant_cases() {
  std::vector<NgradTableCase> v;
  for (auto &k : harness::sampled(ngrad_table_cases()))
    if (k.has("scales_x")) v.push_back(k);
  return v;
}

struct NgradSample {
  std::vector<int64_t> shape;
  int k = 1;          // layer / RMS: normalised trailing dims
  int64_t group = 1;  // group norm
  bool with_gamma = true, with_beta = true, with_dsum = true, column_major = false, scale_3d = false;
  bool mask[3] = {true, true, true};  // dx, dgamma, dbeta (outputMask or the required flags)
  bool special = false;               // NaN in dy and x
};

std::vector<int64_t> reversed_strides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> rev(shape.rbegin(), shape.rend());
  auto st = contiguous_strides(rev);
  return std::vector<int64_t>(st.rbegin(), st.rend());
}

// The op's geometry and fused stages as the reference's spec, with gamma's and scale's shapes.
struct Geometry {
  refs::NormRefSpec spec;
  std::vector<int64_t> gshape, stat_shape, scale_shape;
};

Geometry geometry(const NgradTableCase &c, const NgradSample &s) {
  Geometry g;
  const bool group = c.kind == "group";
  const int nd = static_cast<int>(s.shape.size());
  const int64_t total = numel_of(s.shape);
  if (group) {
    g.gshape = {s.shape[1]};
    g.stat_shape = {s.shape[0], s.group};
  } else {
    g.gshape.assign(s.shape.end() - s.k, s.shape.end());
    g.stat_shape.assign(s.shape.begin(), s.shape.end() - s.k);
    for (int d = 0; d < s.k; ++d) g.stat_shape.push_back(1);
  }
  auto &sp = g.spec;
  sp.rows = numel_of(g.stat_shape);
  sp.ngamma = numel_of(g.gshape);
  const int64_t len = sp.rows > 0 ? total / sp.rows : 0;
  sp.rms = c.kind == "rms";
  sp.add = c.has("x2");
  sp.alpha = c.alpha;
  sp.swish = c.has("swish_scale");
  sp.swish_scale = c.swish_scale;
  sp.has_gamma = s.with_gamma;
  sp.has_beta = c.has("beta") && s.with_beta;
  sp.has_scale = c.has("scale");
  if (sp.has_scale) {
    g.scale_shape.assign(s.shape.begin(), s.shape.end() - 2);
    if (s.scale_3d) g.scale_shape.push_back(1);
    g.scale_shape.push_back(s.shape.back());
    sp.nscale = numel_of(g.scale_shape);
  }
  for (int64_t i = 0; i < total; ++i) {
    if (group) {
      const auto idx = unravel(i, s.shape);
      sp.row.push_back(idx[0] * s.group + idx[1] / (s.shape[1] / s.group));
      sp.gidx.push_back(idx[1]);
    } else {
      sp.row.push_back(i / len);
      sp.gidx.push_back(i % sp.ngamma);
    }
    if (sp.has_scale) {
      const int64_t H = s.shape[static_cast<size_t>(nd - 1)], S = s.shape[static_cast<size_t>(nd - 2)];
      sp.sidx.push_back(i / (S * H) * H + i % H);
    }
  }
  return g;
}

void check(const NgradTableCase &c, aclDataType dt, const NgradSample &s) {
  SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " shape " << ::testing::PrintToString(s.shape)
                                    << " k " << s.k << " group " << s.group << (s.with_gamma ? "" : " no gamma")
                                    << (s.with_beta ? "" : " no beta") << (s.with_dsum ? "" : " no dsum")
                                    << (s.column_major ? " column-major" : "") << (s.scale_3d ? " scale [B, 1, H]" : "")
                                    << (s.special ? " NaN" : "") << " mask " << s.mask[0] << s.mask[1] << s.mask[2]);
  const Geometry geo = geometry(c, s);
  const auto &sp = geo.spec;
  const int64_t total = numel_of(s.shape);

  DeviceTensor x = s.column_major ? DeviceTensor(s.shape, dt, reversed_strides(s.shape), 1) : DeviceTensor(s.shape, dt);
  DeviceTensor x2(s.shape, dt), dsum(s.shape, dt), dy(s.shape, dt), dx(s.shape, dt), dx2(s.shape, dt);
  DeviceTensor gamma(geo.gshape, dt), beta(geo.gshape, dt), dg(geo.gshape, dt), db(geo.gshape, dt);
  const std::vector<int64_t> sc_shape = sp.has_scale ? geo.scale_shape : std::vector<int64_t>{1};
  DeviceTensor scale(sc_shape, dt), shift(sc_shape, dt), dscale(sc_shape, dt), dshift(sc_shape, dt);
  const aclDataType stat_dt = c.kind == "rms" || sp.add ? ACL_FLOAT : dt;
  DeviceTensor mean(geo.stat_shape, stat_dt), rstd(geo.stat_shape, stat_dt);
  x.fill_random(-2, 2);
  x2.fill_random(-1, 1);
  dsum.fill_random(-1, 1);
  dy.fill_random(-1, 1);
  gamma.fill_random(0.5, 1.5);
  beta.fill_random(-1, 1);
  scale.fill_random(-0.5, 0.5);
  shift.fill_random(-1, 1);
  if (s.special && total > 0) {
    auto v = dy.values();
    v[0] = NAN;
    dy.set_values(v);
    auto xv = x.values();
    xv[static_cast<size_t>(total - 1)] = NAN;
    x.set_values(xv);
  }
  for (DeviceTensor *t : {&dx, &dx2, &dg, &db, &dscale, &dshift}) t->poison();
  refs::NormRefInputs in;
  in.x = x.values();
  in.x2 = x2.values();
  in.gamma = gamma.values();
  in.beta = beta.values();
  in.scale = scale.values();
  in.shift = shift.values();
  {  // the forward statistics, as stored
    const auto f = refs::norm_forward_ref(sp, in);
    mean.set_values(f.mean);
    rstd.set_values(f.rstd);
  }
  const bool three[3] = {s.mask[0], s.mask[1], s.mask[2]};
  aclBoolArray *mask = aclCreateBoolArray(three, 3);
  aclIntArray *norm = aclCreateIntArray(geo.gshape.data(), geo.gshape.size());
  const bool want_dx = !c.has_mask || s.mask[0], want_dg = s.mask[1], want_db = c.has_dbeta && s.mask[2];
  NgradArgs a;
  a.dy = dy;
  a.x = x;
  a.x2 = x2;
  a.mean = mean;
  a.rstd = rstd;
  a.gamma = s.with_gamma ? gamma.get() : nullptr;
  a.beta = s.with_beta ? beta.get() : nullptr;
  a.scale = scale;
  a.shift = shift;
  a.dsum = s.with_dsum ? dsum.get() : nullptr;
  a.normalized_shape = norm;
  a.n = s.shape[0];
  a.c = s.shape.size() > 1 ? s.shape[1] : 1;
  a.hxw = c.kind == "group" ? total / std::max<int64_t>(1, s.shape[0] * s.shape[1]) : 1;
  a.group = s.group;
  a.alpha = c.alpha;
  a.swish_scale = c.swish_scale;
  a.dgamma_required = s.mask[1];
  a.dbeta_required = s.mask[2];
  a.output_mask = mask;
  a.dx = want_dx ? dx.get() : nullptr;
  a.dx2 = dx2;
  a.dscale = dscale;
  a.dshift = dshift;
  a.dgamma = want_dg ? dg.get() : nullptr;
  a.dbeta = want_db ? db.get() : nullptr;
  const int rc = run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
  aclDestroyBoolArray(mask);
  aclDestroyIntArray(norm);
  ASSERT_EQ(rc, 0) << aclGetRecentErrMsg();

  const std::vector<double> no_dsum;
  const auto r = refs::norm_grad_ref(sp, in, dy.values(), c.has("dsum") && s.with_dsum ? dsum.values() : no_dsum,
                                     mean.values(), rstd.values());
  auto rounded = [&](std::vector<double> v) {
    for (double &e : v) e = round_to(dt, e);
    return v;
  };
  if (want_dx) EXPECT_TRUE(meets_precision(dt, dx.values(), rounded(r.dx))) << c.name_of("dx");
  else EXPECT_TRUE(dx.untouched_outside_view());
  if (c.has("dx2")) EXPECT_TRUE(meets_precision(dt, dx2.values(), rounded(r.dx2))) << c.name_of("dx2");
  if (want_dg) EXPECT_TRUE(meets_precision(dt, dg.values(), rounded(r.dgamma))) << c.name_of("dgamma");
  else EXPECT_TRUE(dg.untouched_outside_view());
  if (want_db) EXPECT_TRUE(meets_precision(dt, db.values(), rounded(r.dbeta))) << c.name_of("dbeta");
  else EXPECT_TRUE(db.untouched_outside_view());
  if (sp.has_scale) {
    EXPECT_TRUE(meets_precision(dt, dscale.values(), rounded(r.dscale))) << c.name_of("dscale");
    EXPECT_TRUE(meets_precision(dt, dshift.values(), rounded(r.dshift))) << c.name_of("dshift");
  }
}

// A random sample of the op's geometry.
NgradSample random_sample(const NgradTableCase &c, std::mt19937_64 &r) {
  NgradSample s;
  if (c.kind == "group") {
    const int64_t g = 1 + static_cast<int64_t>(r() % 3);
    s.group = g;
    s.shape = {1 + static_cast<int64_t>(r() % 3), g * (1 + static_cast<int64_t>(r() % 3))};
    for (int d = static_cast<int>(r() % 3); d > 0; --d) s.shape.push_back(1 + static_cast<int64_t>(r() % 5));
  } else {
    const int nd = (c.has("scale") ? 2 : 1) + static_cast<int>(r() % 3);
    for (int d = 0; d < nd; ++d) s.shape.push_back(1 + static_cast<int64_t>(r() % 6));
    s.shape.back() += 3;
    s.k = c.has("scale") ? 1 : 1 + static_cast<int>(r() % static_cast<uint64_t>(std::min(nd, 2)));
  }
  return s;
}

class OpTableNgrad : public ::testing::TestWithParam<NgradTableCase> {};

// The reference is the forward's gradient: central differences of L = sum(dy y) + sum(dsum z),
// with the forward recomputing mean / rstd, against norm_grad_ref for every input element.
TEST_P(OpTableNgrad, ReferenceMatchesFiniteDifferences) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  auto &rg = rng();
  std::uniform_real_distribution<double> u(-1, 1);
  for (int t = 0; t < 3; ++t) {
    NgradSample s = random_sample(c, rg);
    s.scale_3d = t == 1;
    const Geometry geo = geometry(c, s);
    const auto &sp = geo.spec;
    const size_t n = static_cast<size_t>(numel_of(s.shape));
    refs::NormRefInputs in;
    auto rnd = [&](size_t k, double lo, double hi) {
      std::vector<double> v(k);
      for (double &e : v) e = lo + (hi - lo) * (u(rg) + 1) / 2;
      return v;
    };
    in.x = rnd(n, -2, 2);
    in.x2 = rnd(n, -1, 1);
    in.gamma = rnd(static_cast<size_t>(sp.ngamma), 0.5, 1.5);
    in.beta = rnd(static_cast<size_t>(sp.ngamma), -1, 1);
    in.scale = rnd(static_cast<size_t>(sp.nscale), -0.5, 0.5);
    in.shift = rnd(static_cast<size_t>(sp.nscale), -1, 1);
    const auto dy = rnd(n, -1, 1);
    const auto dsum = c.has("dsum") ? rnd(n, -1, 1) : std::vector<double>{};
    auto loss = [&](const refs::NormRefInputs &v) {
      const auto f = refs::norm_forward_ref(sp, v);
      long double l = 0;
      for (size_t i = 0; i < n; ++i) l += static_cast<long double>(dy[i]) * f.y[i] + (dsum.empty() ? 0 : dsum[i] * f.z[i]);
      return l;
    };
    const auto f0 = refs::norm_forward_ref(sp, in);
    const auto an = refs::norm_grad_ref(sp, in, dy, dsum, f0.mean, f0.rstd);
    auto fd_check = [&](std::vector<double> refs::NormRefInputs::*field, const std::vector<double> &want,
                        const char *what) {
      for (size_t i = 0; i < (in.*field).size(); ++i) {
        refs::NormRefInputs p = in, m = in;
        const double h = 1e-5;
        (p.*field)[i] += h;
        (m.*field)[i] -= h;
        const double fd = static_cast<double>((loss(p) - loss(m)) / (2 * h));
        ASSERT_NEAR(want[i], fd, 2e-6 * (1 + std::fabs(fd))) << what << " element " << i << " sample " << t;
      }
    };
    fd_check(&refs::NormRefInputs::x, an.dx, "dx");
    if (sp.add) fd_check(&refs::NormRefInputs::x2, an.dx2, "dx2");
    fd_check(&refs::NormRefInputs::gamma, an.dgamma, "dgamma");
    if (sp.has_beta) fd_check(&refs::NormRefInputs::beta, an.dbeta, "dbeta");
    if (sp.has_scale) {
      fd_check(&refs::NormRefInputs::scale, an.dscale, "dscale");
      fd_check(&refs::NormRefInputs::shift, an.dshift, "dshift");
    }
  }
}

TEST_P(OpTableNgrad, EveryDtypeShapeAndMask) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  auto &r = rng();
  int v = 0;
  const bool flags = c.has("dgamma_required");
  for (aclDataType dt : c.dtypes)
    for (int t = 0; t < 5; ++t, ++v) {
      NgradSample s = random_sample(c, r);
      s.with_gamma = !(c.gamma_optional && t == 1);
      s.with_beta = !(c.has("beta") && c.names.at("beta") == "biasOptional" && c.has("scale") && t == 1);
      s.with_dsum = !(c.has("dsum") && t == 4);
      s.column_major = t == 2;
      s.scale_3d = t == 3;
      if (c.has_mask && t == 3) s.mask[v % 3] = false;
      if (flags && t == 3) s.mask[1 + v % 2] = false;
      if (flags && t == 4) s.mask[1] = s.mask[2] = false;
      if (!c.has_mask && !flags) s.mask[0] = s.mask[1] = s.mask[2] = true;
      check(c, dt, s);
    }
}

TEST_P(OpTableNgrad, NanInDyAndX) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  NgradSample s = random_sample(c, rng());
  s.special = true;
  check(c, ACL_FLOAT, s);
}

TEST_P(OpTableNgrad, EmptyTensors) {
  const NgradTableCase &c = GetParam();
  NgradSample s;
  s.group = 2;
  s.shape = c.kind == "group" ? std::vector<int64_t>{0, 4, 3} : std::vector<int64_t>{0, 5};
  check(c, ACL_FLOAT, s);
  if (c.has("scale")) {  // no rows in a batch: the scale / shift gradients are zeros
    s.shape = {2, 0, 5};
    check(c, ACL_FLOAT, s);
  }
}

TEST_P(OpTableNgrad, LongRows) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  NgradSample s;
  s.shape = c.kind == "group" ? std::vector<int64_t>{2, 8, 33, 35} : std::vector<int64_t>{37, 3001};
  if (c.has("scale")) s.shape = {3, 13, 1001};
  s.group = 4;
  check(c, ACL_FLOAT, s);
}

TEST_P(OpTableNgrad, ErrorsNameTheArgument) {
  const NgradTableCase &c = GetParam();
  const bool group = c.kind == "group";
  const std::vector<int64_t> shape = {2, 4, 3}, gshape = group ? std::vector<int64_t>{4} : std::vector<int64_t>{3};
  const std::vector<int64_t> sshape = group ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{2, 4, 1};
  DeviceTensor x(shape, ACL_FLOAT), x2(shape, ACL_FLOAT), dsum(shape, ACL_FLOAT), dy(shape, ACL_FLOAT),
      dx(shape, ACL_FLOAT), dx2(shape, ACL_FLOAT), g(gshape, ACL_FLOAT), b(gshape, ACL_FLOAT), dg(gshape, ACL_FLOAT),
      db(gshape, ACL_FLOAT), m(sshape, ACL_FLOAT), rs(sshape, ACL_FLOAT), sc({2, 3}, ACL_FLOAT), sh({2, 3}, ACL_FLOAT),
      dsc({2, 3}, ACL_FLOAT), dsh({2, 3}, ACL_FLOAT);
  for (DeviceTensor *t : {&x, &x2, &dsum, &dy, &g, &b, &m, &rs, &sc, &sh}) t->fill_random(0.5, 1.5);
  aclIntArray *norm = aclCreateIntArray(gshape.data(), gshape.size());
  NgradArgs good;
  good.dy = dy;
  good.x = x;
  good.x2 = x2;
  good.dsum = dsum;
  good.mean = m;
  good.rstd = rs;
  good.gamma = g;
  good.beta = b;
  good.scale = sc;
  good.shift = sh;
  good.dx = dx;
  good.dx2 = dx2;
  good.dscale = dsc;
  good.dshift = dsh;
  good.dgamma = dg;
  good.dbeta = db;
  good.normalized_shape = norm;
  good.n = 2;
  good.c = 4;
  good.hxw = 3;
  good.group = 2;
  good.alpha = c.alpha;
  good.swish_scale = c.swish_scale;
  const char *api = c.api.c_str();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  NgradArgs a;
  // Every required tensor, null: 161001 naming it.
  const std::vector<std::pair<std::string, aclTensor *NgradArgs::*>> tensors = {
      {"dy", &NgradArgs::dy},         {"x", &NgradArgs::x},           {"x2", &NgradArgs::x2},
      {"rstd", &NgradArgs::rstd},     {"scale", &NgradArgs::scale},   {"shift", &NgradArgs::shift},
      {"dx2", &NgradArgs::dx2},       {"dscale", &NgradArgs::dscale}, {"dshift", &NgradArgs::dshift}};
  for (const auto &[role, field] : tensors) {
    if (!c.has(role)) continue;
    a = good;
    a.*field = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.name_of(role)})) << role;
  }
  if (c.has("mean") && c.kind != "rms") {
    a = good;
    a.mean = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.name_of("mean")}));
  }
  if (!c.has_mask) {  // dx always written
    a = good;
    a.dx = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {api, c.name_of("dx")}));
  }
  // Shapes and dtypes.
  DeviceTensor dy2({2, 4, 4}, ACL_FLOAT);
  a = good;
  a.dy = dy2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("dy")}));
  if (c.has("x2")) {
    a = good;
    a.x2 = dy2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("x2")}));
  }
  if (c.has("dsum")) {
    a = good;
    a.dsum = dy2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("dsum")}));
  }
  DeviceTensor r2({5}, ACL_FLOAT);
  a = good;
  a.rstd = r2;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("rstd")}));
  DeviceTensor g2({7}, ACL_FLOAT);
  a = good;
  a.gamma = g2;
  EXPECT_EQ(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID);
  if (c.has("beta") && (group || c.has("scale"))) {
    a = good;
    a.beta = g2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("beta")}));
  }
  DeviceTensor xi(shape, ACL_INT32);
  a = good;
  a.x = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("x"), "dtype"}));
  a = good;
  a.dy = xi;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("dy"), "dtype"}));
  if (c.has("scale")) {
    DeviceTensor sc2({2, 4}, ACL_FLOAT), sc3({2, 2, 3}, ACL_FLOAT);
    for (DeviceTensor *bad : {&sc2, &sc3}) {
      a = good;
      a.scale = *bad;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("scale")}));
    }
    a = good;
    a.dscale = sc2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, c.name_of("dscale")}));
    const int64_t two[] = {4, 3};
    aclIntArray *n2 = aclCreateIntArray(two, 2);
    a = good;
    a.normalized_shape = n2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "normalizedShape"}));
    aclDestroyIntArray(n2);
  }
  if (group) {
    a = good;
    a.group = 3;  // 4 channels do not split into 3 groups
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "group"}));
    if (c.has("data_format")) {
      char nhwc[] = "NHWC";
      a = good;
      a.data_format = nhwc;
      EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "dataFormatOptional"}));
    }
  }
  if (c.has("normalized_shape")) {
    const int64_t bad[] = {4};
    aclIntArray *n2 = aclCreateIntArray(bad, 1);
    a = good;
    a.normalized_shape = n2;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {api, "normalizedShape"}));
    aclDestroyIntArray(n2);
  }
  aclDestroyIntArray(norm);
}

// ---- RmsNormGradQuant: dx of y = x * rstd * gamma (float64, written here from the definition), then
// round_half_even(dx / s + o) (divMode) or dx * s + o, saturated to INT8; dgamma = sum over rows of dy x rstd.
class OpTableNgradQuant : public ::testing::TestWithParam<NgradTableCase> {};

TEST_P(OpTableNgradQuant, QuantisedDxAndDgammaAgainstFloat64) {
  reseed_for_current_test();
  const NgradTableCase &c = GetParam();
  auto &g = rng();
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (bool div : {false, true})
      for (aclDataType gdt : {ACL_FLOAT, dt}) {
        const bool cm = variant++ % 2, with_offset = variant % 3 != 0;
        SCOPED_TRACE(::testing::Message() << dt << " gamma " << gdt << " div " << div << " column-major " << cm);
        const int64_t rows = 1 + static_cast<int64_t>(g() % 6), len = 1 + static_cast<int64_t>(g() % 40);
        auto make = [&](std::vector<int64_t> shape, aclDataType t, bool rev) {
          return rev ? transposed_view(shape, t) : std::make_unique<DeviceTensor>(shape, t);
        };
        auto dy = make({rows, len}, dt, cm), x = make({rows, len}, dt, !cm);
        dy->fill_random(-2, 2);
        x->fill_random(-2, 2);
        DeviceTensor rstd({rows}, ACL_FLOAT), gamma({len}, gdt), sx({1}, dt == gdt ? dt : ACL_FLOAT), ox({1}, ACL_INT32),
            dgamma({len}, ACL_FLOAT);
        rstd.fill_random(0.5, 2);
        gamma.fill_random(-1.5, 1.5);
        const double scale = div ? 0.03125 : 24.0;
        sx.set_values({scale});
        ox.set_values({with_offset ? -3.0 : 0.0});
        auto dx = make({rows, len}, ACL_INT8, cm);
        dx->poison();
        dgamma.poison();
        NgradArgs a;
        a.dy = *dy;
        a.x = *x;
        a.rstd = rstd;
        a.gamma = gamma;
        a.scales_x = sx;
        a.offset_x = with_offset ? ox.get() : nullptr;
        a.div_mode = div;
        a.dx = *dx;
        a.dgamma = dgamma;
        ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
            << aclGetRecentErrMsg();
        const auto dyv = dy->values(), xv = x->values(), rv = rstd.values(), gv = gamma.values(), got = dx->values();
        const double o = with_offset ? -3.0 : 0.0;
        std::vector<double> want_dg(static_cast<size_t>(len), 0.0);
        for (int64_t r = 0; r < rows; ++r) {
          double mean = 0;
          for (int64_t j = 0; j < len; ++j) {
            const size_t e = static_cast<size_t>(r * len + j);
            mean += dyv[e] * gv[static_cast<size_t>(j)] * xv[e] * rv[static_cast<size_t>(r)];
            want_dg[static_cast<size_t>(j)] += dyv[e] * xv[e] * rv[static_cast<size_t>(r)];
          }
          mean /= static_cast<double>(len);
          for (int64_t j = 0; j < len; ++j) {
            const size_t e = static_cast<size_t>(r * len + j);
            const double rs = rv[static_cast<size_t>(r)];
            const double d = (dyv[e] * gv[static_cast<size_t>(j)] - rs * xv[e] * mean) * rs;
            const double v = (div ? d / scale : d * scale) + o;
            const double q = std::min(127.0, std::max(-128.0, std::nearbyint(v)));
            if (std::fabs(std::fabs(v - std::trunc(v)) - 0.5) < 1e-9) {  // a tie within rounding: either side
              EXPECT_LE(std::fabs(got[e] - q), 1.0) << "dx " << r << "," << j;
            } else {
              EXPECT_EQ(got[e], q) << "dx " << r << "," << j << " value " << v;
            }
          }
        }
        for (double &v : want_dg) v = round_to(ACL_FLOAT, v);
        EXPECT_TRUE(meets_precision(ACL_FLOAT, dgamma.values(), want_dg)) << "dgammaOut";
        EXPECT_TRUE(dx->untouched_outside_view());
      }
}

TEST_P(OpTableNgradQuant, ErrorsNameTheArgument) {
  const NgradTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor dy({3, 8}, ACL_FLOAT16), x({3, 8}, ACL_FLOAT16), rstd({3}, ACL_FLOAT), gamma({8}, ACL_FLOAT),
      sx({1}, ACL_FLOAT), ox({1}, ACL_INT32), dx({3, 8}, ACL_INT8), dgamma({8}, ACL_FLOAT), sx2({2}, ACL_FLOAT),
      sx_bf({1}, ACL_BF16), ox_f({1}, ACL_FLOAT), dx16({3, 8}, ACL_FLOAT16), dx_h8({3, 8}, ACL_HIFLOAT8),
      dx_bad({3, 9}, ACL_INT8);
  NgradArgs good;
  good.dy = dy;
  good.x = x;
  good.rstd = rstd;
  good.gamma = gamma;
  good.scales_x = sx;
  good.offset_x = ox;
  good.dx = dx;
  good.dgamma = dgamma;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(good, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto expect = [&](const std::function<void(NgradArgs &)> &edit, int code, std::initializer_list<const char *> words) {
    NgradArgs a = good;
    edit(a);
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), code, words));
  };
  const int bad = ACLNN_ERR_PARAM_INVALID, null = ACLNN_ERR_PARAM_NULLPTR;
  expect([&](NgradArgs &a) { a.scales_x = nullptr; }, null, {api, "scalesX"});
  expect([&](NgradArgs &a) { a.quant_mode = nullptr; }, null, {api, "quantMode"});
  expect([&](NgradArgs &a) { a.dx = nullptr; }, null, {api, "dxOut"});
  expect([&](NgradArgs &a) { a.quant_mode = "dynamic"; }, bad, {api, "quantMode"});
  expect([&](NgradArgs &a) { a.scales_x = sx2; }, bad, {api, "scalesX", "one value"});
  expect([&](NgradArgs &a) { a.scales_x = sx_bf; }, bad, {api, "scalesX", "dtype"});
  expect([&](NgradArgs &a) { a.offset_x = ox_f; }, bad, {api, "offsetXOptional", "dtype"});
  expect([&](NgradArgs &a) { a.dx = dx16; }, bad, {api, "dxOut", "dtype"});
  expect([&](NgradArgs &a) { a.dx = dx_h8; }, bad, {api, "dxOut", "HIFLOAT8"});
  expect([&](NgradArgs &a) { a.dx = dx_bad; }, bad, {api, "dxOut"});
  expect([&](NgradArgs &a) { a.x = dx; }, bad, {api, "x"});
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableNgradQuant, ::testing::ValuesIn(quant_cases()), harness::case_name<NgradTableCase>);

INSTANTIATE_TEST_SUITE_P(Tables, OpTableNgrad, ::testing::ValuesIn(all_cases()), harness::case_name<NgradTableCase>);

}  // namespace
}  // namespace opsnn::test

// The test harness of the fused norm + quantisation table (src/ops/norm/norm_quant.ops), cases
// registered from the table by tools/gen_ops.py --tests (normq_table_cases.inc). References are
// written here in float64 from the formulas of ops/norm/norm_quant_phase1.h (norm in double, then the
// quantisation in double with round half to even and int8 saturation):
//   - random data in every dtype of the row, per-channel and per-tensor scales, zero points, smooth
//     scales, beta: int8 outputs exact except within 2e-3 of a .5 tie (fp32 and float64 may fall on
//     either side there), xOut / rmsNormOut / rstd / scales within precision.md;
//   - constructed ties (eps 0, x = +-1 so rstd is exactly 1): half to even is checked exactly;
//   - non-contiguous x and outputs, the outputs a mask or a missing second scale leaves alone;
//   - every error path with its status and the argument it names.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "low_float_ref.h"
#include "mx_scale_ref.h"
#include "normq_table_case.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

#include "normq_table_cases.inc"

const std::vector<NormQuantTableCase> &all_cases() {
  static const std::vector<NormQuantTableCase> c = harness::sampled(normq_table_cases());
  return c;
}
// The rows along the last dim, or the group norm rows (their own suite below); the MX rows have theirs
// (test_op_table_normq_mx.cpp).
std::vector<NormQuantTableCase> cases_where(bool grouped) {
  std::vector<NormQuantTableCase> v;
  for (const auto &c : all_cases())
    if (c.grouped == grouped && !c.mx) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;

// ---- float64 references

double round_half_even(double v) {
  const double f = std::floor(v), d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1;
}
double sat_int8(double v) { return std::isnan(v) ? 0.0 : std::min(127.0, std::max(-128.0, round_half_even(v))); }

// Values of a parameter along the last dim (n values, or 1 repeated); absent: `fill`.
std::vector<double> param_row(const DeviceTensor *t, int64_t n, double fill) {
  if (t == nullptr) return std::vector<double>(static_cast<size_t>(n), fill);
  std::vector<double> v = t->values();
  if (v.size() == 1) v.assign(static_cast<size_t>(n), v[0]);
  return v;
}

struct Expected {
  std::vector<double> xsum, norm_out, rstd;
  std::vector<double> t[2];      // the quantiser's argument before rounding (static) or in / scale (dynamic)
  std::vector<double> scale[2];  // dynamic: per row
};

// The tensors of one call (host-side values kept by the DeviceTensors).
struct Call {
  Dev x, x2, gamma, beta, bias, mod_scale, mod_shift, scale[2], offset[2], smooth[2], y[2], xsum, rstd, norm_out, scale_out[2];
  NormQuantArgs args;
  int64_t rows = 0, n = 0;
  bool dynamic = false, divide = false;  // the mode of this call
  double qmax = 127.0;                   // dynamic: scale = max |in| / qmax (FLOAT8 outputs: the format's largest)
};

Expected reference(const NormQuantTableCase &c, const Call &k) {
  Expected e;
  const int64_t n = k.n, rows = k.rows;
  const std::vector<double> xv = k.x->values();
  const std::vector<double> x2v = k.x2 ? k.x2->values() : std::vector<double>(xv.size(), 0.0);
  const std::vector<double> g = param_row(k.gamma.get(), n, 1.0), bt = param_row(k.beta.get(), n, 0.0);
  const std::vector<double> bias = param_row(k.bias.get(), n, 0.0);
  // AdaLayerNormQuant's modulation: one row per batch index (x [B..., S, H]), the same along S.
  const std::vector<double> msc = k.mod_scale ? k.mod_scale->values() : std::vector<double>();
  const std::vector<double> msh = k.mod_shift ? k.mod_shift->values() : std::vector<double>();
  const int64_t seq = k.mod_scale ? k.x->shape()[k.x->shape().size() - 2] : 1;
  std::vector<double> s[2], o[2], sm[2];
  for (int q = 0; q < 2; ++q) {
    s[q] = param_row(k.scale[q].get(), n, 1.0);
    o[q] = param_row(k.offset[q].get(), n, 0.0);
    sm[q] = param_row(k.smooth[q].get(), n, 1.0);
  }
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> v(static_cast<size_t>(n));
    double mean = 0, ss = 0;
    for (int64_t j = 0; j < n; ++j) {
      v[j] = xv[r * n + j] + x2v[r * n + j] + bias[j];
      mean += v[j];
      e.xsum.push_back(v[j]);
    }
    mean = c.rms ? 0.0 : mean / n;
    for (int64_t j = 0; j < n; ++j) ss += (v[j] - mean) * (v[j] - mean);
    const double rstd = 1.0 / std::sqrt(ss / n + k.args.eps);
    e.rstd.push_back(rstd);
    std::vector<double> y(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const double normed = (v[j] - mean) * rstd * g[j];
      y[j] = normed + bt[j];
      if (k.mod_scale) y[j] = y[j] * (1 + msc[(r / seq) * n + j]) + msh[(r / seq) * n + j];
      e.norm_out.push_back(c.norm_out_before_beta ? normed : y[j]);
    }
    for (int q = 0; q < 2; ++q) {
      if (k.dynamic) {
        double amax = 0;
        for (int64_t j = 0; j < n; ++j) amax = std::max(amax, std::fabs(y[j] * sm[q][j]));
        const double scale = amax / k.qmax;
        e.scale[q].push_back(scale);
        for (int64_t j = 0; j < n; ++j) e.t[q].push_back(scale == 0 ? 0.0 : y[j] * sm[q][j] / scale);
      } else {
        for (int64_t j = 0; j < n; ++j)
          e.t[q].push_back(k.divide ? y[j] / s[q][j] + o[q][j] : y[j] * s[q][j] + o[q][j]);
      }
    }
  }
  return e;
}

// int8 results against the arguments before rounding: exact, except within `tie_tol` of a .5 tie
// where one step either way is accepted (0: exact everywhere).
::testing::AssertionResult ints_match(const std::vector<double> &got, const std::vector<double> &t, double tie_tol) {
  if (got.size() != t.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << t.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = sat_int8(t[i]);
    if (got[i] == want) continue;
    const double frac = t[i] - std::floor(t[i]);
    if (tie_tol > 0 && std::fabs(frac - 0.5) < tie_tol && std::fabs(got[i] - want) == 1 && std::fabs(t[i]) < 128)
      continue;
    return ::testing::AssertionFailure() << "element " << i << ": got " << got[i] << ", want " << want
                                         << " (before rounding " << t[i] << ")";
  }
  return ::testing::AssertionSuccess();
}

// ---- building calls

struct Options {
  std::vector<int64_t> shape = {3, 5, 40};
  aclDataType dt = ACL_FLOAT16;
  bool per_tensor = false, zero_points = true, second = true, beta = true, smooth = true, div_mode = false;
  bool strided = false;  // x (and x2) transposed views, y1 transposed, y2 padded
  bool dynamic = false;  // the quantMode of the rows that take one
  bool additional = true;
  aclDataType offset_dt = ACL_INT32;
};

Dev make(const std::vector<int64_t> &shape, aclDataType dt, double lo, double hi) {
  auto t = std::make_unique<DeviceTensor>(shape, dt);
  t->fill_random(lo, hi);
  return t;
}
Dev make_out(const std::vector<int64_t> &shape, aclDataType dt) {
  auto t = std::make_unique<DeviceTensor>(shape, dt);
  t->poison();
  return t;
}

Call build(const NormQuantTableCase &c, const Options &o) {
  Call k;
  std::vector<int64_t> sh = o.shape;
  if (c.has("mod_scale") && sh.size() < 2) sh.insert(sh.begin(), 1);  // [B..., S, H]
  k.n = sh.back();
  k.rows = numel_of(sh) / std::max<int64_t>(k.n, 1);
  std::vector<int64_t> row_shape(sh.begin(), sh.end() - 1);
  const std::vector<int64_t> pshape = {k.n}, one = {1};
  NormQuantArgs &a = k.args;
  k.dynamic = c.dynamic || (c.by_attr && o.dynamic);
  a.quant_mode = k.dynamic ? 1 : 0;
  a.quant_mode_name = k.dynamic ? "dynamic" : "static";
  a.additional_output = o.additional;
  if (o.strided) {
    k.x = transposed_view(sh, o.dt);
    k.x->fill_random(-2, 2);
  } else {
    k.x = make(sh, o.dt, -2, 2);
  }
  a.x = *k.x;
  if (c.has("x2")) {
    k.x2 = o.strided ? transposed_view(sh, o.dt) : make(sh, o.dt, -2, 2);
    k.x2->fill_random(-2, 2);
    a.x2 = *k.x2;
  }
  if (o.beta || c.required("gamma")) {
    k.gamma = make(pshape, o.dt, 0.5, 1.5);
    a.gamma = *k.gamma;
  }
  if (c.has("mod_scale")) {  // [B..., 1, H] or [B..., H]
    std::vector<int64_t> ms(sh.begin(), sh.end() - 2);
    if (o.beta) ms.push_back(1);
    ms.push_back(k.n);
    k.mod_scale = make(ms, o.dt, -0.5, 0.5);
    k.mod_shift = make(ms, o.dt, -0.5, 0.5);
    a.mod_scale = *k.mod_scale;
    a.mod_shift = *k.mod_shift;
  }
  if (c.has("beta") && (o.beta || c.required("beta"))) {
    k.beta = make(pshape, o.dt, -0.5, 0.5);
    a.beta = *k.beta;
  }
  if (c.has("bias") && o.beta) {
    k.bias = make(pshape, o.dt, -0.5, 0.5);
    a.bias = *k.bias;
  }
  a.div_mode = o.div_mode && c.has("div_mode");
  k.divide = !k.dynamic && (a.div_mode || c.divides);
  for (int q = 0; q < 2; ++q) {
    const std::string sfx = q == 0 ? "1" : "2";
    if (q == 1 && !o.second) break;
    if (c.has(("scale" + sfx).c_str()) && k.dynamic) {  // quantMode dynamic: the smooth scales
      k.smooth[q] = make(pshape, o.dt, 0.5, 2.0);
      (q == 0 ? a.scale1 : a.scale2) = *k.smooth[q];
    } else if (c.has(("scale" + sfx).c_str())) {
      // y * s spans past the int8 range (saturation) for the multiplying form, y / s likewise.
      k.scale[q] = make(o.per_tensor ? one : pshape, ACL_FLOAT, 20, 60);
      if (k.divide) {
        std::vector<double> v = k.scale[q]->values();
        for (double &e : v) e = 1.0 / e;
        k.scale[q]->set_values(v);
      }
      (q == 0 ? a.scale1 : a.scale2) = *k.scale[q];
    }
    if (c.has(("offset" + sfx).c_str()) && (o.zero_points || c.required(("offset" + sfx).c_str()))) {
      k.offset[q] = make(o.per_tensor ? one : pshape, o.offset_dt, -5, 5);
      (q == 0 ? a.offset1 : a.offset2) = *k.offset[q];
    }
    if (c.has(("smooth" + sfx).c_str()) && o.smooth) {
      k.smooth[q] = make(pshape, o.dt, 0.5, 2.0);
      (q == 0 ? a.smooth1 : a.smooth2) = *k.smooth[q];
    }
  }
  for (int q = 0; q < 2; ++q) {
    if (!c.has(q == 0 ? "y1" : "y2")) continue;
    if (o.strided) {  // y1 strided along its last dim, y2 with padded rows
      k.y[q] = q == 0 ? transposed_view(sh, ACL_INT8) : padded_view(sh, ACL_INT8);
      k.y[q]->poison();
    } else {
      k.y[q] = make_out(sh, ACL_INT8);
    }
    (q == 0 ? a.y1 : a.y2) = *k.y[q];
    if (c.has(q == 0 ? "scale_out1" : "scale_out2")) {
      k.scale_out[q] = make_out(row_shape, ACL_FLOAT);
      (q == 0 ? a.scale_out1 : a.scale_out2) = *k.scale_out[q];
    }
  }
  if (c.has("xsum")) {
    k.xsum = make_out(sh, o.dt);
    a.xsum = *k.xsum;
  }
  if (c.has("norm_out")) {
    k.norm_out = make_out(sh, o.dt);
    a.norm_out = *k.norm_out;
  }
  if (c.has("rstd")) {
    std::vector<int64_t> rs = sh;
    rs.back() = 1;
    k.rstd = make_out(rs, ACL_FLOAT);
    a.rstd = *k.rstd;
  }
  return k;
}

int run(const NormQuantTableCase &c, const NormQuantArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// Which quantised outputs the call writes (ops/norm/norm_quant_phase1.h).
bool writes(const NormQuantTableCase &c, const Call &k, int q) {
  if (q == 0) return true;
  if (!c.has("y2")) return false;
  return k.dynamic ? k.smooth[1] != nullptr : k.scale[1] != nullptr;
}

// An output nobody wrote: DeviceTensor::poison's bytes (0xFF: INT8 -1, a FLOAT NaN) everywhere.
bool still_poisoned(const DeviceTensor &t) {
  for (double v : t.values())
    if (t.dtype() == ACL_INT8 ? v != -1.0 : !std::isnan(v)) return false;
  return true;
}

// The float64 reference as an output of `like`'s dtype stores it: y = norm + beta may cancel to a
// FLOAT16 subnormal, whose spacing alone exceeds precision.md's relative bound.
std::vector<double> as_stored(const DeviceTensor &like, const std::vector<double> &golden) {
  DeviceTensor t(like.shape(), like.dtype());
  t.set_values(golden);
  return t.values();
}

void check_call(const NormQuantTableCase &c, const Call &k, double tie_tol) {
  const Expected e = reference(c, k);
  for (int q = 0; q < 2; ++q) {
    if (!k.y[q]) continue;
    if (!writes(c, k, q)) {  // left alone: still the poison pattern
      EXPECT_TRUE(still_poisoned(*k.y[q])) << "y" << q + 1;
      if (k.scale_out[q]) EXPECT_TRUE(still_poisoned(*k.scale_out[q])) << "scale" << q + 1;
      continue;
    }
    EXPECT_TRUE(ints_match(k.y[q]->values(), e.t[q], tie_tol)) << "y" << q + 1;
    EXPECT_TRUE(k.y[q]->untouched_outside_view());
    if (k.dynamic) EXPECT_TRUE(meets_precision(ACL_FLOAT, k.scale_out[q]->values(), e.scale[q])) << "scale" << q + 1;
    else if (k.scale_out[q]) EXPECT_TRUE(still_poisoned(*k.scale_out[q])) << "static: scale" << q + 1 << " untouched";
  }
  if (k.xsum && c.has("additional_output") && !k.args.additional_output)
    EXPECT_TRUE(still_poisoned(*k.xsum)) << "xOut (additionalOutput false)";
  else if (k.xsum)
    EXPECT_TRUE(meets_precision(k.xsum->dtype(), k.xsum->values(), as_stored(*k.xsum, e.xsum))) << "xOut";
  if (k.norm_out)
    EXPECT_TRUE(meets_precision(k.norm_out->dtype(), k.norm_out->values(), as_stored(*k.norm_out, e.norm_out)))
        << "normOut";
  if (k.rstd) EXPECT_TRUE(meets_precision(ACL_FLOAT, k.rstd->values(), e.rstd)) << "rstd";
}

class NormQuantTable : public ::testing::TestWithParam<NormQuantTableCase> {};

TEST_P(NormQuantTable, RandomDataEveryDtypeAgainstFloat64) {
  const NormQuantTableCase &c = GetParam();
  int variant = 0;
  for (aclDataType dt : c.dtypes) {
    for (const std::vector<int64_t> &shape : {std::vector<int64_t>{3, 5, 40}, std::vector<int64_t>{7, 131},
                                              std::vector<int64_t>{1, 16}, std::vector<int64_t>{33},
                                              std::vector<int64_t>{2, 2, 96}, std::vector<int64_t>{5, 7}}) {
      Options o;
      o.dynamic = variant % 2 == 1;
      o.additional = variant % 5 != 4;
      o.dt = dt;
      o.shape = shape;
      o.per_tensor = variant % 2 == 1;
      o.zero_points = variant % 3 != 2;
      o.second = variant % 4 != 3;
      o.beta = variant % 2 == 0;
      o.smooth = variant % 3 != 1;
      o.div_mode = variant % 2 == 0;
      o.offset_dt = variant % 2 ? ACL_FLOAT : ACL_INT32;
      ++variant;
      SCOPED_TRACE(c.name + " " + std::to_string(variant));
      Call k = build(c, o);
      ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
      check_call(c, k, 2e-3);
    }
  }
}

TEST_P(NormQuantTable, ManyRowsAcrossBlocksAndTasks) {
  const NormQuantTableCase &c = GetParam();
  Options o;
  o.shape = {300, 1000};  // several 128 KiB blocks per task
  o.dt = c.dtypes[0];
  o.beta = false;
  Call k = build(c, o);
  // |x - mean| >= ~0.9 (x = +-(1 + u)) and no beta: among 300k results none cancels to within fp32's
  // rounding of 0, where precision.md's relative bound cannot hold for the FLOAT16 norm output.
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> xv(static_cast<size_t>(k.x->numel()));
  for (double &v : xv) v = (u(rng()) < 0.5 ? -1 : 1) * (1 + u(rng()));
  k.x->set_values(xv);
  if (k.x2) k.x2->set_values(std::vector<double>(xv.size(), 0.0));
  ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
  check_call(c, k, 2e-3);
}

TEST_P(NormQuantTable, NonContiguousInputsAndOutput) {
  const NormQuantTableCase &c = GetParam();
  for (bool per_tensor : {false, true}) {
    Options o;
    o.shape = {4, 3, 24};
    o.dt = c.dtypes.back();
    o.strided = true;
    o.per_tensor = per_tensor;
    Call k = build(c, o);
    ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
    check_call(c, k, 2e-3);
  }
}

// eps 0 and x = +-1 (x2 = 0, as many of each sign): mean 0 and rstd exactly 1, y = +-gamma (+ beta), and the quantiser's argument
// is a constructed multiple of 1/2, so every tie must round to even.
TEST_P(NormQuantTable, ConstructedTiesRoundHalfToEven) {
  const NormQuantTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
  for (bool dyn : {false, true}) {
    if (dyn && !c.by_attr) continue;
    Options o;
    o.dynamic = dyn;
    o.dt = dt;
    o.shape = {4, 16};
    o.per_tensor = true;
    o.zero_points = false;
    o.div_mode = true;
    Call k = build(c, o);
    k.args.eps = 0.0;
    const int64_t n = k.n;
    std::vector<double> xv(static_cast<size_t>(k.rows * n));
    // Each row: eight +1 and eight -1 (j * 5 mod 16 permutes the row), so its mean is 0 as well.
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = (i % 16) * 5 % 16 < 8 ? 1.0 : -1.0;
    k.x->set_values(xv);
    if (k.x2) k.x2->set_values(std::vector<double>(xv.size(), 0.0));
    std::vector<double> g(static_cast<size_t>(n)), zero(static_cast<size_t>(n), 0.0);
    if (k.bias) k.bias->set_values(std::vector<double>(static_cast<size_t>(n), 0.0));
    if (k.mod_scale) {  // no modulation: y stays +-gamma
      k.mod_scale->set_values(std::vector<double>(static_cast<size_t>(k.mod_scale->numel()), 0.0));
      k.mod_shift->set_values(std::vector<double>(static_cast<size_t>(k.mod_shift->numel()), 0.0));
    }
    if (k.dynamic) {
      // max |y| = 508, scale = 4: y / 4 = 2.5, 1.5, -3.5, 0.5, 4.5, ... (and exact integers).
      const double pick[] = {508, 10, 6, -14, 2, 18, 22, 4, -2, 26, 30, -6, 12, 42, -50, 3};
      for (int64_t j = 0; j < n; ++j) g[j] = pick[j % 16];
      if (k.smooth[0]) k.smooth[0]->set_values(std::vector<double>(static_cast<size_t>(n), 1.0));
      if (k.smooth[1]) k.smooth[1]->set_values(std::vector<double>(static_cast<size_t>(n), 0.5));
    } else {
      for (int64_t j = 0; j < n; ++j) g[j] = (static_cast<double>(j) - 8.0) * 0.5 + 0.25;  // quarters
      for (int q = 0; q < 2; ++q) {
        if (!k.scale[q]) continue;
        // divMode: y / 0.5; V1 RmsNormQuant multiplies: y * 2. Both give the halves 2y.
        k.scale[q]->set_values({k.divide ? 0.5 : 2.0});
      }
    }
    k.gamma->set_values(g);
    if (k.beta) k.beta->set_values(zero);
    ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
    const Expected e = reference(c, k);
    int ties = 0;
    for (double t : e.t[0]) ties += std::fabs(t - std::floor(t) - 0.5) == 0.0 ? 1 : 0;
    EXPECT_GT(ties, 8) << "the test must construct ties";
    check_call(c, k, 0.0);
  }
}

TEST_P(NormQuantTable, ZeroRowsAndEmptyRows) {
  const NormQuantTableCase &c = GetParam();
  {
    Options o;
    o.shape = {0, 8};
    o.dt = c.dtypes[0];
    Call k = build(c, o);
    EXPECT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  Options o;
  o.shape = {3, 0};
  o.dt = c.dtypes[0];
  Call k = build(c, o);
  EXPECT_TRUE(fails_with(run(c, k.args), ACLNN_ERR_PARAM_INVALID, {"empty rows"}));
}

// A dynamic row of zeros: scale 0 and y 0 (no NaN).
TEST_P(NormQuantTable, DynamicZeroRowGivesZeroScale) {
  const NormQuantTableCase &c = GetParam();
  if (!c.dynamic && !c.by_attr) return;
  Options o;
  o.dynamic = true;
  o.shape = {2, 32};
  o.dt = c.dtypes[0];
  Call k = build(c, o);
  k.gamma->set_values(std::vector<double>(32, 0.0));
  if (k.beta) k.beta->set_values(std::vector<double>(32, 0.0));
  if (k.mod_shift) k.mod_shift->set_values(std::vector<double>(static_cast<size_t>(k.mod_shift->numel()), 0.0));
  ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (double v : k.y[0]->values()) EXPECT_EQ(v, 0.0);
  for (double v : k.scale_out[0]->values()) EXPECT_EQ(v, 0.0);
}

// dstType 35 / 36 (RmsNormDynamicQuant): scale = max|in| / FP8_MAX and yOut the FLOAT8 codes of in / scale (half to
// even, saturating), against low_float_ref.h's encoder: exact except within 1e-5 (relative) of a rounding boundary.
TEST_P(NormQuantTable, DynamicFloat8Outputs) {
  const NormQuantTableCase &c = GetParam();
  if (!c.has("dst_type")) return;
  for (aclDataType dt : c.dtypes)
    for (aclDataType dst : {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN})
      for (bool strided : {false, true}) {
        Options o;
        o.dt = dt;
        o.strided = strided;
        o.shape = {3, 5, 40};
        Call k = build(c, o);
        const lfref::Fmt f = lfref::fmt_of(dst);
        k.qmax = lfref::max_finite(f);
        k.y[0] = make_out(o.shape, dst);  // contiguous: its codes read in place
        k.args.y1 = *k.y[0];
        k.args.dst_type = dst;
        ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
        const Expected e = reference(c, k);
        EXPECT_TRUE(meets_precision(ACL_FLOAT, k.scale_out[0]->values(), e.scale[0])) << "scaleOut";
        const std::vector<int> got = mxref::codes_of(*k.y[0]);
        ASSERT_EQ(got.size(), e.t[0].size());
        for (size_t i = 0; i < got.size(); ++i) {
          const double t = e.t[0][i];
          const int want = lfref::encode(f, t, lfref::kRint);
          if (got[i] == want || got[i] == lfref::encode(f, t * (1 + 1e-5), lfref::kRint) ||
              got[i] == lfref::encode(f, t * (1 - 1e-5), lfref::kRint))
            continue;
          ADD_FAILURE() << "dstType " << dst << " element " << i << ": code " << got[i] << ", want " << want
                        << " (in / scale " << t << ")";
          break;
        }
        if (dst == ACL_FLOAT8_E4M3FN) {  // the row maxima reach +-448 (code 0x7E / 0xFE) exactly once a row at least
          int at_max = 0;
          for (int v : got) at_max += (v & 0x7F) == 0x7E;
          EXPECT_GE(at_max, static_cast<int>(k.rows));
        }
      }
  Options o;  // HIFLOAT8 has no codec: refused naming dstType
  o.shape = {2, 8};
  o.dt = c.dtypes[0];
  Call k = build(c, o);
  DeviceTensor y8({2, 8}, ACL_FLOAT8_E4M3FN);
  k.args.y1 = y8;
  k.args.dst_type = 34;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(k.args, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"dstType", "HIFLOAT8"}));
  k.args.dst_type = 35;  // FLOAT8_E5M2 asked, an E4M3FN yOut given
  EXPECT_TRUE(fails_with(c.phase1(k.args, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"yOut", "FLOAT8_E5M2"}));
}

TEST_P(NormQuantTable, ErrorsNameTheirArgument) {
  const NormQuantTableCase &c = GetParam();
  Options o;
  o.shape = {2, 3, 8};
  o.dt = c.dtypes[0];
  Call k = build(c, o);
  const NormQuantArgs &a = k.args;
  const std::string xn = c.name_of("x"), gn = c.name_of("gamma"), yn = c.name_of("y1");
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.x = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {xn.c_str()}));
  if (c.required("gamma"))
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.gamma = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {gn.c_str()}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.y1 = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {yn.c_str()}));
  DeviceTensor xi({2, 3, 8}, ACL_INT32), yf({2, 3, 8}, ACL_FLOAT), y_short({2, 3, 7}, ACL_INT8);
  DeviceTensor g_bad({7}, o.dt), g_2d({2, 8}, o.dt), g_int({8}, ACL_INT32), s_bad({3}, ACL_FLOAT);
  DeviceTensor s_int({8}, ACL_INT32), x_other({2, 3, 8}, o.dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT);
  DeviceTensor x2_short({2, 8}, o.dt), so_bad({2, 4}, ACL_FLOAT), so_dt({2, 3}, ACL_FLOAT16);
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x = xi; }, ACLNN_ERR_PARAM_INVALID, {xn.c_str(), "INT32"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = yf; }, ACLNN_ERR_PARAM_INVALID, {yn.c_str(), "INT8"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = y_short; }, ACLNN_ERR_PARAM_INVALID, {yn.c_str()}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.gamma = g_bad; }, ACLNN_ERR_PARAM_INVALID, {gn.c_str()}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.gamma = g_2d; }, ACLNN_ERR_PARAM_INVALID, {gn.c_str()}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.gamma = g_int; }, ACLNN_ERR_PARAM_INVALID, {gn.c_str()}));
  if (c.has("x2")) {
    const std::string x2n = c.name_of("x2");
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x2 = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {x2n.c_str()}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x2 = x2_short; }, ACLNN_ERR_PARAM_INVALID, {x2n.c_str()}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x2 = x_other; }, ACLNN_ERR_PARAM_INVALID, {x2n.c_str()}));
  }
  if (c.has("xsum")) {
    const std::string n = c.name_of("xsum");
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.xsum = x_other; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.xsum = m.x; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
  }
  if (c.has("scale1")) {
    const std::string n = c.name_of("scale1");
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.scale1 = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {n.c_str()}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.scale1 = s_bad; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.scale1 = s_int; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
  }
  if (c.has("offset1") && a.offset1 != nullptr) {
    const std::string n = c.name_of("offset1");
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.offset1 = s_bad; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
  }
  if (c.has("smooth1")) {
    const std::string n = c.name_of("smooth1");
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.smooth1 = g_bad; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
  }
  if (c.has("smooth2") && !c.has("output_mask")) {
    const std::string n = c.name_of("smooth2");
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.smooth1 = nullptr; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
  }
  if (c.has("quant_mode"))
    for (int bad : {2, -1})
      EXPECT_TRUE(rejects(c, a, [bad](NormQuantArgs &m) { m.quant_mode = bad; }, ACLNN_ERR_PARAM_INVALID, {"quantMode"}));
  if (c.has("quant_mode_name")) {
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.quant_mode_name = "pertoken"; }, ACLNN_ERR_PARAM_INVALID,
                        {"quantMode"}));
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.quant_mode_name = nullptr; }, ACLNN_ERR_PARAM_NULLPTR,
                        {"quantMode"}));
  }
  if (c.has("mod_scale")) {
    DeviceTensor m_bad({3, 8}, o.dt), m_dt({2, 8}, o.dt == ACL_FLOAT ? ACL_FLOAT16 : ACL_FLOAT);
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.mod_scale = m_bad; }, ACLNN_ERR_PARAM_INVALID, {"scale"}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.mod_shift = m_bad; }, ACLNN_ERR_PARAM_INVALID, {"shift"}));
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.mod_shift = m_dt; }, ACLNN_ERR_PARAM_INVALID, {"shift"}));
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.mod_scale = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"scale"}));
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.quant_mode_name = "static"; }, ACLNN_ERR_PARAM_INVALID,
                        {"quantMode"}));
  }
  if (c.has("bias")) {
    const std::string n = c.name_of("bias");
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.bias = g_bad; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
  }
  if (c.has("scale_out1") && (c.dynamic || c.by_attr)) {
    const std::string n = c.name_of("scale_out1");
    NormQuantArgs dyn = a;  // the dynamic mode writes the scales
    dyn.quant_mode = 1;
    dyn.quant_mode_name = "dynamic";
    EXPECT_TRUE(rejects(c, dyn, [](NormQuantArgs &m) { m.scale_out1 = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {n.c_str()}));
    EXPECT_TRUE(rejects(c, dyn, [&](NormQuantArgs &m) { m.scale_out1 = so_bad; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
    EXPECT_TRUE(rejects(c, dyn, [&](NormQuantArgs &m) { m.scale_out1 = so_dt; }, ACLNN_ERR_PARAM_INVALID, {n.c_str()}));
    if (c.by_attr) {  // the static mode leaves the scales alone: null is fine
      NormQuantArgs st = a;
      st.scale_out1 = st.scale_out2 = nullptr;
      EXPECT_EQ(run(c, st), ACL_SUCCESS) << aclGetRecentErrMsg();
    }
  }
  if (c.has("dst_type")) {  // (35 / 36 are FLOAT8 outputs: refused here for the INT8 yOut, naming dstType)
    for (int64_t d : {34, 35, 36, 3, 29})
      EXPECT_TRUE(rejects(c, a, [d](NormQuantArgs &m) { m.dst_type = d; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  }
  if (c.has("axis"))
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.axis = 0; }, ACLNN_ERR_PARAM_INVALID, {"axis"}));
  if (c.has("rstd")) {
    DeviceTensor r_bad({2, 3, 8}, ACL_FLOAT);
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.rstd = r_bad; }, ACLNN_ERR_PARAM_INVALID, {"rstd"}));
    EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.rstd = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"rstd"}));
    NormQuantArgs off = a;  // outputRstd false: rstd may be null
    off.output_rstd = false;
    off.rstd = nullptr;
    EXPECT_EQ(run(c, off), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  if (c.has("output_mask")) {
    const bool three[3] = {true, true, true};
    std::unique_ptr<aclBoolArray, void (*)(aclBoolArray *)> m3(
        aclCreateBoolArray(three, 3), [](aclBoolArray *p) { aclDestroyBoolArray(p); });
    EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.output_mask = m3.get(); }, ACLNN_ERR_PARAM_INVALID,
                        {"outputMask"}));
  }
}

// V2's outputMask decides which quantised outputs (and scales) are written.
TEST_P(NormQuantTable, OutputMaskChoosesTheOutputs) {
  const NormQuantTableCase &c = GetParam();
  if (!c.has("output_mask")) return;
  for (int m = 0; m < 4; ++m) {
    const bool mask[2] = {(m & 1) != 0, (m & 2) != 0};
    std::unique_ptr<aclBoolArray, void (*)(aclBoolArray *)> arr(
        aclCreateBoolArray(mask, 2), [](aclBoolArray *p) { aclDestroyBoolArray(p); });
    Options o;
    o.shape = {5, 48};
    o.dt = c.dtypes[0];
    o.smooth = m != 3;  // the last: both outputs without smooth scales
    Call k = build(c, o);
    k.args.output_mask = arr.get();
    ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
    const Expected e = reference(c, k);
    for (int q = 0; q < 2; ++q) {
      SCOPED_TRACE("mask " + std::to_string(m) + " output " + std::to_string(q));
      if (mask[q]) {
        EXPECT_TRUE(ints_match(k.y[q]->values(), e.t[q], 2e-3));
        EXPECT_TRUE(meets_precision(ACL_FLOAT, k.scale_out[q]->values(), e.scale[q]));
      } else {
        EXPECT_TRUE(still_poisoned(*k.y[q]));
        EXPECT_TRUE(still_poisoned(*k.scale_out[q]));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, NormQuantTable, ::testing::ValuesIn(cases_where(false)),
                         [](const auto &info) { return info.param.name; });

// ---- group norm rows (GroupNormSiluQuant): rows are (sample, group) of C / group channels x the
// spatial positions; gamma / beta / quantScale per channel.

struct GroupCall {
  Dev x, gamma, beta, scale, out, mean, rstd;
  NormQuantArgs args;
};

GroupCall build_group(const std::vector<int64_t> &shape, aclDataType dt, int64_t group, bool per_channel,
                      bool strided_x) {
  GroupCall k;
  const std::vector<int64_t> cshape = {shape[1]};
  if (strided_x) {
    k.x = transposed_view(shape, dt);
    k.x->fill_random(-2, 2);
  } else {
    k.x = make(shape, dt, -2, 2);
  }
  k.gamma = make(cshape, dt, 0.5, 1.5);
  k.beta = make(cshape, dt, -0.5, 0.5);
  k.scale = make(per_channel ? cshape : std::vector<int64_t>{1}, ACL_FLOAT, 1.0 / 60, 1.0 / 20);
  k.out = make_out(shape, ACL_INT8);
  k.mean = make_out({shape[0], group}, ACL_FLOAT);
  k.rstd = make_out({shape[0], group}, dt);
  NormQuantArgs &a = k.args;
  a.x = *k.x;
  a.gamma = *k.gamma;
  a.beta = *k.beta;
  a.scale1 = *k.scale;
  a.y1 = *k.out;
  a.mean = *k.mean;
  a.rstd = *k.rstd;
  a.group = group;
  a.eps = 1e-5;
  return k;
}

struct GroupExpected {
  std::vector<double> t, mean, rstd;  // t: the quantiser's argument, row-major like x
};

GroupExpected group_reference(const GroupCall &k) {
  const std::vector<int64_t> &sh = k.x->shape();
  const int64_t nb = sh[0], ch = sh[1], hw = numel_of(sh) / (nb * ch), g = k.args.group, cg = ch / g;
  const std::vector<double> xv = k.x->values(), gm = k.gamma->values(), bt = k.beta->values();
  const std::vector<double> sc = param_row(k.scale.get(), ch, 1.0);
  GroupExpected e;
  e.t.resize(xv.size());
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t gi = 0; gi < g; ++gi) {
      const int64_t base = (b * ch + gi * cg) * hw, len = cg * hw;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < len; ++i) mean += xv[base + i];
      mean /= len;
      for (int64_t i = 0; i < len; ++i) var += (xv[base + i] - mean) * (xv[base + i] - mean);
      const double rstd = 1 / std::sqrt(var / len + k.args.eps);
      e.mean.push_back(mean);
      e.rstd.push_back(rstd);
      for (int64_t i = 0; i < len; ++i) {
        const int64_t c = gi * cg + i / hw;
        double y = (xv[base + i] - mean) * rstd * gm[c] + bt[c];
        if (k.args.activate) y = y / (1 + std::exp(-y));
        e.t[base + i] = y / sc[c];
      }
    }
  return e;
}

void check_group(const GroupCall &k, double tie_tol) {
  const GroupExpected e = group_reference(k);
  EXPECT_TRUE(ints_match(k.out->values(), e.t, tie_tol)) << "out";
  EXPECT_TRUE(meets_precision(ACL_FLOAT, k.mean->values(), e.mean)) << "meanOut";
  EXPECT_TRUE(meets_precision(k.rstd->dtype(), k.rstd->values(), as_stored(*k.rstd, e.rstd))) << "rstdOut";
}

class NormQuantGroupTable : public ::testing::TestWithParam<NormQuantTableCase> {};

TEST_P(NormQuantGroupTable, RandomDataEveryDtypeAgainstFloat64) {
  const NormQuantTableCase &c = GetParam();
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (const auto &[shape, group] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{2, 4, 3, 5}, 2}, {{3, 6, 7}, 3}, {{2, 8}, 4}, {{1, 6, 2, 2, 3}, 1}, {{2, 32, 16, 16}, 8}}) {
      SCOPED_TRACE(c.name + " " + std::to_string(variant));
      GroupCall k = build_group(shape, dt, group, variant % 2 == 0, false);
      k.args.activate = variant % 3 != 2;
      ++variant;
      ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
      check_group(k, 2e-3);
    }
}

TEST_P(NormQuantGroupTable, NonContiguousSelf) {
  const NormQuantTableCase &c = GetParam();
  GroupCall k = build_group({3, 4, 5, 6}, c.dtypes[0], 2, true, true);
  ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
  check_group(k, 2e-3);
}

// eps 0, each group +-1 in equal numbers: mean 0, rstd 1, y = +-gamma; quarters / 0.5 are ties.
TEST_P(NormQuantGroupTable, ConstructedTiesRoundHalfToEven) {
  const NormQuantTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes) {
    GroupCall k = build_group({2, 4, 2, 4}, dt, 2, false, false);
    k.args.eps = 0.0;
    k.args.activate = false;
    std::vector<double> xv(static_cast<size_t>(k.x->numel()));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = (i % 16) * 5 % 16 < 8 ? 1.0 : -1.0;  // 16 per group
    k.x->set_values(xv);
    k.gamma->set_values({0.25, 1.25, -2.75, 3.25});
    k.beta->set_values({0.0, 0.0, 0.0, 0.0});
    k.scale->set_values({0.5});
    ASSERT_EQ(run(c, k.args), ACL_SUCCESS) << aclGetRecentErrMsg();
    const GroupExpected e = group_reference(k);
    int ties = 0;
    for (double t : e.t) ties += std::fabs(t - std::floor(t) - 0.5) == 0.0 ? 1 : 0;
    EXPECT_EQ(ties, static_cast<int>(e.t.size()));
    check_group(k, 0.0);
  }
}

TEST_P(NormQuantGroupTable, ErrorsNameTheirArgument) {
  const NormQuantTableCase &c = GetParam();
  const aclDataType dt = c.dtypes[0];
  GroupCall k = build_group({2, 4, 3, 3}, dt, 2, true, false);
  const NormQuantArgs &a = k.args;
  DeviceTensor c5({5}, dt), s3({3}, ACL_FLOAT), s_int({4}, ACL_INT32), of({2, 4, 3, 3}, ACL_FLOAT);
  DeviceTensor m_bad({2, 4}, ACL_FLOAT), x1({8}, dt), xi({2, 4, 3, 3}, ACL_INT32);
  auto out_padded = padded_view({2, 4, 3, 3}, ACL_INT8);
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.x = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"self"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.gamma = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"gamma"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.scale1 = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"quantScale"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.y1 = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.mean = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"meanOut"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.rstd = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"rstdOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x = xi; }, ACLNN_ERR_PARAM_INVALID, {"self", "INT32"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.x = x1; }, ACLNN_ERR_PARAM_INVALID, {"self"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.group = 3; }, ACLNN_ERR_PARAM_INVALID, {"group"}));
  EXPECT_TRUE(rejects(c, a, [](NormQuantArgs &m) { m.group = 0; }, ACLNN_ERR_PARAM_INVALID, {"group"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.gamma = c5; }, ACLNN_ERR_PARAM_INVALID, {"gamma"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.beta = c5; }, ACLNN_ERR_PARAM_INVALID, {"beta"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.scale1 = s3; }, ACLNN_ERR_PARAM_INVALID, {"quantScale"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.scale1 = s_int; }, ACLNN_ERR_PARAM_INVALID, {"quantScale"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = of; }, ACLNN_ERR_PARAM_INVALID, {"out", "INT8"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.y1 = *out_padded; }, ACLNN_ERR_PARAM_INVALID, {"out"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.mean = m_bad; }, ACLNN_ERR_PARAM_INVALID, {"meanOut"}));
  EXPECT_TRUE(rejects(c, a, [&](NormQuantArgs &m) { m.rstd = m_bad; }, ACLNN_ERR_PARAM_INVALID, {"rstdOut"}));
}

INSTANTIATE_TEST_SUITE_P(Ops, NormQuantGroupTable, ::testing::ValuesIn(cases_where(true)),
                         [](const auto &info) { return info.param.name; });

}  // namespace
}  // namespace opsnn::test

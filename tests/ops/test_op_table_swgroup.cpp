// The test harness of the grouped SwiGLU table (src/ops/activation/swiglu_group.ops), cases registered from
// the table by tools/gen_ops.py --tests (swgroup_table_cases.inc). Against float64 references written here
// from the documented formulas (A | B halves of x's last dim, clamp, silu, per-row weight, group counts):
//   - every dtype, random shapes of 1-4 dims (halves across the kernel's 256-element chunks too), with and
//     without weight / group index / clamp / weight gradient, contiguous and padded + offset views; rows
//     past sum(groupIndex) are +0; nothing written outside the views;
//   - a negative group count fails the launch; the errors of phase 1, each naming its argument.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "low_float_ref.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct SwgroupArgs {
  aclTensor *x = nullptr, *weight = nullptr, *group = nullptr, *out = nullptr, *dy = nullptr, *y_origin = nullptr,
            *dx = nullptr, *dweight = nullptr;
  double clamp_limit = -1.0;
  // SwigluGroupQuant
  aclTensor *scale = nullptr, *y_scale = nullptr, *origin_out = nullptr;
  int64_t dst_type = 2, quant_mode = 0, block_size = 0;
  bool round_scale = false, output_origin = true;
  double dst_type_max = 0.0;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct SwgroupTableCase {
  std::string name, api;
  std::vector<aclDataType> dtypes;
  int (*phase1)(const SwgroupArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool backward() const { return api.find("Grad") != std::string::npos; }
  bool quant() const { return api == "aclnnSwigluGroupQuant"; }
};
void PrintTo(const SwgroupTableCase &c, std::ostream *os) { *os << c.name; }

#include "swgroup_table_cases.inc"

const std::vector<SwgroupTableCase> &all_cases() {
  static const std::vector<SwgroupTableCase> c = harness::sampled(swgroup_table_cases());
  return c;
}
// The rows with (SwigluGroupQuant) or without quantisation.
std::vector<SwgroupTableCase> cases(bool quant) {
  std::vector<SwgroupTableCase> v;
  for (const auto &c : all_cases())
    if (c.quant() == quant) v.push_back(c);
  return v;
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

// ---- SwigluGroupQuant (quantMode 0, INT8): v = silu(A') * B' * w, per row and block of 128 a = max(max |v|
// over the finite v, 1e-4), scale = a / 127 (roundScale: 2^ceil(log2)), y = round half to even of v / scale
// (a non-finite quotient quantises v), saturated; yOrigin = silu(A') * B' when outputOrigin; rows past
// sum(groupIndex) give 0. Scales within 1e-5 (fp32 against float64), y exact except within 1e-3 of a tie.

class OpTableSwgroupQuant : public ::testing::TestWithParam<SwgroupTableCase> {};

// k's bits: 1 weight, 2 group index, 4 clamp, 8 padded views, 16 roundScale, 32 outputOrigin, 64 an inf in B.
TEST_P(OpTableSwgroupQuant, EveryDtypeShapeAndOptionalAgainstFloat64) {
  reseed_for_current_test();
  const SwgroupTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (int k = 0; k < 128; k += 1 + static_cast<int>(g() % 3)) {
      const int64_t dst = k % 3 == 0 ? 2 : k % 3 == 1 ? 35 : 36;  // INT8, FLOAT8_E5M2, FLOAT8_E4M3FN
      const bool fp8 = dst != 2;
      const lfref::Fmt f = lfref::fmt_of(static_cast<aclDataType>(dst));
      SCOPED_TRACE(::testing::Message() << c.name << " dtype " << dt << " k " << k << " dstType " << dst);
      Problem p = make_problem(g, dt, k & 15, false);
      if (p.lead.empty()) p.lead.push_back(1);  // x has 2 to 8 dims
      p.h = 128 * (1 + static_cast<int64_t>(g() % 3));  // the last dim 2h divisible by 256
      std::vector<int64_t> full = p.lead, half = p.lead, scales = p.lead;
      full.push_back(2 * p.h);
      half.push_back(p.h);
      scales.push_back((p.h + 127) / 128);
      const bool padded = k & 8;
      p.x = make(full, dt, padded);
      p.x->fill_random(-4, 4);
      std::vector<double> x = p.x->values();
      if (k & 64) x[static_cast<size_t>(p.h + 3)] = INFINITY;  // row 0's B: v inf (or NaN where silu(A) is 0)
      p.x->set_values(x);
      if (fp8)  // contiguous: its codes read in place
        p.y = std::make_unique<DeviceTensor>(half, static_cast<aclDataType>(dst));
      else
        p.y = k % 5 == 0 ? transposed_view(half, ACL_INT8) : make(half, ACL_INT8, !padded);  // transposed: scalar store
      Dev ys = make(scales, ACL_FLOAT, padded), yo = make(half, dt, !padded);
      p.y->poison();
      ys->poison();
      yo->poison();
      if (p.weight) {  // row 0 weighted by 0: every block of it takes the 1e-4 floor
        std::vector<double> wv = p.weight->values();
        wv[0] = 0.0;
        p.weight->set_values(wv);
      }
      SwgroupArgs a = p.args(false);
      a.y_scale = *ys;
      a.origin_out = *yo;
      a.round_scale = k & 16;
      a.output_origin = k & 32;
      a.block_size = g() % 2 ? 128 : 0;
      a.dst_type = dst;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      const auto w = p.weight ? p.weight->values() : std::vector<double>(static_cast<size_t>(p.rows), 1.0);
      const auto got_s = ys->values(), got_o = yo->values();
      std::vector<double> got_y;
      if (fp8) {
        const auto *codes = static_cast<const uint8_t *>(p.y->data());
        got_y.assign(codes, codes + p.y->numel());
      } else {
        got_y = p.y->values();
      }
      const int64_t nb = (p.h + 127) / 128;
      std::vector<double> want_o(static_cast<size_t>(p.rows * p.h), 0.0);
      for (int64_t r = 0; r < p.rows; ++r)
        for (int64_t b = 0; b < nb; ++b) {
          std::vector<double> v;
          double amax = 0.0;
          for (int64_t j = b * 128; j < std::min(p.h, (b + 1) * 128); ++j) {
            double act = 0.0;
            if (r < p.valid) {
              const double xa = x[static_cast<size_t>(r * 2 * p.h + j)], xb = x[static_cast<size_t>(r * 2 * p.h + p.h + j)];
              const double a1 = p.clamp > 0 ? std::min(xa, p.clamp) : xa;
              const double b1 = p.clamp > 0 ? std::max(-p.clamp, std::min(xb, p.clamp)) : xb;
              act = a1 * sigmoid(a1) * b1;
            }
            want_o[static_cast<size_t>(r * p.h + j)] = round_to(dt, act);
            v.push_back(act * w[static_cast<size_t>(r)]);
            if (std::isfinite(v.back())) amax = std::max(amax, std::fabs(v.back()));
          }
          const size_t si = static_cast<size_t>(r * nb + b);
          if (r >= p.valid) {
            ASSERT_EQ(got_s[si], 0.0) << "yScaleOut of a row past the groups, " << r;
            for (int64_t j = b * 128; j < std::min(p.h, (b + 1) * 128); ++j)
              ASSERT_EQ(got_y[static_cast<size_t>(r * p.h + j)], 0.0) << "yOut past the groups " << r;
            continue;
          }
          const double raw = std::max(amax, 1e-4) / (fp8 ? lfref::max_finite(f) : 127.0);
          double want_s = raw;
          if (a.round_scale) {
            want_s = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(raw))));
            const double lo = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(raw * (1 - 1e-5)))));
            if (got_s[si] == lo) want_s = lo;  // raw within rounding of a power of two
            ASSERT_EQ(got_s[si], want_s) << "yScaleOut " << r << "," << b;
          } else {
            ASSERT_NEAR(got_s[si], want_s, 1e-5 * want_s) << "yScaleOut " << r << "," << b;
          }
          for (size_t i = 0; i < v.size(); ++i) {
            const double t = v[i] / got_s[si], src = std::isfinite(t) ? t : v[i];
            if (fp8) {  // the code of src (saturating; NaN: a NaN code), exact except within 1e-5 of a boundary
              const int gy = static_cast<int>(got_y[static_cast<size_t>(r * p.h + b * 128) + i]);
              if (std::isnan(src)) {
                ASSERT_TRUE(std::isnan(lfref::value(f, gy))) << "yOut " << r << "," << b * 128 + static_cast<int64_t>(i);
              } else if (gy != lfref::encode(f, src, lfref::kRint) &&
                         gy != lfref::encode(f, src * (1 + 1e-5), lfref::kRint) &&
                         gy != lfref::encode(f, src * (1 - 1e-5), lfref::kRint)) {
                ASSERT_EQ(gy, lfref::encode(f, src, lfref::kRint))
                    << "yOut " << r << "," << b * 128 + static_cast<int64_t>(i) << " quotient " << t;
              }
              continue;
            }
            const double want = std::isnan(src) ? 0.0 : std::min(127.0, std::max(-128.0, std::nearbyint(src)));
            const double gy = got_y[static_cast<size_t>(r * p.h + b * 128) + i];
            if (std::isfinite(t) && std::fabs(std::fabs(t - std::trunc(t)) - 0.5) < 1e-3)
              ASSERT_LE(std::fabs(gy - want), 1.0) << "yOut " << r << "," << b * 128 + static_cast<int64_t>(i);
            else
              ASSERT_EQ(gy, want) << "yOut " << r << "," << b * 128 + static_cast<int64_t>(i) << " quotient " << t;
          }
        }
      if (a.output_origin) {
        EXPECT_TRUE(meets_precision(dt, got_o, want_o)) << "yOriginOut";
      } else {
        for (double v : got_o) ASSERT_TRUE(std::isnan(v)) << "yOriginOut written without outputOrigin";
      }
      EXPECT_TRUE(p.y->untouched_outside_view());
      EXPECT_TRUE(ys->untouched_outside_view());
      EXPECT_TRUE(yo->untouched_outside_view());
    }
}

TEST_P(OpTableSwgroupQuant, ErrorsNameTheArgument) {
  const SwgroupTableCase &c = GetParam();
  const char *api = c.api.c_str();
  DeviceTensor x({3, 256}, ACL_FLOAT16), y({3, 128}, ACL_INT8), ys({3, 1}, ACL_FLOAT), yo({3, 128}, ACL_FLOAT16),
      xf({3, 256}, ACL_FLOAT), x1({256}, ACL_FLOAT16),
      x128({3, 128}, ACL_FLOAT16), y64({3, 64}, ACL_INT8), ys64({3, 1}, ACL_FLOAT), yo64({3, 64}, ACL_FLOAT16),
      scale({1}, ACL_FLOAT), y_fp8({3, 128}, ACL_FLOAT8_E4M3FN), y_shape({3, 256}, ACL_INT8), ys_shape({3, 2}, ACL_FLOAT),
      ys16({3, 1}, ACL_FLOAT16), yo_bf({3, 128}, ACL_BF16), w16({3}, ACL_FLOAT16), g32({2}, ACL_INT32);
  SwgroupArgs good;
  good.x = x;
  good.out = y;
  good.y_scale = ys;
  good.origin_out = yo;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto expect = [&](const std::function<void(SwgroupArgs &)> &edit, int code, const char *name, const char *word) {
    SwgroupArgs a = good;
    edit(a);
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), code, {api, name, word})) << name << " " << word;
  };
  const int null = ACLNN_ERR_PARAM_NULLPTR, bad = ACLNN_ERR_PARAM_INVALID;
  expect([](SwgroupArgs &a) { a.x = nullptr; }, null, "x", "");
  expect([](SwgroupArgs &a) { a.out = nullptr; }, null, "yOut", "");
  expect([](SwgroupArgs &a) { a.y_scale = nullptr; }, null, "yScaleOut", "");
  expect([](SwgroupArgs &a) { a.origin_out = nullptr; }, null, "yOriginOut", "");
  expect([&](SwgroupArgs &a) { a.x = xf; }, bad, "x", "dtype");
  expect([&](SwgroupArgs &a) { a.x = x1; }, bad, "x", "2 to 8 dims");
  expect([&](SwgroupArgs &a) { a.x = x128; a.out = y64; a.y_scale = ys64; a.origin_out = yo64; }, bad, "x", "256");
  for (int64_t mode : {1, 2, 3})
    expect([&](SwgroupArgs &a) { a.quant_mode = mode; }, bad, "quantMode", "not supported");
  expect([](SwgroupArgs &a) { a.quant_mode = 4; }, bad, "quantMode", "");
  for (int64_t dst : {35, 36}) expect([&](SwgroupArgs &a) { a.dst_type = dst; }, bad, "yOut", "");  // INT8 yOut
  expect([&](SwgroupArgs &a) { a.dst_type = 34; }, bad, "dstType", "HIFLOAT8");
  for (int64_t dst : {3, 29}) expect([&](SwgroupArgs &a) { a.dst_type = dst; }, bad, "dstType", "");
  for (int64_t bs : {32, 64, 256}) expect([&](SwgroupArgs &a) { a.block_size = bs; }, bad, "blockSize", "");
  expect([&](SwgroupArgs &a) { a.scale = scale; }, bad, "scaleOptional", "null");
  expect([](SwgroupArgs &a) { a.clamp_limit = -2.0; }, bad, "clampLimit", "");
  expect([&](SwgroupArgs &a) { a.weight = w16; }, bad, "weightOptional", "");
  expect([&](SwgroupArgs &a) { a.group = g32; }, bad, "groupIndexOptional", "INT64");
  expect([&](SwgroupArgs &a) { a.out = y_fp8; }, bad, "yOut", "dtype");
  expect([&](SwgroupArgs &a) { a.out = y_shape; }, bad, "yOut", "shape");
  expect([&](SwgroupArgs &a) { a.y_scale = ys_shape; }, bad, "yScaleOut", "shape");
  expect([&](SwgroupArgs &a) { a.y_scale = ys16; }, bad, "yScaleOut", "dtype");
  expect([&](SwgroupArgs &a) { a.origin_out = yo_bf; }, bad, "yOriginOut", "dtype");
  expect([&](SwgroupArgs &a) { a.origin_out = a.out; }, bad, "yOriginOut", "");
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableSwgroup, ::testing::ValuesIn(cases(false)), harness::case_name<SwgroupTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableSwgroupQuant, ::testing::ValuesIn(cases(true)),
                         harness::case_name<SwgroupTableCase>);

}  // namespace
}  // namespace opsnn::test

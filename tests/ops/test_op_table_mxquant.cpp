// The test harness of the MX quantisation table (src/ops/quant/mx_quant.ops), cases registered from the table
// by tools/gen_ops.py --tests (mxquant_table_cases.inc). Against float64 references written here from the
// documented formulas (block max, shared exponent / the scaleAlg 1 and 2 scale roundings, the element codes of
// tests/common/low_float_ref.h, the padded and paired mxscale layout):
//   - DynamicMxQuant(V2, V3): every x dtype, every dstType, scaleAlg, round mode, blocksize 32 / 64 / 96,
//     V2's dstTypeMax, V3's maxLowBound, random shapes of 1-4 dims and every axis, contiguous / padded +
//     offset / transposed x, short last blocks and odd block counts; NaN / inf blocks; empty tensors;
//   - AntiMxQuant: every x format and y dtype, random codes and scales, strided FLOAT8 x and mxscale;
//     DynamicMxQuant then AntiMxQuant gives x back within the format's step;
//   - SwigluMxQuant (every swigluMode, activateDim, axis), SituMxQuant, SwigluMxQuantWithDualAxis: the gate in
//     float64, then the MX rules with the gate known to 2e-5 relative (the kernel computes it in fp32);
//   - every error of phase 1, with its code and the argument it names.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "low_float_ref.h"
#include "mx_scale_ref.h"
#include "op_table_harness.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

struct MxArgs {
  aclTensor *x = nullptr, *scale = nullptr, *group = nullptr, *smooth = nullptr, *y = nullptr, *scale_out = nullptr,
            *y2 = nullptr, *scale2_out = nullptr, *dy = nullptr;
  int64_t axis = -1, dst_type = 36, blocksize = 32, scale_alg = 0, level0_block = 512;
  char *round_mode = nullptr;
  double dst_type_max = 0.0, max_low_bound = 0.0;
  int64_t activate_dim = -1, swiglu_mode = 0, group_mode = 0;  // the gated rows'
  bool activate_left = true;
  double clamp_limit = 7.0, glu_alpha = 1.702, glu_bias = 1.0;
  float beta = 1.0f, linear_beta = 0.0f;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct MxTableCase {
  std::string name, api, kind;  // kind: kQuant, kDual, kAnti
  std::vector<aclDataType> dtypes;
  std::vector<std::string> roles;
  int (*phase1)(const MxArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const char *role) const { return std::find(roles.begin(), roles.end(), role) != roles.end(); }
};
void PrintTo(const MxTableCase &c, std::ostream *os) { *os << c.name; }

#include "mxquant_table_cases.inc"

const std::vector<MxTableCase> &all_cases() {
  static const std::vector<MxTableCase> c = harness::sampled(mxquant_table_cases());
  return c;
}
std::vector<MxTableCase> pick(const char *kind) {
  std::vector<MxTableCase> v;
  for (const auto &c : all_cases())
    if (c.kind == kind) v.push_back(c);
  return v;
}

// SwigluMxQuant and SituMxQuant share their tests.
std::vector<MxTableCase> pick_gated() {
  std::vector<MxTableCase> v = pick("kSwiglu"), w = pick("kSitu");
  v.insert(v.end(), w.begin(), w.end());
  return v;
}

std::vector<MxTableCase> pick_dual_gated() {
  std::vector<MxTableCase> v = pick("kSwigluDual"), w = pick("kSwigluGradDual");
  v.insert(v.end(), w.begin(), w.end());
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;
using Shape = std::vector<int64_t>;

bool fp4(aclDataType dt) { return dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT4_E1M2; }

int run(const MxTableCase &c, const MxArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

Shape scale_shape_of(Shape s, int axis, int64_t bs) {
  s[axis] = ((s[axis] + bs - 1) / bs + 1) / 2;
  s.push_back(2);
  return s;
}

// x's views: 0 contiguous, 1 every dim padded + offset 3, 2 transposed (dims reversed in memory) + offset 3.
Dev make_view(const Shape &shape, aclDataType dt, int kind) {
  if (kind == 1) return padded_view(shape, dt, 3);
  if (kind == 2) return transposed_view(shape, dt);
  return std::make_unique<DeviceTensor>(shape, dt);
}

// Element offset of the row-major index i of a view (its strides and offset).
int64_t elem_offset(const DeviceTensor &t, int64_t i, int64_t offset) {
  const auto idx = unravel(i, t.shape());
  for (size_t d = 0; d < idx.size(); ++d) offset += idx[d] * t.strides()[d];
  return offset;
}

// x as [pre, n, post] around axis.
struct Lines {
  int64_t pre = 1, n = 1, post = 1;
  Lines(const Shape &s, int axis) {
    for (int d = 0; d < static_cast<int>(s.size()); ++d) (d < axis ? pre : d > axis ? post : n) *= s[d];
  }
};

using namespace mxref;  // Config, emax_of, floor_log2, ref_scale

// y codes (row-major over x's shape) and scale codes (row-major over the scale shape) of x's values.
void ref_quant(const std::vector<double> &x, const Shape &shape, int axis, const Config &cf, std::vector<int> *y,
               std::vector<int> *sc) {
  const Lines L(shape, axis);
  const int64_t blocks = (L.n + cf.bs - 1) / cf.bs, pairs = (blocks + 1) / 2;
  const lfref::Fmt f = lfref::fmt_of(cf.dst);
  y->assign(x.size(), 0);
  sc->assign(static_cast<size_t>(L.pre * pairs * L.post * 2), 0);
  for (int64_t p = 0; p < L.pre; ++p)
    for (int64_t q = 0; q < L.post; ++q)
      for (int64_t b = 0; b < blocks; ++b) {
        auto at = [&](int64_t i) { return (p * L.n + i) * L.post + q; };
        double amax = 0;
        bool nan = false;
        for (int64_t i = b * cf.bs; i < std::min(L.n, (b + 1) * cf.bs); ++i) {
          nan |= std::isnan(x[at(i)]);
          amax = std::max(amax, std::fabs(x[at(i)]));
        }
        const int s = ref_scale(nan ? NAN : amax, cf);
        (*sc)[((p * pairs + b / 2) * L.post + q) * 2 + (b & 1)] = s;
        for (int64_t i = b * cf.bs; i < std::min(L.n, (b + 1) * cf.bs); ++i)
          (*y)[at(i)] = lfref::encode(f, s == 255 ? NAN : x[at(i)] / std::ldexp(1.0, s - 127), cf.mode);
      }
}

char *mode_name(lfref::Mode m) {
  static char rint[] = "rint", floor_[] = "floor", round_[] = "round";
  return m == lfref::kFloor ? floor_ : m == lfref::kRound ? round_ : rint;
}

// The valid configurations of a row: every dstType with its scaleAlgs and modes, V2's dstTypeMax, V3's
// maxLowBound, blocksizes 32 / 64 / 96 where allowed.
std::vector<Config> configs(const MxTableCase &c, aclDataType xdt) {
  std::vector<Config> v;
  for (aclDataType dst : {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2})
    for (int64_t alg : {0, 1, 2}) {
      if ((alg == 1 && fp4(dst)) || (alg == 2 && !fp4(dst))) continue;
      if (alg == 2 && dst == ACL_FLOAT4_E1M2 && c.kind != "kGrouped") continue;
      if (c.kind == "kGrouped" && !c.has("scale_alg") && alg != 0) continue;  // V1: scaleAlg 0
      for (lfref::Mode m : {lfref::kRint, lfref::kFloor, lfref::kRound}) {
        if (m != lfref::kRint && !fp4(dst)) continue;
        for (int64_t bs : {32, 64, 96}) {
          if (bs != 32 && (alg == 2 || xdt == ACL_FLOAT || m != lfref::kRint || c.kind != "kQuant")) continue;
          if (c.kind == "kBlock" && alg == 1) continue;
          if (c.kind == "kDual" && !c.has("dst_type_max") && alg != 0) continue;  // V1: scaleAlg 0 only
          std::vector<double> dtms = {0.0}, lows = {0.0};
          if (c.has("dst_type_max") && dst == ACL_FLOAT4_E2M1 && bs == 32 && (c.kind != "kDual" || alg == 2))
            dtms = {0.0, 6.0, 7.0, 9.5};
          if (c.kind == "kBlock") dtms = dst == ACL_FLOAT4_E2M1 ? std::vector<double>{0.0, 6.0, 7.0} : std::vector<double>{0.0};
          if (c.kind == "kGrouped" && c.has("dst_type_max") && alg == 2)
            dtms = dst == ACL_FLOAT4_E2M1 ? std::vector<double>{0.0, 6.0, 7.0, 9.5} : std::vector<double>{0.0, 1.875, 2.5};
          if (c.has("max_low_bound") && alg == 1) lows = {0.0, 3.0};
          for (double dtm : dtms)
            for (double low : lows) v.push_back({dst, alg, bs, m, dtm, low, c.kind == "kBlock"});
        }
      }
    }
  return v;
}

// Values over many binades, with exact powers of two, mantissas on the scaleAlg 2 thresholds, zero blocks.
std::vector<double> mx_values(std::mt19937_64 &g, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> u(-1, 1);
  const int shift = static_cast<int>(g() % 30) - 15;
  for (auto &e : v) {
    const int k = shift + static_cast<int>(g() % 7) - 3;
    switch (g() % 10) {
      case 0: e = 0; break;
      case 1: e = std::ldexp(g() % 2 ? 1.0 : -1.0, k); break;
      case 2: e = std::ldexp(g() % 2 ? 1.5 : 1.75, k); break;
      default: e = std::ldexp(u(g), k);
    }
  }
  return v;
}

using Field = aclTensor *MxArgs::*;

// Each listed tensor argument null in turn: 161001 naming it.
void expect_nulls(const MxTableCase &c, const MxArgs &good, const std::vector<std::pair<const char *, Field>> &fields) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  for (const auto &[name, f] : fields) {
    MxArgs a = good;
    a.*f = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {c.api.c_str(), name})) << name;
  }
}

// Each case some arguments of `good` replaced: 161002 naming `name` (`what` says the case).
struct Bad {
  const char *name, *what;
  std::function<void(MxArgs &)> set;
};
void expect_invalid(const MxTableCase &c, const MxArgs &a, const char *name, const char *what);
void expect_bads(const MxTableCase &c, const MxArgs &good, const std::vector<Bad> &bads) {
  for (const Bad &b : bads) {
    MxArgs a = good;
    b.set(a);
    expect_invalid(c, a, b.name, b.what);
  }
}

// 161002 with a message naming `name` (`what`: the case, for the failure's message).
void expect_invalid(const MxTableCase &c, const MxArgs &a, const char *name, const char *what) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {c.api.c_str(), name})) << name << ": " << what;
}

class OpTableMxQuant : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxDual : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxBlock : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxGrouped : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxGroupedDual : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxDualLevel : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxToBlock : public ::testing::TestWithParam<MxTableCase> {};
class OpTableAntiMx : public ::testing::TestWithParam<MxTableCase> {};

struct QuantProblem {
  Shape shape;
  int axis = 0;
  Dev x, y, s;
  MxArgs args(const Config &cf) const {
    MxArgs a;
    a.x = x->get();
    a.y = y->get();
    a.scale_out = s->get();
    a.axis = axis;
    a.dst_type = cf.dst;
    a.blocksize = cf.bs;
    a.scale_alg = cf.alg;
    a.round_mode = mode_name(cf.mode);
    a.dst_type_max = cf.dtm;
    a.max_low_bound = cf.low;
    return a;
  }
};

QuantProblem make_quant(std::mt19937_64 &g, aclDataType xdt, const Config &cf, int view) {
  QuantProblem p;
  const int nd = 1 + static_cast<int>(g() % 4);
  for (int d = 0; d < nd; ++d) p.shape.push_back(1 + static_cast<int64_t>(g() % 4));
  p.axis = static_cast<int>(g() % nd);
  const int64_t min_n = xdt == ACL_FLOAT ? 32 : 1;
  p.shape[p.axis] = min_n + static_cast<int64_t>(g() % (g() % 3 == 0 ? 300 : 80));
  if (fp4(cf.dst) && p.shape.back() % 2) ++p.shape.back();
  p.x = make_view(p.shape, xdt, view);
  p.x->set_values(mx_values(g, numel_of(p.shape)));
  p.y = std::make_unique<DeviceTensor>(p.shape, cf.dst);
  p.s = std::make_unique<DeviceTensor>(scale_shape_of(p.shape, p.axis, cf.bs), ACL_FLOAT8_E8M0);
  return p;
}

// y's codes and the scales against the reference; FLOAT4 y: nothing written past its numel / 2 bytes.
void expect_quant(const QuantProblem &p, const Config &cf) {
  std::vector<int> want_y, want_s;
  ref_quant(p.x->values(), p.shape, p.axis, cf, &want_y, &want_s);
  const auto got_y = codes_of(*p.y), got_s = codes_of(*p.s);
  int bad = 0;
  for (size_t i = 0; i < want_y.size() && bad < 5; ++i)
    if (got_y[i] != want_y[i]) {
      ADD_FAILURE() << "y[" << i << "] = " << got_y[i] << ", want " << want_y[i] << " (x " << p.x->values()[i] << ")";
      ++bad;
    }
  for (size_t i = 0; i < want_s.size() && bad < 10; ++i)
    if (got_s[i] != want_s[i]) {
      ADD_FAILURE() << "mxscaleOut[" << i << "] = " << got_s[i] << ", want " << want_s[i];
      ++bad;
    }
  const auto *raw = static_cast<const uint8_t *>(p.y->data());
  const int64_t used = fp4(cf.dst) ? (p.y->numel() + 1) / 2 : p.y->numel();
  for (int64_t b = used; b < p.y->numel(); ++b) ASSERT_EQ(raw[b], 0x5A) << "byte " << b << " past y written";
  EXPECT_TRUE(p.s->untouched_outside_view());
}

TEST_P(OpTableMxQuant, EveryDtypeFormatAlgorithmAndModeAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (const Config &cf : configs(c, xdt)) {
      const int view = static_cast<int>(g() % 3);
      SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << cf.dst << " alg " << cf.alg << " mode "
                                        << cf.mode << " bs " << cf.bs << " dtm " << cf.dtm << " low " << cf.low
                                        << " view " << view);
      QuantProblem p = make_quant(g, xdt, cf, view);
      SCOPED_TRACE(::testing::Message() << "shape " << ::testing::PrintToString(p.shape) << " axis " << p.axis);
      ASSERT_EQ(run(c, p.args(cf)), 0) << aclGetRecentErrMsg();
      expect_quant(p, cf);
      if (HasFailure()) return;
    }
}

TEST_P(OpTableMxQuant, NanAndInfBlocksAndNegativeAxis) {
  const MxTableCase &c = GetParam();
  for (aclDataType dst : {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_FLOAT4_E2M1}) {
    Config cf;
    cf.dst = dst;
    QuantProblem p;
    p.shape = {2, 64};
    p.axis = 1;
    p.x = std::make_unique<DeviceTensor>(p.shape, ACL_BF16);
    std::vector<double> v(128, 0.75);
    v[3] = NAN;        // block 0 of row 0
    v[40] = INFINITY;  // block 1 of row 0
    v[64 + 33] = -INFINITY;
    p.x->set_values(v);
    p.y = std::make_unique<DeviceTensor>(p.shape, dst);
    p.s = std::make_unique<DeviceTensor>(Shape{2, 1, 2}, ACL_FLOAT8_E8M0);
    MxArgs a = p.args(cf);
    a.axis = -1;
    ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    expect_quant(p, cf);
    EXPECT_EQ(codes_of(*p.s)[0], 255);
  }
}

// scaleAlg 1 with S = amax / 448 subnormal in fp32 (FLOAT x): rounded up only above half of 2^-126.
TEST_P(OpTableMxQuant, ScaleAlg1SubnormalScales) {
  const MxTableCase &c = GetParam();
  Config cf;
  cf.alg = 1;
  QuantProblem p;
  p.shape = {4, 32};
  p.axis = 1;
  p.x = std::make_unique<DeviceTensor>(p.shape, ACL_FLOAT);
  std::vector<double> v(128);
  const double base = 448 * std::ldexp(1.0, -127);
  const double amax[] = {1.5 * base, base, 0.5 * base, 1.25 * base};  // S = 1.5, 1, 0.5, 1.25 x 2^-127
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 32; ++i) v[r * 32 + i] = amax[r] * (i == 7 ? 1.0 : (i % 9) / 9.0) * (i % 2 ? -1 : 1);
  p.x->set_values(v);
  p.y = std::make_unique<DeviceTensor>(p.shape, cf.dst);
  p.s = std::make_unique<DeviceTensor>(Shape{4, 1, 2}, ACL_FLOAT8_E8M0);
  ASSERT_EQ(run(c, p.args(cf)), 0) << aclGetRecentErrMsg();
  expect_quant(p, cf);
  EXPECT_EQ(codes_of(*p.s), (std::vector<int>{1, 0, 0, 0, 0, 0, 1, 0}));
}

TEST_P(OpTableMxQuant, EmptyTensors) {
  const MxTableCase &c = GetParam();
  for (const Shape &shape : {Shape{0, 64}, Shape{3, 0}, Shape{2, 0, 4}}) {
    const int axis = shape.size() == 2 ? 1 : 1;
    DeviceTensor x(shape, ACL_FLOAT16), y(shape, ACL_FLOAT8_E4M3FN),
        s(scale_shape_of(shape, axis, 32), ACL_FLOAT8_E8M0);
    MxArgs a;
    a.x = x;
    a.y = y;
    a.scale_out = s;
    a.axis = axis;
    EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  }
}

TEST_P(OpTableMxQuant, DocumentedExample) {  // BF16 (0, 8, 64, 512), E4M3FN: scale 2, codes (0, 72, 96, 120)
  const MxTableCase &c = GetParam();
  DeviceTensor x(Shape{1, 4}, ACL_BF16), y(Shape{1, 4}, ACL_FLOAT8_E4M3FN), s(Shape{1, 1, 2}, ACL_FLOAT8_E8M0);
  x.set_values({0, 8, 64, 512});
  MxArgs a;
  a.x = x;
  a.y = y;
  a.scale_out = s;
  a.scale_alg = c.has("max_low_bound") ? 1 : 0;
  a.max_low_bound = c.has("max_low_bound") ? 0.5 : 0.0;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(codes_of(y), (std::vector<int>{0, 72, 96, 120}));
  EXPECT_EQ(codes_of(s), (std::vector<int>{128, 0}));
}

TEST_P(OpTableMxQuant, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const Shape shape{4, 64};
  DeviceTensor x(shape, ACL_BF16), y(shape, ACL_FLOAT8_E4M3FN), s(Shape{4, 1, 2}, ACL_FLOAT8_E8M0);
  MxArgs good;
  good.x = x;
  good.y = y;
  good.scale_out = s;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"yOut", &MxArgs::y}, {"mxscaleOut", &MxArgs::scale_out}});
  auto expect = [&](const MxArgs &a, const char *name, const char *what) { expect_invalid(c, a, name, what); };
  DeviceTensor xi(shape, ACL_INT32), x8(Shape{1, 1, 1, 1, 1, 1, 1, 64}, ACL_BF16), xf(Shape{4, 16}, ACL_FLOAT),
      xodd(Shape{4, 63}, ACL_BF16), y5(shape, ACL_FLOAT8_E5M2), yshape(Shape{4, 32}, ACL_FLOAT8_E4M3FN),
      yf4(shape, ACL_FLOAT4_E2M1), yf4e(shape, ACL_FLOAT4_E1M2), sf(Shape{4, 1, 2}, ACL_FLOAT), s2(Shape{4, 1}, ACL_FLOAT8_E8M0),
      s64(Shape{4, 2, 2}, ACL_FLOAT8_E8M0), yodd(Shape{4, 63}, ACL_FLOAT4_E2M1), sodd(Shape{4, 1, 2}, ACL_FLOAT8_E8M0),
      yf(Shape{4, 16}, ACL_FLOAT8_E4M3FN), sfl(Shape{4, 1, 2}, ACL_FLOAT8_E8M0);
  auto ystrided = std::make_unique<DeviceTensor>(shape, ACL_FLOAT8_E4M3FN, Shape{128, 1}, 0);
  static char ceil_[] = "ceil", floor_[] = "floor", bogus[] = "nearest";
  MxArgs a = good;
  expect_bads(c, good, {{"x", "dtype", [&](MxArgs &b) { b.x = xi; }},
                        {"x", "rank 8", [&](MxArgs &b) { b.x = x8; }},
                        {"axis", "out of range", [&](MxArgs &b) { b.axis = 2; }},
                        {"axis", "out of range", [&](MxArgs &b) { b.axis = -3; }},
                        {"dstType", "INT8", [&](MxArgs &b) { b.dst_type = 2; }},
                        {"dstType", "HIFLOAT8", [&](MxArgs &b) { b.dst_type = 34; }},
                        {"yOut", "dtype other than dstType", [&](MxArgs &b) { b.y = y5; }},
                        {"yOut", "shape", [&](MxArgs &b) { b.y = yshape; }},
                        {"yOut", "contiguous", [&](MxArgs &b) { b.y = ystrided->get(); }},
                        {"mxscaleOut", "dtype", [&](MxArgs &b) { b.scale_out = sf; }},
                        {"mxscaleOut", "no trailing 2", [&](MxArgs &b) { b.scale_out = s2; }},
                        {"mxscaleOut", "block pairs", [&](MxArgs &b) { b.scale_out = s64; }},
                        {"roundModeOptional", "floor for FLOAT8", [&](MxArgs &b) { b.round_mode = floor_; }},
                        {"roundModeOptional", "unknown", [&](MxArgs &b) { b.round_mode = bogus; }},
                        {"roundModeOptional", "ceil for FLOAT4", [&](MxArgs &b) {
                            b.dst_type = ACL_FLOAT4_E2M1; b.y = yf4; b.round_mode = ceil_;
                          }}});
  for (int64_t bs : {0, 16, 48, 1056, -32}) {
    a = good;
    a.blocksize = bs;
    expect(a, "blocksize", "not a multiple of 32 in [32, 1024]");
  }
  expect_bads(c, good, {{"scaleAlg", "3", [&](MxArgs &b) { b.scale_alg = 3; }},
                        {"scaleAlg", "2 with FLOAT8", [&](MxArgs &b) { b.scale_alg = 2; }},
                        {"scaleAlg", "1 with FLOAT4", [&](MxArgs &b) {
                            b.dst_type = ACL_FLOAT4_E1M2; b.y = yf4e; b.scale_alg = 1;
                          }},
                        {"blocksize", "64 with scaleAlg 2", [&](MxArgs &b) {
                            b.dst_type = ACL_FLOAT4_E2M1; b.y = yf4; b.scale_alg = 2; b.blocksize = 64;
                            b.scale_out = sodd;
                          }},
                        {"x", "odd last dim with FLOAT4", [&](MxArgs &b) {
                            b.dst_type = ACL_FLOAT4_E2M1; b.x = xodd; b.y = yodd;
                          }},
                        {"x", "FLOAT with 16 along the axis", [&](MxArgs &b) {
                            b.x = xf; b.y = yf; b.scale_out = sfl;
                          }}});
  if (c.has("dst_type_max")) {
    for (double m : {5.0, 13.0, -1.0}) {
      a = good;
      a.dst_type = ACL_FLOAT4_E2M1;
      a.y = yf4;
      a.dst_type_max = m;
      expect(a, "dstTypeMax", "outside 0, [6, 12]");
    }
    a = good;
    a.dst_type_max = 6.0;
    expect(a, "dstTypeMax", "with FLOAT8");
  }
  if (c.has("max_low_bound")) {
    a = good;
    a.scale_alg = 1;
    a.max_low_bound = -1.0;
    expect(a, "maxLowBound", "negative");
    a.scale_alg = 0;
    a.max_low_bound = 1.0;
    expect(a, "maxLowBound", "with scaleAlg 0");
  }
  a = good;
  a.y = x;  // y over x: overlap (and the wrong dtype first)
  expect(a, "yOut", "x's memory");
}

// WithDualAxis: the same quantisation along dims -1 (y1Out, mxscale1Out) and -2 (y2Out, mxscale2Out).
TEST_P(OpTableMxDual, BothAxesAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (const Config &cf : configs(c, xdt)) {
      const int view = static_cast<int>(g() % 3);
      Shape shape;
      const int nd = 2 + static_cast<int>(g() % 3);
      for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % (d + 2 >= nd ? 100 : 3)));
      if (fp4(cf.dst) && shape.back() % 2) ++shape.back();
      SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << cf.dst << " alg " << cf.alg << " mode " << cf.mode
                                        << " dtm " << cf.dtm << " view " << view << " shape "
                                        << ::testing::PrintToString(shape));
      Dev x = make_view(shape, xdt, view);
      x->set_values(mx_values(g, numel_of(shape)));
      DeviceTensor y1(shape, cf.dst), y2(shape, cf.dst), s1(scale_shape_of(shape, nd - 1, 32), ACL_FLOAT8_E8M0),
          s2(scale_shape_of(shape, nd - 2, 32), ACL_FLOAT8_E8M0);
      MxArgs a;
      a.x = x->get();
      a.y = y1;
      a.scale_out = s1;
      a.y2 = y2;
      a.scale2_out = s2;
      a.dst_type = cf.dst;
      a.scale_alg = cf.alg;
      a.round_mode = mode_name(cf.mode);
      a.dst_type_max = cf.dtm;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      const auto xv = x->values();
      for (int pass = 0; pass < 2; ++pass) {
        std::vector<int> want_y, want_s;
        ref_quant(xv, shape, nd - 1 - pass, cf, &want_y, &want_s);
        EXPECT_EQ(codes_of(pass ? y2 : y1), want_y) << (pass ? "y2Out" : "y1Out");
        EXPECT_EQ(codes_of(pass ? s2 : s1), want_s) << (pass ? "mxscale2Out" : "mxscale1Out");
      }
      if (HasFailure()) return;
    }
}

TEST_P(OpTableMxDual, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const Shape shape{40, 64};
  DeviceTensor x(shape, ACL_BF16), y1(shape, ACL_FLOAT8_E4M3FN), y2(shape, ACL_FLOAT8_E4M3FN),
      s1(Shape{40, 1, 2}, ACL_FLOAT8_E8M0), s2(Shape{1, 64, 2}, ACL_FLOAT8_E8M0);
  MxArgs good;
  good.x = x;
  good.y = y1;
  good.scale_out = s1;
  good.y2 = y2;
  good.scale2_out = s2;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"y1Out", &MxArgs::y}, {"mxscale1Out", &MxArgs::scale_out}, {"y2Out", &MxArgs::y2}, {"mxscale2Out", &MxArgs::scale2_out}});
  auto expect = [&](const MxArgs &a, const char *name, const char *what) { expect_invalid(c, a, name, what); };
  DeviceTensor x1(Shape{64}, ACL_BF16), xf(shape, ACL_FLOAT), y2f4(shape, ACL_FLOAT4_E2M1), s2bad(Shape{2, 64, 2}, ACL_FLOAT8_E8M0),
      y2shape(Shape{40, 32}, ACL_FLOAT8_E4M3FN), xe(Shape{0, 64}, ACL_BF16), ye(Shape{0, 64}, ACL_FLOAT8_E4M3FN),
      s1e(Shape{0, 1, 2}, ACL_FLOAT8_E8M0), s2e(Shape{0, 64, 2}, ACL_FLOAT8_E8M0);
  MxArgs a = good;
  expect_bads(c, good, {{"x", "1-D", [&](MxArgs &b) { b.x = x1; }},
                        {"x", "FLOAT", [&](MxArgs &b) { b.x = xf; }},
                        {"dstType", "INT32", [&](MxArgs &b) { b.dst_type = 3; }},
                        {"y2Out", "dtype", [&](MxArgs &b) { b.y2 = y2f4; }},
                        {"y2Out", "shape", [&](MxArgs &b) { b.y2 = y2shape; }},
                        {"mxscale2Out", "shape", [&](MxArgs &b) { b.scale2_out = s2bad; }},
                        {"y2Out", "overlaps y1Out", [&](MxArgs &b) { b.y2 = y1; }},
                        {"scaleAlg", "2 with FLOAT8", [&](MxArgs &b) { b.scale_alg = 2; }}});
  a = good;
  a.scale_alg = 2;
  if (!c.has("dst_type_max")) {
    a.scale_alg = 1;
    expect(a, "scaleAlg", "V1 takes 0 only");
    a = good;
    a.x = xe;
    a.y = ye;
    a.y2 = ye;
    a.scale_out = s1e;
    a.scale2_out = s2e;
    expect(a, "x", "empty");
  } else {
    a = good;
    a.dst_type_max = 6.0;
    expect(a, "dstTypeMax", "with FLOAT8");
    a.dst_type = ACL_FLOAT4_E2M1;
    DeviceTensor f1(shape, ACL_FLOAT4_E2M1), f2(shape, ACL_FLOAT4_E2M1);
    a.y = f1;
    a.y2 = f2;
    expect(a, "dstTypeMax", "with scaleAlg 0");
  }
}

// DynamicBlockMxQuant: 32 x 32 blocks of [B, M, N], each scale broadcast to scale1Out (rows) and scale2Out (columns).
void ref_block(const std::vector<double> &x, int64_t batch, int64_t m, int64_t n, const Config &cf, std::vector<int> *y,
               std::vector<int> *s1, std::vector<int> *s2) {
  const int64_t rb = (m + 31) / 32, cb = (n + 31) / 32, rp = (rb + 1) / 2, cp = (cb + 1) / 2;
  const lfref::Fmt f = lfref::fmt_of(cf.dst);
  y->assign(x.size(), 0);
  s1->assign(static_cast<size_t>(batch * m * cp * 2), 0);
  s2->assign(static_cast<size_t>(batch * rp * n * 2), 0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rb; ++r)
      for (int64_t c = 0; c < cb; ++c) {
        double amax = 0;
        bool nan = false;
        for (int64_t i = r * 32; i < std::min(m, r * 32 + 32); ++i)
          for (int64_t j = c * 32; j < std::min(n, c * 32 + 32); ++j) {
            const double v = x[(b * m + i) * n + j];
            nan |= std::isnan(v);
            amax = std::max(amax, std::fabs(v));
          }
        const int sc = ref_scale(nan ? NAN : amax, cf);
        for (int64_t i = r * 32; i < std::min(m, r * 32 + 32); ++i) {
          (*s1)[((b * m + i) * cp + c / 2) * 2 + (c & 1)] = sc;
          for (int64_t j = c * 32; j < std::min(n, c * 32 + 32); ++j) {
            (*s2)[((b * rp + r / 2) * n + j) * 2 + (r & 1)] = sc;
            const double v = x[(b * m + i) * n + j];
            (*y)[(b * m + i) * n + j] = lfref::encode(f, sc == 255 ? NAN : v / std::ldexp(1.0, sc - 127), cf.mode);
          }
        }
      }
}

TEST_P(OpTableMxBlock, EveryFormatAlgorithmAndModeAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (const Config &cf : configs(c, xdt)) {
      const int view = static_cast<int>(g() % 3);
      const bool batched = g() % 2;
      const int64_t batch = batched ? 1 + static_cast<int64_t>(g() % 3) : 1;
      const int64_t m = 1 + static_cast<int64_t>(g() % 100);
      int64_t n = 1 + static_cast<int64_t>(g() % 100);
      if (fp4(cf.dst) && n % 2) ++n;
      Shape shape = batched ? Shape{batch, m, n} : Shape{m, n};
      SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << cf.dst << " alg " << cf.alg << " mode " << cf.mode
                                        << " dtm " << cf.dtm << " view " << view << " shape "
                                        << ::testing::PrintToString(shape));
      Dev x = make_view(shape, xdt, view);
      auto vals = mx_values(g, numel_of(shape));
      if (g() % 4 == 0) vals[g() % vals.size()] = NAN;
      x->set_values(vals);
      DeviceTensor y(shape, cf.dst), s1(scale_shape_of(shape, shape.size() - 1, 32), ACL_FLOAT8_E8M0),
          s2(scale_shape_of(shape, shape.size() - 2, 32), ACL_FLOAT8_E8M0);
      MxArgs a;
      a.x = x->get();
      a.y = y;
      a.scale_out = s1;
      a.scale2_out = s2;
      a.dst_type = cf.dst;
      a.scale_alg = cf.alg;
      a.round_mode = mode_name(cf.mode);
      a.dst_type_max = cf.dtm;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      std::vector<int> wy, w1, w2;
      ref_block(x->values(), batch, m, n, cf, &wy, &w1, &w2);
      EXPECT_EQ(codes_of(y), wy) << "yOut";
      EXPECT_EQ(codes_of(s1), w1) << "scale1Out";
      EXPECT_EQ(codes_of(s2), w2) << "scale2Out";
      EXPECT_TRUE(s1.untouched_outside_view());
      EXPECT_TRUE(s2.untouched_outside_view());
      if (HasFailure()) return;
    }
}

TEST_P(OpTableMxBlock, DocumentedExample) {  // BF16 [1, 4] (0, 8, 64, 512) -> E4M3FN (0, 72, 96, 120), scales 2
  const MxTableCase &c = GetParam();
  DeviceTensor x(Shape{1, 4}, ACL_BF16), y(Shape{1, 4}, ACL_FLOAT8_E4M3FN), s1(Shape{1, 1, 2}, ACL_FLOAT8_E8M0),
      s2(Shape{1, 4, 2}, ACL_FLOAT8_E8M0);
  x.set_values({0, 8, 64, 512});
  MxArgs a;
  a.x = x;
  a.y = y;
  a.scale_out = s1;
  a.scale2_out = s2;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(codes_of(y), (std::vector<int>{0, 72, 96, 120}));
  EXPECT_EQ(codes_of(s1), (std::vector<int>{128, 0}));
  EXPECT_EQ(codes_of(s2), (std::vector<int>{128, 0, 128, 0, 128, 0, 128, 0}));
}

TEST_P(OpTableMxBlock, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const Shape shape{40, 64};
  DeviceTensor x(shape, ACL_BF16), y(shape, ACL_FLOAT8_E4M3FN), s1(Shape{40, 1, 2}, ACL_FLOAT8_E8M0),
      s2(Shape{1, 64, 2}, ACL_FLOAT8_E8M0);
  MxArgs good;
  good.x = x;
  good.y = y;
  good.scale_out = s1;
  good.scale2_out = s2;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"yOut", &MxArgs::y}, {"scale1Out", &MxArgs::scale_out}, {"scale2Out", &MxArgs::scale2_out}});
  DeviceTensor x4(Shape{1, 1, 40, 64}, ACL_BF16), x1(Shape{64}, ACL_BF16), xe(Shape{0, 64}, ACL_BF16),
      ye(Shape{0, 64}, ACL_FLOAT8_E4M3FN), s1e(Shape{0, 1, 2}, ACL_FLOAT8_E8M0), s2e(Shape{0, 64, 2}, ACL_FLOAT8_E8M0),
      xf(shape, ACL_FLOAT), s2bad(Shape{2, 64, 2}, ACL_FLOAT8_E8M0), yf4(shape, ACL_FLOAT4_E2M1);
  expect_bads(c, good, {{"x", "4 dims", [&](MxArgs &b) { b.x = x4; }},
                        {"x", "1 dim", [&](MxArgs &b) { b.x = x1; }},
                        {"x", "FLOAT", [&](MxArgs &b) { b.x = xf; }},
                        {"x", "empty", [&](MxArgs &b) { b.x = xe; b.y = ye; b.scale_out = s1e; b.scale2_out = s2e; }},
                        {"scaleAlg", "1", [&](MxArgs &b) { b.scale_alg = 1; }},
                        {"scaleAlg", "2 with FLOAT8", [&](MxArgs &b) { b.scale_alg = 2; }},
                        {"dstTypeMax", "with FLOAT8", [&](MxArgs &b) { b.dst_type_max = 7.0; }},
                        {"dstTypeMax", "9", [&](MxArgs &b) {
                            b.dst_type = ACL_FLOAT4_E2M1; b.y = yf4; b.dst_type_max = 9.0;
                          }},
                        {"scale2Out", "shape", [&](MxArgs &b) { b.scale2_out = s2bad; }},
                        {"scale2Out", "shape of scale1Out", [&](MxArgs &b) { b.scale2_out = s1; }},
                        {"scale1Out", "shape of scale2Out", [&](MxArgs &b) { b.scale_out = s2; }}});
}

// GroupedDynamicMxQuant: blocks of 32 rows per column inside each group of rows (ends: cumulative).
void ref_grouped(const std::vector<double> &x, int64_t m, int64_t n, const std::vector<int64_t> &ends, const Config &cf,
                 std::vector<int> *y, std::vector<int> *sc) {
  const lfref::Fmt f = lfref::fmt_of(cf.dst);
  y->assign(x.size(), 0);
  sc->assign(static_cast<size_t>((m / 64 + static_cast<int64_t>(ends.size())) * n * 2), 0);
  int64_t start = 0, srow = 0;
  for (int64_t end : ends) {
    const int64_t blocks = (end - start + 31) / 32;
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t c = 0; c < n; ++c) {
        double amax = 0;
        bool nan = false;
        for (int64_t r = start + b * 32; r < std::min(end, start + b * 32 + 32); ++r) {
          nan |= std::isnan(x[r * n + c]);
          amax = std::max(amax, std::fabs(x[r * n + c]));
        }
        const int s = ref_scale(nan ? NAN : amax, cf);
        (*sc)[((srow + b / 2) * n + c) * 2 + (b & 1)] = s;
        for (int64_t r = start + b * 32; r < std::min(end, start + b * 32 + 32); ++r)
          (*y)[r * n + c] = lfref::encode(f, s == 255 ? NAN : x[r * n + c] / std::ldexp(1.0, s - 127), cf.mode);
      }
    srow += (blocks + 1) / 2;
    start = end;
  }
}

struct GroupedProblem {
  int64_t m = 0, n = 0;
  std::vector<int64_t> ends;
  Dev x, group, y, s;
  MxArgs args(const Config &cf) const {
    MxArgs a;
    a.x = x->get();
    a.group = group->get();
    a.y = y->get();
    a.scale_out = s->get();
    a.dst_type = cf.dst;
    a.scale_alg = cf.alg;
    a.round_mode = mode_name(cf.mode);
    a.dst_type_max = cf.dtm;
    return a;
  }
};

GroupedProblem make_grouped(std::mt19937_64 &g, aclDataType xdt, aclDataType dst, int view) {
  GroupedProblem p;
  p.m = g() % 8 == 0 ? 0 : static_cast<int64_t>(g() % 200);
  p.n = 1 + static_cast<int64_t>(g() % 80);
  if (fp4(dst) && p.n % 2) ++p.n;
  const int64_t groups = 1 + static_cast<int64_t>(g() % 4);
  for (int64_t i = 0; i + 1 < groups; ++i) p.ends.push_back(static_cast<int64_t>(g() % (p.m + 1)));
  std::sort(p.ends.begin(), p.ends.end());
  p.ends.push_back(p.m);
  p.x = make_view({p.m, p.n}, xdt, view);
  p.x->set_values(mx_values(g, p.m * p.n));
  p.group = view == 1 ? padded_view({groups}, ACL_INT32, 1) : std::make_unique<DeviceTensor>(Shape{groups}, ACL_INT32);
  p.group->set_values(std::vector<double>(p.ends.begin(), p.ends.end()));
  p.y = view == 1 && !fp4(dst) ? padded_view({p.m, p.n}, dst, 2) : std::make_unique<DeviceTensor>(Shape{p.m, p.n}, dst);
  p.s = std::make_unique<DeviceTensor>(Shape{p.m / 64 + groups, p.n, 2}, ACL_FLOAT8_E8M0);
  return p;
}

TEST_P(OpTableMxGrouped, EveryFormatAlgorithmAndModeAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (const Config &cf : configs(c, xdt)) {
      const int view = static_cast<int>(g() % 3);
      GroupedProblem p = make_grouped(g, xdt, cf.dst, view);
      SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << cf.dst << " alg " << cf.alg << " mode " << cf.mode
                                        << " dtm " << cf.dtm << " view " << view << " m " << p.m << " n " << p.n
                                        << " ends " << ::testing::PrintToString(p.ends));
      ASSERT_EQ(run(c, p.args(cf)), 0) << aclGetRecentErrMsg();
      std::vector<int> wy, ws;
      ref_grouped(p.x->values(), p.m, p.n, p.ends, cf, &wy, &ws);
      std::vector<int> gy(wy.size());
      for (int64_t i = 0; i < p.m * p.n; ++i)
        gy[i] = fp4(cf.dst) ? codes_of(*p.y)[i] : static_cast<const uint8_t *>(p.y->data())[elem_offset(*p.y, i, view == 1 ? 2 : 0)];
      EXPECT_EQ(gy, wy) << "y";
      EXPECT_EQ(codes_of(*p.s), ws) << "mxscale";
      if (!fp4(cf.dst)) EXPECT_TRUE(p.y->untouched_outside_view());
      if (HasFailure()) return;
    }
}

TEST_P(OpTableMxGrouped, BadGroupIndexFailsTheLaunchBeforeWriting) {
  const MxTableCase &c = GetParam();
  Config cf;
  for (const std::vector<double> &ends : {std::vector<double>{40, 20, 64}, std::vector<double>{10, 60},
                                          std::vector<double>{-1, 64}, std::vector<double>{30, 70}}) {
    GroupedProblem p = make_grouped(rng(), ACL_BF16, cf.dst, 0);
    p.m = 64;
    p.x = std::make_unique<DeviceTensor>(Shape{64, 8}, ACL_BF16);
    p.y = std::make_unique<DeviceTensor>(Shape{64, 8}, cf.dst);
    p.group = std::make_unique<DeviceTensor>(Shape{static_cast<int64_t>(ends.size())}, ACL_INT32);
    p.group->set_values(ends);
    p.s = std::make_unique<DeviceTensor>(Shape{1 + static_cast<int64_t>(ends.size()), 8, 2}, ACL_FLOAT8_E8M0);
    p.y->poison();
    EXPECT_EQ(run(c, p.args(cf)), ACLNN_ERR_PARAM_INVALID) << ::testing::PrintToString(ends);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("groupIndex"), std::string::npos);
    for (int v : codes_of(*p.y)) ASSERT_EQ(v, 0xFF) << "written despite the failure";
  }
}

TEST_P(OpTableMxGrouped, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  DeviceTensor x(Shape{64, 8}, ACL_BF16), gi(Shape{2}, ACL_INT32), y(Shape{64, 8}, ACL_FLOAT8_E4M3FN),
      s(Shape{3, 8, 2}, ACL_FLOAT8_E8M0);
  gi.set_values({32, 64});
  static char rint[] = "rint", ceil_[] = "ceil";
  MxArgs good;
  good.x = x;
  good.group = gi;
  good.y = y;
  good.scale_out = s;
  good.round_mode = rint;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"groupIndex", &MxArgs::group}, {"y", &MxArgs::y}, {"mxscale", &MxArgs::scale_out}});
  {
    MxArgs a = good;
    a.round_mode = nullptr;
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {c.api.c_str(), "roundMode"}));
  }
  auto expect = [&](const MxArgs &a, const char *name, const char *what) { expect_invalid(c, a, name, what); };
  DeviceTensor x3(Shape{1, 64, 8}, ACL_BF16), xf(Shape{64, 8}, ACL_FLOAT), g64(Shape{2}, ACL_INT64),
      g2d(Shape{1, 2}, ACL_INT32), g0(Shape{0}, ACL_INT32), yshape(Shape{64, 6}, ACL_FLOAT8_E4M3FN),
      sshape(Shape{2, 8, 2}, ACL_FLOAT8_E8M0), x7(Shape{64, 7}, ACL_BF16), y7(Shape{64, 7}, ACL_FLOAT4_E2M1),
      s7(Shape{3, 7, 2}, ACL_FLOAT8_E8M0), yf4(Shape{64, 8}, ACL_FLOAT4_E2M1), yf4e(Shape{64, 8}, ACL_FLOAT4_E1M2);
  auto yf4s = std::make_unique<DeviceTensor>(Shape{64, 8}, ACL_FLOAT4_E2M1, Shape{1, 64}, 0);
  MxArgs a = good;
  expect_bads(c, good, {{"x", "3-D", [&](MxArgs &b) { b.x = x3; }},
                        {"x", "FLOAT", [&](MxArgs &b) { b.x = xf; }},
                        {"groupIndex", "INT64", [&](MxArgs &b) { b.group = g64; }},
                        {"groupIndex", "2-D", [&](MxArgs &b) { b.group = g2d; }},
                        {"groupIndex", "empty", [&](MxArgs &b) { b.group = g0; }},
                        {"blocksize", "64", [&](MxArgs &b) { b.blocksize = 64; }},
                        {"dstType", "INT8", [&](MxArgs &b) { b.dst_type = 2; }},
                        {"roundMode", "ceil", [&](MxArgs &b) { b.round_mode = ceil_; }},
                        {"y", "shape", [&](MxArgs &b) { b.y = yshape; }},
                        {"mxscale", "shape", [&](MxArgs &b) { b.scale_out = sshape; }},
                        {"x", "odd n with FLOAT4", [&](MxArgs &b) {
                            b.x = x7; b.y = y7; b.scale_out = s7; b.dst_type = ACL_FLOAT4_E2M1;
                          }},
                        {"y", "strided FLOAT4", [&](MxArgs &b) { b.y = yf4s->get(); b.dst_type = ACL_FLOAT4_E2M1; }}});
  if (c.has("scale_alg")) {
    a = good;
    a.scale_alg = 2;
    expect(a, "scaleAlg", "2 with FLOAT8");
    a = good;
    a.y = yf4;
    a.dst_type = ACL_FLOAT4_E2M1;
    a.scale_alg = 1;
    expect(a, "scaleAlg", "1 with FLOAT4");
    for (double m : {5.0, 13.0, 2.0}) {
      a.scale_alg = 2;
      a.dst_type_max = m;
      expect(a, "dstTypeMax", "E2M1 range");
    }
    a.y = yf4e;
    a.dst_type = ACL_FLOAT4_E1M2;
    a.dst_type_max = 4.0;
    expect(a, "dstTypeMax", "E1M2 range");
    a = good;
    a.dst_type_max = 6.0;
    expect(a, "dstTypeMax", "with FLOAT8");
  }
}

// GroupedDynamicMxQuantWithDualAxis: scaleAlg 1 along dim -1 (y1Out, y1ScaleOut) and per group along dim 0.
TEST_P(OpTableMxGroupedDual, BothAxesAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (aclDataType dst : {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2})
      for (int k = 0; k < 4; ++k) {
        Config cf;
        cf.dst = dst;
        cf.alg = 1;
        const int view = k % 3;
        GroupedProblem p = make_grouped(g, xdt, dst, view);
        p.n = 64 * (1 + static_cast<int64_t>(g() % 2));
        p.x = make_view({p.m, p.n}, xdt, view);
        p.x->set_values(mx_values(g, p.m * p.n));
        p.y = std::make_unique<DeviceTensor>(Shape{p.m, p.n}, dst);
        p.s = std::make_unique<DeviceTensor>(Shape{p.m / 64 + static_cast<int64_t>(p.ends.size()), p.n, 2}, ACL_FLOAT8_E8M0);
        auto group64 = std::make_unique<DeviceTensor>(Shape{static_cast<int64_t>(p.ends.size())}, ACL_INT64);
        group64->set_values(std::vector<double>(p.ends.begin(), p.ends.end()));
        DeviceTensor y1(Shape{p.m, p.n}, dst), s1(Shape{p.m, p.n / 64, 2}, ACL_FLOAT8_E8M0);
        SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << dst << " view " << view << " m " << p.m << " n "
                                          << p.n << " ends " << ::testing::PrintToString(p.ends));
        MxArgs a;
        a.x = p.x->get();
        a.group = group64->get();
        a.dst_type = dst;
        a.scale_alg = 1;
        a.y = y1;
        a.scale_out = s1;
        a.y2 = p.y->get();
        a.scale2_out = p.s->get();
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const auto xv = p.x->values();
        std::vector<int> wy, ws;
        ref_quant(xv, {p.m, p.n}, 1, cf, &wy, &ws);
        EXPECT_EQ(codes_of(y1), wy) << "y1Out";
        EXPECT_EQ(codes_of(s1), ws) << "y1ScaleOut";
        ref_grouped(xv, p.m, p.n, p.ends, cf, &wy, &ws);
        EXPECT_EQ(codes_of(*p.y), wy) << "y2Out";
        EXPECT_EQ(codes_of(*p.s), ws) << "y2ScaleOut";
        if (HasFailure()) return;
      }
}

TEST_P(OpTableMxGroupedDual, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  DeviceTensor x(Shape{64, 64}, ACL_BF16), gi(Shape{2}, ACL_INT64), y1(Shape{64, 64}, ACL_FLOAT8_E4M3FN),
      s1(Shape{64, 1, 2}, ACL_FLOAT8_E8M0), y2(Shape{64, 64}, ACL_FLOAT8_E4M3FN), s2(Shape{3, 64, 2}, ACL_FLOAT8_E8M0);
  gi.set_values({32, 64});
  MxArgs good;
  good.x = x;
  good.group = gi;
  good.scale_alg = 1;
  good.y = y1;
  good.scale_out = s1;
  good.y2 = y2;
  good.scale2_out = s2;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"groupIndex", &MxArgs::group}, {"y1Out", &MxArgs::y}, {"y1ScaleOut", &MxArgs::scale_out}, {"y2Out", &MxArgs::y2}, {"y2ScaleOut", &MxArgs::scale2_out}});
  DeviceTensor x96(Shape{64, 96}, ACL_BF16), g32(Shape{2}, ACL_INT32), s1bad(Shape{64, 2, 2}, ACL_FLOAT8_E8M0),
      s2bad(Shape{2, 64, 2}, ACL_FLOAT8_E8M0), y1f4(Shape{64, 64}, ACL_FLOAT4_E2M1);
  static char floor_[] = "floor";
  expect_bads(c, good, {{"x", "N not a multiple of 64", [&](MxArgs &b) { b.x = x96; }},
                        {"groupIndex", "INT32", [&](MxArgs &b) { b.group = g32; }},
                        {"dstDtype", "FLOAT4", [&](MxArgs &b) { b.dst_type = ACL_FLOAT4_E2M1; b.y = y1f4; }},
                        {"scaleAlg", "0", [&](MxArgs &b) { b.scale_alg = 0; }},
                        {"maxDtypeValue", "non-zero", [&](MxArgs &b) { b.dst_type_max = 448.0; }},
                        {"roundModeOptional", "floor", [&](MxArgs &b) { b.round_mode = floor_; }},
                        {"y1ScaleOut", "shape", [&](MxArgs &b) { b.scale_out = s1bad; }},
                        {"y2ScaleOut", "shape", [&](MxArgs &b) { b.scale2_out = s2bad; }},
                        {"y2Out", "overlaps y1Out", [&](MxArgs &b) { b.y2 = y1; }}});
}

// DynamicDualLevelMxQuant: x (* smooth, in x's dtype) / (max|x| / 6 per 512) in x's dtype, then MX FLOAT4_E2M1 per 32.
TEST_P(OpTableMxDualLevel, BothLevelsAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (lfref::Mode mode : {lfref::kRint, lfref::kRound, lfref::kFloor})
      for (int k = 0; k < 4; ++k) {
        const int view = k % 3;
        const bool with_smooth = k % 2 == 0;
        Shape shape;
        const int nd = 1 + static_cast<int>(g() % 3);
        for (int d = 0; d + 1 < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % 3));
        shape.push_back(2 * (1 + static_cast<int64_t>(g() % 700)));
        const int64_t n = shape.back(), rows = numel_of(shape) / n;
        SCOPED_TRACE(::testing::Message() << "x " << xdt << " mode " << mode << " view " << view << " smooth "
                                          << with_smooth << " shape " << ::testing::PrintToString(shape));
        Dev x = make_view(shape, xdt, view);
        auto vals = mx_values(g, numel_of(shape));
        if (k == 3) std::fill(vals.begin(), vals.begin() + std::min<int64_t>(n, 512), 0.0);  // a zero level-0 block
        x->set_values(vals);
        Dev sm;
        if (with_smooth) {
          sm = view == 1 ? padded_view({n}, xdt, 1) : std::make_unique<DeviceTensor>(Shape{n}, xdt);
          sm->fill_random(-2, 2);
        }
        Shape s0shape = shape;
        s0shape.back() = (n + 511) / 512;
        DeviceTensor y(shape, ACL_FLOAT4_E2M1), s0(s0shape, ACL_FLOAT), s1(scale_shape_of(shape, nd - 1, 32), ACL_FLOAT8_E8M0);
        MxArgs a;
        a.x = x->get();
        a.smooth = sm ? sm->get() : nullptr;
        a.round_mode = mode_name(mode);
        a.y = y;
        a.scale_out = s0;
        a.scale2_out = s1;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        auto xv = x->values();
        const auto smv = sm ? sm->values() : std::vector<double>{};
        std::vector<double> want_s0(static_cast<size_t>(rows * s0shape.back()));
        for (int64_t r = 0; r < rows; ++r) {
          double *row = xv.data() + r * n;
          if (sm)
            for (int64_t j = 0; j < n; ++j) row[j] = round_to(xdt, row[j] * smv[j]);
          for (int64_t b = 0; b * 512 < n; ++b) {
            double amax = 0;
            for (int64_t j = b * 512; j < std::min(n, b * 512 + 512); ++j) amax = std::max(amax, std::fabs(row[j]));
            const double s = static_cast<float>(amax / 6.0);
            want_s0[r * s0shape.back() + b] = s;
            for (int64_t j = b * 512; j < std::min(n, b * 512 + 512); ++j)
              row[j] = s == 0 ? 0.0 : round_to(xdt, static_cast<float>(row[j] / s));
          }
        }
        EXPECT_EQ(s0.values(), want_s0) << "level0ScaleOut";
        Config cf;
        cf.dst = ACL_FLOAT4_E2M1;
        cf.mode = mode;
        std::vector<int> wy, ws;
        ref_quant(xv, shape, nd - 1, cf, &wy, &ws);
        EXPECT_EQ(codes_of(y), wy) << "yOut";
        EXPECT_EQ(codes_of(s1), ws) << "level1ScaleOut";
        if (HasFailure()) return;
      }
}

TEST_P(OpTableMxDualLevel, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const Shape shape{2, 512};
  DeviceTensor x(shape, ACL_BF16), sm(Shape{512}, ACL_BF16), y(shape, ACL_FLOAT4_E2M1), s0(Shape{2, 1}, ACL_FLOAT),
      s1(Shape{2, 8, 2}, ACL_FLOAT8_E8M0);
  MxArgs good;
  good.x = x;
  good.smooth = sm;
  good.y = y;
  good.scale_out = s0;
  good.scale2_out = s1;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"yOut", &MxArgs::y}, {"level0ScaleOut", &MxArgs::scale_out}, {"level1ScaleOut", &MxArgs::scale2_out}});
  auto expect = [&](const MxArgs &a, const char *name, const char *what) { expect_invalid(c, a, name, what); };
  DeviceTensor xf(shape, ACL_FLOAT), xe(Shape{0, 512}, ACL_BF16), xodd(Shape{2, 511}, ACL_BF16), sm16(Shape{512}, ACL_FLOAT16),
      sm2(Shape{1, 512}, ACL_BF16), sm256(Shape{256}, ACL_BF16), ye(shape, ACL_FLOAT4_E1M2), s0f16(Shape{2, 1}, ACL_FLOAT16),
      s0bad(Shape{2, 2}, ACL_FLOAT), s1bad(Shape{2, 16, 2}, ACL_FLOAT8_E8M0);
  static char ceil_[] = "ceil";
  MxArgs a = good;
  expect_bads(c, good, {{"x", "FLOAT", [&](MxArgs &b) { b.x = xf; }},
                        {"x", "empty", [&](MxArgs &b) { b.x = xe; }},
                        {"x", "odd last dim", [&](MxArgs &b) { b.x = xodd; }}});
  a = good;
  for (aclTensor *bad : {sm16.get(), sm2.get(), sm256.get()}) {
    a.smooth = bad;
    expect(a, "smoothScaleOptional", "dtype / shape");
  }
  expect_bads(c, good, {{"roundModeOptional", "ceil", [&](MxArgs &b) { b.round_mode = ceil_; }},
                        {"level0BlockSize", "256", [&](MxArgs &b) { b.level0_block = 256; }},
                        {"level1BlockSize", "64", [&](MxArgs &b) { b.blocksize = 64; }},
                        {"yOut", "E1M2", [&](MxArgs &b) { b.y = ye; }},
                        {"level0ScaleOut", "dtype", [&](MxArgs &b) { b.scale_out = s0f16; }},
                        {"level0ScaleOut", "shape", [&](MxArgs &b) { b.scale_out = s0bad; }},
                        {"level1ScaleOut", "shape", [&](MxArgs &b) { b.scale2_out = s1bad; }}});
}

// MxToBlockMxQuant: per 32 x 32 block, exponent = max row scale - MAX_OFFSET (>= 0), y = x * 2^(row - block).
TEST_P(OpTableMxToBlock, EveryFormatPairAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType src : c.dtypes)
    for (aclDataType dst : {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2})
      for (int k = 0; k < 4; ++k) {
        const int max_offset = emax_of(dst) - emax_of(src);  // the documented 13 / 15 / 6 / 8
        const bool batched = k % 2;
        const int64_t batch = batched ? 2 : 1, m = 64 * (1 + static_cast<int64_t>(g() % 2)),
                      n = 2 * (1 + static_cast<int64_t>(g() % 50));
        const Shape shape = batched ? Shape{batch, m, n} : Shape{m, n};
        const Shape sshape = scale_shape_of(shape, shape.size() - 1, 32);
        SCOPED_TRACE(::testing::Message() << src << " -> " << dst << " shape " << ::testing::PrintToString(shape));
        DeviceTensor x(shape, src), ms(sshape, ACL_FLOAT8_E8M0), y(shape, dst),
            s1(sshape, ACL_FLOAT8_E8M0), s2(scale_shape_of(shape, shape.size() - 2, 32), ACL_FLOAT8_E8M0);
        auto *xp = static_cast<uint8_t *>(x.data());
        auto *sp = static_cast<uint8_t *>(ms.data());
        std::vector<int> xc(static_cast<size_t>(numel_of(shape))), sc(static_cast<size_t>(numel_of(sshape)));
        for (size_t i = 0; i < xc.size(); ++i) {
          xc[i] = static_cast<int>(g() % 16);
          xp[i >> 1] = static_cast<uint8_t>((i & 1) ? (xp[i >> 1] & 0x0F) | (xc[i] << 4) : (xp[i >> 1] & 0xF0) | xc[i]);
        }
        for (size_t i = 0; i < sc.size(); ++i) {
          const int u = static_cast<int>(g() % 100);
          sc[i] = u == 0 ? 255 : u < 10 ? u % 5 : 110 + u % 30;  // NaN, below MAX_OFFSET, ordinary
          sp[i] = static_cast<uint8_t>(sc[i]);
        }
        MxArgs a;
        a.x = x;
        a.scale = ms;
        a.dst_type = dst;
        a.y = y;
        a.scale_out = s1;
        a.scale2_out = s2;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const int64_t cb = (n + 31) / 32, cp = sshape[sshape.size() - 2], rp = m / 64;
        std::vector<int> wy(xc.size()), w1(sc.size(), 0), w2(static_cast<size_t>(batch * rp * n * 2), 0);
        const lfref::Fmt fs = lfref::fmt_of(src), fd = lfref::fmt_of(dst);
        for (int64_t b = 0; b < batch; ++b)
          for (int64_t r = 0; r < m / 32; ++r)
            for (int64_t cc = 0; cc < cb; ++cc) {
              auto row_code = [&](int64_t i) { return sc[((b * m + r * 32 + i) * cp + cc / 2) * 2 + (cc & 1)]; };
              int top = 0;
              for (int64_t i = 0; i < 32; ++i) top = std::max(top, row_code(i));
              const int bc = top == 255 ? 255 : std::max(0, top - max_offset);
              for (int64_t i = 0; i < 32; ++i) {
                w1[((b * m + r * 32 + i) * cp + cc / 2) * 2 + (cc & 1)] = bc;
                for (int64_t j = cc * 32; j < std::min(n, cc * 32 + 32); ++j) {
                  const int64_t e = (b * m + r * 32 + i) * n + j;
                  wy[e] = bc == 255 || row_code(i) == 255
                              ? 0x7F
                              : lfref::encode(fd, lfref::value(fs, xc[e]) * std::ldexp(1.0, row_code(i) - bc), lfref::kRint);
                  w2[((b * rp + r / 2) * n + j) * 2 + (r & 1)] = bc;
                }
              }
            }
        EXPECT_EQ(codes_of(y), wy) << "y";
        EXPECT_EQ(codes_of(s1), w1) << "scale1";
        EXPECT_EQ(codes_of(s2), w2) << "scale2";
        if (HasFailure()) return;
      }
}

TEST_P(OpTableMxToBlock, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const Shape shape{64, 2};
  DeviceTensor x(shape, ACL_FLOAT4_E2M1), ms(Shape{64, 1, 2}, ACL_FLOAT8_E8M0), y(shape, ACL_FLOAT8_E4M3FN),
      s1(Shape{64, 1, 2}, ACL_FLOAT8_E8M0), s2(Shape{1, 2, 2}, ACL_FLOAT8_E8M0);
  std::memset(x.data(), 0x12, 64);
  std::memset(ms.data(), 128, 128);
  MxArgs good;
  good.x = x;
  good.scale = ms;
  good.y = y;
  good.scale_out = s1;
  good.scale2_out = s2;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(codes_of(y)[0], 0x68);  // 0x12's low nibble: E2M1 1.0, times 2^6 (MAX_OFFSET E2M1 -> E4M3FN) = 64
  EXPECT_EQ(codes_of(y)[1], 0x60);  // high nibble 0.5 -> 32
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"mxscale", &MxArgs::scale}, {"y", &MxArgs::y}, {"scale1", &MxArgs::scale_out}, {"scale2", &MxArgs::scale2_out}});
  DeviceTensor x8(shape, ACL_FLOAT8_E4M3FN), x1(Shape{128}, ACL_FLOAT4_E2M1), x32(Shape{32, 2}, ACL_FLOAT4_E2M1),
      x3(Shape{64, 3}, ACL_FLOAT4_E2M1), msbad(Shape{64, 2, 2}, ACL_FLOAT8_E8M0), y5(shape, ACL_FLOAT8_E5M2),
      s2bad(Shape{2, 2, 2}, ACL_FLOAT8_E8M0), msf(Shape{64, 1, 2}, ACL_FLOAT);
  expect_bads(c, good, {{"x", "FLOAT8", [&](MxArgs &b) { b.x = x8; }},
                        {"x", "1-D", [&](MxArgs &b) { b.x = x1; }},
                        {"x", "M 32", [&](MxArgs &b) { b.x = x32; }},
                        {"x", "odd N", [&](MxArgs &b) { b.x = x3; }},
                        {"dstType", "FLOAT4", [&](MxArgs &b) { b.dst_type = ACL_FLOAT4_E2M1; }},
                        {"y", "dtype other than dstType", [&](MxArgs &b) { b.y = y5; }},
                        {"mxscale", "shape", [&](MxArgs &b) { b.scale = msbad; }},
                        {"mxscale", "dtype", [&](MxArgs &b) { b.scale = msf; }},
                        {"scale2", "shape", [&](MxArgs &b) { b.scale2_out = s2bad; }},
                        {"scale1", "shape", [&](MxArgs &b) { b.scale_out = s2; }}});
}

// AntiMxQuant: random codes and scales -> decode(x) * 2^(s - 127) rounded to y's dtype, exactly.
TEST_P(OpTableAntiMx, EveryFormatAndOutputAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (aclDataType ydt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
      for (int k = 0; k < 6; ++k) {
        const bool strided = !fp4(xdt) && k % 2;
        Shape shape;
        const int nd = 1 + static_cast<int>(g() % 4);
        for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % 4));
        const int axis = static_cast<int>(g() % nd);
        shape[axis] = 1 + static_cast<int64_t>(g() % 150);
        if (fp4(xdt) && shape.back() % 2) ++shape.back();
        SCOPED_TRACE(::testing::Message() << "x " << xdt << " y " << ydt << " shape "
                                          << ::testing::PrintToString(shape) << " axis " << axis << " strided " << strided);
        Dev x = strided ? padded_view(shape, xdt, 3) : std::make_unique<DeviceTensor>(shape, xdt);
        const Shape sshape = scale_shape_of(shape, axis, 32);
        Dev s = strided ? padded_view(sshape, ACL_FLOAT8_E8M0, 3) : std::make_unique<DeviceTensor>(sshape, ACL_FLOAT8_E8M0);
        DeviceTensor y(shape, ydt);
        const lfref::Fmt f = lfref::fmt_of(xdt);
        auto *xp = static_cast<uint8_t *>(x->data());
        auto *sp = static_cast<uint8_t *>(s->data());
        std::vector<int> xc(static_cast<size_t>(numel_of(shape))), sc(static_cast<size_t>(numel_of(sshape)));
        for (size_t i = 0; i < xc.size(); ++i) {
          do xc[i] = static_cast<int>(g() % (1u << f.bits));
          while (std::isnan(lfref::value(f, xc[i])));
          if (fp4(xdt)) {
            uint8_t &b = xp[i >> 1];
            b = static_cast<uint8_t>((i & 1) ? (b & 0x0F) | (xc[i] << 4) : (b & 0xF0) | xc[i]);
          } else {
            xp[elem_offset(*x, static_cast<int64_t>(i), strided ? 3 : 0)] = static_cast<uint8_t>(xc[i]);
          }
        }
        for (size_t i = 0; i < sc.size(); ++i) {
          sc[i] = g() % 20 == 0 ? 255 : 100 + static_cast<int>(g() % 50);
          sp[elem_offset(*s, static_cast<int64_t>(i), strided ? 3 : 0)] = static_cast<uint8_t>(sc[i]);
        }
        MxArgs a;
        a.x = x->get();
        a.scale = s->get();
        a.y = y;
        a.axis = axis - (k % 3 == 0 ? nd : 0);
        a.dst_type = ydt;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const Lines L(shape, axis);
        const int64_t pairs = sshape[axis];
        std::vector<double> want(xc.size());
        for (int64_t p = 0; p < L.pre; ++p)
          for (int64_t i = 0; i < L.n; ++i)
            for (int64_t q = 0; q < L.post; ++q) {
              const int64_t e = (p * L.n + i) * L.post + q, b = i / 32;
              const int sv = sc[((p * pairs + b / 2) * L.post + q) * 2 + (b & 1)];
              want[e] = sv == 255 ? NAN : round_to(ydt, lfref::value(f, xc[e]) * std::ldexp(1.0, sv - 127));
            }
        const auto got = y.values();
        for (size_t i = 0; i < want.size(); ++i) {
          if (std::isnan(want[i])) ASSERT_TRUE(std::isnan(got[i])) << i;
          else ASSERT_EQ(got[i], want[i]) << i << " code " << xc[i];
        }
        EXPECT_TRUE(y.untouched_outside_view());
      }
}

TEST_P(OpTableAntiMx, QuantThenDequantGivesXBackWithinAStep) {
  const MxTableCase &c = GetParam();
  // The quantiser from the whole table, whatever this run's sample holds.
  static const std::vector<MxTableCase> every = mxquant_table_cases();
  const MxTableCase *q = nullptr;
  for (const auto &o : every)
    if (o.api == "aclnnDynamicMxQuant") q = &o;
  ASSERT_NE(q, nullptr) << "no DynamicMxQuant row in the MX table";
  auto &g = rng();
  for (aclDataType dst : c.dtypes) {
    Config cf;
    cf.dst = dst;
    QuantProblem p;
    p.shape = {3, 96};
    p.axis = 1;
    p.x = std::make_unique<DeviceTensor>(p.shape, ACL_FLOAT);
    p.x->set_values(mx_values(g, 3 * 96));
    p.y = std::make_unique<DeviceTensor>(p.shape, dst);
    p.s = std::make_unique<DeviceTensor>(Shape{3, 2, 2}, ACL_FLOAT8_E8M0);
    ASSERT_EQ(run(*q, p.args(cf)), 0) << aclGetRecentErrMsg();
    DeviceTensor back(p.shape, ACL_FLOAT);
    MxArgs a;
    a.x = p.y->get();
    a.scale = p.s->get();
    a.y = back;
    a.dst_type = ACL_FLOAT;
    ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
    const auto xv = p.x->values(), bv = back.values();
    const auto sv = codes_of(*p.s);
    const lfref::Fmt f = lfref::fmt_of(dst);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t i = 0; i < 96; ++i) {
        const int64_t b = i / 32;
        const double scale = std::ldexp(1.0, sv[(r * 2 + b / 2) * 2 + (b & 1)] - 127);
        // x / scale < 2^(emax + 1): the error is at most 2^(emax + 1) - max (saturation), which also bounds
        // half the largest gap between neighbouring values
        const double step = (std::ldexp(1.0, emax_of(dst) + 1) - lfref::max_finite(f)) * scale;
        EXPECT_LE(std::fabs(bv[r * 96 + i] - xv[r * 96 + i]), step) << dst << " " << r << "," << i;
      }
  }
}

TEST_P(OpTableAntiMx, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const Shape shape{4, 64};
  DeviceTensor x(shape, ACL_FLOAT8_E4M3FN), s(Shape{4, 1, 2}, ACL_FLOAT8_E8M0), y(shape, ACL_BF16);
  std::memset(x.data(), 0, 256);
  std::memset(s.data(), 127, 8);
  MxArgs good;
  good.x = x;
  good.scale = s;
  good.y = y;
  good.dst_type = ACL_BF16;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  expect_nulls(c, good, {{"x", &MxArgs::x}, {"mxscale", &MxArgs::scale}, {"y", &MxArgs::y}});
  DeviceTensor xf(shape, ACL_FLOAT), x4odd(Shape{4, 63}, ACL_FLOAT4_E2M1), y63(Shape{4, 63}, ACL_BF16),
      sbad(Shape{4, 2, 2}, ACL_FLOAT8_E8M0), sf(Shape{4, 1, 2}, ACL_FLOAT), y16(shape, ACL_FLOAT16),
      yshape(Shape{4, 32}, ACL_BF16);
  auto x4strided = std::make_unique<DeviceTensor>(shape, ACL_FLOAT4_E2M1, Shape{1, 4}, 0);
  auto ystrided = std::make_unique<DeviceTensor>(shape, ACL_BF16, Shape{128, 1}, 0);
  expect_bads(c, good, {{"x", "FLOAT x", [&](MxArgs &b) { b.x = xf; }},
                        {"x", "odd FLOAT4 last dim", [&](MxArgs &b) { b.x = x4odd; b.y = y63; b.scale = s; }},
                        {"x", "strided FLOAT4", [&](MxArgs &b) { b.x = x4strided->get(); }},
                        {"axis", "out of range", [&](MxArgs &b) { b.axis = 2; }},
                        {"dstType", "INT8", [&](MxArgs &b) { b.dst_type = 2; }},
                        {"y", "dtype other than dstType", [&](MxArgs &b) { b.y = y16; }},
                        {"y", "shape", [&](MxArgs &b) { b.y = yshape; }},
                        {"y", "contiguous", [&](MxArgs &b) { b.y = ystrided->get(); }},
                        {"mxscale", "shape", [&](MxArgs &b) { b.scale = sbad; }},
                        {"mxscale", "dtype", [&](MxArgs &b) { b.scale = sf; }}});
}

// ---- SwigluMxQuant, SwigluMxQuantWithDualAxis, SituMxQuant: the gate in float64, then the MX rules. ----

struct Gate {
  int64_t mode = 0;  // swigluMode
  bool situ = false, left = true;
  bool dual = false;  // the dual-axis ops' documented activateLeft: true puts the gate in the second half
  double alpha = 1.702, limit = 7.0, bias = 1.0, beta = 1.0, lbeta = 0.0;
};

double sigmoid64(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The documented gate of one (glu, linear) pair.
double gate_of(const Gate &q, double g, double u) {
  if (q.situ) return q.beta * std::tanh(g / q.beta) * sigmoid64(g) * (q.lbeta > 0 ? q.lbeta * std::tanh(u / q.lbeta) : u);
  if (q.mode == 0) return g * sigmoid64(g) * u;
  const double uc = std::min(std::max(u, -q.limit), q.limit);
  if (q.mode == 3) return std::min(g * sigmoid64(g), q.limit) * uc;
  const double gc = std::min(g, q.limit);
  return gc * sigmoid64(q.alpha * gc) * (uc + q.bias);
}

// x (row-major over shape) gated along adim: the act values, row-major over shape with adim halved.
std::vector<double> ref_act(const std::vector<double> &x, const Shape &shape, int adim, const Gate &q) {
  const Lines L(shape, adim);
  const int64_t h = L.n / 2;
  std::vector<double> out(static_cast<size_t>(L.pre * h * L.post));
  for (int64_t p = 0; p < L.pre; ++p)
    for (int64_t k = 0; k < L.post; ++k)
      for (int64_t j = 0; j < h; ++j) {
        auto at = [&](int64_t i) { return x[(p * L.n + i) * L.post + k]; };
        const bool pairs = !q.situ && q.mode == 1;
        const double first = pairs ? at(2 * j) : at(j), second = pairs ? at(2 * j + 1) : at(h + j);
        const bool glu_first = pairs || (q.dual ? !q.left : q.left);
        out[(p * h + j) * L.post + k] = gate_of(q, glu_first ? first : second, glu_first ? second : first);
      }
  return out;
}

// The swiglu gate's gradient of x (row-major over shape, gated along the last dim) for dy (row-major over
// shape with the last dim halved): d gate = dy hidden silu'(gate), d hidden = dy silu(gate), in x's places.
std::vector<double> ref_act_grad(const std::vector<double> &x, const std::vector<double> &dy, const Shape &shape,
                                 const Gate &q) {
  const int64_t n = shape.back(), h = n / 2, rows = numel_of(shape) / std::max<int64_t>(n, 1);
  const int64_t gi = q.left ? h : 0, ui = q.left ? 0 : h;  // the dual-axis reading of activateLeft
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < h; ++j) {
      const double g = x[r * n + gi + j], u = x[r * n + ui + j], d = dy[r * h + j], sg = sigmoid64(g);
      out[r * n + gi + j] = d * u * sg * (1 + g * (1 - sg));
      out[r * n + ui + j] = d * g * sg;
    }
  return out;
}

// y / scales against act quantised by the reference rules, act being known to kEps (the kernel's fp32 gate): a
// scale must be one of those of amax (1 -+ kEps), each code between those of v -+ (kEps |v| + 1e-6 amax) under
// the scale got.
void expect_act_quant(const std::vector<double> &act, const Shape &shape, int axis, const Config &cf,
                      const DeviceTensor &y, const DeviceTensor &s, const char *what) {
  const double kEps = 2e-5;
  const Lines L(shape, axis);
  const int64_t blocks = (L.n + 31) / 32, pairs = (blocks + 1) / 2;
  const lfref::Fmt f = lfref::fmt_of(cf.dst);
  const auto got_y = codes_of(y), got_s = codes_of(s);
  int bad = 0;
  for (int64_t p = 0; p < L.pre; ++p)
    for (int64_t k = 0; k < L.post; ++k)
      for (int64_t b = 0; b < 2 * pairs && bad < 5; ++b) {
        const int sg = got_s[((p * pairs + b / 2) * L.post + k) * 2 + (b & 1)];
        if (b >= blocks) {
          if (sg != 0) {
            ADD_FAILURE() << what << " scale pad " << b << " = " << sg << ", want 0";
            ++bad;
          }
          continue;
        }
        auto at = [&](int64_t i) { return (p * L.n + i) * L.post + k; };
        double amax = 0;
        for (int64_t i = b * 32; i < std::min(L.n, (b + 1) * 32); ++i) amax = std::max(amax, std::fabs(act[at(i)]));
        if (sg != ref_scale(amax * (1 - kEps), cf) && sg != ref_scale(amax * (1 + kEps), cf)) {
          ADD_FAILURE() << what << " scale of block " << b << " (line " << p << ", " << k << ") = " << sg << ", want "
                        << ref_scale(amax, cf) << " (amax " << amax << ")";
          ++bad;
          continue;
        }
        const double scale = std::ldexp(1.0, sg - 127);
        for (int64_t i = b * 32; i < std::min(L.n, (b + 1) * 32); ++i) {
          const double v = act[at(i)], dv = kEps * std::fabs(v) + 1e-6 * amax;  // + absolute: silu' has a root
          const double d1 = lfref::value(f, lfref::encode(f, (v - dv) / scale, cf.mode)),
                       d2 = lfref::value(f, lfref::encode(f, (v + dv) / scale, cf.mode)),
                       dg = lfref::value(f, got_y[at(i)]);
          if (!(dg >= std::min(d1, d2) && dg <= std::max(d1, d2))) {
            ADD_FAILURE() << what << "[" << at(i) << "] decodes to " << dg << " x 2^" << sg - 127 << ", want "
                          << d1 << " (act " << v << ")";
            ++bad;
          }
        }
      }
}

class OpTableMxSwiglu : public ::testing::TestWithParam<MxTableCase> {};
class OpTableMxSwigluDual : public ::testing::TestWithParam<MxTableCase> {};

// The valid configurations of a gated row: configs() with a non-zero maxDtypeValue only under scaleAlg 2,
// and scaleAlg 0 only without the parameter (SituMxQuant).
std::vector<Config> act_configs(const MxTableCase &c, aclDataType xdt) {
  std::vector<Config> v;
  for (const Config &cf : configs(c, xdt))
    if ((cf.dtm == 0 || cf.alg == 2) && (c.has("scale_alg") || cf.alg == 0)) v.push_back(cf);
  return v;
}

Gate random_gate(std::mt19937_64 &g, const MxTableCase &c, int64_t mode) {
  Gate q;
  q.mode = mode;
  q.situ = c.kind == "kSitu";
  q.dual = c.kind == "kSwigluDual" || c.kind == "kSwigluGradDual";
  q.left = g() % 2 == 0;
  const double limits[] = {0.5, 3.0, 7.0}, betas[] = {0.5, 1.0, 4.0}, lbetas[] = {0.0, 2.0};
  q.limit = limits[g() % 3];
  q.alpha = g() % 2 ? 1.702 : 0.75;
  q.bias = g() % 2 ? 1.0 : -0.5;
  q.beta = betas[g() % 3];
  q.lbeta = lbetas[g() % 2];
  return q;
}

MxArgs gate_args(const Gate &q, const Config &cf) {
  MxArgs a;
  a.swiglu_mode = q.mode;
  a.activate_left = q.left;
  a.clamp_limit = q.limit;
  a.glu_alpha = q.alpha;
  a.glu_bias = q.bias;
  a.beta = static_cast<float>(q.beta);
  a.linear_beta = static_cast<float>(q.lbeta);
  a.dst_type = cf.dst;
  a.scale_alg = cf.alg;
  a.round_mode = mode_name(cf.mode);
  a.dst_type_max = cf.dtm;
  return a;
}

// Gate inputs: mostly within the clamp limits, some beyond, some zeros.
std::vector<double> gate_values(std::mt19937_64 &g, int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> u(-4, 4);
  for (auto &e : v) e = g() % 16 == 0 ? 0.0 : g() % 8 == 0 ? 3 * u(g) : u(g);
  return v;
}

// SwigluMxQuant (every swigluMode, activateDim, axis) and SituMxQuant (the last dim, every axis).
TEST_P(OpTableMxSwiglu, EveryModeDtypeAndFormatAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  const bool situ = c.kind == "kSitu";
  for (aclDataType xdt : c.dtypes)
    for (const Config &cf : act_configs(c, xdt))
      for (int64_t mode = 0; mode < (situ ? 1 : 4); ++mode) {
        const Gate q = random_gate(g, c, mode);
        const int view = static_cast<int>(g() % 3);
        Shape shape;
        const int nd = 1 + static_cast<int>(g() % 4);
        for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % 4));
        const int adim = situ ? nd - 1 : static_cast<int>(g() % nd);
        const int axis = mode == 2 || nd == 1 ? nd - 1 : static_cast<int>(g() % nd);
        shape[axis] = 1 + static_cast<int64_t>(g() % 90);
        shape[adim] = 2 * (shape[adim] / 2 + 1);
        Shape as = shape;
        as[adim] /= 2;
        if (fp4(cf.dst) && as.back() % 2) as.back() += 1, shape.back() = adim == nd - 1 ? 2 * as.back() : as.back();
        SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << cf.dst << " alg " << cf.alg << " round "
                                          << cf.mode << " dtm " << cf.dtm << " view " << view << " swigluMode " << mode
                                          << " left " << q.left << " shape " << ::testing::PrintToString(shape)
                                          << " activateDim " << adim << " axis " << axis);
        Dev x = make_view(shape, xdt, view);
        x->set_values(gate_values(g, numel_of(shape)));
        DeviceTensor y(as, cf.dst), s(scale_shape_of(as, axis, 32), ACL_FLOAT8_E8M0);
        MxArgs a = gate_args(q, cf);
        a.x = x->get();
        a.y = y;
        a.scale_out = s;
        a.activate_dim = adim - (g() % 2 ? nd : 0);
        a.axis = axis - (g() % 2 ? nd : 0);
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        expect_act_quant(ref_act(x->values(), shape, adim, q), as, axis, cf, y, s, "yOut");
        EXPECT_TRUE(s.untouched_outside_view());
        if (HasFailure()) return;
      }
}

// groupIndexOptional: the rows of x (dim 0) from the groups' total on quantise a zero gate; groupMode 0 reads
// cumulative ends (the last), 1 counts (the sum); a total outside [0, rows] fails the launch.
// (a suite of the rows with groupIndexOptional only: a skipped case would mark its whole ctest chunk skipped)
class OpTableMxSwigluGrouped : public ::testing::TestWithParam<MxTableCase> {};
TEST_P(OpTableMxSwigluGrouped, GroupIndexZeroesTheRowsPastItsTotal) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (int64_t mode : {0, 1})
    for (aclDataType gdt : {ACL_INT64, ACL_INT32})
      for (int axis : {0, 1, 2}) {
        const Shape shape{37, 3, 2 * (1 + static_cast<int64_t>(g() % 40))};
        Shape as = shape;
        as[2] /= 2;
        const int64_t total = static_cast<int64_t>(g() % 38);
        std::vector<double> gv = mode == 0 ? std::vector<double>{double(total / 2), double(total)}
                                           : std::vector<double>{double(total / 3), double(total - total / 3)};
        SCOPED_TRACE(::testing::Message() << "groupMode " << mode << " dtype " << gdt << " axis " << axis
                                          << " rows " << total << " shape " << ::testing::PrintToString(shape));
        DeviceTensor x(shape, ACL_BF16), gi(Shape{2}, gdt), y(as, ACL_FLOAT8_E4M3FN),
            s(scale_shape_of(as, axis, 32), ACL_FLOAT8_E8M0);
        x.set_values(gate_values(g, numel_of(shape)));
        gi.set_values(gv);
        Config cf;
        MxArgs a = gate_args(Gate{}, cf);
        a.x = x;
        a.group = gi;
        a.group_mode = mode;
        a.y = y;
        a.scale_out = s;
        a.axis = axis;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        auto act = ref_act(x.values(), shape, 2, Gate{});
        std::fill(act.begin() + total * as[1] * as[2], act.end(), 0.0);
        expect_act_quant(act, as, axis, cf, y, s, "yOut");
        if (HasFailure()) return;
      }
  DeviceTensor x(Shape{4, 64}, ACL_BF16), gi(Shape{2}, ACL_INT64), y(Shape{4, 32}, ACL_FLOAT8_E4M3FN),
      s(Shape{4, 1, 2}, ACL_FLOAT8_E8M0);
  MxArgs a;
  a.x = x;
  a.group = gi;
  a.y = y;
  a.scale_out = s;
  for (const auto &[mode, v] : std::vector<std::pair<int64_t, std::vector<double>>>{
           {0, {2, 5}}, {1, {3, 2}}, {1, {-1, 0}}, {0, {4, -1}}}) {
    gi.set_values(v);
    a.group_mode = mode;
    y.poison();
    EXPECT_EQ(run(c, a), ACLNN_ERR_PARAM_INVALID) << "groupMode " << mode << " " << ::testing::PrintToString(v);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("groupIndexOptional"), std::string::npos);
    for (int code : codes_of(y)) ASSERT_EQ(code, 0xFF) << "written despite the failure";
  }
}

TEST_P(OpTableMxSwiglu, EmptyTensors) {
  const MxTableCase &c = GetParam();
  for (const Shape &shape : {Shape{0, 64}, Shape{3, 0}, Shape{2, 0, 4}}) {
    Shape as = shape;
    as.back() /= 2;
    DeviceTensor x(shape, ACL_FLOAT16), y(as, ACL_FLOAT8_E4M3FN), s(scale_shape_of(as, 0, 32), ACL_FLOAT8_E8M0);
    MxArgs a;
    a.x = x;
    a.y = y;
    a.scale_out = s;
    a.axis = 0;
    EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  }
}

TEST_P(OpTableMxSwiglu, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const bool situ = c.kind == "kSitu";
  const Shape shape{4, 128}, as{4, 64};
  DeviceTensor x(shape, ACL_BF16), y(as, ACL_FLOAT8_E4M3FN), s(Shape{4, 1, 2}, ACL_FLOAT8_E8M0);
  MxArgs good;
  good.x = x;
  good.y = y;
  good.scale_out = s;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  const char *yname = "yOut", *sname = situ ? "yScaleOut" : "mxscaleOut";
  expect_nulls(c, good, {{"x", &MxArgs::x}, {yname, &MxArgs::y}, {sname, &MxArgs::scale_out}});
  DeviceTensor xi(shape, ACL_INT32), xf(shape, ACL_FLOAT), x8(Shape{1, 1, 1, 1, 1, 1, 1, 128}, ACL_BF16),
      xodd(Shape{4, 127}, ACL_BF16), yfull(shape, ACL_FLOAT8_E4M3FN), y5(as, ACL_FLOAT8_E5M2),
      yf4(as, ACL_FLOAT4_E2M1), sf(Shape{4, 1, 2}, ACL_FLOAT), s2(Shape{4, 2, 2}, ACL_FLOAT8_E8M0),
      x6(Shape{4, 6}, ACL_BF16), y3(Shape{4, 3}, ACL_FLOAT4_E2M1), s3(Shape{4, 1, 2}, ACL_FLOAT8_E8M0),
      g32(Shape{2}, ACL_INT64), xo0(Shape{3, 128}, ACL_BF16), gf(Shape{2}, ACL_FLOAT), g2d(Shape{1, 2}, ACL_INT64),
      xeven0(Shape{8, 64}, ACL_BF16), y0(Shape{4, 64}, ACL_FLOAT8_E4M3FN), s0(Shape{4, 1, 2}, ACL_FLOAT8_E8M0);
  auto ystrided = std::make_unique<DeviceTensor>(as, ACL_FLOAT8_E4M3FN, Shape{128, 1}, 0);
  static char floor_[] = "floor";
  std::vector<Bad> bads = {{"x", "dtype INT32", [&](MxArgs &b) { b.x = xi; }},
                           {"x", "FLOAT", [&](MxArgs &b) { b.x = xf; }},
                           {"x", "rank 8", [&](MxArgs &b) { b.x = x8; }},
                           {"x", "odd activated dim", [&](MxArgs &b) { b.x = xodd; }},
                           {"axis", "out of range", [&](MxArgs &b) { b.axis = 2; }},
                           {"dstType", "INT8", [&](MxArgs &b) { b.dst_type = 2; }},
                           {yname, "x's shape, not halved", [&](MxArgs &b) { b.y = yfull; }},
                           {yname, "dtype other than dstType", [&](MxArgs &b) { b.y = y5; }},
                           {yname, "strided", [&](MxArgs &b) { b.y = ystrided->get(); }},
                           {sname, "dtype", [&](MxArgs &b) { b.scale_out = sf; }},
                           {sname, "shape", [&](MxArgs &b) { b.scale_out = s2; }},
                           {"roundModeOptional", "floor for FLOAT8", [&](MxArgs &b) { b.round_mode = floor_; }},
                           {"x", "odd activation last dim with FLOAT4", [&](MxArgs &b) {
                              b.x = x6; b.y = y3; b.scale_out = s3; b.dst_type = ACL_FLOAT4_E2M1;
                            }},
                           {yname, "over x", [&](MxArgs &b) { b.y = x; }}};
  if (situ) {
    bads.push_back({"beta", "0", [&](MxArgs &b) { b.beta = 0.0f; }});
    bads.push_back({"beta", "inf", [&](MxArgs &b) { b.beta = INFINITY; }});
  } else {
    bads.push_back({"activateDim", "out of range", [&](MxArgs &b) { b.activate_dim = 2; }});
    bads.push_back({"activateDim", "odd dim 0", [&](MxArgs &b) { b.activate_dim = 0; b.x = xo0; }});
    bads.push_back({"swigluMode", "4", [&](MxArgs &b) { b.swiglu_mode = 4; }});
    bads.push_back({"swigluMode", "-1", [&](MxArgs &b) { b.swiglu_mode = -1; }});
    bads.push_back({"clampLimit", "0 with mode 1", [&](MxArgs &b) { b.swiglu_mode = 1; b.clamp_limit = 0; }});
    bads.push_back({"clampLimit", "NaN with mode 3", [&](MxArgs &b) { b.swiglu_mode = 3; b.clamp_limit = NAN; }});
    bads.push_back({"groupMode", "2", [&](MxArgs &b) { b.group_mode = 2; }});
    bads.push_back({"groupIndexOptional", "FLOAT", [&](MxArgs &b) { b.group = gf; }});
    bads.push_back({"groupIndexOptional", "2-D", [&](MxArgs &b) { b.group = g2d; }});
    bads.push_back({"groupIndexOptional", "with activateDim 0", [&](MxArgs &b) {
                      b.group = g32; b.activate_dim = 0; b.x = xeven0; b.y = y0; b.scale_out = s0;
                    }});
    bads.push_back({"axis", "dim 0 with swigluMode 2", [&](MxArgs &b) { b.swiglu_mode = 2; b.axis = 0; }});
    bads.push_back({"scaleAlg", "3", [&](MxArgs &b) { b.scale_alg = 3; }});
    bads.push_back({"scaleAlg", "2 with FLOAT8", [&](MxArgs &b) { b.scale_alg = 2; }});
    bads.push_back({"maxDtypeValue", "6 with FLOAT8", [&](MxArgs &b) { b.dst_type_max = 6; }});
    bads.push_back({"maxDtypeValue", "6 with scaleAlg 0", [&](MxArgs &b) {
                      b.dst_type = ACL_FLOAT4_E2M1; b.y = yf4; b.dst_type_max = 6;
                    }});
    bads.push_back({"maxDtypeValue", "13", [&](MxArgs &b) {
                      b.dst_type = ACL_FLOAT4_E2M1; b.y = yf4; b.scale_alg = 2; b.dst_type_max = 13;
                    }});
  }
  expect_bads(c, good, bads);
}

// WithDualAxis: the swiglu gate along the last dim, then dims -1 (y1Out, mxscale1Out) and -2 (y2Out, mxscale2Out).
TEST_P(OpTableMxSwigluDual, BothAxesAgainstFloat64) {
  reseed_for_current_test();
  const MxTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType xdt : c.dtypes)
    for (const Config &cf : act_configs(c, xdt)) {
      const Gate q = random_gate(g, c, 0);
      const int view = static_cast<int>(g() % 3);
      Shape shape;
      const int nd = 2 + static_cast<int>(g() % 3);
      for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % (d + 2 >= nd ? 80 : 3)));
      shape.back() = 2 * shape.back();
      if (fp4(cf.dst) && shape.back() % 4) shape.back() += 2;
      Shape half = shape;
      half.back() /= 2;
      const bool grad = c.kind == "kSwigluGradDual";
      const Shape as = grad ? shape : half;  // the quantised values: the gradient of x, or the gate's output
      SCOPED_TRACE(::testing::Message() << "x " << xdt << " dst " << cf.dst << " alg " << cf.alg << " round " << cf.mode
                                        << " dtm " << cf.dtm << " view " << view << " left " << q.left << " shape "
                                        << ::testing::PrintToString(shape));
      Dev x = make_view(shape, xdt, view), dy = make_view(half, xdt, static_cast<int>(g() % 3));
      x->set_values(gate_values(g, numel_of(shape)));
      dy->set_values(gate_values(g, numel_of(half)));
      DeviceTensor y1(as, cf.dst), y2(as, cf.dst), s1(scale_shape_of(as, nd - 1, 32), ACL_FLOAT8_E8M0),
          s2(scale_shape_of(as, nd - 2, 32), ACL_FLOAT8_E8M0);
      MxArgs a = gate_args(q, cf);
      a.x = x->get();
      if (grad) a.dy = dy->get();
      a.y = y1;
      a.scale_out = s1;
      a.y2 = y2;
      a.scale2_out = s2;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      const auto act = grad ? ref_act_grad(x->values(), dy->values(), shape, q) : ref_act(x->values(), shape, nd - 1, q);
      expect_act_quant(act, as, nd - 1, cf, y1, s1, "y1Out");
      expect_act_quant(act, as, nd - 2, cf, y2, s2, "y2Out");
      if (HasFailure()) return;
    }
}

TEST_P(OpTableMxSwigluDual, ErrorsNameTheArgument) {
  const MxTableCase &c = GetParam();
  const bool grad = c.kind == "kSwigluGradDual";
  const Shape shape{40, 128}, half{40, 64}, as = grad ? shape : half;
  DeviceTensor x(shape, ACL_BF16), dy(half, ACL_BF16), y1(as, ACL_FLOAT8_E4M3FN), y2(as, ACL_FLOAT8_E4M3FN),
      s1(Shape{40, grad ? 2 : 1, 2}, ACL_FLOAT8_E8M0), s2(Shape{1, as[1], 2}, ACL_FLOAT8_E8M0);
  MxArgs good;
  good.x = x;
  if (grad) good.dy = dy;
  good.y = y1;
  good.scale_out = s1;
  good.y2 = y2;
  good.scale2_out = s2;
  ASSERT_EQ(run(c, good), 0) << aclGetRecentErrMsg();
  std::vector<std::pair<const char *, Field>> nulls = {{"x", &MxArgs::x}, {"y1Out", &MxArgs::y},
                                                       {"mxscale1Out", &MxArgs::scale_out}, {"y2Out", &MxArgs::y2},
                                                       {"mxscale2Out", &MxArgs::scale2_out}};
  if (grad) nulls.push_back({"yGrad", &MxArgs::dy});
  expect_nulls(c, good, nulls);
  DeviceTensor x1(Shape{128}, ACL_BF16), xodd(Shape{40, 127}, ACL_BF16), y2f4(as, ACL_FLOAT4_E2M1),
      s2bad(Shape{2, as[1], 2}, ACL_FLOAT8_E8M0), y2shape(Shape{40, grad ? 64 : 128}, ACL_FLOAT8_E4M3FN),
      g32(Shape{2}, ACL_INT64), dyf(half, ACL_FLOAT16), dyshape(shape, ACL_BF16);
  std::vector<Bad> bads = {{"x", "1-D", [&](MxArgs &b) { b.x = x1; }},
                           {"x", "odd last dim", [&](MxArgs &b) { b.x = xodd; }},
                           {"groupIndexOptional", "given", [&](MxArgs &b) { b.group = g32; }},
                           {grad ? "dstDtype" : "dstType", "INT32", [&](MxArgs &b) { b.dst_type = 3; }},
                           {"y2Out", "dtype", [&](MxArgs &b) { b.y2 = y2f4; }},
                           {"y2Out", "shape", [&](MxArgs &b) { b.y2 = y2shape; }},
                           {"mxscale2Out", "shape", [&](MxArgs &b) { b.scale2_out = s2bad; }},
                           {"y2Out", "overlaps y1Out", [&](MxArgs &b) { b.y2 = y1; }},
                           {"scaleAlg", "2 with FLOAT8", [&](MxArgs &b) { b.scale_alg = 2; }},
                           {"maxDtypeValue", "6 with FLOAT8", [&](MxArgs &b) { b.dst_type_max = 6; }}};
  if (grad) {
    bads.push_back({"yGrad", "dtype other than x's", [&](MxArgs &b) { b.dy = dyf; }});
    bads.push_back({"yGrad", "x's shape", [&](MxArgs &b) { b.dy = dyshape; }});
    bads.push_back({"y1Out", "over yGrad (a BF16 y1Out)", [&](MxArgs &b) { b.y = dy; }});
  }
  expect_bads(c, good, bads);
}

INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxQuant, ::testing::ValuesIn(pick("kQuant")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxDual, ::testing::ValuesIn(pick("kDual")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxBlock, ::testing::ValuesIn(pick("kBlock")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxGrouped, ::testing::ValuesIn(pick("kGrouped")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxGroupedDual, ::testing::ValuesIn(pick("kGroupedDual")),
                         harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxDualLevel, ::testing::ValuesIn(pick("kDualLevel")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxToBlock, ::testing::ValuesIn(pick("kToBlock")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableAntiMx, ::testing::ValuesIn(pick("kAnti")), harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxSwiglu, ::testing::ValuesIn(pick_gated()), harness::case_name<MxTableCase>);
std::vector<MxTableCase> pick_gated_grouped() {
  std::vector<MxTableCase> v;
  for (const MxTableCase &c : pick_gated())
    if (c.has("group")) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxSwigluGrouped, ::testing::ValuesIn(pick_gated_grouped()),
                         harness::case_name<MxTableCase>);
INSTANTIATE_TEST_SUITE_P(Tables, OpTableMxSwigluDual, ::testing::ValuesIn(pick_dual_gated()),
                         harness::case_name<MxTableCase>);

}  // namespace
}  // namespace opsnn::test

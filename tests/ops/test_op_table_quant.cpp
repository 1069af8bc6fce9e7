// The test harness of the quantisation table (src/ops/quant/quant.ops), cases
// registered from the table by tools/gen_ops.py --tests
// (quant_table_cases.inc). Each row runs the suite of its kind against float64
// references written here (ops/quant/quant_phase1.h states the formulas):
//   - integer outputs exactly: inputs are multiples of 1/8 and scales powers of
//   two, so x * scale and
//     x / scale are exact in fp32 and float64 alike and the .5 ties of every
//     roundMode appear on purpose; saturation at both ends; INT4 / INT32 nibble
//     packing (odd values, low nibble first);
//   - DynamicQuant on random data: scales to FLOAT's precision, y exact except
//   within 1e-3 of a .5
//     tie (fp32 and float64 quotients may fall on either side there); rows of
//     zeros give scale 0 and y 0; smooth scales, group indices, asymmetric
//     offsets, per-tensor / per-channel modes;
//   - floating outputs (anti-quant, fake-quant, dequant-bias) within
//   precision.md's tolerance;
//   - every dtype of the row, non-contiguous x, empty x, and the errors naming
//   their argument.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "low_float_ref.h"
#include "op_table_harness.h"
#include "ops/quant/quant_phase1.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using ops::QuantKind;

struct QuantArgs {
  aclTensor *x = nullptr, *scale = nullptr, *offset = nullptr, *smooth = nullptr, *group = nullptr;
  aclTensor *act_scale = nullptr, *bias = nullptr, *y = nullptr, *scale_out = nullptr, *offset_out = nullptr;
  aclTensor *mask = nullptr, *amax = nullptr;
  bool sqrt_mode = false, symmetric = true;
  char *round_mode = const_cast<char *>("round");
  char *quant_mode = const_cast<char *>("pertoken");
  const char *approximate = "none";
  bool activate_left = true;
  int64_t group_list_type = 0, activate_dim = -1, swiglu_mode = 0;
  double clamp_limit = 7.0, glu_alpha = 1.702, glu_bias = 1.0;
  int64_t dst_type = 2, axis = -1, quant_min = -128, quant_max = 127;
  aclDataType dst_dtype = ACL_INT8;
  double dst_type_max = 0.0, enabled = 1.0;
  double min_scale = 0.0;
  int64_t row_block = 1, col_block = 128;
  double situ_beta = 4.0, situ_linear_beta = 25.0;
  aclTensor *p1 = nullptr, *p2 = nullptr;  // FlatQuant
  double clip_ratio = 1.0;
};

using Launch = int (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

struct QuantTableCase {
  std::string name, api;
  QuantKind kind = QuantKind::kAscendQuant;
  std::vector<aclDataType> dtypes;
  std::vector<std::string> roles, names;
  int (*phase1)(const QuantArgs &, uint64_t *, aclOpExecutor **) = nullptr;
  Launch launch = nullptr;
  bool has(const char *role) const { return std::find(roles.begin(), roles.end(), role) != roles.end(); }
};
void PrintTo(const QuantTableCase &c, std::ostream *os) { *os << c.name; }

#include "quant_table_cases.inc"

const std::vector<QuantTableCase> &all_cases() {
  static const std::vector<QuantTableCase> c = harness::sampled(quant_table_cases());
  return c;
}
// The rows of these kinds; DequantSituQuant (a dequant_swiglu_quant row with the situ gate) has its own suite.
std::vector<QuantTableCase> cases_of(std::initializer_list<QuantKind> kinds, bool situ = false) {
  std::vector<QuantTableCase> v;
  for (const auto &c : all_cases())
    if (std::find(kinds.begin(), kinds.end(), c.kind) != kinds.end() && c.has("situ_beta") == situ) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;

int run(const QuantTableCase &c, const QuantArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
}

// Phase 1 of `a` changed by `edit` fails with `code`, its message containing
// every word.
::testing::AssertionResult rejects(const QuantTableCase &c, QuantArgs a, const std::function<void(QuantArgs &)> &edit,
                                   int code, std::initializer_list<const char *> words) {
  edit(a);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  return fails_with(c.phase1(a, &ws, &ex), code, words);
}

// The arguments most error tests start from: x, scale (weightScale), y and dstType (outputDtype).
QuantArgs base_args(aclTensor *x, aclTensor *scale, aclTensor *y, int64_t dst) {
  QuantArgs a;
  a.x = x;
  a.scale = scale;
  a.y = y;
  a.dst_type = dst;
  return a;
}

// ---- float64 references

// Rounding by roundMode of a value (ties to even for "round").
double round_mode_ref(double v, const std::string &mode) {
  if (mode == "floor") return std::floor(v);
  if (mode == "ceil") return std::ceil(v);
  if (mode == "trunc") return std::trunc(v);
  const double f = std::floor(v), d = v - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1;  // the tie: the even neighbour
}
double saturate(double v, double lo, double hi) { return std::isnan(v) ? 0.0 : std::min(hi, std::max(lo, v)); }

// Random multiples of 1/8 in [-lim, lim] (exact in FLOAT16 / BF16 for |v| <
// 32).
std::vector<double> eighths(int64_t count, double lim) {
  std::uniform_int_distribution<int> d(static_cast<int>(-lim * 8), static_cast<int>(lim * 8));
  std::vector<double> v(static_cast<size_t>(count));
  for (double &e : v) e = d(rng()) / 8.0;
  return v;
}

// The integer values of an INT8 / packed INT4 / INT32-of-INT4 output
// (contiguous from its start).
std::vector<int> read_ints(const DeviceTensor &y, int64_t count) {
  if (y.dtype() == ACL_INT8) {
    std::vector<int> v;
    for (double e : y.values()) v.push_back(static_cast<int>(e));
    return v;
  }
  std::vector<uint8_t> bytes(static_cast<size_t>((count + 1) / 2));
  if (!bytes.empty())
    EXPECT_EQ(aclrtMemcpy(bytes.data(), bytes.size(), y.data(), bytes.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  std::vector<int> v(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    const int nib = (bytes[static_cast<size_t>(e / 2)] >> ((e % 2) * 4)) & 15;  // low nibble first
    v[static_cast<size_t>(e)] = nib >= 8 ? nib - 16 : nib;
  }
  return v;
}

// y for x of `shape` and an integer destination dstType (INT32: last dim / 8).
Dev make_int_y(std::vector<int64_t> shape, int64_t dst) {
  const aclDataType dt = dst == 2 ? ACL_INT8 : dst == 29 ? ACL_INT4 : ACL_INT32;
  if (dt == ACL_INT32) shape.back() /= 8;
  return std::make_unique<DeviceTensor>(shape, dt);
}

Dev make_x(const std::vector<int64_t> &shape, aclDataType dt, bool strided) {
  return strided ? padded_view(shape, dt, 2) : std::make_unique<DeviceTensor>(shape, dt);
}

// ---- AscendQuant / AscendQuantV3

class QuantFixture : public ::testing::TestWithParam<QuantTableCase> {
 protected:
  void SetUp() override { reseed_for_current_test(); }
};
class OpTableQuantAscend : public QuantFixture {};
class OpTableQuantize : public QuantFixture {};
class OpTableQuantGroup : public QuantFixture {};
class OpTableQuantAnti : public QuantFixture {};
class OpTableQuantDynamic : public QuantFixture {};
class OpTableQuantFake : public QuantFixture {};
class OpTableQuantDequantBias : public QuantFixture {};
class OpTableQuantMax : public QuantFixture {};
class OpTableQuantGelu : public QuantFixture {};
class OpTableQuantSwiGlu : public QuantFixture {};
class OpTableQuantDequantSwiGlu : public QuantFixture {};

// One AscendQuant call: x (shape, dtype), scale / offset of `count` values
// along axis, checked exactly.
void ascend_case(const QuantTableCase &c, aclDataType dt, std::vector<int64_t> shape, int axis, int64_t count,
                 bool with_offset, bool sqrt_mode, const std::string &mode, int64_t dst, bool strided) {
  SCOPED_TRACE(::testing::Message() << c.name << " " << dt << " x " << ::testing::PrintToString(shape) << " axis "
                                    << axis << " count " << count << " offset " << with_offset << " sqrt " << sqrt_mode
                                    << " " << mode << " dst " << dst << " strided " << strided);
  const int nd = static_cast<int>(shape.size());
  const int ax = axis < 0 ? axis + nd : axis;
  Dev x = make_x(shape, dt, strided);
  const std::vector<double> xv = eighths(numel_of(shape), 24);
  x->set_values(xv);
  // strided: x and an INT8 y padded, scale / offset of x's rank (1 but along axis)
  std::vector<int64_t> pshape{count};
  if (strided) {
    pshape.assign(shape.size(), 1);
    pshape[static_cast<size_t>(ax)] = count;
  }
  DeviceTensor scale(pshape, dt), offset(pshape, dt);
  std::vector<double> sv(static_cast<size_t>(count)), ov(static_cast<size_t>(count));
  const double pows[] = {0.5, 1.0, 2.0, 4.0, 0.25};
  for (int64_t k = 0; k < count; ++k) {
    sv[static_cast<size_t>(k)] = (k % 3 == 2 ? -1 : 1) * pows[k % 5];
    ov[static_cast<size_t>(k)] = static_cast<double>(k % 7) - 3.0 + (k % 2 ? 0.5 : 0.0);
  }
  scale.set_values(sv);
  offset.set_values(ov);
  Dev y = dst == 2 && strided ? padded_view(shape, ACL_INT8, 2) : make_int_y(shape, dst);
  QuantArgs a = base_args(*x, scale, *y, dst);
  a.offset = with_offset ? offset.get() : nullptr;
  a.sqrt_mode = sqrt_mode;
  a.round_mode = const_cast<char *>(mode.c_str());
  a.axis = axis;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  const double lo = dst == 2 ? -128 : -8, hi = dst == 2 ? 127 : 7;
  const std::vector<int> got = read_ints(*y, numel_of(shape));
  int64_t inner = 1;
  for (int d = ax + 1; d < nd; ++d) inner *= shape[static_cast<size_t>(d)];
  for (int64_t i = 0; i < numel_of(shape); ++i) {
    const int64_t k = count == 1 ? 0 : (i / inner) % shape[static_cast<size_t>(ax)];
    double s = sv[static_cast<size_t>(k)];
    if (sqrt_mode) s *= s;
    const double v = xv[static_cast<size_t>(i)] * s + (with_offset ? ov[static_cast<size_t>(k)] : 0.0);
    const double want = saturate(round_mode_ref(v, mode), lo, hi);
    ASSERT_EQ(got[static_cast<size_t>(i)], static_cast<int>(want)) << "element " << i << " value " << v;
  }
}

TEST_P(OpTableQuantAscend, Exact) {
  const QuantTableCase &c = GetParam();
  const bool v3 = c.has("axis");
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (const char *mode : {"round", "floor", "ceil", "trunc"})
      for (int64_t dst : {2, 29, 3}) {
        ++v;
        ascend_case(c, dt, {3, 4, 16}, -1, 16, v % 2 == 0, v % 3 == 0, mode, dst, v % 2 == 1);
        ascend_case(c, dt, {5, 8}, -1, 1, true, false, mode, dst, false);
        if (v3) ascend_case(c, dt, {2, 6, 8}, -2, 6, v % 2 == 1, false, mode, dst, v % 2 == 0);
        if (HasFatalFailure()) return;
      }
}

TEST_P(OpTableQuantAscend, EmptyAndErrors) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({0, 8}, ACL_FLOAT), s({8}, ACL_FLOAT), y({0, 8}, ACL_INT8);
  QuantArgs a = base_args(x, s, y, 2);
  EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  DeviceTensor x2({2, 8}, ACL_FLOAT), y2({2, 8}, ACL_INT8), bad_s({3}, ACL_FLOAT), y4({2, 8}, ACL_INT4),
      xh({2, 8}, ACL_FLOAT16), x_odd({2, 7}, ACL_FLOAT), y_odd({2, 7}, ACL_INT4);
  a.x = x2;
  a.y = y2;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"x"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = bad_s; }, ACLNN_ERR_PARAM_INVALID, {"scale", "[3]"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.round_mode = const_cast<char *>("hybrid"); }, ACLNN_ERR_PARAM_INVALID,
                      {"roundMode", "hybrid"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 35; }, ACLNN_ERR_PARAM_INVALID,
                      {"dstType", "FLOAT8_E5M2", "not supported"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 7; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  // dstType 2 with an INT4 y; a FLOAT16 x with a FLOAT scale
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = y4; }, ACLNN_ERR_PARAM_INVALID, {"y", "INT4"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xh; }, ACLNN_ERR_PARAM_INVALID, {"scale"}));
  EXPECT_TRUE(rejects(c, a,
                      [&](QuantArgs &b) {
                        b.x = x_odd;
                        b.y = y_odd;
                        b.dst_type = 29;
                      },
                      ACLNN_ERR_PARAM_INVALID, {"x", "even"}));
  if (c.has("axis")) {  // V3: only x's last two dims
    DeviceTensor x3({2, 3, 8}, ACL_FLOAT), y3({2, 3, 8}, ACL_INT8), s3({2}, ACL_FLOAT);
    EXPECT_TRUE(rejects(c, a,
                        [&](QuantArgs &b) {
                          b.axis = 0;
                          b.x = x3;
                          b.y = y3;
                          b.scale = s3;
                        },
                        ACLNN_ERR_PARAM_INVALID, {"axis"}));
  }
}

// ---- Quantize (PyTorch's quantize_per_tensor / per_channel)

TEST_P(OpTableQuantize, ExactAndErrors) {
  const QuantTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (aclDataType qd : {ACL_INT8, ACL_UINT8, ACL_INT32})
      for (int axis : {0, 1, 2, -1})
        for (bool per_tensor : {false, true}) {
          const std::vector<int64_t> shape{3, 5, 4};
          const int ax = axis < 0 ? axis + 3 : axis;
          const int64_t cnt = per_tensor ? 1 : shape[static_cast<size_t>(ax)];
          SCOPED_TRACE(::testing::Message() << dt << " " << qd << " axis " << axis << " per_tensor " << per_tensor);
          Dev x = make_x(shape, dt, axis == 1);
          const std::vector<double> xv = eighths(60, 30);
          x->set_values(xv);
          DeviceTensor s({cnt}, ACL_FLOAT), z({cnt}, ACL_INT32), y(shape, qd);
          std::vector<double> sv, zv;
          for (int64_t k = 0; k < cnt; ++k) {
            sv.push_back(k % 2 ? 0.125 : 0.25);
            zv.push_back(qd == ACL_UINT8 ? 100 + k : static_cast<double>(k) - 2);
          }
          s.set_values(sv);
          z.set_values(zv);
          QuantArgs a = base_args(*x, s, y, 2);
          const bool zp = !(per_tensor && axis == 2);  // zeroPoints null: 0
          a.offset = zp ? z.get() : nullptr;
          a.dst_dtype = qd;
          a.axis = axis;
          ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
          const double lo = qd == ACL_INT8 ? -128 : qd == ACL_UINT8 ? 0 : -2147483648.0;
          const double hi = qd == ACL_INT8 ? 127 : qd == ACL_UINT8 ? 255 : 2147483647.0;
          const std::vector<double> got = y.values();
          int64_t inner = 1;
          for (int d = ax + 1; d < 3; ++d) inner *= shape[static_cast<size_t>(d)];
          for (int64_t i = 0; i < 60; ++i) {
            const int64_t k = cnt == 1 ? 0 : (i / inner) % shape[static_cast<size_t>(ax)];
            const double q = round_mode_ref(xv[static_cast<size_t>(i)] / sv[static_cast<size_t>(k)], "round") +
                             (zp ? zv[static_cast<size_t>(k)] : 0.0);
            ASSERT_EQ(got[static_cast<size_t>(i)], saturate(q, lo, hi)) << "element " << i;
          }
        }
  // Errors: dtype argument, out dtype, axis, scales length.
  DeviceTensor x({2, 4}, ACL_FLOAT), s({4}, ACL_FLOAT), z({4}, ACL_INT32), y({2, 4}, ACL_INT8), s3({3}, ACL_FLOAT);
  QuantArgs a = base_args(x, s, y, 2);
  a.offset = z;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_dtype = ACL_FLOAT; }, ACLNN_ERR_PARAM_INVALID, {"dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_dtype = ACL_UINT8; }, ACLNN_ERR_PARAM_INVALID, {"out"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.axis = 2; }, ACLNN_ERR_PARAM_INVALID, {"axis"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = s3; }, ACLNN_ERR_PARAM_INVALID, {"scales"}));
}

// ---- GroupQuant

TEST_P(OpTableQuantGroup, ExactAndErrors) {
  const QuantTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (int64_t dst : {2, 29, 3})
      for (bool with_offset : {false, true}) {
        SCOPED_TRACE(::testing::Message() << dt << " dst " << dst << " offset " << with_offset);
        const int64_t S = 9, H = 16, E = 3;
        Dev x = make_x({S, H}, dt, with_offset);
        const std::vector<double> xv = eighths(S * H, 20);
        x->set_values(xv);
        DeviceTensor s({E, H}, dt), gi({E}, ACL_INT64), o({1}, dt);
        std::vector<double> sv;
        for (int64_t k = 0; k < E * H; ++k)
          sv.push_back((k % 3 - 1 == 0 ? -1 : 1) * std::ldexp(1.0, static_cast<int>(k % 4) - 1));
        s.set_values(sv);
        const std::vector<double> ends{2, 2, 7};  // an empty group; rows 7, 8 past the last end: group E - 1
        gi.set_values(ends);
        o.set_values({1.5});
        Dev y = make_int_y({S, H}, dst);
        QuantArgs a = base_args(*x, s, *y, dst);
        a.group = gi;
        a.offset = with_offset ? o.get() : nullptr;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const std::vector<int> got = read_ints(*y, S * H);
        const double lo = dst == 2 ? -128 : -8, hi = dst == 2 ? 127 : 7;
        for (int64_t r = 0; r < S; ++r) {
          int64_t e = E - 1;
          for (int64_t k = 0; k < E; ++k)
            if (r < ends[static_cast<size_t>(k)]) {
              e = k;
              break;
            }
          for (int64_t j = 0; j < H; ++j) {
            const double v =
                xv[static_cast<size_t>(r * H + j)] * sv[static_cast<size_t>(e * H + j)] + (with_offset ? 1.5 : 0.0);
            ASSERT_EQ(got[static_cast<size_t>(r * H + j)],
                      static_cast<int>(saturate(round_mode_ref(v, "round"), lo, hi)))
                << "row " << r << " col " << j;
          }
        }
      }
  DeviceTensor x({4, 8}, ACL_FLOAT), s({2, 8}, ACL_FLOAT), gi({3}, ACL_INT32), y({4, 8}, ACL_INT8);
  QuantArgs a = base_args(x, s, y, 2);
  a.group = gi;
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &) {}, ACLNN_ERR_PARAM_INVALID, {"groupIndex"}));  // 3 ends, 2 scale rows
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.group = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"groupIndex"}));
}

// ---- DynamicQuant V1-V4

struct DynSpec {
  aclDataType dt;
  std::vector<int64_t> shape;
  int64_t dst = 2;  // 2 INT8, 29 INT4, 3 INT32, 35 FLOAT8_E5M2, 36 FLOAT8_E4M3FN
  bool smooth = false;
  int groups = 0;  // smooth rows picked by a group index
  bool symmetric = true;
  std::string mode = "pertoken";
  bool strided = false;
};

// |t - round(t)| is within 1e-3 of a tie: fp32 and float64 quotients may round
// either way there.
bool near_tie(double t) { return std::fabs(std::fabs(t - std::floor(t)) - 0.5) < 1e-3; }

void dyn_case(const QuantTableCase &c, const DynSpec &d) {
  SCOPED_TRACE(::testing::Message() << c.name << " " << d.dt << " x " << ::testing::PrintToString(d.shape) << " dst "
                                    << d.dst << " smooth " << d.smooth << " groups " << d.groups << " symmetric "
                                    << d.symmetric << " " << d.mode << " strided " << d.strided);
  const int64_t n = d.shape.back(), total = numel_of(d.shape), rows = n == 0 ? 0 : total / n;
  Dev x = make_x(d.shape, d.dt, d.strided);
  x->fill_random(-3, 3);
  std::vector<double> xv = x->values();
  if (rows > 1)  // a row of zeros: scale 0, y 0, no NaN
    for (int64_t j = 0; j < n; ++j) xv[static_cast<size_t>(n + j)] = 0.0;
  x->set_values(xv);
  const int64_t e_rows = std::max(d.groups, 1);
  DeviceTensor sm(d.groups > 0 ? std::vector<int64_t>{e_rows, n} : std::vector<int64_t>{n}, d.dt);
  sm.fill_random(0.5, 2);
  const std::vector<double> smv = sm.values();
  DeviceTensor gi({e_rows}, ACL_INT32);
  std::vector<double> ends;
  for (int64_t e = 0; e < e_rows; ++e)
    ends.push_back(std::min<double>(rows, static_cast<double>(e == 0 ? 0 : (e + 1) * 2)));
  gi.set_values(ends);
  std::vector<int64_t> ss(d.shape.begin(), d.shape.end() - 1);
  if (d.mode == "pertensor") ss = {1};
  if (d.mode == "perchannel") ss = {n};
  DeviceTensor so(ss, ACL_FLOAT), oo(ss, ACL_FLOAT);
  const bool fp8 = d.dst == 35 || d.dst == 36;
  const lfref::Fmt f = lfref::fmt_of(static_cast<aclDataType>(d.dst));
  Dev y = fp8 ? std::make_unique<DeviceTensor>(d.shape, static_cast<aclDataType>(d.dst)) : make_int_y(d.shape, d.dst);
  QuantArgs a;
  a.x = *x;
  a.smooth = d.smooth ? sm.get() : nullptr;
  a.group = d.groups > 0 ? gi.get() : nullptr;
  a.dst_type = d.dst;
  a.symmetric = d.symmetric;
  a.quant_mode = const_cast<char *>(d.mode.c_str());
  a.y = *y;
  a.scale_out = so;
  a.offset_out = d.symmetric ? nullptr : oo.get();
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  // The reference: in = x * smooth, then the extrema per token / tensor /
  // channel.
  std::vector<double> in(static_cast<size_t>(total));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t e = e_rows - 1;
    for (int64_t k = 0; k < e_rows; ++k)
      if (r < ends[static_cast<size_t>(k)]) {
        e = k;
        break;
      }
    for (int64_t j = 0; j < n; ++j)
      in[static_cast<size_t>(r * n + j)] = xv[static_cast<size_t>(r * n + j)] *
                                           (d.smooth ? smv[static_cast<size_t>((d.groups > 0 ? e * n : 0) + j)] : 1.0);
  }
  const double M = fp8 ? lfref::max_finite(f) : d.dst == 2 ? 127 : 7, m = d.dst == 2 ? -128 : -8;
  auto key = [&](int64_t r, int64_t j) { return d.mode == "pertoken" ? r : d.mode == "pertensor" ? 0 : j; };
  const int64_t nk = static_cast<int64_t>(numel_of(ss));
  std::vector<double> mx(static_cast<size_t>(nk), -INFINITY), mn(static_cast<size_t>(nk), INFINITY);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const size_t k = static_cast<size_t>(key(r, j));
      mx[k] = std::max(mx[k], in[static_cast<size_t>(r * n + j)]);
      mn[k] = std::min(mn[k], in[static_cast<size_t>(r * n + j)]);
    }
  std::vector<double> scale(static_cast<size_t>(nk)), offset(static_cast<size_t>(nk), 0.0);
  for (size_t k = 0; k < scale.size(); ++k) {
    if (mx[k] < mn[k]) mx[k] = mn[k] = 0.0;  // no elements
    scale[k] = d.symmetric ? std::max(std::fabs(mx[k]), std::fabs(mn[k])) / M : (mx[k] - mn[k]) / (M - m);
    if (!d.symmetric && scale[k] != 0.0) offset[k] = M - mx[k] / scale[k];
  }
  EXPECT_TRUE(meets_precision(ACL_FLOAT, so.values(), scale)) << "scaleOut";
  if (!d.symmetric) {
    std::vector<double> got = oo.values();
    for (size_t k = 0; k < got.size(); ++k)
      EXPECT_NEAR(got[k], offset[k], 1e-4 * (1 + std::fabs(offset[k]))) << "offsetOut " << k;
  }
  if (fp8) {  // the codes of in / scale (half to even, saturating), exact except within 1e-5 of a boundary
    const auto *codes = static_cast<const uint8_t *>(y->data());
    for (int64_t i = 0; i < rows * n; ++i) {
      const size_t k = static_cast<size_t>(key(i / n, i % n));
      const double t = scale[k] == 0.0 ? 0.0 : in[static_cast<size_t>(i)] / scale[k];
      const int g = codes[i], want = lfref::encode(f, t, lfref::kRint);
      if (g != want && g != lfref::encode(f, t * (1 + 1e-5), lfref::kRint) &&
          g != lfref::encode(f, t * (1 - 1e-5), lfref::kRint))
        ASSERT_EQ(g, want) << "element " << i << " t " << t;
    }
    return;
  }
  const std::vector<int> got = read_ints(*y, total);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const size_t k = static_cast<size_t>(key(r, j));
      const double t = scale[k] == 0.0 ? 0.0 : in[static_cast<size_t>(r * n + j)] / scale[k] + offset[k];
      const double want = saturate(round_mode_ref(t, "round"), m, M);
      const int g = got[static_cast<size_t>(r * n + j)];
      if (near_tie(t))
        ASSERT_LE(std::fabs(g - want), 1.0) << "row " << r << " col " << j << " t " << t;
      else
        ASSERT_EQ(g, static_cast<int>(want)) << "row " << r << " col " << j << " t " << t;
    }
}

TEST_P(OpTableQuantDynamic, MatchesTheFormulas) {
  const QuantTableCase &c = GetParam();
  const bool v2 = c.has("dst_type"), v3 = c.has("symmetric");
  int v = 0;
  for (aclDataType dt : c.dtypes)
    for (int64_t dst : {2, 29, 3}) {
      ++v;
      DynSpec d{dt, {3, 5, 32}, dst};
      d.strided = v % 2 == 0;
      dyn_case(c, d);
      d.smooth = true;
      dyn_case(c, d);
      if (c.has("group")) {
        d.groups = 3;
        d.shape = {9, 16};
        dyn_case(c, d);
        d.groups = 0;
      }
      if (v2) {
        d.symmetric = false;
        dyn_case(c, d);
        d.smooth = false;
        dyn_case(c, d);
      }
      if (v3)
        for (const char *mode : {"pertensor", "perchannel"})
          for (bool sym : {true, false}) {
            DynSpec e{dt, {4, 6, 16}, dst, v % 2 == 1, 0, sym, mode, v % 2 == 0};
            dyn_case(c, e);
          }
      dyn_case(c, DynSpec{dt, {4, 37}, 2});  // a tail after the 16-lane steps
      dyn_case(c, DynSpec{dt, {2, 3, 9}, 2, true});
      dyn_case(c, DynSpec{dt, {0, 16}, dst});  // empty
      dyn_case(c, DynSpec{dt, {3, 0}, 2});     // empty rows: scale 0
      if (HasFatalFailure()) return;
    }
  if (!v2) return;
  for (aclDataType dt : c.dtypes)  // FLOAT8 outputs (V2+): the symmetric modes
    for (int64_t dst : {35, 36})
      for (bool strided : {false, true}) {
        DynSpec d{dt, {3, 5, 32}, dst};
        d.strided = strided;
        dyn_case(c, d);
        d.smooth = true;
        dyn_case(c, d);
        if (c.has("group")) dyn_case(c, DynSpec{dt, {9, 16}, dst, true, 3});
        if (v3)
          for (const char *mode : {"pertensor", "perchannel"}) dyn_case(c, DynSpec{dt, {4, 6, 16}, dst, strided, 0, true, mode, strided});
        dyn_case(c, DynSpec{dt, {0, 16}, dst});
        if (HasFatalFailure()) return;
      }
}

TEST_P(OpTableQuantDynamic, Errors) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({4, 16}, ACL_FLOAT16), sm({16}, ACL_FLOAT16), y({4, 16}, ACL_INT8), so({4}, ACL_FLOAT),
      oo({4}, ACL_FLOAT), x1({16}, ACL_FLOAT16), smb({8}, ACL_FLOAT16), sob({4, 1}, ACL_FLOAT), xf({4, 16}, ACL_FLOAT),
      gi({2}, ACL_INT32), y4({4, 16}, ACL_INT4);
  QuantArgs a;
  a.x = x;
  a.y = y;
  a.scale_out = so;
  a.offset_out = c.has("offset_out") ? oo.get() : nullptr;
  a.symmetric = false;
  EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x1; }, ACLNN_ERR_PARAM_INVALID, {"x", "2 to 8"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xf; }, ACLNN_ERR_PARAM_INVALID, {"x", "FLOAT"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.smooth = smb; }, ACLNN_ERR_PARAM_INVALID, {"smoothScalesOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = sob; }, ACLNN_ERR_PARAM_INVALID, {"scaleOut"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"scaleOut"}));
  if (c.has("group")) {
    // a group index without smooth scales
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gi; }, ACLNN_ERR_PARAM_INVALID, {"groupIndexOptional"}));
  }
  if (c.has("dst_type")) {
    EXPECT_TRUE(
        rejects(c, a, [&](QuantArgs &b) { b.dst_type = 36; }, ACLNN_ERR_PARAM_INVALID, {"dstType", "FLOAT8_E4M3FN"}));
    // dstType INT4 with an INT8 yOut
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 29; }, ACLNN_ERR_PARAM_INVALID, {"yOut"}));
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 34; }, ACLNN_ERR_PARAM_INVALID, {"dstType", "HIFLOAT8"}));
    // FLOAT8: symmetric only (V2: no offsetOut; V3 / V4: isSymmetrical true)
    DeviceTensor y8({4, 16}, ACL_FLOAT8_E4M3FN);
    QuantArgs f8 = a;
    f8.dst_type = 36;
    f8.y = y8;
    f8.offset_out = oo;
    f8.symmetric = false;
    EXPECT_TRUE(rejects(c, f8, [](QuantArgs &) {}, ACLNN_ERR_PARAM_INVALID,
                        {"symmetric", c.has("symmetric") ? "isSymmetrical" : "offsetOut"}));
    f8.symmetric = true;
    f8.offset_out = nullptr;
    EXPECT_EQ(run(c, f8), 0) << aclGetRecentErrMsg();
    if (c.has("dst_type_max")) {
      f8.dst_type_max = 448;  // FLOAT8_E4M3FN's own maximum
      EXPECT_EQ(run(c, f8), 0) << aclGetRecentErrMsg();
      EXPECT_TRUE(rejects(c, f8, [](QuantArgs &b) { b.dst_type_max = 127; }, ACLNN_ERR_PARAM_INVALID, {"dstTypeMax"}));
    }
  }
  if (c.has("symmetric")) {
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.offset_out = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"offsetOut"}));
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.quant_mode = const_cast<char *>("perblock"); },
                        ACLNN_ERR_PARAM_INVALID, {"quantMode", "perblock"}));
  }
  if (c.has("dst_type_max")) {
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type_max = 448; }, ACLNN_ERR_PARAM_INVALID, {"dstTypeMax"}));
    QuantArgs b = a;
    b.dst_type_max = 127;  // INT8's own maximum is accepted
    EXPECT_EQ(run(c, b), 0) << aclGetRecentErrMsg();
  }
}

// ---- AscendAntiQuant

TEST_P(OpTableQuantAnti, MatchesTheFormula) {
  const QuantTableCase &c = GetParam();
  for (aclDataType xt : {ACL_INT8, ACL_INT4, ACL_INT32})
    for (int64_t dst : {1, 27})
      for (bool per_channel : {false, true})
        for (bool sqrt_mode : {false, true}) {
          SCOPED_TRACE(::testing::Message()
                       << xt << " dst " << dst << " per_channel " << per_channel << " sqrt " << sqrt_mode);
          const int64_t rows = 3, n = 16, stored = xt == ACL_INT32 ? n / 8 : n;
          // The values: INT8 random; INT4 / INT32 packed nibbles written as
          // bytes.
          std::vector<int> q(static_cast<size_t>(rows * n));
          std::uniform_int_distribution<int> dist(xt == ACL_INT8 ? -128 : -8, xt == ACL_INT8 ? 127 : 7);
          for (int &e : q) e = dist(rng());
          Dev x;
          if (xt == ACL_INT8) {
            x = make_x({rows, n}, ACL_INT8, per_channel);
            x->set_values(std::vector<double>(q.begin(), q.end()));
          } else {
            x = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows, stored}, xt);
            std::vector<uint8_t> bytes(static_cast<size_t>(rows * n / 2));
            for (size_t e = 0; e < q.size(); ++e)
              bytes[e / 2] = static_cast<uint8_t>(bytes[e / 2] | ((q[e] & 15) << ((e % 2) * 4)));
            ASSERT_EQ(aclrtMemcpy(x->data(), bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE),
                      ACL_SUCCESS);
          }
          const int64_t cnt = per_channel ? n : 1;
          DeviceTensor s({cnt}, ACL_FLOAT), o({cnt}, ACL_FLOAT), y({rows, n}, dst == 1 ? ACL_FLOAT16 : ACL_BF16);
          s.fill_random(-2, 2);
          o.fill_random(-4, 4);
          const auto sv = s.values(), ov = o.values();
          QuantArgs a = base_args(*x, s, y, dst);
          const bool with_offset = per_channel || sqrt_mode;  // offset is optional
          a.offset = with_offset ? o.get() : nullptr;
          a.sqrt_mode = sqrt_mode;
          ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
          std::vector<double> want(q.size());
          for (size_t e = 0; e < q.size(); ++e) {
            const size_t k = per_channel ? e % static_cast<size_t>(n) : 0;
            const double sc = sqrt_mode ? sv[k] * sv[k] : sv[k];
            want[e] = round_to(y.dtype(), (q[e] + (with_offset ? ov[k] : 0.0)) * sc);
          }
          EXPECT_TRUE(meets_precision(y.dtype(), y.values(), want));
        }
  DeviceTensor x({2, 8}, ACL_INT8), s({8}, ACL_FLOAT), y({2, 8}, ACL_FLOAT16), s3({3}, ACL_FLOAT),
      xf({2, 8}, ACL_FLOAT);
  const QuantArgs a = base_args(x, s, y, 1);
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 0; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  // dstType BF16 with a FLOAT16 y
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 27; }, ACLNN_ERR_PARAM_INVALID, {"y"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = s3; }, ACLNN_ERR_PARAM_INVALID, {"scale"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xf; }, ACLNN_ERR_PARAM_INVALID, {"x"}));
}

// ---- FakeQuantPerTensor / PerChannelAffineCachemask (PyTorch's formulas)

TEST_P(OpTableQuantFake, MatchesPyTorchsFormula) {
  const QuantTableCase &c = GetParam();
  const bool per_channel = c.kind == QuantKind::kFakeChannel;
  for (aclDataType dt : c.dtypes)
    for (int axis : {0, 1, -1})
      for (double enabled : {1.0, 0.0}) {
        if (per_channel && enabled == 0.0) continue;
        if (!per_channel && axis != 0) continue;
        SCOPED_TRACE(::testing::Message() << dt << " axis " << axis << " enabled " << enabled);
        const std::vector<int64_t> shape{4, 3, 8};
        const int ax = axis < 0 ? axis + 3 : axis;
        const int64_t cnt = per_channel ? shape[static_cast<size_t>(ax)] : 1;
        Dev x = make_x(shape, dt, axis == 1);
        const std::vector<double> xv = eighths(96, 20);
        x->set_values(xv);
        DeviceTensor s({cnt}, ACL_FLOAT), z({cnt}, ACL_INT32), y(shape, dt), mask(shape, ACL_BOOL);
        std::vector<double> sv, zv;
        for (int64_t k = 0; k < cnt; ++k) {
          sv.push_back(k % 2 ? 0.25 : 0.5);
          zv.push_back(static_cast<double>(k % 5) - 2);
        }
        s.set_values(sv);
        z.set_values(zv);
        QuantArgs a = base_args(*x, s, y, 2);
        a.offset = z;
        a.axis = axis;
        a.quant_min = -20;
        a.quant_max = 30;
        a.enabled = enabled;
        a.mask = mask;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        int64_t inner = 1;
        for (int d = ax + 1; d < 3; ++d) inner *= shape[static_cast<size_t>(d)];
        std::vector<double> want(96), want_mask(96);
        for (int64_t i = 0; i < 96; ++i) {
          const size_t k = static_cast<size_t>(cnt == 1 ? 0 : (i / inner) % shape[static_cast<size_t>(ax)]);
          const double q = round_mode_ref(xv[static_cast<size_t>(i)] / sv[k], "round") + zv[k];
          want_mask[static_cast<size_t>(i)] = enabled == 0.0 || (q >= -20 && q <= 30);
          want[static_cast<size_t>(i)] =
              enabled == 0.0 ? xv[static_cast<size_t>(i)] : (std::min(30.0, std::max(-20.0, q)) - zv[k]) * sv[k];
        }
        EXPECT_EQ(y.values(), want);
        EXPECT_EQ(mask.values(), want_mask);
      }
  DeviceTensor x({2, 4}, ACL_FLOAT), s({per_channel ? 4 : 1}, ACL_FLOAT), z({per_channel ? 4 : 1}, ACL_INT32),
      y({2, 4}, ACL_FLOAT), mask({2, 4}, ACL_BOOL), zf({per_channel ? 4 : 1}, ACL_FLOAT), m8({2, 4}, ACL_INT8);
  QuantArgs a = base_args(x, s, y, 2);
  a.offset = z;
  a.mask = mask;
  a.axis = 1;
  EXPECT_TRUE(rejects(c, a,
                      [&](QuantArgs &b) {
                        b.quant_min = 5;
                        b.quant_max = 4;
                      },
                      ACLNN_ERR_PARAM_INVALID, {"quantMin", "quantMax"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.offset = zf; }, ACLNN_ERR_PARAM_INVALID, {c.names[2].c_str()}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.mask = m8; }, ACLNN_ERR_PARAM_INVALID, {"mask"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.mask = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"mask"}));
  if (per_channel) {
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.axis = 2; }, ACLNN_ERR_PARAM_INVALID, {"axis"}));
  }
}

// ---- DequantBias

TEST_P(OpTableQuantDequantBias, MatchesTheFormulas) {
  const QuantTableCase &c = GetParam();
  for (int64_t od : {1, 27})
    for (aclDataType bt : {ACL_DT_UNDEFINED, ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
      for (bool act : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "outputDtype " << od << " bias " << bt << " act " << act);
        const int64_t M = 5, N = 12;
        DeviceTensor x({M, N}, ACL_INT32), ws({N}, od == 1 ? ACL_FLOAT : ACL_BF16), as({M}, ACL_FLOAT),
            bias({N}, bt == ACL_DT_UNDEFINED ? ACL_FLOAT : bt), y({M, N}, od == 1 ? ACL_FLOAT16 : ACL_BF16);
        x.fill_random(-5000, 5000);
        ws.fill_random(-0.01, 0.01);
        as.fill_random(0.5, 2);
        bias.fill_random(-100, 100);
        QuantArgs a = base_args(x, ws, y, od);
        a.act_scale = act ? as.get() : nullptr;
        a.bias = bt == ACL_DT_UNDEFINED ? nullptr : bias.get();
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const auto xv = x.values(), wv = ws.values(), av = as.values(), bv = bias.values();
        std::vector<double> want(static_cast<size_t>(M * N));
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            const double s = wv[static_cast<size_t>(j)] * (act ? av[static_cast<size_t>(i)] : 1.0);
            const double xe = xv[static_cast<size_t>(i * N + j)],
                         be = bt == ACL_DT_UNDEFINED ? 0.0 : bv[static_cast<size_t>(j)];
            want[static_cast<size_t>(i * N + j)] = round_to(y.dtype(), bt == ACL_INT32 ? (xe + be) * s : xe * s + be);
          }
        EXPECT_TRUE(meets_precision(y.dtype(), y.values(), want));
      }
  DeviceTensor x({2, 4}, ACL_INT32), ws({4}, ACL_FLOAT), y({2, 4}, ACL_FLOAT16), as({3}, ACL_FLOAT),
      xf({2, 4}, ACL_FLOAT);
  const QuantArgs a = base_args(x, ws, y, 1);
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 27; }, ACLNN_ERR_PARAM_INVALID, {"outputDtype"}));
  EXPECT_TRUE(
      rejects(c, a, [&](QuantArgs &b) { b.act_scale = as; }, ACLNN_ERR_PARAM_INVALID, {"activateScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xf; }, ACLNN_ERR_PARAM_INVALID, {"x"}));
}

// ---- QuantMax / GroupedQuantMax: FLOAT8 y = cast(x * scale) (half to even, not saturating) against float64 and
// amax, per group of dim-0 slices for the grouped form (groupList: cumulative ends); HIFLOAT8 refused.

bool grouped_max(const QuantTableCase &c) { return c.api == "aclnnGroupedQuantMax"; }

TEST_P(OpTableQuantMax, Float8AgainstFloat64) {
  reseed_for_current_test();
  const QuantTableCase &c = GetParam();
  auto &g = rng();
  for (aclDataType dt : c.dtypes)
    for (aclDataType dst : {ACL_FLOAT8_E5M2, ACL_FLOAT8_E4M3FN})
      for (int k = 0; k < 4; ++k) {
        std::vector<int64_t> shape;
        const int nd = (grouped_max(c) ? 2 : 1) + static_cast<int>(g() % 2);
        for (int d = 0; d < nd; ++d) shape.push_back(1 + static_cast<int64_t>(g() % 9));
        const int64_t groups = grouped_max(c) ? 1 + static_cast<int64_t>(g() % 3) : 1;
        std::vector<double> ends;
        for (int64_t i = 0; i + 1 < groups; ++i) ends.push_back(static_cast<double>(g() % (shape[0] + 1)));
        std::sort(ends.begin(), ends.end());
        ends.push_back(static_cast<double>(shape[0]));
        SCOPED_TRACE(::testing::Message() << "x " << dt << " dst " << dst << " k " << k);
        Dev x = k % 2 ? transposed_view(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
        x->fill_random(-300, 300);
        if (k == 3) x->set_values(std::vector<double>(static_cast<size_t>(numel_of(shape)), -2e6));  // overflow
        DeviceTensor s({groups}, ACL_FLOAT), y(shape, dst), amax({groups}, dt), gl({groups}, ACL_INT64);
        std::vector<double> sv(static_cast<size_t>(groups));
        for (auto &v : sv) v = k == 2 ? 1.0 / 1024 : 0.5 + static_cast<double>(g() % 4) * 0.4;
        s.set_values(sv);
        gl.set_values(ends);
        QuantArgs a = base_args(*x, s, y, dst);
        a.amax = amax;
        a.group = grouped_max(c) ? gl.get() : nullptr;
        a.round_mode = const_cast<char *>("rint");
        ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
            << aclGetRecentErrMsg();
        const auto xv = x->values();
        const auto *codes = static_cast<const uint8_t *>(y.data());
        const int64_t per_slice = numel_of(shape) / shape[0];
        std::vector<double> want_amax(static_cast<size_t>(groups), 0.0);
        for (size_t i = 0; i < xv.size(); ++i) {
          size_t gi = 0;  // the group of x's dim-0 index
          while (gi + 1 < ends.size() && static_cast<double>(static_cast<int64_t>(i) / per_slice) >= ends[gi]) ++gi;
          want_amax[gi] = std::max(want_amax[gi], std::fabs(xv[i]));
          const float v = static_cast<float>(xv[i] * sv[gi]);  // the fp32 product
          ASSERT_EQ(codes[i], lfref::encode(lfref::fmt_of(dst), v, lfref::kRint, false)) << "x " << xv[i];
        }
        EXPECT_EQ(amax.values(), want_amax);
      }
}

TEST_P(OpTableQuantMax, ErrorsNameTheArgument) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({2, 4}, ACL_FLOAT), s({1}, ACL_FLOAT), y({2, 4}, ACL_FLOAT8_E4M3FN), amax({1}, ACL_FLOAT),
      s2({2}, ACL_FLOAT), y5({2, 4}, ACL_FLOAT8_E5M2), ybad({2, 3}, ACL_FLOAT8_E4M3FN), amax16({1}, ACL_FLOAT16),
      amax2({2}, ACL_FLOAT), gl({1}, ACL_INT64), gl32({1}, ACL_INT32), gl2d({1, 1}, ACL_INT64);
  gl.set_values({2});
  QuantArgs a = base_args(x, s, y, ACL_FLOAT8_E4M3FN);
  a.amax = amax;
  a.round_mode = const_cast<char *>("rint");
  a.group = grouped_max(c) ? gl.get() : nullptr;
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch), 0)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 34; }, ACLNN_ERR_PARAM_INVALID, {"dstType", "HIFLOAT8"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 2; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = s2; }, ACLNN_ERR_PARAM_INVALID, {"scale"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.round_mode = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"roundMode"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.round_mode = const_cast<char *>("round"); }, ACLNN_ERR_PARAM_INVALID,
                      {"roundMode"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = y5; }, ACLNN_ERR_PARAM_INVALID, {"y", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = ybad; }, ACLNN_ERR_PARAM_INVALID, {"y", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.amax = amax16; }, ACLNN_ERR_PARAM_INVALID, {"amax", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.amax = amax2; }, ACLNN_ERR_PARAM_INVALID, {"amax"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.amax = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"amax"}));
  if (!grouped_max(c)) return;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"groupList"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl32; }, ACLNN_ERR_PARAM_INVALID, {"groupList", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl2d; }, ACLNN_ERR_PARAM_INVALID, {"groupList", "1-D"}));
  for (const std::vector<double> &ends : {std::vector<double>{1}, std::vector<double>{3}}) {  // the last end != 2
    gl.set_values(ends);
    y.poison();
    EXPECT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("groupList"), std::string::npos);
    for (int v : std::vector<int>(static_cast<const uint8_t *>(y.data()), static_cast<const uint8_t *>(y.data()) + 8))
      ASSERT_EQ(v, 0xFF) << "written despite the failure";
  }
}

// ---- GeluQuant: gelu in float64 (erf or tanh form), then the static map or per-row dynamic scales.

double gelu_ref(double v, bool tanh_form) {
  if (tanh_form) return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
}

struct GeluCall {
  Dev x, scale, offset, y, scale_out;
  QuantArgs a;
};

GeluCall gelu_call(const std::vector<int64_t> &shape, aclDataType dt, bool dynamic, bool per_channel, bool offset,
                   bool strided) {
  GeluCall k;
  const int64_t n = shape.back();
  k.x = strided ? transposed_view(shape, dt) : std::make_unique<DeviceTensor>(shape, dt);
  k.x->fill_random(-4, 4);
  k.scale = std::make_unique<DeviceTensor>(std::vector<int64_t>{per_channel ? n : 1}, ACL_FLOAT);
  k.scale->fill_random(dynamic ? 0.5 : 10, dynamic ? 2 : 40);
  k.offset = std::make_unique<DeviceTensor>(std::vector<int64_t>{per_channel ? n : 1}, ACL_FLOAT);
  k.offset->fill_random(-3, 3);
  k.y = std::make_unique<DeviceTensor>(shape, ACL_INT8);
  k.y->poison();
  k.scale_out = std::make_unique<DeviceTensor>(std::vector<int64_t>(shape.begin(), shape.end() - 1), ACL_FLOAT);
  k.a = base_args(*k.x, *k.scale, *k.y, 2);
  k.a.offset = offset ? k.offset->get() : nullptr;
  k.a.scale_out = *k.scale_out;
  k.a.quant_mode = const_cast<char *>(dynamic ? "dynamic" : "static");
  k.a.round_mode = const_cast<char *>("rint");
  return k;
}

// y against float64: exact, except within 1e-3 of the rounding mode's boundary (fp32 and float64
// may fall on either side there) where one step is accepted; tie_tol 0: exact everywhere.
void check_gelu(const GeluCall &k, bool tanh_form, bool dynamic, const std::string &mode, double tie_tol) {
  const std::vector<double> xv = k.x->values(), got = k.y->values();
  const int64_t n = k.x->shape().back(), rows = static_cast<int64_t>(xv.size()) / std::max<int64_t>(n, 1);
  std::vector<double> s = k.a.scale != nullptr ? k.scale->values() : std::vector<double>{1.0};
  std::vector<double> o = k.a.offset != nullptr ? k.offset->values() : std::vector<double>{0.0};
  std::vector<double> scales;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> g(static_cast<size_t>(n));
    double amax = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double sj = s[s.size() == 1 ? 0 : j], oj = o[o.size() == 1 ? 0 : j];
      g[j] = gelu_ref(xv[r * n + j], tanh_form) * sj + (dynamic ? 0.0 : oj);
      amax = std::max(amax, std::fabs(g[j]));
    }
    const double sc = amax / 127;
    scales.push_back(sc);
    for (int64_t j = 0; j < n; ++j) {
      const double t = dynamic ? (sc == 0 ? 0.0 : g[j] / sc) : g[j];
      const double want = saturate(round_mode_ref(t, mode), -128, 127), have = got[r * n + j];
      const bool halves = mode == "rint" || mode == "round";  // the boundary: .5, else the integers
      const bool near = halves ? std::fabs(t - std::floor(t) - 0.5) < tie_tol : std::fabs(t - std::round(t)) < tie_tol;
      if (have == want || (tie_tol > 0 && near && std::fabs(have - want) == 1)) continue;
      ADD_FAILURE() << "row " << r << " col " << j << ": got " << have << ", want " << want << " (t " << t << ")";
      return;
    }
  }
  if (dynamic) EXPECT_TRUE(meets_precision(ACL_FLOAT, k.scale_out->values(), scales));
}

TEST_P(OpTableQuantGelu, RandomDataEveryDtypeAndMode) {
  const QuantTableCase &c = GetParam();
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (const char *approx : {"none", "tanh"})
      for (bool dynamic : {false, true})
        for (const char *mode : {"rint", "floor", "ceil", "trunc", "round"}) {
          SCOPED_TRACE(::testing::Message() << dt << " " << approx << " dynamic " << dynamic << " " << mode);
          const bool per_channel = variant % 2 == 0, strided = variant % 3 == 1;
          GeluCall k = gelu_call(variant % 2 ? std::vector<int64_t>{3, 5, 24} : std::vector<int64_t>{7, 33}, dt,
                                 dynamic, per_channel, variant % 4 != 3, strided);
          ++variant;
          k.a.approximate = approx;
          k.a.round_mode = const_cast<char *>(mode);
          if (dynamic && variant % 5 == 0) k.a.scale = nullptr;  // no input scale: gelu alone
          ASSERT_EQ(run(c, k.a), 0) << aclGetRecentErrMsg();
          check_gelu(k, std::string(approx) == "tanh", dynamic, mode, 1e-3);
        }
}

// gelu(x) = x exactly in fp32 and float64 for x >= 10 (erf and tanh are 1), 0 for x <= -10, so the
// quantiser's arguments are constructed halves: every one must round to even.
TEST_P(OpTableQuantGelu, ConstructedTiesRoundHalfToEven) {
  const QuantTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (bool dynamic : {false, true}) {
      GeluCall k = gelu_call({2, 8}, dt, dynamic, false, false, false);
      // static: scale 0.5 makes x / 2 halves; dynamic: max 508 gives scale 4 and x / 4 halves.
      const std::vector<double> row = dynamic ? std::vector<double>{508, 10, 14, 18, 22, 26, 30, -12}
                                              : std::vector<double>{21, 11, 13, 15, 17, 19, 25, -12};
      std::vector<double> xv;
      for (int r = 0; r < 2; ++r) xv.insert(xv.end(), row.begin(), row.end());
      k.x->set_values(xv);
      k.scale->set_values({dynamic ? 1.0 : 0.5});
      k.a.approximate = dynamic ? "tanh" : "none";
      ASSERT_EQ(run(c, k.a), 0) << aclGetRecentErrMsg();
      check_gelu(k, dynamic, dynamic, "rint", 0.0);
      const std::vector<double> got = k.y->values();
      EXPECT_EQ(got[1], dynamic ? 2.0 : 6.0);  // 2.5 -> 2, 5.5 -> 6
      EXPECT_EQ(got[2], dynamic ? 4.0 : 6.0);  // 3.5 -> 4, 6.5 -> 6
    }
}

TEST_P(OpTableQuantGelu, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  GeluCall k = gelu_call({2, 8}, ACL_FLOAT16, false, true, true, false);
  const QuantArgs &a = k.a;
  DeviceTensor s3({3}, ACL_FLOAT), si({8}, ACL_INT32), yf({2, 8}, ACL_FLOAT), so({3}, ACL_FLOAT), xi({2, 8}, ACL_INT32);
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.approximate = "fast"; }, ACLNN_ERR_PARAM_INVALID, {"approximate"}));
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.approximate = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"approximate"}));
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.quant_mode = const_cast<char *>("pertoken"); },
                      ACLNN_ERR_PARAM_INVALID, {"quantMode"}));
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.round_mode = const_cast<char *>("up"); }, ACLNN_ERR_PARAM_INVALID,
                      {"roundMode"}));
  for (int64_t d : {34, 35, 36, 3, 29, 1})
    EXPECT_TRUE(rejects(c, a, [d](QuantArgs &b) { b.dst_type = d; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.scale = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"inputScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = s3; }, ACLNN_ERR_PARAM_INVALID, {"inputScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = si; }, ACLNN_ERR_PARAM_INVALID, {"inputScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.offset = s3; }, ACLNN_ERR_PARAM_INVALID, {"inputOffsetOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = yf; }, ACLNN_ERR_PARAM_INVALID, {"y"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xi; }, ACLNN_ERR_PARAM_INVALID, {"self"}));
  QuantArgs dyn = a;
  dyn.quant_mode = const_cast<char *>("dynamic");
  EXPECT_TRUE(
      rejects(c, dyn, [](QuantArgs &b) { b.scale_out = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"outScaleOptional"}));
  EXPECT_TRUE(rejects(c, dyn, [&](QuantArgs &b) { b.scale_out = so; }, ACLNN_ERR_PARAM_INVALID, {"outScaleOptional"}));
}

TEST_P(OpTableQuantGelu, EmptyX) {
  DeviceTensor x({0, 4}, ACL_FLOAT), s({1}, ACL_FLOAT), y({0, 4}, ACL_INT8);
  QuantArgs a = base_args(x, s, y, 2);
  a.quant_mode = const_cast<char *>("static");
  a.round_mode = const_cast<char *>("rint");
  EXPECT_EQ(run(GetParam(), a), 0) << aclGetRecentErrMsg();
}

// ---- SwiGluQuant: silu(A) * B (or A * silu(B)) of x's halves, grouped rows, dynamic or static.

struct SwiGluCall {
  Dev x, smooth, offsets, group, y, scale_out;
  QuantArgs a;
  std::vector<int64_t> ends;  // cumulative row ends of the groups (empty: one group)
  bool dynamic = true;
};

// rows x 2h; G groups (0: none) with `ends`; per-channel or per-tensor smooth (and offsets when static).
SwiGluCall swiglu_call(const QuantTableCase &c, int64_t rows, int64_t h, aclDataType dt, bool dynamic,
                       const std::vector<int64_t> &ends, bool per_channel, bool counts, aclDataType ydt) {
  SwiGluCall k;
  k.ends = ends;
  k.dynamic = dynamic;
  const int64_t g = static_cast<int64_t>(ends.size());
  k.x = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows, 2 * h}, dt);
  k.x->fill_random(-3, 3);
  const std::vector<int64_t> ps = g > 0 ? (per_channel ? std::vector<int64_t>{g, h} : std::vector<int64_t>{g})
                                        : (per_channel ? std::vector<int64_t>{h} : std::vector<int64_t>{1});
  k.smooth = std::make_unique<DeviceTensor>(ps, ACL_FLOAT);
  k.smooth->fill_random(dynamic ? 0.5 : 10, dynamic ? 2 : 40);
  k.offsets = std::make_unique<DeviceTensor>(ps, ACL_FLOAT);
  k.offsets->fill_random(-3, 3);
  std::vector<double> gv;
  for (int64_t e = 0; e < g; ++e) gv.push_back(static_cast<double>(counts ? ends[e] - (e ? ends[e - 1] : 0) : ends[e]));
  k.group = std::make_unique<DeviceTensor>(std::vector<int64_t>{std::max<int64_t>(g, 1)}, ACL_INT64);
  if (g > 0) k.group->set_values(gv);
  k.y = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows, h}, ydt);
  k.y->poison();
  k.scale_out = std::make_unique<DeviceTensor>(std::vector<int64_t>{rows}, ACL_FLOAT);
  QuantArgs &a = k.a;
  a.x = *k.x;
  a.scale = *k.smooth;
  a.offset = dynamic ? nullptr : k.offsets->get();
  a.group = g > 0 ? k.group->get() : nullptr;
  a.y = *k.y;
  a.scale_out = *k.scale_out;
  a.quant_mode = const_cast<char *>(dynamic ? "dynamic" : "static");
  a.group_list_type = counts ? 1 : 0;
  a.dst_type = ydt == ACL_INT4 ? 29 : 2;
  (void)c;
  return k;
}

void check_swiglu(const SwiGluCall &k, double tie_tol) {
  const std::vector<double> xv = k.x->values();
  const int64_t rows = k.x->shape()[0], h = k.x->shape()[1] / 2;
  const bool int4 = k.y->dtype() == ACL_INT4;
  const double hi = int4 ? 7 : 127;
  const std::vector<int> got = read_ints(*k.y, rows * h);
  const std::vector<double> sv = k.a.scale != nullptr ? k.smooth->values() : std::vector<double>{};
  const std::vector<double> ov = k.a.offset != nullptr ? k.offsets->values() : std::vector<double>{};
  const int64_t per_group = sv.empty() ? 0 : static_cast<int64_t>(sv.size()) / std::max<int64_t>(k.ends.size(), 1);
  std::vector<double> scales;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t e = 0;
    while (e + 1 < static_cast<int64_t>(k.ends.size()) && r >= k.ends[e]) ++e;
    auto param = [&](const std::vector<double> &v, int64_t j, double none) {
      if (v.empty()) return none;
      return v[e * per_group + (per_group == 1 ? 0 : j)];
    };
    std::vector<double> t(static_cast<size_t>(h));
    double amax = 0;
    for (int64_t j = 0; j < h; ++j) {
      const double a = xv[r * 2 * h + j], b = xv[r * 2 * h + h + j];
      const double act = k.a.activate_left ? a / (1 + std::exp(-a)) * b : a * (b / (1 + std::exp(-b)));
      t[j] = k.dynamic ? act * param(sv, j, 1.0) : act * param(sv, j, 1.0) + param(ov, j, 0.0);
      amax = std::max(amax, std::fabs(t[j]));
    }
    const double sc = amax / hi;
    scales.push_back(sc);
    for (int64_t j = 0; j < h; ++j) {
      const double v = k.dynamic ? (sc == 0 ? 0.0 : t[j] / sc) : t[j];
      const double want = saturate(round_mode_ref(v, "round"), -hi - 1, hi), have = got[r * h + j];
      const bool near = std::fabs(v - std::floor(v) - 0.5) < tie_tol;
      if (have == want || (near && std::fabs(have - want) == 1)) continue;
      ADD_FAILURE() << "row " << r << " col " << j << ": got " << have << ", want " << want << " (" << v << ")";
      return;
    }
  }
  if (k.dynamic) EXPECT_TRUE(meets_precision(ACL_FLOAT, k.scale_out->values(), scales));
}

TEST_P(OpTableQuantSwiGlu, RandomDataEveryDtypeModeAndGrouping) {
  const QuantTableCase &c = GetParam();
  const bool v2 = c.has("group_list_type");
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (bool dynamic : {true, false})
      for (bool left : {true, false})
        for (const std::vector<int64_t> &ends : {std::vector<int64_t>{}, std::vector<int64_t>{4, 9, 12},
                                                 std::vector<int64_t>{2, 6}}) {
          SCOPED_TRACE(::testing::Message() << dt << " dynamic " << dynamic << " left " << left << " groups "
                                            << ends.size() << " variant " << variant);
          const bool counts = v2 && variant % 2 == 1;
          const aclDataType ydt = v2 && variant % 3 == 2 ? ACL_INT4 : ACL_INT8;
          SwiGluCall k = swiglu_call(c, 12, 16, dt, dynamic, ends, variant % 2 == 0, counts, ydt);
          ++variant;
          k.a.activate_left = left;
          if (dynamic && variant % 4 == 0) k.a.scale = nullptr;  // no smooth scales
          ASSERT_EQ(run(c, k.a), 0) << aclGetRecentErrMsg();
          check_swiglu(k, 2e-3);
        }
}

// silu(40) = 40 exactly in fp32 and float64 (exp(-40) is below both epsilons): with the other half in
// odd integers and a scale of 1/16 every quantiser argument is a constructed half.
TEST_P(OpTableQuantSwiGlu, ConstructedTiesRoundHalfToEven) {
  const QuantTableCase &c = GetParam();
  for (aclDataType dt : c.dtypes)
    for (bool left : {true, false}) {
      SwiGluCall k = swiglu_call(c, 2, 8, dt, false, {}, false, false, ACL_INT8);
      std::vector<double> xv;
      const std::vector<double> odd = {1, 3, 5, 7, -1, -3, -5, 9};
      for (int r = 0; r < 2; ++r)
        for (int half = 0; half < 2; ++half)
          for (double v : odd) xv.push_back((half == 0) == left ? 40.0 : v);
      k.x->set_values(xv);
      k.smooth->set_values({1.0 / 16});
      k.offsets->set_values({0.0});
      k.a.activate_left = left;
      ASSERT_EQ(run(c, k.a), 0) << aclGetRecentErrMsg();
      check_swiglu(k, 0.0);
      const std::vector<int> got = read_ints(*k.y, 16);
      EXPECT_EQ(got[0], 2);   // 2.5
      EXPECT_EQ(got[1], 8);   // 7.5
      EXPECT_EQ(got[4], -2);  // -2.5
    }
}

TEST_P(OpTableQuantSwiGlu, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  const bool v2 = c.has("group_list_type");
  SwiGluCall k = swiglu_call(c, 6, 8, ACL_FLOAT16, true, {2, 6}, true, false, ACL_INT8);
  const QuantArgs &a = k.a;
  DeviceTensor x_odd({6, 15}, ACL_FLOAT16), s_bad({3, 8}, ACL_FLOAT), gf({2}, ACL_FLOAT), y_bad({6, 16}, ACL_INT8),
      so_bad({5}, ACL_FLOAT), off({2, 8}, ACL_FLOAT);
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x_odd; }, ACLNN_ERR_PARAM_INVALID, {"x"}));
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.quant_mode = const_cast<char *>("pertoken"); },
                      ACLNN_ERR_PARAM_INVALID, {"quantModeOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = s_bad; }, ACLNN_ERR_PARAM_INVALID, {"smoothScalesOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.offset = off; }, ACLNN_ERR_PARAM_INVALID, {"offsetsOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gf; }, ACLNN_ERR_PARAM_INVALID, {"groupIndexOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = y_bad; }, ACLNN_ERR_PARAM_INVALID, {"yOut"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = so_bad; }, ACLNN_ERR_PARAM_INVALID, {"scaleOut"}));
  EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.scale_out = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"scaleOut"}));
  QuantArgs st = a;
  st.quant_mode = const_cast<char *>("static");
  EXPECT_TRUE(rejects(c, st, [](QuantArgs &b) { b.scale = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"smoothScalesOptional"}));
  if (v2) {
    EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.group_list_type = 2; }, ACLNN_ERR_PARAM_INVALID, {"groupListType"}));
    for (int64_t d : {34, 35, 36, 3, 7})
      EXPECT_TRUE(rejects(c, a, [d](QuantArgs &b) { b.dst_type = d; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  }
}

// ---- DequantSwigluQuant: dequantise (weight scale per column, activation scale per row, bias), then
// SwiGluQuant's activation (halves, or V2's clamped interleaved pairs) and quantisation.

TEST_P(OpTableQuantDequantSwiGlu, RandomDataAgainstFloat64) {
  const QuantTableCase &c = GetParam();
  const bool v2 = c.has("swiglu_mode");
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (bool dynamic : {true, false})
      for (int mode : {0, 1}) {
        if (mode == 1 && !v2) continue;
        for (aclDataType bias_dt : {ACL_DT_UNDEFINED, ACL_INT32, ACL_FLOAT}) {
          SCOPED_TRACE(::testing::Message() << dt << " dynamic " << dynamic << " mode " << mode << " bias " << bias_dt);
          const int64_t rows = 10, h = 12;
          const std::vector<int64_t> ends = variant % 2 ? std::vector<int64_t>{3, 7} : std::vector<int64_t>{};
          const int64_t g = static_cast<int64_t>(ends.size());
          ++variant;
          DeviceTensor x({rows, 2 * h}, dt), ws({2 * h}, ACL_FLOAT), as({rows, 1}, ACL_FLOAT),
              bias({2 * h}, bias_dt == ACL_DT_UNDEFINED ? ACL_FLOAT : bias_dt), y({rows, h}, ACL_INT8),
              so({rows}, ACL_FLOAT), gi({std::max<int64_t>(g, 1)}, ACL_INT64);
          const std::vector<int64_t> ps = g > 0 ? std::vector<int64_t>{g, h} : std::vector<int64_t>{h};
          DeviceTensor qs(ps, ACL_FLOAT), qo(ps, ACL_FLOAT);
          const bool ints = dt == ACL_INT32;
          x.fill_random(ints ? -500 : -3, ints ? 500 : 3);
          ws.fill_random(ints ? 0.002 : 0.5, ints ? 0.01 : 1.5);
          as.fill_random(0.5, 2);
          bias.fill_random(bias_dt == ACL_INT32 ? -50 : -0.5, bias_dt == ACL_INT32 ? 50 : 0.5);
          qs.fill_random(dynamic ? 0.5 : 10, dynamic ? 2 : 40);
          qo.fill_random(-3, 3);
          if (g > 0) gi.set_values({3, 7});
          y.poison();
          QuantArgs a = base_args(x, ws, y, 2);
          a.act_scale = as;
          a.bias = bias_dt == ACL_DT_UNDEFINED ? nullptr : bias.get();
          a.smooth = qs;
          a.offset = dynamic ? nullptr : qo.get();
          a.group = g > 0 ? gi.get() : nullptr;
          a.scale_out = so;
          a.quant_mode = const_cast<char *>(dynamic ? "dynamic" : "static");
          a.swiglu_mode = mode;
          a.activate_left = variant % 3 != 0;
          ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
          // float64 reference
          const auto xv = x.values(), wv = ws.values(), av = as.values(), bv = bias.values(), sv = qs.values(),
                     ov = qo.values();
          const std::vector<int> got = read_ints(y, rows * h);
          std::vector<double> scales;
          for (int64_t r = 0; r < rows; ++r) {
            int64_t e = 0;
            while (e + 1 < g && r >= ends[e]) ++e;
            std::vector<double> d(static_cast<size_t>(2 * h)), t(static_cast<size_t>(h));
            for (int64_t j = 0; j < 2 * h; ++j) {
              double v = xv[r * 2 * h + j] + (bias_dt == ACL_INT32 ? bv[j] : 0.0);
              v = v * wv[j] * av[r] + (bias_dt == ACL_FLOAT ? bv[j] : 0.0);
              d[j] = v;
            }
            double amax = 0;
            for (int64_t j = 0; j < h; ++j) {
              double act;
              if (mode == 1) {
                const double glu = std::min(d[2 * j], a.clamp_limit);
                const double lin = std::min(std::max(d[2 * j + 1], -a.clamp_limit), a.clamp_limit);
                act = glu / (1 + std::exp(-a.glu_alpha * glu)) * (lin + a.glu_bias);
              } else {
                const double lhs = d[j], rhs = d[h + j];
                act = a.activate_left ? lhs / (1 + std::exp(-lhs)) * rhs : lhs * (rhs / (1 + std::exp(-rhs)));
              }
              t[j] = act * sv[e * h + j] + (dynamic ? 0.0 : ov[e * h + j]);
              amax = std::max(amax, std::fabs(t[j]));
            }
            const double sc = amax / 127;
            scales.push_back(sc);
            for (int64_t j = 0; j < h; ++j) {
              const double v = dynamic ? (sc == 0 ? 0.0 : t[j] / sc) : t[j];
              const double want = saturate(round_mode_ref(v, "round"), -128, 127), have = got[r * h + j];
              if (have == want || (std::fabs(v - std::floor(v) - 0.5) < 2e-3 && std::fabs(have - want) == 1)) continue;
              ADD_FAILURE() << "row " << r << " col " << j << ": got " << have << ", want " << want << " (" << v << ")";
              return;
            }
          }
          if (dynamic) EXPECT_TRUE(meets_precision(ACL_FLOAT, so.values(), scales));
        }
      }
}

// INT32 x with an exact weight scale: silu(40) = 40 exactly, the other half odd, quantScale 1/16: halves.
TEST_P(OpTableQuantDequantSwiGlu, ConstructedTiesRoundHalfToEven) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({1, 16}, ACL_INT32), ws({16}, ACL_FLOAT), y({1, 8}, ACL_INT8), so({1}, ACL_FLOAT), qs({8}, ACL_FLOAT);
  x.set_values({640, 640, 640, 640, 640, 640, 640, 640, 16, 48, 80, 112, -16, -48, -80, 144});  // x / 16: 40 | odd
  ws.set_values(std::vector<double>(16, 1.0 / 16));
  qs.set_values(std::vector<double>(8, 1.0 / 16));
  QuantArgs a = base_args(x, ws, y, 2);
  a.smooth = qs;
  a.scale_out = so;
  a.quant_mode = const_cast<char *>("static");
  a.activate_left = true;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  const std::vector<int> got = read_ints(y, 8);
  const std::vector<int> want = {2, 8, 12, 18, -2, -8, -12, 22};  // 2.5, 7.5, 12.5, 17.5, -2.5, ... 22.5
  EXPECT_EQ(got, want);
}

TEST_P(OpTableQuantDequantSwiGlu, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  const bool v2 = c.has("swiglu_mode");
  DeviceTensor x({4, 16}, ACL_INT32), ws({16}, ACL_FLOAT), y({4, 8}, ACL_INT8), so({4}, ACL_FLOAT), qs({8}, ACL_FLOAT);
  DeviceTensor ws_bad({8}, ACL_FLOAT), as_bad({3}, ACL_FLOAT), b_bad({16}, ACL_INT8), xd({4, 16}, ACL_DOUBLE);
  QuantArgs a = base_args(x, ws, y, 2);
  a.smooth = qs;
  a.scale_out = so;
  a.quant_mode = const_cast<char *>("dynamic");
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = ws_bad; }, ACLNN_ERR_PARAM_INVALID, {"weightScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.act_scale = as_bad; }, ACLNN_ERR_PARAM_INVALID,
                      {"activationScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.bias = b_bad; }, ACLNN_ERR_PARAM_INVALID, {"biasOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.smooth = as_bad; }, ACLNN_ERR_PARAM_INVALID, {"quantScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xd; }, ACLNN_ERR_PARAM_INVALID, {"x"}));
  if (v2) {
    EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.activate_dim = 0; }, ACLNN_ERR_PARAM_INVALID, {"activateDim"}));
    EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.swiglu_mode = 2; }, ACLNN_ERR_PARAM_INVALID, {"swigluMode"}));
    EXPECT_TRUE(rejects(c, a, [](QuantArgs &b) { b.round_mode = const_cast<char *>("up"); }, ACLNN_ERR_PARAM_INVALID,
                        {"roundModeOptional"}));
    for (int64_t d : {34, 35, 36})
      EXPECT_TRUE(rejects(c, a, [d](QuantArgs &b) { b.dst_type = d; }, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  }
}

// ---- Empty x: every kind accepts it and writes nothing.

TEST_P(OpTableQuantize, EmptyX) {
  DeviceTensor x({0, 4}, ACL_FLOAT), s({1}, ACL_FLOAT), z({1}, ACL_INT32), y({0, 4}, ACL_INT8);
  QuantArgs a = base_args(x, s, y, 2);
  a.offset = z;
  EXPECT_EQ(run(GetParam(), a), 0) << aclGetRecentErrMsg();
}
TEST_P(OpTableQuantGroup, EmptyX) {
  DeviceTensor x({0, 8}, ACL_FLOAT), s({1, 8}, ACL_FLOAT), gi({1}, ACL_INT32), y({0, 8}, ACL_INT8);
  QuantArgs a = base_args(x, s, y, 2);
  a.group = gi;
  EXPECT_EQ(run(GetParam(), a), 0) << aclGetRecentErrMsg();
}
TEST_P(OpTableQuantAnti, EmptyX) {
  DeviceTensor x({0, 8}, ACL_INT8), s({1}, ACL_FLOAT), y({0, 8}, ACL_FLOAT16);
  EXPECT_EQ(run(GetParam(), base_args(x, s, y, 1)), 0) << aclGetRecentErrMsg();
}
TEST_P(OpTableQuantFake, EmptyX) {
  const int64_t cnt = GetParam().kind == QuantKind::kFakeChannel ? 4 : 1;
  DeviceTensor x({0, 4}, ACL_FLOAT), s({cnt}, ACL_FLOAT), z({cnt}, ACL_INT32), y({0, 4}, ACL_FLOAT),
      mask({0, 4}, ACL_BOOL);
  QuantArgs a = base_args(x, s, y, 2);
  a.offset = z;
  a.mask = mask;
  a.axis = 1;
  EXPECT_EQ(run(GetParam(), a), 0) << aclGetRecentErrMsg();
}
TEST_P(OpTableQuantDequantBias, EmptyX) {
  DeviceTensor x({0, 4}, ACL_INT32), ws({4}, ACL_FLOAT), y({0, 4}, ACL_FLOAT16);
  EXPECT_EQ(run(GetParam(), base_args(x, ws, y, 1)), 0) << aclGetRecentErrMsg();
}

// ---- DynamicBlockQuant (V2)

class OpTableQuantBlock : public QuantFixture {};

// One block of DynamicBlockQuant against float64: rows [r0, r1) and columns [c0, c1) of the matrix whose
// first row is `row0` (x's values row-major, N per row). scale = min(max|x| / 127, 1 / minScale) in fp32
// (as the formula is written for it), y = round half to even of x / scale in fp32, saturated. dstType 35 / 36
// (got_y: the FLOAT8 codes): FP8_MAX for 127 and y the code of that fp32 quotient (low_float_ref.h, saturating).
::testing::AssertionResult block_matches(const std::vector<double> &xv, const std::vector<double> &got_y, double got_s,
                                         int64_t row0, int64_t N, std::pair<int64_t, int64_t> rows,
                                         std::pair<int64_t, int64_t> cols, double min_scale, int64_t dst = 2) {
  const bool fp8 = dst == 35 || dst == 36;
  const lfref::Fmt f = lfref::fmt_of(static_cast<aclDataType>(dst));
  double amax = 0.0;
  for (int64_t r = rows.first; r < rows.second; ++r)
    for (int64_t j = cols.first; j < cols.second; ++j)
      amax = std::max(amax, std::fabs(xv[static_cast<size_t>((row0 + r) * N + j)]));
  double want = static_cast<float>(amax / (fp8 ? lfref::max_finite(f) : 127.0));
  if (min_scale > 0) want = std::min(want, static_cast<double>(static_cast<float>(1.0 / min_scale)));
  if (got_s != want) return ::testing::AssertionFailure() << "scale " << got_s << ", want " << want;
  for (int64_t r = rows.first; r < rows.second; ++r)
    for (int64_t j = cols.first; j < cols.second; ++j) {
      const size_t e = static_cast<size_t>((row0 + r) * N + j);
      const double qf = want == 0.0 ? 0.0 : static_cast<double>(static_cast<float>(xv[e]) / static_cast<float>(want));
      if (got_y[e] != (fp8 ? lfref::encode(f, qf, lfref::kRint) : saturate(std::nearbyint(qf), -128, 127)))
        return ::testing::AssertionFailure() << "y element " << e << " is " << got_y[e] << " for " << qf;
    }
  return ::testing::AssertionSuccess();
}

// DynamicBlockQuant's arguments (dstType 2; roundModeOptional null or "rint").
QuantArgs block_args(aclTensor *x, aclTensor *y, aclTensor *scale_out, int64_t rb, int64_t cb, double min_scale,
                     bool null_round) {
  QuantArgs a = base_args(x, nullptr, y, 2);
  a.scale_out = scale_out;
  a.round_mode = null_round ? nullptr : const_cast<char *>("rint");
  a.min_scale = min_scale;
  a.row_block = rb;
  a.col_block = cb;
  return a;
}

// A DynamicBlockQuant call: x of `shape` (random eighths, every seventh off that grid), an INT8 y, a poisoned
// FLOAT scaleOut of scale_rows x ceil(N / cb) blocks per matrix. layout 0: x contiguous, y padded; 1: x and
// scaleOut padded (rows apart, the per-token kernels still apply); 2: x transposed (the generic loads).
struct BlockCall {
  Dev x, y, so;
  std::vector<double> xv;  // x's values as stored
  QuantArgs a;
};
BlockCall block_call(const std::vector<int64_t> &shape, aclDataType dt, int layout, int64_t scale_rows, int64_t rb,
                     int64_t cb, double min_scale, bool null_round) {
  BlockCall k;
  const size_t nd = shape.size();
  const bool strided = layout == 1;
  k.x = layout == 2 ? transposed_view(shape, dt) : make_x(shape, dt, strided);
  k.xv = eighths(numel_of(shape), 20);
  for (size_t i = 0; i < k.xv.size(); i += 7) k.xv[i] *= 0.01;
  k.x->set_values(k.xv);
  k.xv = k.x->values();
  std::vector<int64_t> ss = shape;
  ss[nd - 2] = scale_rows;
  ss[nd - 1] = (shape[nd - 1] + cb - 1) / cb;
  k.y = make_x(shape, ACL_INT8, layout == 0);
  k.so = make_x(ss, ACL_FLOAT, strided);
  k.so->poison();
  k.a = block_args(*k.x, *k.y, *k.so, rb, cb, min_scale, null_round);
  return k;
}

// dstType 35 / 36: the call's y becomes a contiguous FLOAT8 tensor of x's shape (its codes read in place).
void use_fp8_y(BlockCall &k, const std::vector<int64_t> &shape, int64_t dst) {
  if (dst == 2) return;
  k.y = std::make_unique<DeviceTensor>(shape, static_cast<aclDataType>(dst));
  k.a.y = *k.y;
  k.a.dst_type = dst;
}

// y's values: the integers, or the FLOAT8 codes.
std::vector<double> y_values(const DeviceTensor &y, int64_t dst) {
  if (dst == 2) return y.values();
  const auto *p = static_cast<const uint8_t *>(y.data());
  return std::vector<double>(p, p + y.numel());
}

// scale = min(max|x| / 127, 1 / minScale) per block (fp32, as the formula is written for it), y = round half
// to even of x / scale in fp32, saturated; the last blocks of a dim short. FLOAT8 (dstType 35 / 36): FP8_MAX.
TEST_P(OpTableQuantBlock, MatchesTheFormula) {
  const QuantTableCase &c = GetParam();
  struct Geo {
    std::vector<int64_t> shape;
    int64_t rb, cb;
  };
  const Geo geos[] = {{{5, 300}, 1, 128}, {{7, 20}, 3, 8}, {{2, 9, 33}, 4, 16}, {{3, 4, 10}, 128, 64}, {{1, 1}, 1, 1},
                      {{4, 0}, 2, 2}, {{0, 6}, 1, 4}};
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (const Geo &geo : geos)
      for (double min_scale : {0.0, 40.0})
        for (int64_t dst : {2, 35, 36}) {
          ++variant;
          SCOPED_TRACE(::testing::Message() << dt << " " << geo.rb << "x" << geo.cb << " minScale " << min_scale
                                            << " layout " << variant % 3 << " dstType " << dst);
          const int64_t nd = static_cast<int64_t>(geo.shape.size()), M = geo.shape[nd - 2], N = geo.shape[nd - 1];
          const int64_t B = nd == 3 ? geo.shape[0] : 1, nbr = (M + geo.rb - 1) / geo.rb, nbc = (N + geo.cb - 1) / geo.cb;
          BlockCall k_ = block_call(geo.shape, dt, variant % 3, nbr, geo.rb, geo.cb, min_scale, variant % 4 == 0);
          use_fp8_y(k_, geo.shape, dst);
          const std::vector<double> &xv = k_.xv;
          ASSERT_EQ(run(c, k_.a), 0) << aclGetRecentErrMsg();
          const std::vector<double> got_s = k_.so->values(), got_y = y_values(*k_.y, dst);
          for (int64_t b = 0; b < B; ++b)
            for (int64_t i = 0; i < nbr; ++i)
              for (int64_t k = 0; k < nbc; ++k)
                ASSERT_TRUE(block_matches(xv, got_y, got_s[static_cast<size_t>((b * nbr + i) * nbc + k)], b * M, N,
                                          {i * geo.rb, std::min(M, (i + 1) * geo.rb)},
                                          {k * geo.cb, std::min(N, (k + 1) * geo.cb)}, min_scale, dst))
                    << "block " << b << "," << i << "," << k;
          EXPECT_TRUE(k_.y->untouched_outside_view());
          EXPECT_TRUE(k_.so->untouched_outside_view());
        }
}

// The errors DynamicBlockQuant and GroupedDynamicBlockQuant share, from the accepted call `a` (x [4, 8] FLOAT16,
// an INT8 y, a FLOAT scaleOut of `scale_shape`).
void expect_block_errors(const QuantTableCase &c, const QuantArgs &a, const std::vector<int64_t> &scale_shape) {
  DeviceTensor x1({8}, ACL_FLOAT16), xf({4, 8}, ACL_FLOAT), y4({4, 8}, ACL_INT4), so_bad({4, 1}, ACL_FLOAT),
      so16(scale_shape, ACL_FLOAT16);
  const int bad = ACLNN_ERR_PARAM_INVALID, null = ACLNN_ERR_PARAM_NULLPTR;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = nullptr; }, null, {"x"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = nullptr; }, null, {"yOut"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = nullptr; }, null, {"scaleOut"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xf; }, bad, {"x", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x1; }, bad, {"x", "[M, N]"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 34; }, bad, {"dstType", "HIFLOAT8", "not supported"}));
  for (int64_t dst : {35, 36})  // FLOAT8 is computed: here refused for the INT8 yOut
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = dst; }, bad, {"dstType", "yOut"})) << dst;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type = 29; b.y = y4; }, bad, {"dstType"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.round_mode = const_cast<char *>("round"); }, bad,
                      {"roundModeOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.min_scale = -1; }, bad, {"minScale"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = so_bad; }, bad, {"scaleOut", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = so16; }, bad, {"scaleOut", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = xf; }, bad, {"yOut"}));
  if (c.has("dst_type_max")) {
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type_max = 448; }, bad, {"dstTypeMax"}));
    QuantArgs m = a;
    m.dst_type_max = 127;
    EXPECT_EQ(run(c, m), 0) << aclGetRecentErrMsg();
  }
}

TEST_P(OpTableQuantBlock, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({4, 8}, ACL_FLOAT16), y({4, 8}, ACL_INT8), so({2, 1}, ACL_FLOAT);
  const QuantArgs a = block_args(x, y, so, 2, 8, 0.0, true);
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  expect_block_errors(c, a, {2, 1});
  const int bad = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.row_block = 0; }, bad, {"rowBlockSize"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.col_block = -128; }, bad, {"colBlockSize"}));
  // Blocks of INT64_MAX rows / columns: one block each way (found by the fuzzer as an overflow in the
  // scales' shape), so the [2, 1] scaleOut is the wrong shape.
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.row_block = huge; }, bad, {"scaleOut"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.col_block = huge; b.row_block = huge; }, bad, {"scaleOut"}));
}

// ---- GroupedDynamicBlockQuant (V2): DynamicBlockQuant's blocks inside groupList's row groups

class OpTableQuantGroupedBlock : public QuantFixture {};

// g random cumulative row ends over m rows (empty groups included), the last one m.
std::vector<double> random_ends(int64_t m, int64_t g) {
  std::uniform_int_distribution<int64_t> d(0, m);
  std::vector<double> e(static_cast<size_t>(g));
  for (double &v : e) v = static_cast<double>(d(rng()));
  std::sort(e.begin(), e.end());
  e.back() = static_cast<double>(m);
  return e;
}

// Group i (rows [s, e)) in blocks of rb rows from s: block k writes scale row s / rb + i + k; every other
// scale row is 0.
TEST_P(OpTableQuantGroupedBlock, MatchesTheFormulaInsideGroups) {
  const QuantTableCase &c = GetParam();
  struct Geo {
    std::vector<int64_t> shape;
    int64_t rb, cb, groups;
  };
  const Geo geos[] = {{{9, 70}, 1, 64, 3},     {{2, 300, 20}, 128, 128, 3}, {{260, 9}, 256, 192, 2},
                      {{3, 5, 130}, 1, 256, 1}, {{0, 64}, 1, 64, 2},         {{4, 0}, 1, 64, 2}};
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (const Geo &geo : geos)
      for (double min_scale : {0.0, 40.0})
        for (int64_t dst : {2, 35, 36}) {
          const bool strided = variant++ % 2;
          SCOPED_TRACE(::testing::Message() << dt << " " << geo.rb << "x" << geo.cb << " minScale " << min_scale
                                            << " dstType " << dst);
          const int64_t nd = static_cast<int64_t>(geo.shape.size()), M = geo.shape[nd - 2], N = geo.shape[nd - 1];
          const int64_t B = nd == 3 ? geo.shape[0] : 1, srows = M / geo.rb + geo.groups, nbc = (N + geo.cb - 1) / geo.cb;
          BlockCall k_ = block_call(geo.shape, dt, variant % 3, srows, geo.rb, geo.cb, min_scale, variant % 4 == 0);
          use_fp8_y(k_, geo.shape, dst);
          const std::vector<double> &xv = k_.xv;
          Dev gl = make_x({geo.groups}, ACL_INT32, !strided);
          const std::vector<double> ends = random_ends(M, geo.groups);
          gl->set_values(ends);
          k_.a.group = *gl;
          ASSERT_EQ(run(c, k_.a), 0) << aclGetRecentErrMsg();
          const std::vector<double> got_s = k_.so->values(), got_y = y_values(*k_.y, dst);
          for (int64_t b = 0; b < B; ++b) {
            std::vector<bool> written(static_cast<size_t>(srows), false);
            int64_t start = 0;
            for (int64_t i = 0; i < geo.groups; ++i) {
              const int64_t end = static_cast<int64_t>(ends[static_cast<size_t>(i)]);
              for (int64_t r = start, k = 0; r < end; r += geo.rb, ++k) {
                const int64_t srow = start / geo.rb + i + k;
                written[static_cast<size_t>(srow)] = true;
                for (int64_t j = 0; j < nbc; ++j)
                  ASSERT_TRUE(block_matches(xv, got_y, got_s[static_cast<size_t>((b * srows + srow) * nbc + j)], b * M, N,
                                            {r, std::min(end, r + geo.rb)}, {j * geo.cb, std::min(N, (j + 1) * geo.cb)},
                                            min_scale, dst))
                      << "group " << i << " block row " << k << " col " << j << " batch " << b;
              }
              start = end;
            }
            for (int64_t sr = 0; sr < srows; ++sr)
              for (int64_t j = 0; j < nbc && !written[static_cast<size_t>(sr)]; ++j)
                ASSERT_EQ(got_s[static_cast<size_t>((b * srows + sr) * nbc + j)], 0.0) << "unwritten scale row " << sr;
          }
          EXPECT_TRUE(k_.y->untouched_outside_view());
          EXPECT_TRUE(k_.so->untouched_outside_view());
        }
}

TEST_P(OpTableQuantGroupedBlock, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({4, 8}, ACL_FLOAT16), y({4, 8}, ACL_INT8), gl({2}, ACL_INT32), so({6, 1}, ACL_FLOAT),
      gl64({2}, ACL_INT64), gl2d({2, 1}, ACL_INT32), gl0({0}, ACL_INT32);
  gl.set_values({1, 4});
  QuantArgs a = block_args(x, y, so, 1, 64, 0.0, true);
  a.group = gl;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  expect_block_errors(c, a, {6, 1});
  const int bad = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = nullptr; }, ACLNN_ERR_PARAM_NULLPTR, {"groupList"}));
  for (int64_t rb : {0, 2, 64, 1024})
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.row_block = rb; }, bad, {"rowBlockSize"})) << rb;
  for (int64_t cb : {-128, 1, 32, 512})
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.col_block = cb; }, bad, {"colBlockSize"})) << cb;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group_list_type = 1; }, bad, {"groupListType"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl64; }, bad, {"groupList", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl2d; }, bad, {"groupList", "1-D"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl0; }, bad, {"groupList", "empty"}));
  // groupList's values are checked at launch, before anything is written.
  y.poison();
  so.poison();
  for (const std::vector<double> &v : {std::vector<double>{3, 1}, {1, 3}, {-1, 4}, {2, 5}}) {
    gl.set_values(v);
    EXPECT_TRUE(fails_with(run(c, a), bad, {"group list"})) << v[0] << "," << v[1];
  }
  for (double v : y.values()) EXPECT_EQ(v, -1.0);  // poison() wrote 0xFF bytes: -1, NaN
  for (double v : so.values()) EXPECT_TRUE(std::isnan(v));
}

// ---- DequantSituQuant

class OpTableQuantSitu : public QuantFixture {};

// x INT8 / INT32 / FLOAT16 / BF16 dequantised, the situ gate, then trunc quantisation (static: act / scale + offset;
// dynamic: max|act * smooth| / 127), against float64; a quotient within 1e-4 of an integer may land either side.
TEST_P(OpTableQuantSitu, RandomDataAgainstFloat64) {
  const QuantTableCase &c = GetParam();
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (bool dynamic : {true, false}) {
      if (dt == ACL_INT32 && !dynamic) continue;  // INT32 x takes no quant scale: static is not possible
      for (bool left : {true, false}) {
        const bool ints = dt == ACL_INT8 || dt == ACL_INT32, one_ws = variant % 2, with_bias = ints && variant % 3 != 0;
        const double lb = variant % 4 == 0 ? 0.0 : 3.0;
        ++variant;
        SCOPED_TRACE(::testing::Message() << dt << " dynamic " << dynamic << " left " << left << " linearBeta " << lb);
        const int64_t rows = 7, h = 10;
        DeviceTensor x({rows, 2 * h}, dt), ws({one_ws ? 1 : 2 * h}, ACL_FLOAT), as({1}, ACL_FLOAT),
            bias({2 * h}, ACL_FLOAT), y({rows, h}, ACL_INT8), so({rows}, ACL_FLOAT), qs({h}, ACL_FLOAT),
            qo({1}, ACL_FLOAT);
        x.fill_random(dt == ACL_INT32 ? -400 : dt == ACL_INT8 ? -100 : -4, dt == ACL_INT32 ? 400 : dt == ACL_INT8 ? 100 : 4);
        ws.fill_random(dt == ACL_INT32 ? 0.002 : 0.01, dt == ACL_INT32 ? 0.01 : 0.05);
        as.set_values({1.5});
        bias.fill_random(-0.5, 0.5);
        qs.fill_random(dynamic ? 0.5 : 0.01, dynamic ? 2 : 0.05);
        qo.set_values({1.25});
        y.poison();
        QuantArgs a = base_args(x, ints ? ws.get() : nullptr, y, 2);
        a.act_scale = dt == ACL_INT32 ? as.get() : nullptr;
        a.bias = with_bias ? bias.get() : nullptr;
        a.smooth = dt == ACL_INT32 ? nullptr : qs.get();
        a.offset = dynamic || dt == ACL_INT32 ? nullptr : qo.get();
        a.scale_out = so;
        a.quant_mode = variant % 5 == 0 && dynamic ? nullptr : const_cast<char *>(dynamic ? "dynamic" : "static");
        a.activate_left = left;
        a.situ_beta = 4.0;
        a.situ_linear_beta = lb;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        const auto xv = x.values(), wv = ws.values(), bv = bias.values(), sv = qs.values();
        const std::vector<int> got = read_ints(y, rows * h);
        const std::vector<double> got_s = so.values();
        for (int64_t r = 0; r < rows; ++r) {
          std::vector<double> d(static_cast<size_t>(2 * h)), t(static_cast<size_t>(h));
          for (int64_t j = 0; j < 2 * h; ++j) {
            double v = xv[static_cast<size_t>(r * 2 * h + j)];
            if (ints) v *= wv[one_ws ? 0 : static_cast<size_t>(j)];
            if (dt == ACL_INT32) v *= 1.5;
            if (with_bias) v += bv[static_cast<size_t>(j)];
            d[static_cast<size_t>(j)] = v;
          }
          double amax = 0;
          for (int64_t j = 0; j < h; ++j) {
            const double gate = left ? d[static_cast<size_t>(j)] : d[static_cast<size_t>(h + j)];
            const double up = left ? d[static_cast<size_t>(h + j)] : d[static_cast<size_t>(j)];
            double act = 4.0 * std::tanh(gate / 4.0) / (1 + std::exp(-gate)) * (lb > 0 ? lb * std::tanh(up / lb) : up);
            if (dynamic && a.smooth != nullptr) act *= sv[static_cast<size_t>(j)];
            t[static_cast<size_t>(j)] = act;
            amax = std::max(amax, std::fabs(act));
          }
          const double scale = amax / 127;
          if (dynamic) EXPECT_NEAR(got_s[static_cast<size_t>(r)], scale, 1e-5 * scale + 1e-30) << "scale row " << r;
          for (int64_t j = 0; j < h; ++j) {
            const double v = dynamic ? (scale == 0 ? 0.0 : t[static_cast<size_t>(j)] / scale)
                                     : t[static_cast<size_t>(j)] / sv[static_cast<size_t>(j)] + 1.25;
            const double want = saturate(std::trunc(v), -128, 127);
            const int gotj = got[static_cast<size_t>(r * h + j)];
            if (std::fabs(v - std::nearbyint(v)) < 1e-4 * std::max(1.0, std::fabs(v)))
              EXPECT_LE(std::fabs(gotj - want), 1.0) << "y " << r << "," << j << " value " << v;
            else
              EXPECT_EQ(gotj, want) << "y " << r << "," << j << " value " << v;
          }
        }
      }
    }
}

TEST_P(OpTableQuantSitu, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({4, 8}, ACL_INT8), x32({4, 8}, ACL_INT32), x16({4, 8}, ACL_FLOAT16), x3({2, 4, 8}, ACL_INT32),
      ws({8}, ACL_FLOAT), ws_bad({3}, ACL_FLOAT), as({1}, ACL_FLOAT), as_rows({4}, ACL_FLOAT), y({4, 4}, ACL_INT8),
      so({4}, ACL_FLOAT), qs({4}, ACL_FLOAT), gi({2}, ACL_INT64);
  QuantArgs a = base_args(x, ws, y, 2);
  a.scale_out = so;
  a.quant_mode = const_cast<char *>("dynamic");
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  const int bad = ACLNN_ERR_PARAM_INVALID, null = ACLNN_ERR_PARAM_NULLPTR;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.situ_beta = 0; }, bad, {"beta"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = nullptr; }, null, {"weightScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale = ws_bad; }, bad, {"weightScaleOptional", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.act_scale = as; }, bad, {"activationScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x32; }, null, {"activationScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x32; b.act_scale = as_rows; }, bad, {"activationScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x32; b.act_scale = as; b.smooth = qs; }, bad,
                      {"quantScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x3; b.act_scale = as; }, bad, {"x", "2 dims"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x16; }, bad, {"weightScaleOptional", "not used"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gi; }, bad, {"groupIndexOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.quant_mode = const_cast<char *>("static"); }, null,
                      {"quantScaleOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.quant_mode = const_cast<char *>("pertoken"); }, bad,
                      {"quantTypeOptional"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = nullptr; }, null, {"yScaleOut"}));
}

// ---- FlatQuant (V2, V3)

class OpTableQuantFlat : public QuantFixture {};

struct FlatCall {
  std::vector<double> x, p1, p2;
  int64_t K, M, N;
  double clip;
};

// The first `slices` slices of out / quantScale against float64: x'' = P1 @ x[k] @ P2, scale = max|x''| clip / 7,
// out = round half to even of x'' / scale in [-8, 7]; a quotient within 1e-3 of a tie may land either side.
void check_flat(const FlatCall &f, const std::vector<double> &sv, const std::vector<int> &got, int64_t slices) {
  const int64_t M = f.M, N = f.N;
  for (int64_t k = 0; k < slices; ++k) {
    std::vector<double> t(static_cast<size_t>(M * N), 0.0), r(static_cast<size_t>(M * N), 0.0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t l = 0; l < N; ++l)
          t[static_cast<size_t>(i * N + j)] += f.x[static_cast<size_t>((k * M + i) * N + l)] * f.p2[static_cast<size_t>(l * N + j)];
    double amax = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double v = 0;
        for (int64_t l = 0; l < M; ++l) v += f.p1[static_cast<size_t>(i * M + l)] * t[static_cast<size_t>(l * N + j)];
        r[static_cast<size_t>(i * N + j)] = v;
        amax = std::max(amax, std::fabs(v));
      }
    const double scale = amax * f.clip / 7;
    EXPECT_NEAR(sv[static_cast<size_t>(k)], scale, 1e-5 * scale) << "quantScale " << k;
    for (int64_t e = 0; e < M * N; ++e) {
      const double v = scale == 0 ? 0.0 : r[static_cast<size_t>(e)] / scale;
      const double want = saturate(std::nearbyint(v), -8, 7);
      const int gotv = got[static_cast<size_t>(k * M * N + e)];
      if (std::fabs(std::fabs(v - std::trunc(v)) - 0.5) < 1e-3)
        EXPECT_LE(std::fabs(gotv - want), 1.0) << "out " << k << "," << e;
      else
        EXPECT_EQ(gotv, want) << "out " << k << "," << e << " value " << v;
    }
  }
}

// x'' = P1 @ x[k] @ P2 in float64, scale = max|x''| clipRatio / 7, out = round half to even of x'' / scale in
// [-8, 7], INT4 or INT32 (eight INT4); a quotient within 1e-3 of a tie may land either side (fp32 sums).
TEST_P(OpTableQuantFlat, MatchesTheFormula) {
  const QuantTableCase &c = GetParam();
  auto &g = rng();
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (aclDataType od : {ACL_INT4, ACL_INT32})
      for (double clip : {1.0, 0.6}) {
        const int64_t K = 1 + static_cast<int64_t>(g() % 3), M = 1 + static_cast<int64_t>(g() % 9);
        const int64_t N = od == ACL_INT32 ? 8 * (1 + static_cast<int64_t>(g() % 2)) : 2 * (1 + static_cast<int64_t>(g() % 6));
        const bool strided = variant++ % 2;
        SCOPED_TRACE(::testing::Message() << dt << " out " << od << " clip " << clip << " " << K << "x" << M << "x" << N);
        Dev x = make_x({K, M, N}, dt, strided), p1 = make_x({M, M}, dt, !strided), p2 = make_x({N, N}, dt, strided);
        x->fill_random(-2, 2);
        p1->fill_random(-1, 1);
        p2->fill_random(-1, 1);
        DeviceTensor y({K, M, od == ACL_INT32 ? N / 8 : N}, od), so({K}, ACL_FLOAT);
        QuantArgs a = base_args(*x, nullptr, y, 2);
        a.p1 = *p1;
        a.p2 = *p2;
        a.scale_out = so;
        a.clip_ratio = clip;
        ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
        check_flat(FlatCall{x->values(), p1->values(), p2->values(), K, M, N, clip}, so.values(), read_ints(y, K * M * N), K);
      }
}

// V3's groupListOptional: only the slices before its total are computed, the others are 0 (scale and out);
// types 0 (ends), 1 (counts) and 2 ((index, count) pairs).
// (a suite of the rows with groupListOptional only: a skipped case would mark its whole ctest chunk skipped)
class OpTableQuantFlatGrouped : public QuantFixture {};
TEST_P(OpTableQuantFlatGrouped, GroupListBoundsTheSlices) {
  const QuantTableCase &c = GetParam();
  auto &g = rng();
  int variant = 0;
  for (aclDataType dt : c.dtypes)
    for (int64_t type : {0, 1, 2}) {
      const int64_t K = 3 + static_cast<int64_t>(g() % 4), M = 1 + static_cast<int64_t>(g() % 5), N = 2 * (1 + static_cast<int64_t>(g() % 4));
      const int64_t G = 1 + static_cast<int64_t>(g() % 3);
      const bool strided = variant++ % 2;
      std::vector<double> counts(static_cast<size_t>(G));
      int64_t total = 0;
      for (double &v : counts) {
        v = static_cast<double>(g() % 2);  // totals below K: the tail is skipped
        total += static_cast<int64_t>(v);
      }
      SCOPED_TRACE(::testing::Message() << dt << " type " << type << " K " << K << " total " << total);
      std::vector<double> gv;
      double end = 0;
      for (size_t e = 0; e < counts.size(); ++e) {
        end += counts[e];
        if (type == 2) gv.push_back(static_cast<double>(e));  // the group's index (not read)
        gv.push_back(type == 0 ? end : counts[e]);
      }
      Dev x = make_x({K, M, N}, dt, strided), p1 = make_x({M, M}, dt, !strided), p2 = make_x({N, N}, dt, strided);
      Dev gl = make_x(type == 2 ? std::vector<int64_t>{G, 2} : std::vector<int64_t>{G}, ACL_INT64, strided);
      x->fill_random(-2, 2);
      p1->fill_random(-1, 1);
      p2->fill_random(-1, 1);
      gl->set_values(gv);
      DeviceTensor y({K, M, N}, ACL_INT4), so({K}, ACL_FLOAT);
      QuantArgs a = base_args(*x, nullptr, y, 2);
      a.p1 = *p1;
      a.p2 = *p2;
      a.group = *gl;
      a.group_list_type = type;
      a.scale_out = so;
      ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
      const std::vector<double> sv = so.values();
      const std::vector<int> got = read_ints(y, K * M * N);
      check_flat(FlatCall{x->values(), p1->values(), p2->values(), K, M, N, 1.0}, sv, got, total);
      for (int64_t k = total; k < K; ++k) {
        EXPECT_EQ(sv[static_cast<size_t>(k)], 0.0) << "quantScale " << k;
        for (int64_t e = 0; e < M * N; ++e) EXPECT_EQ(got[static_cast<size_t>(k * M * N + e)], 0) << "out " << k;
      }
    }
}

// More slices than one GEMM chunk (2^20 / (M N) = 1024 here): a full chunk and a tail of 6; with V3's counts
// [10, 5] the second chunk lies wholly past the groups (no GEMM runs for it) and slices 15..1029 are 0.
TEST_P(OpTableQuantFlat, ChunksOfSlices) {
  const QuantTableCase &c = GetParam();
  const int64_t K = 1030, M = 32, N = 32;
  const aclDataType dt = c.dtypes.back();
  Dev x = make_x({K, M, N}, dt, false), p1 = make_x({M, M}, dt, true), p2 = make_x({N, N}, dt, false);
  x->fill_random(-2, 2);
  p1->fill_random(-1, 1);
  p2->fill_random(-1, 1);
  DeviceTensor y({K, M, N}, ACL_INT4), so({K}, ACL_FLOAT), gl({2}, ACL_INT64);
  gl.set_values({10, 5});
  QuantArgs a = base_args(*x, nullptr, y, 2);
  a.p1 = *p1;
  a.p2 = *p2;
  a.scale_out = so;
  if (c.has("group")) {
    a.group = gl;
    a.group_list_type = 1;
  }
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  const int64_t total = c.has("group") ? 15 : K;
  const std::vector<double> sv = so.values();
  const std::vector<int> got = read_ints(y, K * M * N);
  check_flat(FlatCall{x->values(), p1->values(), p2->values(), K, M, N, 1.0}, sv, got, total);
  for (int64_t k = total; k < K; ++k) {
    EXPECT_EQ(sv[static_cast<size_t>(k)], 0.0) << "quantScale " << k;
    for (int64_t e = 0; e < M * N; ++e) ASSERT_EQ(got[static_cast<size_t>(k * M * N + e)], 0) << "out " << k;
  }
}

TEST_P(OpTableQuantFlat, ErrorsNameTheirArgument) {
  const QuantTableCase &c = GetParam();
  DeviceTensor x({2, 4, 8}, ACL_FLOAT16), p1({4, 4}, ACL_FLOAT16), p2({8, 8}, ACL_FLOAT16), y({2, 4, 8}, ACL_INT4),
      so({2}, ACL_FLOAT), x2d({4, 8}, ACL_FLOAT16), p1bad({4, 5}, ACL_FLOAT16), p2bf({8, 8}, ACL_BF16),
      y8({2, 4, 8}, ACL_INT8), yfp4({2, 32}, ACL_FLOAT4_E2M1), so_bad({4}, ACL_FLOAT), y32({2, 4, 1}, ACL_INT32);
  QuantArgs a = base_args(x, nullptr, y, 2);
  a.p1 = p1;
  a.p2 = p2;
  a.scale_out = so;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  a.y = y32;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  a.y = y;
  const int bad = ACLNN_ERR_PARAM_INVALID, null = ACLNN_ERR_PARAM_NULLPTR;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.p1 = nullptr; }, null, {"kroneckerP1"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = nullptr; }, null, {"quantScale"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = x2d; }, bad, {"x", "[K, M, N]"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.p1 = p1bad; }, bad, {"kroneckerP1", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.p2 = p2bf; }, bad, {"kroneckerP2", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = y8; }, bad, {"out"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.y = yfp4; }, bad, {"out", "FLOAT4_E2M1"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.scale_out = so_bad; }, bad, {"quantScale", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.clip_ratio = 0; }, bad, {"clipRatio"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.clip_ratio = 1.5; }, bad, {"clipRatio"}));
  DeviceTensor xbig({1, 4, 258}, ACL_FLOAT16), p2big({258, 258}, ACL_FLOAT16), ybig({1, 4, 258}, ACL_INT4),
      so1({1}, ACL_FLOAT);
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.x = xbig; b.p2 = p2big; b.y = ybig; b.scale_out = so1; }, bad,
                      {"x", "[1, 256]"}));
  if (c.has("dst_type_max")) {
    for (double m : {6.0, 12.0, -1.0})
      EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.dst_type_max = m; }, bad, {"dstTypeMax"})) << m;
  }
  if (!c.has("group")) return;
  DeviceTensor gl({2}, ACL_INT64), gl32({2}, ACL_INT32), gl_pairs({2, 2}, ACL_INT64), gl_big({1025}, ACL_INT64),
      gl_pairs_bad({2, 3}, ACL_INT64);
  gl.set_values({1, 2});
  gl_pairs.set_values({0, 1, 1, 1});
  a.group = gl;
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  a.group = nullptr;
  a.group_list_type = 7;  // not read without a group list
  ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  a.group = gl;
  for (int64_t t : {-1, 3, 7})
    EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group_list_type = t; }, bad, {"groupListType"})) << t;
  a.group_list_type = 0;
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl32; }, bad, {"groupListOptional", "dtype"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl_pairs; }, bad, {"groupListOptional", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl_big; }, bad, {"groupListOptional", "1024"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl_pairs_bad; b.group_list_type = 2; }, bad,
                      {"groupListOptional", "shape"}));
  EXPECT_TRUE(rejects(c, a, [&](QuantArgs &b) { b.group = gl; b.group_list_type = 2; }, bad, {"groupListOptional"}));
  // The values at launch, before anything is written: negative, decreasing ends, a total past K (2).
  struct Bad {
    int64_t type;
    std::vector<double> v;
  };
  const Bad bads[] = {{0, {2, 1}}, {0, {-1, 1}}, {0, {1, 3}}, {1, {2, 1}}, {1, {-1, 2}}, {2, {0, 2, 1, 1}}};
  for (const Bad &bv : bads) {
    DeviceTensor &t = bv.type == 2 ? gl_pairs : gl;
    t.set_values(bv.v);
    y.poison();
    so.poison();
    a.group = t;
    a.group_list_type = bv.type;
    EXPECT_TRUE(fails_with(run(c, a), bad, {"group list"})) << "type " << bv.type;
    for (double v : so.values()) EXPECT_TRUE(std::isnan(v));
    EXPECT_TRUE(y.untouched_outside_view());
  }
}

#define QUANT_SUITE(Fixture, ...)                                                        \
  INSTANTIATE_TEST_SUITE_P(Table, Fixture, ::testing::ValuesIn(cases_of({__VA_ARGS__})), \
                           harness::case_name<QuantTableCase>)
QUANT_SUITE(OpTableQuantAscend, QuantKind::kAscendQuant);
QUANT_SUITE(OpTableQuantize, QuantKind::kQuantize);
QUANT_SUITE(OpTableQuantGroup, QuantKind::kGroupQuant);
QUANT_SUITE(OpTableQuantDynamic, QuantKind::kDynamic);
QUANT_SUITE(OpTableQuantAnti, QuantKind::kAntiQuant);
QUANT_SUITE(OpTableQuantFake, QuantKind::kFakeTensor, QuantKind::kFakeChannel);
QUANT_SUITE(OpTableQuantDequantBias, QuantKind::kDequantBias);
QUANT_SUITE(OpTableQuantMax, QuantKind::kQuantMax);
QUANT_SUITE(OpTableQuantGelu, QuantKind::kGeluQuant);
QUANT_SUITE(OpTableQuantSwiGlu, QuantKind::kSwiGluQuant);
QUANT_SUITE(OpTableQuantDequantSwiGlu, QuantKind::kDequantSwiGluQuant);
QUANT_SUITE(OpTableQuantBlock, QuantKind::kBlockQuant);
QUANT_SUITE(OpTableQuantGroupedBlock, QuantKind::kGroupedBlockQuant);
QUANT_SUITE(OpTableQuantFlat, QuantKind::kFlatQuant);
std::vector<QuantTableCase> grouped_flat_cases() {
  std::vector<QuantTableCase> v;
  for (const QuantTableCase &c : cases_of({QuantKind::kFlatQuant}))
    if (c.has("group")) v.push_back(c);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Table, OpTableQuantFlatGrouped, ::testing::ValuesIn(grouped_flat_cases()),
                         harness::case_name<QuantTableCase>);
INSTANTIATE_TEST_SUITE_P(Table, OpTableQuantSitu, ::testing::ValuesIn(cases_of({QuantKind::kDequantSwiGluQuant}, true)),
                         harness::case_name<QuantTableCase>);

}  // namespace
}  // namespace opsnn::test

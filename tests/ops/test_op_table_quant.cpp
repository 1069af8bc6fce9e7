// The test harness of the quantisation table (src/ops/quant/quant.ops), cases registered from the
// table by tools/gen_ops.py --tests (quant_table_cases.inc). Each row runs the suite of its kind
// against float64 references written here (ops/quant/quant_phase1.h states the formulas):
//   - integer outputs exactly: inputs are multiples of 1/8 and scales powers of two, so x * scale and
//     x / scale are exact in fp32 and float64 alike and the .5 ties of every roundMode appear on
//     purpose; saturation at both ends; INT4 / INT32 nibble packing (odd values, low nibble first);
//   - DynamicQuant on random data: scales to FLOAT's precision, y exact except within 1e-3 of a .5
//     tie (fp32 and float64 quotients may fall on either side there); rows of zeros give scale 0 and
//     y 0; smooth scales, group indices, asymmetric offsets, per-tensor / per-channel modes;
//   - floating outputs (anti-quant, fake-quant, dequant-bias) within precision.md's tolerance;
//   - every dtype of the row, non-contiguous x, empty x, and the errors naming their argument.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

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
  int64_t dst_type = 2, axis = -1, quant_min = -128, quant_max = 127;
  aclDataType dst_dtype = ACL_INT8;
  double dst_type_max = 0.0, enabled = 1.0;
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
std::vector<QuantTableCase> cases_of(std::initializer_list<QuantKind> kinds) {
  std::vector<QuantTableCase> v;
  for (const auto &c : all_cases())
    if (std::find(kinds.begin(), kinds.end(), c.kind) != kinds.end()) v.push_back(c);
  return v;
}

using Dev = std::unique_ptr<DeviceTensor>;

int run(const QuantTableCase &c, const QuantArgs &a) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return c.phase1(a, w, e); }, c.launch);
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

// Random multiples of 1/8 in [-lim, lim] (exact in FLOAT16 / BF16 for |v| < 32).
std::vector<double> eighths(int64_t count, double lim) {
  std::uniform_int_distribution<int> d(static_cast<int>(-lim * 8), static_cast<int>(lim * 8));
  std::vector<double> v(static_cast<size_t>(count));
  for (double &e : v) e = d(rng()) / 8.0;
  return v;
}

// The integer values of an INT8 / packed INT4 / INT32-of-INT4 output (contiguous from its start).
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

// One AscendQuant call: x (shape, dtype), scale / offset of `count` values along axis, checked exactly.
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
  DeviceTensor scale({count}, dt), offset({count}, dt);
  std::vector<double> sv(static_cast<size_t>(count)), ov(static_cast<size_t>(count));
  const double pows[] = {0.5, 1.0, 2.0, 4.0, 0.25};
  for (int64_t k = 0; k < count; ++k) {
    sv[static_cast<size_t>(k)] = (k % 3 == 2 ? -1 : 1) * pows[k % 5];
    ov[static_cast<size_t>(k)] = static_cast<double>(k % 7) - 3.0 + (k % 2 ? 0.5 : 0.0);
  }
  scale.set_values(sv);
  offset.set_values(ov);
  Dev y = make_int_y(shape, dst);
  QuantArgs a;
  a.x = *x;
  a.scale = scale;
  a.offset = with_offset ? offset.get() : nullptr;
  a.sqrt_mode = sqrt_mode;
  a.round_mode = const_cast<char *>(mode.c_str());
  a.dst_type = dst;
  a.axis = axis;
  a.y = *y;
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
  QuantArgs a;
  a.x = x;
  a.scale = s;
  a.y = y;
  EXPECT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
  DeviceTensor x2({2, 8}, ACL_FLOAT), y2({2, 8}, ACL_INT8), bad_s({3}, ACL_FLOAT), y4({2, 8}, ACL_INT4),
      xh({2, 8}, ACL_FLOAT16), x_odd({2, 7}, ACL_FLOAT), y_odd({2, 7}, ACL_INT4);
  a.x = x2;
  a.y = y2;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto fails = [&](const QuantArgs &b, int code, std::initializer_list<const char *> words) {
    return fails_with(c.phase1(b, &ws, &ex), code, words);
  };
  QuantArgs b = a;
  b.x = nullptr;
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_NULLPTR, {"x"}));
  b = a;
  b.scale = bad_s;
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"scale", "[3]"}));
  b = a;
  b.round_mode = const_cast<char *>("hybrid");
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"roundMode", "hybrid"}));
  b = a;
  b.dst_type = 35;
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"dstType", "FLOAT8_E5M2", "not supported"}));
  b = a;
  b.dst_type = 7;
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"dstType"}));
  b = a;
  b.y = y4;  // dstType 2 but an INT4 y
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"y", "INT4"}));
  b = a;
  b.x = xh;  // FLOAT16 x needs a FLOAT16 scale
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"scale"}));
  b = a;
  b.x = x_odd;
  b.y = y_odd;
  b.dst_type = 29;
  EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"x", "even"}));
  if (c.has("axis")) {
    b = a;
    b.axis = 0;
    DeviceTensor x3({2, 3, 8}, ACL_FLOAT), y3({2, 3, 8}, ACL_INT8), s3({2}, ACL_FLOAT);
    b.x = x3;
    b.y = y3;
    b.scale = s3;
    EXPECT_TRUE(fails(b, ACLNN_ERR_PARAM_INVALID, {"axis"}));
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
          QuantArgs a;
          a.x = *x;
          a.scale = s;
          a.offset = z;
          a.dst_dtype = qd;
          a.axis = axis;
          a.y = y;
          ASSERT_EQ(run(c, a), 0) << aclGetRecentErrMsg();
          const double lo = qd == ACL_INT8 ? -128 : qd == ACL_UINT8 ? 0 : -2147483648.0;
          const double hi = qd == ACL_INT8 ? 127 : qd == ACL_UINT8 ? 255 : 2147483647.0;
          const std::vector<double> got = y.values();
          int64_t inner = 1;
          for (int d = ax + 1; d < 3; ++d) inner *= shape[static_cast<size_t>(d)];
          for (int64_t i = 0; i < 60; ++i) {
            const int64_t k = cnt == 1 ? 0 : (i / inner) % shape[static_cast<size_t>(ax)];
            const double q = round_mode_ref(xv[static_cast<size_t>(i)] / sv[static_cast<size_t>(k)], "round") +
                             zv[static_cast<size_t>(k)];
            ASSERT_EQ(got[static_cast<size_t>(i)], saturate(q, lo, hi)) << "element " << i;
          }
        }
  // Errors: dtype argument, out dtype, axis, scales length.
  DeviceTensor x({2, 4}, ACL_FLOAT), s({4}, ACL_FLOAT), z({4}, ACL_INT32), y({2, 4}, ACL_INT8), s3({3}, ACL_FLOAT);
  QuantArgs a;
  a.x = x;
  a.scale = s;
  a.offset = z;
  a.y = y;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  QuantArgs b = a;
  b.dst_dtype = ACL_FLOAT;
  EXPECT_TRUE(fails_with(c.phase1(b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"dtype"}));
  b = a;
  b.dst_dtype = ACL_UINT8;
  EXPECT_TRUE(fails_with(c.phase1(b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out"}));
  b = a;
  b.axis = 2;
  EXPECT_TRUE(fails_with(c.phase1(b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"axis"}));
  b = a;
  b.scale = s3;
  EXPECT_TRUE(fails_with(c.phase1(b, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"scales"}));
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
        for (int64_t k = 0; k < E * H; ++k) sv.push_back((k % 3 - 1 == 0 ? -1 : 1) * std::ldexp(1.0, static_cast<int>(k % 4) - 1));
        s.set_values(sv);
        const std::vector<double> ends{2, 2, 7};  // an empty group; rows 7, 8 past the last end: group E - 1
        gi.set_values(ends);
        o.set_values({1.5});
        Dev y = make_int_y({S, H}, dst);
        QuantArgs a;
        a.x = *x;
        a.scale = s;
        a.group = gi;
        a.offset = with_offset ? o.get() : nullptr;
        a.dst_type = dst;
        a.y = *y;
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
            const double v = xv[static_cast<size_t>(r * H + j)] * sv[static_cast<size_t>(e * H + j)] + (with_offset ? 1.5 : 0.0);
            ASSERT_EQ(got[static_cast<size_t>(r * H + j)], static_cast<int>(saturate(round_mode_ref(v, "round"), lo, hi)))
                << "row " << r << " col " << j;
          }
        }
      }
  DeviceTensor x({4, 8}, ACL_FLOAT), s({2, 8}, ACL_FLOAT), gi({3}, ACL_INT32), y({4, 8}, ACL_INT8);
  QuantArgs a;
  a.x = x;
  a.scale = s;
  a.group = gi;
  a.y = y;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"groupIndex"}));
  a.group = nullptr;
  EXPECT_TRUE(fails_with(c.phase1(a, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"groupIndex"}));
}

#define QUANT_SUITE(Fixture, ...)                                                              \
  INSTANTIATE_TEST_SUITE_P(Table, Fixture, ::testing::ValuesIn(cases_of({__VA_ARGS__})), \
                           harness::case_name<QuantTableCase>)
QUANT_SUITE(OpTableQuantAscend, QuantKind::kAscendQuant);
QUANT_SUITE(OpTableQuantize, QuantKind::kQuantize);
QUANT_SUITE(OpTableQuantGroup, QuantKind::kGroupQuant);

}  // namespace
}  // namespace opsnn::test

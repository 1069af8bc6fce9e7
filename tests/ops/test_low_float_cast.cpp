// aclnnCast to and from FLOAT8_E4M3FN / FLOAT8_E5M2 / FLOAT4_E2M1 / FLOAT4_E1M2 (ops/copy/low_float_cast.h), against
// the float64 references of tests/common/low_float_ref.h: round half to even without saturation (E5M2 overflows
// to inf, E4M3FN to NaN; FLOAT4 saturates, NaN -> 0), every code decoded exactly, low -> low through the value,
// strided FLOAT8 views on both sides, FLOAT4 rows of odd length, 0-d tensors and empty ones, and the errors.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "aclnnop/aclnn_cast.h"
#include "low_float_ref.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Shape = std::vector<int64_t>;
constexpr aclDataType kLow[] = {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_FLOAT4_E2M1, ACL_FLOAT4_E1M2};
constexpr aclDataType kWide[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

bool fp4(aclDataType dt) { return dt == ACL_FLOAT4_E2M1 || dt == ACL_FLOAT4_E1M2; }

int cast(const aclTensor *self, aclDataType dt, aclTensor *out) {
  return run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnCastGetWorkspaceSize(self, dt, out, w, e); },
                aclnnCast);
}

int64_t elem_offset(const DeviceTensor &t, int64_t i, int64_t offset) {
  const auto idx = unravel(i, t.shape());
  for (size_t d = 0; d < idx.size(); ++d) offset += idx[d] * t.strides()[d];
  return offset;
}

// Code i of a low-float view (its element offset; FLOAT4 views are contiguous from 0).
int get_code(const DeviceTensor &t, int64_t i, int64_t offset) {
  const auto *p = static_cast<const uint8_t *>(t.data());
  const int64_t e = elem_offset(t, i, offset);
  return fp4(t.dtype()) ? (p[e >> 1] >> ((e & 1) * 4)) & 0xF : p[e];
}
void set_code(DeviceTensor &t, int64_t i, int64_t offset, int c) {
  auto *p = static_cast<uint8_t *>(t.data());
  const int64_t e = elem_offset(t, i, offset);
  if (!fp4(t.dtype())) {
    p[e] = static_cast<uint8_t>(c);
    return;
  }
  p[e >> 1] = static_cast<uint8_t>((e & 1) ? (p[e >> 1] & 0x0F) | (c << 4) : (p[e >> 1] & 0xF0) | c);
}

Shape random_shape(std::mt19937_64 &g) {
  Shape s;
  const int nd = static_cast<int>(g() % 4);
  for (int d = 0; d < nd; ++d) s.push_back(1 + static_cast<int64_t>(g() % 9));
  return s;
}

TEST(LowFloatCast, WideToLowAgainstFloat64) {
  reseed_for_current_test();
  auto &g = rng();
  for (aclDataType low : kLow)
    for (aclDataType wide : kWide)
      for (int k = 0; k < 6; ++k) {
        const Shape shape = random_shape(g);
        const bool strided = k % 2 == 1;
        SCOPED_TRACE(::testing::Message() << "from " << wide << " to " << low << " strided " << strided << " shape "
                                          << ::testing::PrintToString(shape));
        auto x = strided ? padded_view(shape, wide, 3) : std::make_unique<DeviceTensor>(shape, wide);
        const bool y_strided = strided && !fp4(low);
        auto y = y_strided ? padded_view(shape, low, 5) : std::make_unique<DeviceTensor>(shape, low);
        const lfref::Fmt f = lfref::fmt_of(low);
        const double mx = lfref::max_finite(f);
        std::vector<double> v(static_cast<size_t>(numel_of(shape)));
        std::uniform_real_distribution<double> u(-1.2 * mx, 1.2 * mx);
        for (auto &e : v) {
          switch (g() % 8) {
            case 0: e = std::ldexp(u(g) / mx, -static_cast<int>(g() % 12)); break;  // subnormal range
            case 1: e = (g() % 2 ? 1 : -1) * (mx + std::ldexp(mx, -4) * (g() % 3)); break;  // around the top
            case 2: e = std::vector<double>{NAN, INFINITY, -INFINITY, 0.0, -0.0}[g() % 5]; break;
            default: e = u(g);
          }
        }
        x->set_values(v);
        ASSERT_EQ(cast(x->get(), low, y->get()), 0) << aclGetRecentErrMsg();
        const auto xv = x->values();
        for (size_t i = 0; i < xv.size(); ++i) {
          const int want = lfref::encode(f, xv[i], lfref::kRint, /*saturate=*/false);
          ASSERT_EQ(get_code(*y, static_cast<int64_t>(i), y_strided ? 5 : 0), want) << "x " << xv[i];
        }
        if (y_strided) EXPECT_TRUE(y->untouched_outside_view());
      }
}

TEST(LowFloatCast, EveryCodeToWideAndToTheOtherFormats) {
  for (aclDataType low : kLow) {
    const lfref::Fmt f = lfref::fmt_of(low);
    const int codes = 1 << f.bits;
    const Shape shape{codes};
    DeviceTensor x(shape, low);
    for (int c = 0; c < codes; ++c) set_code(x, c, 0, c);
    for (aclDataType wide : kWide) {
      DeviceTensor y(shape, wide);
      ASSERT_EQ(cast(x, wide, y), 0) << aclGetRecentErrMsg();
      const auto yv = y.values();
      for (int c = 0; c < codes; ++c) {
        const double want = lfref::value(f, c);
        if (std::isnan(want)) EXPECT_TRUE(std::isnan(yv[c])) << low << " code " << c;
        else EXPECT_EQ(yv[c], round_to(wide, want)) << low << " code " << c << " to " << wide;
      }
    }
    for (aclDataType other : kLow) {
      DeviceTensor y(shape, other);
      ASSERT_EQ(cast(x, other, y), 0) << aclGetRecentErrMsg();
      for (int c = 0; c < codes; ++c)
        EXPECT_EQ(get_code(y, c, 0), lfref::encode(lfref::fmt_of(other), lfref::value(f, c), lfref::kRint, false))
            << low << " code " << c << " to " << other;
    }
  }
}

TEST(LowFloatCast, OddFloat4RowsZeroDAndEmpty) {
  DeviceTensor x(Shape{3, 5}, ACL_FLOAT), y(Shape{3, 5}, ACL_FLOAT4_E2M1);
  std::vector<double> v(15);
  for (int i = 0; i < 15; ++i) v[i] = 0.37 * (i - 7);
  x.set_values(v);
  ASSERT_EQ(cast(x, ACL_FLOAT4_E2M1, y), 0) << aclGetRecentErrMsg();
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(get_code(y, i, 0), lfref::encode(lfref::fmt_of(ACL_FLOAT4_E2M1), x.values()[i], lfref::kRint, false)) << i;
  DeviceTensor s(Shape{}, ACL_BF16), s8(Shape{}, ACL_FLOAT8_E5M2);
  s.set_values({-3.3});
  ASSERT_EQ(cast(s, ACL_FLOAT8_E5M2, s8), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(get_code(s8, 0, 0), lfref::encode(lfref::fmt_of(ACL_FLOAT8_E5M2), s.values()[0], lfref::kRint, false));
  DeviceTensor e(Shape{0, 4}, ACL_FLOAT16), e8(Shape{0, 4}, ACL_FLOAT8_E4M3FN);
  EXPECT_EQ(cast(e, ACL_FLOAT8_E4M3FN, e8), 0) << aclGetRecentErrMsg();
}

TEST(LowFloatCast, ErrorsNameTheArgument) {
  const Shape shape{4, 6};
  DeviceTensor x(shape, ACL_FLOAT), y8(shape, ACL_FLOAT8_E4M3FN), yh(shape, ACL_HIFLOAT8), xi(shape, ACL_INT32),
      xd(shape, ACL_DOUBLE), y5(shape, ACL_FLOAT8_E5M2), ybad(Shape{4, 5}, ACL_FLOAT8_E4M3FN);
  auto y4 = std::make_unique<DeviceTensor>(shape, ACL_FLOAT4_E2M1, Shape{1, 4}, 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto p1 = [&](const aclTensor *s, aclDataType dt, aclTensor *o) { return aclnnCastGetWorkspaceSize(s, dt, o, &ws, &ex); };
  ASSERT_EQ(cast(x, ACL_FLOAT8_E4M3FN, y8), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(fails_with(p1(nullptr, ACL_FLOAT8_E4M3FN, y8), ACLNN_ERR_PARAM_NULLPTR, {"aclnnCast", "self"}));
  EXPECT_TRUE(fails_with(p1(x, ACL_FLOAT8_E4M3FN, nullptr), ACLNN_ERR_PARAM_NULLPTR, {"aclnnCast", "out"}));
  EXPECT_TRUE(fails_with(p1(x, ACL_HIFLOAT8, yh), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "out", "HIFLOAT8"}));
  EXPECT_TRUE(fails_with(p1(xi, ACL_FLOAT8_E4M3FN, y8), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "self", "INT32"}));
  EXPECT_TRUE(fails_with(p1(xd, ACL_FLOAT8_E4M3FN, y8), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "self", "DOUBLE"}));
  EXPECT_TRUE(fails_with(p1(y8, ACL_INT32, xi), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "out", "INT32"}));
  EXPECT_TRUE(fails_with(p1(x, ACL_FLOAT8_E5M2, y8), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "out", "dtype"}));
  EXPECT_TRUE(fails_with(p1(x, ACL_FLOAT8_E4M3FN, y5), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "out", "dtype"}));
  EXPECT_TRUE(fails_with(p1(x, ACL_FLOAT8_E4M3FN, ybad), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "out", "shape"}));
  EXPECT_TRUE(fails_with(p1(x, ACL_FLOAT4_E2M1, y4->get()), ACLNN_ERR_PARAM_INVALID, {"aclnnCast", "out", "contiguous"}));
}

}  // namespace
}  // namespace opsnn::test

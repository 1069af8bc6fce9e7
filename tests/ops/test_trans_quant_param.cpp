// aclnnTransQuantParamV2: the 64-bit words compared bit for bit with an independent encoding
// (scale bits masked to the top 19, bit 46, the offset rounded half away from zero, clamped to
// [-256, 255], as 9 bits at 37..45), over the shape forms and strided outputs; the errors; and the
// round trip: its words as QuantMatmulV4's scale give the same bits as the FLOAT scale with the 13
// low mantissa bits cleared (an offset packed into the words is ignored by the matmul).
#include <cmath>
#include <cstring>
#include <memory>

#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "aclnnop/aclnn_trans_quant_param_v2.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

uint64_t expected_word(float scale, const double *offset) {
  uint32_t u;
  std::memcpy(&u, &scale, 4);
  uint64_t w = (uint64_t{u} >> 13 << 13) | (uint64_t{1} << 46);
  if (offset != nullptr) {
    const double a = std::floor(std::fabs(*offset) + 0.5);  // half away from zero
    int64_t o = static_cast<int64_t>(*offset < 0 ? -a : a);
    o = std::max<int64_t>(-256, std::min<int64_t>(255, o));
    w |= static_cast<uint64_t>(o & 0x1FF) << 37;
  }
  return w;
}

// The 64-bit words of a 1-D or (1, n) view.
std::vector<uint64_t> read_words(const DeviceTensor &t, int64_t view_off) {
  const int64_t count = t.shape().back(), stride = t.strides().back();
  std::vector<uint64_t> host(static_cast<size_t>(view_off + (count - 1) * stride + 1));
  EXPECT_EQ(aclrtMemcpy(host.data(), host.size() * 8, t.data(), host.size() * 8, ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  std::vector<uint64_t> v(static_cast<size_t>(count));
  for (int64_t j = 0; j < count; ++j) v[static_cast<size_t>(j)] = host[static_cast<size_t>(view_off + j * stride)];
  return v;
}

class TransQuantParam : public ::testing::Test {
 protected:
  void SetUp() override { reseed_for_current_test(); }
};

struct TqCase {
  std::vector<int64_t> scale, offset, out;  // offset empty: none
  aclDataType out_dtype = ACL_UINT64;
  bool strided_out = false;
};

void run_encoding(const TqCase &c) {
  SCOPED_TRACE(::testing::Message() << "scale " << ::testing::PrintToString(c.scale) << " offset "
                                    << ::testing::PrintToString(c.offset) << " out "
                                    << ::testing::PrintToString(c.out) << " " << c.out_dtype);
  DeviceTensor scale(c.scale, ACL_FLOAT);
  scale.fill_random(-3, 3);
  std::unique_ptr<DeviceTensor> offset;
  std::vector<double> ov;
  if (!c.offset.empty()) {
    offset = std::make_unique<DeviceTensor>(c.offset, ACL_FLOAT);
    // Values beyond the clamp range, and exact halves (the rounding rule shows there).
    std::vector<double> v(static_cast<size_t>(numel_of(c.offset)));
    std::uniform_real_distribution<double> d(-300, 300);
    for (size_t j = 0; j < v.size(); ++j) v[j] = j % 3 == 0 ? std::floor(d(rng())) + 0.5 : d(rng());
    if (v.size() > 4) {
      v[1] = -0.5;
      v[2] = 0.5;
      v[4] = -255.5;
    }
    offset->set_values(v);
    ov = offset->values();
  }
  std::vector<int64_t> ostr = contiguous_strides(c.out);
  if (c.strided_out) ostr.back() = 3;
  const int64_t view_off = c.strided_out ? 2 : 0;
  DeviceTensor out(c.out, c.out_dtype, ostr, view_off);
  out.poison();
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                     return aclnnTransQuantParamV2GetWorkspaceSize(scale, offset ? offset->get() : nullptr, out, ws, ex);
                   },
                   aclnnTransQuantParamV2),
            0)
      << aclGetRecentErrMsg();
  const auto sv = scale.values();
  const auto got = read_words(out, view_off);
  for (size_t j = 0; j < got.size(); ++j) {
    const float s = static_cast<float>(sv[sv.size() == 1 ? 0 : j]);
    const double *o = ov.empty() ? nullptr : &ov[ov.size() == 1 ? 0 : j];
    EXPECT_EQ(got[j], expected_word(s, o)) << "element " << j << " scale " << s << " offset " << (o ? *o : 0.0);
  }
  EXPECT_TRUE(out.untouched_outside_view());
}

TEST_F(TransQuantParam, EncodingBitExact) {
  run_encoding({{37}, {}, {37}});
  run_encoding({{37}, {37}, {37}});
  run_encoding({{1}, {41}, {41}, ACL_INT64});
  run_encoding({{41}, {1}, {41}});
  run_encoding({{1}, {}, {1}, ACL_INT64});
  run_encoding({{1}, {1}, {1}});
  run_encoding({{1, 23}, {23}, {1, 23}, ACL_INT64});
  run_encoding({{1, 23}, {1, 23}, {1, 23}, ACL_UINT64, true});
  run_encoding({{64}, {64}, {64}, ACL_UINT64, true});
}

TEST_F(TransQuantParam, Errors) {
  DeviceTensor s({8}, ACL_FLOAT), o({8}, ACL_FLOAT), out({8}, ACL_UINT64), s16({8}, ACL_FLOAT16);
  DeviceTensor o16({8}, ACL_FLOAT16), out_f({8}, ACL_FLOAT), out_bad({9}, ACL_UINT64), o_bad({3}, ACL_FLOAT);
  DeviceTensor s2({2, 8}, ACL_FLOAT), s12({1, 8}, ACL_FLOAT), out12({1, 8}, ACL_UINT64), s1({1}, ACL_FLOAT);
  DeviceTensor o12({1, 12}, ACL_FLOAT), out_ov({8}, ACL_UINT64, {0}, 0);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *c) {
    return aclnnTransQuantParamV2GetWorkspaceSize(a, b, c, &ws, &ex);
  };
  const int kNull = ACLNN_ERR_PARAM_NULLPTR, kInv = ACLNN_ERR_PARAM_INVALID;
  EXPECT_TRUE(fails_with(call(nullptr, o, out), kNull, {"aclnnTransQuantParamV2", "scale"}));
  EXPECT_TRUE(fails_with(call(s, o, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(s16, o, out), kInv, {"scale", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(s, o16, out), kInv, {"offset", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(s, o, out_f), kInv, {"out", "FLOAT", "UINT64"}));
  EXPECT_TRUE(fails_with(call(s, o, out_bad), kInv, {"out", "[9]"}));
  EXPECT_TRUE(fails_with(call(s, o_bad, out), kInv, {"scale", "offset"}));
  EXPECT_TRUE(fails_with(call(s2, nullptr, out), kInv, {"scale", "[2, 8]"}));
  EXPECT_TRUE(fails_with(call(s12, nullptr, out), kInv, {"out", "[1, 8]"}));
  EXPECT_TRUE(fails_with(call(s1, o12, out12), kInv, {"out"}));
  EXPECT_TRUE(fails_with(call(s, nullptr, out_ov), kInv, {"out", "overlap"}));
  EXPECT_EQ(call(s12, s1, out12), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
}

// TransQuantParamV2's words as QuantMatmulV4's scale == the FLOAT scale with its 13 low mantissa
// bits cleared: the same output bits, with or without an offset packed into the words.
TEST_F(TransQuantParam, RoundTripThroughQuantMatmul) {
  const int64_t m = 9, k = 75, n = 31;
  for (aclDataType out_dtype : {ACL_INT8, ACL_FLOAT16, ACL_BF16})
    for (bool packed_offset : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "out " << out_dtype << " packed offset " << packed_offset);
      DeviceTensor x1({m, k}, ACL_INT8), x2({k, n}, ACL_INT8), scale({n}, ACL_FLOAT), off({n}, ACL_FLOAT);
      DeviceTensor words({n}, ACL_UINT64), trunc({n}, ACL_FLOAT), y_words({m, n}, out_dtype), y_float({m, n}, out_dtype);
      x1.fill_random(-128, 127);
      x2.fill_random(-128, 127);
      scale.fill_random(2e-4, 2e-3);
      off.fill_random(-100, 100);
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                         return aclnnTransQuantParamV2GetWorkspaceSize(scale, packed_offset ? off.get() : nullptr,
                                                                       words, ws, ex);
                       },
                       aclnnTransQuantParamV2),
                0)
          << aclGetRecentErrMsg();
      auto sv = scale.values();
      for (double &v : sv) {
        uint32_t u;
        const float f = static_cast<float>(v);
        std::memcpy(&u, &f, 4);
        u &= 0xFFFFE000u;
        float t;
        std::memcpy(&t, &u, 4);
        v = t;
      }
      trunc.set_values(sv);
      y_words.poison();
      y_float.poison();
      for (auto [s, y] : {std::pair<DeviceTensor *, DeviceTensor *>{&words, &y_words}, {&trunc, &y_float}})
        ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                           return aclnnQuantMatmulV4GetWorkspaceSize(x1, x2, *s, nullptr, nullptr, nullptr, false,
                                                                     false, *y, ws, ex);
                         },
                         aclnnQuantMatmulV4),
                  0)
            << aclGetRecentErrMsg();
      std::vector<unsigned char> a(static_cast<size_t>(m * n * elem_size(out_dtype))), b(a.size());
      ASSERT_EQ(aclrtMemcpy(a.data(), a.size(), y_words.data(), a.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
      ASSERT_EQ(aclrtMemcpy(b.data(), b.size(), y_float.data(), b.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
      EXPECT_EQ(a, b);
      // Not a trivial comparison: the results vary.
      const auto v = y_float.values();
      EXPECT_GT(*std::max_element(v.begin(), v.end()), *std::min_element(v.begin(), v.end()));
    }
}

}  // namespace
}  // namespace opsnn::test

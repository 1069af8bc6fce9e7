// aclnnMatmulCompress (src/ops/matmul/matmul.ops, key `compress`; ops/matmul/matmul_phase1.h) and
// aclnnMatmulCompressDequant (src/ops/matmul/quant_matmul.ops, scheme compress_dequant;
// ops/matmul/qmm_phase1.h): OpsNN reads msModelSlim's stored (uncompressed) form, W [n, k] row-major
// in the 1-D x2. Checked against a float64 reference written here, out = (x1 @ W^T + bias) *
// deqScale[j] (exact int sums), with deqScale as the page's sample makes it (the fp32 scale's bits
// read as int32 and widened to int64, so a negative scale carries ones in the high word), over
// shapes, (1, n) / (1, 1) scales, null / (n,) / (1, n) bias, strided x1, and every error path.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnnop/aclnn_matmul_compress.h"
#include "aclnnop/aclnn_matmul_compress_dequant.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;
constexpr int kNull = 161001, kInvalid = 161002;

size_t at(int64_t i) { return static_cast<size_t>(i); }

// The sample's words: the float's bits as int32, widened to int64 (sign-extended).
uint64_t deq_word(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return static_cast<uint64_t>(static_cast<int64_t>(bits));
}

struct Info {
  aclIntArray *a;
  explicit Info(std::vector<int64_t> v) : a(aclCreateIntArray(v.data(), v.size())) {}
  ~Info() { aclDestroyIntArray(a); }
};

void check_compress(int64_t m, int64_t k, int64_t n, int bias_form, bool per_channel, bool padded) {
  SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " bias " +
               std::to_string(bias_form) + " per channel " + std::to_string(per_channel));
  auto x1 = padded ? padded_view({m, k}, ACL_INT8) : std::make_unique<DeviceTensor>(Dims{m, k}, ACL_INT8);
  DeviceTensor w({n * k}, ACL_INT8), index({16}, ACL_INT8), out({m, n}, ACL_FLOAT16);
  DeviceTensor scale({1, per_channel ? n : 1}, ACL_UINT64);
  std::unique_ptr<DeviceTensor> bias;
  if (bias_form == 1) bias = std::make_unique<DeviceTensor>(Dims{n}, ACL_INT32);
  if (bias_form == 2) bias = std::make_unique<DeviceTensor>(Dims{1, n}, ACL_INT32);
  x1->fill_random(-128, 127);
  w.fill_random(-128, 127);
  index.fill_random(-128, 127);
  if (bias) bias->fill_random(-5000, 5000);
  std::vector<float> s(at(per_channel ? n : 1));
  std::vector<uint64_t> words;
  std::uniform_real_distribution<float> mag(0.5f / static_cast<float>(k), 2.0f / static_cast<float>(k));
  for (size_t j = 0; j < s.size(); ++j) {
    s[j] = (j % 3 == 1 ? -1.0f : 1.0f) * mag(rng());
    words.push_back(deq_word(s[j]));
  }
  ASSERT_EQ(aclrtMemcpy(scale.data(), words.size() * 8, words.data(), words.size() * 8, ACL_MEMCPY_HOST_TO_DEVICE), 0);
  const auto vx = x1->values(), vw = w.values();
  const auto vb = bias ? bias->values() : std::vector<double>{};
  std::vector<double> value, bound;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += static_cast<int64_t>(vx[at(i * k + p)]) * static_cast<int64_t>(vw[at(j * k + p)]);
      const double b = bias ? vb[at(j)] : 0.0, sc = s[at(per_channel ? j : 0)];
      value.push_back((static_cast<double>(acc) + b) * sc);
      bound.push_back((std::fabs(static_cast<double>(acc)) + std::fabs(b)) * std::fabs(sc));
    }
  Info info({8, 8, k, n, 1});
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnMatmulCompressDequantGetWorkspaceSize(*x1, w, index, bias ? bias->get() : nullptr, scale,
                                                                nullptr, 0, info.a, out, ws, ex);
            }, aclnnMatmulCompressDequant), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(out, value, bound));
}

TEST(MatmulCompressDequant, StoredFormMatchesReference) {
  reseed_for_current_test();
  int i = 0;
  for (int bias_form : {0, 1, 2})
    for (bool per_channel : {true, false})
      for (bool padded : {false, true}) {
        check_compress(1 + (i * 5) % 17, 1 + (i * 29) % 130, 1 + (i * 7) % 45, bias_form, per_channel, padded);
        ++i;
      }
  check_compress(64, 256, 96, 1, true, false);
}

TEST(MatmulCompressDequant, Errors) {
  const int64_t m = 3, k = 16, n = 8;
  DeviceTensor x1({m, k}, ACL_INT8), w({n * k}, ACL_INT8), index({4}, ACL_INT8), bias({n}, ACL_INT32);
  DeviceTensor scale({1, n}, ACL_UINT64), out({m, n}, ACL_FLOAT16), out32({m, n}, ACL_FLOAT), x16({m, k}, ACL_FLOAT16);
  DeviceTensor wshort({n * k - 1}, ACL_INT8), w2d({n, k}, ACL_INT8), idx8u({4}, ACL_UINT8), bias_f({n}, ACL_FLOAT);
  DeviceTensor scale_bad({1, n + 1}, ACL_UINT64), offw({n * k}, ACL_INT8);
  DeviceTensor wstrided({n * k}, ACL_INT8, {2}, 0, 2 * n * k);
  Info info({8, 8, k, n, 1}), info4({8, 8, k, n}), info_k({8, 8, k + 1, n, 1}), info_n({8, 8, k, n + 1, 1});
  Info info_dir({8, 8, k, n, 2}), info_tile({0, 8, k, n, 1});
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *idx, const aclTensor *bi, const aclTensor *sc,
                  const aclTensor *ow, int ox, const aclIntArray *ci, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = aclnnMatmulCompressDequantGetWorkspaceSize(a, b, idx, bi, sc, ow, ox, ci, o, &ws, &ex);
    if (rc == 0) aclDestroyAclOpExecutor(ex);
    return rc;
  };
  EXPECT_TRUE(fails_with(call(nullptr, w, index, bias, scale, nullptr, 0, info.a, out), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, index, bias, scale, nullptr, 0, info.a, out), kNull, {"x2"}));
  EXPECT_TRUE(fails_with(call(x1, w, nullptr, bias, scale, nullptr, 0, info.a, out), kNull, {"compressIndex"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, nullptr, nullptr, 0, info.a, out), kNull, {"deqScale"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, nullptr, out), kNull, {"compressInfo"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info.a, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(x16, w, index, bias, scale, nullptr, 0, info.a, out), kInvalid, {"x1", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info.a, out32), kInvalid, {"out", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info4.a, out), kInvalid, {"compressInfo", "4 values"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info_k.a, out), kInvalid, {"compressInfo", "x1"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info_n.a, out), kInvalid, {"compressInfo", "out"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info_dir.a, out), kInvalid, {"compressInfo", "direction"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 0, info_tile.a, out), kInvalid, {"compressInfo", "tiles"}));
  EXPECT_TRUE(fails_with(call(x1, wshort, index, bias, scale, nullptr, 0, info.a, out), kInvalid, {"x2", "stored"}));
  EXPECT_TRUE(fails_with(call(x1, wstrided, index, bias, scale, nullptr, 0, info.a, out), kInvalid, {"x2", "stride"}));
  EXPECT_TRUE(fails_with(call(x1, w2d, index, bias, scale, nullptr, 0, info.a, out), kInvalid, {"x2"}));
  EXPECT_TRUE(fails_with(call(x1, w, idx8u, bias, scale, nullptr, 0, info.a, out), kInvalid, {"compressIndex", "UINT8"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias_f, scale, nullptr, 0, info.a, out), kInvalid, {"bias", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale_bad, nullptr, 0, info.a, out), kInvalid, {"deqScale"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, offw, 0, info.a, out), kInvalid, {"offsetW"}));
  EXPECT_TRUE(fails_with(call(x1, w, index, bias, scale, nullptr, 3, info.a, out), kInvalid, {"offsetX"}));
  EXPECT_EQ(call(x1, w, index, nullptr, scale, nullptr, 0, info.a, out), 0) << aclGetRecentErrMsg();
}

// ---- aclnnMatmulCompress: out = x @ W^T + bias (FLOAT16, FLOAT bias)

void check_float_compress(int64_t m, int64_t k, int64_t n, int bias_form, bool padded) {
  SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " bias " +
               std::to_string(bias_form));
  auto x = padded ? padded_view({m, k}, ACL_FLOAT16) : std::make_unique<DeviceTensor>(Dims{m, k}, ACL_FLOAT16);
  DeviceTensor w({n * k}, ACL_FLOAT16), index({8}, ACL_INT8), out({m, n}, ACL_FLOAT16);
  std::unique_ptr<DeviceTensor> bias;
  if (bias_form == 1) bias = std::make_unique<DeviceTensor>(Dims{n}, ACL_FLOAT);
  if (bias_form == 2) bias = std::make_unique<DeviceTensor>(Dims{1, n}, ACL_FLOAT);
  x->fill_random(-1, 1);
  w.fill_random(-1, 1);
  if (bias) bias->fill_random(-2, 2);
  const auto vx = x->values(), vw = w.values();
  const auto vb = bias ? bias->values() : std::vector<double>{};
  std::vector<double> value, bound;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias ? vb[at(j)] : 0.0, mag = bias ? std::fabs(vb[at(j)]) : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        acc += vx[at(i * k + p)] * vw[at(j * k + p)];
        mag += std::fabs(vx[at(i * k + p)] * vw[at(j * k + p)]);
      }
      value.push_back(acc);
      bound.push_back(mag);
    }
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnMatmulCompressGetWorkspaceSize(*x, w, bias ? bias->get() : nullptr, index, out, ws, ex);
            }, aclnnMatmulCompress), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(out, value, bound));
}

TEST(MatmulCompress, StoredFormMatchesReference) {
  reseed_for_current_test();
  int i = 0;
  for (int bias_form : {0, 1, 2})
    for (bool padded : {false, true}) {
      check_float_compress(1 + (i * 5) % 17, 1 + (i * 29) % 130, 1 + (i * 7) % 45, bias_form, padded);
      ++i;
    }
  check_float_compress(48, 200, 64, 1, false);
}

TEST(MatmulCompress, Errors) {
  const int64_t m = 3, k = 16, n = 8;
  DeviceTensor x({m, k}, ACL_FLOAT16), w({n * k}, ACL_FLOAT16), index({4}, ACL_INT8), bias({n}, ACL_FLOAT);
  DeviceTensor out({m, n}, ACL_FLOAT16), x32({m, k}, ACL_FLOAT), w32({n * k}, ACL_FLOAT), out32({m, n}, ACL_FLOAT);
  DeviceTensor wshort({n * k - 2}, ACL_FLOAT16), w2d({n, k}, ACL_FLOAT16), idx_u8({4}, ACL_UINT8), idx2d({2, 2}, ACL_INT8);
  DeviceTensor bias16({n}, ACL_FLOAT16), biasbad({n + 1}, ACL_FLOAT), x3d({1, m, k}, ACL_FLOAT16);
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *bi, const aclTensor *idx, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const int rc = aclnnMatmulCompressGetWorkspaceSize(a, b, bi, idx, o, &ws, &ex);
    if (rc == 0) aclDestroyAclOpExecutor(ex);
    return rc;
  };
  EXPECT_TRUE(fails_with(call(nullptr, w, bias, index, out), kNull, {"x"}));
  EXPECT_TRUE(fails_with(call(x, nullptr, bias, index, out), kNull, {"weight"}));
  EXPECT_TRUE(fails_with(call(x, w, bias, nullptr, out), kNull, {"compressIndex"}));
  EXPECT_TRUE(fails_with(call(x, w, bias, index, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(x32, w, bias, index, out), kInvalid, {"x", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x, w32, bias, index, out), kInvalid, {"weight", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x, w, bias, index, out32), kInvalid, {"out", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x, w, bias16, index, out), kInvalid, {"bias", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x, w, biasbad, index, out), kInvalid, {"bias"}));
  EXPECT_TRUE(fails_with(call(x, w, bias, idx_u8, out), kInvalid, {"compressIndex", "UINT8"}));
  EXPECT_TRUE(fails_with(call(x, w, bias, idx2d, out), kInvalid, {"compressIndex"}));
  EXPECT_TRUE(fails_with(call(x, wshort, bias, index, out), kInvalid, {"weight", "stored"}));
  EXPECT_TRUE(fails_with(call(x, w2d, bias, index, out), kInvalid, {"weight"}));
  EXPECT_TRUE(fails_with(call(x3d, w, bias, index, out), kInvalid, {"x"}));
  EXPECT_EQ(call(x, w, nullptr, index, out), 0) << aclGetRecentErrMsg();
}

}  // namespace
}  // namespace opsnn::test

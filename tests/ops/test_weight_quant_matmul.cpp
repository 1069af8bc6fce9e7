// aclnnWeightQuantBatchMatmulV2 against a dequantise-then-multiply float64 reference: INT8 / INT4 /
// INT32-packed INT4 weights, [k, n] and transposed views, per-tensor / per-channel / per-group
// scales with and without offsets, bias, FLOAT16 / BF16, the small-M and the large-M path; and the
// error paths; the re-quantised INT8 output (quantScaleOptional / quantOffsetOptional). Accuracy:
// precision.md's absolute-bound variant (as in test_matmul.cpp):
// rel_i = |actual - golden| / (sum_k |x_ik * w_kj| + 1e-7), MERE < T, MARE < 10 T; INT8 outputs
// exactly, except within the fp32 error bound of a rounding boundary (then +-1).
#include <cmath>
#include <cstring>

#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

enum class WType { kInt8, kInt4, kInt32 };

// A quantised weight [k, n] (values as ints), stored [k, n] or as the transposed view of [n, k].
struct QWeight {
  int64_t k, n;
  WType type;
  bool transposed;
  std::vector<int> values;  // [k][n]
  void *dev = nullptr;
  aclTensor *t = nullptr;

  QWeight(int64_t k_, int64_t n_, WType type_, bool transposed_) : k(k_), n(n_), type(type_), transposed(transposed_) {
    const int lo = type == WType::kInt8 ? -128 : -8, hi = type == WType::kInt8 ? 127 : 7;
    std::uniform_int_distribution<int> dist(lo, hi);
    values.resize(static_cast<size_t>(k * n));
    for (int &v : values) v = dist(rng());
    const int64_t elems = k * n;
    const size_t bytes = type == WType::kInt8 ? static_cast<size_t>(elems) : static_cast<size_t>((elems + 1) / 2);
    std::vector<uint8_t> host(bytes + 64, 0);
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) {
        const int64_t e = transposed ? j * k + p : p * n + j;
        const int v = values[static_cast<size_t>(p * n + j)];
        if (type == WType::kInt8) {
          host[static_cast<size_t>(e)] = static_cast<uint8_t>(static_cast<int8_t>(v));
        } else {
          uint8_t &b = host[static_cast<size_t>(e / 2)];
          const uint8_t nib = static_cast<uint8_t>(v & 15);
          b = (e & 1) ? static_cast<uint8_t>((b & 0x0F) | (nib << 4)) : static_cast<uint8_t>((b & 0xF0) | nib);
        }
      }
    EXPECT_EQ(aclrtMalloc(&dev, host.size(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(dev, host.size(), host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    if (type == WType::kInt32) {
      const int64_t dims[2] = {k, n / 8}, strides[2] = {n / 8, 1}, storage = k * n / 8;
      t = aclCreateTensor(dims, 2, ACL_INT32, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
    } else {
      const aclDataType dt = type == WType::kInt8 ? ACL_INT8 : ACL_INT4;
      const int64_t dims[2] = {k, n};
      const int64_t strides[2] = {transposed ? 1 : n, transposed ? k : 1};
      const int64_t storage = k * n;
      t = aclCreateTensor(dims, 2, dt, strides, 0, ACL_FORMAT_ND, &storage, 1, dev);
    }
  }
  ~QWeight() {
    aclDestroyTensor(t);
    aclrtFree(dev);
  }
};

struct WqCase {
  std::vector<int64_t> x_shape;  // [..., m, k]
  int64_t n;
  aclDataType xt;
  WType wt;
  bool w_trans = false;
  int mode = 1;  // 0 per-tensor, 1 per-channel (n,), 2 per-channel (1, n), 3 per-group
  int group = 0;
  bool offset = false;
  aclDataType bias = ACL_DT_UNDEFINED;
};

void run_case(const WqCase &c) {
  SCOPED_TRACE(::testing::Message() << "x " << ::testing::PrintToString(c.x_shape) << " n " << c.n << " xt " << c.xt
                                    << " wt " << int(c.wt) << " trans " << c.w_trans << " mode " << c.mode << " group "
                                    << c.group << " offset " << c.offset << " bias " << c.bias);
  const int64_t k = c.x_shape.back(), n = c.n;
  int64_t m = 1;
  for (size_t i = 0; i + 1 < c.x_shape.size(); ++i) m *= c.x_shape[i];
  DeviceTensor x(c.x_shape, c.xt);
  x.fill_random(-1, 1);
  QWeight w(k, n, c.wt, c.w_trans);
  const int64_t groups = c.mode == 3 ? (k + c.group - 1) / c.group : 1;
  std::vector<int64_t> s_shape = c.mode == 0 ? std::vector<int64_t>{1}
                                 : c.mode == 1 ? std::vector<int64_t>{n}
                                 : c.mode == 2 ? std::vector<int64_t>{1, n}
                                               : std::vector<int64_t>{groups, n};
  DeviceTensor scale(s_shape, c.xt), offset(s_shape, c.xt);
  scale.fill_random(0.002, 0.02);
  offset.fill_random(-4, 4);
  std::unique_ptr<DeviceTensor> bias;
  if (c.bias != ACL_DT_UNDEFINED) {
    bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, c.bias);
    bias->fill_random(-1, 1);
  }
  std::vector<int64_t> y_shape = c.x_shape;
  y_shape.back() = n;
  DeviceTensor y(y_shape, c.xt);
  y.poison();
  ASSERT_EQ(run_op(
                [&](uint64_t *ws, aclOpExecutor **e) {
                  return aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
                      x, w.t, scale, c.offset ? offset.get() : nullptr, nullptr, nullptr, bias ? bias->get() : nullptr,
                      c.mode == 3 ? c.group : 0, y, ws, e);
                },
                aclnnWeightQuantBatchMatmulV2),
            0)
      << aclGetRecentErrMsg();

  const auto xv = x.values(), sv = scale.values(), ov = offset.values();
  std::vector<double> bv = bias ? bias->values() : std::vector<double>();
  const int64_t gr = c.mode == 3 ? c.group : k;
  std::vector<double> wd(static_cast<size_t>(k * n));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) {
      const size_t si = c.mode == 0 ? 0 : static_cast<size_t>((p / gr) * (c.mode == 3 ? n : 0) + j);
      double v = w.values[static_cast<size_t>(p * n + j)];
      if (c.offset) v += ov[si];
      wd[static_cast<size_t>(p * n + j)] = v * sv[si];
    }
  const auto got = y.values();
  const double T = precision_threshold(c.xt);
  double sum = 0, worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double g = bias ? bv[static_cast<size_t>(j)] : 0.0, mag = bias ? std::fabs(g) : 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const double t = xv[static_cast<size_t>(i * k + p)] * wd[static_cast<size_t>(p * n + j)];
        g += t;
        mag += std::fabs(t);
      }
      const double a = got[static_cast<size_t>(i * n + j)];
      ASSERT_FALSE(std::isnan(a)) << "y[" << i << "," << j << "] is NaN (unwritten?)";
      const double rel = std::fabs(a - g) / (mag + 1e-7);
      sum += rel;
      worst = std::max(worst, rel);
    }
  EXPECT_LT(sum / static_cast<double>(m * n), T);
  EXPECT_LT(worst, 10 * T);
  EXPECT_TRUE(y.untouched_outside_view());
}

class WeightQuantMatmul : public ::testing::Test {
 protected:
  void SetUp() override { reseed_for_current_test(); }
};

TEST_F(WeightQuantMatmul, Int8AllModesSmallAndLargeM) {
  for (int64_t m : {1, 2, 3, 4, 5, 16, 33})
    for (int mode : {0, 1, 2, 3})
      for (bool trans : {false, true}) {
        WqCase c{{m, 256}, 67, ACL_FLOAT16, WType::kInt8, trans, mode, mode == 3 ? 64 : 0, mode != 2};
        run_case(c);
      }
}

TEST_F(WeightQuantMatmul, Int4AllModesSmallAndLargeM) {
  for (int64_t m : {1, 2, 4, 7, 40})
    for (int mode : {0, 1, 3})
      for (bool trans : {false, true}) {
        WqCase c{{m, 192}, 50, ACL_BF16, WType::kInt4, trans, mode, mode == 3 ? 32 : 0, true, ACL_FLOAT};
        run_case(c);
      }
}

TEST_F(WeightQuantMatmul, Int32PackedInt4) {
  for (int64_t m : {1, 3, 20}) run_case({{m, 128}, 64, ACL_FLOAT16, WType::kInt32, false, 3, 64, true, ACL_FLOAT16});
}

TEST_F(WeightQuantMatmul, GroupSizesAndRaggedK) {
  for (int g : {32, 64, 128})
    for (int64_t k : {int64_t{g} + 1, int64_t{3 * g - 7}, int64_t{4 * g}})
      for (int64_t m : {1, 9}) {
        run_case({{m, k}, 40, ACL_FLOAT16, WType::kInt8, false, 3, g, true, ACL_FLOAT});
        run_case({{m, k + k % 2}, 40, ACL_BF16, WType::kInt4, true, 3, g, false, ACL_BF16});
      }
}

TEST_F(WeightQuantMatmul, BatchDimsAndOddSizes) {
  run_case({{2, 3, 100}, 33, ACL_FLOAT16, WType::kInt8, false, 1, 0, true, ACL_FLOAT16});
  run_case({{2, 1, 100}, 33, ACL_BF16, WType::kInt8, true, 1, 0, false, ACL_FLOAT});
  run_case({{1, 1}, 1, ACL_FLOAT16, WType::kInt8, false, 0, 0, false});
  run_case({{3, 5, 66}, 130, ACL_FLOAT16, WType::kInt4, false, 1, 0, true});
  run_case({{1, 4096}, 300, ACL_FLOAT16, WType::kInt4, false, 3, 128, true, ACL_FLOAT16});
}

// y = sat_int8(round_half_even((x @ W + bias) * qs + qo)) with qs FLOAT or UINT64 / INT64 in
// aclnnTransQuantParam's encoding, per-tensor or per-channel, with or without qo.
void run_quant_case(int64_t m, int64_t k, int64_t n, WType wt, bool trans, aclDataType qs_dtype, bool per_channel,
                    bool with_qoffset, aclDataType bias_dtype) {
  SCOPED_TRACE(::testing::Message() << "m " << m << " k " << k << " n " << n << " wt " << int(wt) << " trans " << trans
                                    << " qs " << qs_dtype << " per_channel " << per_channel << " qoffset "
                                    << with_qoffset << " bias " << bias_dtype);
  const aclDataType xt = ACL_FLOAT16;
  DeviceTensor x({m, k}, xt);
  x.fill_random(-1, 1);
  QWeight w(k, n, wt, trans);
  DeviceTensor scale({n}, xt);
  scale.fill_random(0.002, 0.02);
  std::unique_ptr<DeviceTensor> bias;
  if (bias_dtype != ACL_DT_UNDEFINED) {
    bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, bias_dtype);
    bias->fill_random(-1, 1);
  }
  // The float64 result before quantisation and its magnitude.
  const auto xv = x.values(), sv = scale.values();
  std::vector<double> bv = bias ? bias->values() : std::vector<double>();
  std::vector<double> v(static_cast<size_t>(m * n)), mag(v.size());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double g = bias ? bv[static_cast<size_t>(j)] : 0.0, a = std::fabs(g);
      for (int64_t p = 0; p < k; ++p) {
        const double t = xv[static_cast<size_t>(i * k + p)] * w.values[static_cast<size_t>(p * n + j)] *
                         sv[static_cast<size_t>(j)];
        g += t;
        a += std::fabs(t);
      }
      v[static_cast<size_t>(i * n + j)] = g;
      mag[static_cast<size_t>(i * n + j)] = a;
    }
  // Quantisation scales: about 1.5 * 127 / the column's largest |v| (so some values saturate).
  const int64_t qn = per_channel ? n : 1;
  std::vector<float> qs(static_cast<size_t>(qn)), qo(static_cast<size_t>(qn));
  std::uniform_real_distribution<float> jitter(0.8f, 1.2f), off(-6.0f, 6.0f);
  for (int64_t j = 0; j < qn; ++j) {
    double big = 1e-3;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t c = per_channel ? j : 0; c < (per_channel ? j + 1 : n); ++c)
        big = std::max(big, std::fabs(v[static_cast<size_t>(i * n + c)]));
    float sc = static_cast<float>(1.5 * 127.0 / big) * jitter(rng());
    if (qs_dtype != ACL_FLOAT) {  // the encoding keeps the float's top 19 bits
      uint32_t bits;
      std::memcpy(&bits, &sc, 4);
      bits &= 0xFFFFE000u;
      std::memcpy(&sc, &bits, 4);
    }
    qs[static_cast<size_t>(j)] = sc;
    qo[static_cast<size_t>(j)] = with_qoffset ? off(rng()) : 0.0f;
  }
  std::vector<int64_t> qshape = per_channel ? std::vector<int64_t>{1, n} : std::vector<int64_t>{1};
  DeviceTensor qscale(qshape, qs_dtype), qoffset(qshape, ACL_FLOAT);
  if (qs_dtype == ACL_FLOAT) {
    ASSERT_EQ(aclrtMemcpy(qscale.data(), qs.size() * 4, qs.data(), qs.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  } else {
    std::vector<uint64_t> enc(qs.size());
    for (size_t j = 0; j < qs.size(); ++j) {
      uint32_t bits;
      std::memcpy(&bits, &qs[j], 4);
      enc[j] = static_cast<uint64_t>(bits) | (uint64_t{1} << 46);
    }
    ASSERT_EQ(aclrtMemcpy(qscale.data(), enc.size() * 8, enc.data(), enc.size() * 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtMemcpy(qoffset.data(), qo.size() * 4, qo.data(), qo.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  DeviceTensor y({m, n}, ACL_INT8);
  y.poison();
  ASSERT_EQ(run_op(
                [&](uint64_t *ws, aclOpExecutor **e) {
                  return aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(
                      x, w.t, scale, nullptr, qscale, with_qoffset ? qoffset.get() : nullptr,
                      bias ? bias->get() : nullptr, 0, y, ws, e);
                },
                aclnnWeightQuantBatchMatmulV2),
            0)
      << aclGetRecentErrMsg();
  const auto got = y.values();
  int exact = 0, saturated = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t e = static_cast<size_t>(i * n + j), qj = static_cast<size_t>(per_channel ? j : 0);
      const double q = v[e] * qs[qj] + qo[qj];
      const double want = std::min(127.0, std::max(-128.0, std::nearbyint(q)));
      // fp32 error of the kernel's result, scaled: within it of a .5 boundary either side may come out.
      const double err = 1e-5 * mag[e] * qs[qj] + 1e-6 * std::fabs(q);
      const double frac = std::fabs(q - std::floor(q) - 0.5);
      if (frac > err || want == 127.0 || want == -128.0) {
        if (std::fabs(q) < 127.0 - err || std::fabs(q) > 129.0) {
          ASSERT_EQ(got[e], want) << "y[" << i << "," << j << "] q " << q;
          ++exact;
        }
      } else {
        ASSERT_LE(std::fabs(got[e] - want), 1.0) << "y[" << i << "," << j << "] q " << q;
      }
      if (std::fabs(q) > 129.0) ++saturated;
    }
  EXPECT_GT(exact, m * n / 2);
  EXPECT_GT(saturated, 0);
  EXPECT_TRUE(y.untouched_outside_view());
}

TEST_F(WeightQuantMatmul, RequantisedInt8Output) {
  // m 1 / 3: streaming path; 9 / 16: streaming ([k, n]) or fused (transposed); 40: fused.
  for (int64_t m : {1, 3, 9, 16, 40})
    for (bool trans : {false, true}) {
      run_quant_case(m, 256, 48, WType::kInt8, trans, ACL_FLOAT, true, true, ACL_FLOAT16);
      run_quant_case(m, 192, 34, WType::kInt4, trans, ACL_UINT64, true, false, ACL_DT_UNDEFINED);
      run_quant_case(m, 128, 40, WType::kInt8, trans, ACL_INT64, false, true, ACL_FLOAT);
    }
}

TEST_F(WeightQuantMatmul, Errors) {
  DeviceTensor x({4, 64}, ACL_FLOAT16), y({4, 32}, ACL_FLOAT16), s({32}, ACL_FLOAT16), sb({32}, ACL_BF16);
  DeviceTensor sg({2, 32}, ACL_FLOAT16), qs({32}, ACL_UINT64), yb({4, 33}, ACL_FLOAT16);
  QWeight w(64, 32, WType::kInt8, false), w4(64, 32, WType::kInt4, false), wk(63, 32, WType::kInt8, false);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  auto call = [&](const aclTensor *xx, const aclTensor *ww, const aclTensor *ss, const aclTensor *oo,
                  const aclTensor *q, const aclTensor *bb, int g, const aclTensor *yy) {
    return aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(xx, ww, ss, oo, q, nullptr, bb, g, yy, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, w.t, s, nullptr, nullptr, nullptr, 0, y), 161001, {"x"}));
  EXPECT_TRUE(fails_with(call(x, nullptr, s, nullptr, nullptr, nullptr, 0, y), 161001, {"weight"}));
  EXPECT_TRUE(fails_with(call(x, w.t, nullptr, nullptr, nullptr, nullptr, 0, y), 161001, {"antiquantScale"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sb, nullptr, nullptr, nullptr, 0, y), 161002, {"antiquantScale"}));
  EXPECT_TRUE(fails_with(call(x, wk.t, s, nullptr, nullptr, nullptr, 0, y), 161002, {"reduce dims"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, 0, yb), 161002, {"y"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sg, nullptr, nullptr, nullptr, 16, y), 161002, {"antiquantGroupSize"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sg, nullptr, nullptr, nullptr, 48, y), 161002, {"antiquantGroupSize"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sg, nullptr, nullptr, nullptr, 64, y), 161002, {"antiquantGroupSize"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, nullptr, 32, y), 161002, {"per-group"}));
  EXPECT_TRUE(fails_with(call(x, w.t, sg, nullptr, nullptr, nullptr, 0, y), 161002, {"per-channel"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, sg, nullptr, nullptr, 0, y), 161002, {"antiquantOffsetOptional"}));
  // With quantScaleOptional y must be INT8 (y here is FLOAT16), and the scale (1,) / (n,) / (1, n).
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs, nullptr, 0, y), 161002, {"y", "INT8"}));
  DeviceTensor y8({4, 32}, ACL_INT8), qs_bad({31}, ACL_UINT64), qs_f16({32}, ACL_FLOAT16);
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs_bad, nullptr, 0, y8), 161002, {"quantScaleOptional"}));
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, qs_f16, nullptr, 0, y8), 161002, {"quantScaleOptional"}));
  EXPECT_EQ(call(x, w.t, s, nullptr, qs, nullptr, 0, y8), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
  ex = nullptr;
  EXPECT_TRUE(fails_with(call(x, w.t, s, nullptr, nullptr, yb, 0, y), 161002, {"biasOptional"}));
  EXPECT_TRUE(fails_with(call(x, x, s, nullptr, nullptr, nullptr, 0, y), 161002, {"weight", "INT8"}));
  EXPECT_TRUE(fails_with(call(y, w.t, s, nullptr, nullptr, nullptr, 0, y), 161002, {"reduce dims"}));
  EXPECT_EQ(call(x, w4.t, s, nullptr, nullptr, nullptr, 0, y), 0) << aclGetRecentErrMsg();
  aclDestroyAclOpExecutor(ex);
}

}  // namespace
}  // namespace opsnn::test

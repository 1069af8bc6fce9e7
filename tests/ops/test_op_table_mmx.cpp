// The matmul table's rows with their own harness (keys `perm` and `fused` of src/ops/matmul/matmul.ops,
// not registered for the generic one): aclnnTransposeBatchMatMul and aclnnFusedMatmul against float64
// references written here, over FLOAT / FLOAT16 / BF16 mixes, every permutation form, optional bias,
// batch splits, non-contiguous views, and every error path with its status. Also the quantised rows
// the generic qmm harness cannot drive: aclnnQuantMatmul (a float deqScale; exact int32 sums here,
// then the scale in float64), aclnnBatchMatmulQuant (FLOAT16 product re-quantised by hand-packed
// TransQuantParam words: exact, but for fp32 accumulation error next to a .5 boundary) and
// WeightQuantBatchMatmulV3's innerPrecise check, aclnnFusedQuantMatmul's activations (the generic
// qmm suites run it with fusedOpType "").
// Accuracy is precision.md's absolute-bound variant, as for the other matmuls: rel_i = |actual - golden|
// / (bound_i + 1e-7) with bound_i the sum of the magnitudes of the terms, MERE < T, MARE < 10 T.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnnop/aclnn_batchmatmul_quant.h"
#include "aclnnop/aclnn_fused_matmul.h"
#include "aclnnop/aclnn_fused_quant_matmul.h"
#include "aclnnop/aclnn_quant_matmul.h"
#include "aclnnop/aclnn_transpose_batch_mat_mul.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v3.h"
#include "permuted_views.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;
using Dev = std::unique_ptr<DeviceTensor>;
constexpr aclDataType kFloats[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
constexpr int kNull = 161001, kInvalid = 161002;

// ---- aclnnTransposeBatchMatMul

struct Tbmm {
  int64_t B = 3, M = 5, K = 7, N = 4;
  Dims p1{0, 1, 2}, p2{0, 1, 2}, py{1, 0, 2};
  aclDataType d1 = ACL_FLOAT, d2 = ACL_FLOAT, dout = ACL_FLOAT, dbias = ACL_FLOAT;
  bool bias = false;
  int32_t split = 1;
};

void check_tbmm(const Tbmm &t, bool padded_views) {
  SCOPED_TRACE("B M K N " + std::to_string(t.B) + " " + std::to_string(t.M) + " " + std::to_string(t.K) + " " +
               std::to_string(t.N) + " dtypes " + std::to_string(t.d1) + "," + std::to_string(t.d2) + "->" +
               std::to_string(t.dout) + " perms " + ::testing::PrintToString(t.p1) + ::testing::PrintToString(t.p2) +
               ::testing::PrintToString(t.py) + " split " + std::to_string(t.split));
  const Dims s1 = given_shape({t.B, t.M, t.K}, t.p1), s2 = given_shape({t.B, t.K, t.N}, t.p2);
  const Dims y = permute({t.B, t.M, t.N}, t.py);
  Dims so = y;
  if (t.split > 1) so = {y[0], t.split, y[1] * y[2] / t.split};
  auto view = [&](const Dims &s, aclDataType dt) {
    return padded_views ? padded_view(s, dt) : std::make_unique<DeviceTensor>(s, dt);
  };
  Dev x1 = view(s1, t.d1), x2 = view(s2, t.d2), bias = t.bias ? view({t.N}, t.dbias) : nullptr;
  Dev out = t.split > 1 ? std::make_unique<DeviceTensor>(so, t.dout) : view(so, t.dout);
  x1->fill_random(-1, 1);
  x2->fill_random(-1, 1);
  if (bias) bias->fill_random(-1, 1);
  out->poison();
  const auto v1 = x1->values(), v2 = x2->values();
  const auto vb = bias ? bias->values() : std::vector<double>{};
  // Expected, in out's row-major order (the split only regroups the permuted result's elements).
  std::vector<double> value(static_cast<size_t>(numel_of(y))), bound(value.size());
  for (int64_t o = 0; o < numel_of(y); ++o) {
    const Dims yi = unravel(o, y);
    Dims li(3);  // the logical [b, m, n]
    for (size_t i = 0; i < 3; ++i) li[static_cast<size_t>(t.py[i])] = yi[i];
    double s = bias ? vb[static_cast<size_t>(li[2])] : 0.0, mag = std::fabs(s);
    for (int64_t k = 0; k < t.K; ++k) {
      const double a = v1[static_cast<size_t>(given_index({li[0], li[1], k}, t.p1, s1))];
      const double b = v2[static_cast<size_t>(given_index({li[0], k, li[2]}, t.p2, s2))];
      s += a * b;
      mag += std::fabs(a * b);
    }
    value[static_cast<size_t>(o)] = s;
    bound[static_cast<size_t>(o)] = mag;
  }
  IntArray a1(t.p1), a2(t.p2), ay(t.py);
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnTransposeBatchMatMulGetWorkspaceSize(*x1, *x2, bias ? bias->get() : nullptr, nullptr, a1.a,
                                                               a2.a, ay.a, 0, t.split, *out, ws, ex);
            }, aclnnTransposeBatchMatMul), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
}

TEST(TransposeBatchMatMul, EveryPermutationFormDtypeAndBias) {
  reseed_for_current_test();
  const Dims p1s[] = {{0, 1, 2}, {1, 0, 2}}, p2s[] = {{0, 1, 2}, {0, 2, 1}}, pys[] = {{1, 0, 2}, {0, 1, 2}};
  int i = 0;
  for (const Dims &p1 : p1s)
    for (const Dims &p2 : p2s)
      for (const Dims &py : pys)
        for (aclDataType dt : kFloats) {
          Tbmm t;
          t.p1 = p1;
          t.p2 = p2;
          t.py = py;
          t.d1 = dt;
          t.d2 = kFloats[i % 3];
          t.dout = kFloats[(i / 3) % 3];
          t.dbias = kFloats[(i / 2) % 3];
          t.bias = i % 2 == 0;
          t.B = 1 + i % 4;
          t.M = 1 + (i * 7) % 19;
          t.N = 1 + (i * 5) % 37;
          t.K = 1 + (i * 11) % 70;
          check_tbmm(t, i % 3 == 1);
          ++i;
          if (HasFailure()) return;
        }
}

TEST(TransposeBatchMatMul, BatchSplitRegroupsContiguousOut) {
  reseed_for_current_test();
  for (int32_t split : {1, 2, 4, 8}) {
    Tbmm t;
    t.B = 4;
    t.M = 6;
    t.K = 33;
    t.N = 10;
    t.split = split;
    t.bias = split % 4 == 0;
    t.dout = ACL_FLOAT16;
    check_tbmm(t, false);
  }
  Tbmm big;  // a larger problem: the tiled paths
  big.B = 2;
  big.M = 70;
  big.K = 130;
  big.N = 96;
  big.p1 = {1, 0, 2};
  big.d1 = big.d2 = ACL_BF16;
  big.dout = ACL_BF16;
  check_tbmm(big, true);
}

TEST(TransposeBatchMatMul, ErrorsNameTheArgument) {
  DeviceTensor x1({3, 5, 7}, ACL_FLOAT), x2({3, 7, 4}, ACL_FLOAT), out({5, 3, 4}, ACL_FLOAT);
  DeviceTensor i8({3, 5, 7}, ACL_INT8), scale({12}, ACL_INT64), bad_out({3, 5, 4}, ACL_FLOAT);
  DeviceTensor x2_k({3, 6, 4}, ACL_FLOAT), x2_b({2, 7, 4}, ACL_FLOAT), x2_2d({7, 4}, ACL_FLOAT);
  DeviceTensor split_out({5, 2, 6}, ACL_FLOAT), bias2({5, 5}, ACL_FLOAT);
  auto split_view = padded_view({5, 2, 6}, ACL_FLOAT);
  IntArray id({0, 1, 2}), py({1, 0, 2}), short_p({0, 1}), dup({0, 0, 2}), far({0, 1, 3});
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *bias, const aclTensor *sc,
                  const aclIntArray *q1, const aclIntArray *q2, const aclIntArray *qy, int32_t split, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnTransposeBatchMatMulGetWorkspaceSize(a, b, bias, sc, q1, q2, qy, 0, split, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, x2, nullptr, nullptr, id.a, id.a, py.a, 1, out), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, nullptr, nullptr, id.a, id.a, py.a, 1, out), kNull, {"x2"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 1, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, nullptr, id.a, py.a, 1, out), kNull, {"permX1"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, nullptr, 1, out), kNull, {"permY"}));
  EXPECT_TRUE(fails_with(call(i8, x2, nullptr, nullptr, id.a, id.a, py.a, 1, out), kInvalid, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, scale, id.a, id.a, py.a, 1, out), kInvalid, {"scale"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, short_p.a, id.a, py.a, 1, out), kInvalid, {"permX1"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, dup.a, py.a, 1, out), kInvalid, {"permX2"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, far.a, 1, out), kInvalid, {"permY"}));
  EXPECT_TRUE(fails_with(call(x1, x2_2d, nullptr, nullptr, id.a, id.a, py.a, 1, out), kInvalid, {"x2"}));
  EXPECT_TRUE(fails_with(call(x1, x2_k, nullptr, nullptr, id.a, id.a, py.a, 1, out), kInvalid, {"x1", "x2"}));
  EXPECT_TRUE(fails_with(call(x1, x2_b, nullptr, nullptr, id.a, id.a, py.a, 1, out), kInvalid, {"batch"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 1, bad_out), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x1, x2, bias2, nullptr, id.a, id.a, py.a, 1, out), kInvalid, {"bias"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 0, out), kInvalid, {"batchSplitFactor"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 5, out), kInvalid, {"batchSplitFactor"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 2, out), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 2, *split_view), kInvalid,
                         {"out", "contiguous"}));
  EXPECT_EQ(call(x1, x2, nullptr, nullptr, id.a, id.a, py.a, 2, split_out), 0) << aclGetRecentErrMsg();
}

// ---- aclnnFusedMatmul

double gelu_tanh_ref(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double gelu_erf_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }

struct Fmm {
  int64_t M = 5, K = 9, N = 6;
  std::string op;
  aclDataType d1 = ACL_FLOAT, d2 = ACL_FLOAT, dy = ACL_FLOAT, dx3 = ACL_FLOAT;
  bool bias = false, x2_transposed = false;
  Dims x3;  // empty: no x3
};

void check_fmm(const Fmm &f) {
  SCOPED_TRACE("op '" + f.op + "' M K N " + std::to_string(f.M) + " " + std::to_string(f.K) + " " +
               std::to_string(f.N) + " dtypes " + std::to_string(f.d1) + "," + std::to_string(f.d2) + "," +
               std::to_string(f.dx3) + "->" + std::to_string(f.dy) + (f.bias ? " bias" : "") +
               " x3 " + ::testing::PrintToString(f.x3));
  Dev x1 = std::make_unique<DeviceTensor>(Dims{f.M, f.K}, f.d1);
  // x2 [K, N] given as the transposed view of a stored [N, K] (strides {1, K}).
  Dev x2 = f.x2_transposed ? std::make_unique<DeviceTensor>(Dims{f.K, f.N}, f.d2, Dims{1, f.K}, 0)
                           : padded_view({f.K, f.N}, f.d2);
  Dev bias = f.bias ? std::make_unique<DeviceTensor>(Dims{f.N}, f.d2) : nullptr;
  Dev x3 = f.x3.empty() ? nullptr : padded_view(f.x3, f.dx3);
  Dev y = padded_view({f.M, f.N}, f.dy);
  x1->fill_random(-1, 1);
  x2->fill_random(-1, 1);
  if (bias) bias->fill_random(-1, 1);
  if (x3) x3->fill_random(-2, 2);
  y->poison();
  const auto v1 = x1->values(), v2 = x2->values();
  const auto vb = bias ? bias->values() : std::vector<double>{};
  const auto v3 = x3 ? x3->values() : std::vector<double>{};
  std::vector<double> value, bound;
  for (int64_t i = 0; i < f.M; ++i)
    for (int64_t j = 0; j < f.N; ++j) {
      double s = bias ? vb[static_cast<size_t>(j)] : 0.0, mag = std::fabs(s);
      for (int64_t k = 0; k < f.K; ++k) {
        const double p = v1[static_cast<size_t>(i * f.K + k)] * v2[static_cast<size_t>(k * f.N + j)];
        s += p;
        mag += std::fabs(p);
      }
      const double x3v = x3 ? v3[static_cast<size_t>(broadcast_source({i, j}, {f.M, f.N}, f.x3))] : 0.0;
      double v = s;
      if (f.op == "add") v = s + x3v, mag += std::fabs(x3v);
      if (f.op == "mul") v = s * x3v, mag *= std::fabs(x3v);
      if (f.op == "relu") v = s > 0 ? s : 0.0;
      if (f.op == "gelu_tanh") v = gelu_tanh_ref(s), mag *= 1.2;  // |gelu'| < 1.13
      if (f.op == "gelu_erf") v = gelu_erf_ref(s), mag *= 1.2;
      value.push_back(v);
      bound.push_back(mag);
    }
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnFusedMatmulGetWorkspaceSize(*x1, *x2, bias ? bias->get() : nullptr, x3 ? x3->get() : nullptr,
                                                      f.op.c_str(), 0, *y, ws, ex);
            }, aclnnFusedMatmul), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(*y, value, bound));
}

TEST(FusedMatmul, EveryOpTypeDtypeBiasAndX3Shape) {
  reseed_for_current_test();
  const char *ops[] = {"", "add", "mul", "relu", "gelu_tanh", "gelu_erf"};
  int i = 0;
  for (const char *op : ops)
    for (aclDataType dt : kFloats)
      for (int form = 0; form < 3; ++form) {
        Fmm f;
        f.op = op;
        f.d1 = dt;
        f.d2 = kFloats[(i + form) % 3];
        f.dy = kFloats[(i / 2 + form) % 3];
        f.dx3 = kFloats[(i / 3) % 3];
        f.bias = form != 1;
        f.x2_transposed = form == 2;
        f.M = 1 + (i * 7) % 40;
        f.N = 1 + (i * 13) % 45;
        f.K = 1 + (i * 5) % 80;
        if (f.op == "add" || f.op == "mul" || form == 0) f.x3 = form == 1 ? Dims{f.N} : Dims{f.M, f.N};
        check_fmm(f);
        ++i;
        if (HasFailure()) return;
      }
  Fmm big;  // the tiled paths, with the x3 pass
  big.M = 90;
  big.K = 200;
  big.N = 70;
  big.op = "mul";
  big.bias = true;
  big.x3 = {big.M, big.N};
  big.dy = ACL_BF16;
  check_fmm(big);
}

TEST(FusedMatmul, ErrorsNameTheArgument) {
  DeviceTensor x1({5, 7}, ACL_FLOAT), x2({7, 4}, ACL_FLOAT), y({5, 4}, ACL_FLOAT), x3({5, 4}, ACL_FLOAT);
  DeviceTensor x1_3d({2, 5, 7}, ACL_FLOAT), i32({7, 4}, ACL_INT32), x2_k({6, 4}, ACL_FLOAT), bad_y({4, 5}, ACL_FLOAT);
  DeviceTensor x3_bad({3, 4}, ACL_FLOAT), bias_bad({3}, ACL_FLOAT);
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *bias, const aclTensor *c, const char *op,
                  const aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnFusedMatmulGetWorkspaceSize(a, b, bias, c, op, 0, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, x2, nullptr, nullptr, "", y), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, "", nullptr), kNull, {"y"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, nullptr, y), kNull, {"fusedOpType"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, "add", y), kNull, {"x3"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, "mul", y), kNull, {"x3"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, x3, "silu", y), kInvalid, {"fusedOpType", "silu"}));
  EXPECT_TRUE(fails_with(call(x1, i32, nullptr, nullptr, "", y), kInvalid, {"x2"}));
  EXPECT_TRUE(fails_with(call(x1_3d, x2, nullptr, nullptr, "", y), kInvalid, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, x2_k, nullptr, nullptr, "", y), kInvalid, {"x1", "x2"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, "relu", bad_y), kInvalid, {"y"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, x3_bad, "add", y), kInvalid, {"x3"}));
  EXPECT_TRUE(fails_with(call(x1, x2, bias_bad, nullptr, "", y), kInvalid, {"bias"}));
}

// ---- aclnnQuantMatmul: out = round(float(x1 @ x2 + bias) * deqScale), exact int32 sums.

TEST(QuantMatmul, FloatDeqScaleAgainstExactSums) {
  reseed_for_current_test();
  const int64_t shapes[][3] = {{1, 64, 5}, {7, 33, 19}, {40, 130, 48}, {3, 5, 70}};
  int i = 0;
  for (const auto &mkn : shapes)
    for (aclDataType dout : {ACL_FLOAT16, ACL_BF16})
      for (bool with_bias : {false, true}) {
        const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
        const float scale = i % 2 ? 0.0123f : -0.75f / static_cast<float>(k);
        SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " out " +
                     std::to_string(dout) + (with_bias ? " bias" : ""));
        Dev x1 = padded_view({m, k}, ACL_INT8), x2 = std::make_unique<DeviceTensor>(Dims{k, n}, ACL_INT8);
        Dev bias = with_bias ? std::make_unique<DeviceTensor>(Dims{n}, ACL_INT32) : nullptr;
        Dev out = padded_view({m, n}, dout);
        x1->fill_random(-128, 127);
        x2->fill_random(-128, 127);
        if (bias) bias->fill_random(-5000, 5000);
        out->poison();
        const auto v1 = x1->values(), v2 = x2->values();
        const auto vb = bias ? bias->values() : std::vector<double>{};
        std::vector<double> value, bound;
        for (int64_t r = 0; r < m; ++r)
          for (int64_t j = 0; j < n; ++j) {
            int64_t acc = bias ? static_cast<int64_t>(vb[static_cast<size_t>(j)]) : 0;
            for (int64_t q = 0; q < k; ++q)
              acc += static_cast<int64_t>(v1[static_cast<size_t>(r * k + q)]) *
                     static_cast<int64_t>(v2[static_cast<size_t>(q * n + j)]);
            const double v = static_cast<double>(acc) * static_cast<double>(scale);
            value.push_back(v);
            bound.push_back(std::fabs(v));  // the only error is out's rounding (and fp32's)
          }
        ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                    return aclnnQuantMatmulGetWorkspaceSize(*x1, *x2, bias ? bias->get() : nullptr, scale, *out, ws, ex);
                  }, aclnnQuantMatmul), 0) << aclGetRecentErrMsg();
        EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
        ++i;
      }
}

TEST(QuantMatmul, ErrorsNameTheArgument) {
  DeviceTensor x1({4, 16}, ACL_INT8), x2({16, 8}, ACL_INT8), out({4, 8}, ACL_FLOAT16), f16({4, 16}, ACL_FLOAT16);
  DeviceTensor out_f32({4, 8}, ACL_FLOAT), out_bad({4, 9}, ACL_FLOAT16), bias_bad({9}, ACL_INT32);
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *bias, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnQuantMatmulGetWorkspaceSize(a, b, bias, 0.5f, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, x2, nullptr, out), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, nullptr, out), kNull, {"x2"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(f16, x2, nullptr, out), kInvalid, {"x1", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, out_f32), kInvalid, {"out", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, out_bad), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x1, x2, bias_bad, out), kInvalid, {"bias"}));
}

// ---- aclnnBatchMatmulQuant

// A TransQuantParam word, packed here from the documented layout: the fp32 scale's top 19 bits,
// bit 46, the 9-bit offset in bits 37..45. Returns the word and the scale it carries.
double pack_word(float scale, int offset, double *carried) {
  uint32_t bits;
  std::memcpy(&bits, &scale, 4);
  bits &= 0xFFFFE000u;
  float f;
  std::memcpy(&f, &bits, 4);
  *carried = f;
  const uint64_t w = bits | (uint64_t{1} << 46) | ((static_cast<uint64_t>(offset) & 0x1FF) << 37);
  return static_cast<double>(w);  // < 2^47: exact in a double
}

TEST(BatchMatmulQuant, RequantisedAgainstFloat64) {
  reseed_for_current_test();
  const int64_t shapes[][3] = {{1, 40, 20}, {7, 33, 19}, {37, 100, 50}};
  int i = 0;
  for (const auto &mkn : shapes)
    for (int form = 0; form < 3; ++form) {  // 0: one word, 1: n words, 2: align(n, 16) words
      const int64_t m = mkn[0], k = mkn[1], n = mkn[2], n16 = (n + 15) / 16 * 16;
      const bool t1 = i % 2 == 1, t2 = form == 1, with_bias = form != 0;
      SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " form " +
                   std::to_string(form) + (t1 ? " x1^T" : "") + (t2 ? " x2^T" : ""));
      Dev x1 = t1 ? std::make_unique<DeviceTensor>(Dims{k, m}, ACL_FLOAT16) : padded_view({m, k}, ACL_FLOAT16);
      Dev x2 = t2 ? std::make_unique<DeviceTensor>(Dims{n, k}, ACL_FLOAT16) : std::make_unique<DeviceTensor>(Dims{k, n}, ACL_FLOAT16);
      Dev bias = with_bias ? std::make_unique<DeviceTensor>(Dims{n}, ACL_FLOAT16) : nullptr;
      const int64_t words = form == 0 ? 1 : form == 1 ? n : n16;
      DeviceTensor qp({words}, ACL_UINT64);
      Dev out = padded_view({m, n}, ACL_INT8);
      x1->fill_random(-2, 2);
      x2->fill_random(-2, 2);
      if (bias) bias->fill_random(-3, 3);
      std::vector<double> wv, scale, offset;
      for (int64_t j = 0; j < words; ++j) {
        double carried = 0;
        const int off = j % 11 == 10 ? -256 : j % 13 == 12 ? 255 : static_cast<int>(j % 7) * 9 - 27;
        wv.push_back(pack_word(static_cast<float>((j % 5 + 1) * 7.0 / (k + 0.5)) * (j % 4 == 3 ? -1 : 1), off,
                               &carried));
        scale.push_back(carried);
        offset.push_back(off);
      }
      qp.set_values(wv);
      out->poison();
      const auto v1 = x1->values(), v2 = x2->values();
      const auto vb = bias ? bias->values() : std::vector<double>{};
      std::vector<double> expected, slack;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          double s = bias ? vb[static_cast<size_t>(j)] : 0.0, mag = std::fabs(s);
          for (int64_t q = 0; q < k; ++q) {
            const double p = v1[static_cast<size_t>(t1 ? q * m + r : r * k + q)] *
                             v2[static_cast<size_t>(t2 ? j * k + q : q * n + j)];
            s += p;
            mag += std::fabs(p);
          }
          const size_t w = words == 1 ? 0 : static_cast<size_t>(j);
          const double q = s * scale[w] + offset[w];
          const double near = std::fabs(q - std::floor(q) - 0.5);  // how far from a rounding tie
          expected.push_back(std::max(-128.0, std::min(127.0, std::nearbyint(q))));
          slack.push_back(near < mag * std::fabs(scale[w]) * 1e-5 + 1e-5 ? 1.0 : 0.0);
        }
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnBatchMatmulQuantGetWorkspaceSize(*x1, *x2, qp, bias ? bias->get() : nullptr, t1, t2, *out,
                                                               ws, ex);
                }, aclnnBatchMatmulQuant), 0) << aclGetRecentErrMsg();
      const auto got = out->values();
      for (size_t e = 0; e < got.size(); ++e) ASSERT_LE(std::fabs(got[e] - expected[e]), slack[e]) << "element " << e;
      EXPECT_TRUE(out->untouched_outside_view());
      ++i;
    }
}

TEST(BatchMatmulQuant, ErrorsNameTheArgument) {
  DeviceTensor x1({4, 16}, ACL_FLOAT16), x2({16, 8}, ACL_FLOAT16), qp({8}, ACL_UINT64), out({4, 8}, ACL_INT8);
  DeviceTensor f32({4, 16}, ACL_FLOAT), qp_f({8}, ACL_FLOAT), qp_bad({5}, ACL_UINT64), out_f16({4, 8}, ACL_FLOAT16);
  DeviceTensor out_bad({4, 9}, ACL_INT8), bias_bad({9}, ACL_FLOAT16), bias_f32({8}, ACL_FLOAT), x2_k({15, 8}, ACL_FLOAT16);
  DeviceTensor qp16({16}, ACL_UINT64), x1_3d({2, 4, 16}, ACL_FLOAT16);
  auto call = [&](const aclTensor *a, const aclTensor *b, const aclTensor *q, const aclTensor *bias, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnBatchMatmulQuantGetWorkspaceSize(a, b, q, bias, false, false, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, x2, qp, nullptr, out), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, x2, nullptr, nullptr, out), kNull, {"quantParam"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp, nullptr, nullptr), kNull, {"out"}));
  EXPECT_TRUE(fails_with(call(f32, x2, qp, nullptr, out), kInvalid, {"x1", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp_f, nullptr, out), kInvalid, {"quantParam", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp, bias_f32, out), kInvalid, {"bias", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp, nullptr, out_f16), kInvalid, {"out", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1_3d, x2, qp, nullptr, out), kInvalid, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, x2_k, qp, nullptr, out), kInvalid, {"x1", "x2"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp_bad, nullptr, out), kInvalid, {"quantParam"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp, bias_bad, out), kInvalid, {"bias"}));
  EXPECT_TRUE(fails_with(call(x1, x2, qp, nullptr, out_bad), kInvalid, {"out"}));
  EXPECT_EQ(call(x1, x2, qp16, nullptr, out), 0) << aclGetRecentErrMsg();
}

// ---- aclnnFusedQuantMatmul: act(float(x1 @ x2) * x2Scale[j] * x1Scale[i]), exact int32 sums.

TEST(FusedQuantMatmul, ActivationsAgainstExactSums) {
  reseed_for_current_test();
  const char *ops[] = {"relu", "gelu_tanh", "gelu_erf", ""};
  int i = 0;
  for (const char *op : ops)
    for (aclDataType dout : {ACL_FLOAT16, ACL_BF16, ACL_INT8}) {
      const int64_t m = 1 + (i * 7) % 23, k = 16 + (i * 13) % 90, n = 1 + (i * 5) % 40;
      SCOPED_TRACE(std::string("op '") + op + "' out " + std::to_string(dout) + " m k n " + std::to_string(m) + " " +
                   std::to_string(k) + " " + std::to_string(n));
      DeviceTensor x1({m, k}, ACL_INT8), x2({k, n}, ACL_INT8), s1({m}, ACL_FLOAT), s2({n}, ACL_FLOAT);
      Dev out = padded_view({m, n}, dout);
      x1.fill_random(-128, 127);
      x2.fill_random(-128, 127);
      // Values around a few units: the activations' interesting range (INT8 out keeps them apart).
      s1.fill_random(0.5, 1.5);
      s2.fill_random(-3.0 / (80.0 * k), 3.0 / (80.0 * k));
      out->poison();
      const auto v1 = x1.values(), v2 = x2.values(), vs1 = s1.values(), vs2 = s2.values();
      std::vector<double> value, bound;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          int64_t acc = 0;
          for (int64_t q = 0; q < k; ++q)
            acc += static_cast<int64_t>(v1[static_cast<size_t>(r * k + q)]) *
                   static_cast<int64_t>(v2[static_cast<size_t>(q * n + j)]);
          const double x = static_cast<double>(acc) * vs2[static_cast<size_t>(j)] * vs1[static_cast<size_t>(r)];
          const std::string o = op;
          double v = o == "relu" ? (x > 0 ? x : 0.0) : o == "gelu_tanh" ? gelu_tanh_ref(x)
                   : o == "gelu_erf" ? gelu_erf_ref(x) : x;
          if (dout == ACL_INT8) v = std::max(-128.0, std::min(127.0, std::nearbyint(v)));
          value.push_back(v);
          bound.push_back(dout == ACL_INT8 ? 1e7 * (1 + std::fabs(x)) : 1.2 * std::fabs(x));
        }
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnFusedQuantMatmulGetWorkspaceSize(x1, x2, s1, s2, nullptr, nullptr, nullptr, nullptr,
                                                               nullptr, nullptr, op, 0, *out, ws, ex);
                }, aclnnFusedQuantMatmul), 0) << aclGetRecentErrMsg();
      if (dout == ACL_INT8) {  // exact but next to a rounding tie (fp32 evaluation)
        const auto got = out->values();
        int off = 0;
        for (size_t e = 0; e < got.size(); ++e) {
          ASSERT_LE(std::fabs(got[e] - value[e]), 1.0) << "element " << e;
          off += got[e] != value[e];
        }
        EXPECT_LE(off, static_cast<int>(got.size()) / 50 + 1);
      } else {
        EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
      }
      ++i;
    }
}

TEST(FusedQuantMatmul, ErrorsNameTheArgument) {
  DeviceTensor x1({4, 16}, ACL_INT8), x2({16, 8}, ACL_INT8), s2({8}, ACL_FLOAT), out({4, 8}, ACL_FLOAT16);
  DeviceTensor x3({4, 8}, ACL_FLOAT16), f16({4, 16}, ACL_FLOAT16);
  auto call = [&](const aclTensor *a, const aclTensor *c3, const char *op, int64_t group) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnFusedQuantMatmulGetWorkspaceSize(a, x2, nullptr, s2, nullptr, nullptr, nullptr, nullptr, nullptr, c3,
                                                 op, group, out, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(x1, nullptr, nullptr, 0), kNull, {"fusedOpType"}));
  EXPECT_TRUE(fails_with(call(nullptr, nullptr, "", 0), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(f16, nullptr, "relu", 0), kInvalid, {"x1", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, "swiglu", 0), kInvalid, {"fusedOpType", "swiglu"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, "add", 0), kInvalid, {"fusedOpType", "add"}));
  EXPECT_TRUE(fails_with(call(x1, x3, "relu", 0), kInvalid, {"x3Optional"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, "relu", 32), kInvalid, {"groupSize"}));
  EXPECT_EQ(call(x1, nullptr, "gelu_erf", 0), 0) << aclGetRecentErrMsg();
}

TEST(WeightQuantBatchMatmulV3, InnerPreciseIsZeroOrOne) {
  DeviceTensor x({4, 64}, ACL_FLOAT16), w({64, 8}, ACL_INT8), s({8}, ACL_FLOAT16), y({4, 8}, ACL_FLOAT16);
  x.fill_random(-1, 1);
  w.fill_random(-8, 8);
  s.fill_random(0.5, 1);
  std::vector<double> outs[2];
  for (int ip : {0, 1}) {
    y.poison();
    ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                return aclnnWeightQuantBatchMatmulV3GetWorkspaceSize(x, w, s, nullptr, nullptr, nullptr, nullptr, 0, ip,
                                                                     y, ws, ex);
              }, aclnnWeightQuantBatchMatmulV3), 0) << aclGetRecentErrMsg();
    outs[ip] = y.values();
  }
  EXPECT_EQ(outs[0], outs[1]);  // both settings compute alike (the harness checks the values)
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnWeightQuantBatchMatmulV3GetWorkspaceSize(x, w, s, nullptr, nullptr, nullptr, nullptr, 0,
                                                                        2, y, &ws, &ex), kInvalid, {"innerPrecise"}));
}

}  // namespace
}  // namespace opsnn::test

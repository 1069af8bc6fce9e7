// The quantised-matmul rows with their own harness (src/ops/matmul/quant_matmul.ops rows with a yRef,
// permX1 / permX2 / permY or the dynamic_dequant scheme; tools/gen_ops_qmm.py does not register them
// for the generic one): aclnnQuantBatchMatmulInplaceAdd, aclnnTransposeQuantBatchMatMul(WeightNz) and
// aclnnQuantMatmulDequant, aclnnQuantMatmulReduceSumWeightNz, aclnnWeightQuantBatchMatmul(Nz) and
// aclnnConvertWeightToINT4Pack (and the
// matmul table's aclnnTransposeBatchMatMulWeightNz) against float64 references written here from the formulas of
// ops/matmul/qmm_phase1.h (exact int32 sums, then the scales in float64), over their transposes /
// permutations, FLOAT16 / BF16 outputs, FRACTAL_NZ weights, non-contiguous views, and every error
// path with its status. Accuracy: precision.md's absolute-bound variant (rel_i = |actual - golden| /
// (bound_i + 1e-7), bound_i the sum of the magnitudes of the terms).
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "aclnnop/aclnn_convert_weight_to_int4_pack.h"
#include "aclnnop/aclnn_quant_batch_matmul_inplace_add.h"
#include "aclnnop/aclnn_quant_matmul_dequant.h"
#include "aclnnop/aclnn_quant_matmul_reduce_sum.h"
#include "aclnnop/aclnn_transpose_batch_mat_mul.h"
#include "aclnnop/aclnn_transpose_quant_batch_mat_mul.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_nz.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "fractal_tensors.h"
#include "permuted_views.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using Dims = std::vector<int64_t>;
using Dev = std::unique_ptr<DeviceTensor>;
constexpr int kNull = 161001, kInvalid = 161002;

size_t at(int64_t i) { return static_cast<size_t>(i); }

// ---- aclnnQuantBatchMatmulInplaceAdd: yRef += float(x1 @ x2) * x2Scale[j] * x1Scale[i]

void check_inplace_add(int64_t m, int64_t k, int64_t n, bool t1, bool t2, bool with_x1_scale, bool padded) {
  SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " t1 " +
               std::to_string(t1) + " t2 " + std::to_string(t2) + " x1Scale " + std::to_string(with_x1_scale));
  auto view = [&](const Dims &s, aclDataType dt) {
    return padded ? padded_view(s, dt) : std::make_unique<DeviceTensor>(s, dt);
  };
  Dev x1 = view(t1 ? Dims{k, m} : Dims{m, k}, ACL_INT8), x2 = view(t2 ? Dims{n, k} : Dims{k, n}, ACL_INT8);
  Dev s2 = view({n}, ACL_FLOAT), s1 = with_x1_scale ? view({m}, ACL_FLOAT) : nullptr, y = view({m, n}, ACL_FLOAT);
  x1->fill_random(-128, 127);
  x2->fill_random(-128, 127);
  s2->fill_random(-1.0 / k, 1.0 / k);
  if (s1) s1->fill_random(0.25, 2.0);
  y->fill_random(-100, 100);
  const auto v1 = x1->values(), v2 = x2->values(), vs2 = s2->values(), y0 = y->values();
  const auto vs1 = s1 ? s1->values() : std::vector<double>{};
  std::vector<double> value, bound;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += static_cast<int64_t>(v1[at(t1 ? p * m + i : i * k + p)]) * static_cast<int64_t>(v2[at(t2 ? j * k + p : p * n + j)]);
      const double prod = static_cast<double>(acc) * vs2[at(j)] * (s1 ? vs1[at(i)] : 1.0);
      value.push_back(y0[at(i * n + j)] + prod);
      bound.push_back(std::fabs(y0[at(i * n + j)]) + std::fabs(prod));
    }
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnQuantBatchMatmulInplaceAddGetWorkspaceSize(*x1, *x2, s1 ? s1->get() : nullptr, *s2, *y, t1,
                                                                     t2, 0, ws, ex);
            }, aclnnQuantBatchMatmulInplaceAdd), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(*y, value, bound));
}

TEST(QuantBatchMatmulInplaceAdd, AccumulatesIntoYRefOverTransposesAndViews) {
  reseed_for_current_test();
  int i = 0;
  for (bool t1 : {true, false})
    for (bool t2 : {false, true})
      for (bool s1 : {true, false}) {
        check_inplace_add(1 + (i * 7) % 23, 1 + (i * 13) % 90, 1 + (i * 5) % 41, t1, t2, s1, i % 2 == 1);
        ++i;
      }
  check_inplace_add(37, 300, 70, true, false, true, false);  // the tile paths
}

TEST(QuantBatchMatmulInplaceAdd, Errors) {
  DeviceTensor x1({16, 4}, ACL_INT8), x2({16, 8}, ACL_INT8), s1({4}, ACL_FLOAT), s2({8}, ACL_FLOAT);
  DeviceTensor y({4, 8}, ACL_FLOAT), y16({4, 8}, ACL_FLOAT16), ybad({4, 9}, ACL_FLOAT), f16({16, 4}, ACL_FLOAT16);
  DeviceTensor s1bad({5}, ACL_FLOAT), x3d({2, 16, 4}, ACL_INT8);
  auto call = [&](const aclTensor *a, const aclTensor *sa, const aclTensor *sb, aclTensor *out, int64_t group) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnQuantBatchMatmulInplaceAddGetWorkspaceSize(a, x2, sa, sb, out, true, false, group, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, s1, s2, y, 0), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, s1, nullptr, y, 0), kNull, {"x2Scale"}));
  EXPECT_TRUE(fails_with(call(x1, s1, s2, nullptr, 0), kNull, {"yRef"}));
  EXPECT_TRUE(fails_with(call(f16, s1, s2, y, 0), kInvalid, {"x1", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, s1, s2, y16, 0), kInvalid, {"yRef", "FLOAT16"}));
  EXPECT_TRUE(fails_with(call(x1, s1, s2, ybad, 0), kInvalid, {"yRef"}));
  EXPECT_TRUE(fails_with(call(x1, s1bad, s2, y, 0), kInvalid, {"x1ScaleOptional"}));
  EXPECT_TRUE(fails_with(call(x1, s1, s1, y, 0), kInvalid, {"x2Scale"}));
  EXPECT_TRUE(fails_with(call(x1, s1, s2, y, 32), kInvalid, {"groupSize"}));
  EXPECT_TRUE(fails_with(call(x3d, s1, s2, y, 0), kInvalid, {"x1"}));
  EXPECT_EQ(call(x1, nullptr, s2, y, 0), 0) << aclGetRecentErrMsg();
}

// ---- aclnnTransposeQuantBatchMatMul(WeightNz): out = (float(x1.permute(p1) @ x2.permute(p2)) * x2Scale[j] *
// x1Scale[i]).permute(py)


struct Tqbmm {
  int64_t B = 3, M = 5, K = 40, N = 6;
  Dims p1{1, 0, 2}, p2{0, 1, 2}, py{1, 0, 2};
  int32_t dtype = 1, split = 1;
  bool nz = false, padded = false;
};

void check_tqbmm(const Tqbmm &t) {
  SCOPED_TRACE("B M K N " + std::to_string(t.B) + " " + std::to_string(t.M) + " " + std::to_string(t.K) + " " +
               std::to_string(t.N) + " perms " + ::testing::PrintToString(t.p1) + ::testing::PrintToString(t.p2) +
               ::testing::PrintToString(t.py) + " dtype " + std::to_string(t.dtype) + " split " +
               std::to_string(t.split) + " nz " + std::to_string(t.nz));
  const aclDataType dout = t.dtype == 1 ? ACL_FLOAT16 : ACL_BF16;
  const Dims s1 = given_shape({t.B, t.M, t.K}, t.p1), s2 = given_shape({t.B, t.K, t.N}, t.p2);
  const Dims y = permute({t.B, t.M, t.N}, t.py);
  const Dims so = t.split > 1 ? Dims{y[0], t.split, y[1] * y[2] / t.split} : y;
  auto view = [&](const Dims &s, aclDataType dt) {
    return t.padded ? padded_view(s, dt) : std::make_unique<DeviceTensor>(s, dt);
  };
  Dev x1 = view(s1, ACL_INT8), x2 = std::make_unique<DeviceTensor>(s2, ACL_INT8), sc1 = view({t.M}, ACL_FLOAT),
      sc2 = view({t.N}, ACL_FLOAT);
  Dev out = t.split > 1 ? std::make_unique<DeviceTensor>(so, dout) : view(so, dout);
  x1->fill_random(-128, 127);
  x2->fill_random(-128, 127);
  sc1->fill_random(0.5, 1.5);
  sc2->fill_random(-4.0 / t.K, 4.0 / t.K);
  out->poison();
  const auto v1 = x1->values(), v2 = x2->values(), vs1 = sc1->values(), vs2 = sc2->values();
  std::unique_ptr<FractalTensor> x2nz = t.nz ? make_fractal_nz(s2, ACL_INT8, v2) : nullptr;
  std::vector<double> value(at(numel_of(y))), bound(value.size());
  for (int64_t o = 0; o < numel_of(y); ++o) {
    const Dims yi = unravel(o, y);
    Dims li(3);
    for (size_t i = 0; i < 3; ++i) li[at(t.py[i])] = yi[i];
    int64_t acc = 0;
    for (int64_t q = 0; q < t.K; ++q)
      acc += static_cast<int64_t>(v1[at(given_index({li[0], li[1], q}, t.p1, s1))]) *
             static_cast<int64_t>(v2[at(given_index({li[0], q, li[2]}, t.p2, s2))]);
    value[at(o)] = static_cast<double>(acc) * vs2[at(li[2])] * vs1[at(li[1])];
    bound[at(o)] = std::fabs(value[at(o)]);
  }
  IntArray a1(t.p1), a2(t.p2), ay(t.py);
  aclTensor *w = t.nz ? x2nz->get() : x2->get();
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return t.nz ? aclnnTransposeQuantBatchMatMulWeightNzGetWorkspaceSize(
                                *x1, w, nullptr, *sc1, *sc2, t.dtype, 0, a1.a, a2.a, ay.a, t.split, *out, ws, ex)
                          : aclnnTransposeQuantBatchMatMulGetWorkspaceSize(*x1, w, nullptr, *sc1, *sc2, t.dtype, 0,
                                                                           a1.a, a2.a, ay.a, t.split, *out, ws, ex);
            }, t.nz ? aclnnTransposeQuantBatchMatMulWeightNz : aclnnTransposeQuantBatchMatMul), 0)
      << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
}

TEST(TransposeQuantBatchMatMul, PermutationsDtypesAndSplits) {
  reseed_for_current_test();
  // Bit 0: x1 given [M, B, K] or [B, M, K]; bit 1: x2 [B, K, N] or [B, N, K]; bit 2: out [M, B, N] or [B, M, N].
  for (int i = 0; i < 8; ++i) {
    Tqbmm t;
    t.p1 = i & 1 ? Dims{0, 1, 2} : Dims{1, 0, 2};
    t.p2 = i & 2 ? Dims{0, 2, 1} : Dims{0, 1, 2};
    t.py = i & 4 ? Dims{0, 1, 2} : Dims{1, 0, 2};
    t.dtype = i % 2 == 0 ? 1 : 27;
    t.B = 1 + i % 4;
    t.M = 1 + (i * 7) % 19;
    t.N = 1 + (i * 5) % 37;
    t.K = 1 + (i * 11) % 70;
    t.padded = i % 3 == 0;
    check_tqbmm(t);
  }
  Tqbmm t;  // batchSplitFactor > 1 regroups the contiguous out
  t.B = 4;
  t.N = 6;
  t.split = 3;
  check_tqbmm(t);
}

TEST(TransposeQuantBatchMatMulWeightNz, BlockedX2MatchesTheReference) {
  reseed_for_current_test();
  for (int i = 0; i < 4; ++i) {
    Tqbmm t;
    t.nz = true;
    t.dtype = i % 2 == 0 ? 1 : 27;
    t.B = 1 + i;
    t.M = 3 + 9 * i;
    t.K = 20 + 31 * i;
    t.N = 5 + 13 * i;
    t.padded = i == 1;
    t.p2 = i % 2 == 1 ? Dims{0, 2, 1} : Dims{0, 1, 2};  // the blocks are of x2 as given, [B, N, K] here
    check_tqbmm(t);
  }
}

TEST(TransposeQuantBatchMatMul, Errors) {
  DeviceTensor x1({5, 3, 16}, ACL_INT8), x2({3, 16, 8}, ACL_INT8), s1({5}, ACL_FLOAT), s2({8}, ACL_FLOAT);
  DeviceTensor out({5, 3, 8}, ACL_FLOAT16), obf({5, 3, 8}, ACL_BF16), x2d({5, 16}, ACL_INT8), bias({8}, ACL_FLOAT);
  DeviceTensor s2bad({3}, ACL_FLOAT), obad({5, 3, 9}, ACL_FLOAT16);
  IntArray p1({1, 0, 2}), p2({0, 1, 2}), py({1, 0, 2}), bad({0, 0, 2});
  auto call = [&](const aclTensor *a, const aclTensor *bi, const aclTensor *sa, const aclTensor *sb, int32_t dtype,
                  const aclIntArray *q1, aclTensor *o, int32_t split) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnTransposeQuantBatchMatMulGetWorkspaceSize(a, x2, bi, sa, sb, dtype, 0, q1, p2.a, py.a, split, o, &ws,
                                                          &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, nullptr, s1, s2, 1, p1.a, out, 1), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, nullptr, s2, 1, p1.a, out, 1), kNull, {"x1Scale"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2, 1, nullptr, out, 1), kNull, {"permX1"}));
  EXPECT_TRUE(fails_with(call(x1, bias, s1, s2, 1, p1.a, out, 1), kInvalid, {"bias", "reserved"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2, 0, p1.a, out, 1), kInvalid, {"dtype"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2, 27, p1.a, out, 1), kInvalid, {"out", "dtype"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2, 1, bad.a, out, 1), kInvalid, {"permX1"}));
  EXPECT_TRUE(fails_with(call(x2d, nullptr, s1, s2, 1, p1.a, out, 1), kInvalid, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2bad, 1, p1.a, out, 1), kInvalid, {"x2Scale"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2, 1, p1.a, obad, 1), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, s1, s2, 1, p1.a, out, 0), kInvalid, {"batchSplitFactor"}));
  EXPECT_EQ(call(x1, nullptr, s1, s2, 27, p1.a, obf, 1), 0) << aclGetRecentErrMsg();
}

// ---- aclnnQuantMatmulDequant: x (* smooth) quantised per row or per tensor, the int8 product, dequantised

struct Qmd {
  int64_t m = 6, k = 48, n = 32;
  aclDataType xdt = ACL_FLOAT16;
  bool trans_w = true, smooth = false, nz = false, padded = false, bias = false;
  enum Mode { kDynamic, kTokenStatic, kTensorStatic, kTensorInt64 } mode = kDynamic;
};

float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

void check_qmd(const Qmd &t) {
  SCOPED_TRACE("m k n " + std::to_string(t.m) + " " + std::to_string(t.k) + " " + std::to_string(t.n) + " mode " +
               std::to_string(t.mode) + " transW " + std::to_string(t.trans_w) + " smooth " +
               std::to_string(t.smooth) + " nz " + std::to_string(t.nz) + " x " + std::to_string(t.xdt));
  const int64_t m = t.m, k = t.k, n = t.n;
  auto view = [&](const Dims &s, aclDataType dt) {
    return t.padded ? padded_view(s, dt) : std::make_unique<DeviceTensor>(s, dt);
  };
  const Dims wshape = t.trans_w ? Dims{n, k} : Dims{k, n};
  Dev x = view({m, k}, t.xdt), w = std::make_unique<DeviceTensor>(wshape, ACL_INT8), out = view({m, n}, t.xdt);
  Dev sm = t.smooth ? view({k}, t.xdt) : nullptr, bias = t.bias ? view({n}, ACL_INT32) : nullptr;
  if (bias) bias->fill_random(-2000, 2000);
  const auto vb = bias ? bias->values() : std::vector<double>{};
  const bool int64_scale = t.mode == Qmd::kTensorInt64;
  Dev wsc = view({n}, int64_scale ? ACL_INT64 : ACL_FLOAT);
  Dev xsc = t.mode == Qmd::kTokenStatic ? view({m}, ACL_FLOAT)
            : t.mode == Qmd::kTensorStatic ? view({1}, ACL_FLOAT)
            : int64_scale ? view({1}, ACL_FLOAT16) : nullptr;
  x->fill_random(-2, 2);
  w->fill_random(-128, 127);
  if (sm) sm->fill_random(0.5, 1.5);
  std::vector<double> wscale(at(n));
  for (auto &v : wscale) v = 0.5 + static_cast<double>(std::rand() % 1000) / 1000.0;
  if (xsc) xsc->fill_random(0.01, 0.03);
  const auto vx = x->values(), vw = w->values();
  const auto vsm = sm ? sm->values() : std::vector<double>{};
  const auto vxs = xsc ? xsc->values() : std::vector<double>{};
  if (int64_scale) {  // the fp32 bits of weightScale * xScale in the low 32 bits
    std::vector<double> words;
    for (double s : wscale) {
      const float f = static_cast<float>(s * vxs[0]);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      words.push_back(static_cast<double>(b));
    }
    wsc->set_values(words);
  } else {
    wsc->set_values(wscale);
  }
  // The quantisation in fp32 (the formula as the quantisation family evaluates it), then the exact
  // int32 product dequantised in float64.
  std::vector<double> value, bound;
  for (int64_t i = 0; i < m; ++i) {
    std::vector<float> xs(at(k));
    float amax = 0;
    for (int64_t p = 0; p < k; ++p) {
      xs[at(p)] = static_cast<float>(vx[at(i * k + p)]) * (sm ? static_cast<float>(vsm[at(p)]) : 1.0f);
      amax = std::max(amax, std::fabs(xs[at(p)]));
    }
    const float sx = t.mode == Qmd::kDynamic ? amax / 127.0f
                     : t.mode == Qmd::kTokenStatic ? static_cast<float>(vxs[at(i)]) : static_cast<float>(vxs[0]);
    std::vector<int64_t> q(at(k));
    for (int64_t p = 0; p < k; ++p) {
      const float r = sx == 0.0f ? 0.0f : std::nearbyint(xs[at(p)] / sx);
      q[at(p)] = static_cast<int64_t>(std::max(-128.0f, std::min(127.0f, r)));
    }
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = bias ? static_cast<int64_t>(vb[at(j)]) : 0, mag = std::llabs(acc);
      for (int64_t p = 0; p < k; ++p) {
        const int64_t wv = static_cast<int64_t>(vw[at(t.trans_w ? j * k + p : p * n + j)]);
        acc += q[at(p)] * wv;
        mag += std::llabs(q[at(p)] * wv);
      }
      const double s = int64_scale ? static_cast<double>(static_cast<float>(wscale[at(j)] * vxs[0]))
                                   : wscale[at(j)] * static_cast<double>(sx);
      value.push_back(static_cast<double>(acc) * s);
      bound.push_back(static_cast<double>(mag) * std::fabs(s));
    }
  }
  std::unique_ptr<FractalTensor> wnz = t.nz ? make_fractal_nz(wshape, ACL_INT8, vw) : nullptr;
  char mode[16];
  std::strcpy(mode, t.mode == Qmd::kDynamic || t.mode == Qmd::kTokenStatic ? "pertoken" : "pertensor");
  out->poison();
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnQuantMatmulDequantGetWorkspaceSize(*x, t.nz ? wnz->get() : w->get(), *wsc,
                                                             bias ? bias->get() : nullptr,
                                                             xsc ? xsc->get() : nullptr, nullptr,
                                                             sm ? sm->get() : nullptr, mode, t.trans_w, *out, ws, ex);
            }, aclnnQuantMatmulDequant), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
}

TEST(QuantMatmulDequant, EveryModeTransposeSmoothAndView) {
  reseed_for_current_test();
  int i = 0;
  for (Qmd::Mode mode : {Qmd::kDynamic, Qmd::kTokenStatic, Qmd::kTensorStatic, Qmd::kTensorInt64})
    for (bool trans_w : {true, false})
      for (bool smooth : {false, true}) {
        Qmd t;
        t.mode = mode;
        t.trans_w = trans_w;
        t.smooth = smooth;
        t.xdt = i % 3 == 2 ? ACL_BF16 : ACL_FLOAT16;
        t.m = 1 + (i * 7) % 29;
        t.k = 16 * (1 + i % 5);
        t.n = 16 * (1 + (i * 3) % 4);
        t.padded = i % 2 == 1;
        t.bias = i % 4 == 3;  // INT32, added to the exact sums before the scales
        check_qmd(t);
        ++i;
      }
}

TEST(QuantMatmulDequant, BlockedWeightAndLargeShapes) {
  reseed_for_current_test();
  for (bool trans_w : {true, false}) {
    Qmd t;
    t.nz = true;
    t.trans_w = trans_w;
    t.m = 37;
    t.k = 272;
    t.n = 96;
    t.smooth = trans_w;
    check_qmd(t);
  }
  Qmd big;  // several row tasks and the tile paths
  big.m = 130;
  big.k = 512;
  big.n = 64;
  check_qmd(big);
}

TEST(QuantMatmulDequant, Errors) {
  DeviceTensor x({4, 32}, ACL_FLOAT16), w({16, 32}, ACL_INT8), ws({16}, ACL_FLOAT), out({4, 16}, ACL_FLOAT16);
  DeviceTensor xf({4, 32}, ACL_FLOAT), obf({4, 16}, ACL_BF16), ws64({16}, ACL_INT64), xs1({1}, ACL_FLOAT);
  DeviceTensor xs16({1}, ACL_FLOAT16), xsm({4}, ACL_FLOAT), xsbad({3}, ACL_FLOAT), smbad({31}, ACL_FLOAT16);
  DeviceTensor off({1}, ACL_FLOAT), bias16({16}, ACL_FLOAT16), wbad({16, 33}, ACL_INT8);
  auto call = [&](const aclTensor *a, const aclTensor *wt, const aclTensor *sc, const aclTensor *b,
                  const aclTensor *xs, const aclTensor *xo, const aclTensor *sm, const char *mode, aclTensor *o) {
    uint64_t wsz = 0;
    aclOpExecutor *ex = nullptr;
    char buf[32] = {};
    if (mode != nullptr) std::strncpy(buf, mode, sizeof(buf) - 1);
    return aclnnQuantMatmulDequantGetWorkspaceSize(a, wt, sc, b, xs, xo, sm, mode ? buf : nullptr, true, o, &wsz, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, w, ws, nullptr, nullptr, nullptr, nullptr, "pertoken", out), kNull, {"x"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, nullptr, nullptr, nullptr, nullptr, out), kNull, {"xQuantMode"}));
  EXPECT_TRUE(fails_with(call(xf, w, ws, nullptr, nullptr, nullptr, nullptr, "pertoken", out), kInvalid, {"x", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, nullptr, nullptr, nullptr, "pertoken", obf), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, nullptr, nullptr, nullptr, "perchannel", out), kInvalid, {"xQuantMode"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, nullptr, nullptr, nullptr, "pertensor", out), kInvalid, {"pertensor"}));
  EXPECT_TRUE(fails_with(call(x, w, ws64, nullptr, xs1, nullptr, nullptr, "pertensor", out), kInvalid, {"weightScale"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, xs16, nullptr, nullptr, "pertensor", out), kInvalid, {"weightScale"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, xs1, off, nullptr, "pertensor", out), kInvalid, {"xOffsetOptional"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, bias16, nullptr, nullptr, nullptr, "pertoken", out), kInvalid, {"biasOptional"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, xsbad, nullptr, nullptr, "pertoken", out), kInvalid, {"xScaleOptional"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, xsm, nullptr, nullptr, "pertensor", out), kInvalid, {"xScaleOptional"}));
  EXPECT_TRUE(fails_with(call(x, w, ws, nullptr, nullptr, nullptr, smbad, "pertoken", out), kInvalid, {"smoothScaleOptional"}));
  EXPECT_TRUE(fails_with(call(x, wbad, ws, nullptr, nullptr, nullptr, nullptr, "pertoken", out), kInvalid, {"weight"}));
  EXPECT_TRUE(fails_with(call(x, w, xsm, nullptr, nullptr, nullptr, nullptr, "pertoken", out), kInvalid, {"weightScale"}));
  EXPECT_EQ(call(x, w, ws64, nullptr, xs16, nullptr, nullptr, "pertensor", out), 0) << aclGetRecentErrMsg();
  EXPECT_EQ(call(x, w, ws, nullptr, xsm, nullptr, nullptr, "pertoken", out), 0) << aclGetRecentErrMsg();
}

// ---- aclnnTransposeBatchMatMulWeightNz: the float TransposeBatchMatMul with x2 in FRACTAL_NZ

TEST(TransposeBatchMatMulWeightNz, BlockedX2MatchesTheReferenceAndThePlainOp) {
  reseed_for_current_test();
  const Dims p2s[] = {{0, 1, 2}, {0, 2, 1}};
  int i = 0;
  for (const Dims &p2 : p2s)
    for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
      const int64_t B = 1 + i, M = 3 + 7 * i, K = 17 + 13 * i, N = 9 + 11 * i;
      SCOPED_TRACE("perm2 " + ::testing::PrintToString(p2) + " dtype " + std::to_string(dt));
      const Dims p1{1, 0, 2}, py{1, 0, 2}, s1 = given_shape({B, M, K}, p1), s2 = given_shape({B, K, N}, p2);
      DeviceTensor x1(s1, dt), x2(s2, dt), out({M, B, N}, dt), plain({M, B, N}, dt);
      x1.fill_random(-1, 1);
      x2.fill_random(-1, 1);
      out.poison();
      const auto v1 = x1.values(), v2 = x2.values();
      auto nz = make_fractal_nz(s2, dt, v2);
      std::vector<double> value, bound;
      for (int64_t m = 0; m < M; ++m)
        for (int64_t b = 0; b < B; ++b)
          for (int64_t n = 0; n < N; ++n) {
            double acc = 0, mag = 0;
            for (int64_t q = 0; q < K; ++q) {
              const double t = v1[at(given_index({b, m, q}, p1, s1))] * v2[at(given_index({b, q, n}, p2, s2))];
              acc += t;
              mag += std::fabs(t);
            }
            value.push_back(acc);
            bound.push_back(mag);
          }
      IntArray a1(p1), a2(p2), ay(py);
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnTransposeBatchMatMulWeightNzGetWorkspaceSize(x1, *nz, nullptr, nullptr, a1.a, a2.a, ay.a,
                                                                           0, 1, out, ws, ex);
                }, aclnnTransposeBatchMatMulWeightNz), 0) << aclGetRecentErrMsg();
      EXPECT_TRUE(meets_absolute_bound(out, value, bound));
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnTransposeBatchMatMulGetWorkspaceSize(x1, x2, nullptr, nullptr, a1.a, a2.a, ay.a, 0, 1,
                                                                   plain, ws, ex);
                }, aclnnTransposeBatchMatMul), 0) << aclGetRecentErrMsg();
      EXPECT_EQ(out.values(), plain.values());
      // The API list's spelling of the same op.
      DeviceTensor spelled({M, B, N}, dt);
      spelled.poison();
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnTransposeBatchMatMulWeightNZGetWorkspaceSize(x1, *nz, nullptr, nullptr, a1.a, a2.a, ay.a,
                                                                           0, 1, spelled, ws, ex);
                }, aclnnTransposeBatchMatMulWeightNZ), 0) << aclGetRecentErrMsg();
      EXPECT_EQ(spelled.values(), out.values());
      ++i;
    }
  // A FLOAT x2 has no blocked form in this op.
  DeviceTensor x1({4, 2, 16}, ACL_FLOAT), x2({2, 16, 8}, ACL_FLOAT), out({4, 2, 8}, ACL_FLOAT);
  IntArray a1({1, 0, 2}), a2({0, 1, 2}), ay({1, 0, 2});
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_TRUE(fails_with(aclnnTransposeBatchMatMulWeightNzGetWorkspaceSize(x1, x2, nullptr, nullptr, a1.a, a2.a, ay.a,
                                                                           0, 1, out, &ws, &ex), kInvalid, {"x2"}));
  EXPECT_TRUE(fails_with(aclnnTransposeBatchMatMulWeightNZGetWorkspaceSize(x1, x2, nullptr, nullptr, a1.a, a2.a, ay.a,
                                                                           0, 1, out, &ws, &ex), kInvalid, {"x2"}));
}

// ---- aclnnWeightQuantBatchMatmulNz: y = x @ ((w + offset) * scale) + bias, w INT8 in FRACTAL_NZ

TEST(WeightQuantBatchMatmulNz, BlockedWeightMatchesTheReferenceAndV2) {
  reseed_for_current_test();
  int i = 0;
  for (bool transposed : {false, true})
    for (int64_t m : {1, 3, 24}) {
      const int64_t k = 40 + 24 * i, n = 17 + 9 * i;
      const aclDataType xt = i % 2 == 0 ? ACL_FLOAT16 : ACL_BF16;
      SCOPED_TRACE("m k n " + std::to_string(m) + " " + std::to_string(k) + " " + std::to_string(n) + " transposed " +
                   std::to_string(transposed));
      DeviceTensor x({m, k}, xt), w({k, n}, ACL_INT8), s({n}, xt), o({n}, xt), bias({n}, ACL_FLOAT), y({m, n}, xt),
          y2({m, n}, xt);
      x.fill_random(-1, 1);
      w.fill_random(-128, 127);
      s.fill_random(0.001, 0.01);
      o.fill_random(-4, 4);
      bias.fill_random(-1, 1);
      y.poison();
      const auto vx = x.values(), vw = w.values(), vs = s.values(), vo = o.values(), vb = bias.values();
      auto nz = make_fractal_nz({k, n}, ACL_INT8, vw, transposed);
      std::vector<double> value, bound;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          double acc = vb[at(j)], mag = std::fabs(vb[at(j)]);
          for (int64_t p = 0; p < k; ++p) {
            const double t = vx[at(r * k + p)] * (vw[at(p * n + j)] + vo[at(j)]) * vs[at(j)];
            acc += t;
            mag += std::fabs(t);
          }
          value.push_back(acc);
          bound.push_back(mag);
        }
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnWeightQuantBatchMatmulNzGetWorkspaceSize(x, *nz, s, o, nullptr, nullptr, bias, 0, y, ws, ex);
                }, aclnnWeightQuantBatchMatmulNz), 0) << aclGetRecentErrMsg();
      EXPECT_TRUE(meets_absolute_bound(y, value, bound));
      if (!transposed) {  // the dense copy is the plain [k, n] weight: the same plan, the same bits
        ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                    return aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x, w, s, o, nullptr, nullptr, bias, 0, y2, ws,
                                                                         ex);
                  }, aclnnWeightQuantBatchMatmulV2), 0) << aclGetRecentErrMsg();
        EXPECT_EQ(y.values(), y2.values());
      }
      ++i;
    }
}

TEST(WeightQuantBatchMatmulNz, Errors) {
  DeviceTensor x({4, 64}, ACL_FLOAT16), s({8}, ACL_FLOAT16), y({4, 8}, ACL_FLOAT16), w4({64, 8}, ACL_INT4);
  std::vector<double> vals(64 * 8, 1.0);
  auto nz = make_fractal_nz({64, 8}, ACL_INT8, vals);
  FractalTensor bad({64, 8}, ACL_INT8, ACL_FORMAT_FRACTAL_NZ, {1, 4, 16, 16}, 1024);
  auto call = [&](const aclTensor *w, const aclTensor *sc, aclTensor *out) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnWeightQuantBatchMatmulNzGetWorkspaceSize(x, w, sc, nullptr, nullptr, nullptr, nullptr, 0, out, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, s, y), kNull, {"weight"}));
  EXPECT_TRUE(fails_with(call(w4, s, y), kInvalid, {"weight", "INT4"}));
  EXPECT_TRUE(fails_with(call(bad, s, y), kInvalid, {"weight"}));
  EXPECT_TRUE(fails_with(call(*nz, x, y), kInvalid, {"antiquantScale"}));
  EXPECT_EQ(call(*nz, s, y), 0) << aclGetRecentErrMsg();
}

// ---- aclnnConvertWeightToINT4Pack: two values a byte, low nibble first

struct RawOut {
  void *dev = nullptr;
  aclTensor *t = nullptr;
  int64_t bytes = 0;
  RawOut(const Dims &shape, aclDataType dt, int64_t bytes_) : bytes(bytes_) {
    EXPECT_EQ(aclrtMalloc(&dev, static_cast<size_t>(bytes) + 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(dev, static_cast<size_t>(bytes) + 64, 0xA5, static_cast<size_t>(bytes) + 64), ACL_SUCCESS);
    const Dims strides{shape[1], 1};
    const int64_t storage = shape[0] * shape[1];
    t = aclCreateTensor(shape.data(), 2, dt, strides.data(), 0, ACL_FORMAT_ND, &storage, 1, dev);
  }
  ~RawOut() {
    aclDestroyTensor(t);
    aclrtFree(dev);
  }
  std::vector<uint8_t> read(int64_t n) const {
    std::vector<uint8_t> h(at(n));
    EXPECT_EQ(aclrtMemcpy(h.data(), h.size(), dev, h.size(), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return h;
  }
};

TEST(ConvertWeightToINT4Pack, PacksLowNibbleFirstIntoInt4AndInt32) {
  reseed_for_current_test();
  for (aclDataType dt : {ACL_INT4, ACL_INT32})
    for (const Dims &shape : {Dims{3, 16}, Dims{37, 64}, Dims{130, 8}}) {
      SCOPED_TRACE("dtype " + std::to_string(dt) + " shape " + ::testing::PrintToString(shape));
      DeviceTensor w(shape, ACL_INT32);
      w.fill_random(-8, 7);
      const auto v = w.values();
      const int64_t bytes = shape[0] * shape[1] / 2;
      RawOut out(dt == ACL_INT4 ? shape : Dims{shape[0], shape[1] / 8}, dt, bytes);
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnConvertWeightToINT4PackGetWorkspaceSize(w, out.t, ws, ex);
                }, aclnnConvertWeightToINT4Pack), 0) << aclGetRecentErrMsg();
      const auto got = out.read(bytes + 64);
      for (int64_t b = 0; b < bytes; ++b) {
        const int lo = static_cast<int>(v[at(2 * b)]) & 15, hi = static_cast<int>(v[at(2 * b + 1)]) & 15;
        ASSERT_EQ(got[at(b)], static_cast<uint8_t>(lo | (hi << 4))) << "byte " << b;
      }
      for (int64_t b = bytes; b < bytes + 64; ++b) ASSERT_EQ(got[at(b)], 0xA5) << "written past the end, byte " << b;
    }
}

TEST(ConvertWeightToINT4Pack, Errors) {
  DeviceTensor w({4, 16}, ACL_INT32), w8({4, 16}, ACL_INT8), odd({4, 12}, ACL_INT32), w3({2, 4, 16}, ACL_INT32);
  RawOut o4({4, 16}, ACL_INT4, 32), o32({4, 2}, ACL_INT32, 32), obad({4, 3}, ACL_INT32, 48), of({4, 16}, ACL_FLOAT, 256);
  FractalTensor onz({4, 16}, ACL_INT4, ACL_FORMAT_FRACTAL_NZ, {1, 1, 16, 64}, 1024);
  auto call = [&](const aclTensor *a, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnConvertWeightToINT4PackGetWorkspaceSize(a, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, o4.t), kNull, {"weight"}));
  EXPECT_TRUE(fails_with(call(w, nullptr), kNull, {"weightInt4Pack"}));
  EXPECT_TRUE(fails_with(call(w8, o4.t), kInvalid, {"weight", "INT8"}));
  EXPECT_TRUE(fails_with(call(w, of.t), kInvalid, {"weightInt4Pack", "FLOAT"}));
  EXPECT_TRUE(fails_with(call(w, obad.t), kInvalid, {"weightInt4Pack"}));
  EXPECT_TRUE(fails_with(call(odd, o32.t), kInvalid, {"weight", "multiple of 8"}));
  EXPECT_TRUE(fails_with(call(w3, o4.t), kInvalid, {"weight"}));
  EXPECT_TRUE(fails_with(call(w, onz), kInvalid, {"weightInt4Pack", "ND"}));
  EXPECT_EQ(call(w, o32.t), 0) << aclGetRecentErrMsg();
}

// ---- aclnnQuantMatmulReduceSumWeightNz: out = sum_b float(x1[b] @ x2[b]) * x2Scale[j] * x1Scale[b, i]

void check_reduce_sum(int64_t B, int64_t m, int64_t k, int64_t n, bool nz, bool keep, bool t1, aclDataType dout) {
  SCOPED_TRACE("B m k n " + std::to_string(B) + " " + std::to_string(m) + " " + std::to_string(k) + " " +
               std::to_string(n) + " nz " + std::to_string(nz) + " keepDims " + std::to_string(keep) + " t1 " +
               std::to_string(t1));
  DeviceTensor x1(t1 ? Dims{B, k, m} : Dims{B, m, k}, ACL_INT8), x2({B, k, n}, ACL_INT8), s2({n}, ACL_BF16);
  Dev s1 = padded_view({B, m}, ACL_FLOAT), out = padded_view(keep ? Dims{1, m, n} : Dims{m, n}, dout);
  x1.fill_random(-128, 127);
  x2.fill_random(-128, 127);
  s1->fill_random(0.5, 1.5);
  s2.fill_random(-2.0 / k, 2.0 / k);
  out->poison();
  const auto v1 = x1.values(), v2 = x2.values(), vs1 = s1->values(), vs2 = s2.values();
  auto x2nz = nz ? make_fractal_nz({B, k, n}, ACL_INT8, v2) : nullptr;
  std::vector<double> value, bound;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0, mag = 0;
      for (int64_t b = 0; b < B; ++b) {
        int64_t acc = 0;
        for (int64_t p = 0; p < k; ++p)
          acc += static_cast<int64_t>(v1[at(t1 ? (b * k + p) * m + i : (b * m + i) * k + p)]) *
                 static_cast<int64_t>(v2[at((b * k + p) * n + j)]);
        const double t = static_cast<double>(acc) * vs2[at(j)] * vs1[at(b * m + i)];
        sum += t;
        mag += std::fabs(t);
      }
      value.push_back(sum);
      bound.push_back(mag);
    }
  IntArray dims({0});
  ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
              return aclnnQuantMatmulReduceSumWeightNzGetWorkspaceSize(x1, nz ? x2nz->get() : x2.get(), *s1, s2, nullptr,
                                                                       nullptr, nullptr, nullptr, nullptr, t1, false, 0,
                                                                       dims.a, keep, *out, ws, ex);
            }, aclnnQuantMatmulReduceSumWeightNz), 0) << aclGetRecentErrMsg();
  EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
}

TEST(QuantMatmulReduceSumWeightNz, SumsTheBatchOfDequantisedProducts) {
  reseed_for_current_test();
  check_reduce_sum(4, 7, 64, 40, true, false, false, ACL_BF16);
  check_reduce_sum(3, 33, 100, 70, true, true, false, ACL_BF16);
  check_reduce_sum(5, 2, 48, 17, false, false, true, ACL_FLOAT16);
  check_reduce_sum(1, 20, 32, 64, true, false, false, ACL_BF16);
}

TEST(QuantMatmulReduceSumWeightNz, Errors) {
  DeviceTensor x1({2, 4, 32}, ACL_INT8), x2({2, 32, 8}, ACL_INT8), s1({2, 4}, ACL_FLOAT), s2({8}, ACL_BF16);
  DeviceTensor out({4, 8}, ACL_BF16), out3({1, 4, 8}, ACL_BF16), s1bad({4}, ACL_FLOAT), bias({8}, ACL_INT32);
  DeviceTensor of({4, 8}, ACL_FLOAT);
  IntArray d0({0}), d1({1});
  auto call = [&](const aclTensor *a1, const aclTensor *sc1, const aclTensor *bi, const aclIntArray *dims, bool keep,
                  aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnQuantMatmulReduceSumWeightNzGetWorkspaceSize(a1, x2, sc1, s2, nullptr, nullptr, nullptr, nullptr, bi,
                                                             false, false, 0, dims, keep, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, s1, nullptr, d0.a, false, out), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, nullptr, d0.a, false, out), kNull, {"x1Scale"}));
  EXPECT_TRUE(fails_with(call(x1, s1, nullptr, nullptr, false, out), kNull, {"dims"}));
  EXPECT_TRUE(fails_with(call(x1, s1, bias, d0.a, false, out), kInvalid, {"bias", "reserved"}));
  EXPECT_TRUE(fails_with(call(x1, s1, nullptr, d1.a, false, out), kInvalid, {"dims"}));
  EXPECT_TRUE(fails_with(call(x1, s1bad, nullptr, d0.a, false, out), kInvalid, {"x1Scale"}));
  EXPECT_TRUE(fails_with(call(x1, s1, nullptr, d0.a, true, out), kInvalid, {"out"}));
  EXPECT_TRUE(fails_with(call(x1, s1, nullptr, d0.a, false, of), kInvalid, {"out", "FLOAT"}));
  EXPECT_EQ(call(x1, s1, nullptr, d0.a, true, out3), 0) << aclGetRecentErrMsg();
}

// ---- aclnnWeightQuantBatchMatmul (V1): x1 @ ((x2 + addOffset) * mulScale) + bias

TEST(WeightQuantBatchMatmul, MulScaleAddOffsetFormOverTransposes) {
  reseed_for_current_test();
  int i = 0;
  for (bool t2 : {false, true})
    for (int64_t m : {2, 70}) {
      const int64_t k = 48 + 16 * i, n = 24 + 8 * i;
      SCOPED_TRACE("m " + std::to_string(m) + " transposeX2 " + std::to_string(t2));
      DeviceTensor x1({m, k}, ACL_FLOAT16), x2(t2 ? Dims{n, k} : Dims{k, n}, ACL_INT8), add({n}, ACL_FLOAT16),
          mul({n}, ACL_FLOAT16), bias({n}, ACL_FLOAT), diag({32, 32}, ACL_INT8), deqo({n}, ACL_INT32),
          deqs({n}, ACL_UINT64);
      Dev out = padded_view({m, n}, ACL_FLOAT16);
      x1.fill_random(-1, 1);
      x2.fill_random(-128, 127);
      add.fill_random(-8, 8);
      mul.fill_random(0.001, 0.01);
      bias.fill_random(-1, 1);
      out->poison();
      const auto vx = x1.values(), vw = x2.values(), va = add.values(), vm = mul.values(), vb = bias.values();
      std::vector<double> value, bound;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          double acc = vb[at(j)], mag = std::fabs(vb[at(j)]);
          for (int64_t p = 0; p < k; ++p) {
            const double t = vx[at(r * k + p)] * (vw[at(t2 ? j * k + p : p * n + j)] + va[at(j)]) * vm[at(j)];
            acc += t;
            mag += std::fabs(t);
          }
          value.push_back(acc);
          bound.push_back(mag);
        }
      ASSERT_EQ(run_op([&](uint64_t *ws, aclOpExecutor **ex) {
                  return aclnnWeightQuantBatchMatmulGetWorkspaceSize(x1, x2, diag, deqo, deqs, add, mul, bias, false, t2,
                                                                     1.0f, 0.0f, *out, ws, ex);
                }, aclnnWeightQuantBatchMatmul), 0) << aclGetRecentErrMsg();
      EXPECT_TRUE(meets_absolute_bound(*out, value, bound));
      ++i;
    }
}

TEST(WeightQuantBatchMatmul, Errors) {
  DeviceTensor x1({4, 32}, ACL_FLOAT16), x2({32, 8}, ACL_INT8), add({8}, ACL_FLOAT16), mul({8}, ACL_FLOAT16);
  DeviceTensor out({4, 8}, ACL_FLOAT16), out8({4, 8}, ACL_INT8), mulbad({5}, ACL_FLOAT16);
  auto call = [&](const aclTensor *a, const aclTensor *ao, const aclTensor *ms, bool t1, aclTensor *o) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    return aclnnWeightQuantBatchMatmulGetWorkspaceSize(a, x2, nullptr, nullptr, nullptr, ao, ms, nullptr, t1, false,
                                                       1.0f, 0.0f, o, &ws, &ex);
  };
  EXPECT_TRUE(fails_with(call(nullptr, add, mul, false, out), kNull, {"x1"}));
  EXPECT_TRUE(fails_with(call(x1, add, nullptr, false, out), kInvalid, {"mulScale"}));
  EXPECT_TRUE(fails_with(call(x1, nullptr, mul, false, out), kInvalid, {"addOffset"}));
  EXPECT_TRUE(fails_with(call(x1, add, mul, true, out), kInvalid, {"transposeX1"}));
  EXPECT_TRUE(fails_with(call(x1, add, mul, false, out8), kInvalid, {"out", "INT8"}));
  EXPECT_TRUE(fails_with(call(x1, add, mulbad, false, out), kInvalid, {"mulScale"}));
  EXPECT_EQ(call(x1, add, mul, false, out), 0) << aclGetRecentErrMsg();
}

}  // namespace
}  // namespace opsnn::test

// Mm / BatchMatMul / Matmul against a float64 reference: every dtype combination, cubeMathType,
// transposed and strided views, 1-D operands, broadcast batch dims, sizes around the register
// tiles, K up to 8192; and every error path.
//
// Accuracy uses precision.md's absolute-bound variant, because a dot product's relative error is
// unbounded near zero: rel_i = |actual - golden| / (sum_k |a_ik * b_kj| + 1e-7), then MERE < T
// and MARE < 10 T for the output dtype.
#include <cmath>

#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

enum class Kind { kMm, kBatchMatMul, kMatmul };

// A view of `shape` whose last two dims are stored transposed (when `transposed`), inside padded
// storage with an offset.
std::unique_ptr<DeviceTensor> make_operand(const std::vector<int64_t> &shape, aclDataType dt, bool transposed,
                                           bool padded) {
  const size_t r = shape.size();
  std::vector<int64_t> strides(r);
  std::vector<size_t> order(r);  // storage order, outermost first
  for (size_t i = 0; i < r; ++i) order[i] = i;
  if (transposed && r >= 2) std::swap(order[r - 1], order[r - 2]);
  int64_t acc = 1;
  for (size_t k = r; k-- > 0;) {
    strides[order[k]] = acc;
    acc *= std::max<int64_t>(shape[order[k]], 1) + (padded && k == r - 1 ? 3 : 0);
  }
  return std::make_unique<DeviceTensor>(shape, dt, strides, padded ? 7 : 0);
}

struct MatmulCase {
  Kind kind;
  std::vector<int64_t> a_shape, b_shape;
  aclDataType a_t, b_t, out_t;
  int8_t cube = 0;
  bool a_trans = false, b_trans = false, padded = false;
};

std::vector<int64_t> out_shape_of(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  std::vector<int64_t> ab(a.begin(), a.size() >= 2 ? a.end() - 2 : a.begin());
  std::vector<int64_t> bb(b.begin(), b.size() >= 2 ? b.end() - 2 : b.begin());
  std::vector<int64_t> batch(std::max(ab.size(), bb.size()));
  for (size_t i = 0; i < batch.size(); ++i) {
    int64_t da = i + ab.size() >= batch.size() ? ab[i + ab.size() - batch.size()] : 1;
    int64_t db = i + bb.size() >= batch.size() ? bb[i + bb.size() - batch.size()] : 1;
    batch[i] = da == 1 ? db : da;
  }
  auto out = batch;
  if (a.size() >= 2) out.push_back(a[a.size() - 2]);
  if (b.size() >= 2) out.push_back(b.back());
  return out;
}

int phase1(Kind k, aclTensor *a, aclTensor *b, aclTensor *o, int8_t cube, uint64_t *ws, aclOpExecutor **ex) {
  switch (k) {
    case Kind::kMm: return aclnnMmGetWorkspaceSize(a, b, o, cube, ws, ex);
    case Kind::kBatchMatMul: return aclnnBatchMatMulGetWorkspaceSize(a, b, o, cube, ws, ex);
    default: return aclnnMatmulGetWorkspaceSize(a, b, o, cube, ws, ex);
  }
}
int phase2(Kind k, void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) {
  switch (k) {
    case Kind::kMm: return aclnnMm(w, s, e, st);
    case Kind::kBatchMatMul: return aclnnBatchMatMul(w, s, e, st);
    default: return aclnnMatmul(w, s, e, st);
  }
}

void run_matmul_case(const MatmulCase &c) {
  SCOPED_TRACE(::testing::Message() << "kind " << int(c.kind) << " a " << ::testing::PrintToString(c.a_shape) << " b "
                                    << ::testing::PrintToString(c.b_shape) << " dtypes " << c.a_t << "," << c.b_t
                                    << "->" << c.out_t << " cube " << int(c.cube) << " trans " << c.a_trans
                                    << c.b_trans);
  auto a = make_operand(c.a_shape, c.a_t, c.a_trans, c.padded);
  auto b = make_operand(c.b_shape, c.b_t, c.b_trans, c.padded);
  const auto oshape = out_shape_of(c.a_shape, c.b_shape);
  auto out = make_operand(oshape, c.out_t, false, c.padded);
  a->fill_random(-1, 1);
  b->fill_random(-1, 1);
  out->poison();
  ASSERT_EQ(run_op([&](uint64_t *w, aclOpExecutor **e) { return phase1(c.kind, *a, *b, *out, c.cube, w, e); },
                   [&](void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return phase2(c.kind, w, s, e, st); }),
            0)
      << aclGetRecentErrMsg();

  // Golden in float64. USE_FP16 on FLOAT inputs is defined as multiplying fp16-rounded inputs.
  auto av = a->values(), bv = b->values();
  if (c.cube == 2 && c.a_t == ACL_FLOAT && c.b_t == ACL_FLOAT) {
    for (auto &v : av) v = round_to(ACL_FLOAT16, v);
    for (auto &v : bv) v = round_to(ACL_FLOAT16, v);
  }
  const bool a_vec = c.a_shape.size() == 1, b_vec = c.b_shape.size() == 1;
  std::vector<int64_t> a3 = a_vec ? std::vector<int64_t>{1, c.a_shape[0]} : c.a_shape;
  std::vector<int64_t> b3 = b_vec ? std::vector<int64_t>{c.b_shape[0], 1} : c.b_shape;
  const int64_t M = a3[a3.size() - 2], K = a3.back(), N = b3.back();
  std::vector<int64_t> batch(oshape.begin(), oshape.end() - (a_vec ? 0 : 1) - (b_vec ? 0 : 1));
  std::vector<int64_t> a_batch(a3.begin(), a3.end() - 2), b_batch(b3.begin(), b3.end() - 2);
  const int64_t nb = numel_of(batch);
  std::vector<double> golden(static_cast<size_t>(nb * M * N)), bound(golden.size());
  for (int64_t bi = 0; bi < nb; ++bi) {
    auto idx = unravel(bi, batch);
    const int64_t ab = broadcast_source(idx, batch, a_batch), bb = broadcast_source(idx, batch, b_batch);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double s = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double x = av[static_cast<size_t>((ab * M + m) * K + k)], y = bv[static_cast<size_t>((bb * K + k) * N + n)];
          s += x * y;
          mag += std::fabs(x * y);
        }
        golden[static_cast<size_t>((bi * M + m) * N + n)] = s;
        bound[static_cast<size_t>((bi * M + m) * N + n)] = mag;
      }
  }
  const auto got = out->values();
  const double T = precision_threshold(c.out_t);
  double sum = 0, worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_FALSE(std::isnan(got[i])) << "element " << i << " is NaN (unwritten?)";
    const double rel = std::fabs(got[i] - golden[i]) / (bound[i] + 1e-7);
    sum += rel;
    worst = std::max(worst, rel);
  }
  if (!got.empty()) {
    EXPECT_LT(sum / static_cast<double>(got.size()), T);
    EXPECT_LT(worst, 10 * T);
  }
  EXPECT_TRUE(out->untouched_outside_view());
}

aclDataType pick_float() {
  static const aclDataType t[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  return t[std::uniform_int_distribution<int>(0, 2)(rng())];
}

TEST(Matmul, MmShapesDtypesTransposes) {
  reseed_for_current_test();
  const int64_t sizes[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 33, 64, 97};
  std::uniform_int_distribution<int> si(0, 12), coin(0, 1);
  for (int iter = 0; iter < 60; ++iter) {
    MatmulCase c{Kind::kMm};
    const int64_t M = sizes[si(rng())], K = sizes[si(rng())], N = sizes[si(rng())];
    c.a_shape = {M, K};
    c.b_shape = {K, N};
    c.a_t = pick_float();
    c.b_t = iter % 3 ? c.a_t : pick_float();
    c.out_t = iter % 4 ? (c.a_t == c.b_t ? c.a_t : ACL_FLOAT) : pick_float();
    c.a_trans = coin(rng());
    c.b_trans = coin(rng());
    c.padded = coin(rng());
    c.cube = static_cast<int8_t>(iter % 5);
    run_matmul_case(c);
    if (HasFatalFailure()) return;
  }
}

// cubeMathType is a permission to lower precision, never a gate (hardening #18 A.3): the LLM
// client runs every BF16 matmul with USE_FP16 (2); each mode must run with every dtype pair and
// stay within the precision standard (BF16 products, FP32 accumulation for BF16 operands).
TEST(Matmul, EveryCubeMathTypeRunsWithEveryDtype) {
  reseed_for_current_test();
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (int8_t cube = 0; cube <= 4; ++cube)
    for (aclDataType ta : dts)
      for (aclDataType tb : dts) {
        MatmulCase c{Kind::kMm, {9, 37}, {37, 21}, ta, tb, ta == tb ? ta : ACL_FLOAT};
        c.cube = cube;
        c.b_trans = cube % 2 == 1;  // the clients' weights arrive as transposed views
        run_matmul_case(c);
        if (HasFatalFailure()) return;
      }
}

TEST(Matmul, LongReductions) {
  reseed_for_current_test();
  for (int64_t K : {1000, 4097, 8192}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
      MatmulCase c{Kind::kMm, {9, K}, {K, 11}, dt, dt, dt};
      c.b_trans = K == 4097;
      run_matmul_case(c);
    }
  }
}

TEST(Matmul, BatchMatMulWithBroadcastBatch) {
  reseed_for_current_test();
  std::uniform_int_distribution<int> coin(0, 1);
  for (int iter = 0; iter < 24; ++iter) {
    const int64_t B = 1 + iter % 4, M = 3 + iter, K = 5 + 2 * iter, N = 2 + iter % 7;
    MatmulCase c{Kind::kBatchMatMul, {iter % 5 == 0 ? 1 : B, M, K}, {iter % 7 == 0 ? 1 : B, K, N}};
    c.a_t = pick_float();
    c.b_t = c.a_t;
    c.out_t = c.a_t;
    c.a_trans = coin(rng());
    c.b_trans = coin(rng());
    c.padded = iter % 3 == 0;
    run_matmul_case(c);
    if (HasFatalFailure()) return;
  }
}

TEST(Matmul, TorchMatmulRanksAndBroadcast) {
  reseed_for_current_test();
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{7}, {7}},                 // dot -> 0-d
      {{5, 7}, {7}},              // matrix x vector
      {{7}, {7, 4}},              // vector x matrix
      {{2, 3, 5, 7}, {7}},        // batched matrix x vector
      {{7}, {3, 7, 4}},           // vector x batched matrix
      {{2, 1, 5, 7}, {3, 7, 4}},  // broadcast batch dims on both sides
      {{4, 5, 7}, {7, 6}},        // batch x plain matrix (weight shared)
      {{2, 3, 4, 5, 6, 3}, {1, 3, 4, 1, 3, 2}},
      {{3, 0, 7}, {7, 2}},        // empty batch
      {{3, 4, 0}, {0, 5}},        // K = 0: zeros
  };
  for (const auto &[a, b] : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16}) {
      MatmulCase c{Kind::kMatmul, a, b, dt, dt, dt};
      c.b_trans = b.size() >= 2;
      c.padded = a.size() == 3;
      run_matmul_case(c);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(Matmul, MixedHalfAndFloatPromotesToFloat) {
  reseed_for_current_test();
  run_matmul_case({Kind::kMm, {19, 33}, {33, 21}, ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT});
  run_matmul_case({Kind::kMatmul, {2, 19, 33}, {33, 21}, ACL_BF16, ACL_FLOAT, ACL_FLOAT});
}

TEST(Matmul, RepeatableExecutorRebindsAddresses) {
  DeviceTensor a({4, 3}, ACL_FLOAT), b({3, 2}, ACL_FLOAT), out({4, 2}, ACL_FLOAT);
  DeviceTensor a2({4, 3}, ACL_FLOAT), out2({4, 2}, ACL_FLOAT);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  a2.fill_random(-1, 1);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMmGetWorkspaceSize(a, b, out, 0, &ws, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void *w = nullptr;
  if (ws) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  ASSERT_EQ(aclnnMm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, a2, a2.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 0, out2, out2.data()), 0);
  ASSERT_EQ(aclnnMm(w, ws, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeDevice(), 0);
  auto check = [&](DeviceTensor &x, DeviceTensor &o) {
    auto xv = x.values(), bv = b.values(), ov = o.values();
    for (int m = 0; m < 4; ++m)
      for (int n = 0; n < 2; ++n) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += xv[m * 3 + k] * bv[k * 2 + n];
        EXPECT_NEAR(ov[m * 2 + n], s, 1e-5);
      }
  };
  check(a, out);
  check(a2, out2);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (w) aclrtFree(w);
}

// ---------------------------------------------------------------- errors

TEST(MatmulErrors, RanksShapesDtypesCubeMathType) {
  DeviceTensor a({4, 3}, ACL_FLOAT), b({3, 2}, ACL_FLOAT), out({4, 2}, ACL_FLOAT), bad_k({5, 2}, ACL_FLOAT);
  DeviceTensor wrong_out({4, 3}, ACL_FLOAT), i32({4, 3}, ACL_INT32), a3({1, 4, 3}, ACL_FLOAT), bf({3, 2}, ACL_BF16);
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(nullptr, b, out, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"aclnnMm", "self"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a, nullptr, out, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"mat2"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a, b, nullptr, 0, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR, {"out"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a, bad_k, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"inner dims", "3", "5"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a, b, wrong_out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"out", "[4, 2]"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(i32, b, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "INT32"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a3, b, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "2-D"}));
  EXPECT_TRUE(fails_with(aclnnBatchMatMulGetWorkspaceSize(a, b, out, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"self", "3-D"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a, b, out, 5, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"cubeMathType", "5"}));
  EXPECT_TRUE(fails_with(aclnnMmGetWorkspaceSize(a, b, out, -1, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"cubeMathType"}));
  // Matmul is documented for 1-D to 6-D operands (hardening #18 C.10).
  DeviceTensor a7({1, 1, 1, 1, 1, 4, 3}, ACL_FLOAT), o7({1, 1, 1, 1, 1, 4, 2}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnMatmulGetWorkspaceSize(a7, b, o7, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID,
                         {"aclnnMatmul", "self", "1 to 6 dims"}));
  DeviceTensor ba({2, 4, 3}, ACL_FLOAT), bb({3, 3, 2}, ACL_FLOAT), bo({2, 4, 2}, ACL_FLOAT);
  EXPECT_TRUE(fails_with(aclnnBatchMatMulGetWorkspaceSize(ba, bb, bo, 0, &ws, &ex), ACLNN_ERR_PARAM_INVALID, {"broadcast"}));
}

}  // namespace
}  // namespace opsnn::test

// The BF16 x BF16 vdpbf16ps path of the GEMM engine (GemmPlan::bf16_dot, avx512bf16_12x32): when it
// is chosen, and its results against a float64 reference (bounds of spec/precision.md as in
// test_gemm.cpp: |actual - golden| <= T_out * (|alpha| sum_k |a b| + |beta d|), plus MERE / MARE for
// positive-mean inputs). Runs only where the tier is available (AVX512_BF16, or the
// OPSNN_EMULATE_AVX512 test build); skipped elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/half.h"
#include "core/cpu_features.h"
#include "gemm_test_support.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::kernels {
namespace {

using namespace gemm_test;

int bf16_kernel() {
  for (int i = 0; i < gemm_kernel_count(); ++i)
    if (std::string_view(gemm_kernel_name(i)) == "avx512bf16_12x32") return i;
  return -1;
}

// rows x cols operand; 0xFF fill (NaN in every float dtype) so an unwritten element fails.
Mat make_mat(aclDataType t, int64_t batch, int64_t rows, int64_t cols, Layout l, bool bcast) {
  Mat m;
  m.dtype = t;
  m.batch = batch;
  m.rows = rows;
  m.cols = cols;
  m.op = make_op(t, rows, cols, l, bcast);
  m.alloc(0xFF);
  return m;
}

void fill(Mat &m, std::mt19937 &rng, bool positive_mean) {
  std::uniform_real_distribution<float> any(-1.0f, 1.0f), pos(0.1f, 1.0f), mostly(-0.2f, 1.0f);
  for (int64_t b = 0; b < (m.op.batch_stride == 0 ? 1 : m.batch); ++b)
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < m.cols; ++j)
        m.set(b, i, j, positive_mean ? ((i + j) % 2 ? pos(rng) : mostly(rng)) : any(rng));
}

enum class DShape { kNone, kFull, kRow, kColumn, kAliasC };

struct Case {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  bool bcast_a = false, bcast_b = false, positive_mean = false;
  aclDataType tc = ACL_FLOAT, td = ACL_FLOAT;
  float alpha = 1.0f, beta = 0.0f;
  DShape dshape = DShape::kNone;
  GemmActivation act = GemmActivation::kNone;
  aclDataType rounding = ACL_FLOAT;
  uint32_t seed = 1;
};

std::string describe(const Case &c) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "batch=%lld m=%lld n=%lld k=%lld la=%d lb=%d lc=%d bcast=%d%d c=%d d=%d/%d alpha=%g beta=%g act=%d",
                (long long)c.batch, (long long)c.m, (long long)c.n, (long long)c.k, (int)c.la, (int)c.lb, (int)c.lc,
                c.bcast_a, c.bcast_b, (int)c.tc, (int)c.dshape, (int)c.td, c.alpha, c.beta, (int)c.act);
  return buf;
}

struct Problem {
  Case cs;
  GemmDesc desc;
  Mat a, b, c, d;
};

Problem make_problem(const Case &cs) {
  Problem p;
  p.cs = cs;
  std::mt19937 rng(cs.seed);
  p.a = make_mat(ACL_BF16, cs.batch, cs.m, cs.k, cs.la, cs.bcast_a);
  p.b = make_mat(ACL_BF16, cs.batch, cs.k, cs.n, cs.lb, cs.bcast_b);
  p.c = make_mat(cs.tc, cs.batch, cs.m, cs.n, cs.lc, false);
  fill(p.a, rng, cs.positive_mean);
  fill(p.b, rng, cs.positive_mean);
  GemmDesc &d = p.desc;
  d.batch = cs.batch; d.m = cs.m; d.n = cs.n; d.k = cs.k;
  d.a = p.a.op; d.b = p.b.op; d.c = p.c.op;
  d.alpha = cs.alpha; d.beta = cs.beta;
  d.activation = cs.act;
  d.input_rounding = cs.rounding;
  d.has_d = cs.dshape != DShape::kNone;
  if (cs.dshape == DShape::kNone || cs.dshape == DShape::kAliasC) {
    if (cs.beta != 0.0f) fill(p.c, rng, cs.positive_mean);  // beta == 0: C stays NaN, must be ignored
    if (cs.dshape == DShape::kAliasC) d.d = d.c;
    return p;
  }
  p.d = make_mat(cs.td, cs.batch, cs.m, cs.n, Layout::kPadded, false);
  if (cs.dshape == DShape::kRow) p.d.op.row_stride = 0;
  if (cs.dshape == DShape::kColumn) p.d.op.col_stride = 0;
  if (cs.beta != 0.0f) fill(p.d, rng, false);
  d.d = p.d.op;
  return p;
}

Mat run(const Problem &p, const GemmOptions &opt, GemmPlan *plan_out = nullptr) {
  Mat c = p.c;
  GemmPlan plan;
  EXPECT_TRUE(gemm_plan(p.desc, &plan, opt));
  Workspace ws(plan.workspace_bytes);
  const void *dp = p.cs.dshape == DShape::kAliasC ? c.bytes.data() : p.d.bytes.data();
  gemm_run(plan, p.a.bytes.data(), p.b.bytes.data(), c.bytes.data(), ws.ptr, dp);
  EXPECT_TRUE(ws.guard_intact()) << "workspace overrun";
  if (plan_out) *plan_out = plan;
  return c;
}

void check(const Problem &p, const Mat &c, const std::string &what) {
  const Case &cs = p.cs;
  const double T = tolerance(cs.tc);
  ASSERT_TRUE(c.guard_intact()) << what << ": write past the end of C";
  Acceptance acc{what, T};
  for (int64_t bt = 0; bt < cs.batch; ++bt)
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) {
        double old = 0;
        if (cs.beta != 0.0f) old = cs.dshape == DShape::kNone || cs.dshape == DShape::kAliasC ? p.c.get(bt, i, j)
                                                                                            : p.d.get(bt, i, j);
        const auto [g, bound] = golden_element(p.a, p.b, bt, i, j, cs.k, cs.alpha, cs.beta, old, cs.act, T);
        acc.add(bt, i, j, c.get(bt, i, j), g, bound);
      }
  acc.finish(cs.positive_mean);
}

class GemmBf16 : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel_ = bf16_kernel();
    if (kernel_ < 0 || !gemm_kernel_supported(kernel_))
      GTEST_SKIP() << "avx512bf16_12x32 needs AVX512_BF16 (or an OPSNN_EMULATE_AVX512 build)";
  }
  // Runs the case on the BF16 tier, checks it, and returns whether the plan took bf16_dot.
  bool run_and_check(const Case &cs) {
    Problem p = make_problem(cs);
    GemmOptions opt;
    opt.kernel = kernel_;
    GemmPlan plan;
    Mat c = run(p, opt, &plan);
    check(p, c, describe(cs));
    return plan.bf16_dot;
  }
  int kernel_ = -1;
};

GemmPlan plan_for(aclDataType ta, aclDataType tb, int64_t m, int kernel, aclDataType rounding = ACL_FLOAT) {
  GemmDesc d;
  d.m = m; d.n = 40; d.k = 50;
  d.a = {ta, 50, 1, 0};
  d.b = {tb, 40, 1, 0};
  d.c = {ACL_FLOAT, 40, 1, 0};
  d.input_rounding = rounding;
  GemmOptions o;
  o.kernel = kernel;
  GemmPlan p;
  EXPECT_TRUE(gemm_plan(d, &p, o));
  return p;
}

TEST_F(GemmBf16, ChosenOnlyForBf16Operands) {
  EXPECT_TRUE(plan_for(ACL_BF16, ACL_BF16, 33, kernel_).bf16_dot);
  EXPECT_TRUE(plan_for(ACL_BF16, ACL_BF16, 33, kernel_, ACL_BF16).bf16_dot);  // rounding to BF16: a no-op
  EXPECT_FALSE(plan_for(ACL_BF16, ACL_BF16, 33, kernel_, ACL_FLOAT16).bf16_dot);
  for (auto t : {std::pair{ACL_FLOAT, ACL_FLOAT}, std::pair{ACL_FLOAT16, ACL_FLOAT16}, std::pair{ACL_BF16, ACL_FLOAT},
                 std::pair{ACL_FLOAT, ACL_BF16}, std::pair{ACL_FLOAT16, ACL_BF16}})
    EXPECT_FALSE(plan_for(t.first, t.second, 33, kernel_).bf16_dot) << t.first << " x " << t.second;
  // M <= 4 with B of unit column stride keeps the streaming kernel (B read in place).
  const GemmPlan small = plan_for(ACL_BF16, ACL_BF16, 3, kernel_);
  EXPECT_TRUE(small.stream);
  EXPECT_FALSE(small.bf16_dot);
  // The plain AVX-512 tier never takes it.
  for (int i = 0; i < gemm_kernel_count(); ++i)
    if (i != kernel_ && gemm_kernel_supported(i)) EXPECT_FALSE(plan_for(ACL_BF16, ACL_BF16, 33, i).bf16_dot);
  // Default options pick it when the CPU's best tier is AVX512_BF16 (not capped by OPSNN_MAX_ISA).
  const GemmPlan dflt = plan_for(ACL_BF16, ACL_BF16, 33, -1);
  if (core::cpu_features().best == core::Isa::kAvx512Bf16 && dflt.kernel >= 0) {
    EXPECT_STREQ(gemm_kernel_name(dflt.kernel), "avx512bf16_12x32");
    EXPECT_TRUE(dflt.bf16_dot);
  }
}

// A registered pre-packed BF16 weight is paired too: bit-identical to the plain weight.
TEST_F(GemmBf16, PrepackedWeightBitIdenticalToPlain) {
  gemm_prepacked_b_mark_in_use();
  uint32_t seed = 50;
  for (Layout lb : {Layout::kRowMajor, Layout::kTransposed})
    for (int64_t m : {5, 13, 40})
      for (auto nk : {std::array<int64_t, 2>{17, 9}, std::array<int64_t, 2>{100, 301}, std::array<int64_t, 2>{40, 700}}) {
        Case cs;
        cs.m = m; cs.n = nk[0]; cs.k = nk[1];
        cs.lb = lb;
        cs.bcast_b = true;  // one matrix (batch stride 0): what a pre-packed weight is
        cs.seed = seed++;
        Problem p = make_problem(cs);
        Problem q = p;  // B replaced by its pre-packed layout, at its own (registered) address
        q.b.bytes.assign(static_cast<size_t>(gemm_prepacked_b_elems(cs.k, cs.n)) * 2, 0);
        gemm_prepack_b(p.desc.b, cs.k, cs.n, p.b.bytes.data(), q.b.bytes.data());
        gemm_prepacked_b_register(q.b.bytes.data(), cs.k, cs.n, ACL_BF16, p.desc.b.row_stride, p.desc.b.col_stride);
        GemmOptions opt;
        opt.kernel = kernel_;
        GemmPlan plan;
        Mat plain = run(p, opt, &plan);
        ASSERT_TRUE(plan.prepacked_alt != nullptr);
        EXPECT_TRUE(plan.bf16_dot && plan.prepacked_alt->bf16_dot) << describe(cs);
        Mat pre = run(q, opt);
        gemm_prepacked_b_forget(q.b.bytes.data(), q.b.bytes.size());
        EXPECT_EQ(plain.bytes, pre.bytes) << describe(cs);
        check(p, plain, describe(cs));
      }
}

TEST_F(GemmBf16, SmallPrimeAndOddSizes) {
  // B strided (column stride 3) so that M <= 4 takes the packed bf16_dot path too.
  uint32_t seed = 1;
  for (int64_t m : {1, 2, 5, 12, 13, 31})
    for (int64_t n : {1, 3, 17, 32, 33, 47})
      for (int64_t k : {1, 2, 3, 7, 8, 17, 64, 129}) {
        Case cs;
        cs.m = m; cs.n = n; cs.k = k;
        cs.lb = Layout::kStrided;
        cs.seed = seed++;
        EXPECT_TRUE(run_and_check(cs)) << describe(cs);
        if (HasFailure()) return;
      }
}

TEST_F(GemmBf16, BlockedSizesAndLongOddK) {
  // K across several K blocks (odd last block), M and N across the cache blocks and not tile multiples.
  const int64_t shapes[][3] = {{97, 131, 257}, {130, 300, 777}, {13, 1100, 513}, {600, 40, 129}, {23, 37, 4097},
                               {5, 70, 1031}, {256, 64, 1}};
  uint32_t seed = 100;
  for (auto &s : shapes)
    for (bool pos : {true, false}) {
      Case cs;
      cs.m = s[0]; cs.n = s[1]; cs.k = s[2];
      cs.positive_mean = pos;
      cs.seed = seed++;
      EXPECT_TRUE(run_and_check(cs)) << describe(cs);
    }
}

TEST_F(GemmBf16, TransposedAndStridedViews) {
  const Layout ls[] = {Layout::kRowMajor, Layout::kTransposed, Layout::kPadded, Layout::kStrided};
  uint32_t seed = 200;
  for (Layout la : ls)
    for (Layout lb : ls)
      for (Layout lc : {Layout::kRowMajor, Layout::kTransposed, Layout::kStrided})
        for (auto s : {std::array<int64_t, 3>{19, 45, 33}, std::array<int64_t, 3>{37, 70, 301}}) {
          Case cs;
          cs.m = s[0]; cs.n = s[1]; cs.k = s[2];
          cs.la = la; cs.lb = lb; cs.lc = lc;
          cs.seed = seed++;
          EXPECT_TRUE(run_and_check(cs)) << describe(cs);
        }
}

TEST_F(GemmBf16, OutputDtypesAlphaBeta) {
  uint32_t seed = 300;
  for (aclDataType tc : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (auto ab : {std::array<float, 2>{0.5f, -1.25f}, std::array<float, 2>{-2.0f, 1.0f},
                    std::array<float, 2>{0.0f, 2.0f}, std::array<float, 2>{3.0f, 0.0f}})
      for (int64_t k : {7, 700}) {
        Case cs;
        cs.m = 27; cs.n = 41; cs.k = k;
        cs.tc = tc;
        cs.alpha = ab[0]; cs.beta = ab[1];
        cs.seed = seed++;
        EXPECT_TRUE(run_and_check(cs)) << describe(cs);
        cs.positive_mean = true;
        cs.alpha = std::fabs(ab[0]) + 0.5f;
        cs.beta = std::fabs(ab[1]);
        EXPECT_TRUE(run_and_check(cs)) << describe(cs);
      }
}

TEST_F(GemmBf16, EpilogueAddendAndActivation) {
  const GemmActivation acts[] = {GemmActivation::kNone, GemmActivation::kRelu, GemmActivation::kGeluTanh,
                                 GemmActivation::kSilu};
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  uint32_t seed = 400;
  int i = 0;
  for (DShape ds : {DShape::kFull, DShape::kRow, DShape::kColumn, DShape::kAliasC})
    for (aclDataType tc : types)
      for (auto s : {std::array<int64_t, 3>{33, 17, 600}, std::array<int64_t, 3>{7, 45, 5}}) {
        Case cs;
        cs.m = s[0]; cs.n = s[1]; cs.k = s[2];
        cs.dshape = ds;
        cs.tc = tc;
        cs.td = ds == DShape::kAliasC ? tc : types[(i + 1) % 3];
        cs.act = acts[i % 4];
        cs.alpha = i % 2 ? 0.75f : -1.5f;
        cs.beta = i % 7 == 3 ? 0.0f : (i % 2 ? 1.0f : -0.5f);
        cs.batch = i % 3 == 0 ? 2 : 1;
        cs.lc = i % 5 == 1 ? Layout::kTransposed : Layout::kRowMajor;
        cs.seed = seed++;
        ++i;
        EXPECT_TRUE(run_and_check(cs)) << describe(cs);
      }
}

TEST_F(GemmBf16, BatchAndBroadcast) {
  uint32_t seed = 500;
  for (bool ba : {false, true})
    for (bool bb : {false, true})
      for (aclDataType tc : {ACL_FLOAT, ACL_BF16}) {
        Case cs;
        cs.batch = 3; cs.m = 21; cs.n = 35; cs.k = 301;
        cs.bcast_a = ba; cs.bcast_b = bb; cs.tc = tc;
        cs.lb = bb ? Layout::kTransposed : Layout::kRowMajor;
        cs.seed = seed++;
        EXPECT_TRUE(run_and_check(cs)) << describe(cs);
      }
}

TEST_F(GemmBf16, NanPropagates) {
  Case cs;
  cs.m = 20; cs.n = 40; cs.k = 33;
  Problem p = make_problem(cs);
  p.a.set(0, 3, 32, std::nanf(""));  // the last, zero-padded K pair
  p.b.set(0, 0, 5, std::nanf(""));
  GemmOptions opt;
  opt.kernel = kernel_;
  Mat c = run(p, opt);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j)
      EXPECT_EQ(std::isnan(c.get(0, i, j)), i == 3 || j == 5) << i << "," << j;
}

TEST_F(GemmBf16, BitIdenticalForOneAndTwoThreads) {
  Case cases[4];
  cases[0].m = 300; cases[0].n = 260; cases[0].k = 701;
  cases[1].m = 190; cases[1].n = 700; cases[1].k = 600; cases[1].tc = ACL_BF16; cases[1].beta = 0.5f;
  cases[2].batch = 3; cases[2].m = 70; cases[2].n = 90; cases[2].k = 521; cases[2].lc = Layout::kTransposed;
  cases[3].m = 12; cases[3].n = 2000; cases[3].k = 333; cases[3].dshape = DShape::kRow; cases[3].beta = 1.0f;
  cases[3].act = GemmActivation::kGeluTanh;
  for (const Case &cs : cases) {
    Problem p = make_problem(cs);
    GemmOptions one, two;
    one.kernel = two.kernel = kernel_;
    one.threads = 1;
    two.threads = 2;
    GemmPlan plan1, plan2;
    Mat c1 = run(p, one, &plan1), c2 = run(p, two, &plan2);
    EXPECT_TRUE(plan2.bf16_dot) << describe(cs);
    EXPECT_GE(plan2.tasks, 2) << describe(cs);
    EXPECT_EQ(c1.bytes, c2.bytes) << describe(cs);
    check(p, c2, describe(cs));
  }
}

}  // namespace
}  // namespace opsnn::kernels

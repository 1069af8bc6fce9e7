// Tests of the internal GEMM engine (src/kernels/matmul) against a float64 reference.
//
// Acceptance (spec/precision.md), per output dtype with T = 2^-13 (fp32), 2^-10 (fp16), 2^-7 (bf16):
//  * every case: the absolute bound |actual - golden| <= T * (|alpha| * sum_k |a_ik b_kj| +
//    |beta * c_ij|) for each element. This is sound for fp32 accumulation (the error of a sum of
//    K products is bounded relative to the sum of magnitudes), also when the result is a
//    cancellation near zero, where a relative error is meaningless;
//  * cases drawn with positive-mean inputs (no systematic cancellation) additionally meet the
//    relative criteria MERE < T and MARE < 10 T with rel = |a - g| / (|g| + 1e-7).
// The golden result uses the inputs as the engine sees them: converted from their dtype and, when
// input_rounding is set, rounded to it (that rounding is the defined semantics, not an error).
// C is poisoned with NaN (beta == 0) and guarded past its last element; every kernel tier this
// CPU supports is tested; 1 vs 2 threads must give bit-identical results.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/half.h"
#include "gemm_test_support.h"
#include "kernels/matmul/gemm.h"

namespace opsnn::kernels {
namespace {

using namespace gemm_test;

const char *dname(aclDataType t) {
  return t == ACL_FLOAT ? "f32" : t == ACL_FLOAT16 ? "f16" : t == ACL_BF16 ? "bf16" : "?";
}

double round_as(aclDataType r, double v) {
  if (r == ACL_FLOAT16) return half_to_float(float_to_half(static_cast<float>(v)));
  if (r == ACL_BF16) return bf16_to_float(float_to_bf16(static_cast<float>(v)));
  return v;
}

struct Case {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  aclDataType ta = ACL_FLOAT, tb = ACL_FLOAT, tc = ACL_FLOAT;
  Layout la = Layout::kRowMajor, lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  bool bcast_a = false, bcast_b = false;
  float alpha = 1.0f, beta = 0.0f;
  aclDataType rounding = ACL_FLOAT;
  bool positive_mean = false;  // draw inputs so that the relative criteria apply
  uint32_t seed = 1;
};

std::string describe(const Case &c) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "batch=%lld m=%lld n=%lld k=%lld a=%s/%d b=%s/%d c=%s/%d bcast=%d%d alpha=%g beta=%g round=%s",
                (long long)c.batch, (long long)c.m, (long long)c.n, (long long)c.k, dname(c.ta), (int)c.la,
                dname(c.tb), (int)c.lb, dname(c.tc), (int)c.lc, c.bcast_a, c.bcast_b, c.alpha, c.beta,
                dname(c.rounding));
  return buf;
}

struct Problem {
  Case cs;
  GemmDesc desc;
  Mat a, b, c, c_init;
};

void fill_random(Mat &m, std::mt19937 &rng, bool positive_mean) {
  std::uniform_real_distribution<float> any(-1.0f, 1.0f), pos(0.1f, 1.0f), mostly(-0.2f, 1.0f);
  for (int64_t bt = 0; bt < (m.op.batch_stride == 0 ? 1 : m.batch); ++bt)
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < m.cols; ++j) {
        float v = positive_mean ? ((i + j) % 2 ? pos(rng) : mostly(rng)) : any(rng);
        from_float(m.dtype, m.at(bt, i, j), v);
      }
}

Problem make_problem(const Case &cs) {
  Problem p;
  p.cs = cs;
  std::mt19937 rng(cs.seed);
  p.a.dtype = cs.ta; p.a.batch = cs.batch; p.a.rows = cs.m; p.a.cols = cs.k;
  p.a.op = make_op(cs.ta, cs.m, cs.k, cs.la, cs.bcast_a);
  p.b.dtype = cs.tb; p.b.batch = cs.batch; p.b.rows = cs.k; p.b.cols = cs.n;
  p.b.op = make_op(cs.tb, cs.k, cs.n, cs.lb, cs.bcast_b);
  p.c.dtype = cs.tc; p.c.batch = cs.batch; p.c.rows = cs.m; p.c.cols = cs.n;
  p.c.op = make_op(cs.tc, cs.m, cs.n, cs.lc, false);
  p.a.alloc(0xFF);
  p.b.alloc(0xFF);
  p.c.alloc(0xFF);  // 0xFFFF... is a NaN in every float dtype: unwritten elements fail
  fill_random(p.a, rng, cs.positive_mean);
  fill_random(p.b, rng, cs.positive_mean);
  if (cs.beta != 0.0f) fill_random(p.c, rng, cs.positive_mean);
  p.c_init = p.c;
  GemmDesc &d = p.desc;
  d.batch = cs.batch; d.m = cs.m; d.n = cs.n; d.k = cs.k;
  d.a = p.a.op; d.b = p.b.op; d.c = p.c.op;
  d.alpha = cs.alpha; d.beta = cs.beta;
  d.input_rounding = cs.rounding;
  return p;
}

// Checks `c` (the engine's output for problem p) against the float64 golden result.
void check(const Problem &p, const Mat &c, const std::string &what) {
  const Case &cs = p.cs;
  const double T = tolerance(cs.tc);
  ASSERT_TRUE(c.guard_intact()) << what << ": write past the end of C";
  Acceptance acc{what, T};
  std::vector<double> ra(cs.k), rb(cs.k);
  for (int64_t bt = 0; bt < cs.batch; ++bt) {
    const int64_t ba = cs.bcast_a ? 0 : bt, bb = cs.bcast_b ? 0 : bt;
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t kk = 0; kk < cs.k; ++kk) ra[kk] = round_as(cs.rounding, p.a.get(ba, i, kk));
      for (int64_t j = 0; j < cs.n; ++j) {
        double g = 0.0, mag = 0.0;
        for (int64_t kk = 0; kk < cs.k; ++kk) {
          const double prod = ra[kk] * round_as(cs.rounding, p.b.get(bb, kk, j));
          g += prod;
          mag += std::fabs(prod);
        }
        const double old = cs.beta == 0.0f ? 0.0 : p.c_init.get(bt, i, j);
        g = cs.alpha * g + cs.beta * old;
        mag = std::fabs(cs.alpha) * mag + std::fabs(cs.beta * old);
        acc.add(bt, i, j, c.get(bt, i, j), g, T * mag + 1e-30);
      }
    }
  }
  acc.finish(cs.positive_mean);
}

// Runs the engine on p with the given options; returns the output matrix.
Mat run_engine(const Problem &p, const GemmOptions &opt) {
  Mat c = p.c_init;
  GemmPlan plan;
  EXPECT_TRUE(gemm_plan(p.desc, &plan, opt));
  Workspace ws(plan.workspace_bytes);
  gemm_run(plan, p.a.bytes.data(), p.b.bytes.data(), c.bytes.data(), ws.ptr);
  EXPECT_TRUE(ws.guard_intact()) << "workspace overrun";
  return c;
}

void run_and_check(const Case &cs, int kernel) {
  Problem p = make_problem(cs);
  GemmOptions opt;
  opt.kernel = kernel;
  Mat c = run_engine(p, opt);
  check(p, c, std::string(gemm_kernel_name(kernel)) + " " + describe(cs));
}

// ------------------------------------------------------------------------------------------------
// Per-kernel tests: every tier of the table that this CPU can run.

class GemmKernel : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!gemm_kernel_supported(GetParam()))
      GTEST_SKIP() << gemm_kernel_name(GetParam()) << " is not supported on this CPU";
  }
};

TEST_P(GemmKernel, SmallAndOddSizes) {
  const int64_t sizes[] = {1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 33};
  uint32_t seed = 10;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : {1, 4, 9, 37}) {
        Case cs;
        cs.m = m; cs.n = n; cs.k = k;
        cs.seed = seed++;
        run_and_check(cs, GetParam());
      }
}

TEST_P(GemmKernel, BlockedSizes) {
  // Sizes crossing the K, M and N cache blocks, with primes and non-multiples of the tile.
  const int64_t shapes[][3] = {{64, 64, 64},   {97, 131, 257},  {256, 300, 513}, {521, 67, 700},
                               {13, 1031, 600}, {1, 517, 1300}, {16, 300, 1100}, {600, 40, 129},
                               {200, 5000, 40}, {1, 9001, 33},  {4, 2500, 70}};
  uint32_t seed = 100;
  for (auto &s : shapes) {
    Case cs;
    cs.m = s[0]; cs.n = s[1]; cs.k = s[2];
    cs.positive_mean = true;
    cs.seed = seed++;
    run_and_check(cs, GetParam());
    cs.positive_mean = false;
    cs.seed = seed++;
    run_and_check(cs, GetParam());
  }
}

TEST_P(GemmKernel, LongK) {
  for (int64_t k : {2047, 4096, 8192}) {
    Case cs;
    cs.m = 23; cs.n = 37; cs.k = k;
    cs.positive_mean = true;
    cs.seed = static_cast<uint32_t>(k);
    run_and_check(cs, GetParam());
    cs.positive_mean = false;
    cs.m = 3;  // streaming small-M kernel
    run_and_check(cs, GetParam());
  }
}

TEST_P(GemmKernel, AllDtypeCombinations) {
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  uint32_t seed = 200;
  for (aclDataType ta : types)
    for (aclDataType tb : types)
      for (aclDataType tc : types)
        for (auto shape : {std::array<int64_t, 3>{37, 29, 71}, std::array<int64_t, 3>{5, 150, 300},
                           std::array<int64_t, 3>{130, 70, 600}}) {
          Case cs;
          cs.m = shape[0]; cs.n = shape[1]; cs.k = shape[2];
          cs.ta = ta; cs.tb = tb; cs.tc = tc;
          cs.positive_mean = true;
          cs.seed = seed++;
          run_and_check(cs, GetParam());
        }
}

// M <= 4 reads B in place (streaming kernel for [K,N], dot products for [N,K]), widening FLOAT16 /
// BF16 in registers: every B dtype, both layouts, widths and K that are not multiples of the vector.
TEST_P(GemmKernel, SmallMEveryBDtype) {
  uint32_t seed = 250;
  for (aclDataType tb : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (Layout lb : {Layout::kRowMajor, Layout::kTransposed, Layout::kStrided})
      for (int64_t m : {1, 2, 3, 4, 5, 8})
        for (auto nk : {std::array<int64_t, 2>{1, 1}, std::array<int64_t, 2>{7, 15}, std::array<int64_t, 2>{45, 33},
                        std::array<int64_t, 2>{300, 1031}}) {
          Case cs;
          cs.m = m; cs.n = nk[0]; cs.k = nk[1];
          cs.ta = m == 2 ? ACL_FLOAT16 : ACL_FLOAT;
          cs.tb = tb; cs.lb = lb;
          cs.tc = m == 3 ? ACL_BF16 : ACL_FLOAT;
          cs.seed = seed++;
          run_and_check(cs, GetParam());
        }
}

TEST_P(GemmKernel, LayoutsAndStrides) {
  const Layout layouts[] = {Layout::kRowMajor, Layout::kTransposed, Layout::kPadded, Layout::kStrided};
  uint32_t seed = 300;
  for (Layout la : layouts)
    for (Layout lb : layouts)
      for (Layout lc : layouts)
        for (auto shape : {std::array<int64_t, 3>{19, 45, 33}, std::array<int64_t, 3>{4, 70, 300}}) {
          Case cs;
          cs.m = shape[0]; cs.n = shape[1]; cs.k = shape[2];
          cs.la = la; cs.lb = lb; cs.lc = lc;
          cs.seed = seed++;
          run_and_check(cs, GetParam());
          cs.ta = cs.tb = ACL_FLOAT16;  // strided half-precision reads (F16C path when contiguous)
          cs.tc = ACL_BF16;
          run_and_check(cs, GetParam());
        }
}

TEST_P(GemmKernel, BatchAndBroadcast) {
  uint32_t seed = 400;
  for (bool ba : {false, true})
    for (bool bb : {false, true})
      for (Layout lc : {Layout::kRowMajor, Layout::kPadded, Layout::kTransposed}) {
        Case cs;
        cs.batch = 3; cs.m = 21; cs.n = 35; cs.k = 300;
        cs.bcast_a = ba; cs.bcast_b = bb; cs.lc = lc;
        cs.seed = seed++;
        run_and_check(cs, GetParam());
        cs.m = 2;  // streaming small-M kernel
        run_and_check(cs, GetParam());
      }
}

TEST_P(GemmKernel, AlphaBeta) {
  uint32_t seed = 500;
  for (aclDataType tc : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (auto ab : {std::array<float, 2>{0.5f, -1.25f}, std::array<float, 2>{-2.0f, 1.0f},
                    std::array<float, 2>{1.0f, 0.75f}, std::array<float, 2>{0.0f, 2.0f},
                    std::array<float, 2>{3.0f, 0.0f}})
      for (int64_t k : {7, 700}) {
        Case cs;
        cs.m = 27; cs.n = 41; cs.k = k;
        cs.tc = tc;
        cs.alpha = ab[0]; cs.beta = ab[1];
        cs.seed = seed++;
        run_and_check(cs, GetParam());
        cs.m = 1;
        run_and_check(cs, GetParam());
      }
}

TEST_P(GemmKernel, InputRounding) {
  uint32_t seed = 600;
  for (aclDataType r : {ACL_FLOAT16, ACL_BF16})
    for (aclDataType tc : {ACL_FLOAT, ACL_FLOAT16})
      for (int64_t m : {1, 33}) {
        Case cs;
        cs.m = m; cs.n = 50; cs.k = 400;
        cs.rounding = r; cs.tc = tc;
        cs.ta = ACL_FLOAT; cs.tb = m == 1 ? ACL_FLOAT : ACL_BF16;
        cs.positive_mean = true;
        cs.seed = seed++;
        run_and_check(cs, GetParam());
      }
}

TEST_P(GemmKernel, ZeroSizes) {
  // K == 0: C = beta * C, or 0 when beta == 0 (C poisoned with NaN before).
  for (float beta : {0.0f, 2.0f})
    for (aclDataType tc : {ACL_FLOAT, ACL_FLOAT16}) {
      Case cs;
      cs.m = 9; cs.n = 17; cs.k = 0; cs.beta = beta; cs.tc = tc;
      run_and_check(cs, GetParam());
    }
  // M, N or batch == 0: nothing is written.
  for (auto s : {std::array<int64_t, 4>{1, 0, 5, 5}, std::array<int64_t, 4>{1, 5, 0, 5},
                 std::array<int64_t, 4>{0, 5, 5, 5}}) {
    Case cs;
    cs.batch = s[0]; cs.m = s[1]; cs.n = s[2]; cs.k = s[3];
    Problem p = make_problem(cs);
    GemmOptions opt;
    opt.kernel = GetParam();
    Mat c = run_engine(p, opt);
    EXPECT_EQ(c.bytes, p.c_init.bytes);
  }
}

TEST_P(GemmKernel, BitIdenticalForOneAndTwoThreads) {
  const Case cases[] = {
      [] { Case c; c.m = 300; c.n = 260; c.k = 700; return c; }(),
      [] { Case c; c.m = 4; c.n = 3000; c.k = 900; return c; }(),   // streaming small-M kernel
      [] { Case c; c.m = 12; c.n = 2000; c.k = 700; return c; }(),  // small M, packed
      [] { Case c; c.m = 190; c.n = 700; c.k = 600; c.tc = ACL_FLOAT16; c.beta = 0.5f; return c; }(),
      [] { Case c; c.batch = 3; c.m = 70; c.n = 90; c.k = 520; c.lc = Layout::kTransposed; return c; }(),
  };
  for (const Case &cs : cases) {
    Problem p = make_problem(cs);
    GemmOptions one, two;
    one.kernel = two.kernel = GetParam();
    one.threads = 1;
    two.threads = 2;
    GemmPlan plan2;
    ASSERT_TRUE(gemm_plan(p.desc, &plan2, two));
    EXPECT_GE(plan2.tasks, 2) << describe(cs);
    Mat c1 = run_engine(p, one);
    Mat c2 = run_engine(p, two);
    EXPECT_EQ(c1.bytes, c2.bytes) << describe(cs);
    check(p, c2, describe(cs));
  }
}

// gemm_run_rows (aclnnGroupedMatmulV3's groups split at launch): a plan made for M run over its
// first m rows computes each of them exactly as the full run does (same path, blocking and K order)
// and leaves rows m.. of C untouched; tile, small-M and fp32-buffer (FLOAT16 C) plans, 1 and 2 threads.
TEST_P(GemmKernel, RunRowsMatchesTheFullPlanOnItsRows) {
  const Case cases[] = {
      [] { Case c; c.m = 200; c.n = 70; c.k = 90; return c; }(),
      [] { Case c; c.m = 3; c.n = 300; c.k = 50; return c; }(),  // small-M plan
      [] { Case c; c.m = 97; c.n = 33; c.k = 40; c.tc = ACL_FLOAT16; c.lb = Layout::kTransposed; return c; }(),
      [] { Case c; c.batch = 2; c.m = 50; c.n = 20; c.k = 17; c.beta = 0.5f; return c; }(),
  };
  for (const Case &cs : cases)
    for (int threads : {1, 2}) {
      Problem p = make_problem(cs);
      GemmOptions opt;
      opt.kernel = GetParam();
      opt.threads = threads;
      const Mat full = run_engine(p, opt);
      GemmPlan plan;
      ASSERT_TRUE(gemm_plan(p.desc, &plan, opt));
      for (int64_t m : {int64_t{0}, int64_t{1}, cs.m / 3, cs.m - 1, cs.m}) {
        Mat c = p.c_init;
        Workspace ws(plan.workspace_bytes);
        gemm_run_rows(plan, m, p.a.bytes.data(), p.b.bytes.data(), c.bytes.data(), ws.ptr);
        EXPECT_TRUE(ws.guard_intact());
        ASSERT_TRUE(c.guard_intact());
        for (int64_t bt = 0; bt < cs.batch; ++bt)
          for (int64_t i = 0; i < cs.m; ++i)
            for (int64_t j = 0; j < cs.n; ++j) {
              const double got = c.get(bt, i, j), want = i < m ? full.get(bt, i, j) : p.c_init.get(bt, i, j);
              ASSERT_TRUE(got == want || (std::isnan(got) && std::isnan(want)))
                  << describe(cs) << " threads " << threads << " rows " << m << " at (" << bt << ", " << i << ", "
                  << j << "): " << got << " vs " << want;
            }
      }
    }
}

// A large B stored [N,K] with few rows of A is packed over all of K per column block (b_full_k);
// a shrunk L3 reaches that plan with small matrices. Same per-element order as the K-blocked
// packing, so identical bits, at 1 and 2 threads, FLOAT / FLOAT16 B, ragged N and K.
TEST_P(GemmKernel, FullKPackingBitIdenticalToBlockedPacking) {
  uint32_t seed = 900;
  for (aclDataType tb : {ACL_FLOAT, ACL_FLOAT16})
    for (auto mnk : {std::array<int64_t, 3>{12, 420, 700}, std::array<int64_t, 3>{16, 450, 1031},
                     std::array<int64_t, 3>{9, 417, 1100}}) {
      Case cs;
      cs.m = mnk[0]; cs.n = mnk[1]; cs.k = mnk[2];
      cs.tb = tb; cs.lb = Layout::kTransposed;
      cs.seed = seed++;
      Problem p = make_problem(cs);
      GemmOptions blocked, full_k;
      blocked.kernel = full_k.kernel = GetParam();
      blocked.l3_bytes = int64_t{1} << 30;  // B well within L3: K-blocked packing
      GemmPlan plan_b, plan_f;
      ASSERT_TRUE(gemm_plan(p.desc, &plan_b, blocked));
      if (plan_b.kernel < 0) GTEST_SKIP() << "reference kernels";
      // L3/4 = three panels over all of K (nc = 3 nr), and B (n * k, n >= 417) beyond L3/2.
      full_k.l3_bytes = 12 * plan_b.nr * cs.k * 4;
      ASSERT_TRUE(gemm_plan(p.desc, &plan_f, full_k));
      EXPECT_FALSE(plan_b.b_full_k) << describe(cs);
      ASSERT_TRUE(plan_f.b_full_k) << describe(cs);
      ASSERT_GT(plan_f.nc, plan_f.nr) << describe(cs);  // several panels per packed block
      const Mat c_b = run_engine(p, blocked);
      for (int threads : {1, 2}) {
        full_k.threads = threads;
        const Mat c_f = run_engine(p, full_k);
        EXPECT_EQ(c_b.bytes, c_f.bytes) << describe(cs) << " threads " << threads;
        check(p, c_f, describe(cs));
      }
    }
}

// ------------------------------------------------------------------------------------------------
// Fused epilogue: C = act(alpha * A@B + beta * D), D of any dtype and broadcast shape (full
// matrix, row [N], column [M, 1], scalar, broadcast over the batch), or D the very view of C.

enum class DShape { kFull, kRow, kColumn, kScalar, kAliasC };

struct EpiCase {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  aclDataType ta = ACL_FLOAT, tb = ACL_FLOAT, tc = ACL_FLOAT, td = ACL_FLOAT;
  Layout lb = Layout::kRowMajor, lc = Layout::kRowMajor;
  DShape dshape = DShape::kFull;
  bool d_batch_bcast = false;
  float alpha = 1.0f, beta = 1.0f;
  GemmActivation act = GemmActivation::kNone;
};

std::string describe(const EpiCase &e) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "batch=%lld m=%lld n=%lld k=%lld a=%s b=%s/%d c=%s/%d d=%s shape=%d bb=%d alpha=%g beta=%g act=%d",
                (long long)e.batch, (long long)e.m, (long long)e.n, (long long)e.k, dname(e.ta), dname(e.tb), (int)e.lb,
                dname(e.tc), (int)e.lc, dname(e.td), (int)e.dshape, e.d_batch_bcast, e.alpha, e.beta, (int)e.act);
  return buf;
}


struct EpiProblem {
  EpiCase e;
  GemmDesc desc;
  Mat a, b, c, dm;  // dm unused when D aliases C
};

EpiProblem make_epi_problem(const EpiCase &e, uint32_t seed) {
  EpiProblem p;
  p.e = e;
  std::mt19937 rng(seed);
  auto setup = [&](Mat &mt, aclDataType t, int64_t rows, int64_t cols, Layout l) {
    mt.dtype = t; mt.batch = e.batch; mt.rows = rows; mt.cols = cols;
    mt.op = make_op(t, rows, cols, l, false);
    mt.alloc(0xFF);
  };
  setup(p.a, e.ta, e.m, e.k, Layout::kRowMajor);
  setup(p.b, e.tb, e.k, e.n, e.lb);
  setup(p.c, e.tc, e.m, e.n, e.lc);
  fill_random(p.a, rng, false);
  fill_random(p.b, rng, false);
  GemmDesc &d = p.desc;
  d.batch = e.batch; d.m = e.m; d.n = e.n; d.k = e.k;
  d.a = p.a.op; d.b = p.b.op; d.c = p.c.op;
  d.alpha = e.alpha; d.beta = e.beta; d.activation = e.act;
  d.has_d = true;
  if (e.dshape == DShape::kAliasC) {
    if (e.beta != 0.0f) fill_random(p.c, rng, false);  // else C keeps its NaN poison: must be ignored
    d.d = d.c;
    return p;
  }
  Mat &dm = p.dm;
  dm.dtype = e.td; dm.batch = e.batch; dm.rows = e.m; dm.cols = e.n;
  dm.op.dtype = e.td;
  switch (e.dshape) {
    case DShape::kFull: dm.op = make_op(e.td, e.m, e.n, Layout::kPadded, false); break;
    case DShape::kRow: dm.op.row_stride = 0; dm.op.col_stride = 1; dm.op.batch_stride = e.n + 3; break;
    case DShape::kColumn: dm.op.row_stride = 2; dm.op.col_stride = 0; dm.op.batch_stride = 2 * e.m + 1; break;
    default: dm.op.row_stride = 0; dm.op.col_stride = 0; dm.op.batch_stride = 1; break;
  }
  if (e.d_batch_bcast) dm.op.batch_stride = 0;
  dm.alloc(0xFF);
  if (e.beta != 0.0f) fill_random(dm, rng, false);  // beta == 0: D stays NaN and must be ignored
  d.d = dm.op;
  return p;
}

void check_epi(const EpiProblem &p, const Mat &c_init, const Mat &c, const std::string &what) {
  const EpiCase &e = p.e;
  const double T = tolerance(e.tc);
  ASSERT_TRUE(c.guard_intact()) << what << ": write past the end of C";
  Acceptance acc{what, T};
  for (int64_t bt = 0; bt < e.batch; ++bt)
    for (int64_t i = 0; i < e.m; ++i)
      for (int64_t j = 0; j < e.n; ++j) {
        double old = 0;
        if (e.beta != 0.0f) old = e.dshape == DShape::kAliasC ? c_init.get(bt, i, j) : p.dm.get(bt, i, j);
        const auto [g, bound] = golden_element(p.a, p.b, bt, i, j, e.k, e.alpha, e.beta, old, e.act, T);
        acc.add(bt, i, j, c.get(bt, i, j), g, bound);
      }
  acc.finish(false);
}

Mat run_epi_engine(const EpiProblem &p, const GemmOptions &opt) {
  Mat c = p.c;
  GemmPlan plan;
  EXPECT_TRUE(gemm_plan(p.desc, &plan, opt));
  Workspace ws(plan.workspace_bytes);
  const void *dptr = p.e.dshape == DShape::kAliasC ? c.bytes.data() : p.dm.bytes.data();
  gemm_run(plan, p.a.bytes.data(), p.b.bytes.data(), c.bytes.data(), ws.ptr, dptr);
  EXPECT_TRUE(ws.guard_intact()) << "workspace overrun";
  return c;
}

std::vector<EpiCase> epilogue_cases() {
  std::vector<EpiCase> v;
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const DShape shapes[] = {DShape::kFull, DShape::kRow, DShape::kColumn, DShape::kScalar, DShape::kAliasC};
  const GemmActivation acts[] = {GemmActivation::kNone, GemmActivation::kRelu, GemmActivation::kGeluTanh,
                                 GemmActivation::kSilu, GemmActivation::kGeluErf};
  const std::array<int64_t, 3> sizes[] = {{1, 1, 1}, {3, 37, 300}, {7, 13, 5}, {33, 17, 600}, {130, 70, 40}, {5, 9, 0}};
  int i = 0;
  for (auto sz : sizes)
    for (DShape ds : shapes)
      for (aclDataType tc : types) {
        EpiCase e;
        e.m = sz[0]; e.n = sz[1]; e.k = sz[2];
        e.dshape = ds;
        e.tc = tc;
        e.td = ds == DShape::kAliasC ? tc : types[(i + 1) % 3];
        e.ta = types[i % 3];
        e.tb = i % 4 == 0 ? ACL_FLOAT16 : ACL_FLOAT;
        e.lb = i % 3 == 0 ? Layout::kTransposed : Layout::kRowMajor;
        e.lc = i % 5 == 0 ? Layout::kPadded : (i % 5 == 1 ? Layout::kTransposed : Layout::kRowMajor);
        e.act = acts[i % 4];
        e.alpha = i % 2 ? 0.75f : -1.5f;
        e.beta = i % 7 == 3 ? 0.0f : (i % 2 ? 1.0f : -0.5f);
        e.batch = i % 6 == 0 ? 2 : 1;
        e.d_batch_bcast = e.batch > 1 && i % 4 == 0 && ds != DShape::kAliasC;
        v.push_back(e);
        ++i;
      }
  return v;
}

TEST_P(GemmKernel, EpilogueAddendAndActivation) {
  uint32_t seed = 800;
  for (const EpiCase &e : epilogue_cases()) {
    EpiProblem p = make_epi_problem(e, seed++);
    GemmOptions opt;
    opt.kernel = GetParam();
    Mat c = run_epi_engine(p, opt);
    check_epi(p, p.c, c, std::string(gemm_kernel_name(GetParam())) + " " + describe(e));
    if (HasFatalFailure()) return;
  }
}

TEST_P(GemmKernel, EpilogueBitIdenticalForOneAndTwoThreads) {
  EpiCase e;
  e.m = 190; e.n = 300; e.k = 700; e.dshape = DShape::kRow; e.act = GemmActivation::kGeluTanh; e.beta = 0.5f;
  for (DShape ds : {DShape::kRow, DShape::kAliasC})
    for (aclDataType tc : {ACL_FLOAT, ACL_BF16}) {
      e.dshape = ds;
      e.tc = tc;
      EpiProblem p = make_epi_problem(e, 900);
      GemmOptions one, two;
      one.kernel = two.kernel = GetParam();
      one.threads = 1;
      two.threads = 2;
      Mat c1 = run_epi_engine(p, one), c2 = run_epi_engine(p, two);
      EXPECT_EQ(c1.bytes, c2.bytes) << describe(e);
      check_epi(p, p.c, c2, describe(e));
    }
}

TEST(GemmReference, EpilogueAddendAndActivation) {
  uint32_t seed = 1000;
  for (const EpiCase &e : epilogue_cases()) {
    EpiProblem p = make_epi_problem(e, seed++);
    Mat c = p.c;
    const void *dptr = e.dshape == DShape::kAliasC ? c.bytes.data() : p.dm.bytes.data();
    gemm_reference(p.desc, p.a.bytes.data(), p.b.bytes.data(), c.bytes.data(), dptr);
    check_epi(p, p.c, c, "reference " + describe(e));
    if (HasFatalFailure()) return;
  }
}

TEST(GemmPlan, RejectsInvalidEpilogue) {
  GemmPlan plan;
  GemmDesc d;
  d.m = 2; d.n = 2; d.k = 2;
  d.has_d = true;
  d.d.dtype = ACL_INT32;
  EXPECT_FALSE(gemm_plan(d, &plan));
  d.d.dtype = ACL_BF16;
  EXPECT_TRUE(gemm_plan(d, &plan));
  d.activation = static_cast<GemmActivation>(9);
  EXPECT_FALSE(gemm_plan(d, &plan));
}

std::vector<int> all_kernels() {
  std::vector<int> v;
  for (int i = 0; i < gemm_kernel_count(); ++i) v.push_back(i);
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllTiers, GemmKernel, ::testing::ValuesIn(all_kernels()),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(gemm_kernel_name(info.param));
                         });

// ------------------------------------------------------------------------------------------------

TEST(GemmReference, MatchesFloat64) {
  uint32_t seed = 700;
  for (aclDataType tc : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (auto shape : {std::array<int64_t, 3>{1, 1, 1}, std::array<int64_t, 3>{7, 13, 300},
                       std::array<int64_t, 3>{20, 3, 0}}) {
      Case cs;
      cs.batch = 2; cs.m = shape[0]; cs.n = shape[1]; cs.k = shape[2];
      cs.tc = tc; cs.tb = ACL_BF16; cs.lb = Layout::kTransposed; cs.bcast_a = true;
      cs.alpha = 0.5f; cs.beta = tc == ACL_FLOAT ? 0.0f : 1.5f;
      cs.seed = seed++;
      Problem p = make_problem(cs);
      Mat c = p.c_init;
      gemm_reference(p.desc, p.a.bytes.data(), p.b.bytes.data(), c.bytes.data());
      check(p, c, "reference " + describe(cs));
    }
}

TEST(GemmPlan, RejectsInvalidDescriptions) {
  GemmPlan plan;
  GemmDesc d;
  d.m = -1; d.n = 2; d.k = 2;
  EXPECT_FALSE(gemm_plan(d, &plan));
  d.m = 2;
  d.a.dtype = ACL_INT32;
  EXPECT_FALSE(gemm_plan(d, &plan));
  d.a.dtype = ACL_FLOAT;
  d.input_rounding = ACL_INT8;
  EXPECT_FALSE(gemm_plan(d, &plan));
  d.input_rounding = ACL_FLOAT;
  GemmOptions bad;
  bad.kernel = gemm_kernel_count();
  EXPECT_FALSE(gemm_plan(d, &plan, bad));
  EXPECT_TRUE(gemm_plan(d, &plan));
}

TEST(GemmPlan, BlockingIsSane) {
  GemmDesc d;
  d.m = 1024; d.n = 1024; d.k = 1024;
  d.a.row_stride = d.b.row_stride = d.c.row_stride = 1024;
  GemmPlan plan;
  ASSERT_TRUE(gemm_plan(d, &plan));
  if (plan.kernel < 0) GTEST_SKIP() << "OPSNN_KERNELS=reference";
  EXPECT_GT(plan.kc, 0);
  EXPECT_LE(plan.kc, d.k);
  EXPECT_EQ(plan.mc % plan.mr, 0);
  EXPECT_EQ(plan.nc % plan.nr, 0);
  EXPECT_EQ(plan.m_task % plan.mr, 0);
  EXPECT_EQ(plan.n_task % plan.nr, 0);
  EXPECT_GE(plan.tasks, plan.threads);
  EXPECT_EQ(plan.workspace_bytes, plan.thread_workspace_bytes * static_cast<size_t>(plan.threads));
  std::printf("kernel %s mr %lld nr %lld kc %lld mc %lld nc %lld tasks %lld threads %d ws %zu\n",
              gemm_kernel_name(plan.kernel), (long long)plan.mr, (long long)plan.nr, (long long)plan.kc,
              (long long)plan.mc, (long long)plan.nc, (long long)plan.tasks, plan.threads,
              plan.workspace_bytes);
}

}  // namespace
}  // namespace opsnn::kernels

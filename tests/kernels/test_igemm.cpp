// The int8 GEMM engine (igemm.h) on every kernel tier this CPU runs (the AVX512-VNNI tiles in the
// emulated build): exact int32 results against the int64 definition for ragged sizes, K across
// several blocks, extreme values (all -128 / 127: the VNNI bias removal and wrap-around), transposed
// and strided operands, broadcast batches, 1 and 2 threads; every C element delivered exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/matmul/igemm.h"

namespace opsnn::kernels {
namespace {

struct Case {
  int64_t batch, m, n, k;
  bool trans_a = false, trans_b = false;
  int64_t col_gap = 1;          // element step along the inner dim of each row (> 1: strided view)
  bool broadcast_b = false;     // B's batch stride 0
  int fill = 0;                 // 0 random, 1 all -128, 2 A -128 / B 127, 3 all 127
};

struct Collector {
  int64_t m, n;
  std::vector<int64_t> c;
  std::vector<int> hits;
};

void collect(void *ctx, int64_t b, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
             int64_t ldacc) {
  auto *col = static_cast<Collector *>(ctx);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t q = 0; q < cols; ++q) {
      const size_t idx = static_cast<size_t>((b * col->m + i0 + r) * col->n + j0 + q);
      col->c[idx] = acc[r * ldacc + q];
      col->hits[idx] += 1;
    }
}

// Fills a buffer for a [rows, cols] operand (or its transpose) with an inner step of `gap`.
struct Operand {
  std::vector<int8_t> data;
  int64_t row = 0, col = 0, batch = 0;
};

Operand make_operand(int64_t batch, int64_t rows, int64_t cols, bool trans, int64_t gap, int8_t fixed, bool random,
                     std::mt19937 &rng) {
  Operand o;
  // Stored [batch][rows][cols * gap] or, transposed, [batch][cols][rows * gap].
  const int64_t outer = trans ? cols : rows, inner = trans ? rows : cols;
  const int64_t ld = inner * gap;
  o.data.assign(static_cast<size_t>(batch * outer * ld + 1), 0);
  std::uniform_int_distribution<int> dist(-128, 127);
  for (auto &v : o.data) v = random ? static_cast<int8_t>(dist(rng)) : fixed;
  o.batch = outer * ld;
  o.row = trans ? gap : ld;
  o.col = trans ? ld : gap;
  return o;
}

void run_case(const Case &c, int kernel, int threads, std::mt19937 &rng) {
  SCOPED_TRACE(::testing::Message() << igemm_kernel_name(static_cast<IgemmKernel>(kernel)) << " threads " << threads
                                    << " batch " << c.batch << " m " << c.m << " n " << c.n << " k " << c.k
                                    << " ta " << c.trans_a << " tb " << c.trans_b << " gap " << c.col_gap
                                    << " bcast " << c.broadcast_b << " fill " << c.fill);
  const bool random = c.fill == 0;
  const int8_t fa = c.fill == 3 ? 127 : -128, fb = c.fill == 1 ? -128 : 127;
  Operand a = make_operand(c.batch, c.m, c.k, c.trans_a, c.col_gap, fa, random, rng);
  Operand b = make_operand(c.broadcast_b ? 1 : c.batch, c.k, c.n, c.trans_b, c.col_gap, fb, random, rng);
  IgemmDesc d;
  d.batch = c.batch;
  d.m = c.m;
  d.n = c.n;
  d.k = c.k;
  d.a_row = a.row;
  d.a_col = a.col;
  d.a_batch = a.batch;
  d.b_row = b.row;
  d.b_col = b.col;
  d.b_batch = c.broadcast_b ? 0 : b.batch;

  IgemmPlan plan;
  ASSERT_TRUE(igemm_plan(d, &plan, threads, kernel));
  ASSERT_EQ(static_cast<int>(plan.kernel), kernel);
  std::vector<uint64_t> ws((plan.workspace_bytes + 7) / 8 + 8);
  void *wsp = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(ws.data()) + 63) / 64 * 64);
  Collector col{c.m, c.n, std::vector<int64_t>(static_cast<size_t>(c.batch * c.m * c.n), 0),
                std::vector<int>(static_cast<size_t>(c.batch * c.m * c.n), 0)};
  igemm_run(plan, a.data.data(), b.data.data(), wsp, &collect, &col);

  std::vector<int64_t> ref(col.c.size());
  igemm_reference(d, a.data.data(), b.data.data(), ref.data());
  int64_t bad = 0, missed = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (col.hits[i] != 1) ++missed;
    if (col.c[i] != ref[i] && ++bad <= 5)
      ADD_FAILURE() << "element " << i << ": " << col.c[i] << " expected " << ref[i];
  }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(missed, 0) << "elements not delivered exactly once";
}

std::vector<int> available_kernels() {
  std::vector<int> ks;
  for (int k = 0; k < kIgemmKernelCount; ++k)
    if (igemm_kernel_available(static_cast<IgemmKernel>(k))) ks.push_back(k);
  return ks;
}

TEST(Igemm, RaggedSizesStridesAndBatches) {
  std::mt19937 rng(7);
  const std::vector<Case> cases = {
      {1, 1, 1, 1},
      {1, 1, 37, 5},
      {1, 3, 17, 3},
      {1, 7, 33, 31},
      {1, 13, 65, 129},
      {1, 97, 200, 513},          // two K blocks, A sub-blocks with edges
      {1, 401, 47, 1030},         // several row tasks, three K blocks
      {1, 29, 301, 257, true, false},
      {1, 29, 77, 67, false, true},
      {1, 19, 45, 90, true, true, 3},
      {3, 11, 23, 41, false, false, 2, true},
      {2, 5, 300, 600, false, true, 1, true},
  };
  for (int kernel : available_kernels())
    for (const Case &c : cases)
      for (int threads : {1, 2}) run_case(c, kernel, threads, rng);
}

TEST(Igemm, ExtremeValuesAndLongK) {
  std::mt19937 rng(11);
  for (int kernel : available_kernels()) {
    for (int fill : {1, 2, 3}) {
      run_case({1, 5, 40, 1000, false, false, 1, false, fill}, kernel, 2, rng);
      run_case({1, 2, 33, 65535, false, true, 1, false, fill}, kernel, 1, rng);
      // A stored column-major (unit row stride, the convolution's im2col columns): full panels packed
      // in k-quads by unpacks, K blocks and a K tail off the quad.
      run_case({1, 50, 40, 1030, true, false, 1, false, fill}, kernel, 2, rng);
    }
    // The largest K: |sum| = 128 * 128 * 131071 still fits in int32.
    run_case({1, 1, 3, kIgemmMaxK, false, false, 1, false, 1}, kernel, 1, rng);
    run_case({1, 3, 5, 70001, true, true, 1, false, 0}, kernel, 2, rng);
    run_case({1, 16, 40, 70001, false, false, 1, false, 1}, kernel, 1, rng);  // the 5..16-row stream
  }
}

// m <= 4: the dot-product path for B stored [N, K] and the streaming path for B stored [K, N]
// (AVX2 / VNNI / DotProd), K tails around the 16- and 64-wide steps and odd K (a single last row), column
// counts around the 2- / 4-column blocks and the 16-column groups, several column tasks.
TEST(Igemm, SmallMPaths) {
  std::mt19937 rng(5);
  for (int kernel : available_kernels())
    for (bool tb : {true, false})
      for (int64_t m : {1, 2, 3, 4})
        for (int64_t k : {1, 15, 16, 17, 63, 64, 65, 257, 1001})
          for (int64_t n : {1, 3, 6, 17, 37}) run_case({1, m, n, k, false, tb}, kernel, 1 + (k % 2), rng);
  // 5..16 rows with B [K, N]: the stream of the AVX2 / VNNI tiers (row pairs shared by every row of
  // A in a pass, short last passes, columns past the last 16), the tiles elsewhere. With B [N, K]:
  // the dot path in groups of 4 rows up to 8 rows, the tiles beyond.
  for (int kernel : available_kernels())
    for (bool tb : {false, true})
      for (int64_t m : {5, 7, 8, 12, 16})
        for (int64_t k : {1, 2, 7, 16, 17, 257, 1001})
          for (int64_t n : {1, 17, 37, 600}) run_case({1, m, n, k, false, tb}, kernel, 1 + (m % 2), rng);
  for (int kernel : available_kernels())
    run_case({3, 9, 45, 200, true, false, 2, true}, kernel, 2, rng);  // strided A, broadcast B, 9 rows
  for (int kernel : available_kernels())
    for (bool tb : {true, false}) {
      run_case({3, 2, 45, 200, true, tb, 2, true}, kernel, 2, rng);  // strided A, broadcast B
      run_case({2, 4, 600, 777, false, tb, 1, false, 1}, kernel, 2, rng);
      run_case({1, 1, 4133, 300, false, tb, 1, false, 2}, kernel, 2, rng);
      run_case({1, 3, 2100, 515, false, tb, 1, false, 0}, kernel, 1, rng);
    }
  for (bool tb : {true, false}) {
    IgemmDesc d;
    d.m = 3;
    d.n = 100;
    d.k = 64;
    d.a_row = 64;
    d.b_row = tb ? 1 : 100;
    d.b_col = tb ? 64 : 1;
    IgemmPlan p;
    ASSERT_TRUE(igemm_plan(d, &p));
    EXPECT_EQ(p.dot, p.kernel != IgemmKernel::kPortable);
    d.m = 16;
    d.a_row = 64;
    ASSERT_TRUE(igemm_plan(d, &p));
    const bool x86_simd = p.kernel == IgemmKernel::kAvx2 || p.kernel == IgemmKernel::kAvx512Vnni;
    EXPECT_EQ(p.dot, x86_simd && !tb) << "16 rows: streamed only for B [K, N] on AVX2 / VNNI";
    d.m = 3;
  }
}

TEST(Igemm, PlanRejectsBadSizes) {
  IgemmDesc d;
  d.m = d.n = 4;
  d.k = kIgemmMaxK + 1;
  IgemmPlan p;
  EXPECT_FALSE(igemm_plan(d, &p));
  d.k = 0;
  EXPECT_FALSE(igemm_plan(d, &p));
  d.k = 8;
  EXPECT_TRUE(igemm_plan(d, &p));
  EXPECT_FALSE(igemm_plan(d, &p, 1, kIgemmKernelCount));
}

TEST(Igemm, BestKernelChosen) {
  IgemmDesc d;
  d.m = d.n = d.k = 64;
  d.a_row = d.b_row = 64;
  IgemmPlan p;
  ASSERT_TRUE(igemm_plan(d, &p));
  const std::vector<int> ks = available_kernels();
  EXPECT_EQ(static_cast<int>(p.kernel), ks.back()) << igemm_kernel_name(p.kernel);
}

}  // namespace
}  // namespace opsnn::kernels

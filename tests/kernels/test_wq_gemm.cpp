// The weight-quantised paths for m > kWqSmallM: the fused path (wq_fused_*) with every engine
// kernel tier this CPU runs, and the streaming path (wq_small_m_run) where wq_stream_supported;
// INT8 / INT4, [k, n] and transposed weights, per-tensor / per-channel / per-group scales with
// offsets, ragged m / n / k, several K blocks and M blocks; against the float64 definition
// (wq_reference) with precision.md's absolute-bound variant, bit-identical for 1 and 2 threads,
// the output poisoned before and guarded after.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/half.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/wq_gemm.h"

namespace opsnn::kernels {
namespace {

struct Case {
  aclDataType wt;
  bool trans;
  int64_t m, n, k, group;  // group 0: per-channel; -1: per-tensor
  aclDataType xt;          // FLOAT16 or BF16 (x, scale, offset, y)
  bool bias;
  bool offset = true;      // antiquant offset given
};

uint16_t to16(aclDataType t, float v) { return t == ACL_FLOAT16 ? float_to_half(v) : float_to_bf16(v); }
double from16(aclDataType t, uint16_t v) { return t == ACL_FLOAT16 ? half_to_float(v) : bf16_to_float(v); }

void run_case(const Case &c, int kernel, std::mt19937 &rng) {
  SCOPED_TRACE(::testing::Message() << "kernel " << gemm_kernel_name(kernel) << " wt " << c.wt << " trans " << c.trans
                                    << " m " << c.m << " n " << c.n << " k " << c.k << " group " << c.group << " xt "
                                    << c.xt << " bias " << c.bias);
  const int64_t m = c.m, n = c.n, k = c.k;
  WqDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.w_dtype = c.wt;
  d.w_row = c.trans ? 1 : n;
  d.w_col = c.trans ? k : 1;
  d.group = c.group > 0 ? c.group : k;
  const int64_t G = wq_groups(d);
  d.s_dtype = d.o_dtype = c.xt;
  d.s_row = d.o_row = G > 1 ? n : 0;
  d.s_col = d.o_col = c.group < 0 ? 0 : 1;
  d.has_offset = c.offset;
  std::vector<uint8_t> w(static_cast<size_t>(k * n));
  for (auto &v : w) v = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> ux(-1.0f, 1.0f), us(0.002f, 0.02f), uo(-4.0f, 4.0f);
  std::vector<uint16_t> x(static_cast<size_t>(m * k)), s(static_cast<size_t>(G * n)), o(s.size()), b(n);
  for (auto &v : x) v = to16(c.xt, ux(rng));
  for (auto &v : s) v = to16(c.xt, us(rng));
  for (auto &v : o) v = to16(c.xt, uo(rng));
  for (auto &v : b) v = to16(c.xt, ux(rng));

  std::vector<double> ref(static_cast<size_t>(m * n)), mag(ref.size());
  wq_reference(d, c.xt, x.data(), k, 1, w.data(), s.data(), c.offset ? o.data() : nullptr, ref.data());
  // The magnitude sum_p |x_p * dequantised w_pj| of each element (precision.md's absolute bound).
  auto wval = [&](int64_t p, int64_t j) {
    const int64_t e = p * d.w_row + j * d.w_col;
    if (c.wt == ACL_INT8) return static_cast<double>(static_cast<int8_t>(w[static_cast<size_t>(e)]));
    const int nib = (e & 1) ? w[static_cast<size_t>(e / 2)] >> 4 : w[static_cast<size_t>(e / 2)] & 15;
    return static_cast<double>((nib ^ 8) - 8);
  };
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p) {
      const size_t si = static_cast<size_t>((p / d.group) * d.s_row + j * d.s_col);
      const double wd = std::fabs((wval(p, j) + (c.offset ? from16(c.xt, o[si]) : 0.0)) * from16(c.xt, s[si]));
      for (int64_t i = 0; i < m; ++i)
        mag[static_cast<size_t>(i * n + j)] += std::fabs(from16(c.xt, x[static_cast<size_t>(i * k + p)])) * wd;
    }

  if (kernel == -2) {  // the streaming path: fp32 results, FLOAT32's threshold
    if (!wq_stream_supported(d)) return;
    std::vector<float> s1(static_cast<size_t>(m * n + 16), std::nanf("")), s2(s1.size(), std::nanf(""));
    for (int threads : {1, 2}) {
      std::vector<uint8_t> ws(wq_small_m_workspace(d, 2) + 64);
      void *wsp = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(ws.data()) + 63) & ~uintptr_t{63});
      wq_small_m_run(d, c.xt, x.data(), k, 1, w.data(), s.data(), c.offset ? o.data() : nullptr, threads == 1 ? s1.data() : s2.data(), n,
                     wsp, wq_choose(d, false).simd, threads);
    }
    ASSERT_EQ(0, std::memcmp(s1.data(), s2.data(), s1.size() * 4)) << "1 vs 2 threads differ";
    for (size_t i = static_cast<size_t>(m * n); i < s1.size(); ++i) ASSERT_TRUE(std::isnan(s1[i])) << "write past y";
    double sum = 0, worst = 0;
    for (size_t e = 0; e < ref.size(); ++e) {
      ASSERT_FALSE(std::isnan(s1[e])) << "y[" << e << "] unwritten";
      const double rel = std::fabs(s1[e] - ref[e]) / (mag[e] + 1e-7);
      sum += rel;
      worst = std::max(worst, rel);
    }
    const double T = 1.0 / 8192;
    EXPECT_LT(sum / static_cast<double>(ref.size()), T);
    EXPECT_LT(worst, 10 * T);
    return;
  }
  WqOutput out;
  out.y_dtype = c.xt;
  out.y_row = n;
  out.bias = c.bias ? b.data() : nullptr;
  out.bias_dtype = c.xt;
  std::vector<uint16_t> y1(static_cast<size_t>(m * n + 64), 0xFFFF), y2(y1.size(), 0xFFFF);
  for (int threads : {1, 2}) {
    WqFusedPlan plan;
    ASSERT_TRUE(wq_fused_plan(d, &plan, threads, kernel));
    std::vector<uint8_t> ws(plan.workspace_bytes + 64);
    void *wsp = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(ws.data()) + 63) & ~uintptr_t{63});
    out.y = threads == 1 ? y1.data() : y2.data();
    wq_fused_run(plan, d, c.xt, x.data(), k, 1, w.data(), s.data(), c.offset ? o.data() : nullptr, out, wsp);
  }
  ASSERT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * 2)) << "1 vs 2 threads differ";
  for (size_t i = static_cast<size_t>(m * n); i < y1.size(); ++i) ASSERT_EQ(y1[i], 0xFFFF) << "write past y";
  const double T = c.xt == ACL_FLOAT16 ? 1.0 / 1024 : 1.0 / 128;
  double sum = 0, worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t e = static_cast<size_t>(i * n + j);
      const double bj = c.bias ? from16(c.xt, b[static_cast<size_t>(j)]) : 0.0;
      const double got = from16(c.xt, y1[e]);
      ASSERT_FALSE(std::isnan(got)) << "y[" << i << "," << j << "] unwritten";
      const double rel = std::fabs(got - (ref[e] + bj)) / (mag[e] + std::fabs(bj) + 1e-7);
      sum += rel;
      worst = std::max(worst, rel);
    }
  EXPECT_LT(sum / static_cast<double>(m * n), T);
  EXPECT_LT(worst, 10 * T);
}

TEST(WqFused, AllKernelsLayoutsAndModes) {
  std::mt19937 rng(11);
  for (int kernel = 0; kernel < gemm_kernel_count(); ++kernel) {
    if (!gemm_kernel_supported(kernel)) continue;
    for (aclDataType wt : {ACL_INT8, ACL_INT4})
      for (bool trans : {false, true}) {
        run_case({wt, trans, 5, 50, 96, 0, ACL_FLOAT16, true}, kernel, rng);
        run_case({wt, trans, 16, 300, 700, 64, ACL_FLOAT16, false}, kernel, rng);
        run_case({wt, trans, 9, 130, 600, -1, ACL_BF16, true}, kernel, rng);
        run_case({wt, trans, 7, 34, 1000, 128, ACL_BF16, true}, kernel, rng);
      }
  }
}

TEST(WqStream, UpToStreamMaxM) {
  std::mt19937 rng(13);
  for (aclDataType wt : {ACL_INT8, ACL_INT4})
    for (int64_t m : {1, 2, 4, 5, 8, 13, 16}) {
      run_case({wt, false, m, 300, 520, 0, ACL_FLOAT16, false}, -2, rng);
      run_case({wt, false, m, 270, 256, 32, ACL_FLOAT16, false, false}, -2, rng);  // no offset
      run_case({wt, false, m, 200, 600, 32, ACL_BF16, false}, -2, rng);
      run_case({wt, false, m, 70, 1000, 128, ACL_FLOAT16, false}, -2, rng);
      run_case({wt, false, m, 130, 256, -1, ACL_BF16, false}, -2, rng);
    }
}

// The decode case with the weight stored [n, k] (wq_stream_supported for m <= 4): small groups
// (32, the clients' size), per-channel with K not a multiple of 16 (scalar group tails),
// per-tensor, column counts that leave partial column blocks.
TEST(WqStream, TransposedWeightSmallM) {
  std::mt19937 rng(14);
  for (aclDataType wt : {ACL_INT8, ACL_INT4})
    for (int64_t m : {1, 2, 3, 4}) {
      run_case({wt, true, m, 300, 512, 32, ACL_FLOAT16, false}, -2, rng);
      run_case({wt, true, m, 77, 1000, 0, ACL_BF16, false}, -2, rng);
      run_case({wt, true, m, 130, 258, 0, ACL_FLOAT16, false}, -2, rng);
      run_case({wt, true, m, 41, 384, 128, ACL_BF16, false}, -2, rng);
      run_case({wt, true, m, 19, 96, -1, ACL_FLOAT16, false}, -2, rng);
      run_case({wt, true, m, 9, 7, 0, ACL_FLOAT16, false}, -2, rng);
      run_case({wt, true, m, 260, 256, 32, ACL_FLOAT16, false, false}, -2, rng);  // no offset
    }
}

// Operands for the non-finite tests: FLOAT16 x in [-1, 1] (the caller plants the specials), a
// random INT8 / INT4 weight [k, n] (or its transposed view), per-group-32 scales and offsets 0.5
// (w + 0.5 is never 0, so one infinite term gives +-inf).
struct NonFiniteCase {
  WqDesc d;
  std::vector<uint8_t> w;
  std::vector<uint16_t> x, s, o;
};

NonFiniteCase nonfinite_case(aclDataType wt, bool trans, int64_t m, int64_t n, int64_t k, std::mt19937 &rng) {
  NonFiniteCase c;
  c.d = WqDesc{.m = m, .n = n, .k = k, .w_dtype = wt, .w_row = trans ? 1 : n, .w_col = trans ? k : 1,
               .s_dtype = ACL_FLOAT16, .s_row = n, .s_col = 1, .has_offset = true,
               .o_dtype = ACL_FLOAT16, .o_row = n, .o_col = 1, .group = 32};
  c.w.resize(static_cast<size_t>(k * n));
  for (auto &v : c.w) v = static_cast<uint8_t>(rng());
  std::uniform_real_distribution<float> ux(-1.0f, 1.0f), us(0.002f, 0.02f);
  c.x.resize(static_cast<size_t>(m * k));
  c.s.resize(static_cast<size_t>(wq_groups(c.d) * n));
  c.o.assign(c.s.size(), float_to_half(0.5f));
  for (auto &v : c.x) v = float_to_half(ux(rng));
  for (auto &v : c.s) v = float_to_half(us(rng));
  return c;
}

// Infinite and NaN activations: the streaming path follows the definition, sum x * ((w + o) * s):
// +-inf where it gives +-inf (the factored fast formula would give inf - inf = NaN), NaN where it
// gives NaN, and rows without specials stay exact to the usual bound.
TEST(WqStream, NonFiniteActivationsFollowTheDefinition) {
  std::mt19937 rng(15);
  const float inf = std::numeric_limits<float>::infinity();
  for (aclDataType wt : {ACL_INT8, ACL_INT4})
    for (bool trans : {false, true})
      for (int64_t m : {1, 4}) {
        SCOPED_TRACE(::testing::Message() << "wt " << wt << " trans " << trans << " m " << m);
        const int64_t n = 40, k = 64;
        NonFiniteCase c = nonfinite_case(wt, trans, m, n, k, rng);
        const WqDesc &d = c.d;
        std::vector<uint8_t> &w = c.w;
        std::vector<uint16_t> &x = c.x, &s = c.s, &o = c.o;
        x[5] = float_to_half(inf);  // row 0: one +inf
        if (m == 4) {               // row 1 finite; row 2: -inf and +inf; row 3: a NaN
          x[2 * k + 3] = float_to_half(-inf);
          x[2 * k + 40] = float_to_half(inf);
          x[3 * k + 10] = float_to_half(std::nanf(""));
        }
        std::vector<double> ref(static_cast<size_t>(m * n));
        wq_reference(d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), ref.data());
        std::vector<float> y(static_cast<size_t>(m * n));
        std::vector<uint8_t> ws(wq_small_m_workspace(d, 1) + 64);
        void *wsp = ws.data() + (64 - reinterpret_cast<uintptr_t>(ws.data()) % 64) % 64;
        wq_small_m_run(d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), y.data(), n, wsp,
                       wq_choose(d, false).simd, 1);
        int64_t infinite = 0;
        for (size_t e = 0; e < ref.size(); ++e) {
          if (std::isnan(ref[e])) {
            EXPECT_TRUE(std::isnan(y[e])) << "y[" << e << "] = " << y[e] << ", definition NaN";
          } else if (std::isinf(ref[e])) {
            ++infinite;
            EXPECT_EQ(static_cast<double>(y[e]), ref[e]) << "y[" << e << "]";
          } else {
            EXPECT_NEAR(y[e], ref[e], 1e-3 * (1.0 + std::fabs(ref[e]))) << "y[" << e << "]";
          }
        }
        EXPECT_GE(infinite, n) << "row 0 is infinite in every column";
      }
}

// The fused path (larger m) multiplies x by the dequantised weight, term by term like the
// definition: +-inf activations give +-inf, +inf and -inf in one row NaN, a NaN NaN; the other rows
// keep the usual bound. Every engine kernel tier this CPU runs, INT8 / INT4, [k, n] / [n, k].
TEST(WqFused, NonFiniteActivationsFollowTheDefinition) {
  std::mt19937 rng(16);
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t m = 20, n = 40, k = 96;
  for (int kernel = 0; kernel < gemm_kernel_count(); ++kernel) {
    if (!gemm_kernel_supported(kernel)) continue;
    for (aclDataType wt : {ACL_INT8, ACL_INT4})
      for (bool trans : {false, true}) {
        SCOPED_TRACE(::testing::Message() << gemm_kernel_name(kernel) << " wt " << wt << " trans " << trans);
        NonFiniteCase c = nonfinite_case(wt, trans, m, n, k, rng);
        const WqDesc &d = c.d;
        std::vector<uint8_t> &w = c.w;
        std::vector<uint16_t> &x = c.x, &s = c.s, &o = c.o;
        x[5] = float_to_half(inf);               // row 0: one +inf
        x[7 * k + 3] = float_to_half(-inf);      // row 7: -inf and +inf
        x[7 * k + 40] = float_to_half(inf);
        x[13 * k + 10] = float_to_half(std::nanf(""));  // row 13: a NaN
        x[19 * k + 95] = float_to_half(-inf);    // row 19 (the last M tile's edge): -inf
        std::vector<double> ref(static_cast<size_t>(m * n));
        wq_reference(d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), ref.data());
        WqFusedPlan plan;
        ASSERT_TRUE(wq_fused_plan(d, &plan, 2, kernel));
        std::vector<uint8_t> ws(plan.workspace_bytes + 64);
        void *wsp = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(ws.data()) + 63) & ~uintptr_t{63});
        std::vector<uint16_t> y(static_cast<size_t>(m * n));
        WqOutput out;
        out.y = y.data();
        out.y_dtype = ACL_FLOAT16;
        out.y_row = n;
        wq_fused_run(plan, d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), out, wsp);
        int64_t infinite = 0, nans = 0;
        for (size_t e = 0; e < ref.size(); ++e) {
          const double got = half_to_float(y[e]);
          if (std::isnan(ref[e])) {
            ++nans;
            EXPECT_TRUE(std::isnan(got)) << "y[" << e << "] = " << got << ", definition NaN";
          } else if (std::isinf(ref[e])) {
            ++infinite;
            EXPECT_EQ(got, ref[e]) << "y[" << e << "]";
          } else {
            EXPECT_NEAR(got, ref[e], 2e-3 * (1.0 + std::fabs(ref[e]))) << "y[" << e << "]";
          }
        }
        // Rows 0 and 19 are infinite and row 13 NaN in every column; row 7 is NaN where its two
        // infinite terms have opposite signs (the weight's sign decides), else infinite.
        EXPECT_EQ(infinite + nans, 4 * n);
        EXPECT_GE(infinite, 2 * n);
        EXPECT_GE(nans, n);
      }
  }
}

TEST(WqFused, SeveralMBlocksAndChunks) {
  std::mt19937 rng(12);
  // m > kWqFusedMc (two M blocks), n > kWqFusedNc (several chunks per thread), k > kWqFusedKc.
  run_case({ACL_INT8, false, 130, 600, 520, 0, ACL_FLOAT16, true}, -1, rng);
  run_case({ACL_INT4, true, 101, 530, 544, 32, ACL_FLOAT16, false}, -1, rng);
}

}  // namespace
}  // namespace opsnn::kernels

// Pre-packed weights (gemm_prepack_b + registry) and the weight-quantised small-M kernels:
//  * a registered pre-packed B gives bit-identical results to the plain B, for every kernel tier,
//    every small-M order (stream, dot) and the blocked path, FLOAT / FLOAT16 / BF16 B, both layouts,
//    and 1 vs 2 threads;
//  * the weight-quantised kernels give bit-identical results for 1 and 2 threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "common/half.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/wq_gemm.h"

namespace opsnn::kernels {
namespace {

struct Buf {
  void *p = nullptr;
  explicit Buf(size_t bytes) { p = std::aligned_alloc(64, (bytes + 127) / 64 * 64); std::memset(p, 0, (bytes + 127) / 64 * 64); }
  ~Buf() { std::free(p); }
};

int64_t es(aclDataType t) { return t == ACL_FLOAT ? 4 : 2; }

void fill(aclDataType t, void *p, int64_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    const float v = dist(rng);
    if (t == ACL_FLOAT) static_cast<float *>(p)[i] = v;
    else if (t == ACL_FLOAT16) static_cast<uint16_t *>(p)[i] = float_to_half(v);
    else static_cast<uint16_t *>(p)[i] = float_to_bf16(v);
  }
}

class GemmPrepacked : public ::testing::TestWithParam<int> {};

TEST_P(GemmPrepacked, BitIdenticalToPlainB) {
  const int kernel = GetParam();
  if (!gemm_kernel_supported(kernel)) GTEST_SKIP() << gemm_kernel_name(kernel) << " not supported here";
  std::mt19937 rng(1234);
  gemm_prepacked_b_mark_in_use();
  for (aclDataType bt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16})
    for (bool trans : {false, true})
      for (int64_t m : {1, 2, 3, 4, 5, 13})
        for (int64_t n : {1, 15, 17, 40, 100})
          for (int64_t k : {1, 9, 16, 33, 300, 700, 2110}) {
            SCOPED_TRACE(::testing::Message() << gemm_kernel_name(kernel) << " b " << bt << " trans " << trans << " m "
                                              << m << " n " << n << " k " << k);
            GemmDesc d;
            d.m = m;
            d.n = n;
            d.k = k;
            d.a = {ACL_FLOAT, k, 1, 0};
            d.b = {bt, trans ? 1 : n, trans ? k : 1, 0};
            d.c = {ACL_FLOAT, n, 1, 0};
            Buf a(static_cast<size_t>(m * k * 4)), b(static_cast<size_t>(k * n * es(bt)));
            Buf packed(static_cast<size_t>(gemm_prepacked_b_elems(k, n) * es(bt)));
            fill(ACL_FLOAT, a.p, m * k, rng);
            fill(bt, b.p, k * n, rng);
            gemm_prepack_b(d.b, k, n, b.p, packed.p);
            gemm_prepacked_b_register(packed.p, k, n, bt, d.b.row_stride, d.b.col_stride);
            std::vector<float> c_plain(static_cast<size_t>(m * n)), c1(c_plain.size()), c2(c_plain.size());
            // The detected L3, and (B [N,K] with 5..16 rows) one small enough that a large-enough
            // B takes the full-K packing (GemmPlan::b_full_k) in the plain plan.
            std::vector<int64_t> l3s = {0};
            if (trans && m > 4) l3s.push_back(16 * 16 * k);
            for (int64_t l3 : l3s) {
              for (int threads : {1, 2}) {
                GemmOptions opt;
                opt.kernel = kernel;
                opt.threads = threads;
                opt.l3_bytes = l3;
                GemmPlan plan;
                ASSERT_TRUE(gemm_plan(d, &plan, opt));
                ASSERT_TRUE(plan.prepacked_alt != nullptr);
                Buf ws(plan.workspace_bytes);
                if (threads == 1) gemm_run(plan, a.p, b.p, c_plain.data(), ws.p);
                gemm_run(plan, a.p, packed.p, (threads == 1 ? c1 : c2).data(), ws.p);
              }
              SCOPED_TRACE(::testing::Message() << "l3 " << l3);
              ASSERT_EQ(0, std::memcmp(c_plain.data(), c1.data(), c1.size() * 4)) << "pre-packed != plain";
              ASSERT_EQ(0, std::memcmp(c1.data(), c2.data(), c1.size() * 4)) << "1 vs 2 threads";
            }
            gemm_prepacked_b_forget(packed.p, 1);
          }
}

INSTANTIATE_TEST_SUITE_P(AllTiers, GemmPrepacked, ::testing::Range(0, gemm_kernel_count()),
                         [](const ::testing::TestParamInfo<int> &i) { return std::string(gemm_kernel_name(i.param)); });

TEST(GemmPrepackedRegistry, ForgetAndMismatch) {
  float buf[64];
  gemm_prepacked_b_register(buf, 4, 16, ACL_FLOAT, 16, 1);
  EXPECT_TRUE(gemm_prepacked_b_registered(buf, 4, 16, ACL_FLOAT, 16, 1));
  EXPECT_FALSE(gemm_prepacked_b_registered(buf, 4, 15, ACL_FLOAT, 16, 1));
  EXPECT_FALSE(gemm_prepacked_b_registered(buf, 4, 16, ACL_FLOAT16, 16, 1));
  EXPECT_FALSE(gemm_prepacked_b_registered(buf + 1, 4, 16, ACL_FLOAT, 16, 1));
  EXPECT_FALSE(gemm_prepacked_b_registered(buf, 4, 16, ACL_FLOAT, 1, 4));  // the transposed view
  gemm_prepacked_b_forget(buf, sizeof(buf));
  EXPECT_FALSE(gemm_prepacked_b_registered(buf, 4, 16, ACL_FLOAT, 16, 1));
}

TEST(WqKernels, BitIdenticalForOneAndTwoThreads) {
  std::mt19937 rng(7);
  for (aclDataType wt : {ACL_INT8, ACL_INT4})
    for (bool trans : {false, true})
      for (int64_t m : {1, 2, 3, 4})
        for (int64_t group : {0, 32, 128}) {
          const int64_t k = 512, n = 300;
          WqDesc d;
          d.m = m;
          d.n = n;
          d.k = k;
          d.w_dtype = wt;
          d.w_row = trans ? 1 : n;
          d.w_col = trans ? k : 1;
          d.group = group > 0 ? group : k;
          const int64_t G = wq_groups(d);
          d.s_dtype = ACL_FLOAT16;
          d.s_row = G > 1 ? n : 0;
          d.s_col = 1;
          d.has_offset = true;
          d.o_dtype = ACL_FLOAT16;
          d.o_row = d.s_row;
          d.o_col = 1;
          std::vector<uint8_t> w(static_cast<size_t>(k * n));
          for (auto &v : w) v = static_cast<uint8_t>(rng());
          std::vector<uint16_t> x(static_cast<size_t>(m * k)), s(static_cast<size_t>(G * n)), o(s.size());
          fill(ACL_FLOAT16, x.data(), m * k, rng);
          fill(ACL_FLOAT16, s.data(), G * n, rng);
          fill(ACL_FLOAT16, o.data(), G * n, rng);
          Buf ws(wq_small_m_workspace(d, 2));
          std::vector<float> y1(static_cast<size_t>(m * n)), y2(y1.size());
          wq_small_m_run(d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), y1.data(), n, ws.p,
                         wq_choose(d, false).simd, 1);
          wq_small_m_run(d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), y2.data(), n, ws.p,
                         wq_choose(d, false).simd, 2);
          ASSERT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * 4)) << wt << " trans " << trans << " m " << m;
          // Against the float64 definition (absolute bound: products of magnitude <= 128 * 4 * 1).
          std::vector<double> ref(y1.size());
          wq_reference(d, ACL_FLOAT16, x.data(), k, 1, w.data(), s.data(), o.data(), ref.data());
          for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(y1[i], ref[i], 1e-4 * k) << i;
        }
}

}  // namespace
}  // namespace opsnn::kernels

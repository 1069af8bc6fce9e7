// Verbose mode (core/verbose.h) and the ordered implementation lists (core/impl_list.h): the
// phase-1 and exec lines of aclnnMm on several shapes, dtypes, OPSNN_MAX_ISA caps and
// OPSNN_KERNELS=reference, and of an element-wise op; and OPSNN_KERNELS=reference reaching the
// reference of every engine (GEMM, int8 GEMM, weight-quant GEMM, element-wise), read from the
// recorded implementation names. The lines are captured through the test hook (no stderr parsing);
// the variables are re-read through core::reset_kernel_env_for_testing.
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_quant_matmul_v3.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_weight_quant_batch_matmul_v2.h"
#include "core/cpu_features.h"
#include "core/verbose.h"
#include "kernels/elementwise/stream_copy.h"
#include "kernels/matmul/gemm.h"
#include "test_util.h"

namespace opsnn::test {
namespace {

using core::Isa;

// One verbose line: the three leading fields and the key=value ones.
struct Line {
  std::string tag, kind, api;
  std::map<std::string, std::string> kv;
};

Line parse(const std::string &s) {
  Line l;
  std::vector<std::string> f;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) f.push_back(item);
  if (f.size() >= 3) {
    l.tag = f[0];
    l.kind = f[1];
    l.api = f[2];
  }
  for (size_t i = 3; i < f.size(); ++i) {
    const size_t eq = f[i].find('=');
    l.kv[f[i].substr(0, eq)] = eq == std::string::npos ? "" : f[i].substr(eq + 1);
  }
  return l;
}

// "[a: x; b: y]" -> {"a: x", "b: y"}
std::vector<std::string> rejections(const std::string &field) {
  std::vector<std::string> out;
  if (field.size() < 2 || field.front() != '[' || field.back() != ']') {
    ADD_FAILURE() << "rejected field not bracketed: " << field;
    return out;
  }
  const std::string body = field.substr(1, field.size() - 2);
  size_t pos = 0;
  while (pos < body.size()) {
    size_t next = body.find("; ", pos);
    if (next == std::string::npos) next = body.size();
    out.push_back(body.substr(pos, next - pos));
    pos = next + 2;
  }
  return out;
}

bool has(const std::vector<std::string> &v, const std::string &x) {
  for (const auto &e : v)
    if (e == x) return true;
  return false;
}

bool isa_detected(Isa isa) {
  const Isa d = core::cpu_features().detected;
  if (isa == Isa::kNeon) return d == Isa::kNeon;
  return d != Isa::kNeon && static_cast<int>(d) >= static_cast<int>(isa);
}

// The reason a tier above the cap is rejected for: the cap when the CPU has the tier, else the CPU.
std::string isa_reason(Isa tier, const char *cap) {
  return isa_detected(tier) ? std::string("OPSNN_MAX_ISA=") + cap : std::string("CPU has no ") + core::isa_name(tier);
}

class Verbose : public ::testing::Test {
 protected:
  void SetUp() override {
    reseed_for_current_test();
    was_on_ = core::verbose_on();
    core::set_verbose_for_testing(true, &lines_);
    env(nullptr, nullptr);  // the expectations start from no cap and the fast kernels
  }
  void TearDown() override {
    core::set_verbose_for_testing(was_on_, nullptr);
    core::reset_kernel_env_for_testing(std::getenv("OPSNN_MAX_ISA"), std::getenv("OPSNN_KERNELS"));
  }
  // The environment as if OPSNN_MAX_ISA / OPSNN_KERNELS held these values (nullptr: unset).
  static void env(const char *max_isa, const char *kernels) { core::reset_kernel_env_for_testing(max_isa, kernels); }

  // Runs aclnnMm self [m, k] @ mat2 [k, n] (mat2 stored [n, k] when b_nk) and returns its two lines.
  std::pair<Line, Line> mm(int64_t m, int64_t k, int64_t n, aclDataType dt, bool b_nk = false) {
    lines_.clear();
    DeviceTensor a({m, k}, dt), out({m, n}, dt);
    DeviceTensor b({k, n}, dt, b_nk ? std::vector<int64_t>{1, k} : std::vector<int64_t>{n, 1}, 0);
    a.fill_random(-1, 1);
    b.fill_random(-1, 1);
    EXPECT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(a, b, out, 0, w, e); },
                        aclnnMm));
    auto r = two_lines("aclnnMm");
    // Once a weight was pre-packed in this process (another test of this binary), every GEMM with one
    // B matrix also plans for a pre-packed B: "|prepacked_b=<tier>/<path>" follows; compared apart.
    for (Line *l : {&r.first, &r.second}) {
      std::string &impl = l->kv["impl"];
      const size_t bar = impl.find("|prepacked_b=");
      EXPECT_EQ(bar != std::string::npos, kernels::gemm_prepacked_b_in_use()) << impl;
      if (bar != std::string::npos) impl.resize(bar);
    }
    return r;
  }

  std::pair<Line, Line> add(int64_t n) {
    lines_.clear();
    DeviceTensor a({n}, ACL_FLOAT), b({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
    a.fill_random(-1, 1);
    b.fill_random(-1, 1);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    EXPECT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnAddGetWorkspaceSize(a, b, alpha, out, w, e); },
                        aclnnAdd));
    aclDestroyScalar(alpha);
    return two_lines("aclnnAdd");
  }

  // The phase-1 line and the exec line of `api`, checking the fixed fields of both.
  std::pair<Line, Line> two_lines(const char *api) {
    std::pair<Line, Line> r;
    int phase1 = 0, exec = 0;
    for (const std::string &s : lines_) {
      Line l = parse(s);
      EXPECT_EQ(l.tag, "opsnn_verbose") << s;
      if (l.api != api) continue;
      if (l.kind == "phase1") {
        ++phase1;
        r.first = l;
        EXPECT_EQ(l.kv.size(), 6u) << s;  // impl, rejected, in, out, time_us, plan_cache
        for (const char *key : {"impl", "rejected", "in", "out", "time_us", "plan_cache"})
          EXPECT_EQ(l.kv.count(key), 1u) << key << ": " << s;
        // A table op's phase 1 goes through the plan cache (hit or miss); a hand-written one does not.
        const std::string &pc = l.kv["plan_cache"];
        EXPECT_TRUE(pc.rfind("hit;hits=", 0) == 0 || pc.rfind("miss;hits=", 0) == 0 || pc.rfind("off;hits=", 0) == 0)
            << s;
      } else if (l.kind == "exec") {
        ++exec;
        r.second = l;
        EXPECT_EQ(l.kv.size(), 2u) << s;  // impl, time_us
      } else {
        ADD_FAILURE() << "unknown line kind: " << s;
      }
    }
    EXPECT_EQ(phase1, 1) << "phase-1 lines of " << api;
    EXPECT_EQ(exec, 1) << "exec lines of " << api;
    EXPECT_EQ(r.first.kv["impl"], r.second.kv["impl"]) << "the launch runs what phase 1 chose";
    for (const Line *l : {&r.first, &r.second}) {
      char *end = nullptr;
      const std::string &t = l->kv.at("time_us");
      const double us = std::strtod(t.c_str(), &end);
      EXPECT_TRUE(end != t.c_str() && *end == '\0' && us >= 0) << "time_us=" << t;
    }
    return r;
  }

  std::vector<std::string> lines_;
  bool was_on_ = false;
};

#if defined(__x86_64__)
// The GEMM tiers above `tier`, best first.
const std::vector<std::pair<const char *, Isa>> kGemmTiers = {
    {"avx512bf16_12x32", Isa::kAvx512Bf16}, {"avx512_12x32", Isa::kAvx512}, {"avx2_6x16", Isa::kAvx2}};
#endif

TEST_F(Verbose, MmSmallMStreamsB) {
  // M = 2, B [K, N] of unit column stride: the streaming kernel, chosen first among the paths.
  auto [p, e] = mm(2, 64, 48, ACL_FLOAT);
  const std::string impl = p.kv["impl"];
  EXPECT_EQ(impl.rfind("gemm:", 0), 0u) << impl;
  EXPECT_NE(impl.find("/stream"), std::string::npos) << impl;
  for (const std::string &r : rejections(p.kv["rejected"]))
    EXPECT_EQ(r.find("stream:"), std::string::npos) << "no path was tried before the stream: " << r;
  EXPECT_EQ(p.kv["in"], "FLOAT[2x64]{64x1};FLOAT[64x48]{48x1}");
  EXPECT_EQ(p.kv["out"], "FLOAT[2x48]{48x1}");
  EXPECT_EQ(e.api, "aclnnMm");
}

TEST_F(Verbose, MmSmallMDotOverTransposedB) {
  // M = 2, B stored [N, K]: the stream is rejected for B's column stride, the dot kernel taken.
  auto [p, e] = mm(2, 64, 48, ACL_FLOAT, true);
  const std::string impl = p.kv["impl"];
  EXPECT_NE(impl.find("/dot"), std::string::npos) << impl;
  EXPECT_TRUE(has(rejections(p.kv["rejected"]), "stream: B column stride 64 != 1")) << p.kv["rejected"];
  EXPECT_EQ(p.kv["in"], "FLOAT[2x64]{64x1};FLOAT[64x48]{1x64}");
}

TEST_F(Verbose, MmSquareTakesTheTilesWithEveryRejection) {
  auto [p, e] = mm(128, 128, 128, ACL_FLOAT);
  const std::string impl = p.kv["impl"];
  const auto rej = rejections(p.kv["rejected"]);
  EXPECT_NE(impl.find("/tiles"), std::string::npos) << impl;
  for (const char *r : {"stream: M=128 > 4", "dot: M=128 > 4", "b_direct: M=128 > 16", "b_full_k: M=128 > 16"})
    EXPECT_TRUE(has(rej, r)) << r << " in " << p.kv["rejected"];
  // A (64 KiB) read in place or packed: either the variant is in the name or its rejection is listed.
  bool a_rejected = false;
  for (const auto &r : rej) a_rejected |= r.rfind("a_direct: ", 0) == 0;
  EXPECT_NE(impl.find("+a_direct") != std::string::npos, a_rejected) << impl << " " << p.kv["rejected"];
#if defined(__x86_64__)
  // FLOAT inputs: the BF16 tier is rejected whatever the CPU, every tier above the one taken too.
  const Isa best = core::cpu_features().best;
  if (best == Isa::kAvx512Bf16)
    EXPECT_TRUE(has(rej, "avx512bf16_12x32: inputs are not BF16 x BF16")) << p.kv["rejected"];
  if (best == Isa::kAvx512Bf16 || best == Isa::kAvx512) EXPECT_EQ(impl.rfind("gemm:avx512_12x32/tiles", 0), 0u) << impl;
  if (best == Isa::kAvx2) {
    EXPECT_EQ(impl.rfind("gemm:avx2_6x16/tiles", 0), 0u) << impl;
    EXPECT_TRUE(has(rej, std::string("avx512_12x32: ") + isa_reason(Isa::kAvx512, "avx2"))) << p.kv["rejected"];
  }
#endif
}

TEST_F(Verbose, MmBf16TakesThePairTilesWhereTheTierHasThem) {
  auto [p, e] = mm(33, 64, 40, ACL_BF16);
  const std::string impl = p.kv["impl"];
  const auto rej = rejections(p.kv["rejected"]);
  EXPECT_TRUE(has(rej, "stream: M=33 > 4")) << p.kv["rejected"];
  EXPECT_EQ(p.kv["in"], "BF16[33x64]{64x1};BF16[64x40]{40x1}");
#if defined(__x86_64__)
  if (core::cpu_features().best == Isa::kAvx512Bf16) {
    EXPECT_EQ(impl.rfind("gemm:avx512bf16_12x32/tiles+bf16_pairs", 0), 0u) << impl;
  } else {
    EXPECT_EQ(impl.find("bf16_pairs"), std::string::npos) << impl;
    const std::string cap = core::isa_name(core::cpu_features().best);
    EXPECT_TRUE(has(rej, "avx512bf16_12x32: " + isa_reason(Isa::kAvx512Bf16, cap.c_str()))) << p.kv["rejected"];
  }
#endif
}

#if defined(__x86_64__)
TEST_F(Verbose, MmUnderAnIsaCapNamesTheCap) {
  if (!isa_detected(Isa::kAvx2)) GTEST_SKIP() << "no AVX2";
  env("avx2", nullptr);
  auto [p, e] = mm(128, 128, 128, ACL_FLOAT);
  EXPECT_EQ(p.kv["impl"].rfind("gemm:avx2_6x16/tiles", 0), 0u) << p.kv["impl"];
  const auto rej = rejections(p.kv["rejected"]);
  EXPECT_TRUE(has(rej, "avx512bf16_12x32: " + isa_reason(Isa::kAvx512Bf16, "avx2"))) << p.kv["rejected"];
  EXPECT_TRUE(has(rej, "avx512_12x32: " + isa_reason(Isa::kAvx512, "avx2"))) << p.kv["rejected"];

  env("portable", nullptr);
  auto [q, f] = mm(2, 64, 48, ACL_FLOAT);
  EXPECT_EQ(q.kv["impl"], "gemm:portable_4x8/stream");
  const auto rq = rejections(q.kv["rejected"]);
  EXPECT_TRUE(has(rq, "avx2_6x16: OPSNN_MAX_ISA=portable")) << q.kv["rejected"];
}
#endif

TEST_F(Verbose, MmReferenceKernelsRejectEveryTier) {
  env(nullptr, "reference");
  auto [p, e] = mm(128, 128, 128, ACL_FLOAT);
  EXPECT_EQ(p.kv["impl"], "gemm:reference");
#if defined(__x86_64__)
  EXPECT_EQ(p.kv["rejected"],
            "[avx512bf16_12x32: OPSNN_KERNELS=reference; avx512_12x32: OPSNN_KERNELS=reference; "
            "avx2_6x16: OPSNN_KERNELS=reference; portable_4x8: OPSNN_KERNELS=reference]");
#elif defined(__aarch64__)
  EXPECT_EQ(p.kv["rejected"], "[neon_6x16: OPSNN_KERNELS=reference; portable_4x16: OPSNN_KERNELS=reference]");
#endif
}

TEST_F(Verbose, ElementwiseAddNamesTierAndRejections) {
  {
    auto [p, e] = add(1000);
    const std::string impl = p.kv["impl"];
    const Isa best = core::cpu_features().best;
    const std::string tier = best >= Isa::kAvx512 ? "avx512" : best >= Isa::kAvx2 ? "avx2" : "portable";
    EXPECT_EQ(impl, "elementwise:" + tier + "/Add/float");
#if defined(__x86_64__)
    if (tier == "portable") EXPECT_TRUE(has(rejections(p.kv["rejected"]), "avx2: " + isa_reason(Isa::kAvx2, "portable")));
    else if (tier == "avx2") EXPECT_EQ(p.kv["rejected"], "[avx512: " + isa_reason(Isa::kAvx512, "avx2") + "]");
    else EXPECT_EQ(p.kv["rejected"], "[]");
#endif
    EXPECT_EQ(p.kv["in"], "FLOAT[1000]{1};FLOAT[1000]{1}");
    EXPECT_EQ(p.kv["out"], "FLOAT[1000]{1}");
  }
#if defined(__x86_64__)
  if (isa_detected(Isa::kAvx2)) {
    env("avx2", nullptr);
    auto [p, e] = add(100);
    EXPECT_EQ(p.kv["impl"], "elementwise:avx2/Add/float");
    EXPECT_EQ(p.kv["rejected"], "[avx512: " + isa_reason(Isa::kAvx512, "avx2") + "]");
  }
  env(nullptr, "reference");
  auto [p, e] = add(100);
  EXPECT_EQ(p.kv["impl"], "elementwise:portable/Add/float");
  EXPECT_EQ(p.kv["rejected"], "[avx512: OPSNN_KERNELS=reference; avx2: OPSNN_KERNELS=reference]");
#endif
}

// OPSNN_KERNELS=reference reaches the last entry of every engine's list.
TEST_F(Verbose, ReferenceKernelsReachEveryEngine) {
  env(nullptr, "reference");
  EXPECT_EQ(mm(8, 32, 16, ACL_FLOAT).first.kv["impl"], "gemm:reference");
  EXPECT_EQ(add(64).first.kv["impl"], "elementwise:portable/Add/float");

  {  // int8 GEMM: the portable tiles (its reference; no small-M kernels there)
    lines_.clear();
    DeviceTensor x1({4, 64}, ACL_INT8), x2({64, 32}, ACL_INT8), scale({32}, ACL_FLOAT), out({4, 32}, ACL_FLOAT16);
    x1.fill_random(-5, 5);
    x2.fill_random(-5, 5);
    scale.fill_random(0.01, 0.02);
    EXPECT_EQ(0, run_op(
                     [&](uint64_t *w, aclOpExecutor **e) {
                       return aclnnQuantMatmulV3GetWorkspaceSize(x1, x2, scale, nullptr, nullptr, false, false, out, w, e);
                     },
                     aclnnQuantMatmulV3));
    auto [p, e] = two_lines("aclnnQuantMatmulV3");
    EXPECT_EQ(p.kv["impl"], "igemm:portable_4x8/tiles");
    const auto rej = rejections(p.kv["rejected"]);
#if defined(__x86_64__)
    EXPECT_TRUE(has(rej, "avx512vnni_12x32: OPSNN_KERNELS=reference")) << p.kv["rejected"];
    EXPECT_TRUE(has(rej, "avx2_6x16: OPSNN_KERNELS=reference")) << p.kv["rejected"];
#endif
    EXPECT_TRUE(has(rej, "dot: no dot kernel on portable_4x8")) << p.kv["rejected"];
  }
  {  // weight-quant GEMM: dequantise the weight, then the GEMM engine's reference
    lines_.clear();
    DeviceTensor x({2, 64}, ACL_FLOAT16), w({64, 32}, ACL_INT8), s({32}, ACL_FLOAT16), y({2, 32}, ACL_FLOAT16);
    x.fill_random(-1, 1);
    w.fill_random(-8, 8);
    s.fill_random(0.01, 0.02);
    EXPECT_EQ(0, run_op(
                     [&](uint64_t *ws, aclOpExecutor **e) {
                       return aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x, w, s, nullptr, nullptr, nullptr, nullptr,
                                                                            0, y, ws, e);
                     },
                     aclnnWeightQuantBatchMatmulV2));
    auto [p, e] = two_lines("aclnnWeightQuantBatchMatmulV2");
    EXPECT_EQ(p.kv["impl"], "wq:dequant_gemm/portable;gemm:reference");
    const auto rej = rejections(p.kv["rejected"]);
    EXPECT_TRUE(has(rej, "stream: OPSNN_KERNELS=reference")) << p.kv["rejected"];
    EXPECT_TRUE(has(rej, "fused: OPSNN_KERNELS=reference")) << p.kv["rejected"];
  }
}

// Without the cap and the reference, the weight-quant GEMM streams a decode-sized x, fuses a larger one.
TEST_F(Verbose, WeightQuantPathsAreReported) {
  for (int64_t m : {2, 40}) {
    lines_.clear();
    DeviceTensor x({m, 64}, ACL_FLOAT16), w({64, 32}, ACL_INT8), s({32}, ACL_FLOAT16), y({m, 32}, ACL_FLOAT16);
    x.fill_random(-1, 1);
    w.fill_random(-8, 8);
    s.fill_random(0.01, 0.02);
    EXPECT_EQ(0, run_op(
                     [&](uint64_t *ws, aclOpExecutor **e) {
                       return aclnnWeightQuantBatchMatmulV2GetWorkspaceSize(x, w, s, nullptr, nullptr, nullptr, nullptr,
                                                                            0, y, ws, e);
                     },
                     aclnnWeightQuantBatchMatmulV2));
    auto [p, e] = two_lines("aclnnWeightQuantBatchMatmulV2");
    const std::string impl = p.kv["impl"];
    if (m == 2) {
      EXPECT_EQ(impl.rfind("wq:stream/", 0), 0u) << impl;
    } else {
      EXPECT_EQ(impl.rfind("wq:fused/", 0), 0u) << impl;
      EXPECT_TRUE(has(rejections(p.kv["rejected"]), "stream: M=40 > 16")) << p.kv["rejected"];
    }
  }
}

// Once anything was pre-packed, a GEMM over one B matrix carries a plan for a pre-packed B too
// (gemm_run takes it when B's address is registered): the line names both.
TEST_F(Verbose, MmNamesThePrepackedAlternative) {
  kernels::gemm_prepacked_b_mark_in_use();
  auto [p, e] = mm(2, 64, 48, ACL_FLOAT);  // checks the suffix and strips it
  EXPECT_NE(p.kv["impl"].find("/stream"), std::string::npos) << p.kv["impl"];
  lines_.clear();
  DeviceTensor a({2, 64}, ACL_FLOAT), b({64, 48}, ACL_FLOAT), out({2, 48}, ACL_FLOAT);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  ASSERT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **ex) { return aclnnMmGetWorkspaceSize(a, b, out, 0, w, ex); },
                      aclnnMm));
  const std::string impl = two_lines("aclnnMm").first.kv["impl"];
  const size_t bar = impl.find("|prepacked_b=");
  ASSERT_NE(bar, std::string::npos) << impl;
  // Small M: the pre-packed plan follows the plain plan's order over the panels, on the same tier.
  const std::string tier = impl.substr(5, impl.find('/') - 5);
  EXPECT_EQ(impl.substr(bar), "|prepacked_b=" + tier + "/panel_stream") << impl;
}

// The reduction engine's two modes: column (the input's fastest dim is kept) and row, whose line
// names why column mode was not taken; a long reduction into one value is split into blocks.
TEST_F(Verbose, ReduceSumNamesItsModeAndBlocks) {
  auto reduce = [&](std::vector<int64_t> shape, std::vector<int64_t> dims, std::vector<int64_t> out_shape,
                    aclDataType dt = ACL_FLOAT) {
    lines_.clear();
    DeviceTensor x(shape, dt), out(out_shape, dt);
    x.fill_random(-1, 1);
    aclIntArray *d = aclCreateIntArray(dims.data(), dims.size());
    EXPECT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **e) {
                 return aclnnReduceSumGetWorkspaceSize(x, d, false, dt, out, w, e);
               }, aclnnReduceSum));
    aclDestroyIntArray(d);
    return two_lines("aclnnReduceSum");
  };
  const std::string tier = isa_detected(Isa::kAvx512) ? "avx512" : isa_detected(Isa::kAvx2) ? "avx2" : "portable";
  auto [p0, e0] = reduce({64, 33}, {0}, {33});
  EXPECT_EQ(p0.kv["impl"], "reduce:" + tier + "/wide_column/sum/double/blocks=1");
  for (const std::string &r : rejections(p0.kv["rejected"]))  // only tiers this CPU lacks, if any
    EXPECT_EQ(r.find("column:"), std::string::npos) << r;
  EXPECT_EQ(e0.kv["impl"], p0.kv["impl"]);
  auto [pd, ed] = reduce({64, 33}, {0}, {33}, ACL_DOUBLE);  // DOUBLE rows: the narrow column tile
  EXPECT_EQ(pd.kv["impl"], "reduce:" + tier + "/column/sum/double/blocks=1");
  EXPECT_TRUE(has(rejections(pd.kv["rejected"]),
                  "wide_column: not unit-stride FLOAT rows of a sum / mean / extremum / arg-extremum along a kept dim"))
      << pd.kv["rejected"];
  auto [pw, ew] = reduce({4096, 4096}, {0}, {4096});  // 16M elements: 8 fixed blocks of 512 rows
  EXPECT_EQ(pw.kv["impl"], "reduce:" + tier + "/wide_column/sum/double/blocks=8");
  auto [p1, e1] = reduce({64, 33}, {1}, {64});
  EXPECT_EQ(p1.kv["impl"], "reduce:" + tier + "/row/sum/double/blocks=1");
  EXPECT_TRUE(has(rejections(p1.kv["rejected"]), "column: the input's fastest dim is reduced")) << p1.kv["rejected"];
  auto [p2, e2] = reduce({100000}, {}, {});
  EXPECT_EQ(p2.kv["impl"], "reduce:" + tier + "/row/sum/double/blocks=4");
}

// The permutes of rows (an innermost dim contiguous on both sides): streamed when the output
// outgrows the cache and the rows are whole 64-byte lines, else plain stores with the reason.
TEST_F(Verbose, PermuteOfRowsNamesItsStores) {
  auto permute = [&](std::vector<int64_t> shape) {
    lines_.clear();
    const std::vector<int64_t> dims = {0, 2, 1, 3};
    DeviceTensor x(shape, ACL_FLOAT), out({shape[0], shape[2], shape[1], shape[3]}, ACL_FLOAT);
    aclIntArray *d = aclCreateIntArray(dims.data(), dims.size());
    EXPECT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnPermuteGetWorkspaceSize(x, d, out, w, e); },
                        aclnnPermute));
    aclDestroyIntArray(d);
    return two_lines("aclnnPermute").first;
  };
  Line small = permute({2, 8, 4, 64});
  EXPECT_EQ(small.kv["impl"], "layout:tiles/rows");
  const std::string fits = "streamed: the output fits the cache (or the CPU has no streaming stores)";
  EXPECT_TRUE(has(rejections(small.kv["rejected"]), fits)) << small.kv["rejected"];
  // 17.8 and 20 MB: above the streaming threshold (at most 16 MiB) where the CPU has streaming stores.
  const bool streams = kernels::copy_streams(4 * 512 * 34 * 64 * 4);
  EXPECT_EQ(permute({4, 512, 34, 64}).kv["impl"], streams ? "layout:tiles/rows-streamed" : "layout:tiles/rows");
  Line odd = permute({4, 512, 34, 72});  // rows of 288 bytes
  EXPECT_EQ(odd.kv["impl"], "layout:tiles/rows");
  EXPECT_TRUE(has(rejections(odd.kv["rejected"]), streams ? "streamed: rows are not whole 64-byte lines" : fits))
      << odd.kv["rejected"];
}

TEST_F(Verbose, SoftmaxNamesTheDimwiseEngine) {
  lines_.clear();
  DeviceTensor x({3, 17}, ACL_FLOAT16), out({3, 17}, ACL_FLOAT16);
  x.fill_random(-1, 1);
  ASSERT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnSoftmaxGetWorkspaceSize(x, 1, out, w, e); },
                      aclnnSoftmax));
  auto [p, e] = two_lines("aclnnSoftmax");
  // The best tier this CPU has (the tiers' rejections are covered by the element-wise tests' pattern).
  const std::string tier = isa_detected(Isa::kAvx512) ? "avx512" : isa_detected(Isa::kAvx2) ? "avx2" : "portable";
  EXPECT_EQ(p.kv["impl"].rfind("dimwise:" + tier + "/softmax/float/tasks=", 0), 0u) << p.kv["impl"];
  EXPECT_EQ(p.kv["in"], "FLOAT16[3x17]{17x1}");
}

TEST_F(Verbose, OffPrintsNothing) {
  core::set_verbose_for_testing(false, &lines_);
  DeviceTensor a({4, 8}, ACL_FLOAT), b({8, 4}, ACL_FLOAT), out({4, 4}, ACL_FLOAT);
  a.fill_random(-1, 1);
  b.fill_random(-1, 1);
  ASSERT_EQ(0, run_op([&](uint64_t *w, aclOpExecutor **e) { return aclnnMmGetWorkspaceSize(a, b, out, 0, w, e); },
                      aclnnMm));
  EXPECT_TRUE(lines_.empty()) << lines_.front();
}

}  // namespace
}  // namespace opsnn::test

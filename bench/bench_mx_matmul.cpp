// The block-scaled / emulated matmuls of src/ops/matmul/mx_matmul.ops at m = 128, k = n = 2048 through the
// public API: phase 2 + synchronize on a repeatable executor (phase 1 outside the timing). The rate counts
// 2 m n k flops per product (EmuSplit: two products). x2 / wHigh given as [n, k] (transposeX2) or [k, n] ND;
// random finite codes, E8M0 scales 1.0 (code 127), level-0 scales 1.0. OPSNN_NUM_THREADS=1: one thread.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_dual_level_quant_matmul_nz.h"
#include "aclnnop/aclnn_matmul_emu_split_weight.h"
#include "aclnnop/aclnn_quant_matmul_activation_quant_weight_nz.h"
#include "bench_env.h"
#include "bench_timed_executor.h"

namespace {

using opsnn::bench::contiguous_tensor;

constexpr int64_t kM = 128, kK = 2048, kN = 2048;

// A device buffer of `bytes` filled by fill(random, i) for byte i, and its tensor.
struct Buffer {
  void *p = nullptr;
  aclTensor *t = nullptr;
  Buffer(const std::vector<int64_t> &shape, aclDataType dt, int64_t bytes, uint8_t (*fill)(uint32_t, size_t)) {
    aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<uint8_t> h(static_cast<size_t>(bytes));
    uint32_t s = 12345;
    for (size_t i = 0; i < h.size(); ++i) h[i] = fill(s = s * 1664525u + 1013904223u, i);
    aclrtMemcpy(p, bytes, h.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    t = contiguous_tensor(shape, dt, p);
  }
  ~Buffer() {
    aclDestroyTensor(t);
    aclrtFree(p);
  }
};

uint8_t fp8_code(uint32_t s, size_t) { return static_cast<uint8_t>((s >> 16) & 0xB7); }  // exponent <= 6: no NaN
uint8_t any_byte(uint32_t s, size_t) { return static_cast<uint8_t>(s >> 16); }
uint8_t scale_one(uint32_t, size_t) { return 127; }
uint8_t float_one(uint32_t, size_t i) { return i % 4 == 2 ? 0x80 : i % 4 == 3 ? 0x3F : 0; }  // 1.0f, little-endian
// BF16 of magnitude in [2^-7, 1): high byte 0x3C..0x3F or 0xBC..0xBF, low byte random
uint8_t bf16_small(uint32_t s, size_t i) {
  return i % 2 ? static_cast<uint8_t>(0x3C + ((s >> 9) & 3) + ((s >> 20) & 0x80)) : static_cast<uint8_t>(s >> 16);
}

void ActQuantFp8(benchmark::State &state) {
  const int64_t pairs = kK / 64;
  Buffer x1({kM, kK}, ACL_FLOAT8_E4M3FN, kM * kK, fp8_code), x2({kN, kK}, ACL_FLOAT8_E4M3FN, kN * kK, fp8_code),
      s1({kM, pairs, 2}, ACL_FLOAT8_E8M0, kM * pairs * 2, scale_one),
      s2({kN, pairs, 2}, ACL_FLOAT8_E8M0, kN * pairs * 2, scale_one), y({kM, kN}, ACL_FLOAT8_E4M3FN, kM * kN, any_byte),
      ys({kM, kN / 64, 2}, ACL_FLOAT8_E8M0, kM * kN / 32, any_byte);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int status = aclnnQuantMatmulActivationQuantWeightNzGetWorkspaceSize(
      x1.t, x2.t, s1.t, s2.t, nullptr, false, true, 0, "gelu_tanh", "mx", "rint", 0, 0.0, y.t, ys.t, &ws, &ex);
  opsnn::bench::time_executor(state, status, ws, ex, aclnnQuantMatmulActivationQuantWeightNz);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * kM * kN * kK * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(ActQuantFp8)->Unit(benchmark::kMillisecond)->UseRealTime();

void DualLevelFp4(benchmark::State &state) {
  const int64_t pairs = kK / 64, groups = kK / 512;
  Buffer x1({kM, kK}, ACL_FLOAT4_E2M1, kM * kK / 2, any_byte), x2({kN, kK}, ACL_FLOAT4_E2M1, kN * kK / 2, any_byte),
      l1({kM, groups}, ACL_FLOAT, kM * groups * 4, float_one), l2({groups, kN}, ACL_FLOAT, groups * kN * 4, float_one),
      s1({kM, pairs, 2}, ACL_FLOAT8_E8M0, kM * pairs * 2, scale_one),
      s2({kN, pairs, 2}, ACL_FLOAT8_E8M0, kN * pairs * 2, scale_one), out({kM, kN}, ACL_BF16, kM * kN * 2, any_byte);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int status = aclnnDualLevelQuantMatmulWeightNzGetWorkspaceSize(x1.t, x2.t, l1.t, l2.t, s1.t, s2.t, nullptr,
                                                                      false, true, 512, 32, out.t, &ws, &ex);
  opsnn::bench::time_executor(state, status, ws, ex, aclnnDualLevelQuantMatmulWeightNz);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * kM * kN * kK * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(DualLevelFp4)->Unit(benchmark::kMillisecond)->UseRealTime();

void EmuSplitBf16(benchmark::State &state) {
  Buffer x({kM, kK}, ACL_BF16, kM * kK * 2, bf16_small), wh({kK, kN}, ACL_BF16, kK * kN * 2, bf16_small),
      wl({kK, kN}, ACL_BF16, kK * kN * 2, bf16_small), y({kM, kN}, ACL_FLOAT, kM * kN * 4, any_byte);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int status = aclnnMatmulEmuSplitWeightGetWorkspaceSize(x.t, wh.t, wl.t, y.t, 0.00390625f, 0, &ws, &ex);
  opsnn::bench::time_executor(state, status, ws, ex, aclnnMatmulEmuSplitWeight);
  state.counters["GFLOP/s"] = benchmark::Counter(4.0 * kM * kN * kK * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(EmuSplitBf16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// aclnnEinsum on typical contractions (phase 2 + synchronize on a repeatable executor; phase 1 outside the
// timing); bench/compare_einsum.sh adds torch.einsum on the same shapes (compare_einsum_torch.py).
//   Bmm: "bij,bjk->bik", b = 16, 256 x 256 x 256 (operands and output read / written in place by one GEMM);
//   AttnScores: "bhqd,bhkd->bhqk", [2, 8, 256, 64] x [2, 8, 256, 64] (k transposed in place);
//   PermutedOut: "ijk,jl->ilk", [64, 128, 64] x [128, 256] (the product lands in scratch, then one permuting copy);
//   Bilinear: "bn,anm,bm->ba", b = 256, a = 64, n = m = 64 (three operands: two GEMMs);
//   TraceSum: "bii->b", [64, 256, 256] (one operand: a reduction over the diagonal view).
// Counter: GFLOP/s of the contraction's multiply-adds (2 per term).
#include <benchmark/benchmark.h>

#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_einsum.h"
#include "bench_env.h"
#include "bench_timed_executor.h"

namespace {

using opsnn::bench::contiguous_tensor;
using opsnn::bench::env;

void einsum(benchmark::State &state, const char *eq, const std::vector<std::vector<int64_t>> &shapes,
            const std::vector<int64_t> &out_shape, double flops) {
  std::vector<void *> bufs;
  std::vector<aclTensor *> ts;
  for (const auto &s : shapes) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    void *p = nullptr;
    aclrtMalloc(&p, static_cast<size_t>(n) * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<float> h(static_cast<size_t>(n));
    for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<float>((i * 2654435761u) % 1000) / 500.0f - 1.0f;
    aclrtMemcpy(p, h.size() * 4, h.data(), h.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    bufs.push_back(p);
    ts.push_back(contiguous_tensor(s, ACL_FLOAT, p));
  }
  int64_t on = 1;
  for (int64_t d : out_shape) on *= d;
  void *op = nullptr;
  aclrtMalloc(&op, static_cast<size_t>(on) * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclTensor *out = contiguous_tensor(out_shape, ACL_FLOAT, op);
  aclTensorList *list = aclCreateTensorList(ts.data(), ts.size());
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int st = aclnnEinsumGetWorkspaceSize(list, eq, out, &ws, &ex);
  opsnn::bench::time_executor(state, st, ws, ex, aclnnEinsum);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  aclDestroyTensorList(list);
  aclDestroyTensor(out);
  for (void *p : bufs) aclrtFree(p);
  aclrtFree(op);
}

void Bmm(benchmark::State &s) { einsum(s, "bij,bjk->bik", {{16, 256, 256}, {16, 256, 256}}, {16, 256, 256}, 2.0 * 16 * 256 * 256 * 256); }
void AttnScores(benchmark::State &s) {
  einsum(s, "bhqd,bhkd->bhqk", {{2, 8, 256, 64}, {2, 8, 256, 64}}, {2, 8, 256, 256}, 2.0 * 16 * 256 * 256 * 64);
}
void PermutedOut(benchmark::State &s) {
  einsum(s, "ijk,jl->ilk", {{64, 128, 64}, {128, 256}}, {64, 256, 64}, 2.0 * 64 * 128 * 64 * 256);
}
void Bilinear(benchmark::State &s) {
  einsum(s, "bn,anm,bm->ba", {{256, 64}, {64, 64, 64}, {256, 64}}, {256, 64}, 2.0 * 256 * 64 * 64 * 64);
}
void TraceSum(benchmark::State &s) { einsum(s, "bii->b", {{64, 256, 256}}, {64}, 64.0 * 256); }

}  // namespace

BENCHMARK(Bmm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(AttnScores)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(PermutedOut)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Bilinear)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(TraceSum)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

BENCHMARK_MAIN();

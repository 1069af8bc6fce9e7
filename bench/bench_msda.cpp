// Multi-scale deformable attention forward and gradient (phase 2 + synchronize on a repeatable executor; phase 1
// outside the timing) on a Deformable DETR encoder layer scaled down: bs 1, four levels 64x64, 32x32, 16x16, 8x8
// (5440 keys, every key a query), 8 heads, 32 channels, 4 points, FLOAT; bench/compare_einsum.sh adds PyTorch's
// composite (grid_sample per level, weighted sum; its gradient by autograd).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "aclnnop/aclnn_multi_scale_deformable_attn_function.h"
#include "bench_env.h"
#include "bench_timed_executor.h"

namespace {

using opsnn::bench::contiguous_tensor;
using opsnn::bench::env;

constexpr int64_t kHeads = 8, kC = 32, kLevels = 4, kPoints = 4;
constexpr int64_t kSide[kLevels] = {64, 32, 16, 8};

aclTensor *upload(const std::vector<int64_t> &shape, aclDataType dt, const void *host, size_t bytes,
                  std::vector<void *> &bufs) {
  void *p = nullptr;
  aclrtMalloc(&p, bytes + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(p, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  bufs.push_back(p);
  return contiguous_tensor(shape, dt, p);
}

aclTensor *floats(const std::vector<int64_t> &shape, std::vector<void *> &bufs, float lo, float hi) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> h(static_cast<size_t>(n));
  for (size_t i = 0; i < h.size(); ++i) h[i] = lo + (hi - lo) * static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
  return upload(shape, ACL_FLOAT, h.data(), h.size() * 4, bufs);
}

void run(benchmark::State &state, bool grad) {
  std::vector<void *> bufs;
  std::vector<int64_t> hw, start;
  int64_t keys = 0;
  for (int64_t s : kSide) {
    hw.insert(hw.end(), {s, s});
    start.push_back(keys);
    keys += s * s;
  }
  const int64_t nq = keys;
  std::vector<aclTensor *> ts = {
      floats({1, keys, kHeads, kC}, bufs, -1, 1),
      upload({kLevels, 2}, ACL_INT64, hw.data(), hw.size() * 8, bufs),
      upload({kLevels}, ACL_INT64, start.data(), start.size() * 8, bufs),
      floats({1, nq, kHeads, kLevels, kPoints, 2}, bufs, 0, 1),
      floats({1, nq, kHeads, kLevels, kPoints}, bufs, 0, 0.1f)};
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  int st = 0;
  if (!grad) {
    ts.push_back(floats({1, nq, kHeads * kC}, bufs, 0, 0));
    st = aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], &ws, &ex);
  } else {
    ts.push_back(floats({1, nq, kHeads * kC}, bufs, -1, 1));
    ts.push_back(floats({1, keys, kHeads, kC}, bufs, 0, 0));
    ts.push_back(floats({1, nq, kHeads, kLevels, kPoints, 2}, bufs, 0, 0));
    ts.push_back(floats({1, nq, kHeads, kLevels, kPoints}, bufs, 0, 0));
    st = aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], ts[6], ts[7],
                                                                ts[8], &ws, &ex);
  }
  opsnn::bench::time_executor(state, st, ws, ex, grad ? aclnnMultiScaleDeformableAttentionGrad
                                                     : aclnnMultiScaleDeformableAttnFunction);
  for (aclTensor *t : ts) aclDestroyTensor(t);
  for (void *p : bufs) aclrtFree(p);
}

void MsdaForward(benchmark::State &s) { run(s, false); }
void MsdaGrad(benchmark::State &s) { run(s, true); }

}  // namespace

BENCHMARK(MsdaForward)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(MsdaGrad)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

BENCHMARK_MAIN();

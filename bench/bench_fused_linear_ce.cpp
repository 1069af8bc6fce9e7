// The fused linear cross-entropy pieces (phase 2 + synchronize on a repeatable executor; phase 1 outside the
// timing); bench/compare_einsum.sh adds the unfused PyTorch sequences (compare_einsum_torch.py).
//   OnlineMaxSumBf16: aclnnFusedLinearOnlineMaxSum, input [512, 1024] and weight [4096, 1024] BF16, the shard
//     [4096, 8192) of a 16384-class vocabulary, INT64 targets, no logits output;
//   LinearCeGradSoftmaxBf16: aclnnFusedLinearCrossEntropyLossGrad on the same shapes with the softmax given.
// Counter: GFLOP/s of the GEMMs (2 BT H V each).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fused_linear_cross_entropy_loss_grad.h"
#include "aclnnop/aclnn_fused_linear_online_max_sum.h"
#include "bench_env.h"
#include "bench_timed_executor.h"
#include "common/half.h"

namespace {

using opsnn::bench::contiguous_tensor;
using opsnn::bench::env;

constexpr int64_t kBt = 512, kH = 1024, kV = 4096, kStart = 4096;

// A device tensor of `shape` filled from `fill(i)`, in `dt`.
template <class F>
aclTensor *filled(const std::vector<int64_t> &shape, aclDataType dt, F fill, std::vector<void *> &bufs) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const size_t es = aclDataTypeSize(dt);
  std::vector<unsigned char> h(static_cast<size_t>(n) * es);
  for (int64_t i = 0; i < n; ++i) {
    const double v = fill(i);
    if (dt == ACL_BF16) {
      const uint16_t b = opsnn::float_to_bf16(static_cast<float>(v));
      std::memcpy(&h[static_cast<size_t>(i) * 2], &b, 2);
    } else if (dt == ACL_FLOAT) {
      const float f = static_cast<float>(v);
      std::memcpy(&h[static_cast<size_t>(i) * 4], &f, 4);
    } else if (dt == ACL_INT64) {
      const int64_t k = static_cast<int64_t>(v);
      std::memcpy(&h[static_cast<size_t>(i) * 8], &k, 8);
    } else {
      h[static_cast<size_t>(i) * es] = static_cast<unsigned char>(v);
    }
  }
  void *p = nullptr;
  aclrtMalloc(&p, h.size() + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(p, h.size(), h.data(), h.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  bufs.push_back(p);
  return contiguous_tensor(shape, dt, p);
}

double uniform(int64_t i) { return static_cast<double>((static_cast<uint64_t>(i) * 2654435761u) % 1000) / 500.0 - 1.0; }

void run(benchmark::State &state, bool grad) {
  std::vector<void *> bufs;
  std::vector<aclTensor *> ts;
  auto t = [&](aclTensor *x) { return ts.push_back(x), x; };
  aclTensor *x = t(filled({kBt, kH}, ACL_BF16, uniform, bufs)), *w = t(filled({kV, kH}, ACL_BF16, uniform, bufs));
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  int st = 0;
  if (!grad) {
    aclTensor *target = t(filled({kBt}, ACL_INT64, [](int64_t i) { return double((i * 7919) % (4 * kV)); }, bufs));
    auto f32 = [&](std::vector<int64_t> s) { return t(filled(s, ACL_FLOAT, [](int64_t) { return 0.0; }, bufs)); };
    aclTensor *mx = f32({kBt}), *se = f32({kBt}), *pr = f32({kBt});
    aclTensor *mask = t(filled({(kBt + 7) / 8}, ACL_UINT8, [](int64_t) { return 0.0; }, bufs));
    aclTensor *mt = t(filled({kBt}, ACL_INT64, [](int64_t) { return 0.0; }, bufs));
    st = aclnnFusedLinearOnlineMaxSumGetWorkspaceSize(x, w, target, kStart, kStart + kV, mx, se, pr, mask, mt, nullptr,
                                                       &ws, &ex);
  } else {
    aclTensor *g = t(filled({kBt}, ACL_FLOAT, uniform, bufs));
    aclTensor *mask = t(filled({(kBt + 7) / 8}, ACL_UINT8, [](int64_t i) { return double((i * 37) % 256); }, bufs));
    aclTensor *mt = t(filled({kBt}, ACL_INT64, [](int64_t i) { return double((i * 7919) % kV); }, bufs));
    aclTensor *sm = t(filled({kBt, kV}, ACL_FLOAT, [](int64_t) { return 1.0 / kV; }, bufs));
    aclTensor *dx = t(filled({kBt, kH}, ACL_BF16, [](int64_t) { return 0.0; }, bufs));
    aclTensor *dw = t(filled({kV, kH}, ACL_BF16, [](int64_t) { return 0.0; }, bufs));
    st = aclnnFusedLinearCrossEntropyLossGradGetWorkspaceSize(g, x, w, mask, mt, 0.0f, nullptr, nullptr, sm, dx, dw,
                                                               &ws, &ex);
  }
  opsnn::bench::time_executor(state, st, ws, ex, grad ? aclnnFusedLinearCrossEntropyLossGrad
                                                     : aclnnFusedLinearOnlineMaxSum);
  state.counters["GFLOP/s"] = benchmark::Counter((grad ? 4.0 : 2.0) * kBt * kH * kV * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  for (aclTensor *x_ : ts) aclDestroyTensor(x_);
  for (void *p : bufs) aclrtFree(p);
}

void OnlineMaxSumBf16(benchmark::State &s) { run(s, false); }
void LinearCeGradSoftmaxBf16(benchmark::State &s) { run(s, true); }

}  // namespace

BENCHMARK(OnlineMaxSumBf16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(LinearCeGradSoftmaxBf16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

BENCHMARK_MAIN();

// The list optimisers' step: aclnnFusedAdamw and aclnnFusedSgd (momentum 0.9, nesterov off) over 8 FLOAT
// parameters of 1M elements each (repeatable executor, launch + synchronise per iteration). The PyTorch peer
// (torch.optim.AdamW / SGD step, foreach=True, same sizes and threads) is bench/compare_optim_torch.py:
//   OPSNN_NUM_THREADS=2 build/bench/bench_optim; /usr/bin/python3 bench/compare_optim_torch.py
#include <benchmark/benchmark.h>

#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fused_adamw.h"
#include "aclnnop/aclnn_fused_sgd.h"
#include "bench_env.h"

namespace {

constexpr int kParams = 8;
constexpr int64_t kElems = 1 << 20;

// kParams FLOAT tensors of kElems elements (grads 0.01, the rest 0), as a list.
struct FloatList {
  std::vector<void *> ptrs;
  aclTensorList *list = nullptr;
  explicit FloatList(float fill, int64_t n = kElems) {
    std::vector<aclTensor *> ts;
    std::vector<float> host(static_cast<size_t>(n), fill);
    for (int i = 0; i < kParams; ++i) {
      void *p = nullptr;
      aclrtMalloc(&p, n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtMemcpy(p, n * 4, host.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
      ptrs.push_back(p);
      ts.push_back(aclCreateTensor(&n, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &n, 1, p));
    }
    list = aclCreateTensorList(ts.data(), ts.size());
  }
  ~FloatList() {
    aclDestroyTensorList(list);
    for (void *p : ptrs) aclrtFree(p);
  }
};

template <class Phase1, class Launch>
void run(benchmark::State &state, Phase1 &&phase1, Launch launch) {
  aclrtStream s = opsnn::bench::env().stream;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (phase1(&ws, &ex) != 0) {
    state.SkipWithError("phase 1 failed");
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  for (auto _ : state) {
    launch(w, ws, ex, s);
    aclrtSynchronizeStream(s);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
  aclDestroyAclOpExecutor(ex);
  if (w != nullptr) aclrtFree(w);
}

void FusedAdamw(benchmark::State &state) {
  opsnn::bench::env();
  FloatList p(0.5f), g(0.01f), m(0.f), v(0.f), steps(3.f, 1);
  run(state, [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnFusedAdamwGetWorkspaceSize(p.list, g.list, m.list, v.list, nullptr, steps.list, nullptr, nullptr,
                                               1e-3, 0.9, 0.999, 0.01, 1e-8, false, false, ws, ex);
      }, aclnnFusedAdamw);
}
BENCHMARK(FusedAdamw)->Arg(int64_t{kParams} * kElems * 4 * 7)->Unit(benchmark::kMillisecond)->UseRealTime();

void FusedSgd(benchmark::State &state) {
  opsnn::bench::env();
  FloatList p(0.5f), g(0.01f), buf(0.f);
  run(state, [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnFusedSgdGetWorkspaceSize(p.list, g.list, buf.list, nullptr, 0.01f, 0.9f, 1e-3f, 0.f, false, false,
                                             false, ws, ex);
      }, aclnnFusedSgd);
}
BENCHMARK(FusedSgd)->Arg(int64_t{kParams} * kElems * 4 * 5)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// Token sampling on [8, 152064] logits (a Qwen-sized vocabulary): aclnnTopKTopPSample (BF16) and
// aclnnTopKTopPSampleV2 (FLOAT) with top-k 50 + top-p 0.9 + q-sampling, and top-p 0.9 alone (no top-k: the
// nucleus found from the topKGuess prefix), repeatable executor, launch + synchronise per iteration. The
// PyTorch peer (topk / sort + softmax + cumsum + q-sampling on the same shapes) is
// bench/compare_sampling_torch.py; both together: bench/compare_sampling.sh <build dir>.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_top_k_top_p_sample.h"
#include "aclnnop/aclnn_top_k_top_p_sample_v2.h"
#include "bench_env.h"
#include "bench_timed_executor.h"

namespace {

constexpr int64_t kRows = 8, kVocab = 152064;

// A device buffer holding `host`'s bytes, freed with the object.
struct Buffer {
  void *p = nullptr;
  template <class T>
  explicit Buffer(const std::vector<T> &host) {
    const size_t n = host.size() * sizeof(T);
    aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(p, n, host.data(), n, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  ~Buffer() { aclrtFree(p); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
};

uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

// Logits ~ N(0, 4^2) (a peaked softmax over the vocabulary, as a model's), exponential noise q.
struct Inputs {
  std::vector<float> logits, q;
  Inputs() {
    std::mt19937_64 g(1);
    std::normal_distribution<float> n(0.f, 4.f);
    std::exponential_distribution<float> e(1.f);
    for (int64_t i = 0; i < kRows * kVocab; ++i) {
      logits.push_back(n(g));
      q.push_back(e(g));
    }
  }
};
const Inputs &inputs() {
  static const Inputs in;
  return in;
}

// One sampling benchmark: logits in `dt`, per-row k and p, V2 or not.
void sample(benchmark::State &state, aclDataType dt, int32_t k, float p, bool v2) {
  using opsnn::bench::contiguous_tensor;
  opsnn::bench::env();
  const Inputs &in = inputs();
  std::vector<uint16_t> lb, pb(kRows, to_bf16(p));
  for (float x : in.logits) lb.push_back(to_bf16(x));
  Buffer logits = dt == ACL_BF16 ? Buffer(lb) : Buffer(in.logits), q(in.q), top_k(std::vector<int32_t>(kRows, k)),
         top_p = dt == ACL_BF16 ? Buffer(pb) : Buffer(std::vector<float>(kRows, p)),
         select(std::vector<int64_t>(kRows, 0));
  aclTensor *tl = contiguous_tensor({kRows, kVocab}, dt, logits.p), *tq = contiguous_tensor({kRows, kVocab}, ACL_FLOAT, q.p),
            *tk = contiguous_tensor({kRows}, ACL_INT32, top_k.p), *tp = contiguous_tensor({kRows}, dt, top_p.p),
            *ts = contiguous_tensor({kRows}, ACL_INT64, select.p);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const int status = v2 ? aclnnTopKTopPSampleV2GetWorkspaceSize(tl, tk, tp, tq, nullptr, 1e-8, false, 32, 1024, true, false,
                                                               ts, nullptr, nullptr, nullptr, &ws, &ex)
                        : aclnnTopKTopPSampleGetWorkspaceSize(tl, tk, tp, tq, 1e-8, false, 32, ts, nullptr, &ws, &ex);
  opsnn::bench::time_executor(state, status, ws, ex, v2 ? aclnnTopKTopPSampleV2 : aclnnTopKTopPSample);
  for (aclTensor *t : {tl, tq, tk, tp, ts}) aclDestroyTensor(t);
}

void TopK50TopP09Bf16(benchmark::State &s) { sample(s, ACL_BF16, 50, 0.9f, false); }
void TopK50TopP09FloatV2(benchmark::State &s) { sample(s, ACL_FLOAT, 50, 0.9f, true); }
void TopP09Bf16(benchmark::State &s) { sample(s, ACL_BF16, 0, 0.9f, false); }
BENCHMARK(TopK50TopP09Bf16)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(TopK50TopP09FloatV2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(TopP09Bf16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// Large contiguous FLOAT element-wise ops through the public API: phase 2 + synchronize on a
// repeatable executor (phase 1 outside the timing). bytes_per_second counts bytes read + written.
//   Unary/<op>/<n>    Exp, Sqrt, Abs, Tanh, Sin on n FLOAT elements (out-of-place)
//   Binary/<op>/<n>   Add (alpha 1), Mul
//   Copy/<n>          InplaceCopy FLOAT -> FLOAT: the machine's copy bandwidth reference
//   Launch16/Exp      steady-state cost of a 16-element op (launch + run + wait)
// bench/compare_elementwise_torch.py times the same ops in PyTorch; bench/README.md runs both.
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "bench_env.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_tanh.h"

namespace {

using opsnn::bench::Env;
using opsnn::bench::env;

struct Buf {
  void *p = nullptr;
  explicit Buf(size_t bytes, float fill) {
    aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<float> h(bytes / 4);
    for (size_t i = 0; i < h.size(); ++i) h[i] = fill + 1e-3f * static_cast<float>(i % 1000);
    aclrtMemcpy(p, bytes, h.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  ~Buf() { aclrtFree(p); }
};

aclTensor *tensor(int64_t n, void *data) {
  return aclCreateTensor(&n, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &n, 1, data);
}

using P1 = std::function<int(aclTensor *const *, uint64_t *, aclOpExecutor **)>;
using P2 = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// Runs phase 2 + synchronize on a repeatable executor over `ntensors` tensors of n FLOATs.
void run(benchmark::State &state, int ntensors, const P1 &p1, P2 p2) {
  const int64_t n = state.range(0);
  std::vector<std::unique_ptr<Buf>> bufs;
  std::vector<aclTensor *> ts;
  for (int i = 0; i < ntensors; ++i) {
    bufs.push_back(std::make_unique<Buf>(static_cast<size_t>(n) * 4, 0.5f + i));
    ts.push_back(tensor(n, bufs.back()->p));
  }
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (p1(ts.data(), &ws, &ex) != 0) {
    state.SkipWithError("phase 1 failed");
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  p2(w, ws, ex, env().stream);  // warm up (page faults, pool)
  aclrtSynchronizeStream(env().stream);
  for (auto _ : state) {
    p2(w, ws, ex, env().stream);
    aclrtSynchronizeStream(env().stream);
  }
  state.SetBytesProcessed(state.iterations() * n * 4 * ntensors);
  state.counters["elems"] = static_cast<double>(n);
  aclDestroyAclOpExecutor(ex);
  if (w) aclrtFree(w);
  for (auto *t : ts) aclDestroyTensor(t);
}

#define UNARY(OP)                                                                                          \
  void Unary_##OP(benchmark::State &s) {                                                                   \
    run(s, 2, [](aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex) {                                  \
          return aclnn##OP##GetWorkspaceSize(t[0], t[1], ws, ex);                                          \
        }, aclnn##OP);                                                                                     \
  }                                                                                                        \
  BENCHMARK(Unary_##OP)->Name("Unary/" #OP)->Arg(1 << 20)->Arg(1 << 24)->Unit(benchmark::kMicrosecond)->UseRealTime();
UNARY(Exp)
UNARY(Sqrt)
UNARY(Abs)
UNARY(Tanh)
UNARY(Sin)

void Binary_Add(benchmark::State &s) {
  float one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
  run(s, 3, [&](aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex) {
        return aclnnAddGetWorkspaceSize(t[0], t[1], alpha, t[2], ws, ex);
      }, aclnnAdd);
  aclDestroyScalar(alpha);
}
BENCHMARK(Binary_Add)->Name("Binary/Add")->Arg(1 << 20)->Arg(1 << 24)->Unit(benchmark::kMicrosecond)->UseRealTime();

void Binary_Mul(benchmark::State &s) {
  run(s, 3, [](aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex) {
        return aclnnMulGetWorkspaceSize(t[0], t[1], t[2], ws, ex);
      }, aclnnMul);
}
BENCHMARK(Binary_Mul)->Name("Binary/Mul")->Arg(1 << 20)->Arg(1 << 24)->Unit(benchmark::kMicrosecond)->UseRealTime();

void Copy(benchmark::State &s) {
  run(s, 2, [](aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex) {
        return aclnnInplaceCopyGetWorkspaceSize(t[1], t[0], ws, ex);
      }, aclnnInplaceCopy);
}
BENCHMARK(Copy)->Name("Copy")->Arg(1 << 20)->Arg(1 << 24)->Unit(benchmark::kMicrosecond)->UseRealTime();

void Launch16(benchmark::State &s) {
  run(s, 2, [](aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex) {
        return aclnnExpGetWorkspaceSize(t[0], t[1], ws, ex);
      }, aclnnExp);
}
BENCHMARK(Launch16)->Name("Launch16/Exp")->Arg(16)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

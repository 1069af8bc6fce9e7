// Reductions, softmax, norms, cumsum and sort on FLOAT tensors through the public API: phase 2 +
// synchronize on a repeatable executor (phase 1 outside the timing). One benchmark per case,
// named like the cases of bench/compare_rowwise_torch.py, which times the same ops in PyTorch;
// bench/compare_rowwise.sh runs both and prints the ratios.
//   Rows: [1024, 4096] reduced / normalised over dim 1; Cols: [4096, 1024] over dim 0;
//   All: 16M elements to one value; Sort: [256, 4096] along dim 1.
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "bench_env.h"
#include "aclnnop/aclnn_amax.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_sort.h"
#include "aclnnop/aclnn_var.h"

namespace {

using opsnn::bench::Env;
using opsnn::bench::env;

// A device tensor of `shape` (FLOAT unless told), filled with a fixed pseudo-random pattern.
struct T {
  void *p = nullptr;
  aclTensor *t = nullptr;
  T(std::vector<int64_t> shape, aclDataType dt = ACL_FLOAT) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t es = aclDataTypeSize(dt);
    aclrtMalloc(&p, static_cast<size_t>(n) * es + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    if (dt == ACL_FLOAT) {
      std::vector<float> h(static_cast<size_t>(n));
      uint32_t s = 12345;
      for (auto &v : h) {
        s = s * 1664525u + 1013904223u;
        v = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 4.0f - 2.0f;
      }
      aclrtMemcpy(p, h.size() * 4, h.data(), h.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    }
    std::vector<int64_t> st(shape.size(), 1);
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * shape[d + 1];
    t = aclCreateTensor(shape.data(), shape.size(), dt, st.data(), 0, ACL_FORMAT_ND, shape.data(), shape.size(), p);
  }
  ~T() {
    aclDestroyTensor(t);
    aclrtFree(p);
  }
  operator aclTensor *() const { return t; }
};

using Phase1 = std::function<int(uint64_t *, aclOpExecutor **)>;
using Launch = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

void run(benchmark::State &state, const Phase1 &p1, Launch p2) {
  Env &e = env();
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (p1(&ws, &ex) != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  for (auto _ : state) {
    p2(w, ws, ex, e.stream);
    aclrtSynchronizeStream(e.stream);
  }
  aclDestroyAclOpExecutor(ex);
  if (w != nullptr) aclrtFree(w);
}

struct Dims {
  std::vector<int64_t> v;
  aclIntArray *a;
  explicit Dims(std::vector<int64_t> d) : v(std::move(d)), a(aclCreateIntArray(v.data(), v.size())) {}
  ~Dims() { aclDestroyIntArray(a); }
};

const std::vector<int64_t> kRows = {1024, 4096}, kCols = {4096, 1024}, kAll = {16 << 20}, kSort = {256, 4096};

void SumRows(benchmark::State &s) {
  T x(kRows), y({1024});
  Dims d({1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnReduceSumGetWorkspaceSize(x, d.a, false, ACL_FLOAT, y, w, e); },
      aclnnReduceSum);
}
void SumCols(benchmark::State &s) {
  T x(kCols), y({1024});
  Dims d({0});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnReduceSumGetWorkspaceSize(x, d.a, false, ACL_FLOAT, y, w, e); },
      aclnnReduceSum);
}
void SumAll(benchmark::State &s) {
  T x(kAll), y({});
  Dims d({});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnReduceSumGetWorkspaceSize(x, d.a, false, ACL_FLOAT, y, w, e); },
      aclnnReduceSum);
}
void AmaxRows(benchmark::State &s) {
  T x(kRows), y({1024});
  Dims d({1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnAmaxGetWorkspaceSize(x, d.a, false, y, w, e); }, aclnnAmax);
}
void ArgMaxRows(benchmark::State &s) {
  T x(kRows), y({1024}, ACL_INT64);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnArgMaxGetWorkspaceSize(x, 1, false, y, w, e); }, aclnnArgMax);
}
void VarRows(benchmark::State &s) {
  T x(kRows), y({1024});
  Dims d({1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnVarGetWorkspaceSize(x, d.a, true, false, y, w, e); }, aclnnVar);
}
void SoftmaxRows(benchmark::State &s) {
  T x(kRows), y(kRows);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnSoftmaxGetWorkspaceSize(x, 1, y, w, e); }, aclnnSoftmax);
}
void LogSoftmaxRows(benchmark::State &s) {
  T x(kRows), y(kRows);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnLogSoftmaxGetWorkspaceSize(x, 1, y, w, e); },
      aclnnLogSoftmax);
}
void LayerNormRows(benchmark::State &s) {
  T x(kRows), g({4096}), b({4096}), y(kRows);
  Dims ns({4096});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnLayerNormGetWorkspaceSize(x, ns.a, g, b, 1e-5, y, nullptr, nullptr, w, e);
      },
      aclnnLayerNorm);
}
void RmsNormRows(benchmark::State &s) {
  T x(kRows), g({4096}), y(kRows), r({1024, 1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnRmsNormGetWorkspaceSize(x, g, 1e-6, y, r, w, e); },
      aclnnRmsNorm);
}
void CumsumRows(benchmark::State &s) {
  T x(kRows), y(kRows);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnCumsumGetWorkspaceSize(x, 1, ACL_FLOAT, y, w, e); },
      aclnnCumsum);
}
void SortRows(benchmark::State &s) {
  T x(kSort), v(kSort), i(kSort, ACL_INT64);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnSortGetWorkspaceSize(x, false, 1, false, v, i, w, e); },
      aclnnSort);
}

}  // namespace

BENCHMARK(SumRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SumCols)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SumAll)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AmaxRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ArgMaxRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(VarRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SoftmaxRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(LogSoftmaxRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(LayerNormRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(RmsNormRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CumsumRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SortRows)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();

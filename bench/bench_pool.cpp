// Pooling and resize on FLOAT tensors through the public API: phase 2 + synchronize on a
// repeatable executor (phase 1 outside the timing). One benchmark per case, named like the cases
// of bench/compare_pool_torch.py, which times the same ops in PyTorch; bench/compare_pool.sh runs
// both and prints the ratios. Shapes are ResNet-50's: the stem max pool (64 x 112 x 112, k3 s2
// p1), a 3 x 3 average (64 x 56 x 56, s1 p1), a 2 x 2 average (256 x 56 x 56), the global average
// (2048 x 7 x 7), a 2x nearest and bilinear upsample (64 x 56 x 56; bilinear also backward), batch
// 4; _nhwc: the tensors' format is NHWC (dims N, H, W, C, channels innermost).
#include <benchmark/benchmark.h>

#include <functional>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_adaptive_avg_pool2d.h"
#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_max_pool.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_upsample_bilinear_2d.h"
#include "aclnnop/aclnn_upsample_bilinear_2d_backward.h"
#include "aclnnop/aclnn_upsample_nearest_2d.h"
#include "bench_env.h"

namespace {

using opsnn::bench::Env;
using opsnn::bench::env;

// A device tensor with logical dims [N, C, H, W], NCHW or (nhwc) NHWC format, filled with a fixed
// pseudo-random pattern (FLOAT) or a valid index pattern (INT64: zeros).
struct T {
  void *p = nullptr;
  aclTensor *t = nullptr;
  T(std::vector<int64_t> nchw, bool nhwc = false, aclDataType dt = ACL_FLOAT) {
    std::vector<int64_t> shape = nchw;
    if (nhwc) shape = {nchw[0], nchw[2], nchw[3], nchw[1]};
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t es = aclDataTypeSize(dt);
    aclrtMalloc(&p, static_cast<size_t>(n) * es + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<unsigned char> h(static_cast<size_t>(n) * es, 0);
    if (dt == ACL_FLOAT) {
      uint32_t s = 12345;
      auto *f = reinterpret_cast<float *>(h.data());
      for (int64_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        f[i] = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 4.0f - 2.0f;
      }
    }
    aclrtMemcpy(p, h.size(), h.data(), h.size(), ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> st(shape.size(), 1);
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * shape[d + 1];
    t = aclCreateTensor(shape.data(), shape.size(), dt, st.data(), 0, nhwc ? ACL_FORMAT_NHWC : ACL_FORMAT_NCHW,
                        shape.data(), shape.size(), p);
  }
  ~T() {
    aclDestroyTensor(t);
    aclrtFree(p);
  }
  operator aclTensor *() const { return t; }
};

struct A {
  aclIntArray *a;
  explicit A(std::vector<int64_t> v) : a(aclCreateIntArray(v.data(), v.size())) {}
  ~A() { aclDestroyIntArray(a); }
  operator aclIntArray *() const { return a; }
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

void max_pool(benchmark::State &s, bool nhwc) {
  T x({4, 64, 112, 112}, nhwc), y({4, 64, 56, 56}, nhwc);
  A k({3, 3}), st({2, 2}), pads({1, 1, 1, 1}), dil({1, 1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnMaxPoolGetWorkspaceSize(x, k, st, 0, pads, dil, 0, y, w, e); },
      aclnnMaxPool);
}
void MaxPool2d_nchw(benchmark::State &s) { max_pool(s, false); }
void MaxPool2d_nhwc(benchmark::State &s) { max_pool(s, true); }

void MaxPool2dWithIndices_nchw(benchmark::State &s) {
  T x({4, 64, 112, 112}), y({4, 64, 56, 56}), i({4, 64, 56, 56}, false, ACL_INT64);
  A k({3, 3}), st({2, 2}), pad({1, 1}), dil({1, 1});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, st, pad, dil, false, y, i, w, e);
      },
      aclnnMaxPool2dWithIndices);
}
void MaxPool2dWithIndicesBackward_nchw(benchmark::State &s) {
  T g({4, 64, 56, 56}), x({4, 64, 112, 112}), i({4, 64, 56, 56}, false, ACL_INT64), gi({4, 64, 112, 112}),
      y({4, 64, 56, 56});
  A k({3, 3}), st({2, 2}), pad({1, 1}), dil({1, 1});
  {  // the indices of the forward (as the PyTorch side uses), not a constant
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    void *w = nullptr;
    aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, st, pad, dil, false, y, i, &ws, &ex);
    if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    aclnnMaxPool2dWithIndices(w, ws, ex, env().stream);
    aclrtSynchronizeStream(env().stream);
    if (w != nullptr) aclrtFree(w);
  }
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(g, x, i, k, st, pad, dil, false, gi, w, e);
      },
      aclnnMaxPool2dWithIndicesBackward);
}

void avg3(benchmark::State &s, bool nhwc) {
  T x({4, 64, 56, 56}, nhwc), y({4, 64, 56, 56}, nhwc);
  A k({3, 3}), st({1, 1}), pad({1, 1});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnAvgPool2dGetWorkspaceSize(x, k, st, pad, false, true, 0, 0, y, w, e);
      },
      aclnnAvgPool2d);
}
void AvgPool2d3x3_nchw(benchmark::State &s) { avg3(s, false); }
void AvgPool2d3x3_nhwc(benchmark::State &s) { avg3(s, true); }

void avg2(benchmark::State &s, bool nhwc) {
  T x({4, 256, 56, 56}, nhwc), y({4, 256, 28, 28}, nhwc);
  A k({2, 2}), st({2, 2}), pad({0, 0});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnAvgPool2dGetWorkspaceSize(x, k, st, pad, false, true, 0, 0, y, w, e);
      },
      aclnnAvgPool2d);
}
void AvgPool2d2x2_nchw(benchmark::State &s) { avg2(s, false); }
void AvgPool2d2x2_nhwc(benchmark::State &s) { avg2(s, true); }

void AvgPool2dBackward3x3_nchw(benchmark::State &s) {
  T g({4, 64, 56, 56}), x({4, 64, 56, 56}), gi({4, 64, 56, 56});
  A k({3, 3}), st({1, 1}), pad({1, 1});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnAvgPool2dBackwardGetWorkspaceSize(g, x, k, st, pad, false, true, 0, 0, gi, w, e);
      },
      aclnnAvgPool2dBackward);
}

void global_avg(benchmark::State &s, bool nhwc) {
  T x({4, 2048, 7, 7}, nhwc), y({4, 2048, 1, 1}, nhwc);
  A os({1, 1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnAdaptiveAvgPool2dGetWorkspaceSize(x, os, y, w, e); },
      aclnnAdaptiveAvgPool2d);
}
void GlobalAvgPool_nchw(benchmark::State &s) { global_avg(s, false); }
void GlobalAvgPool_nhwc(benchmark::State &s) { global_avg(s, true); }

void upsample(benchmark::State &s, bool nhwc) {
  T x({4, 64, 56, 56}, nhwc), y({4, 64, 112, 112}, nhwc);
  A os({112, 112});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnUpsampleNearest2dGetWorkspaceSize(x, os, y, w, e); },
      aclnnUpsampleNearest2d);
}
void UpsampleNearest2x_nchw(benchmark::State &s) { upsample(s, false); }
void UpsampleNearest2x_nhwc(benchmark::State &s) { upsample(s, true); }

void bilinear(benchmark::State &s, bool nhwc) {
  T x({4, 64, 56, 56}, nhwc), y({4, 64, 112, 112}, nhwc);
  A os({112, 112});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnUpsampleBilinear2dGetWorkspaceSize(x, os, false, 0.0, 0.0, y, w, e);
      },
      aclnnUpsampleBilinear2d);
}
void UpsampleBilinear2x_nchw(benchmark::State &s) { bilinear(s, false); }
void UpsampleBilinear2x_nhwc(benchmark::State &s) { bilinear(s, true); }

void UpsampleBilinear2xBackward_nchw(benchmark::State &s) {
  T g({4, 64, 112, 112}), gi({4, 64, 56, 56});
  A os({112, 112}), is({4, 64, 56, 56});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(g, os, is, false, 0.0, 0.0, gi, w, e);
      },
      aclnnUpsampleBilinear2dBackward);
}

}  // namespace

BENCHMARK(MaxPool2d_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MaxPool2d_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MaxPool2dWithIndices_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MaxPool2dWithIndicesBackward_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AvgPool2d3x3_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AvgPool2d3x3_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AvgPool2d2x2_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AvgPool2d2x2_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AvgPool2dBackward3x3_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(GlobalAvgPool_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(GlobalAvgPool_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(UpsampleNearest2x_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(UpsampleNearest2x_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(UpsampleBilinear2x_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(UpsampleBilinear2x_nhwc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(UpsampleBilinear2xBackward_nchw)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();

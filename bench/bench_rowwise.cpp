// Reductions, softmax, norms, cumsum, sort, topk and layout copies on FLOAT tensors through the
// public API: phase 2 + synchronize on a repeatable executor (phase 1 outside the timing). One
// benchmark per case, named like the cases of bench/compare_rowwise_torch.py, which times the same
// ops in PyTorch; bench/compare_rowwise.sh runs both and prints the ratios. The shapes are the ones
// issues #14 and #15 name (see kSq and the lines after it). With one thread the launch runs inline
// on the calling thread, so the CPU time Google Benchmark reports is the kernel's own CPU time.
// StreamCopy / StreamTriad / StreamRead are the memory-bandwidth reference of the same run (STREAM's
// kernels on buffers far beyond the last-level cache) and MemcpyContig is libc's memcpy of
// CopyContig's 64 MiB: compare_rowwise.sh prints every case's GB/s as a share of the best of them.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bench_env.h"
#include "aclnnop/aclnn_amax.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_chamfer_distance_backward.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_cross_entropy_sum_exp_and_index_logit.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_fused_cross_entropy_loss_with_max_sum.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_permute.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_sort.h"
#include "aclnnop/aclnn_topk.h"
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
  // INT32 contents: i * 7919 mod `mod` (the index tensors).
  void fill_ints(int64_t n, int64_t mod) {
    std::vector<int32_t> h(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) h[static_cast<size_t>(i)] = static_cast<int32_t>(i * 7919 % mod);
    aclrtMemcpy(p, h.size() * 4, h.data(), h.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
  }
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
  p2(w, ws, ex, e.stream);  // warm-up: the output's pages are touched before the timing (as torch's out=)
  aclrtSynchronizeStream(e.stream);
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

// The shapes the issues name: reductions and norms over a [4096, 4096] FLOAT tensor (inner = dim 1,
// outer = dim 0), softmax over the last dim of [64, 32, 512, 512], sort of 256 rows of 4096 and of
// one row of 2^20, topk with a small k, and the two copies of a layout change.
const std::vector<int64_t> kSq = {4096, 4096}, kAll = {16 << 20}, kSort = {256, 4096}, kLong = {1 << 20},
                           kSoftmax = {64, 32, 512, 512}, kHeads = {64, 512, 32, 64};

// Reductions to [4096] over dim `dim` of kSq.
using ReduceP1 = aclnnStatus (*)(const aclTensor *, const aclIntArray *, bool, aclDataType, aclTensor *, uint64_t *,
                                 aclOpExecutor **);
template <ReduceP1 P1, Launch P2>
void SumLike(benchmark::State &s, int64_t dim) {
  T x(kSq), y({4096});
  Dims d({dim});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return P1(x, d.a, false, ACL_FLOAT, y, w, e); }, P2);
}
void SumInner(benchmark::State &s) { SumLike<aclnnReduceSumGetWorkspaceSize, aclnnReduceSum>(s, 1); }
// The inner sum of [16384, 4096] (256 MiB: read from memory on every call, unlike kSq's 64 MiB).
void SumInnerBig(benchmark::State &s) {
  T x({16384, 4096}), y({16384});
  Dims d({1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnReduceSumGetWorkspaceSize(x, d.a, false, ACL_FLOAT, y, w, e); },
      aclnnReduceSum);
}
void SumOuter(benchmark::State &s) { SumLike<aclnnReduceSumGetWorkspaceSize, aclnnReduceSum>(s, 0); }
void MeanInner(benchmark::State &s) { SumLike<aclnnMeanGetWorkspaceSize, aclnnMean>(s, 1); }
void MeanOuter(benchmark::State &s) { SumLike<aclnnMeanGetWorkspaceSize, aclnnMean>(s, 0); }
void SumAll(benchmark::State &s) {
  T x(kAll), y({});
  Dims d({});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnReduceSumGetWorkspaceSize(x, d.a, false, ACL_FLOAT, y, w, e); },
      aclnnReduceSum);
}
void Amax(benchmark::State &s, int64_t dim) {
  T x(kSq), y({4096});
  Dims d({dim});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnAmaxGetWorkspaceSize(x, d.a, false, y, w, e); }, aclnnAmax);
}
void AmaxInner(benchmark::State &s) { Amax(s, 1); }
void AmaxOuter(benchmark::State &s) { Amax(s, 0); }
void ArgMax(benchmark::State &s, int64_t dim) {
  T x(kSq), y({4096}, ACL_INT64);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnArgMaxGetWorkspaceSize(x, dim, false, y, w, e); }, aclnnArgMax);
}
void ArgMaxInner(benchmark::State &s) { ArgMax(s, 1); }
void ArgMaxOuter(benchmark::State &s) { ArgMax(s, 0); }
void VarInner(benchmark::State &s) {
  T x(kSq), y({4096});
  Dims d({1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnVarGetWorkspaceSize(x, d.a, true, false, y, w, e); }, aclnnVar);
}
void SoftmaxInner(benchmark::State &s) {
  T x(kSq), y(kSq);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnSoftmaxGetWorkspaceSize(x, 1, y, w, e); }, aclnnSoftmax);
}
void SoftmaxAttn(benchmark::State &s) {
  T x(kSoftmax), y(kSoftmax);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnSoftmaxGetWorkspaceSize(x, 3, y, w, e); }, aclnnSoftmax);
}
void LogSoftmaxAttn(benchmark::State &s) {
  T x(kSoftmax), y(kSoftmax);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnLogSoftmaxGetWorkspaceSize(x, 3, y, w, e); },
      aclnnLogSoftmax);
}
void LogSoftmaxInner(benchmark::State &s) {
  T x(kSq), y(kSq);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnLogSoftmaxGetWorkspaceSize(x, 1, y, w, e); },
      aclnnLogSoftmax);
}
void LayerNormInner(benchmark::State &s) {
  T x(kSq), g({4096}), b({4096}), y(kSq);
  Dims ns({4096});
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnLayerNormGetWorkspaceSize(x, ns.a, g, b, 1e-5, y, nullptr, nullptr, w, e);
      },
      aclnnLayerNorm);
}
void RmsNormInner(benchmark::State &s) {
  T x(kSq), g({4096}), y(kSq), r({4096, 1});
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnRmsNormGetWorkspaceSize(x, g, 1e-6, y, r, w, e); },
      aclnnRmsNorm);
}
void Cumsum(benchmark::State &s, int64_t dim) {
  T x(kSq), y(kSq);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnCumsumGetWorkspaceSize(x, dim, ACL_FLOAT, y, w, e); },
      aclnnCumsum);
}
void CumsumInner(benchmark::State &s) { Cumsum(s, 1); }
void CumsumOuter(benchmark::State &s) { Cumsum(s, 0); }
void Sort(benchmark::State &s, const std::vector<int64_t> &shape) {
  T x(shape), v(shape), i(shape, ACL_INT64);
  const int64_t dim = static_cast<int64_t>(shape.size()) - 1;
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnSortGetWorkspaceSize(x, false, dim, false, v, i, w, e); },
      aclnnSort);
}
void SortRows(benchmark::State &s) { Sort(s, kSort); }
void SortLong(benchmark::State &s) { Sort(s, kLong); }
void Topk(benchmark::State &s, const std::vector<int64_t> &shape, int64_t k) {
  std::vector<int64_t> oshape = shape;
  oshape.back() = k;
  T x(shape), v(oshape), i(oshape, ACL_INT64);
  const int64_t dim = static_cast<int64_t>(shape.size()) - 1;
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnTopkGetWorkspaceSize(x, k, dim, true, true, v, i, w, e); },
      aclnnTopk);
}
void TopkLong(benchmark::State &s) { Topk(s, kLong, 16); }
void TopkRows(benchmark::State &s) { Topk(s, kSq, 8); }
// Layout copies: a 2-D transpose and the [B, S, N, D] -> [B, N, S, D] permute of attention.
void Permute(benchmark::State &s, const std::vector<int64_t> &shape, std::vector<int64_t> perm) {
  std::vector<int64_t> oshape(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) oshape[d] = shape[static_cast<size_t>(perm[d])];
  T x(shape), y(oshape);
  Dims p(std::move(perm));
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnPermuteGetWorkspaceSize(x, p.a, y, w, e); }, aclnnPermute);
}
void Transpose2d(benchmark::State &s) { Permute(s, kSq, {1, 0}); }
void PermuteHeads(benchmark::State &s) { Permute(s, kHeads, {0, 2, 1, 3}); }
void CopyContig(benchmark::State &s) {
  T x(kSq), y(kSq);
  run(s, [&](uint64_t *w, aclOpExecutor **e) { return aclnnInplaceCopyGetWorkspaceSize(y, x, w, e); }, aclnnInplaceCopy);
}

// Vocabulary-parallel cross-entropy over a [4096, 4096] shard (classes [0, 4096), targets in
// [0, 8192): half outside), and the chamfer gradient of 8 x 8192 points against 8 x 8192.
void VocabSumExp(benchmark::State &s) {
  T x(kSq), t({4096}, ACL_INT32), m({4096}), pred({4096}), sum({4096}), ex(kSq), off({4096}, ACL_INT32),
      mask({4096}, ACL_INT32);
  t.fill_ints(4096, 8192);
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnCrossEntropySumExpAndIndexLogitGetWorkspaceSize(x, t, m, 0, 4096, pred, sum, ex, off, mask, w, e);
      },
      aclnnCrossEntropySumExpAndIndexLogit);
}
void VocabLossSoftmax(benchmark::State &s) {
  T m({4096}), sum({4096}), pred({4096}), x(kSq), loss({4096}), sm(kSq);
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize(m, sum, pred, 0.0f, nullptr, nullptr, x, loss, sm,
                                                                    w, e);
      },
      aclnnFusedCrossEntropyLossWithMaxSum);
}
void ChamferGrad(benchmark::State &s) {
  T x1({8, 8192, 2}), x2({8, 8192, 2}), i1({8, 8192}, ACL_INT32), i2({8, 8192}, ACL_INT32), g1({8, 8192}),
      g2({8, 8192}), o1({8, 8192, 2}), o2({8, 8192, 2});
  i1.fill_ints(8 * 8192, 8192);
  i2.fill_ints(8 * 8192, 8192);
  run(s,
      [&](uint64_t *w, aclOpExecutor **e) {
        return aclnnChamferDistanceBackwardGetWorkspaceSize(x1, x2, i1, i2, g1, g2, o1, o2, w, e);
      },
      aclnnChamferDistanceBackward);
}

// The bandwidth reference: STREAM's copy (a = b) and triad (a = b + s * c), and a read-only sum,
// over FLOAT buffers of 256 MiB each (far beyond any cache), in 64-byte vectors (each per-ISA
// lowering is faster than memory), on OPSNN_NUM_THREADS threads (1 or 2: this machine's count)
// splitting the buffers in halves. Bytes counted as STREAM does: those read plus those written.
using f32v = float __attribute__((vector_size(64)));
constexpr size_t kStreamFloats = size_t{64} << 20;  // 256 MiB per buffer
constexpr size_t kStreamVecs = kStreamFloats / 16;
f32v *stream_buffer(int which) {
  static f32v *bufs[3] = {};
  if (bufs[which] == nullptr) {
    bufs[which] = static_cast<f32v *>(std::aligned_alloc(64, kStreamFloats * 4));
    for (size_t i = 0; i < kStreamVecs; ++i) bufs[which][i] = f32v{} + static_cast<float>(which + 1);
  }
  return bufs[which];
}
int stream_threads() {
  const char *t = std::getenv("OPSNN_NUM_THREADS");
  return t != nullptr && std::atoi(t) >= 2 ? 2 : 1;
}
template <class Body>
void stream_case(benchmark::State &state, size_t bytes_per_float, Body body) {
  const int nt = stream_threads();
  for (auto _ : state) {
    if (nt == 1) {
      body(size_t{0}, kStreamVecs);
    } else {
      std::thread other([&] { body(kStreamVecs / 2, kStreamVecs); });
      body(size_t{0}, kStreamVecs / 2);
      other.join();
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kStreamFloats * bytes_per_float));
}
void StreamCopy(benchmark::State &s) {
  f32v *a = stream_buffer(0), *b = stream_buffer(1);
  stream_case(s, 8, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) a[i] = b[i];
  });
}
void StreamTriad(benchmark::State &s) {
  f32v *a = stream_buffer(0), *b = stream_buffer(1), *c = stream_buffer(2);
  stream_case(s, 12, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) a[i] = b[i] + 3.0f * c[i];
  });
}
void StreamRead(benchmark::State &s) {
  const f32v *b = stream_buffer(1);
  stream_case(s, 4, [&](size_t i0, size_t i1) {
    f32v s0{}, s1{}, s2{}, s3{};
    for (size_t i = i0; i + 4 <= i1; i += 4) {
      s0 += b[i];
      s1 += b[i + 1];
      s2 += b[i + 2];
      s3 += b[i + 3];
    }
    const f32v t = (s0 + s1) + (s2 + s3);
    benchmark::DoNotOptimize(t);
  });
}
// libc's memcpy of CopyContig's 64 MiB (one thread).
void MemcpyContig(benchmark::State &s) {
  const size_t bytes = size_t{4096} * 4096 * 4;
  void *a = std::aligned_alloc(64, bytes), *b = std::aligned_alloc(64, bytes);
  std::memset(a, 1, bytes);
  std::memset(b, 2, bytes);
  for (auto _ : s) {
    std::memcpy(a, b, bytes);
    benchmark::ClobberMemory();
  }
  s.SetBytesProcessed(static_cast<int64_t>(s.iterations() * bytes * 2));
  std::free(a);
  std::free(b);
}

}  // namespace

BENCHMARK(StreamCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(StreamTriad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(StreamRead)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MemcpyContig)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SumInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SumInnerBig)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(VocabSumExp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(VocabLossSoftmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ChamferGrad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SumOuter)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MeanInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MeanOuter)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SumAll)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AmaxInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(AmaxOuter)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ArgMaxInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ArgMaxOuter)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(VarInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SoftmaxInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SoftmaxAttn)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(LogSoftmaxAttn)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(LogSoftmaxInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(LayerNormInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(RmsNormInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CumsumInner)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CumsumOuter)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SortRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SortLong)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(TopkLong)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(TopkRows)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Transpose2d)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(PermuteHeads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(CopyContig)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();

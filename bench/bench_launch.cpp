// The cost of the two phases (DESIGN.md: phase 2's cost is the measure of the whole design):
//   Phase1/*        aclnnXxxGetWorkspaceSize + aclDestroyAclOpExecutor (repeatable, never launched)
//   Phase2Enqueue/* aclnnXxx on a repeatable executor, queue drained every 256 launches
//   Phase2Sync/*    aclnnXxx + aclrtSynchronizeStream each call (launch + run + wait)
//   OneShot/*       create tensors (and Add's alpha scalar), phase 1, phase 2 (consumes the
//                   executor), destroy, every call; synchronised every 256 calls
//   Replay/Add16x64 aclmdlRIExecuteAsync of 64 captured Add launches; the counter ns_per_launch
//                   is the time per captured launch (synchronised every 16 replays)
//   Streams/16xOp/S  one host thread: 16 launches of Op (Add of N floats, Mm n^3) spread over S
//                   streams, then every stream synchronised (S = 1 or 2: do small ops run side by
//                   side? do large ones share the thread pool without oversubscription?)
// for aclnnAdd on 16 FLOAT elements and aclnnMm 64x64x64 FLOAT (plus the launch + run + sync of
// Mm 128^3 and 256^3, which use both threads of the pool when there are two). The "/queued"
// variants switch the inline launch policy off (OPSNN_LAUNCH_INLINE=0: every launch goes to the
// stream's worker thread).
// Peers in the same run (when installed): oneDNN's binary add on 16 f32 with 1 OpenMP thread
// (Peer/Dnnl/Execute: execute, waited every 256; ExecuteWait: execute + stream.wait; OneShot:
// descriptors + primitive (from oneDNN's primitive cache) + memory objects + execute).
// Compare medians of interleaved repeats:
//   bench_launch --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
//                --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <vector>

#include "acl/acl.h"
#include "bench_env.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mm.h"
#include "runtime/runtime.h"

#if defined(OPSNN_HAVE_DNNL)
#if __has_include(<oneapi/dnnl/dnnl.hpp>)
#include <oneapi/dnnl/dnnl.hpp>
#else
#include <dnnl.hpp>
#endif
#endif

namespace {

struct Buffers {
  std::vector<void *> ptrs;
  explicit Buffers(std::initializer_list<size_t> bytes) {
    for (size_t b : bytes) {
      void *p = nullptr;
      aclrtMalloc(&p, b, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtMemset(p, b, 0, b);
      ptrs.push_back(p);
    }
  }
  ~Buffers() {
    for (void *p : ptrs) aclrtFree(p);
  }
};

aclTensor *tensor(std::initializer_list<int64_t> dims, void *data) {
  std::vector<int64_t> d(dims);
  return aclCreateTensor(d.data(), d.size(), ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, d.data(), d.size(), data);
}

// One op under test: how to build its tensors and run its two phases.
template <int64_t N>
struct AddN {
  static constexpr int64_t n = N;
  Buffers buf{n * 4, n * 4, n * 4};
  float one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
  aclTensor *t[3] = {tensor({n}, buf.ptrs[0]), tensor({n}, buf.ptrs[1]), tensor({n}, buf.ptrs[2])};
  ~AddN() {
    for (auto *x : t) aclDestroyTensor(x);
    aclDestroyScalar(alpha);
  }
  int phase1(aclTensor *const *ts, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnAddGetWorkspaceSize(ts[0], ts[1], alpha, ts[2], ws, ex);
  }
  int phase2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnAdd(w, s, e, st); }
  // The client pattern: every descriptor, the alpha scalar included, made for the call.
  int one_shot_phase1(uint64_t *ws, aclOpExecutor **ex) {
    aclTensor *ts[3];
    for (int i = 0; i < 3; ++i) ts[i] = tensor({n}, buf.ptrs[static_cast<size_t>(i)]);
    aclScalar *a = aclCreateScalar(&one, ACL_FLOAT);
    const int rc = aclnnAddGetWorkspaceSize(ts[0], ts[1], a, ts[2], ws, ex);
    for (auto *x : ts) aclDestroyTensor(x);
    aclDestroyScalar(a);
    return rc;
  }
};

using AddOp = AddN<16>;

template <int64_t N>
struct MmOp {
  static constexpr int64_t n = N;
  Buffers buf{n * n * 4, n * n * 4, n * n * 4};
  aclTensor *t[3] = {tensor({n, n}, buf.ptrs[0]), tensor({n, n}, buf.ptrs[1]), tensor({n, n}, buf.ptrs[2])};
  ~MmOp() {
    for (auto *x : t) aclDestroyTensor(x);
  }
  int phase1(aclTensor *const *ts, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMmGetWorkspaceSize(ts[0], ts[1], ts[2], 0, ws, ex);
  }
  int phase2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnMm(w, s, e, st); }
  int one_shot_phase1(uint64_t *ws, aclOpExecutor **ex) {
    aclTensor *ts[3];
    for (int i = 0; i < 3; ++i) ts[i] = tensor({n, n}, buf.ptrs[static_cast<size_t>(i)]);
    const int rc = aclnnMmGetWorkspaceSize(ts[0], ts[1], ts[2], 0, ws, ex);
    for (auto *x : ts) aclDestroyTensor(x);
    return rc;
  }
};

using opsnn::bench::Env;
using opsnn::bench::env;

template <class Op>
void Phase1(benchmark::State &state) {
  Op op;
  for (auto _ : state) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    if (op.phase1(op.t, &ws, &ex) != 0) state.SkipWithError(aclGetRecentErrMsg());
    aclSetAclOpExecutorRepeatable(ex);
    aclDestroyAclOpExecutor(ex);
  }
}

template <class Op>
void Phase2Enqueue(benchmark::State &state) {
  Op op;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  op.phase1(op.t, &ws, &ex);
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  int64_t i = 0;
  for (auto _ : state) {
    op.phase2(w, ws, ex, env().stream);
    if (++i % 256 == 0) aclrtSynchronizeStream(env().stream);
  }
  aclrtSynchronizeStream(env().stream);
  aclDestroyAclOpExecutor(ex);
  if (w) aclrtFree(w);
}

template <class Op>
void Phase2Sync(benchmark::State &state) {
  Op op;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  op.phase1(op.t, &ws, &ex);
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  for (auto _ : state) {
    op.phase2(w, ws, ex, env().stream);
    aclrtSynchronizeStream(env().stream);
  }
  aclDestroyAclOpExecutor(ex);
  if (w) aclrtFree(w);
}

template <class Op>
void OneShot(benchmark::State &state) {
  Op op;
  int64_t i = 0;
  for (auto _ : state) {
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    op.one_shot_phase1(&ws, &ex);  // descriptors are destroyed right after phase 1, as clients do
    void *w = nullptr;
    if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    op.phase2(w, ws, ex, env().stream);
    if (w) aclrtFree(w);
    if (++i % 256 == 0) aclrtSynchronizeStream(env().stream);
  }
  aclrtSynchronizeStream(env().stream);
}

// The same benchmark with every launch queued for the stream's worker (inline policy off).
template <void (*Bench)(benchmark::State &)>
void Queued(benchmark::State &state) {
  opsnn::rt::set_inline_launch_for_testing(0);
  Bench(state);
  opsnn::rt::set_inline_launch_for_testing(-1);
}

// Graph replay: 64 launches of one repeatable Add executor captured once, replayed per iteration.
void Replay(benchmark::State &state) {
  constexpr int kLaunches = 64;
  AddOp op;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  op.phase1(op.t, &ws, &ex);
  aclSetAclOpExecutorRepeatable(ex);
  aclrtStream s = env().stream;
  aclmdlRI model = nullptr;
  aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
  for (int k = 0; k < kLaunches; ++k) op.phase2(nullptr, 0, ex, s);
  aclmdlRICaptureEnd(s, &model);
  int64_t i = 0;
  for (auto _ : state) {
    aclmdlRIExecuteAsync(model, s);
    if (++i % 16 == 0) aclrtSynchronizeStream(s);
  }
  aclrtSynchronizeStream(s);
  state.counters["ns_per_launch"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kLaunches,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  aclmdlRIDestroy(model);
  aclDestroyAclOpExecutor(ex);
}

// Streams side by side: one host thread launches `kOps` launches of Op per iteration, spread over
// `streams` streams (repeatable executors, one op instance per stream), then synchronises them
// all. Small ops: do two streams overlap their launch costs? Large ops (each already uses every
// thread of the pool): do two streams share the pool without oversubscription (the same total
// work in about the same time, not more)?
template <class Op>
void Streams(benchmark::State &state) {
  constexpr int kOps = 16;
  const int streams = static_cast<int>(state.range(0));
  struct PerStream {
    aclrtStream s = nullptr;
    Op op;
    aclOpExecutor *ex = nullptr;
    void *w = nullptr;
    uint64_t ws = 0;
  };
  std::vector<PerStream> ps(static_cast<size_t>(streams));
  for (auto &p : ps) {
    aclrtCreateStream(&p.s);
    if (p.op.phase1(p.op.t, &p.ws, &p.ex) != 0) state.SkipWithError(aclGetRecentErrMsg());
    aclSetAclOpExecutorRepeatable(p.ex);
    if (p.ws) aclrtMalloc(&p.w, p.ws, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  for (auto _ : state) {
    for (int k = 0; k < kOps; ++k) {
      auto &p = ps[static_cast<size_t>(k % streams)];
      p.op.phase2(p.w, p.ws, p.ex, p.s);
    }
    for (auto &p : ps) aclrtSynchronizeStream(p.s);
  }
  for (auto &p : ps) {
    aclDestroyAclOpExecutor(p.ex);
    if (p.w) aclrtFree(p.w);
    aclrtDestroyStream(p.s);
  }
}

#if defined(OPSNN_HAVE_DNNL)
// oneDNN binary add on 16 f32, with one OpenMP thread (its fastest setting for a tiny op).
struct DnnlAdd {
  static constexpr int64_t n = 16;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  std::vector<float> a = std::vector<float>(n, 1.f), b = std::vector<float>(n, 2.f), c = std::vector<float>(n);
  dnnl::memory::desc md{{n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a};
  dnnl::binary prim = make();
  dnnl::memory ma{md, eng, a.data()}, mb{md, eng, b.data()}, mc{md, eng, c.data()};
  DnnlAdd() {
    using OmpSet = void (*)(int);
    if (auto f = reinterpret_cast<OmpSet>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(1);
  }
  dnnl::binary make() {
    return dnnl::binary(dnnl::binary::primitive_desc(dnnl::binary::desc(dnnl::algorithm::binary_add, md, md, md), eng));
  }
  void execute(const dnnl::binary &p, const dnnl::memory &x, const dnnl::memory &y, const dnnl::memory &z) {
    p.execute(strm, {{DNNL_ARG_SRC_0, x}, {DNNL_ARG_SRC_1, y}, {DNNL_ARG_DST, z}});
  }
};

void DnnlExecute(benchmark::State &state) {
  DnnlAdd d;
  int64_t i = 0;
  for (auto _ : state) {
    d.execute(d.prim, d.ma, d.mb, d.mc);
    if (++i % 256 == 0) d.strm.wait();
  }
  d.strm.wait();
}

void DnnlExecuteWait(benchmark::State &state) {
  DnnlAdd d;
  for (auto _ : state) {
    d.execute(d.prim, d.ma, d.mb, d.mc);
    d.strm.wait();
  }
}

void DnnlOneShot(benchmark::State &state) {
  DnnlAdd d;
  int64_t i = 0;
  for (auto _ : state) {
    dnnl::memory::desc md{{DnnlAdd::n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a};
    dnnl::binary p = d.make();
    dnnl::memory x{md, d.eng, d.a.data()}, y{md, d.eng, d.b.data()}, z{md, d.eng, d.c.data()};
    d.execute(p, x, y, z);
    if (++i % 256 == 0) d.strm.wait();
  }
  d.strm.wait();
}

BENCHMARK(DnnlExecute)->Name("Peer/Dnnl/Execute/Add16");
BENCHMARK(DnnlExecuteWait)->Name("Peer/Dnnl/ExecuteWait/Add16");
BENCHMARK(DnnlOneShot)->Name("Peer/Dnnl/OneShot/Add16");
#endif

BENCHMARK(Phase1<AddOp>)->Name("Phase1/Add16");
BENCHMARK(Phase2Enqueue<AddOp>)->Name("Phase2Enqueue/Add16");
BENCHMARK(Phase2Sync<AddOp>)->Name("Phase2Sync/Add16");
BENCHMARK(OneShot<AddOp>)->Name("OneShot/Add16");
BENCHMARK(Queued<Phase2Enqueue<AddOp>>)->Name("Phase2Enqueue/Add16/queued");
BENCHMARK(Queued<Phase2Sync<AddOp>>)->Name("Phase2Sync/Add16/queued");
BENCHMARK(Queued<OneShot<AddOp>>)->Name("OneShot/Add16/queued");
BENCHMARK(Replay)->Name("Replay/Add16x64");
BENCHMARK(Streams<AddN<4096>>)->Name("Streams/16xAdd4K")->Arg(1)->Arg(2);
BENCHMARK(Queued<Streams<AddN<4096>>>)->Name("Streams/16xAdd4K/queued")->Arg(1)->Arg(2);
BENCHMARK(Streams<AddN<262144>>)->Name("Streams/16xAdd256K")->Arg(1)->Arg(2);
BENCHMARK(Queued<Streams<AddN<262144>>>)->Name("Streams/16xAdd256K/queued")->Arg(1)->Arg(2);
BENCHMARK(Streams<MmOp<64>>)->Name("Streams/16xMm64")->Arg(1)->Arg(2);
BENCHMARK(Streams<MmOp<512>>)->Name("Streams/16xMm512")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(Phase1<MmOp<64>>)->Name("Phase1/Mm64");
BENCHMARK(Phase2Enqueue<MmOp<64>>)->Name("Phase2Enqueue/Mm64");
BENCHMARK(Phase2Sync<MmOp<64>>)->Name("Phase2Sync/Mm64");
BENCHMARK(OneShot<MmOp<64>>)->Name("OneShot/Mm64");
// Through the op API at sizes where a second thread pays off only if waking it is cheap.
BENCHMARK(Phase2Sync<MmOp<128>>)->Name("Phase2Sync/Mm128");
BENCHMARK(Phase2Sync<MmOp<256>>)->Name("Phase2Sync/Mm256");
BENCHMARK(Queued<Phase2Sync<MmOp<64>>>)->Name("Phase2Sync/Mm64/queued");
BENCHMARK(Queued<Phase2Sync<MmOp<256>>>)->Name("Phase2Sync/Mm256/queued");

}  // namespace

BENCHMARK_MAIN();

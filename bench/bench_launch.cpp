// The cost of the two phases (DESIGN.md: phase 2's cost is the measure of the whole design):
//   Phase1/*        aclnnXxxGetWorkspaceSize + aclDestroyAclOpExecutor (repeatable, never launched)
//   Phase2Enqueue/* aclnnXxx on a repeatable executor, queue drained every 256 launches
//   Phase2Sync/*    aclnnXxx + aclrtSynchronizeStream each call (launch + run + wait)
//   OneShot/*       create tensors, phase 1, phase 2 (consumes the executor), destroy, every call;
//                   synchronised every 256 calls
// for aclnnAdd on 16 FLOAT elements and aclnnMm 64x64x64 FLOAT (plus the launch + run + sync of
// Mm 128^3 and 256^3, which use both threads of the pool when there are two).
#include <benchmark/benchmark.h>

#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mm.h"

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
struct AddOp {
  static constexpr int64_t n = 16;
  Buffers buf{n * 4, n * 4, n * 4};
  float one = 1;
  aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
  aclTensor *t[3] = {tensor({n}, buf.ptrs[0]), tensor({n}, buf.ptrs[1]), tensor({n}, buf.ptrs[2])};
  ~AddOp() {
    for (auto *x : t) aclDestroyTensor(x);
    aclDestroyScalar(alpha);
  }
  int phase1(aclTensor *const *ts, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnAddGetWorkspaceSize(ts[0], ts[1], alpha, ts[2], ws, ex);
  }
  int phase2(void *w, uint64_t s, aclOpExecutor *e, aclrtStream st) { return aclnnAdd(w, s, e, st); }
  void make(aclTensor **ts) {
    for (int i = 0; i < 3; ++i) ts[i] = tensor({n}, buf.ptrs[static_cast<size_t>(i)]);
  }
};

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
  void make(aclTensor **ts) {
    for (int i = 0; i < 3; ++i) ts[i] = tensor({n, n}, buf.ptrs[static_cast<size_t>(i)]);
  }
};

struct Env {
  aclrtStream stream = nullptr;
  Env() {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtCreateStream(&stream);
  }
};
Env &env() {
  static Env e;
  return e;
}

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
    aclTensor *ts[3];
    op.make(ts);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    op.phase1(ts, &ws, &ex);
    void *w = nullptr;
    if (ws) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    op.phase2(w, ws, ex, env().stream);
    if (w) aclrtFree(w);
    for (auto *x : ts) aclDestroyTensor(x);
    if (++i % 256 == 0) aclrtSynchronizeStream(env().stream);
  }
  aclrtSynchronizeStream(env().stream);
}

BENCHMARK(Phase1<AddOp>)->Name("Phase1/Add16");
BENCHMARK(Phase2Enqueue<AddOp>)->Name("Phase2Enqueue/Add16");
BENCHMARK(Phase2Sync<AddOp>)->Name("Phase2Sync/Add16");
BENCHMARK(OneShot<AddOp>)->Name("OneShot/Add16");
BENCHMARK(Phase1<MmOp<64>>)->Name("Phase1/Mm64");
BENCHMARK(Phase2Enqueue<MmOp<64>>)->Name("Phase2Enqueue/Mm64");
BENCHMARK(Phase2Sync<MmOp<64>>)->Name("Phase2Sync/Mm64");
BENCHMARK(OneShot<MmOp<64>>)->Name("OneShot/Mm64");
// Through the op API at sizes where a second thread pays off only if waking it is cheap.
BENCHMARK(Phase2Sync<MmOp<128>>)->Name("Phase2Sync/Mm128");
BENCHMARK(Phase2Sync<MmOp<256>>)->Name("Phase2Sync/Mm256");

}  // namespace

BENCHMARK_MAIN();

// aclnnGroupedMatmulV3 (x [M, K] split along M by the group list, weight [G, K, N], y [M, N]: the MoE
// expert layer) against the same groups as a loop of aclnnMatmul calls, one per group, on views of the
// same buffers. Phase 2 + synchronize on repeatable executors (phase 1 outside the timing).
//   Moe<dtype>: M = 512 tokens, K = N = 1024, G = 8 experts, uneven groups (one empty);
//   Small<dtype>: M = 64, K = N = 512, G = 16 (mostly 4-row groups: launch and small-M cost);
//   Int8Moe / Int8Small: the int8 quantised form (INT8 x / weight, FLOAT scale [G, N], BF16 y) on the same
//   shapes against a loop of aclnnQuantMatmulV3 calls.
// Counter: GFLOP/s (2 M K N).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grouped_matmul_v3.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_quant_matmul_v3.h"
#include "bench_env.h"
#include "common/half.h"

namespace {

using opsnn::bench::env;

struct Buf {
  void *p = nullptr;
  Buf(int64_t n, aclDataType dt) {
    const size_t es = aclDataTypeSize(dt);
    aclrtMalloc(&p, static_cast<size_t>(n) * es + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<unsigned char> h(static_cast<size_t>(n) * es);
    uint32_t s = 12345;
    for (int64_t i = 0; i < n; ++i) {
      s = s * 1664525u + 1013904223u;
      const float v = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
      if (dt == ACL_INT8) {
        h[static_cast<size_t>(i)] = static_cast<unsigned char>(static_cast<int8_t>(v * 127.0f));
      } else if (dt == ACL_FLOAT) {
        std::memcpy(&h[static_cast<size_t>(i) * 4], &v, 4);
      } else {
        const uint16_t b = dt == ACL_BF16 ? opsnn::float_to_bf16(v) : opsnn::float_to_half(v);
        std::memcpy(&h[static_cast<size_t>(i) * 2], &b, 2);
      }
    }
    aclrtMemcpy(p, h.size(), h.data(), h.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  }
  ~Buf() { aclrtFree(p); }
};

// A row-major view [rows, cols] starting `offset` elements into the buffer (storage: the whole view).
aclTensor *view(void *p, std::vector<int64_t> shape, aclDataType dt, int64_t offset = 0) {
  std::vector<int64_t> st(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * shape[d + 1];
  return aclCreateTensor(shape.data(), shape.size(), dt, st.data(), offset, ACL_FORMAT_ND, shape.data(), shape.size(), p);
}

std::vector<int64_t> groups_of(int64_t m, int64_t g, bool uneven) {
  std::vector<int64_t> rows(static_cast<size_t>(g), m / g);
  if (uneven && g >= 4) {  // one expert idle, one twice as busy
    rows[1] += rows[2];
    rows[2] = 0;
  }
  int64_t sum = 0;
  for (int64_t r : rows) sum += r;
  rows.back() += m - sum;
  return rows;
}

// dt: y's dtype; int8: x / weight INT8 with a FLOAT scale per group and output channel.
void grouped(benchmark::State &state, int64_t M, int64_t K, int64_t N, int64_t G, aclDataType dt, bool loop,
             bool int8 = false) {
  const aclDataType in = int8 ? ACL_INT8 : dt;
  Buf x(M * K, in), w(G * K * N, in), y(M * N, dt), gl(G, ACL_INT64), sc(G * N, ACL_FLOAT);
  const std::vector<int64_t> rows = groups_of(M, G, true);
  std::vector<int64_t> ends;
  int64_t e = 0;
  for (int64_t r : rows) ends.push_back(e += r);
  aclrtMemcpy(gl.p, ends.size() * 8, ends.data(), ends.size() * 8, ACL_MEMCPY_HOST_TO_DEVICE);
  std::vector<aclOpExecutor *> exs;
  std::vector<aclTensor *> own;  // descriptors the loop form keeps
  uint64_t ws_max = 0;
  if (!loop) {
    aclTensor *xt = view(x.p, {M, K}, in), *wt = view(w.p, {G, K, N}, in), *yt = view(y.p, {M, N}, dt);
    aclTensor *glt = view(gl.p, {G}, ACL_INT64), *st = view(sc.p, {G, N}, ACL_FLOAT);
    aclTensorList *xl = aclCreateTensorList(&xt, 1), *wl = aclCreateTensorList(&wt, 1), *yl = aclCreateTensorList(&yt, 1);
    aclTensorList *sl = int8 ? aclCreateTensorList(&st, 1) : nullptr;
    if (!int8) aclDestroyTensor(st);
    aclOpExecutor *ex = nullptr;
    if (aclnnGroupedMatmulV3GetWorkspaceSize(xl, wl, nullptr, sl, nullptr, nullptr, nullptr, glt, 3, 0, yl,
                                             &ws_max, &ex) != 0) {
      state.SkipWithError(aclGetRecentErrMsg());
      return;
    }
    aclSetAclOpExecutorRepeatable(ex);
    exs.push_back(ex);
    aclDestroyTensorList(xl);
    aclDestroyTensorList(wl);
    aclDestroyTensorList(yl);
    if (sl != nullptr) aclDestroyTensorList(sl);
    aclDestroyTensor(glt);
  } else {
    int64_t r0 = 0;
    for (int64_t g = 0; g < G; ++g) {
      const int64_t m = rows[static_cast<size_t>(g)];
      if (m == 0) continue;
      aclTensor *xt = view(x.p, {m, K}, in, r0 * K), *wt = view(w.p, {K, N}, in, g * K * N),
                *yt = view(y.p, {m, N}, dt, r0 * N), *st = view(sc.p, {N}, ACL_FLOAT, g * N);
      own.insert(own.end(), {xt, wt, yt, st});
      uint64_t ws = 0;
      aclOpExecutor *ex = nullptr;
      if ((int8 ? aclnnQuantMatmulV3GetWorkspaceSize(xt, wt, st, nullptr, nullptr, false, false, yt, &ws, &ex)
                : aclnnMatmulGetWorkspaceSize(xt, wt, yt, 0, &ws, &ex)) != 0) {
        state.SkipWithError(aclGetRecentErrMsg());
        return;
      }
      aclSetAclOpExecutorRepeatable(ex);
      exs.push_back(ex);
      ws_max = std::max(ws_max, ws);
      r0 += m;
    }
  }
  void *wsp = nullptr;
  if (ws_max > 0) aclrtMalloc(&wsp, ws_max, ACL_MEM_MALLOC_HUGE_FIRST);
  for (auto _ : state) {
    for (aclOpExecutor *ex : exs)
      !loop ? aclnnGroupedMatmulV3(wsp, ws_max, ex, env().stream)
            : int8 ? aclnnQuantMatmulV3(wsp, ws_max, ex, env().stream) : aclnnMatmul(wsp, ws_max, ex, env().stream);
    aclrtSynchronizeStream(env().stream);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(M) * K * N * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  for (aclOpExecutor *ex : exs) aclDestroyAclOpExecutor(ex);
  for (aclTensor *t : own) aclDestroyTensor(t);
  if (wsp != nullptr) aclrtFree(wsp);
}

void MoeF32(benchmark::State &s) { grouped(s, 512, 1024, 1024, 8, ACL_FLOAT, false); }
void MoeF32MatmulLoop(benchmark::State &s) { grouped(s, 512, 1024, 1024, 8, ACL_FLOAT, true); }
void MoeBf16(benchmark::State &s) { grouped(s, 512, 1024, 1024, 8, ACL_BF16, false); }
void MoeBf16MatmulLoop(benchmark::State &s) { grouped(s, 512, 1024, 1024, 8, ACL_BF16, true); }
void SmallF32(benchmark::State &s) { grouped(s, 64, 512, 512, 16, ACL_FLOAT, false); }
void SmallF32MatmulLoop(benchmark::State &s) { grouped(s, 64, 512, 512, 16, ACL_FLOAT, true); }
void Int8Moe(benchmark::State &s) { grouped(s, 512, 1024, 1024, 8, ACL_BF16, false, true); }
void Int8MoeQuantMatmulLoop(benchmark::State &s) { grouped(s, 512, 1024, 1024, 8, ACL_BF16, true, true); }
void Int8Small(benchmark::State &s) { grouped(s, 64, 512, 512, 16, ACL_BF16, false, true); }
void Int8SmallQuantMatmulLoop(benchmark::State &s) { grouped(s, 64, 512, 512, 16, ACL_BF16, true, true); }

}  // namespace

BENCHMARK(MoeF32)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(MoeF32MatmulLoop)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(MoeBf16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(MoeBf16MatmulLoop)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(SmallF32)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(SmallF32MatmulLoop)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Int8Moe)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->MinTime(0.5);
BENCHMARK(Int8MoeQuantMatmulLoop)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->MinTime(0.5);
BENCHMARK(Int8Small)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->MinTime(0.5);
BENCHMARK(Int8SmallQuantMatmulLoop)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->MinTime(0.5);

BENCHMARK_MAIN();

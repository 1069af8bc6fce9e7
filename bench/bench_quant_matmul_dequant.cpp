// aclnnQuantMatmulDequant (FLOAT16 x [M, 2048] quantised per token on the fly, INT8 weight [2048, 2048]
// stored [N, K] (transposeWeight), FLOAT weightScale, FLOAT16 out) through the public API, phase 2 +
// synchronize on a repeatable executor, against the unfused sequence of our own ops computing the same
// thing: aclnnDynamicQuant (x -> INT8 + per-row scale) then aclnnQuantMatmulV4 (pertokenScale = that
// scale). Arg: M (16: decode-like, 256: prefill-like).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_dynamic_quant.h"
#include "aclnnop/aclnn_quant_matmul_dequant.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "bench_env.h"

namespace {

constexpr int64_t kK = 2048, kN = 2048;

// A device buffer of `bytes` holding a small repeating pattern (valid FLOAT16 / INT8 / FLOAT values).
void *device_pattern(size_t bytes, unsigned char mask) {
  std::vector<unsigned char> h(bytes);
  for (size_t i = 0; i < bytes; ++i) h[i] = static_cast<unsigned char>((i * 37 + 11) & mask);
  void *p = nullptr;
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(p, bytes, h.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  return p;
}

struct Buffers {
  int64_t m;
  void *x, *w, *ws, *out, *xq, *xs;
  aclTensor *tx, *tw, *tws, *tout, *txq, *txs;
  explicit Buffers(int64_t m_) : m(m_) {
    using opsnn::bench::contiguous_tensor;
    x = device_pattern(static_cast<size_t>(m * kK) * 2, 0x3F);  // FLOAT16 bit patterns: small positive values
    w = device_pattern(static_cast<size_t>(kN * kK), 0x7F);
    std::vector<float> scale(kN, 1e-3f);
    aclrtMalloc(&ws, kN * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(ws, kN * 4, scale.data(), kN * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMalloc(&out, static_cast<size_t>(m * kN) * 2, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&xq, static_cast<size_t>(m * kK), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&xs, static_cast<size_t>(m) * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    tx = contiguous_tensor({m, kK}, ACL_FLOAT16, x);
    tw = contiguous_tensor({kN, kK}, ACL_INT8, w);
    tws = contiguous_tensor({kN}, ACL_FLOAT, ws);
    tout = contiguous_tensor({m, kN}, ACL_FLOAT16, out);
    txq = contiguous_tensor({m, kK}, ACL_INT8, xq);
    txs = contiguous_tensor({m}, ACL_FLOAT, xs);
  }
  ~Buffers() {
    for (aclTensor *t : {tx, tw, tws, tout, txq, txs}) aclDestroyTensor(t);
    for (void *p : {x, w, ws, out, xq, xs}) aclrtFree(p);
  }
};

using Launch = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
struct Exec {
  aclOpExecutor *ex = nullptr;
  uint64_t size = 0;
  void *ws = nullptr;
  Launch launch = nullptr;
  bool ok = false;
  template <class F>
  Exec(F phase1, Launch l) : launch(l) {
    ok = phase1(&size, &ex) == 0;
    if (!ok) return;
    aclSetAclOpExecutorRepeatable(ex);
    if (size > 0) aclrtMalloc(&ws, size, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  void run() const { launch(ws, size, ex, opsnn::bench::env().stream); }
  ~Exec() {
    if (ex != nullptr) aclDestroyAclOpExecutor(ex);
    if (ws != nullptr) aclrtFree(ws);
  }
};

void OpsnnQuantMatmulDequant(benchmark::State &state) {
  auto &e = opsnn::bench::env();
  Buffers b(state.range(0));
  char mode[] = "pertoken";
  Exec op([&](uint64_t *s, aclOpExecutor **x) {
    return aclnnQuantMatmulDequantGetWorkspaceSize(b.tx, b.tw, b.tws, nullptr, nullptr, nullptr, nullptr, mode, true,
                                                   b.tout, s, x);
  }, aclnnQuantMatmulDequant);
  if (!op.ok) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  op.run();
  aclrtSynchronizeStream(e.stream);
  for (auto _ : state) {
    op.run();
    aclrtSynchronizeStream(e.stream);
  }
}
BENCHMARK(OpsnnQuantMatmulDequant)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

void UnfusedDynamicQuantThenQuantMatmulV4(benchmark::State &state) {
  auto &e = opsnn::bench::env();
  Buffers b(state.range(0));
  Exec quant([&](uint64_t *s, aclOpExecutor **x) {
    return aclnnDynamicQuantGetWorkspaceSize(b.tx, nullptr, b.txq, b.txs, s, x);
  }, aclnnDynamicQuant);
  Exec mm([&](uint64_t *s, aclOpExecutor **x) {
    return aclnnQuantMatmulV4GetWorkspaceSize(b.txq, b.tw, b.tws, nullptr, b.txs, nullptr, false, true, b.tout, s, x);
  }, aclnnQuantMatmulV4);
  if (!quant.ok || !mm.ok) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  quant.run();
  mm.run();
  aclrtSynchronizeStream(e.stream);
  for (auto _ : state) {
    quant.run();
    mm.run();
    aclrtSynchronizeStream(e.stream);
  }
}
BENCHMARK(UnfusedDynamicQuantThenQuantMatmulV4)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

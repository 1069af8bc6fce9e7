// DynamicQuant (per-token symmetric INT8) of a [4096, 4096] FLOAT16 x through the public API: phase 2 +
// synchronize on a repeatable executor (phase 1 outside the timing). bench/compare_quant_torch.py
// times the PyTorch composition of the same formula; with OPSNN_NUM_THREADS=1 both run on one thread.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_dynamic_quant.h"
#include "bench_env.h"

namespace {

// A device buffer of `bytes`, its 16-bit words a fixed pseudo-random FLOAT16 pattern in [-2, 2) when asked.
void *device_buffer(size_t bytes, bool fp16_pattern) {
  void *p = nullptr;
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  if (fp16_pattern) {
    std::vector<uint16_t> h(bytes / 2);
    uint32_t s = 12345;
    for (auto &v : h) {
      s = s * 1664525u + 1013904223u;
      v = static_cast<uint16_t>(0x3C00u + ((s >> 16) & 0x3FFu)) | static_cast<uint16_t>((s >> 31) << 15);  // +-[1, 2)
    }
    aclrtMemcpy(p, bytes, h.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  return p;
}

void DynamicQuantFp16(benchmark::State &state) {
  const int64_t m = 4096, n = 4096;
  auto &e = opsnn::bench::env();
  void *xp = device_buffer(m * n * 2, true), *yp = device_buffer(m * n, false), *sp = device_buffer(m * 4, false);
  using opsnn::bench::contiguous_tensor;
  aclTensor *x = contiguous_tensor({m, n}, ACL_FLOAT16, xp), *y = contiguous_tensor({m, n}, ACL_INT8, yp),
            *s = contiguous_tensor({m}, ACL_FLOAT, sp);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (aclnnDynamicQuantGetWorkspaceSize(x, nullptr, y, s, &ws, &ex) != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *w = ws > 0 ? device_buffer(ws, false) : nullptr;
  aclnnDynamicQuant(w, ws, ex, e.stream);  // warm-up
  aclrtSynchronizeStream(e.stream);
  for (auto _ : state) {
    aclnnDynamicQuant(w, ws, ex, e.stream);
    aclrtSynchronizeStream(e.stream);
  }
  aclDestroyAclOpExecutor(ex);
  for (aclTensor *t : {x, y, s}) aclDestroyTensor(t);
  for (void *p : {xp, yp, sp, w})
    if (p != nullptr) aclrtFree(p);
}
BENCHMARK(DynamicQuantFp16)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

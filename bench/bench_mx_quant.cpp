// DynamicMxQuant of a [4096, 4096] BF16 x along its last dim (blocks of 32, FLOAT8_E4M3FN and FLOAT4_E2M1,
// scaleAlg 0, rint) through the public API: phase 2 + synchronize on a repeatable executor (phase 1 outside
// the timing). GB/s count x read, y and the E8M0 scales written. No CPU library implements the MX formats'
// quantisation to compare with (PyTorch 1.13 has no FLOAT8 / FLOAT4 dtypes). OPSNN_NUM_THREADS=1: one thread.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_dynamic_mx_quant.h"
#include "bench_env.h"
#include "bench_timed_executor.h"

namespace {

using opsnn::bench::contiguous_tensor;

void DynamicMxQuantBf16(benchmark::State &state, aclDataType dst) {
  const int64_t m = 4096, n = 4096, bs = 32;
  const bool fp4 = dst == ACL_FLOAT4_E2M1;
  const int64_t y_bytes = fp4 ? m * n / 2 : m * n, s_bytes = m * (n / bs);
  void *xp = nullptr, *yp = nullptr, *sp = nullptr;
  aclrtMalloc(&xp, m * n * 2, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&yp, y_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&sp, s_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::vector<uint16_t> h(static_cast<size_t>(m * n));
  uint32_t s = 12345;
  for (auto &v : h) {  // BF16 of +-[1, 2) * 2^[-8, 8): blocks of varied ranges
    s = s * 1664525u + 1013904223u;
    v = static_cast<uint16_t>(((119u + ((s >> 8) & 15u)) << 7) | ((s >> 16) & 0x7Fu) | ((s >> 31) << 15));
  }
  aclrtMemcpy(xp, m * n * 2, h.data(), m * n * 2, ACL_MEMCPY_HOST_TO_DEVICE);
  aclTensor *x = contiguous_tensor({m, n}, ACL_BF16, xp), *y = contiguous_tensor({m, n}, dst, yp),
            *sc = contiguous_tensor({m, n / bs / 2, 2}, ACL_FLOAT8_E8M0, sp);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  static char rint[] = "rint";
  const int status = aclnnDynamicMxQuantGetWorkspaceSize(x, -1, rint, dst, bs, 0, y, sc, &ws, &ex);
  opsnn::bench::time_executor(state, status, ws, ex, aclnnDynamicMxQuant);
  state.SetBytesProcessed(state.iterations() * (m * n * 2 + y_bytes + s_bytes));
  for (aclTensor *t : {x, y, sc}) aclDestroyTensor(t);
  for (void *p : {xp, yp, sp}) aclrtFree(p);
}
BENCHMARK_CAPTURE(DynamicMxQuantBf16, fp8_e4m3, ACL_FLOAT8_E4M3FN)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(DynamicMxQuantBf16, fp4_e2m1, ACL_FLOAT4_E2M1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// Sparse4to2QuantMatmulWeightNz through the public API against the same product with the dense weight
// (QuantMatmulV4, x2 [n, k] transposed, the same scales and BF16 out): the sparse op decodes its 2:4 weight
// into a kept dense copy at an executor's first launch, then runs the same int8 GEMM. "steady": phase 2 +
// synchronize on a repeatable executor; "first_launch": phase 1 + phase 2 + synchronize per iteration (the
// decode included). x INT8 [m, 4096], weight [4096, 4096] with 2 non-zeros in every 4.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "aclnnop/aclnn_sparse4to2quant_matmul_weight_nz.h"
#include "bench_env.h"
#include "bench_timed_executor.h"

namespace {

using opsnn::bench::contiguous_tensor;
constexpr int64_t kK = 4096, kN = 4096;

void *device_copy(const void *h, size_t bytes) {
  void *p = nullptr;
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(p, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  return p;
}

struct Problem {
  int64_t m;
  std::vector<void *> bufs;
  aclTensor *x, *w, *values, *codes, *xs, *ws, *out;
  explicit Problem(int64_t rows) : m(rows) {
    std::vector<int8_t> hx(static_cast<size_t>(m * kK)), hw(static_cast<size_t>(kN * kK), 0);
    uint32_t s = 7;
    auto next = [&] { return s = s * 1664525u + 1013904223u; };
    for (auto &v : hx) v = static_cast<int8_t>(next() >> 24);
    for (size_t g = 0; g < hw.size(); g += 4) {  // two non-zeros at distinct places of each group
      const uint32_t a = next() >> 30, b = (a + 1 + (next() >> 31)) % 4;
      hw[g + a] = static_cast<int8_t>((next() >> 25) | 1);
      hw[g + b] = static_cast<int8_t>((next() >> 25) | 1);
    }
    const int64_t dims[2] = {kN, kK};
    aclIntArray *shape = aclCreateIntArray(dims, 2);
    int8_t *sv = nullptr;
    uint8_t *sc = nullptr;
    int64_t *vd = nullptr, *cd = nullptr;
    uint64_t vn = 0, cn = 0;
    aclnnTransSparse4to2Para(hw.data(), shape, &sv, &vd, &vn, &sc, &cd, &cn);
    aclDestroyIntArray(shape);
    const int64_t ve = vd[0] * vd[1] * vd[2] * vd[3], ce = cd[0] * cd[1] * cd[2] * cd[3];
    std::vector<float> hs(static_cast<size_t>(m), 0.01f), hws(static_cast<size_t>(kN), 0.02f);
    bufs = {device_copy(hx.data(), hx.size()), device_copy(hw.data(), hw.size()), device_copy(sv, ve),
            device_copy(sc, ce), device_copy(hs.data(), hs.size() * 4), device_copy(hws.data(), hws.size() * 4),
            nullptr};
    aclrtMalloc(&bufs[6], m * kN * 2, ACL_MEM_MALLOC_HUGE_FIRST);
    x = contiguous_tensor({m, kK}, ACL_INT8, bufs[0]);
    const int64_t wt_strides[2] = {1, kK}, w_dims[2] = {kK, kN}, w_storage[2] = {kN, kK};
    w = aclCreateTensor(w_dims, 2, ACL_INT8, wt_strides, 0, ACL_FORMAT_ND, w_storage, 2, bufs[1]);  // [k, n] view of [n, k]
    const int64_t v_dims[2] = {kN, kK / 2}, v_strides[2] = {kK / 2, 1}, c_dims[2] = {kN, kK / 8}, c_strides[2] = {kK / 8, 1};
    values = aclCreateTensor(v_dims, 2, ACL_INT8, v_strides, 0, ACL_FORMAT_FRACTAL_NZ, vd, 4, bufs[2]);
    codes = aclCreateTensor(c_dims, 2, ACL_UINT8, c_strides, 0, ACL_FORMAT_ND, cd, 4, bufs[3]);
    xs = contiguous_tensor({m}, ACL_FLOAT, bufs[4]);
    ws = contiguous_tensor({kN}, ACL_FLOAT, bufs[5]);
    out = contiguous_tensor({m, kN}, ACL_BF16, bufs[6]);
    for (void *p : {static_cast<void *>(sv), static_cast<void *>(sc), static_cast<void *>(vd), static_cast<void *>(cd)})
      std::free(p);
  }
  ~Problem() {
    for (aclTensor *t : {x, w, values, codes, xs, ws, out}) aclDestroyTensor(t);
    for (void *p : bufs) aclrtFree(p);
  }
  int sparse_phase1(uint64_t *size, aclOpExecutor **ex) const {
    return aclnnSparse4to2QuantMatmulWeightNzGetWorkspaceSize(x, values, codes, xs, ws, nullptr, out, size, ex);
  }
};

void SparseSteady(benchmark::State &state) {
  Problem p(state.range(0));
  uint64_t size = 0;
  aclOpExecutor *ex = nullptr;
  const int status = p.sparse_phase1(&size, &ex);
  opsnn::bench::time_executor(state, status, size, ex, aclnnSparse4to2QuantMatmulWeightNz);
}

void SparseFirstLaunch(benchmark::State &state) {
  Problem p(state.range(0));
  for (auto _ : state) {
    uint64_t size = 0;
    aclOpExecutor *ex = nullptr;
    if (p.sparse_phase1(&size, &ex) != 0) {
      state.SkipWithError(aclGetRecentErrMsg());
      return;
    }
    void *wsp = nullptr;
    if (size > 0) aclrtMalloc(&wsp, size, ACL_MEM_MALLOC_HUGE_FIRST);
    aclnnSparse4to2QuantMatmulWeightNz(wsp, size, ex, opsnn::bench::env().stream);
    aclrtSynchronizeStream(opsnn::bench::env().stream);
    if (wsp != nullptr) aclrtFree(wsp);
  }
}

void DenseQuantMatmulV4(benchmark::State &state) {
  Problem p(state.range(0));
  uint64_t size = 0;
  aclOpExecutor *ex = nullptr;
  const int status = aclnnQuantMatmulV4GetWorkspaceSize(p.x, p.w, p.ws, nullptr, p.xs, nullptr, false, false, p.out,
                                                        &size, &ex);
  opsnn::bench::time_executor(state, status, size, ex, aclnnQuantMatmulV4);
}

BENCHMARK(SparseSteady)->Arg(16)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(DenseQuantMatmulV4)->Arg(16)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SparseFirstLaunch)->Arg(16)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

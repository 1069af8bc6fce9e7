// aclnnFusedMatmul (FLOAT x1 [512, 1024] @ x2 [1024, 1024] + bias, fusedOpType "", gelu_erf, gelu_tanh:
// the GEMM engine's epilogue) through the public API, phase 2 + synchronize on a repeatable executor, against
// oneDNN's f32 matmul with a bias and an eltwise_gelu_erf post-op in the same process.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fused_matmul.h"
#include "bench_env.h"

#if defined(OPSNN_HAVE_DNNL)
#include <oneapi/dnnl/dnnl.hpp>  // oneDNN 2.x and later
#endif

namespace {

constexpr int64_t kM = 512, kK = 1024, kN = 1024;

std::vector<float> pattern(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (auto &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>((seed >> 8) & 0xFFFF) / 65536.0f - 0.5f;
  }
  return v;
}

void *device_copy(const std::vector<float> &h) {
  void *p = nullptr;
  const size_t bytes = h.size() * sizeof(float);
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMemcpy(p, bytes, h.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  return p;
}

// Arg: 0 fusedOpType "" (the plain GEMM + bias), 1 "gelu_erf", 2 "gelu_tanh".
void OpsnnFusedMatmul(benchmark::State &state) {
  static const char *const kOps[] = {"", "gelu_erf", "gelu_tanh"};
  const char *op = kOps[state.range(0)];
  state.SetLabel(op[0] ? op : "none");
  auto &e = opsnn::bench::env();
  void *ap = device_copy(pattern(kM * kK, 1)), *bp = device_copy(pattern(kK * kN, 2)),
       *biasp = device_copy(pattern(kN, 3)), *yp = device_copy(std::vector<float>(kM * kN));
  using opsnn::bench::contiguous_tensor;
  aclTensor *a = contiguous_tensor({kM, kK}, ACL_FLOAT, ap), *b = contiguous_tensor({kK, kN}, ACL_FLOAT, bp),
            *bias = contiguous_tensor({kN}, ACL_FLOAT, biasp), *y = contiguous_tensor({kM, kN}, ACL_FLOAT, yp);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (aclnnFusedMatmulGetWorkspaceSize(a, b, bias, nullptr, op, 0, y, &ws, &ex) != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  aclnnFusedMatmul(w, ws, ex, e.stream);  // warm-up
  aclrtSynchronizeStream(e.stream);
  for (auto _ : state) {
    aclnnFusedMatmul(w, ws, ex, e.stream);
    aclrtSynchronizeStream(e.stream);
  }
  aclDestroyAclOpExecutor(ex);
  for (aclTensor *t : {a, b, bias, y}) aclDestroyTensor(t);
  for (void *p : {ap, bp, biasp, yp, w})
    if (p != nullptr) aclrtFree(p);
}
BENCHMARK(OpsnnFusedMatmul)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

#if defined(OPSNN_HAVE_DNNL)
void DnnlMatmulBiasGeluErf(benchmark::State &state) {
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::memory::desc a_md({kM, kK}, dt::f32, tag::ab), b_md({kK, kN}, dt::f32, tag::ab),
      bias_md({1, kN}, dt::f32, tag::ab), c_md({kM, kN}, dt::f32, tag::ab);
  dnnl::post_ops po;
  po.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, bias_md, c_md), attr, eng);
  auto av = pattern(kM * kK, 1), bv = pattern(kK * kN, 2), biasv = pattern(kN, 3);
  std::vector<float> cv(static_cast<size_t>(kM * kN));
  dnnl::memory a(a_md, eng, av.data()), b(b_md, eng, bv.data()), bias(bias_md, eng, biasv.data()),
      c(c_md, eng, cv.data());
  dnnl::matmul prim(pd);
  auto run = [&] {
    prim.execute(strm, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, c}});
    strm.wait();
  };
  run();
  for (auto _ : state) run();
}
BENCHMARK(DnnlMatmulBiasGeluErf)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

}  // namespace

BENCHMARK_MAIN();

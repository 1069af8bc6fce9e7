// The *WeightNz APIs against their plain twins on the same logical weight: what reading the
// weight from FRACTAL_NZ / FRACTAL_Z_3D blocks costs (read in place, or from a dense copy made at
// the first launch and kept: docs/ARCHITECTURE.md, "Blocked (NZ) weights"). Repeatable executors
// built once and relaunched (launch + kernel + synchronise), median of --reps repeats of --iters
// launches, wall clock.
// Usage: bench_weight_nz [--iters N] [--reps N]
// Cases: MatmulWeightNz vs Matmul (BF16, M 1 / 16 / 256, K = N = 2048), QuantMatmulWeightNz vs
// QuantMatmulV4 (INT8, same shapes, FLOAT16 out), QuantConvolutionWeightNz vs QuantConvolution
// (INT8 NCDHW [1, 64, 8, 28, 28] x [64, 64, 3, 3, 3], padding 1).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_quant_convolution.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "aclnnop/aclnn_quant_matmul_weight_nz.h"
#include "bench_env.h"

namespace {

using Launch = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A device tensor of `view` dims (contiguous strides) in `format`, with `storage` dims (empty: the
// view's element count), bytes set to a small pattern.
struct Tensor {
  void *data = nullptr;
  aclTensor *t = nullptr;
  Tensor(std::vector<int64_t> view, aclDataType dt, aclFormat format = ACL_FORMAT_ND, std::vector<int64_t> storage = {}) {
    std::vector<int64_t> strides(view.size(), 1);
    for (size_t i = view.size(); i-- > 1;) strides[i - 1] = strides[i] * view[i];
    int64_t elems = 1;
    if (storage.empty()) {
      for (int64_t d : view) elems *= d;
      storage = {elems};
    } else {
      for (int64_t d : storage) elems *= d;
    }
    const size_t bytes = static_cast<size_t>(elems) * aclDataTypeSize(dt);
    aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    auto *p = static_cast<unsigned char *>(data);
    for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>((i * 37 + 11) & 0x3F);  // small values
    t = aclCreateTensor(view.data(), view.size(), dt, strides.data(), 0, format, storage.data(), storage.size(), data);
  }
  ~Tensor() {
    aclDestroyTensor(t);
    aclrtFree(data);
  }
};


// Median over reps of the mean time of one launch (iters launches, then one synchronise).
double time_executor(aclOpExecutor *ex, uint64_t ws_size, Launch launch, int iters, int reps) {
  aclrtStream s = opsnn::bench::env().stream;
  aclSetAclOpExecutorRepeatable(ex);
  void *ws = nullptr;
  if (ws_size > 0) aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST);
  for (int i = 0; i < 3; ++i) launch(ws, ws_size, ex, s);
  aclrtSynchronizeStream(s);
  std::vector<double> v;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) launch(ws, ws_size, ex, s);
    aclrtSynchronizeStream(s);
    v.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / iters);
  }
  aclDestroyAclOpExecutor(ex);
  if (ws) aclrtFree(ws);
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double run(const std::function<aclnnStatus(uint64_t *, aclOpExecutor **)> &phase1, Launch launch, int iters,
           int reps) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (phase1(&ws, &ex) != 0) {
    std::fprintf(stderr, "phase 1 failed: %s\n", aclGetRecentErrMsg());
    std::exit(1);
  }
  return time_executor(ex, ws, launch, iters, reps);
}

void report(const std::string &name, double plain, double nz) {
  std::printf("%-44s plain %9.4f ms  WeightNz %9.4f ms  NZ/plain %.3f\n", name.c_str(), plain, nz, nz / plain);
}

}  // namespace

int main(int argc, char **argv) {
  int iters = 20, reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iters")) iters = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  opsnn::bench::env();
  const int64_t K = 2048, N = 2048;
  for (int64_t M : {1, 16, 256}) {
    Tensor a({M, K}, ACL_BF16), b({K, N}, ACL_BF16), out({M, N}, ACL_BF16);
    Tensor bnz({K, N}, ACL_BF16, ACL_FORMAT_FRACTAL_NZ, {ceil_div(N, 16), ceil_div(K, 16), 16, 16});
    const double plain = run([&](uint64_t *w, aclOpExecutor **e) { return aclnnMatmulGetWorkspaceSize(a.t, b.t, out.t, 0, w, e); },
                             aclnnMatmul, iters, reps);
    const double nz = run([&](uint64_t *w, aclOpExecutor **e) { return aclnnMatmulWeightNzGetWorkspaceSize(a.t, bnz.t, out.t, 0, w, e); },
                          aclnnMatmulWeightNz, iters, reps);
    report("Matmul BF16 M " + std::to_string(M) + " K 2048 N 2048", plain, nz);
  }
  for (int64_t M : {1, 16, 256}) {
    Tensor x1({M, K}, ACL_INT8), x2({K, N}, ACL_INT8), sc({N}, ACL_FLOAT), out({M, N}, ACL_FLOAT16);
    Tensor x2nz({K, N}, ACL_INT8, ACL_FORMAT_FRACTAL_NZ, {ceil_div(N, 32), ceil_div(K, 16), 16, 32});
    const double plain = run(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnQuantMatmulV4GetWorkspaceSize(x1.t, x2.t, sc.t, nullptr, nullptr, nullptr, false, false, out.t, w, e);
        },
        aclnnQuantMatmulV4, iters, reps);
    const double nz = run(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnQuantMatmulWeightNzGetWorkspaceSize(x1.t, x2nz.t, nullptr, sc.t, nullptr, nullptr, nullptr, nullptr,
                                                          nullptr, false, false, 0, out.t, w, e);
        },
        aclnnQuantMatmulWeightNz, iters, reps);
    report("QuantMatmul INT8 M " + std::to_string(M) + " K 2048 N 2048", plain, nz);
  }
  {
    const int64_t C = 64;
    Tensor x({1, C, 8, 28, 28}, ACL_INT8), w({C, C, 3, 3, 3}, ACL_INT8), sc({C}, ACL_FLOAT),
        out({1, C, 8, 28, 28}, ACL_FLOAT16);
    Tensor wnz({C, C, 3, 3, 3}, ACL_INT8, ACL_FRACTAL_Z_3D, {3 * ceil_div(C, 32) * 3 * 3, ceil_div(C, 16), 16, 32});
    std::vector<int64_t> one{1, 1, 1}, pad{1, 1, 1}, zero{0, 0, 0};
    aclIntArray *st = aclCreateIntArray(one.data(), 3), *pd = aclCreateIntArray(pad.data(), 3),
                *dl = aclCreateIntArray(one.data(), 3), *op = aclCreateIntArray(zero.data(), 3);
    auto conv = [&](aclTensor *weight, bool nz_api) {
      return [&, weight, nz_api](uint64_t *ws, aclOpExecutor **e) {
        return nz_api ? aclnnQuantConvolutionWeightNzGetWorkspaceSize(x.t, weight, nullptr, sc.t, nullptr, st, pd, dl,
                                                                      false, op, 1, 0, nullptr, out.t, ws, e)
                      : aclnnQuantConvolutionGetWorkspaceSize(x.t, weight, nullptr, sc.t, nullptr, st, pd, dl, false, op,
                                                              1, 0, nullptr, out.t, ws, e);
      };
    };
    const double plain = run(conv(w.t, false), aclnnQuantConvolution, std::max(1, iters / 4), reps);
    const double nz = run(conv(wnz.t, true), aclnnQuantConvolutionWeightNz, std::max(1, iters / 4), reps);
    report("QuantConvolution INT8 [1,64,8,28,28] k3 p1", plain, nz);
    for (aclIntArray *a : {st, pd, dl, op}) aclDestroyIntArray(a);
  }
  return 0;
}

// DynamicQuant (per-token symmetric INT8) of a [4096, 4096] FLOAT16 x through the public API: phase 2 +
// synchronize on a repeatable executor (phase 1 outside the timing). bench/compare_quant_torch.py
// times the PyTorch composition of the same formula; with OPSNN_NUM_THREADS=1 both run on one thread.
// AddRmsNormDynamicQuant on [4096, 4096] FLOAT16 (y1 INT8, xOut, per-row scales), with its peer in the
// same process: the unfused OpsNN composition AddRmsNorm then DynamicQuant (y through memory).
// SwigluGroup (MoE's weighted, clamped SwiGLU) on [4096, 4096] FLOAT16 with a FLOAT per-row weight, with its
// peer in the same process: ClippedSwiglu (alpha 1, bias 0: the same clamps) then Mul by the weight.
// RotateQuant of a [2048, 4096] FLOAT16 x with a [128, 128] rotation (each 128-wide slice of a row times it),
// per-token INT8; bench/compare_quant_torch.py times the torch composition (matmul, then the same quantisation).
// DynamicBlockQuant of a [4096, 4096] FLOAT16 x in 1 x 128 and 128 x 128 blocks, and GroupedDynamicBlockQuant in
// 1 x 128 blocks inside 8 groups of 512 rows (INT8 y, FLOAT block scales).
// SwigluGroupQuant (quantMode 0, INT8) on SwigluGroupWeighted's [4096, 4096] FLOAT16 x and weight, with yOrigin.
// FlatQuant of a [1024, 16, 256] FLOAT16 x with P1 [16, 16], P2 [256, 256] (INT4 out, FLOAT per-slice scales).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add_rms_norm.h"
#include "aclnnop/aclnn_add_rms_norm_dynamic_quant.h"
#include "aclnnop/aclnn_clipped_swiglu.h"
#include "aclnnop/aclnn_dynamic_block_quant.h"
#include "aclnnop/aclnn_dynamic_quant.h"
#include "aclnnop/aclnn_flat_quant.h"
#include "aclnnop/aclnn_grouped_dynamic_block_quant.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_rotate_quant.h"
#include "aclnnop/aclnn_swiglu_group.h"
#include "aclnnop/aclnn_swiglu_group_quant.h"
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

using opsnn::bench::contiguous_tensor;

using Launch = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);

// A repeatable executor of phase 1 with its workspace, launched by `launch`.
struct Planned {
  aclOpExecutor *ex = nullptr;
  void *ws = nullptr;
  uint64_t bytes = 0;
  Launch launch = nullptr;
  void run(aclrtStream s) const { launch(ws, bytes, ex, s); }
  ~Planned() {
    if (ex != nullptr) aclDestroyAclOpExecutor(ex);
    if (ws != nullptr) aclrtFree(ws);
  }
};
bool plan(benchmark::State &state, Planned &p, aclnnStatus status, Launch launch) {
  if (status != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return false;
  }
  aclSetAclOpExecutorRepeatable(p.ex);
  p.ws = p.bytes > 0 ? device_buffer(p.bytes, false) : nullptr;
  p.launch = launch;
  return true;
}

// Times the planned launches in order (phase 2 + synchronize), after one warm-up; `bytes` moved per
// iteration give GB/s.
void time_launches(benchmark::State &state, std::initializer_list<const Planned *> steps, int64_t bytes) {
  auto &e = opsnn::bench::env();
  for (const Planned *p : steps) p->run(e.stream);
  aclrtSynchronizeStream(e.stream);
  for (auto _ : state) {
    for (const Planned *p : steps) p->run(e.stream);
    aclrtSynchronizeStream(e.stream);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

void DynamicQuantFp16(benchmark::State &state) {
  const int64_t m = 4096, n = 4096;
  void *xp = device_buffer(m * n * 2, true), *yp = device_buffer(m * n, false), *sp = device_buffer(m * 4, false);
  aclTensor *x = contiguous_tensor({m, n}, ACL_FLOAT16, xp), *y = contiguous_tensor({m, n}, ACL_INT8, yp), *s = contiguous_tensor({m}, ACL_FLOAT, sp);
  {
    Planned q;
    if (plan(state, q, aclnnDynamicQuantGetWorkspaceSize(x, nullptr, y, s, &q.bytes, &q.ex), aclnnDynamicQuant))
      time_launches(state, {&q}, m * n * 3 + m * 4);
  }
  for (aclTensor *t : {x, y, s}) aclDestroyTensor(t);
  for (void *p : {xp, yp, sp}) aclrtFree(p);
}
BENCHMARK(DynamicQuantFp16)->Unit(benchmark::kMillisecond)->UseRealTime();

// The fused op (fused = true) or AddRmsNorm then DynamicQuant of its y (FLOAT16 through memory).
void AddRmsNormDynamicQuant(benchmark::State &state, bool fused) {
  const int64_t m = 4096, n = 4096;
  void *x1p = device_buffer(m * n * 2, true), *x2p = device_buffer(m * n * 2, true), *gp = device_buffer(n * 2, true);
  void *yp = device_buffer(m * n, false), *xop = device_buffer(m * n * 2, false), *sp = device_buffer(m * 4, false);
  void *nyp = device_buffer(m * n * 2, false), *rp = device_buffer(m * 4, false);
  aclTensor *x1 = contiguous_tensor({m, n}, ACL_FLOAT16, x1p), *x2 = contiguous_tensor({m, n}, ACL_FLOAT16, x2p);
  aclTensor *g = contiguous_tensor({n}, ACL_FLOAT16, gp), *y = contiguous_tensor({m, n}, ACL_INT8, yp);
  aclTensor *xo = contiguous_tensor({m, n}, ACL_FLOAT16, xop), *s = contiguous_tensor({m}, ACL_FLOAT, sp);
  aclTensor *ny = contiguous_tensor({m, n}, ACL_FLOAT16, nyp), *rstd = contiguous_tensor({m, 1}, ACL_FLOAT, rp);
  // read x1, x2; write y1 (INT8), xOut, the scales (the unfused pair also writes and reads y and rstd)
  const int64_t bytes = m * n * (2 + 2 + 1 + 2) + m * 4;
  {
    Planned a, q;
    if (fused) {
      if (plan(state, a,
               aclnnAddRmsNormDynamicQuantGetWorkspaceSize(x1, x2, g, nullptr, nullptr, 1e-6, y, nullptr, xo, s,
                                                           nullptr, &a.bytes, &a.ex),
               aclnnAddRmsNormDynamicQuant))
        time_launches(state, {&a}, bytes);
    } else if (plan(state, a, aclnnAddRmsNormGetWorkspaceSize(x1, x2, g, 1e-6, ny, rstd, xo, &a.bytes, &a.ex),
                    aclnnAddRmsNorm) &&
               plan(state, q, aclnnDynamicQuantGetWorkspaceSize(ny, nullptr, y, s, &q.bytes, &q.ex),
                    aclnnDynamicQuant)) {
      time_launches(state, {&a, &q}, bytes);
    }
  }
  for (aclTensor *t : {x1, x2, g, y, xo, s, ny, rstd}) aclDestroyTensor(t);
  for (void *p : {x1p, x2p, gp, yp, xop, sp, nyp, rp}) aclrtFree(p);
}
BENCHMARK_CAPTURE(AddRmsNormDynamicQuant, Fp16Fused, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(AddRmsNormDynamicQuant, Fp16AddRmsNormThenDynamicQuant, false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// SwigluGroup (fused = true) or ClippedSwiglu then Mul by the per-row weight (the activation through memory).
void SwigluGroupWeighted(benchmark::State &state, bool fused) {
  const int64_t m = 4096, h = 2048;
  void *xp = device_buffer(m * 2 * h * 2, true), *wp = device_buffer(m * 4, false), *yp = device_buffer(m * h * 2, false);
  void *tp = device_buffer(m * h * 2, false);
  {
    std::vector<float> w(static_cast<size_t>(m));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f + static_cast<float>(i % 7) * 0.125f;
    aclrtMemcpy(wp, m * 4, w.data(), m * 4, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  aclTensor *x = contiguous_tensor({m, 2 * h}, ACL_FLOAT16, xp), *w = contiguous_tensor({m, 1}, ACL_FLOAT, wp);
  aclTensor *y = contiguous_tensor({m, h}, ACL_FLOAT16, yp), *t = contiguous_tensor({m, h}, ACL_FLOAT16, tp);
  const int64_t bytes = m * 2 * h * 2 + m * 4 + m * h * 2;  // read x and w, write y
  {
    Planned a, b;
    if (fused) {
      if (plan(state, a, aclnnSwigluGroupGetWorkspaceSize(x, w, nullptr, 1.5, y, &a.bytes, &a.ex), aclnnSwigluGroup))
        time_launches(state, {&a}, bytes);
    } else if (plan(state, a,
                    aclnnClippedSwigluGetWorkspaceSize(x, nullptr, -1, 1.0, 1.5, 0.0, false, t, &a.bytes, &a.ex),
                    aclnnClippedSwiglu) &&
               plan(state, b, aclnnMulGetWorkspaceSize(t, w, y, &b.bytes, &b.ex), aclnnMul)) {
      time_launches(state, {&a, &b}, bytes);
    }
  }
  for (aclTensor *e : {x, w, y, t}) aclDestroyTensor(e);
  for (void *p : {xp, wp, yp, tp}) aclrtFree(p);
}
BENCHMARK_CAPTURE(SwigluGroupWeighted, Fp16Fused, true)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(SwigluGroupWeighted, Fp16ClippedSwigluThenMul, false)->Unit(benchmark::kMillisecond)->UseRealTime();

void SwigluGroupQuantInt8(benchmark::State &state) {
  const int64_t m = 4096, h = 2048;
  void *xp = device_buffer(m * 2 * h * 2, true), *wp = device_buffer(m * 4, false), *yp = device_buffer(m * h, false);
  void *sp = device_buffer(m * (h / 128) * 4, false), *op = device_buffer(m * h * 2, false);
  {
    std::vector<float> w(static_cast<size_t>(m));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f + static_cast<float>(i % 7) * 0.125f;
    aclrtMemcpy(wp, m * 4, w.data(), m * 4, ACL_MEMCPY_HOST_TO_DEVICE);
  }
  aclTensor *x = contiguous_tensor({m, 2 * h}, ACL_FLOAT16, xp), *w = contiguous_tensor({m}, ACL_FLOAT, wp);
  aclTensor *y = contiguous_tensor({m, h}, ACL_INT8, yp), *s = contiguous_tensor({m, h / 128}, ACL_FLOAT, sp);
  aclTensor *o = contiguous_tensor({m, h}, ACL_FLOAT16, op);
  {
    Planned q;
    if (plan(state, q,
             aclnnSwigluGroupQuantGetWorkspaceSize(x, w, nullptr, nullptr, 2, 0, 128, false, 1.5, 0.0, true, y, s, o,
                                                   &q.bytes, &q.ex),
             aclnnSwigluGroupQuant))
      time_launches(state, {&q}, m * 2 * h * 2 + m * 4 + m * h * 3 + m * (h / 128) * 4);
  }
  for (aclTensor *e : {x, w, y, s, o}) aclDestroyTensor(e);
  for (void *p : {xp, wp, yp, sp, op}) aclrtFree(p);
}
BENCHMARK(SwigluGroupQuantInt8)->Unit(benchmark::kMillisecond)->UseRealTime();

void FlatQuantInt4(benchmark::State &state) {
  const int64_t k = 1024, m = 16, n = 256;
  void *xp = device_buffer(k * m * n * 2, true), *p1p = device_buffer(m * m * 2, true), *p2p = device_buffer(n * n * 2, true);
  void *yp = device_buffer(k * m * n / 2, false), *sp = device_buffer(k * 4, false);
  aclTensor *x = contiguous_tensor({k, m, n}, ACL_FLOAT16, xp), *p1 = contiguous_tensor({m, m}, ACL_FLOAT16, p1p);
  aclTensor *p2 = contiguous_tensor({n, n}, ACL_FLOAT16, p2p), *y = contiguous_tensor({k, m, n}, ACL_INT4, yp);
  aclTensor *s = contiguous_tensor({k}, ACL_FLOAT, sp);
  {
    Planned q;
    if (plan(state, q, aclnnFlatQuantGetWorkspaceSize(x, p1, p2, 1.0, y, s, &q.bytes, &q.ex), aclnnFlatQuant))
      time_launches(state, {&q}, k * m * n * 2 + k * m * n / 2 + k * 4);
  }
  for (aclTensor *e : {x, p1, p2, y, s}) aclDestroyTensor(e);
  for (void *p : {xp, p1p, p2p, yp, sp}) aclrtFree(p);
}
BENCHMARK(FlatQuantInt4)->Unit(benchmark::kMillisecond)->UseRealTime();

void RotateQuantFp16(benchmark::State &state) {
  const int64_t m = 2048, n = 4096, k = 128;
  void *xp = device_buffer(m * n * 2, true), *rp = device_buffer(k * k * 2, true), *yp = device_buffer(m * n, false),
       *sp = device_buffer(m * 4, false);
  aclTensor *x = contiguous_tensor({m, n}, ACL_FLOAT16, xp), *r = contiguous_tensor({k, k}, ACL_FLOAT16, rp);
  aclTensor *y = contiguous_tensor({m, n}, ACL_INT8, yp), *s = contiguous_tensor({m}, ACL_FLOAT, sp);
  {
    Planned q;
    if (plan(state, q,
             aclnnRotateQuantGetWorkspaceSize(x, r, nullptr, -1, nullptr, 0, 0.0, false, y, s, &q.bytes, &q.ex),
             aclnnRotateQuant))
      time_launches(state, {&q}, m * n * 3 + m * 4);
  }
  for (aclTensor *t : {x, r, y, s}) aclDestroyTensor(t);
  for (void *p : {xp, rp, yp, sp}) aclrtFree(p);
}
BENCHMARK(RotateQuantFp16)->Unit(benchmark::kMillisecond)->UseRealTime();

// DynamicBlockQuant (groups = 0) or GroupedDynamicBlockQuant with `groups` equal groups of rows.
void BlockQuantFp16(benchmark::State &state, int64_t rb, int64_t groups) {
  const int64_t m = 4096, n = 4096, cb = 128;
  const int64_t srows = groups > 0 ? m / rb + groups : (m + rb - 1) / rb, scols = n / cb;
  void *xp = device_buffer(m * n * 2, true), *yp = device_buffer(m * n, false),
       *sp = device_buffer(srows * scols * 4, false), *gp = device_buffer(8 * 4, false);
  std::vector<int32_t> ends;
  for (int64_t g = 1; g <= groups; ++g) ends.push_back(static_cast<int32_t>(m * g / groups));
  if (groups > 0) aclrtMemcpy(gp, ends.size() * 4, ends.data(), ends.size() * 4, ACL_MEMCPY_HOST_TO_DEVICE);
  aclTensor *x = contiguous_tensor({m, n}, ACL_FLOAT16, xp), *y = contiguous_tensor({m, n}, ACL_INT8, yp);
  aclTensor *s = contiguous_tensor({srows, scols}, ACL_FLOAT, sp), *gl = contiguous_tensor({groups > 0 ? groups : 1}, ACL_INT32, gp);
  {
    Planned q;
    const bool ok =
        groups > 0 ? plan(state, q,
                          aclnnGroupedDynamicBlockQuantGetWorkspaceSize(x, gl, 0.0, nullptr, 2, rb, cb, 0, y, s, &q.bytes,
                                                                        &q.ex),
                          aclnnGroupedDynamicBlockQuant)
                   : plan(state, q,
                          aclnnDynamicBlockQuantGetWorkspaceSize(x, 0.0, nullptr, 2, rb, cb, y, s, &q.bytes, &q.ex),
                          aclnnDynamicBlockQuant);
    if (ok) time_launches(state, {&q}, m * n * 3 + srows * scols * 4);
  }
  for (aclTensor *t : {x, y, s, gl}) aclDestroyTensor(t);
  for (void *p : {xp, yp, sp, gp}) aclrtFree(p);
}
BENCHMARK_CAPTURE(BlockQuantFp16, Rows1x128, 1, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BlockQuantFp16, Blocks128x128, 128, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BlockQuantFp16, Grouped8x512Rows1x128, 1, 8)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

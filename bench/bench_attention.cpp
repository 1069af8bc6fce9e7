// Fused attention through the public API (aclnnFusedInferAttentionScoreV2, BNSD, FLOAT / BF16):
// phase 2 + synchronize on a repeatable executor (phase 1 outside the timing). The cases match
// bench/compare_attention_torch.py (PyTorch 1.13's softmax(q k^T * scale) v composite, no SDPA);
// bench/compare_attention.sh runs both and prints the ratios.
//   Prefill<S>: B = 1, 32 query heads on 8 KV heads, Sq = Skv = S, D = 128 (no mask);
//   Prefill<S>Causal: the same with sparse mode 3 (causal); Decode4096: Sq = 1, Skv = 4096 (GQA,
//   8 KV heads); Decode4096Mha: 32 KV heads.
// Counters: GFLOP/s (4 Sq Skv D N multiply-adds counted as 2 flops each, causal halved), the
// workspace (MB), and for decode the KV bytes read per second (GB/s).
// StreamRead<MiB>: the bandwidth reference of the same run: a vectorised sum over a buffer of the
// decode cases' K + V bytes, split over OPSNN_NUM_THREADS workers of the library's own thread pool
// (the decode kernel's), so "% of bandwidth" = KV_GB/s of a decode case / GB/s of its StreamRead.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "bench_env.h"
#include "common/half.h"
#include "core/thread_pool.h"

namespace {

using opsnn::bench::env;

struct T {
  void *p = nullptr;
  aclTensor *t = nullptr;
  T(std::vector<int64_t> shape, aclDataType dt) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t es = aclDataTypeSize(dt);
    aclrtMalloc(&p, static_cast<size_t>(n) * es + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<unsigned char> h(static_cast<size_t>(n) * es);
    uint32_t s = 12345;
    for (int64_t i = 0; i < n; ++i) {
      s = s * 1664525u + 1013904223u;
      const float v = static_cast<float>(s >> 8) / static_cast<float>(1 << 24) * 2.0f - 1.0f;
      if (dt == ACL_FLOAT) {
        std::memcpy(&h[static_cast<size_t>(i) * 4], &v, 4);
      } else {
        const uint16_t b = dt == ACL_BF16 ? opsnn::float_to_bf16(v) : opsnn::float_to_half(v);
        std::memcpy(&h[static_cast<size_t>(i) * 2], &b, 2);
      }
    }
    aclrtMemcpy(p, h.size(), h.data(), h.size(), ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> st(shape.size(), 1);
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * shape[d + 1];
    t = aclCreateTensor(shape.data(), shape.size(), dt, st.data(), 0, ACL_FORMAT_ND, shape.data(), shape.size(), p);
  }
  ~T() {
    aclDestroyTensor(t);
    aclrtFree(p);
  }
};

void attention(benchmark::State &state, int64_t sq, int64_t skv, bool causal, aclDataType dt, int64_t NKV = 8) {
  constexpr int64_t N = 32, D = 128;
  T q({1, N, sq, D}, dt), k({1, NKV, skv, D}, dt), v({1, NKV, skv, D}, dt), o({1, N, sq, D}, dt);
  aclTensor *kc = aclCreateTensor(std::vector<int64_t>{1, NKV, skv, D}.data(), 4, dt,
                                  std::vector<int64_t>{NKV * skv * D, skv * D, D, 1}.data(), 0, ACL_FORMAT_ND,
                                  std::vector<int64_t>{1, NKV, skv, D}.data(), 4, k.p);
  aclTensor *vc = aclCreateTensor(std::vector<int64_t>{1, NKV, skv, D}.data(), 4, dt,
                                  std::vector<int64_t>{NKV * skv * D, skv * D, D, 1}.data(), 0, ACL_FORMAT_ND,
                                  std::vector<int64_t>{1, NKV, skv, D}.data(), 4, v.p);
  aclTensorList *kl = aclCreateTensorList(&kc, 1), *vl = aclCreateTensorList(&vc, 1);
  char layout[] = "BNSD";
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  if (aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
          q.t, kl, vl, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, N,
          1.0 / 11.313708498984761, 2147483647, causal ? 0 : 2147483647, layout, NKV, causal ? 3 : 0, 0, 0, 0,
          false, 0, 0, o.t, nullptr, &ws, &ex) != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void *w = nullptr;
  if (ws > 0) aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  for (auto _ : state) {
    aclnnFusedInferAttentionScoreV2(w, ws, ex, env().stream);
    aclrtSynchronizeStream(env().stream);
  }
  const double flops = 4.0 * static_cast<double>(sq) * static_cast<double>(skv) * D * N * (causal ? 0.5 : 1.0);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ws_MB"] = static_cast<double>(ws) / 1e6;
  // Every case has every counter (the CSV reporter requires it): 0 where it does not apply.
  state.counters["KV_GB/s"] = benchmark::Counter(sq == 1 ? 2.0 * NKV * skv * D * aclDataTypeSize(dt) * 1e-9 : 0.0,
                                                 benchmark::Counter::kIsIterationInvariantRate);
  aclDestroyAclOpExecutor(ex);
  if (w != nullptr) aclrtFree(w);
  aclDestroyTensorList(kl);
  aclDestroyTensorList(vl);
}

// A sum of 64-byte vectors, four accumulators: the plain read loop the decode kernel is measured by.
using f32v = float __attribute__((vector_size(64)));
float sum_block(const float *x, int64_t n) {
  f32v a0{}, a1{}, a2{}, a3{};
  for (int64_t i = 0; i + 64 <= n; i += 64) {
    f32v v[4];
    std::memcpy(v, x + i, sizeof v);
    a0 += v[0];
    a1 += v[1];
    a2 += v[2];
    a3 += v[3];
  }
  const f32v t = (a0 + a1) + (a2 + a3);
  float s = 0;
  for (int k = 0; k < 16; ++k) s += t[k];
  return s;
}

void stream_read(benchmark::State &state, int64_t mib) {
  const int64_t n = mib * (1 << 20) / 4;
  T buf({n}, ACL_FLOAT);
  const float *x = static_cast<const float *>(buf.p);
  const int64_t chunks = 64;  // contiguous pieces, taken by the workers in order
  std::vector<float> part(chunks);
  for (auto _ : state) {
    opsnn::core::parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) part[static_cast<size_t>(c)] = sum_block(x + c * (n / chunks), n / chunks);
    });
    benchmark::DoNotOptimize(part.data());
  }
  const double bytes = static_cast<double>(n) * 4;
  state.counters["GFLOP/s"] = 0;
  state.counters["ws_MB"] = 0;
  state.counters["KV_GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void Prefill512(benchmark::State &s) { attention(s, 512, 512, false, ACL_FLOAT); }
void Prefill2048(benchmark::State &s) { attention(s, 2048, 2048, false, ACL_FLOAT); }
void Prefill2048Causal(benchmark::State &s) { attention(s, 2048, 2048, true, ACL_FLOAT); }
void Decode4096(benchmark::State &s) { attention(s, 1, 4096, false, ACL_FLOAT); }
void Decode4096Mha(benchmark::State &s) { attention(s, 1, 4096, false, ACL_FLOAT, 32); }
void Decode4096MhaBf16(benchmark::State &s) { attention(s, 1, 4096, false, ACL_BF16, 32); }
void StreamRead32(benchmark::State &s) { stream_read(s, 32); }    // K + V of Decode4096 (FLOAT)
void StreamRead128(benchmark::State &s) { stream_read(s, 128); }  // K + V of Decode4096Mha (FLOAT)
void Prefill4096(benchmark::State &s) { attention(s, 4096, 4096, false, ACL_FLOAT); }
void Prefill4096Causal(benchmark::State &s) { attention(s, 4096, 4096, true, ACL_FLOAT); }
void Prefill2048Bf16(benchmark::State &s) { attention(s, 2048, 2048, false, ACL_BF16); }
void Decode4096Bf16(benchmark::State &s) { attention(s, 1, 4096, false, ACL_BF16); }
void Decode4096F16(benchmark::State &s) { attention(s, 1, 4096, false, ACL_FLOAT16); }

BENCHMARK(Prefill512)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Prefill2048)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(Prefill2048Causal)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(Decode4096)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(StreamRead32)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Decode4096Mha)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(StreamRead128)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Decode4096MhaBf16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Prefill2048Bf16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);
BENCHMARK(Decode4096Bf16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Decode4096F16)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Prefill4096)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(Prefill4096Causal)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();

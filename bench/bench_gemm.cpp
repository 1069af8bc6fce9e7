// GEMM throughput: the OpsNN engine (gemm_plan once, gemm_run timed) against OpenBLAS
// cblas_sgemm and oneDNN dnnl_sgemm when they are installed. Row-major fp32, C = A @ B.
// Counter "GFLOPS" = 2*M*N*K / time.
//
// Threads: OpsNN uses OPSNN_NUM_THREADS (default: all cores), OpenBLAS OPENBLAS_NUM_THREADS,
// oneDNN OMP_NUM_THREADS. Single-thread comparison:
//   OPSNN_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 ./bench_gemm
// The OpsNN_1T series always runs single-threaded (plan option), whatever the environment.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "kernels/matmul/gemm.h"

#if defined(OPSNN_HAVE_OPENBLAS)
#include <cblas.h>
#endif
#if defined(OPSNN_HAVE_DNNL)
#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
#else
#include <dnnl.h>
#endif
#endif

namespace {

using opsnn::kernels::GemmDesc;
using opsnn::kernels::GemmOptions;
using opsnn::kernels::GemmPlan;

struct Operands {
  std::vector<float> a, b, c;
  Operands(int64_t m, int64_t n, int64_t k)
      : a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)), c(static_cast<size_t>(m * n)) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float &v : a) v = dist(rng);
    for (float &v : b) v = dist(rng);
  }
};

void set_counters(benchmark::State &state, int64_t m, int64_t n, int64_t k) {
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

struct AlignedBuffer {
  void *ptr = nullptr;
  explicit AlignedBuffer(size_t bytes) {
    if (bytes > 0) ptr = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  }
  ~AlignedBuffer() { std::free(ptr); }
};

void run_opsnn(benchmark::State &state, int threads) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  Operands x(m, n, k);
  GemmDesc d;
  d.m = m; d.n = n; d.k = k;
  d.a.row_stride = k;
  d.b.row_stride = n;
  d.c.row_stride = n;
  GemmOptions opt;
  opt.threads = threads;
  GemmPlan plan;
  if (!opsnn::kernels::gemm_plan(d, &plan, opt)) {
    state.SkipWithError("gemm_plan failed");
    return;
  }
  AlignedBuffer ws(plan.workspace_bytes);
  for (auto _ : state) {
    opsnn::kernels::gemm_run(plan, x.a.data(), x.b.data(), x.c.data(), ws.ptr);
    benchmark::ClobberMemory();
  }
  state.SetLabel(opsnn::kernels::gemm_kernel_name(plan.kernel));
  set_counters(state, m, n, k);
}

void BM_OpsNN(benchmark::State &state) { run_opsnn(state, 0); }
void BM_OpsNN_1T(benchmark::State &state) { run_opsnn(state, 1); }

#if defined(OPSNN_HAVE_OPENBLAS)
void BM_OpenBLAS(benchmark::State &state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  Operands x(m, n, k);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, x.a.data(), static_cast<int>(k), x.b.data(), static_cast<int>(n),
                0.0f, x.c.data(), static_cast<int>(n));
    benchmark::ClobberMemory();
  }
  set_counters(state, m, n, k);
}
#endif

#if defined(OPSNN_HAVE_DNNL)
void BM_oneDNN(benchmark::State &state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  Operands x(m, n, k);
  for (auto _ : state) {
    dnnl_sgemm('N', 'N', m, n, k, 1.0f, x.a.data(), k, x.b.data(), n, 0.0f, x.c.data(), n);
    benchmark::ClobberMemory();
  }
  set_counters(state, m, n, k);
}
#endif

void shapes(benchmark::internal::Benchmark *b) {
  for (int64_t s : {64, 128, 256, 512, 1024, 2048}) b->Args({s, s, s});
  for (int64_t m : {1, 16, 128}) {
    b->Args({m, 4096, 4096});
    b->Args({m, 768, 3072});
  }
  b->ArgNames({"M", "N", "K"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

BENCHMARK(BM_OpsNN)->Apply(shapes);
BENCHMARK(BM_OpsNN_1T)->Apply(shapes);
#if defined(OPSNN_HAVE_OPENBLAS)
BENCHMARK(BM_OpenBLAS)->Apply(shapes);
#endif
#if defined(OPSNN_HAVE_DNNL)
BENCHMARK(BM_oneDNN)->Apply(shapes);
#endif

}  // namespace

int main(int argc, char **argv) {
  const auto &f = opsnn::core::cpu_features();
  std::printf("OpsNN GEMM: isa %s, %d threads, L1d %zu KiB, L2 %zu KiB, L3 %zu KiB; peers:%s%s\n",
              opsnn::core::isa_name(f.best), opsnn::core::num_threads(), f.l1d_bytes / 1024,
              f.l2_bytes / 1024, f.l3_bytes / 1024,
#if defined(OPSNN_HAVE_OPENBLAS)
              " OpenBLAS",
#else
              "",
#endif
#if defined(OPSNN_HAVE_DNNL)
              " oneDNN"
#else
              ""
#endif
  );
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

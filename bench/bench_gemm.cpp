// Matmul benchmark: OpsNN's GEMM engine against OpenBLAS (cblas_sgemm) and oneDNN (dnnl_sgemm and
// the matmul primitive with pre-packed weights) in the same run, at 1 and 2 threads, plus the
// machine's FMA peak and read bandwidth, OpsNN's pre-packed-weight path, BF16, and the
// weight-quantised (INT8 / INT4) small-M kernels against the FLOAT16 dense path, and the int8 GEMM
// engine (igemm, with a per-column dequantising epilogue to fp32) against oneDNN's int8 matmul.
//
//   ./bench_gemm [--quick] [--reps N] [--only f32|bf16|wq|int8] [--shape S] [--cpu-time]
//
// Every number is the best of N repetitions (default 5) of a timed batch (>= 0.15 s), libraries
// interleaved shape by shape, so background load hurts all of them alike. GFLOP/s = 2*M*N*K / time.
// "vs best" is OpsNN (best of plain and pre-packed) / the best peer. Markdown tables on stdout.
// (This program does not use Google Benchmark's runner: one table per section is what we compare.)
#include <dlfcn.h>
#include <time.h>
#if defined(__x86_64__)
#include <immintrin.h>
#else
#include <arm_neon.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_quant_matmul_v4.h"
#include "common/half.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/igemm.h"
#include "kernels/matmul/wq_gemm.h"

#if defined(OPSNN_HAVE_OPENBLAS)
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
#endif
#if defined(OPSNN_HAVE_DNNL)
#if __has_include(<oneapi/dnnl/dnnl.hpp>)
#include <oneapi/dnnl/dnnl.hpp>
#else
#include <dnnl.hpp>
#endif
#endif

namespace {

using namespace opsnn::kernels;
using Clock = std::chrono::steady_clock;

int g_reps = 5;
double g_batch_s = 0.15;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// --cpu-time: time the calls by the process's CPU time instead of the wall clock, and run the
// 1-thread rows only. On a VM whose cores other tenants take (the availability probe far below
// 2), wall-clock times then measure the scheduler; CPU time still counts the cycles the 1-thread
// calls ran (peers included: with one thread they run on the calling thread), though not the
// cache and memory traffic of the other tenants.
bool g_cpu_time = false;
std::vector<int> g_thread_counts = {1, 2};

double now_s() {
  if (g_cpu_time) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// Best time per call over g_reps batches of calls (each batch >= g_batch_s).
double best_time(const std::function<void()> &fn) {
  fn();  // warm-up (page faults, packing buffers, JIT)
  double t0 = now_s();
  fn();
  const double once = std::max(now_s() - t0, 1e-7);
  const int64_t per_batch = std::max<int64_t>(1, static_cast<int64_t>(g_batch_s / once));
  double best = once;
  for (int r = 0; r < g_reps; ++r) {
    t0 = now_s();
    for (int64_t i = 0; i < per_batch; ++i) fn();
    best = std::min(best, (now_s() - t0) / static_cast<double>(per_batch));
  }
  return best;
}

struct Aligned {
  void *p = nullptr;
  size_t bytes = 0;
  explicit Aligned(size_t b) : bytes(b) {
    p = std::aligned_alloc(64, std::max<size_t>(64, (b + 63) / 64 * 64));
    std::memset(p, 0, std::max<size_t>(64, (b + 63) / 64 * 64));
  }
  ~Aligned() { std::free(p); }
  float *f() const { return static_cast<float *>(p); }
};

void fill_f32(float *p, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) p[i] = d(rng);
}

// ---- machine probes --------------------------------------------------------------------------

// 12 independent FMA chains of 8 floats (192 flops per iteration on either ISA).
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) double fma_loop(int64_t iters) {
  __m256 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(1.0f + i * 1e-3f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], m, c);
  __m256 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, a[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}
#else
double fma_loop(int64_t iters) {
  float32x4_t a[24];
  for (int i = 0; i < 24; ++i) a[i] = vdupq_n_f32(1.0f + i * 1e-3f);
  const float32x4_t m = vdupq_n_f32(0.999999f), c = vdupq_n_f32(1e-7f);
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 24; ++i) a[i] = vfmaq_f32(c, a[i], m);
  float32x4_t s = a[0];
  for (int i = 1; i < 24; ++i) s = vaddq_f32(s, a[i]);
  return vgetq_lane_f32(s, 0);
}
#endif

double fma_peak(int threads) {
  const int64_t iters = 20'000'000;
  std::vector<std::thread> ts;
  std::atomic<int> ready{0};
  auto t0 = Clock::now();
  volatile double sink = 0;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&] {
      ready++;
      while (ready.load() < threads) {
      }
      sink = sink + fma_loop(iters);
    });
  for (auto &t : ts) t.join();
  return threads * static_cast<double>(iters) * 12 * 16 / seconds_since(t0) * 1e-9;
}

// Effective vCPUs: work done by `threads` spinning threads in 0.3 s relative to one thread.
double cpu_availability(int threads) {
  auto spin = [](double secs) {
    int64_t n = 0;
    const auto t0 = Clock::now();
    volatile uint64_t x = 1;
    while (seconds_since(t0) < secs)
      for (int i = 0; i < 10000; ++i, ++n) x = x * 6364136223846793005ULL + 1;
    return n;
  };
  const double one = static_cast<double>(spin(0.3));
  std::vector<int64_t> counts(static_cast<size_t>(threads));
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) ts.emplace_back([&, t] { counts[static_cast<size_t>(t)] = spin(0.3); });
  for (auto &t : ts) t.join();
  double sum = 0;
  for (int64_t c : counts) sum += static_cast<double>(c);
  return sum / one;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) float read_sum(const float *p, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  for (int64_t i = 0; i + 32 <= n; i += 32) {
    s0 = _mm256_add_ps(s0, _mm256_load_ps(p + i));
    s1 = _mm256_add_ps(s1, _mm256_load_ps(p + i + 8));
    s2 = _mm256_add_ps(s2, _mm256_load_ps(p + i + 16));
    s3 = _mm256_add_ps(s3, _mm256_load_ps(p + i + 24));
  }
  float out[8];
  _mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  return out[0];
}
#else
float read_sum(const float *p, int64_t n) {
  float32x4_t s[8];
  for (auto &v : s) v = vdupq_n_f32(0.0f);
  for (int64_t i = 0; i + 32 <= n; i += 32)
    for (int v = 0; v < 8; ++v) s[v] = vaddq_f32(s[v], vld1q_f32(p + i + 4 * v));
  for (int v = 1; v < 8; ++v) s[0] = vaddq_f32(s[0], s[v]);
  return vgetq_lane_f32(s[0], 0);
}
#endif

// Read bandwidth (GB/s) over a 256 MB array split between `threads` threads (what a GEMV needs).
double read_bandwidth(int threads) {
  const int64_t n = int64_t{64} << 20;
  Aligned buf(static_cast<size_t>(n) * 4);
  fill_f32(buf.f(), n, 1);
  volatile float sink = 0;
  auto run = [&] {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back([&, t] { sink = sink + read_sum(buf.f() + n / threads * t, n / threads); });
    for (auto &t : ts) t.join();
  };
  double best = 1e9;
  for (int r = 0; r < std::max(3, g_reps); ++r) {
    const auto t0 = Clock::now();
    run();
    best = std::min(best, seconds_since(t0));
  }
  return static_cast<double>(n) * 4 / best * 1e-9;
}

// ---- peers -----------------------------------------------------------------------------------

void set_peer_threads(int threads) {
#if defined(OPSNN_HAVE_OPENBLAS)
  openblas_set_num_threads(threads);
#endif
  using OmpSet = void (*)(int);
  if (auto f = reinterpret_cast<OmpSet>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(threads);
}

#if defined(OPSNN_HAVE_DNNL)
// oneDNN matmul primitive with the weights reordered once into the layout it prefers.
struct DnnlMatmul {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul prim;
  dnnl::memory src, wei, dst;
  bool ok = false;
  DnnlMatmul(int64_t m, int64_t n, int64_t k, bool trans_b, dnnl::memory::data_type dt, const void *a_f32,
             const void *b_f32) {
    using tag = dnnl::memory::format_tag;
    using dtt = dnnl::memory::data_type;
    try {
      dnnl::memory::desc a_md({m, k}, dt, tag::ab), b_any({k, n}, dt, tag::any), c_md({m, n}, dt, tag::ab);
      auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_any, c_md), eng);
      prim = dnnl::matmul(pd);
      src = dnnl::memory(a_md, eng);
      dst = dnnl::memory(c_md, eng);
      wei = dnnl::memory(pd.weights_desc(), eng);
      // Fill from the fp32 host matrices through reorders (handles bf16 conversion and layout).
      dnnl::memory a32({{m, k}, dtt::f32, tag::ab}, eng, const_cast<void *>(a_f32));
      dnnl::memory b32({{k, n}, dtt::f32, trans_b ? tag::ba : tag::ab}, eng, const_cast<void *>(b_f32));
      dnnl::reorder(a32, src).execute(strm, a32, src);
      dnnl::reorder(b32, wei).execute(strm, b32, wei);
      strm.wait();
      ok = true;
    } catch (const dnnl::error &) {
      ok = false;
    }
  }
  void run() {
    prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    strm.wait();
  }
};
#endif

// ---- OpsNN ----------------------------------------------------------------------------------

// Index of the micro-kernel table entry `name` when this CPU runs it, else -1.
int kernel_index(const char *name) {
  for (int i = 0; i < gemm_kernel_count(); ++i)
    if (!std::strcmp(gemm_kernel_name(i), name)) return gemm_kernel_supported(i) ? i : -1;
  return -1;
}

// The lower tiers, timed in the same run as the default one (only on CPUs with a higher tier;
// -1 hides the column's values).
int g_avx2_kernel = -1, g_avx512_kernel = -1;
// OPSNN_BENCH_L3_KB: the L3 size our GEMM plans assume (GemmOptions::l3_bytes), to see what the
// detected size (CPUID; a VM may report the whole socket's) does to the plan. Unset: detected.
int64_t g_l3_bytes = 0;

struct OpsnnGemm {
  GemmPlan plan;
  std::unique_ptr<Aligned> ws;
  bool ok = false;
  OpsnnGemm(const GemmDesc &d, int threads, int kernel = -1) {
    GemmOptions o;
    o.threads = threads;
    o.kernel = kernel;
    o.l3_bytes = g_l3_bytes;
    ok = gemm_plan(d, &plan, o);
    ws = std::make_unique<Aligned>(plan.workspace_bytes);
  }
  void run(const void *a, const void *b, void *c) { gemm_run(plan, a, b, c, ws->p); }
};

struct Row {
  std::string shape;
  int threads;
  double ours = 0, ours_packed = 0, openblas = 0, dnnl_sgemm = 0, dnnl_matmul = 0, ours_avx2 = 0;
};

std::string fmt(double v) {
  if (v <= 0) return "–";
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string shape_name(int64_t m, int64_t n, int64_t k, bool trans_b) {
  char name[96];
  std::snprintf(name, sizeof name, "M%lld_N%lld_K%lld_%s", static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k), trans_b ? "NT" : "NN");
  return name;
}

Row bench_f32(int64_t m, int64_t n, int64_t k, bool trans_b, int threads) {
  Row r;
  r.shape = shape_name(m, n, k, trans_b);
  r.threads = threads;
  const double flops = 2.0 * m * n * k;
  Aligned a(static_cast<size_t>(m * k) * 4), b(static_cast<size_t>(k * n) * 4), c(static_cast<size_t>(m * n) * 4);
  fill_f32(a.f(), m * k, 1);
  fill_f32(b.f(), k * n, 2);  // [K,N] row-major, or [N,K] row-major for NT
  set_peer_threads(threads);

  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a = {ACL_FLOAT, k, 1, 0};
  d.b = trans_b ? GemmOperand{ACL_FLOAT, 1, k, 0} : GemmOperand{ACL_FLOAT, n, 1, 0};
  d.c = {ACL_FLOAT, n, 1, 0};
  {
    OpsnnGemm g(d, threads);
    r.ours = flops / best_time([&] { g.run(a.p, b.p, c.p); }) * 1e-9;
  }
  if (g_avx2_kernel >= 0) {
    OpsnnGemm g(d, threads, g_avx2_kernel);
    if (g.ok) r.ours_avx2 = flops / best_time([&] { g.run(a.p, b.p, c.p); }) * 1e-9;
  }
  {
    Aligned packed(static_cast<size_t>(gemm_prepacked_b_elems(k, n)) * 4);
    gemm_prepack_b(d.b, k, n, b.p, packed.p);
    gemm_prepacked_b_register(packed.p, k, n, ACL_FLOAT, d.b.row_stride, d.b.col_stride);
    OpsnnGemm g(d, threads);
    r.ours_packed = flops / best_time([&] { g.run(a.p, packed.p, c.p); }) * 1e-9;
    gemm_prepacked_b_forget(packed.p, packed.bytes);
  }
#if defined(OPSNN_HAVE_OPENBLAS)
  r.openblas = flops / best_time([&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, a.f(), static_cast<int>(k), b.f(),
                static_cast<int>(trans_b ? k : n), 0.0f, c.f(), static_cast<int>(n));
  }) * 1e-9;
#endif
#if defined(OPSNN_HAVE_DNNL)
  r.dnnl_sgemm = flops / best_time([&] {
    dnnl_sgemm('N', trans_b ? 'T' : 'N', m, n, k, 1.0f, a.f(), k, b.f(), trans_b ? k : n, 0.0f, c.f(), n);
  }) * 1e-9;
  {
    DnnlMatmul mm(m, n, k, trans_b, dnnl::memory::data_type::f32, a.p, b.p);
    if (mm.ok) r.dnnl_matmul = flops / best_time([&] { mm.run(); }) * 1e-9;
  }
#endif
  return r;
}

void print_rows(const std::vector<Row> &rows) {
  std::printf("| shape | thr | OpsNN | OpsNN pre-packed | OpsNN AVX2 tier | OpenBLAS | dnnl_sgemm | oneDNN matmul pre-packed "
              "| OpsNN / best peer | OpsNN / AVX2 tier |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row &r : rows) {
    const double peer = std::max({r.openblas, r.dnnl_sgemm, r.dnnl_matmul});
    const double ours = std::max(r.ours, r.ours_packed);
    std::printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.shape.c_str(), r.threads, fmt(r.ours).c_str(),
                fmt(r.ours_packed).c_str(), fmt(r.ours_avx2).c_str(), fmt(r.openblas).c_str(), fmt(r.dnnl_sgemm).c_str(),
                fmt(r.dnnl_matmul).c_str(), peer > 0 ? (std::to_string(ours / peer).substr(0, 4) + "×").c_str() : "–",
                r.ours_avx2 > 0 ? (std::to_string(r.ours / r.ours_avx2).substr(0, 4) + "×").c_str() : "–");
    std::fflush(stdout);
  }
}

// BF16 x BF16 -> BF16, A [M, K] and B [K, N] row-major: the default tier (AVX512_BF16: vdpbf16ps on
// k-pair panels), the AVX-512 fp32 tile and the AVX2 tile (both widen the bf16 operands to fp32
// while packing) in the same run, the FLOAT32 engine on the same shape, and oneDNN's bf16 matmul.
void bench_bf16(int64_t m, int64_t n, int64_t k, int threads) {
  const double flops = 2.0 * m * n * k;
  Aligned a32(static_cast<size_t>(m * k) * 4), b32(static_cast<size_t>(k * n) * 4);
  fill_f32(a32.f(), m * k, 1);
  fill_f32(b32.f(), k * n, 2);
  Aligned a(static_cast<size_t>(m * k) * 2), b(static_cast<size_t>(k * n) * 2), c(static_cast<size_t>(m * n) * 2),
      c32(static_cast<size_t>(m * n) * 4);
  for (int64_t i = 0; i < m * k; ++i) static_cast<uint16_t *>(a.p)[i] = opsnn::float_to_bf16(a32.f()[i]);
  for (int64_t i = 0; i < k * n; ++i) static_cast<uint16_t *>(b.p)[i] = opsnn::float_to_bf16(b32.f()[i]);
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a = {ACL_BF16, k, 1, 0};
  d.b = {ACL_BF16, n, 1, 0};
  d.c = {ACL_BF16, n, 1, 0};
  OpsnnGemm g(d, threads);
  const double ours = flops / best_time([&] { g.run(a.p, b.p, c.p); }) * 1e-9;
  double ours512 = 0, ours_avx2 = 0;
  if (g_avx512_kernel >= 0 && g_avx512_kernel != g.plan.kernel) {
    OpsnnGemm g5(d, threads, g_avx512_kernel);
    if (g5.ok) ours512 = flops / best_time([&] { g5.run(a.p, b.p, c.p); }) * 1e-9;
  }
  if (g_avx2_kernel >= 0) {
    OpsnnGemm g2(d, threads, g_avx2_kernel);
    if (g2.ok) ours_avx2 = flops / best_time([&] { g2.run(a.p, b.p, c.p); }) * 1e-9;
  }
  GemmDesc d32 = d;
  d32.a.dtype = d32.b.dtype = d32.c.dtype = ACL_FLOAT;
  OpsnnGemm g32(d32, threads);
  const double ours32 = flops / best_time([&] { g32.run(a32.p, b32.p, c32.p); }) * 1e-9;
  double peer = 0;
  set_peer_threads(threads);
#if defined(OPSNN_HAVE_DNNL)
  DnnlMatmul mm(m, n, k, false, dnnl::memory::data_type::bf16, a32.p, b32.p);
  if (mm.ok) peer = flops / best_time([&] { mm.run(); }) * 1e-9;
#endif
  char ratio[32] = "–";
  if (peer > 0) std::snprintf(ratio, sizeof ratio, "%.2f×", ours / peer);
  std::printf("| M%lld_N%lld_K%lld | %d | %s | %s | %s | %s | %s | %s |\n", static_cast<long long>(m),
              static_cast<long long>(n), static_cast<long long>(k), threads, fmt(ours).c_str(), fmt(ours512).c_str(),
              fmt(ours_avx2).c_str(), fmt(ours32).c_str(), peer > 0 ? fmt(peer).c_str() : "n/a (no BF16 kernel on this CPU)",
              ratio);
  std::fflush(stdout);
}

void bench_wq(int64_t m, int64_t n, int64_t k, int threads) {
  std::mt19937 rng(3);
  const double flops = 2.0 * m * n * k;
  Aligned x(static_cast<size_t>(m * k) * 2), w8(static_cast<size_t>(k * n)), w4(static_cast<size_t>(k * n / 2)),
      wf16(static_cast<size_t>(k * n) * 2), y(static_cast<size_t>(m * n) * 2), y32(static_cast<size_t>(m * n) * 4);
  for (int64_t i = 0; i < m * k; ++i) static_cast<uint16_t *>(x.p)[i] = opsnn::float_to_half(0.5f);
  for (size_t i = 0; i < w8.bytes; ++i) static_cast<uint8_t *>(w8.p)[i] = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < w4.bytes; ++i) static_cast<uint8_t *>(w4.p)[i] = static_cast<uint8_t>(rng());
  for (int64_t i = 0; i < k * n; ++i) static_cast<uint16_t *>(wf16.p)[i] = opsnn::float_to_half(0.01f);
  std::vector<uint16_t> scale(static_cast<size_t>(k / 32 * n), opsnn::float_to_half(0.01f));

  // FLOAT16 dense: x[m,k] @ w[k,n] -> y, through the GEMM engine.
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a = {ACL_FLOAT16, k, 1, 0};
  d.b = {ACL_FLOAT16, n, 1, 0};
  d.c = {ACL_FLOAT16, n, 1, 0};
  OpsnnGemm dense(d, threads);
  const double t_dense = best_time([&] { dense.run(x.p, wf16.p, y.p); });

  // trans: the weight stored [n, k] (nn.Linear's layout, the clients' case), else [k, n].
  auto wq_time = [&](aclDataType wt, int64_t group, bool trans = false) {
    WqDesc q;
    q.m = m;
    q.n = n;
    q.k = k;
    q.w_dtype = wt;
    q.w_row = trans ? 1 : n;
    q.w_col = trans ? k : 1;
    q.s_dtype = ACL_FLOAT16;
    q.group = group > 0 ? group : k;
    q.s_row = group > 0 ? n : 0;
    q.s_col = 1;
    const void *w = wt == ACL_INT8 ? w8.p : w4.p;
    if (wq_stream_supported(q)) {
      Aligned ws(wq_small_m_workspace(q, threads));
      return best_time([&] {
        wq_small_m_run(q, ACL_FLOAT16, x.p, k, 1, w, scale.data(), nullptr, y32.f(), n, ws.p, wq_choose(q, false).simd,
                       threads);
      });
    }
    WqFusedPlan plan;
    wq_fused_plan(q, &plan, threads);
    Aligned ws(plan.workspace_bytes);
    WqOutput out;
    out.y = y.p;
    out.y_dtype = ACL_FLOAT16;
    out.y_row = n;
    return best_time([&] { wq_fused_run(plan, q, ACL_FLOAT16, x.p, k, 1, w, scale.data(), nullptr, out, ws.p); });
  };
  const double t8 = wq_time(ACL_INT8, 0), t4 = wq_time(ACL_INT4, 0), t4g = wq_time(ACL_INT4, 128);
  const double t4nk = wq_time(ACL_INT4, 32, true);
  const double wbytes = static_cast<double>(k * n);
  std::printf("| M%lld_N%lld_K%lld | %d | %.3f (%.1f GB/s) | %.3f (%.1f GB/s) | %.3f (%.1f GB/s) | %.3f | %.3f | %.2f× | "
              "%.2f× | %.2f× |\n",
              static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k), threads, t_dense * 1e3,
              2 * wbytes / t_dense * 1e-9, t8 * 1e3, wbytes / t8 * 1e-9, t4 * 1e3, wbytes / 2 / t4 * 1e-9, t4g * 1e3,
              t4nk * 1e3, t_dense / t8, t_dense / t4, t_dense / t4nk);
  (void)flops;
  std::fflush(stdout);
}

// ---- INT8 GEMM ----------------------------------------------------------------------------------

#if defined(OPSNN_HAVE_DNNL)
// oneDNN int8 matmul to an f32 dst with per-column output scales fixed at creation; the s8 weights
// reordered once, outside timing, into the layout the primitive picks (format `any`). Src variants:
//   kS8:   s8 src: the same problem as ours.
//   kU8Zp: u8 src holding the values + 128, src zero point 128: the same problem again.
//   kU8:   u8 src holding the values + 128, no zero point: an unsigned-activation problem with the
//          same work (oneDNN's cheapest int8 path), timed but not compared.
enum class DnnlSrc { kS8, kU8Zp, kU8 };

struct DnnlInt8Matmul {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::matmul prim;
  dnnl::memory src, wei, dst;
  std::string impl;  // the primitive's implementation name
  bool ok = false;
  DnnlInt8Matmul(int64_t m, int64_t n, int64_t k, bool trans_b, const int8_t *a, const int8_t *b,
                 const std::vector<float> &scale, DnnlSrc kind) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    try {
      const bool u8 = kind != DnnlSrc::kS8;
      dnnl::memory::desc a_md({m, k}, u8 ? dt::u8 : dt::s8, tag::ab), b_any({k, n}, dt::s8, tag::any),
          c_md({m, n}, dt::f32, tag::ab);
      dnnl::primitive_attr attr;
      attr.set_output_scales(2, scale);
      if (kind == DnnlSrc::kU8Zp) attr.set_zero_points(DNNL_ARG_SRC, 0, {128});
      auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_any, c_md), attr, eng);
      prim = dnnl::matmul(pd);
      src = dnnl::memory(a_md, eng);
      dst = dnnl::memory(c_md, eng);
      wei = dnnl::memory(pd.weights_desc(), eng);
      auto *s = static_cast<uint8_t *>(src.get_data_handle());
      for (int64_t i = 0; i < m * k; ++i) s[i] = static_cast<uint8_t>(static_cast<int>(a[i]) + (u8 ? 128 : 0));
      dnnl::memory b8({{k, n}, dt::s8, trans_b ? tag::ba : tag::ab}, eng, const_cast<int8_t *>(b));
      dnnl::reorder(b8, wei).execute(strm, b8, wei);
      strm.wait();
      impl = pd.impl_info_str();
      ok = true;
    } catch (const dnnl::error &) {
      ok = false;
    }
  }
  void run() {
    prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    strm.wait();
  }
  const float *out() const { return static_cast<const float *>(dst.get_data_handle()); }
};
#endif

// The caller's epilogue: each finished int32 block to fp32 times the column's scale.
struct DequantCtx {
  float *c;
  int64_t ldc;
  const float *scale;
};

void dequant_block(void *ctx, int64_t, int64_t i0, int64_t j0, int64_t rows, int64_t cols, const int32_t *acc,
                   int64_t ldacc) {
  const auto &x = *static_cast<const DequantCtx *>(ctx);
  const float *__restrict sc = x.scale + j0;
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t *__restrict s = acc + r * ldacc;
    float *__restrict d = x.c + (i0 + r) * x.ldc + j0;
    for (int64_t c = 0; c < cols; ++c) d[c] = static_cast<float>(s[c]) * sc[c];
  }
}

struct Int8Row {
  std::string shape;
  int threads;
  double ours = 0, dnnl_s8 = 0, dnnl_u8zp = 0, dnnl_u8 = 0, ours_f32 = 0, op = 0, ours_avx2 = 0;
};

// The public op on the same operands: aclnnQuantMatmulV4 (FLOAT scale per column, FLOAT16 out) on a
// repeatable executor, phase 2 + stream synchronisation per call. The op runs on the process's
// thread pool (OPSNN_NUM_THREADS), so it is timed only in the rows with that many threads.
double quant_matmul_op_gops(int64_t m, int64_t n, int64_t k, bool trans_b, const int8_t *a, const int8_t *b,
                            const float *scale) {
  static aclrtStream stream = [] {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream st = nullptr;
    aclrtCreateStream(&st);
    return st;
  }();
  auto tensor = [](std::initializer_list<int64_t> shape, aclDataType dt, const void *data) {
    const std::vector<int64_t> dims(shape);
    std::vector<int64_t> strides(dims.size());
    int64_t stride = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      strides[i] = stride;
      stride *= dims[i];
    }
    return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND, dims.data(), dims.size(),
                           const_cast<void *>(data));
  };
  Aligned out(static_cast<size_t>(m * n) * 2);
  aclTensor *x1 = tensor({m, k}, ACL_INT8, a), *x2 = trans_b ? tensor({n, k}, ACL_INT8, b) : tensor({k, n}, ACL_INT8, b),
            *sc = tensor({n}, ACL_FLOAT, scale), *y = tensor({m, n}, ACL_FLOAT16, out.p);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  double gops = 0;
  if (aclnnQuantMatmulV4GetWorkspaceSize(x1, x2, sc, nullptr, nullptr, nullptr, false, trans_b, y, &ws, &ex) == 0) {
    aclSetAclOpExecutorRepeatable(ex);
    Aligned w(ws);
    gops = 2.0 * m * n * k / best_time([&] {
      aclnnQuantMatmulV4(w.p, ws, ex, stream);
      aclrtSynchronizeStream(stream);
    }) * 1e-9;
    aclDestroyAclOpExecutor(ex);
  }
  for (aclTensor *t : {x1, x2, sc, y}) aclDestroyTensor(t);
  return gops;
}

std::set<std::string> g_int8_impls, g_igemm_kernels;
std::vector<std::string> g_int8_warnings;

// Exact comparison (both sides scale an exact integer sum once in fp32); "" when equal.
std::string int8_mismatch(const float *ours, const float *theirs, int64_t m, int64_t n, const float *scale) {
  int64_t bad = 0;
  double worst = 0;  // in accumulator units (difference / the column's scale)
  for (int64_t i = 0; i < m * n; ++i)
    if (ours[i] != theirs[i]) {
      ++bad;
      worst = std::max(worst, std::fabs(static_cast<double>(ours[i]) - theirs[i]) / scale[i % n]);
    }
  if (bad == 0) return "";
  char w[160];
  std::snprintf(w, sizeof w, "%lld of %lld outputs differ (worst by %.3g accumulator units)", static_cast<long long>(bad),
                static_cast<long long>(m * n), worst);
  return w;
}

// Operands: A full-range int8; B in [-64, 63] when `weights7` (see the section heading), else full range.
void fill_int8(int8_t *a, int64_t na, int8_t *b, int64_t nb, std::vector<float> *scale, bool weights7) {
  std::mt19937 rng(5);
  for (int64_t i = 0; i < na; ++i) a[i] = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  for (int64_t i = 0; i < nb; ++i)
    b[i] = static_cast<int8_t>(weights7 ? static_cast<int>(rng() % 128) - 64 : static_cast<int>(rng() % 256) - 128);
  std::uniform_real_distribution<float> sd(1e-4f, 1e-2f);
  for (float &v : *scale) v = sd(rng);
}

IgemmDesc int8_desc(int64_t m, int64_t n, int64_t k, bool trans_b) {
  IgemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.a_row = k;
  d.a_col = 1;
  d.b_row = trans_b ? 1 : n;  // B [k, n] read in place: row-major [K, N], or the transposed view of [N, K]
  d.b_col = trans_b ? k : 1;
  return d;
}

Int8Row bench_int8(int64_t m, int64_t n, int64_t k, bool trans_b, int threads) {
  Int8Row r;
  r.shape = shape_name(m, n, k, trans_b);
  r.threads = threads;
  const double ops = 2.0 * m * n * k;
  Aligned a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)), c(static_cast<size_t>(m * n) * 4);
  auto *a8 = static_cast<int8_t *>(a.p), *b8 = static_cast<int8_t *>(b.p);
  std::vector<float> scale(static_cast<size_t>(n));
  fill_int8(a8, m * k, b8, k * n, &scale, true);
  set_peer_threads(threads);

  IgemmPlan plan;
  if (!igemm_plan(int8_desc(m, n, k, trans_b), &plan, threads)) {
    g_int8_warnings.push_back(r.shape + ": igemm_plan failed");
    return r;
  }
  g_igemm_kernels.insert(igemm_kernel_name(plan.kernel));
  Aligned ws(plan.workspace_bytes);
  DequantCtx ctx{c.f(), n, scale.data()};
  auto ours = [&] { igemm_run(plan, a8, b8, ws.p, dequant_block, &ctx); };
  r.ours = ops / best_time(ours) * 1e-9;
  if (plan.kernel != IgemmKernel::kAvx2 && igemm_kernel_available(IgemmKernel::kAvx2)) {
    IgemmPlan p2;
    if (igemm_plan(int8_desc(m, n, k, trans_b), &p2, threads, static_cast<int>(IgemmKernel::kAvx2))) {
      Aligned ws2(p2.workspace_bytes);
      r.ours_avx2 = ops / best_time([&] { igemm_run(p2, a8, b8, ws2.p, dequant_block, &ctx); }) * 1e-9;
    }
  }
  if (threads == opsnn::core::num_threads()) r.op = quant_matmul_op_gops(m, n, k, trans_b, a8, b8, scale.data());

#if defined(OPSNN_HAVE_DNNL)
  for (DnnlSrc kind : {DnnlSrc::kS8, DnnlSrc::kU8Zp, DnnlSrc::kU8}) {
    DnnlInt8Matmul mm(m, n, k, trans_b, a8, b8, scale, kind);
    if (!mm.ok) continue;
    const char *label = kind == DnnlSrc::kS8 ? "s8 src" : kind == DnnlSrc::kU8Zp ? "u8 src + zero point" : "u8 src";
    g_int8_impls.insert(mm.impl + " (" + label + ")");
    if (kind != DnnlSrc::kU8 && threads == 1) {  // correctness once per shape, outside timing
      ours();
      mm.run();
      const std::string w = int8_mismatch(c.f(), mm.out(), m, n, scale.data());
      if (!w.empty()) g_int8_warnings.push_back(r.shape + " vs oneDNN " + label + ": " + w);
    }
    const double v = ops / best_time([&] { mm.run(); }) * 1e-9;
    (kind == DnnlSrc::kS8 ? r.dnnl_s8 : kind == DnnlSrc::kU8Zp ? r.dnnl_u8zp : r.dnnl_u8) = v;
  }
#endif

  {
    Aligned af(static_cast<size_t>(m * k) * 4), bf(static_cast<size_t>(k * n) * 4);
    fill_f32(af.f(), m * k, 1);
    fill_f32(bf.f(), k * n, 2);
    GemmDesc g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = {ACL_FLOAT, k, 1, 0};
    g.b = trans_b ? GemmOperand{ACL_FLOAT, 1, k, 0} : GemmOperand{ACL_FLOAT, n, 1, 0};
    g.c = {ACL_FLOAT, n, 1, 0};
    OpsnnGemm f32(g, threads);
    if (f32.ok) r.ours_f32 = ops / best_time([&] { f32.run(af.p, bf.p, c.p); }) * 1e-9;
  }
  return r;
}

void print_int8_row(const Int8Row &r) {
  char ratio[32] = "–";
  const double peer = std::max({r.dnnl_s8, r.dnnl_u8zp, r.dnnl_u8});
  if (r.ours > 0 && peer > 0) std::snprintf(ratio, sizeof ratio, "%.2f×", r.ours / peer);
  std::printf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.shape.c_str(), r.threads, fmt(r.ours).c_str(),
              fmt(r.op).c_str(), fmt(r.ours_avx2).c_str(), fmt(r.dnnl_s8).c_str(), fmt(r.dnnl_u8zp).c_str(),
              fmt(r.dnnl_u8).c_str(), fmt(r.ours_f32).c_str(), ratio);
  std::fflush(stdout);
}

// Full-range weights, once: OpsNN and oneDNN (s8 src) against the int64 definition, output scale 1.
void int8_full_range_check() {
  const int64_t m = 16, n = 768, k = 3072;
  std::vector<int8_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  std::vector<float> scale(static_cast<size_t>(n)), ours(static_cast<size_t>(m * n)), ref(static_cast<size_t>(m * n));
  fill_int8(a.data(), m * k, b.data(), k * n, &scale, false);
  std::fill(scale.begin(), scale.end(), 1.0f);
  const IgemmDesc d = int8_desc(m, n, k, false);
  std::vector<int64_t> exact(static_cast<size_t>(m * n));
  igemm_reference(d, a.data(), b.data(), exact.data());
  for (size_t i = 0; i < exact.size(); ++i) ref[i] = static_cast<float>(exact[i]);
  IgemmPlan plan;
  igemm_plan(d, &plan, 1);
  Aligned ws(plan.workspace_bytes);
  DequantCtx ctx{ours.data(), n, scale.data()};
  igemm_run(plan, a.data(), b.data(), ws.p, dequant_block, &ctx);
  std::string w = int8_mismatch(ours.data(), ref.data(), m, n, scale.data());
  std::printf("Full-range int8 weights, M16_N768_K3072 against the int64 definition: OpsNN %s", w.empty() ? "exact" : w.c_str());
#if defined(OPSNN_HAVE_DNNL)
  set_peer_threads(1);
  DnnlInt8Matmul mm(m, n, k, false, a.data(), b.data(), scale, DnnlSrc::kS8);
  if (mm.ok) {
    mm.run();
    w = int8_mismatch(mm.out(), ref.data(), m, n, scale.data());
    std::printf("; oneDNN s8 src %s", w.empty() ? "exact" : w.c_str());
  }
#endif
  std::printf("\n\n");
}

}  // namespace

int main(int argc, char **argv) {
  bool quick = false;
  std::string only, shape_filter;  // --shape S: only the FLOAT32 rows whose name contains S
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--shape") && i + 1 < argc) shape_filter = argv[++i];
    else if (!std::strcmp(argv[i], "--cpu-time")) g_cpu_time = true;
  }
  if (g_cpu_time) g_thread_counts = {1};
  if (quick) {
    g_reps = 2;
    g_batch_s = 0.05;
  }
  const auto &f = opsnn::core::cpu_features();
  std::printf("# OpsNN matmul benchmark\n\nisa %s, L1d %zu KiB, L2 %zu KiB, L3 %zu KiB; peers:%s%s; hardware threads %u\n\n",
              opsnn::core::isa_name(f.best), f.l1d_bytes / 1024, f.l2_bytes / 1024, f.l3_bytes / 1024,
#if defined(OPSNN_HAVE_OPENBLAS)
              " OpenBLAS",
#else
              "",
#endif
#if defined(OPSNN_HAVE_DNNL)
              " oneDNN",
#else
              "",
#endif
              std::thread::hardware_concurrency());
  std::FILE *la = std::fopen("/proc/loadavg", "r");
  if (la) {
    char buf[128] = {};
    if (std::fgets(buf, sizeof buf, la)) std::printf("load average at start: %s\n", buf);
    std::fclose(la);
  }
  const double avail2 = cpu_availability(2);
  std::printf("CPU availability (2 spinning threads / 1): %.2f of 2%s\n\n", avail2,
              avail2 < 1.8 ? "  ** WARNING: the second core is not fully available; 2-thread numbers are low **" : "");
  const double p1 = fma_peak(1), p2 = fma_peak(2), bw1 = read_bandwidth(1), bw2 = read_bandwidth(2);
  std::printf("| probe | 1 thr | 2 thr |\n|---|---|---|\n");
  std::printf("| FP32 FMA peak (ymm), GFLOP/s | %.1f | %.1f |\n", p1, p2);
  std::printf("| implied clock at 32 FLOP/cycle, GHz | %.2f | %.2f |\n", p1 / 32, p2 / 64);
  std::printf("| read bandwidth (256 MB), GB/s | %.1f | %.1f |\n", bw1, bw2);
  std::printf("| M=1 bandwidth bound, fp32 weights, GFLOP/s (= bw / 2 bytes per flop) | %.1f | %.1f |\n\n", bw1 / 2, bw2 / 2);

  if (const char *l3 = std::getenv("OPSNN_BENCH_L3_KB")) g_l3_bytes = std::atoll(l3) * 1024;
  if (g_l3_bytes > 0) std::printf("GEMM plans assume an L3 of %lld KiB (OPSNN_BENCH_L3_KB)\n", static_cast<long long>(g_l3_bytes / 1024));
  if (f.best != opsnn::core::Isa::kAvx2) g_avx2_kernel = kernel_index("avx2_6x16");
  if (f.best == opsnn::core::Isa::kAvx512Bf16) g_avx512_kernel = kernel_index("avx512_12x32");
  std::printf("same-run lower tiers: AVX2 %s, AVX-512 fp32 tile for BF16 %s\n\n", g_avx2_kernel >= 0 ? "yes" : "no",
              g_avx512_kernel >= 0 ? "yes" : "no");
  if (g_cpu_time) std::printf("timing: process CPU time (--cpu-time), 1-thread rows only\n\n");
  auto want = [&](const char *sec) { return only.empty() || only == sec; };
  if (want("f32")) {
  std::printf("## FLOAT32 GEMM, GFLOP/s\n\n");
  std::vector<Row> rows;
  std::vector<int64_t> squares = {64, 128, 256, 512, 1024, 2048};
  for (int threads : g_thread_counts) {
    rows.clear();
    auto add = [&](int64_t m, int64_t n, int64_t k, bool t) {
      if (shape_name(m, n, k, t).find(shape_filter) != std::string::npos) rows.push_back(bench_f32(m, n, k, t, threads));
    };
    for (int64_t s : squares) add(s, s, s, false);
    // M 4 and 8: decode batches between the M = 1 and 16.
    for (int64_t m : {1, 4, 8, 16, 128})
      for (auto nk : {std::pair<int64_t, int64_t>{4096, 4096}, {768, 3072}})
        for (bool t : {false, true}) add(m, nk.first, nk.second, t);
    std::printf("### %d thread%s\n\n", threads, threads > 1 ? "s" : "");
    print_rows(rows);
    std::printf("\n");
  }

  }
  if (want("bf16")) {
  std::printf("## BF16 GEMM (BF16 in/out, fp32 accumulation), GFLOP/s\n\n");
  std::printf("OpsNN BF16: the default tier (%s); AVX-512 fp32 tile / AVX2 tile: the same BF16 GEMM on the lower tiers\n"
              "(operands widened to fp32 while packing), timed in the same run.\n\n",
              g_avx512_kernel >= 0 ? "AVX512_BF16 vdpbf16ps tiles where the CPU has them" : "no AVX-512 here");
  std::printf("| shape | thr | OpsNN BF16 | OpsNN BF16, AVX-512 fp32 tile | OpsNN BF16, AVX2 tile | OpsNN FLOAT32 "
              "| oneDNN matmul BF16 | OpsNN BF16 / oneDNN |\n|---|---|---|---|---|---|---|---|\n");
  for (int threads : g_thread_counts) {
    for (int64_t s : {256, 512, 1024, 2048}) bench_bf16(s, s, s, threads);
    for (int64_t m : {16, 128}) bench_bf16(m, 4096, 4096, threads);
  }

  }
  if (want("wq")) {
  std::printf("\n## Weight-quantised matmul (x FLOAT16, weight [k, n], per-channel scale; INT4 g128 = per-group 128;\n"
              "## INT4 [n,k] g32 = weight stored [n, k] with groups of 32, the clients' layout), ms (weight GB/s)\n\n");
  std::printf("| shape | thr | FLOAT16 dense | INT8 | INT4 | INT4 g128 | INT4 [n,k] g32 | INT8 speed-up | INT4 speed-up "
              "| INT4 [n,k] g32 speed-up |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int threads : g_thread_counts)
    for (int64_t m : {1, 4, 16}) bench_wq(m, 4096, 4096, threads);
  }
  if (want("int8")) {
  std::printf("\n## INT8 GEMM (int8 A [M,K] x int8 B, exact int32 sums, per-column scale to FLOAT32 C), GOP/s = 2*M*N*K / time\n\n"
              "NN: B [K,N] row-major; NT: B stored [N,K] (read in place as the transposed view). oneDNN: matmul primitive,\n"
              "weights pre-packed, per-column output scales; s8 src = the same problem; u8 src + zero point = the same problem\n"
              "(values + 128, zero point 128); u8 src = unsigned activations without zero point (same work, not compared).\n"
              "OpsNN / best oneDNN is against the fastest of the three. OpsNN FP32: the FLOAT32 engine on the same shape.\n"
              "OpsNN QuantMatmulV4 op: the public op (FLOAT16 out, phase 2 + synchronise), in the rows whose thread count is\n"
              "the pool's (OPSNN_NUM_THREADS).\n"
              "B holds 7-bit values ([-64, 63], A is full range) so that oneDNN's results are exact on CPUs without VNNI\n"
              "(its int16 pair sums saturate with full-range weights, see the check below); the timings do not depend on the values.\n\n");
  int8_full_range_check();
  for (int threads : g_thread_counts) {
    std::printf("### %d thread%s\n\n", threads, threads > 1 ? "s" : "");
    std::printf("| shape | thr | OpsNN int8 GOP/s | OpsNN QuantMatmulV4 op | OpsNN int8 AVX2 tier | oneDNN s8 src GOP/s "
                "| oneDNN u8 src + zp GOP/s | oneDNN u8 src GOP/s | OpsNN FP32 GFLOP/s | OpsNN int8 / best oneDNN |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t s : {256, 512, 1024, 2048}) print_int8_row(bench_int8(s, s, s, false, threads));
    for (int64_t m : {1, 16, 128})
      for (auto nk : {std::pair<int64_t, int64_t>{4096, 4096}, {768, 3072}})
        for (bool t : {false, true}) print_int8_row(bench_int8(m, nk.first, nk.second, t, threads));
    std::printf("\n");
  }
  std::string kernels;
  for (const std::string &s : g_igemm_kernels) kernels += (kernels.empty() ? "" : ", ") + s;
  std::printf("OpsNN igemm kernel: %s\n", kernels.c_str());
#if defined(OPSNN_HAVE_DNNL)
  if (g_int8_impls.empty()) std::printf("oneDNN int8 matmul: no implementation on this CPU\n");
  for (const std::string &s : g_int8_impls) std::printf("oneDNN int8 matmul implementation: %s\n", s.c_str());
  if (g_int8_warnings.empty()) std::printf("correctness: every shape agrees exactly with oneDNN s8 and u8 + zero point (1 thread)\n");
#else
  std::printf("oneDNN int8 matmul: not built (oneDNN not found)\n");
#endif
  for (const std::string &w : g_int8_warnings) std::printf("** WARNING: %s **\n", w.c_str());
  }
  return 0;
}

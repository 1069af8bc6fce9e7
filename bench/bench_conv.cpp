// Convolution benchmark: aclnnConvolution (fp32, NCHW, a repeatable executor: launch + stream
// synchronisation per call) against oneDNN's convolution primitive and XNNPACK's in the same run, on
// the ResNet-50 layer shapes and MobileNet depthwise layers at batch 1 and 8. oneDNN runs twice: with
// the layouts it chooses (format_tag::any; inputs reordered once, outside the timing) and on plain
// NCHW / OIHW tensors. XNNPACK (Debian libxnnpack-dev + libpthreadpool-dev) runs on NHWC tensors,
// its only layout. PyTorch's conv2d times come from bench/compare_conv_torch.py through --torch FILE
// (bench/compare_conv.sh runs both); "best peer" is the fastest of oneDNN (either layout) and XNNPACK.
//
//   OPSNN_NUM_THREADS=1 ./bench_conv [--reps N] [--quick]
//   OPSNN_NUM_THREADS=2 ./bench_conv
//   OPSNN_NUM_THREADS=1 ./bench_conv --cpu-time    (process CPU time: for a loaded machine)
//   OPSNN_NUM_THREADS=1 ./bench_conv --cpu-time --only dw    (just the layers whose name has "dw")
//   OPSNN_NUM_THREADS=1 ./bench_conv --cpu-time --quant [--only k1]    (just the int8 QuantConvolution table)
//   OPSNN_NUM_THREADS=1 ./bench_conv --opsnn-only --only dw    (OpsNN alone, NCHW and NHWC: for perf / A/B runs)
//   OPSNN_NUM_THREADS=2 ./bench_conv --min-call 1 --only 14x14    (each time the fastest single call within 1 s)
//   ./bench_conv --list-shapes    (the layers, one per line: what compare_conv_torch.py times)
//   ./bench_conv --torch FILE     (add PyTorch's times: lines "<layer index> <batch> <nchw|nhwc> <ms>")
//
// All libraries use the same thread count (OpsNN's pool size; oneDNN through omp_set_num_threads;
// XNNPACK through a pthreadpool of that size, none for 1 thread).
// Every number is the best of N repetitions (default 5) of a timed batch (>= 0.2 s), the libraries
// interleaved shape by shape. GFLOP/s = 2 * N * C_out * H_out * W_out * C_in/groups * kH * kW /
// time. "ratio" = the best oneDNN time / OpsNN's time (> 1: OpsNN is faster). Markdown on stdout.
// (The timing loop is our own, as in bench_gemm: one table is what we compare.)
// Every layer also runs on channels-last (ACL_FORMAT_NHWC) tensors holding the same logical values
// (its own table after the main one: time, ratio to the best oneDNN time of the row, max |diff|
// against oneDNN's NCHW result, and the path phase 1 chose, read from the verbose line).
// A second table times aclnnDeformableConv2d (modulated, one deformable group, offsets in [-1, 1],
// deformOut not requested) against aclnnConvolution on the same shape: the deformable im2col's cost
// over the plain convolution (no peer library has it). A third times aclnnQuantConvolution (int8 input
// and weight, per-channel FLOAT scale, INT32 bias, FLOAT16 out) against the fp32 aclnnConvolution.
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_deformable_conv2d.h"
#include "aclnnop/aclnn_quant_convolution.h"
#include "bench_env.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "core/verbose.h"

#if defined(OPSNN_HAVE_XNNPACK)
#include <pthreadpool.h>
#include <xnnpack.h>
#endif

#if defined(OPSNN_HAVE_DNNL)
#if __has_include(<oneapi/dnnl/dnnl.hpp>)
#include <oneapi/dnnl/dnnl.hpp>
#else
#include <dnnl.hpp>
#endif
#endif

namespace {

using Clock = std::chrono::steady_clock;
int g_reps = 5;
double g_batch_s = 0.2;

struct Shape {
  const char *name;
  int64_t cin, h, w, cout, k, s, p, groups;
};

const Shape kShapes[] = {
    {"conv1 3x224x224->64 k7 s2 p3", 3, 224, 224, 64, 7, 2, 3, 1},
    {"64x56x56->64 k3 p1", 64, 56, 56, 64, 3, 1, 1, 1},
    {"256x56x56->64 k1", 256, 56, 56, 64, 1, 1, 0, 1},
    {"512x28x28->128 k1", 512, 28, 28, 128, 1, 1, 0, 1},
    {"256x14x14->256 k3 p1", 256, 14, 14, 256, 3, 1, 1, 1},
    {"128x28x28->128 k3 p1", 128, 28, 28, 128, 3, 1, 1, 1},
    {"512x7x7->512 k3 p1", 512, 7, 7, 512, 3, 1, 1, 1},
    {"dw 32x112x112 k3 p1", 32, 112, 112, 32, 3, 1, 1, 32},
    {"dw 64x112x112 k3 s2 p1", 64, 112, 112, 64, 3, 2, 1, 64},
};

int64_t out_dim(int64_t in, const Shape &s) { return (in + 2 * s.p - s.k) / s.s + 1; }

// --cpu-time: the process's CPU time instead of the wall clock (meaningful with 1 thread on a
// loaded machine: other tenants' time is not counted).
bool g_cpu_time = false;
double now_s() {
  if (g_cpu_time) {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// --min-call S: the fastest single call within S seconds instead (a loaded machine: a call that
// ran while no other process held a core is still seen; batches of calls rarely all are).
double g_min_call_s = 0;

// Best time of one call, in seconds.
double time_call(const std::function<void()> &fn) {
  fn();  // warm-up
  if (g_min_call_s > 0) {
    double best = 1e30;
    for (const double start = now_s(); now_s() - start < g_min_call_s;) {
      const double t0 = now_s();
      fn();
      best = std::min(best, now_s() - t0);
    }
    return best;
  }
  int iters = 1;
  for (;;) {
    const double t0 = now_s();
    for (int i = 0; i < iters; ++i) fn();
    const double t = now_s() - t0;
    if (t >= g_batch_s || iters >= (1 << 20)) break;
    iters *= 2;
  }
  double best = 1e30;
  for (int r = 0; r < g_reps; ++r) {
    const double t0 = now_s();
    for (int i = 0; i < iters; ++i) fn();
    best = std::min(best, (now_s() - t0) / iters);
  }
  return best;
}

// [N, C, S] values -> [N, S, C] (the same logical tensor channels-last), or back (to_last false).
std::vector<float> relayout(const std::vector<float> &v, int64_t n, int64_t c, int64_t sp, bool to_last) {
  std::vector<float> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t x = 0; x < sp; ++x) {
        const size_t first = static_cast<size_t>((i * c + ch) * sp + x), last = static_cast<size_t>((i * sp + x) * c + ch);
        if (to_last) r[last] = v[first];
        else r[first] = v[last];
      }
  return r;
}

std::vector<float> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float &x : v) x = d(g);
  return v;
}

// ---- OpsNN ----

struct Ours {
  void *x = nullptr, *w = nullptr, *b = nullptr, *y = nullptr, *ws = nullptr;
  aclTensor *xt = nullptr, *wt = nullptr, *bt = nullptr, *yt = nullptr;
  aclIntArray *stride = nullptr, *pad = nullptr, *dil = nullptr, *op = nullptr;
  aclOpExecutor *ex = nullptr;
  uint64_t ws_size = 0;
  std::string impl;

  static aclTensor *tensor(std::vector<int64_t> dims, void *data, bool nhwc = false) {
    std::vector<int64_t> st(dims.size());
    int64_t s = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      st[i] = s;
      s *= dims[i];
    }
    if (nhwc && dims.size() == 4) {  // logical [N, C, H, W] passed as an ACL_FORMAT_NHWC tensor [N, H, W, C]
      const std::vector<int64_t> d = {dims[0], dims[2], dims[3], dims[1]};
      st = {dims[1] * dims[2] * dims[3], dims[3] * dims[1], dims[1], 1};
      return aclCreateTensor(d.data(), d.size(), ACL_FLOAT, st.data(), 0, ACL_FORMAT_NHWC, &s, 1, data);
    }
    return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, st.data(), 0, ACL_FORMAT_NCHW, &s, 1, data);
  }
  // nhwc: input and output channels-last (the values are the same random numbers, relaid out).
  Ours(const Shape &sh, int64_t n, const std::vector<float> &xv, const std::vector<float> &wv,
       const std::vector<float> &bv, bool nhwc = false) {
    const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh);
    auto alloc = [](void **p, const std::vector<float> &v, size_t n_) {
      aclrtMalloc(p, n_ * 4, ACL_MEM_MALLOC_HUGE_FIRST);
      if (!v.empty()) aclrtMemcpy(*p, n_ * 4, v.data(), n_ * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    };
    alloc(&x, xv, xv.size());
    alloc(&w, wv, wv.size());
    alloc(&b, bv, bv.size());
    alloc(&y, {}, static_cast<size_t>(n * sh.cout * ho * wo));
    xt = tensor({n, sh.cin, sh.h, sh.w}, x, nhwc);
    wt = tensor({sh.cout, sh.cin / sh.groups, sh.k, sh.k}, w);
    bt = tensor({sh.cout}, b);
    yt = tensor({n, sh.cout, ho, wo}, y, nhwc);
    const int64_t s2[2] = {sh.s, sh.s}, p2[2] = {sh.p, sh.p}, one[2] = {1, 1}, zero[2] = {0, 0};
    stride = aclCreateIntArray(s2, 2);
    pad = aclCreateIntArray(p2, 2);
    dil = aclCreateIntArray(one, 2);
    op = aclCreateIntArray(zero, 2);
    std::vector<std::string> lines;  // the verbose line names the path phase 1 chose
    opsnn::core::set_verbose_for_testing(true, &lines);
    const int rc = aclnnConvolutionGetWorkspaceSize(xt, wt, bt, stride, pad, dil, false, op, sh.groups, yt, 0,
                                                    &ws_size, &ex);
    opsnn::core::set_verbose_for_testing(false, nullptr);
    if (rc != 0) {
      std::fprintf(stderr, "phase 1 failed: %s\n", aclGetRecentErrMsg());
      std::exit(1);
    }
    for (const std::string &l : lines) {
      const size_t at = l.find(",impl=");
      if (at != std::string::npos) impl = l.substr(at + 6, l.find(',', at + 6) - (at + 6));
    }
    aclSetAclOpExecutorRepeatable(ex);
    if (ws_size > 0) aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  void run() {
    aclnnConvolution(ws, ws_size, ex, opsnn::bench::env().stream);
    aclrtSynchronizeStream(opsnn::bench::env().stream);
  }
  std::vector<float> result(size_t n) {
    std::vector<float> r(n);
    aclrtMemcpy(r.data(), n * 4, y, n * 4, ACL_MEMCPY_DEVICE_TO_HOST);
    return r;
  }
  ~Ours() {
    aclDestroyAclOpExecutor(ex);
    for (aclTensor *t : {xt, wt, bt, yt}) aclDestroyTensor(t);
    for (aclIntArray *a : {stride, pad, dil, op}) aclDestroyIntArray(a);
    for (void *p : {x, w, b, y, ws})
      if (p != nullptr) aclrtFree(p);
  }
};

#if defined(OPSNN_HAVE_DNNL)
// oneDNN's forward-inference convolution; `any`: the layouts it prefers (inputs reordered once).
struct Dnnl {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  dnnl::convolution_forward prim;
  dnnl::memory src, wei, bias, dst, user_dst;
  bool ok = false;
  std::vector<float> dst_nchw;

  Dnnl(const Shape &sh, int64_t n, std::vector<float> &xv, std::vector<float> &wv, std::vector<float> &bv, bool any) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh);
    const dnnl::memory::dims xd{n, sh.cin, sh.h, sh.w}, yd{n, sh.cout, ho, wo}, bd{sh.cout};
    const bool grouped = sh.groups > 1;
    const dnnl::memory::dims wd = grouped ? dnnl::memory::dims{sh.groups, sh.cout / sh.groups, sh.cin / sh.groups, sh.k, sh.k}
                                          : dnnl::memory::dims{sh.cout, sh.cin, sh.k, sh.k};
    const tag wtag = grouped ? tag::goihw : tag::oihw;
    try {
      const dnnl::memory::desc src_md(xd, dt::f32, any ? tag::any : tag::nchw);
      const dnnl::memory::desc wei_md(wd, dt::f32, any ? tag::any : wtag);
      const dnnl::memory::desc dst_md(yd, dt::f32, any ? tag::any : tag::nchw);
      const dnnl::memory::desc bias_md(bd, dt::f32, tag::x);
      dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                        src_md, wei_md, bias_md, dst_md, {sh.s, sh.s}, {sh.p, sh.p}, {sh.p, sh.p});
      dnnl::convolution_forward::primitive_desc pd(d, eng);
      prim = dnnl::convolution_forward(pd);
      dnnl::memory user_src({xd, dt::f32, tag::nchw}, eng, xv.data());
      dnnl::memory user_wei({wd, dt::f32, wtag}, eng, wv.data());
      src = dnnl::memory(pd.src_desc(), eng);
      wei = dnnl::memory(pd.weights_desc(), eng);
      dnnl::reorder(user_src, src).execute(strm, user_src, src);
      dnnl::reorder(user_wei, wei).execute(strm, user_wei, wei);
      bias = dnnl::memory(bias_md, eng, bv.data());
      dst = dnnl::memory(pd.dst_desc(), eng);
      dst_nchw.resize(static_cast<size_t>(n * sh.cout * ho * wo));
      user_dst = dnnl::memory({yd, dt::f32, tag::nchw}, eng, dst_nchw.data());
      strm.wait();
      ok = true;
    } catch (const dnnl::error &e) {
      std::fprintf(stderr, "oneDNN: %s\n", e.what());
    }
  }
  void run() {
    prim.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}});
    strm.wait();
  }
  const std::vector<float> &result() {
    dnnl::reorder(dst, user_dst).execute(strm, dst, user_dst);
    strm.wait();
    return dst_nchw;
  }
};
#endif

#if defined(OPSNN_HAVE_XNNPACK)
// XNNPACK's NHWC convolution (xnn_create_convolution2d_nhwc_f32; weights [O][kH][kW][I/groups],
// repacked by XNNPACK when the operator is created, outside the timing).
struct Xnn {
  xnn_operator_t op = nullptr;
  pthreadpool_t pool = nullptr;
  std::vector<float> x_nhwc, y_nhwc;
  int64_t n, cout, ho, wo;
  bool ok = false;

  Xnn(const Shape &sh, int64_t n_, const std::vector<float> &xv, const std::vector<float> &wv,
      const std::vector<float> &bv, int threads)
      : n(n_), cout(sh.cout), ho(out_dim(sh.h, sh)), wo(out_dim(sh.w, sh)) {
    static const bool initialised = xnn_initialize(nullptr) == xnn_status_success;
    if (!initialised) return;
    if (threads > 1) pool = pthreadpool_create(static_cast<size_t>(threads));
    const int64_t gi = sh.cin / sh.groups, go = sh.cout / sh.groups, kk = sh.k * sh.k;
    std::vector<float> w_ohwi(wv.size());  // OIHW -> OHWI (per group: the same with I = cin / groups)
    for (int64_t o = 0; o < sh.cout; ++o)
      for (int64_t i = 0; i < gi; ++i)
        for (int64_t t = 0; t < kk; ++t) w_ohwi[static_cast<size_t>((o * kk + t) * gi + i)] = wv[static_cast<size_t>((o * gi + i) * kk + t)];
    const auto p = static_cast<uint32_t>(sh.p), k = static_cast<uint32_t>(sh.k), st = static_cast<uint32_t>(sh.s);
    if (xnn_create_convolution2d_nhwc_f32(p, p, p, p, k, k, st, st, 1, 1, static_cast<uint32_t>(sh.groups),
                                          static_cast<size_t>(gi), static_cast<size_t>(go),
                                          static_cast<size_t>(sh.cin), static_cast<size_t>(sh.cout), w_ohwi.data(),
                                          bv.data(), -INFINITY, INFINITY, 0, &op) != xnn_status_success)
      return;
    x_nhwc = relayout(xv, n, sh.cin, sh.h * sh.w, true);
    y_nhwc.resize(static_cast<size_t>(n * sh.cout * ho * wo));
    ok = xnn_setup_convolution2d_nhwc_f32(op, static_cast<size_t>(n), static_cast<size_t>(sh.h),
                                          static_cast<size_t>(sh.w), x_nhwc.data(), y_nhwc.data(),
                                          pool) == xnn_status_success;
  }
  void run() { xnn_run_operator(op, pool); }
  std::vector<float> result_nchw() const { return relayout(y_nhwc, n, cout, ho * wo, false); }
  ~Xnn() {
    if (op != nullptr) xnn_delete_operator(op);
    if (pool != nullptr) pthreadpool_destroy(pool);
  }
};
#endif

// aclnnDeformableConv2d on the shape (stride 1, square kernel, symmetric padding), modulated.
struct OursDeform {
  std::vector<void *> bufs;
  std::vector<aclTensor *> ts;
  aclTensor *xt = nullptr, *wt = nullptr, *ot = nullptr, *bt = nullptr, *yt = nullptr;
  aclIntArray *ks = nullptr, *stride = nullptr, *pad = nullptr, *dil = nullptr;
  aclOpExecutor *ex = nullptr;
  void *ws = nullptr;
  uint64_t ws_size = 0;
  aclTensor *make(std::vector<int64_t> dims, const std::vector<float> &v, size_t n) {
    void *p = nullptr;
    aclrtMalloc(&p, n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    if (!v.empty()) aclrtMemcpy(p, n * 4, v.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    bufs.push_back(p);
    aclTensor *t = Ours::tensor(std::move(dims), p);
    ts.push_back(t);
    return t;
  }
  OursDeform(const Shape &sh, int64_t n, const std::vector<float> &xv, const std::vector<float> &wv,
             const std::vector<float> &bv) {
    const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh), K = sh.k * sh.k;
    std::vector<float> ov = random_values(static_cast<size_t>(n * 3 * K * ho * wo), 4);
    for (size_t i = 0; i < ov.size(); ++i)
      if (static_cast<int64_t>(i / static_cast<size_t>(ho * wo)) % (3 * K) >= 2 * K) ov[i] = 0.5f + 0.5f * ov[i];
    xt = make({n, sh.cin, sh.h, sh.w}, xv, xv.size());
    wt = make({sh.cout, sh.cin / sh.groups, sh.k, sh.k}, wv, wv.size());
    ot = make({n, 3 * K, ho, wo}, ov, ov.size());
    bt = make({sh.cout}, bv, bv.size());
    yt = make({n, sh.cout, ho, wo}, {}, static_cast<size_t>(n * sh.cout * ho * wo));
    const int64_t k2[2] = {sh.k, sh.k}, s4[4] = {1, 1, sh.s, sh.s}, p4[4] = {sh.p, sh.p, sh.p, sh.p}, d4[4] = {1, 1, 1, 1};
    ks = aclCreateIntArray(k2, 2);
    stride = aclCreateIntArray(s4, 4);
    pad = aclCreateIntArray(p4, 4);
    dil = aclCreateIntArray(d4, 4);
    if (aclnnDeformableConv2dGetWorkspaceSize(xt, wt, ot, bt, ks, stride, pad, dil, sh.groups, 1, true, yt, nullptr,
                                              &ws_size, &ex) != 0) {
      std::fprintf(stderr, "phase 1 failed: %s\n", aclGetRecentErrMsg());
      std::exit(1);
    }
    aclSetAclOpExecutorRepeatable(ex);
    if (ws_size > 0) aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  void run() {
    aclnnDeformableConv2d(ws, ws_size, ex, opsnn::bench::env().stream);
    aclrtSynchronizeStream(opsnn::bench::env().stream);
  }
  ~OursDeform() {
    aclDestroyAclOpExecutor(ex);
    for (aclTensor *t : ts) aclDestroyTensor(t);
    for (aclIntArray *a : {ks, stride, pad, dil}) aclDestroyIntArray(a);
    for (void *p : bufs) aclrtFree(p);
    if (ws != nullptr) aclrtFree(ws);
  }
};

void bench_deformable(bool quick) {
  const Shape shapes[] = {{"64x56x56->64 k3 p1", 64, 56, 56, 64, 3, 1, 1, 1},
                          {"256x14x14->256 k3 p1", 256, 14, 14, 256, 3, 1, 1, 1}};
  std::printf("\n| deformable layer | batch | DeformableConv2d ms | GFLOP/s | Convolution ms | deformable / plain |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const Shape &sh : shapes) {
    for (int64_t n : {int64_t{1}, int64_t{8}}) {
      if (quick && n == 8) continue;
      const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh);
      auto xv = random_values(static_cast<size_t>(n * sh.cin * sh.h * sh.w), 1);
      auto wv = random_values(static_cast<size_t>(sh.cout * (sh.cin / sh.groups) * sh.k * sh.k), 2);
      auto bv = random_values(static_cast<size_t>(sh.cout), 3);
      const double flops = 2.0 * static_cast<double>(n * sh.cout * ho * wo) * static_cast<double>(sh.cin / sh.groups) *
                           static_cast<double>(sh.k * sh.k);
      OursDeform deform(sh, n, xv, wv, bv);
      const double t_d = time_call([&] { deform.run(); });
      Ours plain(sh, n, xv, wv, bv);
      const double t_p = time_call([&] { plain.run(); });
      std::printf("| %s | %lld | %.3f | %.1f | %.3f | %.2f |\n", sh.name, static_cast<long long>(n), t_d * 1e3,
                  flops / t_d * 1e-9, t_p * 1e3, t_d / t_p);
      std::fflush(stdout);
    }
  }
}

// aclnnQuantConvolution: int8 NCHW, per-channel scale, INT32 bias, FLOAT16 out.
struct OursQuant {
  std::vector<void *> bufs;
  std::vector<aclTensor *> ts;
  aclIntArray *stride = nullptr, *pad = nullptr, *dil = nullptr, *op = nullptr;
  aclOpExecutor *ex = nullptr;
  void *ws = nullptr;
  uint64_t ws_size = 0;
  // nhwc: a logical [N, C, H, W] passed as an ACL_FORMAT_NHWC tensor [N, H, W, C] (as Ours::tensor).
  aclTensor *make(std::vector<int64_t> dims, aclDataType dt, const void *v, size_t bytes, bool nhwc = false) {
    void *p = nullptr;
    aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (v != nullptr) aclrtMemcpy(p, bytes, v, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    bufs.push_back(p);
    std::vector<int64_t> st(dims.size());
    int64_t s = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      st[i] = s;
      s *= dims[i];
    }
    aclFormat fmt = ACL_FORMAT_NCHW;
    if (nhwc && dims.size() == 4) {
      st = {dims[1] * dims[2] * dims[3], dims[3] * dims[1], dims[1], 1};
      dims = {dims[0], dims[2], dims[3], dims[1]};
      fmt = ACL_FORMAT_NHWC;
    }
    aclTensor *t = aclCreateTensor(dims.data(), dims.size(), dt, st.data(), 0, fmt, &s, 1, p);
    ts.push_back(t);
    return t;
  }
  OursQuant(const Shape &sh, int64_t n, bool nhwc = false) {
    const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh);
    std::mt19937_64 g(5);
    std::vector<int8_t> xv(static_cast<size_t>(n * sh.cin * sh.h * sh.w)), wv(static_cast<size_t>(sh.cout * (sh.cin / sh.groups) * sh.k * sh.k));
    for (int8_t &v : xv) v = static_cast<int8_t>(g() % 256 - 128);
    for (int8_t &v : wv) v = static_cast<int8_t>(g() % 256 - 128);
    std::vector<float> sv(static_cast<size_t>(sh.cout), 1e-4f);
    std::vector<int32_t> bv(static_cast<size_t>(sh.cout), 7);
    aclTensor *xt = make({n, sh.cin, sh.h, sh.w}, ACL_INT8, xv.data(), xv.size(), nhwc);
    aclTensor *wt = make({sh.cout, sh.cin / sh.groups, sh.k, sh.k}, ACL_INT8, wv.data(), wv.size());
    aclTensor *bt = make({sh.cout}, ACL_INT32, bv.data(), bv.size() * 4);
    aclTensor *st = make({sh.cout}, ACL_FLOAT, sv.data(), sv.size() * 4);
    aclTensor *yt =
        make({n, sh.cout, ho, wo}, ACL_FLOAT16, nullptr, static_cast<size_t>(n * sh.cout * ho * wo * 2), nhwc);
    const int64_t s2[2] = {sh.s, sh.s}, p2[2] = {sh.p, sh.p}, one[2] = {1, 1}, zero[2] = {0, 0};
    stride = aclCreateIntArray(s2, 2);
    pad = aclCreateIntArray(p2, 2);
    dil = aclCreateIntArray(one, 2);
    op = aclCreateIntArray(zero, 2);
    if (aclnnQuantConvolutionGetWorkspaceSize(xt, wt, bt, st, nullptr, stride, pad, dil, false, op, sh.groups, 0, "rint",
                                              yt, &ws_size, &ex) != 0) {
      std::fprintf(stderr, "phase 1 failed: %s\n", aclGetRecentErrMsg());
      std::exit(1);
    }
    aclSetAclOpExecutorRepeatable(ex);
    if (ws_size > 0) aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST);
  }
  void run() {
    aclnnQuantConvolution(ws, ws_size, ex, opsnn::bench::env().stream);
    aclrtSynchronizeStream(opsnn::bench::env().stream);
  }
  ~OursQuant() {
    aclDestroyAclOpExecutor(ex);
    for (aclTensor *t : ts) aclDestroyTensor(t);
    for (aclIntArray *a : {stride, pad, dil, op}) aclDestroyIntArray(a);
    for (void *p : bufs) aclrtFree(p);
    if (ws != nullptr) aclrtFree(ws);
  }
};

void bench_quant(bool quick, const char *only) {
  const Shape shapes[] = {{"64x56x56->64 k3 p1", 64, 56, 56, 64, 3, 1, 1, 1},
                          {"256x56x56->64 k1", 256, 56, 56, 64, 1, 1, 0, 1},
                          {"256x14x14->256 k3 p1", 256, 14, 14, 256, 3, 1, 1, 1}};
  std::printf("\n| int8 layer | batch | QuantConvolution ms | GOP/s | fp32 Convolution ms | fp32 / int8 | "
              "QuantConvolution NHWC ms | GOP/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Shape &sh : shapes) {
    if (only != nullptr && std::strstr(sh.name, only) == nullptr) continue;
    for (int64_t n : {int64_t{1}, int64_t{8}}) {
      if (quick && n == 8) continue;
      const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh);
      const double ops = 2.0 * static_cast<double>(n * sh.cout * ho * wo) * static_cast<double>(sh.cin / sh.groups) *
                         static_cast<double>(sh.k * sh.k);
      OursQuant q(sh, n);
      const double t_q = time_call([&] { q.run(); });
      auto xv = random_values(static_cast<size_t>(n * sh.cin * sh.h * sh.w), 1);
      auto wv = random_values(static_cast<size_t>(sh.cout * (sh.cin / sh.groups) * sh.k * sh.k), 2);
      auto bv = random_values(static_cast<size_t>(sh.cout), 3);
      Ours plain(sh, n, xv, wv, bv);
      const double t_p = time_call([&] { plain.run(); });
      OursQuant qh(sh, n, true);
      const double t_h = time_call([&] { qh.run(); });
      std::printf("| %s | %lld | %.3f | %.1f | %.3f | %.2f | %.3f | %.1f |\n", sh.name, static_cast<long long>(n),
                  t_q * 1e3, ops / t_q * 1e-9, t_p * 1e3, t_p / t_q, t_h * 1e3, ops / t_h * 1e-9);
      std::fflush(stdout);
    }
  }
}

void set_peer_threads(int threads) {
  using OmpSet = void (*)(int);
  if (auto f = reinterpret_cast<OmpSet>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) f(threads);
}

// PyTorch's conv2d times from compare_conv_torch.py: "<layer index> <batch> <nchw|nhwc> <ms>" lines.
struct TorchTimes {
  std::map<std::string, double> ms;
  static std::string key(size_t layer, int64_t n, bool nhwc) {
    return std::to_string(layer) + "/" + std::to_string(n) + (nhwc ? "/nhwc" : "/nchw");
  }
  void load(const char *path) {
    FILE *f = std::fopen(path, "r");
    if (f == nullptr) {
      std::fprintf(stderr, "bench_conv: cannot read %s\n", path);
      std::exit(1);
    }
    unsigned long layer = 0;
    long long n = 0;
    char layout[8];
    double t = 0;
    while (std::fscanf(f, "%lu %lld %7s %lf", &layer, &n, layout, &t) == 4)
      ms[key(layer, n, std::strcmp(layout, "nhwc") == 0)] = t;
    std::fclose(f);
  }
  // "| ms | ratio" cells, or dashes when PyTorch was not timed.
  std::string cells(size_t layer, int64_t n, bool nhwc, double ours_s) const {
    const auto it = ms.find(key(layer, n, nhwc));
    if (it == ms.end()) return "| — | —";
    char b[64];
    std::snprintf(b, sizeof b, "| %.3f | %.2f", it->second, it->second / (ours_s * 1e3));
    return b;
  }
};

double max_abs_diff(const std::vector<float> &a, const std::vector<float> &b) {
  double d = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}

}  // namespace

int main(int argc, char **argv) {
  bool quick = false;
  const char *only = nullptr;  // --only SUBSTR: just the layers whose name contains it
  bool quant_only = false;     // --quant: just the int8 QuantConvolution table (with --only: its layers)
  bool opsnn_only = false;     // --opsnn-only: no peers, OpsNN's NCHW and NHWC times and paths (profiling)
  TorchTimes torch_times;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--cpu-time")) g_cpu_time = true;
    if (!std::strcmp(argv[i], "--min-call") && i + 1 < argc) g_min_call_s = std::atof(argv[++i]);
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    if (!std::strcmp(argv[i], "--torch") && i + 1 < argc) torch_times.load(argv[++i]);
    if (!std::strcmp(argv[i], "--quant")) quant_only = true;
    if (!std::strcmp(argv[i], "--opsnn-only")) opsnn_only = true;
    if (!std::strcmp(argv[i], "--list-shapes")) {  // index cin h w cout k s p groups name
      for (size_t l = 0; l < sizeof kShapes / sizeof kShapes[0]; ++l) {
        const Shape &sh = kShapes[l];
        std::printf("%zu %lld %lld %lld %lld %lld %lld %lld %lld %s\n", l, static_cast<long long>(sh.cin),
                    static_cast<long long>(sh.h), static_cast<long long>(sh.w), static_cast<long long>(sh.cout),
                    static_cast<long long>(sh.k), static_cast<long long>(sh.s), static_cast<long long>(sh.p),
                    static_cast<long long>(sh.groups), sh.name);
      }
      return 0;
    }
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
      g_reps = 2;
      g_batch_s = 0.05;
    }
  }
  opsnn::bench::env();
  if (quant_only) {
    bench_quant(quick, only);
    return 0;
  }
  const int threads = opsnn::core::num_threads();
  set_peer_threads(threads);
  const auto &f = opsnn::core::cpu_features();
  std::printf("# bench_conv: fp32, %d thread(s), %s%s; CPU ISA: avx2=%d avx512f=%d avx512_bf16=%d avx512_vnni=%d\n",
              threads, g_cpu_time ? "process CPU time" : "wall clock",
              g_min_call_s > 0 ? ", fastest single call" : "", f.avx2, f.avx512f, f.avx512_bf16, f.avx512_vnni);
#if !defined(OPSNN_HAVE_XNNPACK)
  std::printf("# XNNPACK not compared (libxnnpack-dev / libpthreadpool-dev not found at configure time)\n");
#endif
  std::printf("\n");
#if defined(OPSNN_HAVE_DNNL)
  std::printf("| layer | batch | OpsNN NCHW ms | OpsNN GFLOP/s | oneDNN any ms | oneDNN NCHW ms | XNNPACK NHWC ms | "
              "best peer / OpsNN | PyTorch NCHW ms | PyTorch / OpsNN | max |diff| |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
#else
  std::printf("| layer | batch | OpsNN ms | OpsNN GFLOP/s |\n|---|---|---|---|\n");
#endif
  std::vector<std::string> nhwc_rows;  // the layers on channels-last tensors
  for (size_t layer = 0; layer < sizeof kShapes / sizeof kShapes[0]; ++layer) {
    const Shape &sh = kShapes[layer];
    if (only != nullptr && std::strstr(sh.name, only) == nullptr) continue;
    for (int64_t n : {int64_t{1}, int64_t{8}}) {
      if (quick && n == 8) continue;
      const int64_t ho = out_dim(sh.h, sh), wo = out_dim(sh.w, sh);
      auto xv = random_values(static_cast<size_t>(n * sh.cin * sh.h * sh.w), 1);
      auto wv = random_values(static_cast<size_t>(sh.cout * (sh.cin / sh.groups) * sh.k * sh.k), 2);
      auto bv = random_values(static_cast<size_t>(sh.cout), 3);
      const double flops = 2.0 * static_cast<double>(n * sh.cout * ho * wo) * static_cast<double>(sh.cin / sh.groups) *
                           static_cast<double>(sh.k * sh.k);
      Ours ours(sh, n, xv, wv, bv);
      const double t_ours = time_call([&] { ours.run(); });
      if (opsnn_only) {
        Ours cl(sh, n, relayout(xv, n, sh.cin, sh.h * sh.w, true), wv, bv, true);
        const double t_cl = time_call([&] { cl.run(); });
        std::printf("| %s | %lld | NCHW %.3f ms (%s) | NHWC %.3f ms (%s) |\n", sh.name, static_cast<long long>(n),
                    t_ours * 1e3, ours.impl.c_str(), t_cl * 1e3, cl.impl.c_str());
        std::fflush(stdout);
        continue;
      }
#if defined(OPSNN_HAVE_DNNL)
      Dnnl any(sh, n, xv, wv, bv, true), plain(sh, n, xv, wv, bv, false);
      const double t_any = any.ok ? time_call([&] { any.run(); }) : 0;
      const double t_plain = plain.ok ? time_call([&] { plain.run(); }) : 0;
      double best = 1e30;
      if (any.ok) best = std::min(best, t_any);
      if (plain.ok) best = std::min(best, t_plain);
      std::string xnn_cell = "—";
#if defined(OPSNN_HAVE_XNNPACK)
      {
        Xnn xnn(sh, n, xv, wv, bv, threads);
        if (xnn.ok) {
          const double t_xnn = time_call([&] { xnn.run(); });
          best = std::min(best, t_xnn);
          char b[32];
          std::snprintf(b, sizeof b, "%.3f", t_xnn * 1e3);
          xnn_cell = b;
          if (plain.ok && max_abs_diff(xnn.result_nchw(), plain.result()) > 1e-2)
            std::fprintf(stderr, "bench_conv: XNNPACK's result differs from oneDNN's on %s\n", sh.name);
        }
      }
#endif
      const double diff = plain.ok ? max_abs_diff(ours.result(static_cast<size_t>(n * sh.cout * ho * wo)), plain.result()) : 0;
      std::printf("| %s | %lld | %.3f | %.1f | %.3f | %.3f | %s | %.2f %s | %.1e |\n", sh.name, static_cast<long long>(n),
                  t_ours * 1e3, flops / t_ours * 1e-9, t_any * 1e3, t_plain * 1e3, xnn_cell.c_str(), best / t_ours,
                  torch_times.cells(layer, n, false, t_ours).c_str(), diff);
      {  // the same logical values on channels-last (NHWC) tensors
        Ours cl(sh, n, relayout(xv, n, sh.cin, sh.h * sh.w, true), wv, bv, true);
        const double t_cl = time_call([&] { cl.run(); });
        const double cl_diff =
            plain.ok ? max_abs_diff(relayout(cl.result(static_cast<size_t>(n * sh.cout * ho * wo)), n, sh.cout, ho * wo, false),
                                    plain.result())
                     : 0;
        char line[400];
        std::snprintf(line, sizeof line, "| %s | %lld | %.3f | %.1f | %.3f | %.2f %s | %.1e | %s |", sh.name,
                      static_cast<long long>(n), t_cl * 1e3, flops / t_cl * 1e-9, best * 1e3, best / t_cl,
                      torch_times.cells(layer, n, true, t_cl).c_str(), cl_diff, cl.impl.c_str());
        nhwc_rows.push_back(line);
      }
#else
      std::printf("| %s | %lld | %.3f | %.1f |\n", sh.name, static_cast<long long>(n), t_ours * 1e3,
                  flops / t_ours * 1e-9);
#endif
      std::fflush(stdout);
    }
  }
#if defined(OPSNN_HAVE_DNNL)
  if (!nhwc_rows.empty()) {
    std::printf("\n| layer, OpsNN on channels-last (NHWC) tensors | batch | OpsNN NHWC ms | GFLOP/s | best peer ms | "
                "best peer / OpsNN NHWC | PyTorch channels_last ms | PyTorch / OpsNN NHWC | max |diff| | OpsNN path |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto &l : nhwc_rows) std::printf("%s\n", l.c_str());
  }
#endif
  if (only != nullptr) return 0;  // --only: the main table only
  bench_deformable(quick);
  bench_quant(quick, nullptr);
  return 0;
}

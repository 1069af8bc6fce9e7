// The LLM client's decode step (issue #13): one token through L Llama-style blocks at batch 1,
// every op called one-shot as the client's NPU backend does (create descriptors, phase 1, launch
// on one stream, destroy descriptors, hand the workspace back), one synchronisation per step.
// bench/compare_decode_step_torch.py runs the same sequence in PyTorch eager; compare_decode_step.sh
// runs both in the same session and prints the ratio.
//
// Per block (FLOAT): RmsNorm, Mm (fused QKV weight, passed as a transposed view as clients do),
// RotaryPositionEmbedding on q and k, InplaceCopy of k and v into the KV cache (BNSD), fused
// attention over the cache (FusedInferAttentionScoreV2, grouped-query), Mm (output projection),
// Add, RmsNorm, Mm (fused gate / up weight), SwiGlu, Mm (down projection), Add: 13 calls.
//
// Modes (each timed over --steps steps after a warm-up; medians of --reps repeats, wall clock):
//   oneshot        the client pattern, inline launches (OPSNN_LAUNCH_INLINE default);
//                  the split: descriptors (create + destroy), phase 1, launch (+ inline kernel),
//                  synchronise
//   oneshot-queued the same with every launch queued to the stream's worker: launch = enqueue
//                  only, synchronise = waiting for the kernels
//   replay         repeatable executors built once, relaunched each step: launch + kernel only
// Usage: bench_decode_step [--config tiny|small] [--steps N] [--reps N] [--mode M] [--per-op 1]
// (--per-op 1 with replay: synchronise after every launch and print each call's time per block)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fused_infer_attention_score_v2.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "aclnnop/aclnn_swi_glu.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  const char *name;
  int64_t hidden, heads, kv_heads, ffn, context, layers;
  int64_t head_dim() const { return hidden / heads; }
  int64_t qkv() const { return (heads + 2 * kv_heads) * head_dim(); }
};
// tiny: launch-overhead bound (the case the one-shot cost decides); small: weight-bandwidth bound.
const Config kConfigs[] = {{"tiny", 256, 4, 2, 704, 128, 8}, {"small", 1024, 16, 4, 2816, 512, 2}};

void check(aclnnStatus s, const char *what) {
  if (s != 0) {
    std::fprintf(stderr, "%s failed (%d): %s\n", what, static_cast<int>(s), aclGetRecentErrMsg());
    std::exit(1);
  }
}

// A device buffer of FLOAT values, filled once with small deterministic values.
struct Buffer {
  float *p = nullptr;
  int64_t n = 0;
  explicit Buffer(int64_t count, float scale = 0.02f) : n(count) {
    void *v = nullptr;
    check(aclrtMalloc(&v, static_cast<size_t>(n) * 4, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    p = static_cast<float *>(v);
    uint32_t s = 12345u + static_cast<uint32_t>(n);
    for (int64_t i = 0; i < n; ++i) {
      s = s * 1664525u + 1013904223u;
      p[i] = scale * (static_cast<float>(s >> 8) / 16777216.0f - 0.5f);
    }
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { aclrtFree(p); }
};

// Where the one-shot time goes, summed over the timed steps.
struct Split {
  double desc = 0, phase1 = 0, launch = 0, sync = 0;
};
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// One descriptor over base + offset elements (strides in elements; storage = one flat dim covering
// the view, as clients pass it).
aclTensor *view(float *base, std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset = 0) {
  int64_t extent = 1;
  for (size_t i = 0; i < shape.size(); ++i) extent += (shape[i] - 1) * strides[i];
  const int64_t storage = offset + extent;
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND, &storage, 1,
                         base + offset);
}
aclTensor *dense(float *base, std::vector<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return view(base, shape, strides);
}

struct Layer {
  Buffer norm1, wqkv, norm2, wgu, wo, wd, kcache, vcache;
  Layer(const Config &c)
      : norm1(c.hidden, 1.0f), wqkv(c.qkv() * c.hidden), norm2(c.hidden, 1.0f), wgu(2 * c.ffn * c.hidden),
        wo(c.hidden * c.hidden), wd(c.hidden * c.ffn), kcache(c.kv_heads * c.context * c.head_dim()),
        vcache(c.kv_heads * c.context * c.head_dim()) {}
};

// The activations of one step (reused by every layer).
struct Scratch {
  Buffer x, x2, xn, rstd, qkv, qrot, krot, attn, o, gu, act, d, cos, sin;
  explicit Scratch(const Config &c)
      : x(c.hidden, 1.0f), x2(c.hidden), xn(c.hidden), rstd(1), qkv(c.qkv()), qrot(c.heads * c.head_dim()),
        krot(c.kv_heads * c.head_dim()), attn(c.hidden), o(c.hidden), gu(2 * c.ffn), act(c.ffn), d(c.hidden),
        cos(c.head_dim(), 1.0f), sin(c.head_dim(), 1.0f) {}
};

// Runs one call: phase 1 through `plan` (which creates its descriptors, returns them for
// destruction), launch, destroy — or, when `keep` is set, records the executor instead.
using LaunchFn = aclnnStatus (*)(void *, uint64_t, aclOpExecutor *, aclrtStream);
struct Kept {
  LaunchFn launch;
  aclOpExecutor *executor;
  uint64_t workspace_size;
  void *workspace;
};

struct Runner {
  aclrtStream stream;
  Split *split;             // null: not timed
  std::vector<Kept> *keep;  // replay mode: the executors are kept (repeatable) instead of dropped
  Clock::time_point created_at{};  // set by each plan once its descriptors exist (created())
  void created() { created_at = Clock::now(); }
  template <class Plan, class Launch>
  void call(Plan plan, Launch launch) {
    std::vector<aclTensor *> tensors;
    std::vector<aclTensorList *> lists;
    std::vector<aclScalar *> scalars;
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    const auto t0 = Clock::now();
    check(plan(tensors, lists, scalars, &ws, &ex), "phase 1");  // creates the descriptors, then phase 1
    const auto t1 = Clock::now();
    void *w = nullptr;
    if (ws > 0) check(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), "workspace");
    if (keep != nullptr) {
      aclSetAclOpExecutorRepeatable(ex);
      keep->push_back({static_cast<LaunchFn>(launch), ex, ws, nullptr});
    }
    check(launch(w, ws, ex, stream), "launch");
    const auto t2 = Clock::now();
    if (w != nullptr) aclrtFree(w);  // the client hands the workspace back at once
    for (auto *t : tensors) aclDestroyTensor(t);
    for (auto *l : lists) aclDestroyTensorList(l);
    for (auto *s : scalars) aclDestroyScalar(s);
    const auto t3 = Clock::now();
    if (split != nullptr) {
      split->desc += seconds(t0, created_at) + seconds(t2, t3);  // create + destroy
      split->phase1 += seconds(created_at, t1);
      split->launch += seconds(t1, t2);  // workspace allocation + launch (+ the inline kernel)
    }
  }
};

// The 13 calls of one block at decode position `pos` (tokens 0..pos are in the cache after it).
void block(Runner &r, const Config &c, Layer &L, Scratch &s, int64_t pos) {
  const int64_t H = c.hidden, N = c.heads, NKV = c.kv_heads, D = c.head_dim(), S = c.context;
  using TV = std::vector<aclTensor *>;
  using LV = std::vector<aclTensorList *>;
  using SV = std::vector<aclScalar *>;
  auto rms = [&](Buffer &in, Buffer &gamma) {
    r.call(
        [&](TV &t, LV &, SV &, uint64_t *ws, aclOpExecutor **ex) {
          t = {dense(in.p, {1, H}), dense(gamma.p, {H}), dense(s.xn.p, {1, H}), dense(s.rstd.p, {1, 1})};
          r.created();
          return aclnnRmsNormGetWorkspaceSize(t[0], t[1], 1e-6, t[2], t[3], ws, ex);
        },
        aclnnRmsNorm);
  };
  // out[1, n] = in[1, k] x W^T with W stored [n, k]: the weight goes in as the transposed view.
  auto mm = [&](Buffer &in, int64_t k, Buffer &w, int64_t n, Buffer &out) {
    r.call(
        [&](TV &t, LV &, SV &, uint64_t *ws, aclOpExecutor **ex) {
          t = {dense(in.p, {1, k}), view(w.p, {k, n}, {1, k}), dense(out.p, {1, n})};
          r.created();
          return aclnnMmGetWorkspaceSize(t[0], t[1], t[2], 0, ws, ex);
        },
        aclnnMm);
  };
  auto add = [&](Buffer &a, Buffer &b, Buffer &out) {
    r.call(
        [&](TV &t, LV &, SV &sc, uint64_t *ws, aclOpExecutor **ex) {
          float one = 1.0f;
          sc = {aclCreateScalar(&one, ACL_FLOAT)};
          t = {dense(a.p, {1, H}), dense(b.p, {1, H}), dense(out.p, {1, H})};
          r.created();
          return aclnnAddGetWorkspaceSize(t[0], t[1], sc[0], t[2], ws, ex);
        },
        aclnnAdd);
  };
  // q / k / v are column ranges of qkv [1, (N + 2 NKV) D], seen as [1, 1, heads, D].
  auto rope = [&](int64_t col, int64_t heads, Buffer &out) {
    r.call(
        [&](TV &t, LV &, SV &, uint64_t *ws, aclOpExecutor **ex) {
          t = {view(s.qkv.p, {1, 1, heads, D}, {heads * D, heads * D, D, 1}, col), dense(s.cos.p, {1, 1, 1, D}),
               dense(s.sin.p, {1, 1, 1, D}), dense(out.p, {1, 1, heads, D})};
          r.created();
          return aclnnRotaryPositionEmbeddingGetWorkspaceSize(t[0], t[1], t[2], 0, t[3], ws, ex);
        },
        aclnnRotaryPositionEmbedding);
  };
  // cache[0, :, pos, :] = src (src [1, NKV, 1, D] at base + col)
  auto cache_write = [&](Buffer &cache, float *src, int64_t col) {
    r.call(
        [&](TV &t, LV &, SV &, uint64_t *ws, aclOpExecutor **ex) {
          t = {view(cache.p, {1, NKV, 1, D}, {NKV * S * D, S * D, D, 1}, pos * D),
               view(src, {1, NKV, 1, D}, {NKV * D, D, D, 1}, col)};
          r.created();
          return aclnnInplaceCopyGetWorkspaceSize(t[0], t[1], ws, ex);
        },
        aclnnInplaceCopy);
  };

  rms(s.x, L.norm1);
  mm(s.xn, H, L.wqkv, c.qkv(), s.qkv);
  rope(0, N, s.qrot);
  rope(N * D, NKV, s.krot);
  cache_write(L.kcache, s.krot.p, 0);
  cache_write(L.vcache, s.qkv.p, (N + NKV) * D);
  r.call(
      [&](TV &t, LV &l, SV &, uint64_t *ws, aclOpExecutor **ex) {
        const int64_t kv = pos + 1;
        aclTensor *k = view(L.kcache.p, {1, NKV, kv, D}, {NKV * S * D, S * D, D, 1});
        aclTensor *v = view(L.vcache.p, {1, NKV, kv, D}, {NKV * S * D, S * D, D, 1});
        l = {aclCreateTensorList(&k, 1), aclCreateTensorList(&v, 1)};
        t = {dense(s.qrot.p, {1, N, 1, D}), dense(s.attn.p, {1, N, 1, D})};
        static char layout[] = "BNSD";
        r.created();
        return aclnnFusedInferAttentionScoreV2GetWorkspaceSize(
            t[0], l[0], l[1], nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
            nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
            nullptr, N, 1.0 / std::sqrt(static_cast<double>(D)), 2147483647, 2147483647, layout, NKV, 0, 0, 0, 0,
            false, 0, 0, t[1], nullptr, ws, ex);
      },
      aclnnFusedInferAttentionScoreV2);
  mm(s.attn, H, L.wo, H, s.o);
  add(s.x, s.o, s.x2);
  rms(s.x2, L.norm2);
  mm(s.xn, H, L.wgu, 2 * c.ffn, s.gu);
  r.call(
      [&](TV &t, LV &, SV &, uint64_t *ws, aclOpExecutor **ex) {
        t = {dense(s.gu.p, {1, 2 * c.ffn}), dense(s.act.p, {1, c.ffn})};
        r.created();
        return aclnnSwiGluGetWorkspaceSize(t[0], -1, t[1], ws, ex);
      },
      aclnnSwiGlu);
  mm(s.act, c.ffn, L.wd, H, s.d);
  add(s.x2, s.d, s.x);
}

constexpr size_t kCallsPerBlock = 13;
const char *const kCallNames[kCallsPerBlock] = {"RmsNorm",  "Mm qkv",    "RoPE q", "RoPE k",  "copy k",
                                                 "copy v",   "attention", "Mm o",   "Add",     "RmsNorm",
                                                 "Mm gate/up", "SwiGlu",  "Mm down"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  std::string config = "tiny", mode = "oneshot";
  int steps = 50, reps = 5;
  bool per_op = false;  // replay only: synchronise after every launch and print the time per call
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--config") config = argv[i + 1];
    else if (a == "--steps") steps = std::atoi(argv[i + 1]);
    else if (a == "--reps") reps = std::atoi(argv[i + 1]);
    else if (a == "--mode") mode = argv[i + 1];
    else if (a == "--per-op") per_op = std::atoi(argv[i + 1]) != 0;
  }
  const Config *cp = nullptr;
  for (const auto &c : kConfigs)
    if (config == c.name) cp = &c;
  if (cp == nullptr || steps < 1 || reps < 1 || (mode != "oneshot" && mode != "oneshot-queued" && mode != "replay")) {
    std::fprintf(stderr, "usage: %s [--config tiny|small] [--steps N] [--reps N] [--mode oneshot|oneshot-queued|replay]\n",
                 argv[0]);
    return 2;
  }
  const Config &c = *cp;
  if (mode == "oneshot-queued") setenv("OPSNN_LAUNCH_INLINE", "0", 1);
  check(aclInit(nullptr), "aclInit");
  check(aclrtSetDevice(0), "aclrtSetDevice");
  aclrtStream stream = nullptr;
  check(aclrtCreateStream(&stream), "aclrtCreateStream");
  {
    std::vector<Layer *> layers;
    for (int64_t l = 0; l < c.layers; ++l) layers.push_back(new Layer(c));
    Scratch s(c);
    // The steps cycle through cache positions [context / 2, context): attention length varies as in
    // a real decode, and the caches never overflow.
    const int64_t first = c.context / 2;
    int64_t pos = first;
    auto next_pos = [&] {
      pos = pos + 1 < c.context ? pos + 1 : first;
      return pos;
    };
    std::vector<double> totals, descs, p1s, launches, syncs;
    std::vector<Kept> kept;
    std::vector<double> op_time(kCallsPerBlock, 0.0);
    if (mode == "replay") {
      // The executors of one step at the last position (the attention length is fixed in phase 1),
      // each with its own workspace.
      Runner r{stream, nullptr, &kept};
      for (auto *L : layers) block(r, c, *L, s, c.context - 1);
      check(aclrtSynchronizeStream(stream), "synchronize");
      for (auto &k : kept)
        if (k.workspace_size > 0) check(aclrtMalloc(&k.workspace, k.workspace_size, ACL_MEM_MALLOC_HUGE_FIRST), "workspace");
    }
    auto one_step = [&](Split *split) {
      auto t0 = Clock::now();
      if (mode == "replay") {
        for (size_t i = 0; i < kept.size(); ++i) {
          auto &k = kept[i];
          auto a = Clock::now();
          check(k.launch(k.workspace, k.workspace_size, k.executor, stream), "launch");
          if (per_op) {
            check(aclrtSynchronizeStream(stream), "synchronize");
            op_time[i % kCallsPerBlock] += seconds(a, Clock::now());
          }
        }
      } else {
        Runner r{stream, split, nullptr};
        const int64_t p = next_pos();
        for (auto *L : layers) block(r, c, *L, s, p);
      }
      auto t1 = Clock::now();
      check(aclrtSynchronizeStream(stream), "synchronize");
      if (split != nullptr) {
        if (mode == "replay") split->launch += seconds(t0, t1);
        split->sync += seconds(t1, Clock::now());
      }
    };
    for (int w = 0; w < 3; ++w) one_step(nullptr);  // warm-up: caches, pools, page faults
    for (int rep = 0; rep < reps; ++rep) {
      Split split;
      auto t0 = Clock::now();
      for (int i = 0; i < steps; ++i) one_step(&split);
      totals.push_back(seconds(t0, Clock::now()) / steps);
      descs.push_back(split.desc / steps);
      p1s.push_back(split.phase1 / steps);
      launches.push_back(split.launch / steps);
      syncs.push_back(split.sync / steps);
    }
    const double calls = 13.0 * static_cast<double>(c.layers);
    std::printf("decode_step config=%s mode=%s layers=%lld hidden=%lld heads=%lld/%lld ffn=%lld context=%lld calls=%.0f\n",
                c.name, mode.c_str(), static_cast<long long>(c.layers), static_cast<long long>(c.hidden),
                static_cast<long long>(c.heads), static_cast<long long>(c.kv_heads), static_cast<long long>(c.ffn),
                static_cast<long long>(c.context), calls);
    std::printf("opsnn_step_us %.1f\n", median(totals) * 1e6);
    std::printf("split_us descriptors %.1f phase1 %.1f launch %.1f synchronize %.1f (medians of %d repeats of %d steps)\n",
                median(descs) * 1e6, median(p1s) * 1e6, median(launches) * 1e6, median(syncs) * 1e6, reps, steps);
    if (per_op && mode == "replay") {
      const double n = static_cast<double>(reps) * steps * static_cast<double>(c.layers);
      for (size_t i = 0; i < kCallsPerBlock; ++i)
        std::printf("  per_call_us %-11s %.1f\n", kCallNames[i], op_time[i] / n * 1e6);
    }
    for (auto *L : layers) delete L;
    for (auto &k : kept) {
      aclDestroyAclOpExecutor(k.executor);
      if (k.workspace != nullptr) aclrtFree(k.workspace);
    }
  }
  aclrtDestroyStream(stream);
  aclFinalize();
  return 0;
}

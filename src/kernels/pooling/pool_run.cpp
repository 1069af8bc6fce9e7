// The pooling engine's planning (window tables, kernel choice), its parallel drivers, the index
// scatters / gathers and the staging copies (pool.h).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/half.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "kernels/pooling/pool.h"

namespace opsnn::kernels {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The tiers, best first (the same kernels compiled per ISA); the portable build is the reference.
const core::Impl<PoolPlan> kPoolTiers[] = {
#if defined(__x86_64__)
    {"avx512", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2", static_cast<int>(core::Isa::kAvx2), nullptr},
#endif
    {"portable", static_cast<int>(core::Isa::kPortable), nullptr},
};
PoolTierKernels tier_kernels(int tier) {
#if defined(__x86_64__)
  if (tier == 0) return pool_kernels_avx512();
  if (tier == 1) return pool_kernels_avx2();
#endif
  return pool_kernels_portable();
}

// The paths of planar buffers, best first; the last (per-output window tables) takes everything.
const core::Impl<PoolPlan> kPlanarPaths[] = {
    {"nchw_global", core::kNoIsa,
     [](const PoolPlan &p, const core::Why &why) {
       if (p.with_index) return why("indices wanted");
       for (const auto &a : p.ax)
         if (a.out != 1 || a.lo[0] != 0 || a.cnt[0] != a.in || (a.in > 1 && a.step != 1))
           return why("not one window over the whole plane");
       return true;
     }},
    // CNNs' MaxPool2d(2) on small planes: the W interior loop runs 4 or 8 outputs a row.
    {"nchw_max_2x2", core::kNoIsa,
     [](const PoolPlan &p, const core::Why &why) {
       if (p.reduce != PoolReduce::kMax || p.with_index) return why("not max pooling without indices");
       if (p.ax[0].in != 1 || p.ax[0].out != 1) return why("3-D pooling");
       for (int i = 1; i < 3; ++i) {
         const PoolAxis &a = p.ax[i];
         if (!a.regular || a.kernel != 2 || a.stride != 2 || a.pad != 0 || a.step != 1 || a.int_lo != 0 ||
             a.int_hi != a.out)
           return why("not 2x2 windows of stride 2 all inside the input");
       }
       if (p.ax[2].in != 2 * p.ax[2].out) return why("odd input width %lld", static_cast<long long>(p.ax[2].in));
       if (p.ax[2].out > 1024) return why("output width %lld > 1024", static_cast<long long>(p.ax[2].out));
       return true;
     }},
    {"nchw_w_interior", core::kNoIsa,
     [](const PoolPlan &p, const core::Why &why) {
       const PoolAxis &w = p.ax[2];
       if (!w.regular) return why("W windows are not regular (adaptive)");
       if (w.int_hi - w.int_lo < 4) return why("W interior of %lld outputs < 4", static_cast<long long>(w.int_hi - w.int_lo));
       return true;
     }},
    {"nchw_w_gather", core::kNoIsa,
     [](const PoolPlan &p, const core::Why &why) {
       for (int32_t c : p.ax[2].cnt)
         if (c != 1) return why("W windows of %d positions", static_cast<int>(c));
       return true;
     }},
    {"nchw_windows", core::kNoIsa, nullptr},
};

// The average gradient's planar paths (the forward's global and gather paths have no backward twin).
const core::Impl<PoolPlan> kPlanarBackwardPaths[] = {
    {"nchw_w_interior", core::kNoIsa,
     [](const PoolPlan &p, const core::Why &why) {
       const PoolAxis &w = p.ax[2];
       if (!w.regular) return why("W windows are not regular (adaptive)");
       if (w.int_hi - w.int_lo < 4) return why("W interior of %lld outputs < 4", static_cast<long long>(w.int_hi - w.int_lo));
       return true;
     }},
    {"nchw_windows", core::kNoIsa, nullptr},
};

int64_t window_work(const PoolPlan &p) {
  int64_t w = 1;
  for (const auto &a : p.ax) {
    int64_t m = 1;
    for (int32_t c : a.cnt) m = std::max<int64_t>(m, c);
    w *= m;
  }
  return w;
}

struct Half {};
struct Bf16 {};

template <class Tag>
float get(const char *base, int64_t i);
template <>
inline float get<float>(const char *base, int64_t i) { return reinterpret_cast<const float *>(base)[i]; }
template <>
inline float get<Half>(const char *base, int64_t i) { return half_to_float(reinterpret_cast<const uint16_t *>(base)[i]); }
template <>
inline float get<Bf16>(const char *base, int64_t i) { return bf16_to_float(reinterpret_cast<const uint16_t *>(base)[i]); }
template <class Tag>
void put(char *base, int64_t i, float v);
template <>
inline void put<float>(char *base, int64_t i, float v) { reinterpret_cast<float *>(base)[i] = v; }
template <>
inline void put<Half>(char *base, int64_t i, float v) { reinterpret_cast<uint16_t *>(base)[i] = float_to_half(v); }
template <>
inline void put<Bf16>(char *base, int64_t i, float v) { reinterpret_cast<uint16_t *>(base)[i] = float_to_bf16(v); }

// Calls f(view_offset, dense_offset) for every element, in parallel over planes (planar) or rows.
template <class F>
void for_each_element(const PoolView &v, bool cl, const F &f) {
  const int64_t N = v.dims[0], C = v.dims[1], D = v.dims[2], H = v.dims[3], W = v.dims[4];
  const int64_t *s = v.st;
  const int64_t total = N * C * D * H * W;
  if (total == 0) return;
  if (!cl) {
    const int64_t plane = D * H * W;
    core::parallel_for(N * C, std::max<int64_t>(1, 65536 / std::max<int64_t>(plane, 1)), [&](int64_t b0, int64_t b1) {
      for (int64_t pc = b0; pc < b1; ++pc) {
        const int64_t n = pc / C, c = pc % C;
        int64_t o = pc * plane;
        for (int64_t d = 0; d < D; ++d)
          for (int64_t h = 0; h < H; ++h) {
            const int64_t vb = n * s[0] + c * s[1] + d * s[2] + h * s[3];
            for (int64_t w = 0; w < W; ++w) f(vb + w * s[4], o++);
          }
      }
    });
  } else {
    const int64_t row = W * C;
    core::parallel_for(N * D * H, std::max<int64_t>(1, 65536 / std::max<int64_t>(row, 1)), [&](int64_t b0, int64_t b1) {
      for (int64_t r = b0; r < b1; ++r) {
        const int64_t h = r % H, d = (r / H) % D, n = r / (H * D);
        int64_t o = r * row;
        const int64_t vb = n * s[0] + d * s[2] + h * s[3];
        for (int64_t w = 0; w < W; ++w)
          for (int64_t c = 0; c < C; ++c) f(vb + w * s[4] + c * s[1], o++);
      }
    });
  }
}

template <class Tag>
void load_t(const PoolView &v, const char *base, bool cl, float *dense) {
  for_each_element(v, cl, [&](int64_t vi, int64_t di) { dense[di] = get<Tag>(base, vi); });
}
template <class Tag>
void store_t(const PoolView &v, const float *dense, bool cl, char *base) {
  for_each_element(v, cl, [&](int64_t vi, int64_t di) { put<Tag>(base, vi, dense[di]); });
}

}  // namespace

PoolAxis pool_axis_unit() { return pool_axis_regular(1, 1, 1, 1, 0, 0, 1); }

PoolAxis pool_axis_regular(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pb, int64_t pe, int64_t d) {
  PoolAxis a;
  a.in = in;
  a.out = out;
  a.step = d;
  a.regular = true;
  a.stride = s;
  a.pad = pb;
  a.kernel = k;
  a.lo.resize(static_cast<size_t>(out));
  a.cnt.resize(static_cast<size_t>(out));
  a.pcnt.resize(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * s - pb;
    const int64_t k0 = start < 0 ? ceil_div(-start, d) : 0;
    const int64_t k1 = in - start > 0 ? std::min(k, ceil_div(in - start, d)) : 0;
    a.lo[static_cast<size_t>(o)] = static_cast<int32_t>(start + k0 * d);
    a.cnt[static_cast<size_t>(o)] = static_cast<int32_t>(std::max<int64_t>(0, k1 - k0));
    a.pcnt[static_cast<size_t>(o)] = static_cast<int32_t>(std::min(start + k, in + pe) - start);
  }
  a.int_lo = std::min(out, ceil_div(pb, s));
  const int64_t last = in - 1 - (k - 1) * d + pb;  // the largest start (+ pb) whose window ends inside
  a.int_hi = last < 0 ? a.int_lo : std::max(a.int_lo, std::min(out, last / s + 1));
  return a;
}

PoolAxis pool_axis_adaptive(int64_t in, int64_t out) {
  PoolAxis a;
  a.in = in;
  a.out = out;
  a.lo.resize(static_cast<size_t>(out));
  a.cnt.resize(static_cast<size_t>(out));
  a.pcnt.resize(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = (o * in) / out, end = ((o + 1) * in + out - 1) / out;
    a.lo[static_cast<size_t>(o)] = static_cast<int32_t>(start);
    a.cnt[static_cast<size_t>(o)] = a.pcnt[static_cast<size_t>(o)] = static_cast<int32_t>(end - start);
  }
  return a;
}

const char *choose_pool_kernel(PoolPlan &p, bool backward, core::ImplTrace *trace) {
  p.tier = core::choose(kPoolTiers, p, trace);
  static thread_local char name[64];
  const char *path = "nhwc_channels";
  p.w_interior = p.w_gather = p.global = p.k2s2 = false;
  if (!p.cl && backward) {
    const int i = core::choose(kPlanarBackwardPaths, p, trace);
    p.w_interior = i == 0;
    path = kPlanarBackwardPaths[i].name;
  } else if (!p.cl) {
    const int i = core::choose(kPlanarPaths, p, trace);
    p.global = i == 0;
    p.k2s2 = i == 1;
    p.w_interior = i == 2;
    p.w_gather = i == 3;
    path = kPlanarPaths[i].name;
  }
  std::snprintf(name, sizeof name, "%s/%s", kPoolTiers[p.tier].name, path);
  return name;
}

void pool_forward(const PoolPlan &p, const float *in, float *out, int64_t *idx) {
  const PoolTierKernels k = tier_kernels(p.tier);
  const int64_t win = window_work(p);
  if (p.cl) {
    const int64_t rows = p.n * p.ax[0].out * p.ax[1].out;
    const int64_t per = std::max<int64_t>(1, p.ax[2].out * p.c * win);
    core::parallel_for(rows, std::max<int64_t>(1, 32768 / per),
                       [&](int64_t b0, int64_t b1) { k.forward(p, in, out, idx, b0, b1); });
  } else {
    const int64_t per = std::max<int64_t>(1, p.out_plane() * win);
    core::parallel_for(p.n * p.c, std::max<int64_t>(1, 32768 / per),
                       [&](int64_t b0, int64_t b1) { k.forward(p, in, out, idx, b0, b1); });
  }
}

void pool_avg_backward(const PoolPlan &p, const float *gout, float *gin) {
  const PoolTierKernels k = tier_kernels(p.tier);
  const int64_t per = std::max<int64_t>(1, p.out_plane() * window_work(p) * (p.cl ? p.c : 1));
  const int64_t units = p.cl ? p.n : p.n * p.c;
  core::parallel_for(units, std::max<int64_t>(1, 32768 / per),
                     [&](int64_t b0, int64_t b1) { k.avg_backward(p, gout, gin, b0, b1); });
}

bool pool_index_move(IndexMove m, int64_t planes, int64_t src_plane, int64_t dst_plane, const float *src,
                     const int64_t *idx, float *dst, int64_t *bad_index, int64_t *bound) {
  std::atomic<bool> ok{true};
  std::atomic<int64_t> bad{0};
  const int64_t lim = m == IndexMove::kGather ? src_plane : dst_plane;
  const int64_t n_idx = m == IndexMove::kGather ? dst_plane : src_plane;
  core::parallel_for(planes, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, src_plane + dst_plane)),
                     [&](int64_t b0, int64_t b1) {
                       for (int64_t pl = b0; pl < b1; ++pl) {
                         const float *s = src + pl * src_plane;
                         const int64_t *x = idx + pl * n_idx;
                         float *d = dst + pl * dst_plane;
                         if (m != IndexMove::kGather) std::memset(d, 0, static_cast<size_t>(dst_plane) * sizeof(float));
                         for (int64_t i = 0; i < n_idx; ++i) {
                           const int64_t j = x[i];
                           if (j < 0 || j >= lim) {
                             bad.store(j, std::memory_order_relaxed);
                             ok.store(false, std::memory_order_relaxed);
                             if (m == IndexMove::kGather) d[i] = 0;
                             continue;
                           }
                           if (m == IndexMove::kScatterAdd) d[j] += s[i];
                           else if (m == IndexMove::kScatterAssign) d[j] = s[i];
                           else d[i] = s[j];
                         }
                       }
                     });
  *bad_index = bad.load();
  *bound = lim;
  return ok.load();
}

bool pool_view_dense(const PoolView &v, bool cl, bool index) {
  if (v.dtype != (index ? ACL_INT64 : ACL_FLOAT)) return false;
  static const int kPlanar[5] = {0, 1, 2, 3, 4}, kCl[5] = {0, 2, 3, 4, 1};
  const int *order = cl ? kCl : kPlanar;
  int64_t expect = 1;
  for (int i = 4; i >= 0; --i) {
    const int d = order[i];
    if (v.dims[d] != 1 && v.st[d] != expect) return false;
    expect *= v.dims[d];
  }
  return true;
}

void pool_load(const PoolView &v, const char *base, bool cl, float *dense) {
  switch (v.dtype) {
    case ACL_FLOAT16: load_t<Half>(v, base, cl, dense); break;
    case ACL_BF16: load_t<Bf16>(v, base, cl, dense); break;
    default: load_t<float>(v, base, cl, dense); break;
  }
}

void pool_store(const PoolView &v, const float *dense, bool cl, char *base) {
  switch (v.dtype) {
    case ACL_FLOAT16: store_t<Half>(v, dense, cl, base); break;
    case ACL_BF16: store_t<Bf16>(v, dense, cl, base); break;
    default: store_t<float>(v, dense, cl, base); break;
  }
}

void pool_load_index(const PoolView &v, const char *base, int64_t *dense) {
  if (v.dtype == ACL_INT32)
    for_each_element(v, false, [&](int64_t vi, int64_t di) { dense[di] = reinterpret_cast<const int32_t *>(base)[vi]; });
  else
    for_each_element(v, false, [&](int64_t vi, int64_t di) { dense[di] = reinterpret_cast<const int64_t *>(base)[vi]; });
}

void pool_store_index(const PoolView &v, const int64_t *dense, bool cl, char *base) {
  if (v.dtype == ACL_INT32)
    for_each_element(v, cl, [&](int64_t vi, int64_t di) {
      reinterpret_cast<int32_t *>(base)[vi] = static_cast<int32_t>(dense[di]);
    });
  else
    for_each_element(v, cl, [&](int64_t vi, int64_t di) { reinterpret_cast<int64_t *>(base)[vi] = dense[di]; });
}

}  // namespace opsnn::kernels

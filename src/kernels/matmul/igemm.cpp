// Int8 GEMM driver (igemm.h): kernel tier choice and blocking in phase 1, packing and the task loop
// in phase 2, plus the portable tiles and the element-by-element definition.
//
// Blocking per task (an MT x NT block of C, tasks split over threads round-robin): for each K block
// of kc elements, B's kc x NT block is packed once (a kc x nr micro-panel stays in L1 while every
// row panel of A passes over it), then A in sub-blocks of mc rows (L2); the tiles accumulate int32
// into the task's C block, which goes to the caller's callback after the last K block.
#include "kernels/matmul/igemm.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "aclnn/acl_meta.h"
#include "common/error.h"
#include "core/cpu_features.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/matmul/igemm_tiles.h"

namespace opsnn::kernels {
namespace {

using igemm_detail::IgemmTiles;

// Two int8 as the int16 pair of a 32-bit word (low half first), for vpmaddwd.
inline uint32_t pair_word(int8_t lo, int8_t hi) {
  return static_cast<uint16_t>(static_cast<int16_t>(lo)) | static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16;
}

// ---- Portable tiles: 4 x 8 over int16 pairs ----

template <int ROWS>
void tile_portable(int64_t groups, const uint32_t *a, const uint32_t *b, int32_t *c, int64_t ldc, bool accumulate) {
  constexpr int kMr = 4, kNr = 8;
  uint32_t acc[ROWS][kNr] = {};  // unsigned: the wrap-around the SIMD tiles have, without UB
  for (int64_t g = 0; g < groups; ++g) {
    for (int i = 0; i < ROWS; ++i) {
      const int32_t a0 = static_cast<int16_t>(a[i] & 0xFFFF), a1 = static_cast<int16_t>(a[i] >> 16);
      for (int j = 0; j < kNr; ++j) {
        const int32_t b0 = static_cast<int16_t>(b[j] & 0xFFFF), b1 = static_cast<int16_t>(b[j] >> 16);
        acc[i][j] += static_cast<uint32_t>(a0 * b0 + a1 * b1);
      }
    }
    a += kMr;
    b += kNr;
  }
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < kNr; ++j) {
      uint32_t v = acc[i][j];
      if (accumulate) v += static_cast<uint32_t>(c[i * ldc + j]);
      c[i * ldc + j] = static_cast<int32_t>(v);
    }
}

}  // namespace

namespace igemm_detail {
constexpr IgemmTiles kIgemmPortableTiles = {
    4, 8, 2, {nullptr, &tile_portable<1>, &tile_portable<2>, &tile_portable<3>, &tile_portable<4>},
    nullptr, nullptr, nullptr, nullptr};

void pack_a_groups(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0,
                   int64_t kc, int64_t g0, int64_t g1, uint32_t *panel) {
  for (int i = 0; i < t.mr_max; ++i) {
    const int8_t *row = a + i * rs + k0 * cs;
    uint32_t *out = panel + i;
    for (int64_t g = g0; g < g1; ++g) {
      if (i >= rows) {  // padding rows: zero (their results are never stored)
        out[g * t.mr_max] = t.a_biased ? 0x80808080u : 0u;
      } else if (t.kgroup == 2) {
        const int64_t p = 2 * g;
        out[g * t.mr_max] = pair_word(row[p * cs], p + 1 < kc ? row[(p + 1) * cs] : 0);
      } else {
        uint32_t w = 0;
        for (int q = 0; q < 4; ++q) {
          const int64_t p = 4 * g + q;
          const uint8_t bias = t.a_biased ? 0x80 : 0;
          const uint8_t v = p < kc ? static_cast<uint8_t>(row[p * cs] ^ bias) : bias;
          w |= static_cast<uint32_t>(v) << (8 * q);
        }
        out[g * t.mr_max] = w;
      }
    }
  }
}

void pack_a_generic(const IgemmTiles &t, const int8_t *a, int64_t rs, int64_t cs, int64_t rows, int64_t k0,
                    int64_t kc, uint32_t *dst) {
  const int64_t groups = (kc + t.kgroup - 1) / t.kgroup;
  for (int64_t r0 = 0; r0 < rows; r0 += t.mr_max, dst += groups * t.mr_max)
    pack_a_groups(t, a + r0 * rs, rs, cs, std::min<int64_t>(t.mr_max, rows - r0), k0, kc, 0, groups, dst);
}

void pack_b_groups(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t c0, int64_t w, int64_t k0,
                   int64_t kc, int64_t g0, int64_t g1, uint32_t *panel, int32_t *colsum) {
  const int nr = t.nr;
  for (int64_t g = g0; g < g1; ++g) {
    uint32_t *out = panel + g * nr;
    const int64_t p0 = k0 + g * t.kgroup;
    const int64_t kn = std::min<int64_t>(t.kgroup, k0 + kc - p0);  // valid k of this group
    const int8_t *rows[4];
    for (int q = 0; q < 4; ++q) rows[q] = b + (p0 + std::min<int64_t>(q, kn - 1)) * rs + c0 * cs;
    if (t.kgroup == 2) {
      for (int64_t j = 0; j < w; ++j) out[j] = pair_word(rows[0][j * cs], kn > 1 ? rows[1][j * cs] : 0);
    } else {
      for (int64_t j = 0; j < w; ++j) {
        uint32_t word = 0;
        int32_t sum = 0;
        for (int q = 0; q < 4; ++q) {
          const int8_t v = q < kn ? rows[q][j * cs] : 0;
          sum += v;
          word |= static_cast<uint32_t>(static_cast<uint8_t>(v)) << (8 * q);
        }
        out[j] = word;
        if (t.a_biased) colsum[c0 + j] += sum;
      }
    }
    for (int64_t j = w; j < nr; ++j) out[j] = 0;
  }
}

void pack_b_generic(const IgemmTiles &t, const int8_t *b, int64_t rs, int64_t cs, int64_t cols, int64_t k0,
                    int64_t kc, uint32_t *dst, int32_t *colsum) {
  const int64_t groups = (kc + t.kgroup - 1) / t.kgroup;
  for (int64_t c0 = 0; c0 < cols; c0 += t.nr, dst += groups * t.nr)
    pack_b_groups(t, b, rs, cs, c0, std::min<int64_t>(t.nr, cols - c0), k0, kc, 0, groups, dst, colsum);
}

}  // namespace igemm_detail

namespace {

const IgemmTiles &tiles_of(IgemmKernel k) {
  switch (k) {
#if defined(__x86_64__) || defined(_M_X64)
    case IgemmKernel::kAvx2: return igemm_detail::kIgemmAvx2Tiles;
    case IgemmKernel::kAvx512Vnni: return igemm_detail::kIgemmAvx512VnniTiles;
#elif defined(__aarch64__)
    case IgemmKernel::kNeonDot: return igemm_detail::kIgemmNeonDotTiles;
#endif
    default: return igemm_detail::kIgemmPortableTiles;
  }
}

constexpr int64_t kKc = 512;      // K elements per block: a kc x nr B micro-panel is 16 KB
constexpr int64_t kNt = 256;      // columns per task (B block kc x NT: 128..256 KB, in L2)
constexpr int64_t kMt = 384;      // rows per task (the int32 C block)
constexpr int64_t kMcPanels = 16; // A sub-block: 16 row panels (96 / 192 rows)
constexpr int64_t kDotCols = 256;     // columns per task of the small-M dot path
// Rows of A the dot path takes (B [N, K] read in place), in groups of kDotMaxRows per kernel call:
// up to 8 rows that beats packing B for the tiles (AVX2, 1 thread, N = K = 4096: m = 5 3.8 ->
// 2.3-2.8 ms, m = 8 6.4 -> 3.9-5.0).
constexpr int64_t kDotPlanRows = 8;
constexpr int64_t kStreamCols = 2048; // and of the small-M stream path

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
int64_t div_up(int64_t v, int64_t m) { return (v + m - 1) / m; }
size_t align64(size_t v) { return (v + 63) / 64 * 64; }

// ---- Packing (reads any strides) ----

struct Scratch {
  uint32_t *a, *b;
  int32_t *c, *colsum;
};

Scratch scratch_of(const IgemmPlan &p, void *workspace, int t) {
  const IgemmTiles &tl = tiles_of(p.kernel);
  const int64_t groups = div_up(std::min(p.d.k, kKc), tl.kgroup);
  char *base = static_cast<char *>(workspace) + static_cast<size_t>(t) * p.thread_bytes;
  Scratch s;
  s.a = reinterpret_cast<uint32_t *>(base);
  base += align64(static_cast<size_t>(p.mc) * groups * 4);
  s.b = reinterpret_cast<uint32_t *>(base);
  base += align64(static_cast<size_t>(round_up(p.nc, tl.nr)) * groups * 4);
  s.c = reinterpret_cast<int32_t *>(base);
  base += align64(static_cast<size_t>(round_up(p.mt, tl.mr_max)) * round_up(p.nc, tl.nr) * 4);
  s.colsum = reinterpret_cast<int32_t *>(base);
  return s;
}

}  // namespace

const char *igemm_kernel_name(IgemmKernel k) {
  switch (k) {
    case IgemmKernel::kPortable: return "portable_4x8";
    case IgemmKernel::kAvx2: return "avx2_6x16";
    case IgemmKernel::kAvx512Vnni: return "avx512vnni_12x32";
    case IgemmKernel::kNeonDot: return "neondot_6x16";
  }
  return "?";
}

bool igemm_kernel_available(IgemmKernel k) {
  [[maybe_unused]] const core::CpuFeatures &f = core::cpu_features();
  switch (k) {
    case IgemmKernel::kPortable: return true;
#if defined(__x86_64__) || defined(_M_X64)
    case IgemmKernel::kAvx2: return static_cast<int>(f.best) >= static_cast<int>(core::Isa::kAvx2);
    case IgemmKernel::kAvx512Vnni:
      return static_cast<int>(f.best) >= static_cast<int>(core::Isa::kAvx512) && f.avx512_vnni;
#elif defined(__aarch64__)
    case IgemmKernel::kNeonDot: return f.best == core::Isa::kNeon && f.dotprod;
#endif
    default: return false;
  }
}

namespace {

// The tiers, best first; the last (portable tiles) is what OPSNN_KERNELS=reference runs.
#if defined(__x86_64__) || defined(_M_X64)
const core::Impl<IgemmDesc> kIgemmTiers[] = {
    {"avx512vnni_12x32", static_cast<int>(core::Isa::kAvx512),
     [](const IgemmDesc &, const core::Why &why) { return core::cpu_features().avx512_vnni || why("CPU has no avx512_vnni"); }},
    {"avx2_6x16", static_cast<int>(core::Isa::kAvx2), nullptr},
    {"portable_4x8", static_cast<int>(core::Isa::kPortable), nullptr},
};
const IgemmKernel kIgemmTierKernel[] = {IgemmKernel::kAvx512Vnni, IgemmKernel::kAvx2, IgemmKernel::kPortable};
#elif defined(__aarch64__)
const core::Impl<IgemmDesc> kIgemmTiers[] = {
    {"neondot_6x16", static_cast<int>(core::Isa::kNeon),
     [](const IgemmDesc &, const core::Why &why) { return core::cpu_features().dotprod || why("CPU has no dotprod"); }},
    {"portable_4x8", static_cast<int>(core::Isa::kPortable), nullptr},
};
const IgemmKernel kIgemmTierKernel[] = {IgemmKernel::kNeonDot, IgemmKernel::kPortable};
#else
const core::Impl<IgemmDesc> kIgemmTiers[] = {
    {"portable_4x8", static_cast<int>(core::Isa::kPortable), nullptr},
};
const IgemmKernel kIgemmTierKernel[] = {IgemmKernel::kPortable};
#endif

// The paths: small M reads B in place (dot products along K for B [N, K], up to kDotPlanRows rows;
// B [K, N] streamed, up to the tier's stream_max_rows), else the packed tiles.
struct IgemmPathCtx {
  const IgemmDesc &d;
  const IgemmTiles &t;
  const char *tier;
};
const core::Impl<IgemmPathCtx> kIgemmPaths[] = {
    {"dot", core::kNoIsa,
     [](const IgemmPathCtx &c, const core::Why &why) {
       if (c.t.dot == nullptr) return why("no dot kernel on %s", c.tier);
       if (c.d.b_row != 1) return why("B row stride %lld != 1", static_cast<long long>(c.d.b_row));
       if (c.d.m > kDotPlanRows) return why("M=%lld > %lld", static_cast<long long>(c.d.m), static_cast<long long>(kDotPlanRows));
       return true;
     }},
    {"stream", core::kNoIsa,
     [](const IgemmPathCtx &c, const core::Why &why) {
       if (c.t.stream == nullptr) return why("no stream kernel on %s", c.tier);
       if (c.d.b_col != 1) return why("B column stride %lld != 1", static_cast<long long>(c.d.b_col));
       if (c.t.dot != nullptr && c.d.b_row == 1) return why("B [N K] goes to dot");
       if (c.d.m > c.t.stream_max_rows) return why("M=%lld > %d", static_cast<long long>(c.d.m), c.t.stream_max_rows);
       return true;
     }},
    {"tiles", core::kNoIsa, nullptr},
};

bool plan_igemm(const IgemmDesc &d, IgemmPlan *plan, int threads, int kernel, core::ImplTrace *trace,
                std::string *impl) {
  if (d.batch <= 0 || d.m <= 0 || d.n <= 0 || d.k <= 0) {
    set_last_error(ACLNN_ERR_PARAM_INVALID, "igemm: empty sizes");
    return false;
  }
  if (d.k > kIgemmMaxK) {
    set_last_error(ACLNN_ERR_PARAM_INVALID, "igemm: k " + std::to_string(d.k) + " exceeds the exact int32 range");
    return false;
  }
  IgemmPlan p;
  p.d = d;
  if (kernel >= 0) {
    if (kernel >= kIgemmKernelCount || !igemm_kernel_available(static_cast<IgemmKernel>(kernel))) {
      set_last_error(ACLNN_ERR_PARAM_INVALID, "igemm: kernel not available on this CPU");
      return false;
    }
    p.kernel = static_cast<IgemmKernel>(kernel);
  } else {
    p.kernel = kIgemmTierKernel[core::choose(kIgemmTiers, d, trace)];
  }
  const IgemmTiles &t = tiles_of(p.kernel);
  p.mr = t.mr_max;
  p.nr = t.nr;
  p.kgroup = t.kgroup;
  p.threads = threads > 0 ? threads : core::num_threads();

  const int path = core::choose(kIgemmPaths, IgemmPathCtx{d, t, igemm_kernel_name(p.kernel)}, trace);
  if (impl) *impl = std::string(igemm_kernel_name(p.kernel)) + "/" + kIgemmPaths[path].name;
  const bool dot = path == 0;
  const int64_t l2_half = static_cast<int64_t>(core::cpu_features().l2_bytes / 2);
  // Up to 16 rows a [K, N] B is streamed where the tier can: packing it costs about as much as the
  // multiplications at these sizes (AVX2, 1 thread, N = K = 4096: m = 5 4.1 -> 2.0 ms, m = 8
  // 5.2 -> 3.2, m = 16 7.0 -> 5.7 through the tiles vs the stream).
  if (path != 2) {
    p.dot = true;
    p.mt = d.m;
    if (dot) {
      // Column ranges of kDotCols, narrower until every thread has a few; A copied per batch.
      p.nc = std::min(d.n, kDotCols);
      // Several row groups pass over a task's B rows: keep those within L2/2.
      if (d.m > igemm_detail::kDotMaxRows)
        p.nc = std::min(p.nc, std::max<int64_t>(64, l2_half / std::max<int64_t>(d.k, 1) / 16 * 16));
      while (p.nc > 64 && d.batch * div_up(d.n, p.nc) < 4 * p.threads) p.nc = round_up(div_up(p.nc, 2), 16);
    } else {
      // Long row segments (each row of a wide [K, N] weight is a new page, which the hardware
      // prefetchers do not enter), but the m rows of int32 accumulators of a task within ~L1
      // (kStreamCols columns for 4 rows; m = 16, 2048 columns: 6.5-7.3 ms, 512: 5.6-5.8); then
      // equal ranges, at least one per thread.
      const int64_t widest = std::max<int64_t>(
          256, kStreamCols * igemm_detail::kDotMaxRows / std::max<int64_t>(d.m, igemm_detail::kDotMaxRows) / 64 * 64);
      const int64_t ranges = std::max<int64_t>(div_up(d.n, widest), div_up(p.threads, d.batch));
      p.nc = std::min(d.n, round_up(div_up(d.n, ranges), 16));
    }
    p.m_blocks = 1;
    p.n_blocks = div_up(d.n, p.nc);
    p.tasks = d.batch * p.n_blocks;
    p.threads = static_cast<int>(std::min<int64_t>(p.threads, p.tasks));
    p.thread_bytes =
        align64(static_cast<size_t>(d.m) * round_up(d.k, 64)) + align64(static_cast<size_t>(d.m) * p.nc * 4);
    p.workspace_bytes = p.thread_bytes * static_cast<size_t>(p.threads);
    *plan = p;
    return true;
  }

  // Task blocks: as large as the caches allow, then split until every thread has work.
  int64_t mt = std::min(round_up(d.m, p.mr), round_up(kMt, p.mr));
  int64_t nt = std::min(round_up(d.n, p.nr), kNt);
  // The results are exact whatever the split, so the split only serves balance: more, smaller
  // tasks until the threads' shares differ by at most 1/8 (e.g. 3 tasks on 2 threads become 6).
  auto count = [&] { return d.batch * div_up(d.m, mt) * div_up(d.n, nt); };
  auto unbalanced = [&] {
    const int64_t c = count(), th = p.threads;
    return c < th || (div_up(c, th) * th - c) * 8 > c;
  };
  while (unbalanced() && count() < 16 * p.threads) {
    if (nt > p.nr && (nt >= mt || mt <= p.mr)) nt = round_up(div_up(nt, 2), p.nr);
    else if (mt > p.mr) mt = round_up(div_up(mt, 2), p.mr);
    else break;
  }
  p.mt = mt;
  p.nc = nt;
  p.mc = std::min(mt, p.mr * kMcPanels);
  p.m_blocks = div_up(d.m, mt);
  p.n_blocks = div_up(d.n, nt);
  p.tasks = d.batch * p.m_blocks * p.n_blocks;
  p.threads = static_cast<int>(std::min<int64_t>(p.threads, p.tasks));

  const int64_t groups = div_up(std::min(d.k, kKc), p.kgroup);
  p.thread_bytes = align64(static_cast<size_t>(p.mc) * groups * 4) +
                   align64(static_cast<size_t>(round_up(nt, p.nr)) * groups * 4) +
                   align64(static_cast<size_t>(round_up(mt, p.mr)) * round_up(nt, p.nr) * 4) +
                   align64(static_cast<size_t>(round_up(nt, p.nr)) * 4);
  p.workspace_bytes = p.thread_bytes * static_cast<size_t>(p.threads);
  *plan = p;
  return true;
}

}  // namespace

bool igemm_plan(const IgemmDesc &d, IgemmPlan *plan, int threads, int kernel) {
  if (core::current_phase1_trace() == nullptr) return plan_igemm(d, plan, threads, kernel, nullptr, nullptr);
  core::ImplTrace trace;
  std::string impl;
  if (!plan_igemm(d, plan, threads, kernel, &trace, &impl)) return false;
  core::record_choice("igemm:" + impl, &trace);
  return true;
}

namespace {

// The small-M paths (dot for B [N, K], stream for B [K, N]): per task, A's rows (contiguous,
// zero-padded) and one column range.
void run_dot(const IgemmPlan &p, const IgemmTiles &t, const int8_t *a, const int8_t *b, void *workspace,
             IgemmBlockFn fn, void *ctx) {
  const IgemmDesc &d = p.d;
  const int64_t lda = round_up(d.k, 64);
  core::parallel_for(p.threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t th = t0; th < t1; ++th) {
      int8_t *as = static_cast<int8_t *>(workspace) + static_cast<size_t>(th) * p.thread_bytes;
      int32_t *cs = reinterpret_cast<int32_t *>(as + align64(static_cast<size_t>(d.m) * lda));
      int64_t copied = -1;  // batch whose A rows are in `as`
      for (int64_t task = th; task < p.tasks; task += p.threads) {
        const int64_t bi = task / p.n_blocks, j0 = (task % p.n_blocks) * p.nc;
        const int64_t cols = std::min(p.nc, d.n - j0);
        if (copied != bi) {
          for (int64_t i = 0; i < d.m; ++i) {
            const int8_t *src = a + bi * d.a_batch + i * d.a_row;
            int8_t *dst = as + i * lda;
            if (d.a_col == 1) std::memcpy(dst, src, static_cast<size_t>(d.k));
            else for (int64_t q = 0; q < d.k; ++q) dst[q] = src[q * d.a_col];
            std::memset(dst + d.k, 0, static_cast<size_t>(lda - d.k));
          }
          copied = bi;
        }
        const int8_t *bb = b + bi * d.b_batch + j0 * d.b_col;
        if (d.b_row == 1)
          for (int64_t i0 = 0; i0 < d.m; i0 += igemm_detail::kDotMaxRows)
            t.dot(static_cast<int>(std::min<int64_t>(igemm_detail::kDotMaxRows, d.m - i0)), d.k, as + i0 * lda, lda, bb,
                  d.b_col, cols, cs + i0 * p.nc, p.nc);
        else t.stream(static_cast<int>(d.m), d.k, as, lda, bb, d.b_row, cols, cs, p.nc);
        fn(ctx, bi, 0, j0, d.m, cols, cs, p.nc);
      }
    }
  });
}

}  // namespace

void igemm_run(const IgemmPlan &p, const int8_t *a, const int8_t *b, void *workspace, IgemmBlockFn fn, void *ctx) {
  const IgemmTiles &t = tiles_of(p.kernel);
  const IgemmDesc &d = p.d;
  if (p.dot) {
    run_dot(p, t, a, b, workspace, fn, ctx);
    return;
  }
  const int64_t kblocks = div_up(d.k, kKc);
  const int64_t kc_even = round_up(div_up(d.k, kblocks), p.kgroup);  // balanced K blocks
  const int64_t ldc = round_up(p.nc, p.nr);

  auto run_task = [&](int64_t task, const Scratch &s) {
    const int64_t nb = task % p.n_blocks, mb = (task / p.n_blocks) % p.m_blocks, bi = task / (p.n_blocks * p.m_blocks);
    const int64_t i0 = mb * p.mt, j0 = nb * p.nc;
    const int64_t rows = std::min(p.mt, d.m - i0), cols = std::min(p.nc, d.n - j0);
    const int8_t *ab = a + bi * d.a_batch + i0 * d.a_row;
    const int8_t *bb = b + bi * d.b_batch + j0 * d.b_col;
    if (t.a_biased) std::memset(s.colsum, 0, static_cast<size_t>(round_up(cols, p.nr)) * 4);
    for (int64_t k0 = 0; k0 < d.k; k0 += kc_even) {
      const int64_t kc = std::min(kc_even, d.k - k0);
      const int64_t groups = div_up(kc, p.kgroup);
      (t.pack_b ? t.pack_b : &igemm_detail::pack_b_generic)(t, bb, d.b_row, d.b_col, cols, k0, kc, s.b, s.colsum);
      for (int64_t r0 = 0; r0 < rows; r0 += p.mc) {
        const int64_t rn = std::min(p.mc, rows - r0);
        (t.pack_a ? t.pack_a : &igemm_detail::pack_a_generic)(t, ab + r0 * d.a_row, d.a_row, d.a_col, rn, k0, kc, s.a);
        for (int64_t c0 = 0; c0 < cols; c0 += p.nr) {
          const uint32_t *bp = s.b + (c0 / p.nr) * groups * p.nr;
          for (int64_t q = 0; q < rn; q += p.mr) {
            const int r = static_cast<int>(std::min<int64_t>(p.mr, rn - q));
            t.tile[r](groups, s.a + (q / p.mr) * groups * p.mr, bp, s.c + (r0 + q) * ldc + c0, ldc, k0 > 0);
          }
        }
      }
    }
    if (t.a_biased)  // remove the +128 bias of A: acc -= 128 * sum_p B[p][j] (wrapping)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          int32_t &v = s.c[i * ldc + j];
          v = static_cast<int32_t>(static_cast<uint32_t>(v) - (static_cast<uint32_t>(s.colsum[j]) << 7));
        }
    fn(ctx, bi, i0, j0, rows, cols, s.c, ldc);
  };

  core::parallel_for(p.threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t th = t0; th < t1; ++th) {
      const Scratch s = scratch_of(p, workspace, static_cast<int>(th));
      for (int64_t task = th; task < p.tasks; task += p.threads) run_task(task, s);
    }
  });
}

void igemm_reference(const IgemmDesc &d, const int8_t *a, const int8_t *b, int64_t *c) {
  for (int64_t bi = 0; bi < d.batch; ++bi)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        int64_t acc = 0;
        for (int64_t p = 0; p < d.k; ++p)
          acc += static_cast<int64_t>(a[bi * d.a_batch + i * d.a_row + p * d.a_col]) *
                 b[bi * d.b_batch + p * d.b_row + j * d.b_col];
        c[(bi * d.m + i) * d.n + j] = acc;
      }
}

}  // namespace opsnn::kernels

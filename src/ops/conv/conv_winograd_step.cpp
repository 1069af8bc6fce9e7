// The Winograd F(m x m, 3 x 3) forward step (conv_parts.h): per block of output tiles the input
// transform, T GEMMs on the GEMM engine (batched over the planes, the transformed weight in its
// pre-packed B layout, transformed once per executor) and the output transform (+ bias). Threads
// take runs of whole blocks, or share a block (the transforms split over its tiles, the GEMMs over
// the engine's tasks) where whole blocks would leave a thread far behind (the split: kSplits).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/error.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
#include "kernels/conv/conv_winograd.h"
#include "kernels/conv/packed_weight.h"
#include "ops/conv/conv_parts.h"

namespace opsnn::ops::conv_parts {
namespace {

#if defined(__x86_64__)
const kernels::WinoInputFn kInputFns[] = {kernels::wino_input_avx512, kernels::wino_input_avx2,
                                          kernels::wino_input_portable};
const kernels::WinoOutputFn kOutputFns[] = {kernels::wino_output_avx512, kernels::wino_output_avx2,
                                            kernels::wino_output_portable};
#else
const kernels::WinoInputFn kInputFns[] = {kernels::wino_input_portable};
const kernels::WinoOutputFn kOutputFns[] = {kernels::wino_output_portable};
#endif

// The measured rule (PERFORMANCE.md, "Winograd"): F(4x4, 3x3) up to this many input channels
// (faster there than F(2x2), and within the precision standard at any channel count), F(2x2, 3x3)
// above; at least this many channels on each side and output tiles (over the batch: the GEMMs'
// rows), below which the direct kernel measured faster (8 x 8 outputs: 4 / 16 tiles).
constexpr int64_t kF4MaxChannels = 128;
constexpr int64_t kMinChannels = 16;
constexpr int64_t kMinTiles = 48;
// At least this many GEMM rows (tiles) per block: each transformed weight panel is read once per
// block, so fewer rows stream the T planes of weight from memory for little work (512 -> 512
// channels: 24 rows per block, 16.8 MiB of weight per block; 7x7 batch 8 took 1.6x the direct
// kernel's time; PERFORMANCE.md, "Direct kernel: weight groups within L2").
constexpr int64_t kMinBlockRows = 48;

constexpr size_t align64(size_t b) { return (b + 63) / 64 * 64; }

// Tiles per block: the block's planes (input and product) within this many bytes, so they stay
// in L2 between the transforms and the GEMMs.
constexpr int64_t kBlockBytes = 2 << 20;

// Whole 12-row tiles of the GEMM's micro-kernel; fixed by the shape alone (not the thread count),
// so every tile's sums have one order.
int64_t block_tiles(int m, int64_t c_in, int64_t c_out, int64_t tiles) {
  const int64_t fit = kBlockBytes / (kernels::wino_planes(m) * (c_in + c_out) * 4);
  return std::min(tiles, std::max<int64_t>(12, fit / 12 * 12));
}

// How the blocks are spread over the threads, best first (conv:winograd_split/<name>): runs of
// whole blocks per thread keep each block's planes in one core's cache and join the pool once; a
// block shared by every thread (input / output transforms over its tiles, its T plane GEMMs on the
// engine's threads, the pool's join after each of the three) keeps every thread busy where whole
// blocks would leave one far behind (256x14x14 -> 256 at batch 1: 49 tiles, one block), at the
// cost of the joins and of planes crossing between cores (64x56x56 -> 64 at batch 1, 108 + 88
// tiles, 2 threads: 0.33 ms as runs, 0.54 ms shared). Each tile's transforms and each GEMM element's
// sums are the same whoever computes them (the engine's K order does not depend on its thread
// count), so the output is the same for any split. OPSNN_CONV_WINOGRAD_SPLIT=shared shares every
// block (measuring); OPSNN_CONV_WINOGRAD_THREADS=n plans the split for n threads (tests).
bool shared_forced() {
  const char *env = std::getenv("OPSNN_CONV_WINOGRAD_SPLIT");
  return env != nullptr && std::strcmp(env, "shared") == 0;
}
// Runs of whole blocks are taken while the busiest thread has at most this much more than an even
// share of the tiles.
constexpr double kMaxRunImbalance = 1.25;
struct SplitDesc {
  int64_t tiles, block;
  int threads;
  int64_t full() const { return tiles / block; }  // whole blocks (the last one may be shorter)
  // Tiles of the busiest thread when threads take contiguous runs of whole blocks.
  int64_t busiest_run() const {
    const int64_t blocks = (tiles + block - 1) / block, runs = std::min<int64_t>(threads, blocks);
    int64_t most = 0;
    for (int64_t k = 0; k < runs; ++k)
      most = std::max(most, std::min(tiles, (k + 1) * blocks / runs * block) - k * blocks / runs * block);
    return most;
  }
};
const core::Impl<SplitDesc> kSplits[] = {
    {"thread_blocks", core::kNoIsa,
     [](const SplitDesc &d, const core::Why &why) {
       if (shared_forced()) return why("OPSNN_CONV_WINOGRAD_SPLIT=shared");
       const double even = static_cast<double>(d.tiles) / d.threads;
       if (static_cast<double>(d.busiest_run()) > kMaxRunImbalance * even)
         return why("busiest of %d threads %lld tiles > %.2f x %.1f", d.threads, static_cast<long long>(d.busiest_run()),
                    kMaxRunImbalance, even);
       return true;
     }},
    {"thread_blocks_then_shared", core::kNoIsa,
     [](const SplitDesc &d, const core::Why &why) {
       if (shared_forced()) return why("OPSNN_CONV_WINOGRAD_SPLIT=shared");
       if (d.full() < d.threads)
         return why("%lld whole blocks < %d threads", static_cast<long long>(d.full()), d.threads);
       return true;
     }},
    {"shared_blocks", core::kNoIsa, nullptr},
};

// The threads the split is planned for: the pool's, or OPSNN_CONV_WINOGRAD_THREADS (tests).
int split_threads() {
  if (const char *env = std::getenv("OPSNN_CONV_WINOGRAD_THREADS")) {
    const int n = std::atoi(env);
    if (n >= 1) return std::min(n, 1024);
  }
  return core::num_threads();
}

// The blocks taken whole by threads (the first ones, in contiguous runs per thread; the rest are
// shared), noted in the trace as conv:winograd_split/<name>.
int64_t own_blocks(const SplitDesc &d, int64_t blocks) {
  core::ImplTrace trace;
  const bool traced = core::current_phase1_trace() != nullptr;
  const int i = core::choose(kSplits, d, traced ? &trace : nullptr);
  record("winograd_split", kSplits[i].name, traced ? &trace : nullptr);
  return i == 0 ? blocks : i == 1 ? d.full() / d.threads * d.threads : 0;
}

class WinogradStep final : public core::Step {
 public:
  kernels::WinoArgs a;
  kernels::WinoInputFn input = nullptr;
  kernels::WinoOutputFn output = nullptr;
  Weight w;
  Bias bias;
  Side big, small;
  int64_t block = 1, blocks = 1, tasks = 1;
  int64_t own = 1;  // blocks [0, own) taken whole by the tasks, the rest shared by every task
  size_t v_bytes = 0, m_bytes = 0, task_bytes = 0, shared_offset = 0;
  kernels::GemmPlan full, part;                // one thread (a task's own blocks)
  kernels::GemmPlan shared_full, shared_part;  // every thread (a shared block)
  core::WsKey ws;
  PackedConvWeight packed;
  int run(const core::LaunchArgs &args) const override {
    kernels::WinoArgs x = a;
    x.in = reinterpret_cast<const float *>(big.ref.address(args));
    x.out = reinterpret_cast<float *>(small.ref.address(args));
    char *wsp = args.get(ws);
    const int64_t t_planes = kernels::wino_planes(a.m), tiles = a.tiles();
    const size_t floats = static_cast<size_t>(kernels::wino_weight_floats(a.m, a.c_in, a.c_out));
    auto pack = [&](const char *wp, const char *bp, float *dst) {
      kernels::wino_transform_weight(a.m, a.c_in, a.c_out, wp, w.dt, w.strides, bp, bias.dt, bias.stride, dst);
    };
    auto use = [&](const float *u) {
      if (bias.present()) x.bias = u + t_planes * kernels::wino_weight_plane_floats(a.c_in, a.c_out);
      if (own > 0)
        core::parallel_tasks(tasks, [&](int64_t k) {
          char *mine = wsp + static_cast<size_t>(k) * task_bytes;
          float *v = reinterpret_cast<float *>(mine), *mm = reinterpret_cast<float *>(mine + v_bytes);
          void *scratch = mine + v_bytes + m_bytes;
          for (int64_t bi = k * own / tasks; bi < (k + 1) * own / tasks; ++bi) {
            const int64_t tile0 = bi * block, count = std::min(block, tiles - tile0);
            input(x, tile0, count, v, block * a.c_in);
            kernels::gemm_run(count == block ? full : part, v, u, mm, scratch);
            output(x, tile0, count, mm, block * a.c_out);
          }
        });
      float *v = reinterpret_cast<float *>(wsp), *mm = reinterpret_cast<float *>(wsp + v_bytes);
      for (int64_t bi = own; bi < blocks; ++bi) {  // shared: each phase over every thread, then the next
        const int64_t tile0 = bi * block, count = std::min(block, tiles - tile0);
        core::parallel_tasks(tasks, [&](int64_t k) {
          const int64_t i0 = k * count / tasks, i1 = (k + 1) * count / tasks;
          input(x, tile0 + i0, i1 - i0, v + i0 * a.c_in, block * a.c_in);
        });
        kernels::gemm_run(count == block ? shared_full : shared_part, v, u, mm, wsp + shared_offset);
        core::parallel_tasks(tasks, [&](int64_t k) {
          const int64_t i0 = k * count / tasks, i1 = (k + 1) * count / tasks;
          output(x, tile0 + i0, i1 - i0, mm + i0 * a.c_out, block * a.c_out);
        });
      }
    };
    packed.with(args, w, bias, a.c_out, floats, pack, use);
    return 0;
  }
};

kernels::GemmDesc plane_gemm(const WinogradStep &s, int64_t count) {
  kernels::GemmDesc d;
  d.batch = kernels::wino_planes(s.a.m);
  d.m = count;
  d.n = s.a.c_out;
  d.k = s.a.c_in;
  d.a = {ACL_FLOAT, s.a.c_in, 1, s.block * s.a.c_in};
  d.b = {ACL_FLOAT, 0, 1, kernels::wino_weight_plane_floats(s.a.c_in, s.a.c_out)};
  d.b_prepacked = true;
  d.c = {ACL_FLOAT, s.a.c_out, 1, s.block * s.a.c_out};
  return d;
}

}  // namespace

int winograd_tile(const ConvGeom &g, int64_t n, int64_t c_in, int64_t c_out, const core::Why &why) {
  const char *env = std::getenv("OPSNN_CONV_WINOGRAD");
  if (env != nullptr && std::strcmp(env, "off") == 0) return why("OPSNN_CONV_WINOGRAD=off");
  if (env != nullptr && std::strcmp(env, "f2") == 0) return 2;
  if (env != nullptr && std::strcmp(env, "f4") == 0) return 4;
  if (c_in < kMinChannels || c_out < kMinChannels)
    return why("%lld -> %lld channels (< %lld)", static_cast<long long>(c_in), static_cast<long long>(c_out),
               static_cast<long long>(kMinChannels));
  const int m = c_in <= kF4MaxChannels ? 4 : 2;
  const int64_t tiles = n * ((g.small[1] + m - 1) / m) * ((g.small[2] + m - 1) / m);
  if (tiles < kMinTiles)
    return why("%lld output tiles of %dx%d (< %lld)", static_cast<long long>(tiles), m, m,
               static_cast<long long>(kMinTiles));
  const int64_t block = block_tiles(m, c_in, c_out, tiles);
  if (block < kMinBlockRows)
    return why("%lld tiles per GEMM block (< %lld) for %lld -> %lld channels", static_cast<long long>(block),
               static_cast<long long>(kMinBlockRows), static_cast<long long>(c_in), static_cast<long long>(c_out));
  return m;
}

void record_winograd(core::OpBuilder &b, const Problem &p, const Side &big, const Side &small, const Weight &w,
                     const Bias &bias, int tier, int m) {
  WinogradStep s;
  s.input = kInputFns[tier];
  s.output = kOutputFns[tier];
  kernels::WinoArgs &a = s.a;
  a.m = m;
  a.n = big.n;
  a.c_in = big.c;
  a.c_out = small.c;
  a.h = p.g.big[1];
  a.w = p.g.big[2];
  a.oh = p.g.small[1];
  a.ow = p.g.small[2];
  a.pad_h = p.g.p[1];
  a.pad_w = p.g.p[2];
  a.tiles_h = (a.oh + m - 1) / m;
  a.tiles_w = (a.ow + m - 1) / m;
  a.in_sn = big.sn;
  a.in_sc = big.sc;
  a.in_sh = big.ss[1];
  a.in_sw = big.ss[2];
  a.out_sn = small.sn;
  a.out_sc = small.sc;
  a.out_sh = small.ss[1];
  a.out_sw = small.ss[2];
  s.w = w;
  s.bias = bias;
  s.big = big;
  s.small = small;
  const int64_t t_planes = kernels::wino_planes(m), tiles = a.tiles();
  s.block = block_tiles(m, a.c_in, a.c_out, tiles);
  s.blocks = (tiles + s.block - 1) / s.block;
  const SplitDesc split{tiles, s.block, split_threads()};
  s.own = own_blocks(split, s.blocks);
  // Own blocks: one task per thread (at most one per block); shared blocks: every thread.
  s.tasks = s.own < s.blocks ? split.threads : std::min<int64_t>(split.threads, s.blocks);
  const int64_t last = tiles - (s.blocks - 1) * s.block;
  // Own blocks' GEMMs run on their task's thread (the blocks are the parallelism), shared blocks'
  // GEMMs on every thread; each plan for a whole block or the shorter last one, where some block
  // needs it. The verbose line names the first plan.
  const bool shorter = last != s.block, shared = s.own < s.blocks;
  bool record = true;
  auto plan = [&](bool needed, int64_t rows, int threads, kernels::GemmPlan *out) -> size_t {
    if (!needed) return 0;
    kernels::GemmOptions o;
    o.threads = threads;
    o.record = record;
    record = false;
    if (!kernels::gemm_plan(plane_gemm(s, rows), out, o))
      throw_error(ACLNN_ERR_INNER_TILING_ERROR, "GEMM planning failed: %s", last_error_message());
    return align64(out->workspace_bytes);
  };
  size_t gemm_ws = plan(s.own > 0, s.block, 1, &s.full);
  gemm_ws = std::max(gemm_ws, plan(s.own == s.blocks && shorter, last, 1, &s.part));
  size_t shared_ws = plan(s.blocks - s.own > (shorter ? 1 : 0), s.block, split.threads, &s.shared_full);
  shared_ws = std::max(shared_ws, plan(shared && shorter, last, split.threads, &s.shared_part));
  s.v_bytes = align64(static_cast<size_t>(t_planes * s.block * a.c_in) * 4);
  s.m_bytes = align64(static_cast<size_t>(t_planes * s.block * a.c_out) * 4);
  s.task_bytes = s.v_bytes + s.m_bytes + gemm_ws;
  // Each task's planes and GEMM scratch, then the shared GEMM's scratch (a shared block uses the
  // first task's planes).
  s.shared_offset = s.task_bytes * static_cast<size_t>(s.own > 0 ? s.tasks : 1);
  s.ws = b.book("conv.winograd", static_cast<uint64_t>(s.shared_offset + shared_ws));
  b.add_step<WinogradStep>(std::move(s));
}

}  // namespace opsnn::ops::conv_parts

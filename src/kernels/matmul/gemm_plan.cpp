// Phase 1 of the GEMM engine: kernel choice by ISA, cache blocking from the detected cache sizes,
// and the split of the work into independent tasks.
//
// Loop structure of one task (gemm_run.cpp), GotoBLAS style:
//   for jc in task N range, step nc          B block  kc x nc  (L3); with b_full_k: pack k x nc here
//     for pc in K, step kc                   pack B block (or read fp32 B in place for small M)
//       for ic in task M range, step mc      pack A block  mc x kc  (L2)
//         for jr step nr, for ir step mr     micro-kernel; B panel kc x nr stays in L1
// M <= 4 with B of unit column stride (fp32, or FLOAT16/BF16 widened in registers) takes the streaming kernel instead: B is read in place
// row by row, accumulators for nc columns stay in L1 (matrix-vector products are bound by
// reading B once); M <= 4 with B of unit row stride ([N,K]) takes dot products over its rows.
// K blocking (kc) depends only on K and the cache sizes, and every C element is produced by one
// task, so the arithmetic per element is independent of the thread count and of the task split.
#include <algorithm>
#include <iterator>
#include <string_view>

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"
#include "common/error.h"
#include "core/cpu_features.h"
#include "core/thread_pool.h"
#include "kernels/matmul/gemm.h"
#include "kernels/matmul/ukernels.h"

namespace opsnn::kernels {

using namespace gemm_detail;

namespace {

// Below this many flops per thread (~3 us), handing work to another thread costs more than it
// saves. The pool's helpers spin between jobs and a slot no helper claims in time is withdrawn,
// so a small split costs little (2 threads, 64^3: 73-83 -> 86-89 GFLOP/s with 1 << 18 instead of
// 1 << 21).
constexpr int64_t kMinFlopsPerThread = int64_t{1} << 18;

struct KernelEntry {
  const Ukernel &(*get)();
};

const KernelEntry kKernels[] = {
    {&ukernel_portable_4x8},
    {&ukernel_portable_4x16},
#if defined(__x86_64__)
    {&ukernel_avx2_6x16},
    {&ukernel_avx512_12x32},
    {&ukernel_avx512bf16_12x32},
#elif defined(__aarch64__)
    {&ukernel_neon_6x16},
#endif
};
constexpr int kKernelCount = static_cast<int>(sizeof(kKernels) / sizeof(kKernels[0]));

bool isa_supported(core::Isa isa) {
  const core::CpuFeatures &f = core::cpu_features();
  switch (isa) {
    case core::Isa::kPortable: return true;
    case core::Isa::kNeon: return f.neon;
    case core::Isa::kAvx2: return f.avx2 && f.fma && f.f16c;
    case core::Isa::kAvx512:
      return f.avx2 && f.fma && f.f16c && f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq;
    case core::Isa::kAvx512Bf16: return isa_supported(core::Isa::kAvx512) && f.avx512_bf16;
  }
  return false;
}

int best_kernel() {
  auto find = [](const char *name) {
    for (int i = 0; i < kKernelCount; ++i)
      if (std::string_view(kKernels[i].get().name) == name) return i;
    return 0;
  };
  switch (core::cpu_features().best) {
    case core::Isa::kAvx512Bf16: return find("avx512bf16_12x32");
    case core::Isa::kAvx512: return find("avx512_12x32");
    case core::Isa::kAvx2: return find("avx2_6x16");
    case core::Isa::kNeon: return find("neon_6x16");
    case core::Isa::kPortable: break;
  }
#if defined(__x86_64__)
  return find("portable_4x8");
#else
  return find("portable_4x16");
#endif
}

bool valid_dtype(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
size_t bytes64(int64_t floats) { return static_cast<size_t>(round_up(floats * 4, 64)); }

}  // namespace

#if defined(__x86_64__)
const Ukernel &gemm_detail::ukernel_avx512bf16_12x32() {
  static const Ukernel k = [] {
    Ukernel u = ukernel_avx512_12x32();
    u.name = "avx512bf16_12x32";
    u.isa = core::Isa::kAvx512Bf16;
    std::copy(std::begin(kAvx512Bf16Tiles), std::end(kAvx512Bf16Tiles), u.rows_bf16);
    return u;
  }();
  return k;
}
#endif

const Ukernel &gemm_detail::ukernel_by_index(int kernel) { return kKernels[kernel].get(); }

int gemm_kernel_count() { return kKernelCount; }

const char *gemm_kernel_name(int kernel) {
  return kernel >= 0 && kernel < kKernelCount ? kKernels[kernel].get().name : "reference";
}

bool gemm_kernel_supported(int kernel) {
  return kernel >= 0 && kernel < kKernelCount && isa_supported(kKernels[kernel].get().isa);
}

bool gemm_plan(const GemmDesc &d, GemmPlan *plan, const GemmOptions &options) {
  if (plan == nullptr) {
    set_last_error(ACLNN_ERR_PARAM_NULLPTR, "gemm_plan: plan is null");
    return false;
  }
  if (d.batch < 0 || d.m < 0 || d.n < 0 || d.k < 0) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: negative size (batch %lld, m %lld, n %lld, k %lld)",
         static_cast<long long>(d.batch), static_cast<long long>(d.m), static_cast<long long>(d.n),
         static_cast<long long>(d.k));
    return false;
  }
  if (!valid_dtype(d.a.dtype) || !valid_dtype(d.b.dtype) || !valid_dtype(d.c.dtype) ||
      !valid_dtype(d.input_rounding)) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: unsupported dtype (a %d, b %d, c %d, rounding %d)",
         static_cast<int>(d.a.dtype), static_cast<int>(d.b.dtype), static_cast<int>(d.c.dtype),
         static_cast<int>(d.input_rounding));
    return false;
  }
  if (d.has_d && !valid_dtype(d.d.dtype)) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: unsupported addend dtype %d", static_cast<int>(d.d.dtype));
    return false;
  }
  if (static_cast<int>(d.activation) < 0 || static_cast<int>(d.activation) > static_cast<int>(GemmActivation::kSilu)) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: unknown activation %d", static_cast<int>(d.activation));
    return false;
  }
  if (options.kernel >= 0 && !gemm_kernel_supported(options.kernel)) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: kernel %d is not available on this CPU", options.kernel);
    return false;
  }

  GemmPlan p;
  p.desc = d;
  if (options.detect_prepacked_b && !d.b_prepacked && d.b.batch_stride == 0 && gemm_prepacked_b_in_use()) {
    GemmDesc d2 = d;
    d2.b_prepacked = true;
    GemmOptions o2 = options;
    o2.detect_prepacked_b = false;
    auto alt = std::make_shared<GemmPlan>();
    if (!gemm_plan(d2, alt.get(), o2)) return false;
    GemmOptions o1 = options;
    o1.detect_prepacked_b = false;
    if (!gemm_plan(d, plan, o1)) return false;
    // Small M: the pre-packed plan follows the plain plan's summation order (bit-identical).
    if (plan->kernel >= 0 && (plan->stream || plan->gemv_nt)) {
      GemmPlan &q = *alt;
      q.prepacked_small = plan->stream ? 1 : 2;
      q.bf16_dot = false;
      q.kc = d.k;
      q.nc = 256;
      q.c_direct = false;
      q.m_task = plan->m_task;
      q.n_task = plan->n_task;
      q.m_tasks = plan->m_tasks;
      q.n_tasks = plan->n_tasks;
      q.tasks = plan->tasks;
      q.threads = plan->threads;
      q.a_pack_bytes = bytes64(d.m * d.k);
      // A FLOAT16/BF16 pre-packed weight is widened one 16-column panel at a time.
      q.b_pack_bytes = d.b.dtype == ACL_FLOAT ? 0 : bytes64(d.k * kPrepackWidth);
      q.c_buf_bytes = bytes64(d.m * (q.nc + kPrepackWidth));
      q.thread_workspace_bytes = q.a_pack_bytes + q.c_buf_bytes + q.b_pack_bytes;
      q.workspace_bytes = q.thread_workspace_bytes * static_cast<size_t>(q.threads);
    }
    plan->workspace_bytes = std::max(plan->workspace_bytes, alt->workspace_bytes);
    plan->prepacked_alt = std::move(alt);
    return true;
  }
  if (options.kernel < 0 && core::use_reference_kernels()) {
    p.kernel = -1;  // gemm_reference, serial, no workspace
    *plan = p;
    return true;
  }
  p.kernel = options.kernel >= 0 ? options.kernel : best_kernel();
  const Ukernel &uk = kKernels[p.kernel].get();
  p.mr = uk.mr;
  p.nr = uk.nr;

  // BF16 x BF16 on a tier with vdpbf16ps tiles: A and B are packed as bf16 k-pairs (Ukernel::rows_bf16),
  // half the bytes of fp32 panels. Rounding to BF16 leaves BF16 inputs as they are; any other rounding
  // keeps the fp32 path. M <= 4 keeps the streaming / dot kernels (bound by reading B, which they do
  // in place): bf16_dot is dropped below when those are chosen. A pre-packed B is paired too, so it
  // gives the same bits as the plain B.
  p.bf16_dot = uk.rows_bf16[1] != nullptr && d.a.dtype == ACL_BF16 && d.b.dtype == ACL_BF16 &&
               (d.input_rounding == ACL_FLOAT || d.input_rounding == ACL_BF16);
  const int64_t esize = p.bf16_dot ? 2 : 4;  // bytes of a packed element

  const core::CpuFeatures &f = core::cpu_features();
  const int64_t l1 = static_cast<int64_t>(f.l1d_bytes);
  const int64_t l2 = static_cast<int64_t>(f.l2_bytes);
  const int64_t l3 = options.l3_bytes > 0 ? options.l3_bytes : static_cast<int64_t>(f.l3_bytes);

  // kc: a B micro-panel (kc x nr) fills about half of L1, next to the A micro-panel; K is then
  // split into equal blocks (a multiple of 8) so no block is a small remainder.
  // (A multiple of 8 also keeps the k-pairs of bf16_dot inside a block.)
  const int64_t kc_max = std::clamp<int64_t>((l1 / 2) / (p.nr * esize) / 16 * 16, 128, 512);
  if (d.k <= kc_max) {
    p.kc = d.k;
  } else {
    const int64_t blocks = ceil_div(d.k, kc_max);
    p.kc = std::min(round_up(ceil_div(d.k, blocks), 8), kc_max);
  }
  const int64_t kc_eff = std::max<int64_t>(p.kc, 1);
  // mc: the packed A block (mc x kc) takes about half of L2.
  p.mc = std::clamp<int64_t>((l2 / 2) / (kc_eff * esize) / p.mr * p.mr, p.mr, 1024 / p.mr * p.mr);
  // nc: the packed B block (kc x nc) takes a quarter of L3.
  p.nc = std::clamp<int64_t>((l3 / 4) / (kc_eff * esize) / p.nr * p.nr, p.nr, 4096 / p.nr * p.nr);

  p.c_direct = d.c.dtype == ACL_FLOAT && d.c.col_stride == 1;
  // B read in place by the small-M kernels: fp32, or FLOAT16/BF16 where the ISA has a widening kernel.
  const bool b_stream_type = d.b.dtype == ACL_FLOAT || (d.b.dtype == ACL_FLOAT16 && uk.stream_f16 != nullptr) ||
                             (d.b.dtype == ACL_BF16 && uk.stream_bf16 != nullptr);
  const bool b_dot_type = d.b.dtype == ACL_FLOAT ? uk.dot != nullptr
                          : d.b.dtype == ACL_FLOAT16 ? uk.dot_f16 != nullptr
                                                     : uk.dot_bf16 != nullptr;
  p.stream = d.m <= kStreamMaxRows && b_stream_type && d.b.col_stride == 1 && d.input_rounding == ACL_FLOAT &&
             !d.b_prepacked;
  // Dot products up to 4 rows only: from 5 rows on, packing B for the tiles is slower for a plain
  // B [N,K] than dot products over its rows, but a pre-packed weight must reproduce the plain plan's
  // order, and the tiles read its panels in place at 2x the speed of the panel dot kernel.
  p.gemv_nt = !p.stream && d.m <= kStreamMaxRows && b_dot_type && d.b.row_stride == 1 &&
              d.input_rounding == ACL_FLOAT && !d.b_prepacked && d.k >= 16;
  if (p.stream || p.gemv_nt) p.bf16_dot = false;
  if (p.gemv_nt) {
    // Dot products along contiguous rows of B; columns are stored in groups of nc. With 3-4 rows
    // and B in cache, K in chunks (see dot_chunked in ukernel_avx2.cpp); from DRAM whole rows.
    p.kc = d.k;
    p.nc = 256;
    p.c_direct = false;
    p.dot_k_chunked = uk.dot_k_chunked != nullptr && d.b.dtype == ACL_FLOAT && d.m >= 3 &&
                      d.k * d.n * 4 <= l3 / 2;
  }
  if (p.stream) {
    // One pass over all of K per group of columns; the fp32 accumulators (m x nc) stay in L1.
    p.kc = d.k;
    p.nc = std::clamp<int64_t>((l1 / 2) / (4 * std::max<int64_t>(d.m, 1)) / 16 * 16, 64, 4096);
    p.c_direct = false;
  }
  // Up to 16 rows (3 row tiles) packing B costs more than it saves, when B is cache-resident and its
  // row stride does not alias in the caches. Measured (1 thread): M16 N768 K3072 45 -> 61 GFLOP/s;
  // but a row stride that is a multiple of 2 KiB (N = 1024, 4096) maps the strip of a B panel onto
  // a few cache sets (M8 N1024 K1024 36 -> 21), and a B streamed from DRAM one line per row stalls
  // (M16 N4096 K4096 47 -> 29): those are packed.
  const int64_t b_row_bytes = d.b.row_stride * 4;
  p.b_direct = !p.stream && !p.gemv_nt && !d.b_prepacked && d.b.dtype == ACL_FLOAT && d.b.col_stride == 1 &&
               d.input_rounding == ACL_FLOAT && d.m <= 16 && b_row_bytes % 2048 != 0 &&
               d.k * b_row_bytes <= l3 / 2;
  // A small A (within L2/8) is read in place by the tile kernel: packing it cost ~10 % of a 64^3
  // GEMM (64^3 1 thread: 60-70 -> 76-83 GFLOP/s; 128^3 79-83 -> 85-90; neutral from 256^3 on).
  p.a_direct = !p.stream && !p.gemv_nt && uk.rows_a_in_place[1] != nullptr && d.a.dtype == ACL_FLOAT &&
               d.a.col_stride == 1 && d.input_rounding == ACL_FLOAT && d.m * d.k * 4 <= l2 / 8;
  // Packing a B [N,K] in kc-sized pieces of each row read it at ~8 GB/s; whole rows are read at
  // ~12 (N = K = 4096). With few rows of A the repacking of A per column block costs little.
  // Measured, 1 thread, NT N = K = 4096: M 12 25-31 -> 32-36 GFLOP/s, M 16 32-36 -> 34-41; a B
  // within L3 (N 768 K 3072) is better packed per K block (its block then stays in L2).
  p.b_full_k = !p.stream && !p.gemv_nt && !p.b_direct && !d.b_prepacked && !p.bf16_dot && d.b.row_stride == 1 &&
               d.k > p.kc && d.m <= 16 && d.k * d.n * (d.b.dtype == ACL_FLOAT ? 4 : 2) > l3 / 2 &&
               p.nr * d.k * esize <= l3 / 4;
  if (p.b_full_k) p.nc = std::min(p.nc, std::max<int64_t>(p.nr, (l3 / 4) / (d.k * esize) / p.nr * p.nr));
  if (!p.c_direct && !p.stream && !p.gemv_nt) {
    // The per-thread fp32 accumulation buffer covers one task (192 x 1024 floats, 768 KiB): wider
    // than L2, but only a row tile of it is live at a time, and a wider task packs A fewer times
    // (BF16 in/out 2048^3, 1 thread: nc 512 -> 1024 took 77 -> 80 GFLOP/s).
    p.mc = std::min<int64_t>(p.mc, std::max<int64_t>(p.mr, 192 / p.mr * p.mr));
    p.nc = std::min<int64_t>(p.nc, std::max<int64_t>(p.nr, 1024 / p.nr * p.nr));
  }

  // Task split: start from one task per batch (or per buffer-sized tile), then halve the longer
  // side until there is a task per thread.
  const int64_t m_units = ceil_div(d.m, p.mr), n_units = ceil_div(d.n, p.nr);
  int64_t mt = m_units, nt = n_units;  // units per task
  if (!p.c_direct && !p.stream && !p.gemv_nt) {
    mt = std::min(mt, p.mc / p.mr);
    nt = std::min(nt, p.nc / p.nr);
  }
  const int threads = options.threads > 0 ? options.threads : core::num_threads();
  const double flops = 2.0 * static_cast<double>(d.batch) * static_cast<double>(d.m) *
                       static_cast<double>(d.n) * static_cast<double>(d.k);
  const int64_t useful =
      std::max<int64_t>(1, std::min<int64_t>(threads, static_cast<int64_t>(flops / kMinFlopsPerThread)));
  // With A read in place, splitting N leaves nothing packed twice (an M split packs all of B in
  // every task): 2 threads, 64^3 139 -> 152 GFLOP/s, 128^3 174 -> 182.
  const bool n_first = p.a_direct;
  auto count = [&] { return d.batch * ceil_div(m_units, std::max<int64_t>(mt, 1)) * ceil_div(n_units, std::max<int64_t>(nt, 1)); };
  if (d.batch > 0 && d.m > 0 && d.n > 0) {
    while (count() < useful) {
      if (mt > 1 && mt * p.mr >= nt * p.nr && !(n_first && nt > 1)) mt = ceil_div(mt, 2);
      else if (nt > 1) nt = ceil_div(nt, 2);
      else if (mt > 1) mt = ceil_div(mt, 2);
      else break;
    }
    p.m_task = mt * p.mr;
    p.n_task = nt * p.nr;
    p.m_tasks = ceil_div(m_units, mt);
    p.n_tasks = ceil_div(n_units, nt);
    p.tasks = d.batch * p.m_tasks * p.n_tasks;
  }
  p.threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(useful, p.tasks)));

  if (p.tasks > 0 && d.k > 0) {
    if (p.stream) {
      p.a_pack_bytes = bytes64(p.mr * p.kc);
      p.c_buf_bytes = bytes64(d.m * p.nc);
    } else if (p.gemv_nt) {
      p.a_pack_bytes = bytes64(d.m * d.k);
      p.c_buf_bytes = bytes64(d.m * p.nc);
    } else {
      const int64_t ksteps = p.bf16_dot ? ceil_div(p.kc, 2) : p.kc;  // 4-byte units per panel row
      p.a_pack_bytes = bytes64(std::min(p.mc, p.m_task) * ksteps);
      p.b_pack_bytes = bytes64(std::min(p.nc, p.n_task) * (p.b_full_k ? d.k : ksteps));
      p.c_buf_bytes = p.c_direct ? 0 : bytes64(p.m_task * p.n_task);
    }
    p.thread_workspace_bytes = p.a_pack_bytes + p.b_pack_bytes + p.c_buf_bytes;
    p.workspace_bytes = p.thread_workspace_bytes * static_cast<size_t>(p.threads);
  }
  *plan = p;
  return true;
}

}  // namespace opsnn::kernels

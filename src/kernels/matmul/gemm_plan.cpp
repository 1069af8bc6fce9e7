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
#include "kernels/elementwise/ops.h"
#include "core/cpu_features.h"
#include "core/impl_list.h"
#include "core/thread_pool.h"
#include "core/verbose.h"
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

// The tiers, best first, ending in the reference (gemm_reference); kTierKernel maps each to its
// entry of kKernels (-1: the reference). A tier's fp32 tiles serve every dtype; the AVX512_BF16 entry
// only adds the BF16 x BF16 tiles, so it is taken for those alone (its other kernels are the
// AVX-512 entry's).
#if defined(__x86_64__)
bool bf16_pairs_ok(const GemmDesc &d, const core::Why &why) {
  if (d.a.dtype != ACL_BF16 || d.b.dtype != ACL_BF16) return why("inputs are not BF16 x BF16");
  if (d.input_rounding != ACL_FLOAT && d.input_rounding != ACL_BF16) return why("inputs rounded to FLOAT16");
  return true;
}
const core::Impl<GemmDesc> kTiers[] = {
    {"avx512bf16_12x32", static_cast<int>(core::Isa::kAvx512Bf16), &bf16_pairs_ok},
    {"avx512_12x32", static_cast<int>(core::Isa::kAvx512), nullptr},
    {"avx2_6x16", static_cast<int>(core::Isa::kAvx2), nullptr},
    {"portable_4x8", static_cast<int>(core::Isa::kPortable), nullptr},
    {"reference", static_cast<int>(core::Isa::kPortable), nullptr},
};
const int kTierKernel[] = {4, 3, 2, 0, -1};
#elif defined(__aarch64__)
const core::Impl<GemmDesc> kTiers[] = {
    {"neon_6x16", static_cast<int>(core::Isa::kNeon), nullptr},
    {"portable_4x16", static_cast<int>(core::Isa::kPortable), nullptr},
    {"reference", static_cast<int>(core::Isa::kPortable), nullptr},
};
const int kTierKernel[] = {2, 1, -1};
#else
const core::Impl<GemmDesc> kTiers[] = {
    {"portable_4x16", static_cast<int>(core::Isa::kPortable), nullptr},
    {"reference", static_cast<int>(core::Isa::kPortable), nullptr},
};
const int kTierKernel[] = {1, -1};
#endif
static_assert(sizeof(kTiers) / sizeof(kTiers[0]) == sizeof(kTierKernel) / sizeof(kTierKernel[0]));

// What the path and variant lists below decide on.
struct PathCtx {
  const GemmDesc &d;
  const Ukernel &uk;
  bool b_stream_type, b_dot_type;  // the tier has small-M kernels reading B's dtype in place
  bool bf16_dot;                   // the tiles take BF16 k-pairs
  int64_t kc, nr, esize, l2, l3;
};

// The paths, in order: B streamed row by row (M <= 4, B [K, N]), dot products over rows of B
// (M <= 4, B [N, K]), the packed register tiles.
bool small_m_common(const PathCtx &c, const core::Why &why) {
  if (c.d.b_prepacked) return why("B is pre-packed");
  if (c.d.m > kStreamMaxRows) return why("M=%lld > %d", static_cast<long long>(c.d.m), kStreamMaxRows);
  if (c.d.input_rounding != ACL_FLOAT) return why("inputs rounded to %s", c.d.input_rounding == ACL_BF16 ? "BF16" : "FLOAT16");
  return true;
}
const char *b_dtype_name(const GemmDesc &d) {
  return d.b.dtype == ACL_FLOAT ? "FLOAT" : d.b.dtype == ACL_FLOAT16 ? "FLOAT16" : "BF16";
}
const core::Impl<PathCtx> kPaths[] = {
    {"stream", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       if (!small_m_common(c, why)) return false;
       if (c.d.b.col_stride != 1)
         return why("B column stride %lld != 1", static_cast<long long>(c.d.b.col_stride));
       if (!c.b_stream_type) return why("no %s B stream kernel on %s", b_dtype_name(c.d), c.uk.name);
       return true;
     }},
    {"dot", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       if (!small_m_common(c, why)) return false;
       if (c.d.b.row_stride != 1) return why("B row stride %lld != 1", static_cast<long long>(c.d.b.row_stride));
       if (!c.b_dot_type) return why("no %s B dot kernel on %s", b_dtype_name(c.d), c.uk.name);
       if (c.d.k < 16) return why("K=%lld < 16", static_cast<long long>(c.d.k));
       return true;
     }},
    {"tiles", core::kNoIsa, nullptr},
};
enum { kPathStream = 0, kPathDot = 1, kPathTiles = 2 };

// How the tiles read B: in place (b_direct), packed over all of K per column block (b_full_k), or
// packed per K block.
// Up to 16 rows (3 row tiles) packing B costs more than it saves, when B is cache-resident and its
// row stride does not alias in the caches. Measured (1 thread): M16 N768 K3072 45 -> 61 GFLOP/s;
// but a row stride that is a multiple of 2 KiB (N = 1024, 4096) maps the strip of a B panel onto
// a few cache sets (M8 N1024 K1024 36 -> 21), and a B streamed from DRAM one line per row stalls
// (M16 N4096 K4096 47 -> 29): those are packed.
// Packing a B [N,K] in kc-sized pieces of each row read it at ~8 GB/s; whole rows are read at
// ~12 (N = K = 4096). With few rows of A the repacking of A per column block costs little.
// Measured, 1 thread, NT N = K = 4096: M 12 25-31 -> 32-36 GFLOP/s, M 16 32-36 -> 34-41; a B
// within L3 (N 768 K 3072) is better packed per K block (its block then stays in L2).
const core::Impl<PathCtx> kBReads[] = {
    {"b_direct", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       const GemmDesc &d = c.d;
       if (d.b_prepacked) return why("B is pre-packed");
       if (d.m > 16) return why("M=%lld > 16", static_cast<long long>(d.m));
       if (d.b.dtype != ACL_FLOAT) return why("B is %s", b_dtype_name(d));
       if (d.input_rounding != ACL_FLOAT) return why("inputs rounded to %s", d.input_rounding == ACL_BF16 ? "BF16" : "FLOAT16");
       if (d.b.col_stride != 1) return why("B column stride %lld != 1", static_cast<long long>(d.b.col_stride));
       const int64_t b_row_bytes = d.b.row_stride * 4;
       if (b_row_bytes % 2048 == 0) return why("B row stride a multiple of 2 KiB");
       if (d.k * b_row_bytes > c.l3 / 2) return why("B beyond L3/2");
       return true;
     }},
    {"b_full_k", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       const GemmDesc &d = c.d;
       if (d.b_prepacked) return why("B is pre-packed");
       if (d.m > 16) return why("M=%lld > 16", static_cast<long long>(d.m));
       if (c.bf16_dot) return why("BF16 k-pairs");
       if (d.b.row_stride != 1) return why("B row stride %lld != 1", static_cast<long long>(d.b.row_stride));
       if (d.k <= c.kc) return why("K=%lld fits one K block", static_cast<long long>(d.k));
       if (d.k * d.n * (d.b.dtype == ACL_FLOAT ? 4 : 2) <= c.l3 / 2) return why("B within L3/2");
       if (c.nr * d.k * c.esize > c.l3 / 4) return why("a panel over all of K exceeds L3/4");
       return true;
     }},
    {"b_packed", core::kNoIsa, nullptr},
};
enum { kBDirect = 0, kBFullK = 1 };

// A small A (within L2/8) is read in place by the tile kernel: packing it cost ~10 % of a 64^3
// GEMM (64^3 1 thread: 60-70 -> 76-83 GFLOP/s; 128^3 79-83 -> 85-90; neutral from 256^3 on).
const core::Impl<PathCtx> kAReads[] = {
    {"a_direct", core::kNoIsa,
     [](const PathCtx &c, const core::Why &why) {
       const GemmDesc &d = c.d;
       if (c.uk.rows_a_in_place[1] == nullptr) return why("no in-place A tiles on %s", c.uk.name);
       if (d.a.dtype != ACL_FLOAT) return why("A is %s", d.a.dtype == ACL_FLOAT16 ? "FLOAT16" : "BF16");
       if (d.input_rounding != ACL_FLOAT) return why("inputs rounded to %s", d.input_rounding == ACL_BF16 ? "BF16" : "FLOAT16");
       if (d.a.col_stride != 1) return why("A column stride %lld != 1", static_cast<long long>(d.a.col_stride));
       if (d.m * d.k * 4 > c.l2 / 8) return why("A beyond L2/8");
       return true;
     }},
    {"a_packed", core::kNoIsa, nullptr},
};

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

namespace {

// `trace`: the rejections (null: not traced); `impl`: receives "<tier>/<path>[+<variant>...]"
// (null: not wanted).
// The element-wise kernel of an epilogue GELU (the same functors as the activation ops, so a fused
// epilogue and a separate op give the same values), vectorised in its ISA unit: the baseline unit's
// loop over vmath's erfc / tanh cost twice the product (PERFORMANCE.md). relu and silu stay inline.
ContigKernel activation_kernel(GemmActivation act) {
  switch (act) {
    case GemmActivation::kGeluTanh: return ew_kernel(EwOp::kGeluTanh, core::ComputeType::kFloat);
    case GemmActivation::kGeluErf: return ew_kernel(EwOp::kGeluErf, core::ComputeType::kFloat);
    default: return nullptr;
  }
}

bool plan_gemm(const GemmDesc &d, GemmPlan *plan, const GemmOptions &options, core::ImplTrace *trace,
               std::string *impl) {
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
  if (static_cast<int>(d.activation) < 0 || static_cast<int>(d.activation) > static_cast<int>(GemmActivation::kGeluErf)) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: unknown activation %d", static_cast<int>(d.activation));
    return false;
  }
  if (options.kernel >= 0 && !gemm_kernel_supported(options.kernel)) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan: kernel %d is not available on this CPU", options.kernel);
    return false;
  }

  GemmPlan p;
  p.desc = d;
  if (options.detect_prepacked_b && !d.b_prepacked && d.b.batch_stride == 0 &&
      (options.prepacked_alt_always || gemm_prepacked_b_in_use())) {
    GemmDesc d2 = d;
    d2.b_prepacked = true;
    GemmOptions o2 = options;
    o2.detect_prepacked_b = false;
    auto alt = std::make_shared<GemmPlan>();
    std::string alt_impl;
    if (!plan_gemm(d2, alt.get(), o2, nullptr, impl ? &alt_impl : nullptr)) return false;
    GemmOptions o1 = options;
    o1.detect_prepacked_b = false;
    if (!plan_gemm(d, plan, o1, trace, impl)) return false;
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
      if (impl) alt_impl = std::string(gemm_kernel_name(q.kernel)) + (plan->stream ? "/panel_stream" : "/panel_dot");
    }
    if (impl) *impl += "|prepacked_b=" + alt_impl;  // taken at launch when B is a registered pre-packed weight
    plan->workspace_bytes = std::max(plan->workspace_bytes, alt->workspace_bytes);
    plan->prepacked_alt = std::move(alt);
    return true;
  }
  // The tier: forced by the options (tests), else the first of kTiers that accepts the desc.
  if (options.kernel >= 0) {
    p.kernel = options.kernel;
  } else {
    p.kernel = kTierKernel[core::choose(kTiers, d, trace)];
    if (p.kernel < 0) {  // gemm_reference, serial, no workspace
      if (impl) *impl = "reference";
      *plan = p;
      return true;
    }
  }
  p.act_kernel = activation_kernel(d.activation);
  const Ukernel &uk = kKernels[p.kernel].get();
  p.mr = uk.mr;
  p.nr = uk.nr;
  // The packing routines' AVX2 / F16C helpers (decided here, not at launch).
#if defined(__x86_64__)
  p.pack_simd = core::isa_rejection(core::Isa::kAvx2) == nullptr;
#endif

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
  PathCtx ctx{d, uk, b_stream_type, b_dot_type, p.bf16_dot, p.kc, p.nr, esize, l2, l3};
  // Dot products up to 4 rows only: from 5 rows on, packing B for the tiles is slower for a plain
  // B [N,K] than dot products over its rows, but a pre-packed weight must reproduce the plain plan's
  // order, and the tiles read its panels in place at 2x the speed of the panel dot kernel.
  const int path = core::choose(kPaths, ctx, trace);
  p.stream = path == kPathStream;
  p.gemv_nt = path == kPathDot;
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
  if (path == kPathTiles) {
    const int b_read = core::choose(kBReads, ctx, trace);
    p.b_direct = b_read == kBDirect;
    p.b_full_k = b_read == kBFullK;
    p.a_direct = core::choose(kAReads, ctx, trace) == 0;
  }
  if (impl) {
    *impl = std::string(uk.name) + "/" + kPaths[path].name;
    if (p.dot_k_chunked) *impl += "+k_chunked";
    if (p.bf16_dot) *impl += "+bf16_pairs";
    if (d.b_prepacked && path == kPathTiles) *impl += "+b_prepacked";
    if (p.b_direct) *impl += "+b_direct";
    if (p.b_full_k) *impl += "+b_full_k";
    if (p.a_direct) *impl += "+a_direct";
  }
  if (p.b_full_k) p.nc = std::min(p.nc, std::max<int64_t>(p.nr, (l3 / 4) / (d.k * esize) / p.nr * p.nr));
  if (!p.c_direct && !p.stream && !p.gemv_nt) {
    // The per-thread fp32 accumulation buffer covers one task (192 x 1024 floats, 768 KiB): wider
    // than L2, but only a row tile of it is live at a time, and a wider task packs A fewer times
    // (BF16 in/out 2048^3, 1 thread: nc 512 -> 1024 took 77 -> 80 GFLOP/s). The vdpbf16ps tiles take
    // 672 rows (buffer 2.6 MiB), so B is packed 3.5x less often (Zen 5, 1 thread, CPU time: 2048^3
    // 313-319 -> 358 GFLOP/s, M16 N=K=4096 71-84 -> 101-106; 256^3-1024^3 unchanged).
    p.mc = std::min<int64_t>(p.mc, std::max<int64_t>(p.mr, (p.bf16_dot ? 672 : 192) / p.mr * p.mr));
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

}  // namespace

bool gemm_plan_prepacked_b(const GemmDesc &d, GemmPlan *plan, const GemmOptions &options) {
  if (d.b.batch_stride != 0 || d.b_prepacked) {
    fail(ACLNN_ERR_PARAM_INVALID, "gemm_plan_prepacked_b: B must be one plain matrix");
    return false;
  }
  GemmOptions o = options;
  o.detect_prepacked_b = true;
  o.prepacked_alt_always = true;
  GemmPlan both;
  if (!gemm_plan(d, &both, o)) return false;
  if (!both.prepacked_alt) {  // the reference kernel (OPSNN_KERNELS=reference): its own plan
    GemmDesc dp = d;
    dp.b_prepacked = true;
    o.detect_prepacked_b = false;
    return gemm_plan(dp, plan, o);
  }
  *plan = *both.prepacked_alt;
  return true;
}

bool gemm_plan(const GemmDesc &d, GemmPlan *plan, const GemmOptions &options) {
  if (!options.record || core::current_phase1_trace() == nullptr) return plan_gemm(d, plan, options, nullptr, nullptr);
  core::ImplTrace trace;
  std::string impl;
  if (!plan_gemm(d, plan, options, &trace, &impl)) return false;
  core::record_choice("gemm:" + impl, &trace);
  return true;
}

}  // namespace opsnn::kernels

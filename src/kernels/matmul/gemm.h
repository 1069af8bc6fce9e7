// Internal GEMM engine: C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b], over raw pointers and
// element strides. Knows nothing of aclTensor or executors. Planned once (phase 1), run many times.
//
// Transposed or otherwise strided operands are described by their strides (row_stride,
// col_stride), never copied first: the packing step reads them directly. A batch stride of 0
// broadcasts an operand over the batch.
//
// Engine (see gemm_plan.cpp): A is packed into MR-row panels and B into NR-column panels (fp32,
// converted from FLOAT16/BF16 and rounded to `input_rounding` on the way; BF16 x BF16 on
// AVX512_BF16 keeps bf16 k-pairs for vdpbf16ps, GemmPlan::bf16_dot), a register-tiled
// micro-kernel of the best ISA tier multiplies them, and an epilogue applies alpha/beta, the
// optional addend D and activation, and stores C in its dtype, rounding once. The work is split in phase 1 into independent
// (batch, M-range, N-range) tasks; each C element is computed by exactly one task with the full
// K loop in a fixed order and K blocking that does not depend on the thread count, so results are
// bit-identical for any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "acl/acl_base.h"
#include "kernels/elementwise/elementwise.h"

namespace opsnn::kernels {

struct GemmOperand {
  aclDataType dtype = ACL_FLOAT;  // ACL_FLOAT, ACL_FLOAT16 or ACL_BF16
  int64_t row_stride = 0;         // elements between rows    (A: along M, B: along K, C: along M)
  int64_t col_stride = 1;         // elements between columns (A: along K, B: along N, C: along N)
  int64_t batch_stride = 0;       // elements between batches (0 = broadcast)
};

// Activation applied by the epilogue to alpha * A@B + beta * (D or C), before C is stored.
enum class GemmActivation : int8_t {
  kNone = 0,
  kRelu,      // max(x, 0), NaN propagates
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kSilu,      // x * sigmoid(x)
  kGeluErf,   // 0.5 x erfc(-x / sqrt(2)) (FusedMatmul's gelu_erf)
};

struct GemmDesc {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  GemmOperand a, b, c;
  float alpha = 1.0f;
  float beta = 0.0f;  // 0: the addend (D, or C) is not read (may hold NaN garbage)
  // Optional addend D (rows along M, columns along N; any stride may be 0 to broadcast, e.g. a
  // bias [N] is {row 0, col 1}, a column [M, 1] is {row s, col 0}). With has_d the epilogue computes
  // C = act(alpha * A@B + beta * D) in the same pass that stores C, and C is only written; D may be
  // the very same view as C (in-place forms), as each element of D is read before the same element
  // of C is written. Without has_d, beta scales the old C as before.
  bool has_d = false;
  GemmOperand d;
  GemmActivation activation = GemmActivation::kNone;
  // Inputs are rounded to this precision before multiplying (cubeMathType USE_FP16 on FLOAT
  // inputs rounds to ACL_FLOAT16); ACL_FLOAT keeps full fp32 accuracy. Accumulation is fp32.
  aclDataType input_rounding = ACL_FLOAT;
  // B is in the pre-packed weight layout of gemm_prepack_b (b.row_stride / b.col_stride ignored;
  // b.dtype is the element type of the packed buffer, b.batch_stride as usual).
  bool b_prepacked = false;
};

// Planning knobs for tests and benchmarks; the defaults are what the ops use.
struct GemmOptions {
  int kernel = -1;   // index into the kernel table (gemm_kernel_*); -1: best for cpu_features()
  int threads = 0;   // maximum parallelism of gemm_run; 0: core::num_threads()
  // Also plan for B being a registered pre-packed weight (see gemm_prepacked_b_registered); only
  // taken while some weight has been pre-packed in this process.
  bool detect_prepacked_b = true;
  // L3 size the blocking assumes; 0: detected. Tests shrink it to reach the large-B plans
  // (b_full_k) with small matrices.
  int64_t l3_bytes = 0;
  // Report the choice to the current phase 1's verbose trace (core/verbose.h); false for plans
  // that only probe the engine.
  bool record = true;
  // With detect_prepacked_b: plan the prepacked_alt even while nothing is registered
  // (gemm_plan_prepacked_b).
  bool prepacked_alt_always = false;
};

// Everything decided in phase 1: kernel, cache blocking, thread split, workspace layout. The kernel
// tier and the path are chosen from ordered candidate lists (core/impl_list.h, gemm_plan.cpp).
struct GemmPlan {
  GemmDesc desc;
  int kernel = 0;                      // index into the engine's kernel table; -1: gemm_reference
  // The epilogue's GELU: the element-wise engine's contiguous FLOAT kernel of the same functor (its
  // best ISA tier, chosen here; null: the inline gemm_activate_row), in place over each row segment.
  ContigKernel act_kernel = nullptr;
  int64_t mc = 0, nc = 0, kc = 0;      // cache blocking (kc: K block, balanced over K)
  int64_t mr = 0, nr = 0;              // register tile
  int64_t m_task = 0, n_task = 0;      // extent of one task (multiples of mr / nr)
  int64_t m_tasks = 0, n_tasks = 0;    // tasks per batch along M and N
  int64_t tasks = 0;                   // independent (batch, M-block, N-block) tasks
  // With b_prepacked and M <= 4: reproduce the unpacked plan's small-M order (1: stream, 2: dot),
  // so a pre-packed weight gives bit-identical results.
  int prepacked_small = 0;
  bool gemv_nt = false;  // M <= 4, B with unit row stride (B stored [N,K]): dot products
  bool dot_k_chunked = false;  // gemv_nt with 3-4 rows and a cache-resident fp32 B: Ukernel::dot_k_chunked
  bool stream = false;   // M <= 4 with fp32 B of unit column stride: the streaming kernel reads B
                         // row by row in place (nc = columns per pass, kc = k)
  // Small M (few row tiles share each B panel): fp32 B of unit column stride is read in place by
  // the micro-kernel (ldb = its row stride) instead of being packed; only a last partial panel is.
  bool b_direct = false;
  // M <= 16 (outside the dot plan) with a large B (beyond L3/2) stored [N,K]: each column block is
  // packed over all of K at once (panel q at q * nr * k), so every row of B is read as one long run
  // instead of kc-sized pieces; nc is capped so the block stays within L3/4 (not taken when one
  // panel over all of K would not fit there).
  bool b_full_k = false;
  // Small GEMMs (A within L2/8): fp32 A of unit column stride is read in place (ukernel
  // rows_a_in_place) instead of being packed.
  bool a_direct = false;
  // BF16 x BF16 on a tier with vdpbf16ps tiles (avx512bf16_12x32): A and B packed as bf16 k-pairs,
  // Ukernel::rows_bf16 (pairwise fp32 accumulation, see ukernel_avx512bf16.cpp).
  bool bf16_dot = false;
  bool pack_simd = false;  // the packing routines may use their AVX2 / F16C helpers (OPSNN_MAX_ISA >= avx2)
  bool c_direct = true;  // true: fp32 C with unit column stride accumulated in place;
                         // false: per-thread fp32 tile buffer, one rounding epilogue per task
  size_t a_pack_bytes = 0, b_pack_bytes = 0, c_buf_bytes = 0;  // per thread, 64-byte multiples
  size_t thread_workspace_bytes = 0;
  size_t workspace_bytes = 0;          // packing buffers for all threads
  int threads = 1;                     // maximum parallelism gemm_run uses
  // The plan gemm_run takes instead when B's address is a registered pre-packed weight of this
  // shape and dtype (workspace_bytes covers both).
  std::shared_ptr<const GemmPlan> prepacked_alt;
};

// Phase 1. Never fails for a valid desc (sizes >= 0, supported dtypes); returns false with
// opsnn::set_last_error otherwise.
bool gemm_plan(const GemmDesc &desc, GemmPlan *plan, const GemmOptions &options = {});

// Phase 1 for a B that is already in the pre-packed layout (gemm_prepack_b's, e.g. a FRACTAL_NZ
// 16-bit weight whose K is a multiple of 16, which is that very layout): `d` describes B as the
// plain matrix it holds (its strides choose the summation order), the plan reads the packed
// buffer with that order, so results are bit-identical to running `d` on the plain B. One B
// matrix (no batch stride).
bool gemm_plan_prepacked_b(const GemmDesc &d, GemmPlan *plan, const GemmOptions &options = {});

// Phase 2. `workspace` has plan.workspace_bytes bytes (64-byte aligned). Results are bit-identical
// for any thread count. Never allocates.
// `d` is the addend of a desc with has_d (ignored otherwise).
void gemm_run(const GemmPlan &plan, const void *a, const void *b, void *c, void *workspace,
              const void *d = nullptr);

// Phase 2 over the first `m` rows of A and C only (0 <= m <= plan.desc.m; larger m is the whole plan):
// for row counts known at launch (aclnnGroupedMatmulV3's group list), planned in phase 1 for the
// largest M. Each row is computed as the full plan computes it (same path, blocking and K order);
// a plan for M = m might have chosen another path (the results then agree to rounding). The
// small-M paths (stream / dot) were planned for M <= 4 and stay valid for fewer rows.
void gemm_run_rows(const GemmPlan &plan, int64_t m, const void *a, const void *b, void *c, void *workspace,
                   const void *d = nullptr);

// Straightforward triple loop with fp32 accumulation in k order, used
// by OPSNN_KERNELS=reference and as a test oracle for the blocked kernels.
void gemm_reference(const GemmDesc &desc, const void *a, const void *b, void *c, const void *d = nullptr);

// Pre-packed weight layout (aclnnTransMatmulWeight): B (K x N) as ceil(N/16) panels of 16
// columns over all of K, element (p, j) at [(j/16)*16*K + p*16 + j%16], columns >= N zero, in B's
// own dtype. Fits the vendor's documented size align(K,16)*align(N,16) elements. The engine reads
// fp32 panels in place with a 16-wide micro-kernel (no packing at all) and converts others panel by
// panel (sequential reads).
constexpr int64_t kPrepackWidth = 16;
inline int64_t gemm_prepacked_b_elems(int64_t k, int64_t n) {
  return k * ((n + kPrepackWidth - 1) / kPrepackWidth * kPrepackWidth);
}
inline int64_t gemm_prepacked_offset(int64_t p, int64_t j, int64_t k) {
  return (j / kPrepackWidth) * kPrepackWidth * k + p * kPrepackWidth + j % kPrepackWidth;
}
// Writes B (k x n; element (p, j) at src[p*b.row_stride + j*b.col_stride], dtype b.dtype) into
// `dst` in the layout above (same dtype; dst must not overlap src).
void gemm_prepack_b(const GemmOperand &b, int64_t k, int64_t n, const void *src, void *dst);

// Registry of pre-packed weights, keyed by the buffer's address (aclnnTransMatmulWeight registers
// when its kernel runs; runtime copies / memsets into it and the return of its allocation to the
// allocator's cache forget it). gemm_plan adds a prepacked_alt plan while the registry
// is in use; gemm_run looks B's address up (one atomic load when nothing was ever pre-packed).
void gemm_prepacked_b_mark_in_use();
// An entry records the logical B (k x n) and the strides of the view that was packed, so only a
// matmul reading the same view (not, e.g., its transpose over the same square buffer) matches.
void gemm_prepacked_b_register(const void *addr, int64_t k, int64_t n, aclDataType dtype, int64_t row_stride,
                               int64_t col_stride);
bool gemm_prepacked_b_registered(const void *addr, int64_t k, int64_t n, aclDataType dtype, int64_t row_stride,
                                 int64_t col_stride);
void gemm_prepacked_b_forget(const void *base, size_t bytes);  // every entry inside [base, base+bytes)
// Every entry whose packed extent overlaps [base, base + bytes): the weight was overwritten (runtime
// copies and memsets call this when they execute, in stream order).
void gemm_prepacked_b_overwritten(const void *base, size_t bytes);
// An op's output view was written (the executor calls this for every output when a launch runs,
// before its steps): forgets every entry that one of the view's elements overlaps. `base` is the
// first view element; dims / strides in elements of `esize` bytes. Elements are tested exactly (a
// strided view that passes over a packed weight without touching it keeps the weight registered).
void gemm_prepacked_b_view_written(const void *base, int ndim, const int64_t *dims, const int64_t *strides,
                                   size_t esize);
bool gemm_prepacked_b_in_use();

// The micro-kernel table, for tests and benchmarks that reach every tier.
int gemm_kernel_count();
const char *gemm_kernel_name(int kernel);
// True when this CPU can run the kernel (ignores the OPSNN_MAX_ISA cap).
bool gemm_kernel_supported(int kernel);

}  // namespace opsnn::kernels

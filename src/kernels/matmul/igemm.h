// Int8 GEMM (aclnnQuantMatmulV3/V4): acc[b][i][j] = sum_p A[b][i][p] * B[b][p][j] over int8 A and
// B, exact in int32 (|acc| < 2^31 for k <= kIgemmMaxK, and the int32 arithmetic wraps, so every
// order of summation gives the same bits: results never depend on the kernel tier or thread count).
// Knows nothing of aclTensor; the dequantising epilogue (scales, bias, output dtype) belongs to the
// caller, which receives finished int32 blocks.
//
// Small M on the SIMD tiers reads B once in place (tasks: batch x column ranges): B stored [N, K]
// (unit stride along K, the usual weight layout) by dot products along K for m <= 8, B stored
// [K, N] (unit stride along N) streamed in column strips for m <= 4, and on AVX2 / VNNI up to
// m = 16.
// Engine otherwise: per task (batch, M block, N block) A and B are packed into k-groups (AVX2 and portable:
// int16 pairs for vpmaddwd; AVX512-VNNI: quads for vpdpbusd, A biased to unsigned by +128 and the
// bias removed with B's column sums; AArch64 DotProd: signed quads for sdot) and a register-tiled micro-kernel accumulates int32 over the
// whole K; then the block goes to the caller's callback. Transposed or strided A/B are read in
// place by the packing step (element strides; batch stride 0 broadcasts).
#pragma once

#include <cstddef>
#include <cstdint>

namespace opsnn::kernels {

// Largest K with an exact int32 sum for every int8 input (128 * 128 * K < 2^31).
constexpr int64_t kIgemmMaxK = 131071;

struct IgemmDesc {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  int64_t a_row = 0, a_col = 1, a_batch = 0;  // A [m, k]: element strides
  int64_t b_row = 0, b_col = 1, b_batch = 0;  // B [k, n]
};

enum class IgemmKernel : int { kPortable = 0, kAvx2 = 1, kAvx512Vnni = 2, kNeonDot = 3 };
constexpr int kIgemmKernelCount = 4;
const char *igemm_kernel_name(IgemmKernel k);
// True when this CPU (after the OPSNN_MAX_ISA cap) runs kernel `k`.
bool igemm_kernel_available(IgemmKernel k);

struct IgemmPlan {
  IgemmDesc d;
  IgemmKernel kernel = IgemmKernel::kPortable;
  int64_t mr = 0, nr = 0, kgroup = 0;  // tile and k-group (2: int16 pairs, 4: byte quads)
  int64_t mt = 0, nc = 0;              // C block of one task (multiples of mr / nr, except the edges)
  int64_t mc = 0;                      // rows of A packed at a time (sub-block of mt)
  bool dot = false;                    // small M (dot / stream kernels, B read in place; nc columns a task)
  int64_t m_blocks = 0, n_blocks = 0, tasks = 0;
  size_t thread_bytes = 0;             // per-thread scratch (packed A, packed B, int32 block, sums)
  int threads = 1;
  size_t workspace_bytes = 0;          // threads * thread_bytes (+ alignment)
};

// Plans in phase 1. `threads` 0: the pool's size; `kernel` >= 0 forces that tier (tests; false when
// it is not available). False (with the error message set) for k > kIgemmMaxK or empty sizes.
bool igemm_plan(const IgemmDesc &d, IgemmPlan *plan, int threads = 0, int kernel = -1);

// Receives one finished block: acc[r * ldacc + c] is the exact sum for row i0 + r and column
// j0 + c of batch b, r < rows, c < cols. Blocks of different tasks arrive concurrently from
// different threads (they never overlap).
using IgemmBlockFn = void (*)(void *ctx, int64_t b, int64_t i0, int64_t j0, int64_t rows, int64_t cols,
                              const int32_t *acc, int64_t ldacc);

// Phase 2. `workspace`: plan.workspace_bytes, 64-byte aligned.
void igemm_run(const IgemmPlan &plan, const int8_t *a, const int8_t *b, void *workspace, IgemmBlockFn fn,
               void *ctx);

// The definition, one element at a time (tests): c[(bi * m + i) * n + j], exact in int64.
void igemm_reference(const IgemmDesc &d, const int8_t *a, const int8_t *b, int64_t *c);

}  // namespace opsnn::kernels

// Internal GEMM engine: C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b], over raw pointers and
// element strides. Knows nothing of aclTensor or executors. Planned once (phase 1), run many times.
//
// Transposed or otherwise strided operands are described by their strides (row_stride,
// col_stride), never copied first: the packing step reads them directly. A batch stride of 0
// broadcasts an operand over the batch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct GemmOperand {
  aclDataType dtype = ACL_FLOAT;  // ACL_FLOAT, ACL_FLOAT16 or ACL_BF16
  int64_t row_stride = 0;         // elements between rows    (A: along M, B: along K, C: along M)
  int64_t col_stride = 1;         // elements between columns (A: along K, B: along N, C: along N)
  int64_t batch_stride = 0;       // elements between batches (0 = broadcast)
};

struct GemmDesc {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  GemmOperand a, b, c;
  float alpha = 1.0f;
  float beta = 0.0f;  // 0: C is not read (may hold NaN garbage)
  // Inputs are rounded to this precision before multiplying (cubeMathType USE_FP16 on FLOAT
  // inputs rounds to ACL_FLOAT16); ACL_FLOAT keeps full fp32 accuracy. Accumulation is fp32.
  aclDataType input_rounding = ACL_FLOAT;
};

// Everything decided in phase 1: kernel, cache blocking, thread split, workspace layout.
struct GemmPlan {
  GemmDesc desc;
  int kernel = 0;                      // index into the engine's kernel table
  int64_t mc = 0, nc = 0, kc = 0;      // cache blocking
  int64_t mr = 0, nr = 0;              // register tile
  int64_t tasks = 0;                   // independent (batch, M-block, N-block) tasks
  size_t workspace_bytes = 0;          // packing buffers for all threads
  int threads = 1;
};

// Phase 1. Never fails for a valid desc (sizes >= 0, supported dtypes); returns false with
// opsnn::set_last_error otherwise.
bool gemm_plan(const GemmDesc &desc, GemmPlan *plan);

// Phase 2. `workspace` has plan.workspace_bytes bytes (64-byte aligned). Results are bit-identical
// for any thread count.
void gemm_run(const GemmPlan &plan, const void *a, const void *b, void *c, void *workspace);

// Straightforward triple loop with fp32 accumulation in k order, used
// by OPSNN_KERNELS=reference and as a test oracle for the blocked kernels.
void gemm_reference(const GemmDesc &desc, const void *a, const void *b, void *c);

}  // namespace opsnn::kernels

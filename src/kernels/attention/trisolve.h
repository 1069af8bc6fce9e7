// Batched triangular solve op(A) X = B (torch.triangular_solve): op(A) = A or A^T, the upper or
// lower triangle of A (the other one is never read), unit diagonal optional. A direct kernel:
// substitution row by row over a block of right-hand-side columns held in double (FLOAT and DOUBLE
// both solve in double, then round once), so each X column is computed by one task in a fixed
// order: bit-identical for any thread count. Tasks: (batch, block of columns). M, the broadcast copy
// of A, is written by the first column block of each batch.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl_base.h"

namespace opsnn::kernels {

struct TriSolveDesc {
  aclDataType dtype = ACL_FLOAT;  // FLOAT or DOUBLE (every operand)
  int64_t m = 0, k = 0;           // A: m x m; B, X: m x k
  bool upper = true, transpose = false, unit = false;
  // Batch: `batch_dims` broadcast dims; per operand the element strides along them (0: broadcast).
  std::vector<int64_t> batch_dims, a_bs, b_bs, x_bs, m_bs;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0, x_rs = 0, x_cs = 0, mo_rs = 0, mo_cs = 0;  // row / col strides
  bool write_m = true;
};

struct TriSolvePlan {
  TriSolveDesc desc;
  int64_t batches = 0, col_block = 0, col_blocks = 0;
  size_t worker_bytes = 0, workspace_bytes = 0;
  int workers = 1;
};

bool trisolve_plan(const TriSolveDesc &d, TriSolvePlan *plan);
// Pointers: the first elements of the views.
void trisolve_run(const TriSolvePlan &plan, const void *a, const void *b, void *x, void *m_out, void *workspace);

}  // namespace opsnn::kernels

// Batched triangular solve op(A) X = B (torch.triangular_solve): op(A) = A or A^T, the upper or
// lower triangle of A (the other one is never read), unit diagonal optional. Tasks: (batch, block
// of right-hand-side columns), each X column computed by one task in a fixed order: bit-identical
// for any thread count. M, the broadcast copy of A, is written by the first column block of each
// batch. Two paths (candidates, best first):
//   blocked (FLOAT, m >= 128): blocks of 64 rows; each diagonal block solved by substitution in
//     fp32 (double per row update), the rows still to solve updated with one GEMM per block
//     (X_rest -= op(A)_rest,block . X_block, the GEMM engine reading A in place);
//   direct: substitution row by row in double over 64 columns (FLOAT and DOUBLE), rounded once.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "kernels/matmul/gemm.h"

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
  bool blocked = false;
  int64_t row_block = 0;
  // blocked: per row block (in solve order) and column width (full / last), the update GEMM.
  std::vector<GemmPlan> updates;  // index: block * 2 + (last column block ? 1 : 0)
  int64_t batches = 0, col_block = 0, col_blocks = 0;
  size_t worker_bytes = 0, workspace_bytes = 0;
  int workers = 1;
};

bool trisolve_plan(const TriSolveDesc &d, TriSolvePlan *plan);
// Pointers: the first elements of the views.
void trisolve_run(const TriSolvePlan &plan, const void *a, const void *b, void *x, void *m_out, void *workspace);

}  // namespace opsnn::kernels

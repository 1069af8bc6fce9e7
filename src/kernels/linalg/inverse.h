// Batched matrix inverse over strided views (src/ops/linalg/inverse.ops): LU with partial pivoting in double
// per matrix, the inverses written to a double workspace, then rounded once into out when no matrix was
// singular. Matrices are independent, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"

namespace opsnn::kernels {

constexpr int kInverseMaxBatchDims = 6;

struct InversePlan {
  aclDataType dtype = ACL_FLOAT;
  int64_t n = 0, batch = 0;
  int batch_ndim = 0;
  int64_t batch_dims[kInverseMaxBatchDims] = {};
  // Element strides: batch dims, then row and column, of self and out.
  int64_t x_batch[kInverseMaxBatchDims] = {}, out_batch[kInverseMaxBatchDims] = {};
  int64_t x_row = 0, x_col = 0, out_row = 0, out_col = 0;
};

// work: batch * n * n doubles. Returns 0, or 161002 after opsnn::set_last_error for a singular matrix
// (out untouched).
int inverse_run(const InversePlan &plan, const char *x, char *out, double *work);

}  // namespace opsnn::kernels

// Weights in FRACTAL_NZ for the matmul family's *WeightNz rows and QuantMatmulWeightNz: phase 1
// checks the blocked weight; the GEMM then reads it in place (a single 16-bit [K, N] with K a
// multiple of 16: its NZ blocks are exactly the GEMM engine's pre-packed layout,
// kernels/matmul/gemm.h) or from a dense row-major copy made at the first launch and kept
// (WeightNzCopy). Either way it is planned as the plain contiguous weight, and the result is
// bit-identical to the plain op's on the logical weight.
#pragma once

#include <initializer_list>
#include <memory>

#include "core/op_builder.h"
#include "kernels/conv/packed_weight.h"
#include "ops/matmul/matmul_common.h"

namespace opsnn::ops {

// A *WeightNz weight: non-null, dtype in `dtypes`, and either format FRACTAL_NZ with its storage
// shape (core/fractal_layout.h), or a plain format (the vendor's other flow: a weight that
// aclnnTransMatmulWeight re-laid in place is passed as ND, and read as the plain op reads it).
// Returns whether it is FRACTAL_NZ.
bool check_weight_nz(const aclTensor *w, const char *name, std::initializer_list<aclDataType> dtypes);

// The FRACTAL_NZ weight `w` is a single 16-bit [K, N] matrix (not a transposed view) with K a
// multiple of 16: its storage is gemm_prepack_b's layout, read in place (gemm_plan_prepacked_b).
bool weight_nz_is_prepacked_layout(const aclTensor &w);
// The contiguous ND view (same dtype, dims and offset) a GEMM over `w`'s logical matrix is planned with.
aclTensor weight_nz_logical(const aclTensor &w);

// The dense row-major copy of a FRACTAL_NZ weight, made at the first launch and kept
// (kernels::PackedWeight: made again when the runtime sees the weight's bytes written or freed, or
// the executor is pointed at another weight; a weight outside runtime memory is copied at every
// launch). Copies of a step (the plan cache's) share it.
class WeightNzCopy final : public OperandSource {
 public:
  WeightNzCopy(int slot, const aclTensor &w);
  void with(const core::LaunchArgs &args, const std::function<void(const char *)> &use) const override;

 private:
  core::OperandRef src_;
  int64_t esz_ = 2, batch_ = 1, rows_ = 0, cols_ = 0, storage_bytes_ = 0;
  bool transposed_ = false;
  std::shared_ptr<kernels::PackedWeight> copy_ = std::make_shared<kernels::PackedWeight>();
};

}  // namespace opsnn::ops

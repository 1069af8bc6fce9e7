// Weights in FRACTAL_NZ for the matmul family's *WeightNz rows (and the quantised matmuls): phase 1
// checks the blocked weight and records a step that re-lays it, at each launch, into a dense
// row-major block of the workspace; the GEMM then reads that block as it reads a plain contiguous
// weight (so the result is bit-identical to the plain op's on the logical weight).
#pragma once

#include <initializer_list>

#include "core/op_builder.h"

namespace opsnn::ops {

// A *WeightNz weight: non-null, dtype in `dtypes`, and either format FRACTAL_NZ with its storage
// shape (core/fractal_layout.h), or a plain format (the vendor's other flow: a weight that
// aclnnTransMatmulWeight re-laid in place is passed as ND, and read as the plain op reads it).
// Returns whether it is FRACTAL_NZ.
bool check_weight_nz(const aclTensor *w, const char *name, std::initializer_list<aclDataType> dtypes);

// Records the re-layout of the FRACTAL_NZ weight `w` (registered as `slot`) into a new workspace
// block and returns its key; `dense` becomes the contiguous ND view of the block (same dtype and
// logical dims, offset 0) to plan the GEMM with.
core::WsKey record_weight_nz_unpack(core::OpBuilder &b, int slot, const aclTensor &w, aclTensor *dense);

}  // namespace opsnn::ops

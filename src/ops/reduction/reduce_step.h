// Records a reduction (kernels/reduction): the shared phase-1 plan of every reducing op and of
// ops that reduce internally (e.g. the weight gradient of aclnnPreluBackward, a mapped reduction).
// The inputs and the outputs are tensor slots, views of slots or workspace blocks (ops::EwInput).
#pragma once

#include <vector>

#include "core/op_builder.h"
#include "kernels/reduction/reduce.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

struct ReduceSpec {
  kernels::ReduceOp op = kernels::ReduceOp::kSum;
  kernels::ReduceParams params;
  core::ComputeType compute = core::ComputeType::kDouble;  // kDouble or kInt64
};

// Reduces `in` over the dims set in `mask` into `outs` (one or two operands). Each output has the
// input's dims with the reduced ones removed (keepdim false) or of size 1 (keepdim true).
void record_reduction(core::OpBuilder &b, const ReduceSpec &spec, const EwInput &in, uint32_t mask, bool keepdim,
                      const std::vector<EwInput> &outs);

// The same over map(in, in2) (kernels::ReduceMap, a floating sum), `in2` of the same dims as `in`:
// the map is applied as the values are loaded, nothing is materialised.
void record_mapped_reduction(core::OpBuilder &b, const ReduceSpec &spec, kernels::ReduceMap map, const EwInput &in,
                             const EwInput &in2, uint32_t mask, bool keepdim, const std::vector<EwInput> &outs);

}  // namespace opsnn::ops

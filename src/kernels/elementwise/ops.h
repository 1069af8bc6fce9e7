// The element-wise ops and their contiguous kernels. An op is a functor (functors/*.h) listed in
// op_list.inc; the list generates this enum and the per-ISA kernel tables.
#pragma once

#include "core/dtype.h"
#include "kernels/elementwise/elementwise.h"

namespace opsnn::kernels {

enum class EwOp : int {
#define OPSNN_EW(name, functor) k##name,
#include "kernels/elementwise/op_list.inc"
#undef OPSNN_EW
  kCount
};

const char *ew_op_name(EwOp op);
// Number of tensor inputs the op reads (0..3).
int ew_op_arity(EwOp op);
// The kernel for `op` in compute type `ct`, or nullptr when the op is not defined there (e.g.
// Div on integers). The best ISA variant available; the portable one under OPSNN_KERNELS=reference.
ContigKernel ew_kernel(EwOp op, core::ComputeType ct);
// Whether `op` is defined in compute type `ct` at all (every tier compiles the same functors);
// records nothing (phase-1 dtype checks ask this before choosing).
bool ew_op_defined(EwOp op, core::ComputeType ct);

}  // namespace opsnn::kernels

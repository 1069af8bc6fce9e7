// The element-wise ops and their contiguous kernels, one per compute type. An op is a scalar
// functor (ops_impl.h); the table instantiates it for float, double and int64 compute.
#pragma once

#include "core/dtype.h"
#include "kernels/elementwise/elementwise.h"

namespace opsnn::kernels {

enum class EwOp : int {
  kIdentity,  // out = in0                      (Cast, InplaceCopy)
  kFill,      // out = s[0]                     (InplaceFillScalar, InplaceZero)
  kAdd,       // out = in0 + s[0] * in1         (Add, Adds, InplaceAdd[s]; s[0] = alpha)
  kSub,       // out = in0 - s[0] * in1
  kMul,       // out = in0 * in1
  kDiv,       // out = in0 / in1                (true division; floating compute only)
  kRelu,      // out = max(in0, 0), NaN kept
  kCount
};

const char *ew_op_name(EwOp op);
// Number of tensor inputs the op reads.
int ew_op_arity(EwOp op);
// The kernel for `op` in compute type `ct` (nullptr when the op is not defined there, e.g. kDiv on
// integers). Chooses the best ISA variant available; the reference variant when
// OPSNN_KERNELS=reference.
ContigKernel ew_kernel(EwOp op, core::ComputeType ct);

}  // namespace opsnn::kernels

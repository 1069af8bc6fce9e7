// The element-wise engine: one loop planner (broadcasting, dimension reordering and merging
// (kernels/loop/loop_walk.h, shared with the reduction engine), decided in phase 1) and one runner that feeds contiguous compute-type chunks to an op's
// contiguous kernel. Ops supply only that kernel (see ops.h).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "kernels/loop/loop_walk.h"  // kMaxLoopDims

namespace opsnn::kernels {

constexpr int kMaxOperands = 4;  // output + up to 3 inputs

// Scalar parameters of an op, already converted to each compute type in phase 1.
struct OpScalars {
  double f[3] = {0, 0, 0};
  int64_t i[3] = {0, 0, 0};
};

// Kernel over contiguous compute-type buffers: out[k] = op(in0[k], in1[k], ...), k < n.
// `in` holds pointers of the same compute type as `out`.
using ContigKernel = void (*)(int64_t n, void *out, const void *const *in, const OpScalars &s);

struct ElementwiseLoop {
  int ndim = 0;                       // after merging; innermost last
  int64_t shape[kMaxLoopDims] = {};
  int nops = 0;                       // operand 0 is the output
  aclDataType dtype[kMaxOperands] = {};
  int64_t stride[kMaxOperands][kMaxLoopDims] = {};  // bytes
  core::ComputeType compute = core::ComputeType::kFloat;
  aclDataType round_through = ACL_DT_UNDEFINED;     // see store_from
  int64_t numel = 0;
  // >= 1: the operand (an input) whose zero elements run_elementwise reports, after loading it in
  // the compute type: the divisor of an integer division (only integer compute types check).
  int zero_check = -1;
  // A same-dtype copy whose innermost dim is unit-stride on both sides (plan_copy_rows): rows move
  // as bytes instead of through the kernel, with streaming stores when `streaming`.
  bool copy_rows = false;
  bool streaming = false;
};

// Plans the loop. `out_shape`: the output shape; `strides[op]`: element strides of each operand
// already broadcast to out_shape (0 where broadcast); `elem_size[op]` its element size.
// Dimensions are reordered so the output's smallest stride is innermost, then merged.
ElementwiseLoop plan_elementwise_loop(int ndim, const int64_t *out_shape, int nops,
                                      const int64_t (*strides)[kMaxLoopDims], const aclDataType *dtypes,
                                      core::ComputeType compute);

// Phase 1 of an identity op (a copy): sets loop.copy_rows when its two operands have one dtype and
// a unit-stride innermost dim, and loop.streaming when the destination is large enough to stream
// (kernels/elementwise/stream_copy.h).
void plan_copy_rows(ElementwiseLoop &loop);

// Runs the loop over operand base addresses (first element of each view), in parallel.
// Returns true when loop.zero_check names an operand that held a zero (integer division by zero);
// every element is still computed (the op's functor defines the value of x / 0).
bool run_elementwise(const ElementwiseLoop &loop, char *const *base, ContigKernel kernel, const OpScalars &s);

}  // namespace opsnn::kernels

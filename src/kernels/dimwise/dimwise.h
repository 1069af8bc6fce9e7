// The dim-wise engine: ops that map each line of a tensor along one dim (or, for a few, along
// every dim flattened) to a line of results: softmax and its gradient, cumulative sums and
// products, sort, top-k, k-th value and median. A line is gathered into a contiguous compute-type
// buffer, transformed, and scattered to the outputs; lines run in parallel and each is computed
// by one task alone, so results never depend on the thread count.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "core/dtype.h"
#include "kernels/elementwise/elementwise.h"  // kMaxLoopDims

namespace opsnn::kernels {

enum class DimwiseOp : uint8_t {
  kSoftmax, kLogSoftmax,                  // in: self
  kSoftmaxBackward, kLogSoftmaxBackward,  // in: gradOutput, output
  kCumsum, kCumprod,
  kSort,      // values, indices (params: descending, stable)
  kTopk,      // k values, indices (largest, sorted)
  kKthvalue,  // one value and its index (k, 1-based)
  kMedian, kNanMedian,  // one value and its index
};
const char *dimwise_op_name(DimwiseOp op);

struct DimwiseParams {
  int64_t k = 1;
  bool descending = false;  // kSort; kTopk: largest
};

struct DimwiseLoop {
  DimwiseOp op = DimwiseOp::kSoftmax;
  DimwiseParams params;
  core::ComputeType compute = core::ComputeType::kDouble;  // kDouble, or kInt64 for integer cumsum / sort
  int nin = 1, nout = 1;
  int out_first = 0;  // output k is the line's result out_first + k (Argsort: 1, the indices)
  aclDataType in_dtype[2] = {}, out_dtype[2] = {};
  // Lines: one per element of the outer dims (coalesced); byte strides.
  int nouter = 0;
  int64_t outer_shape[kMaxLoopDims] = {};
  int64_t in_outer[2][kMaxLoopDims] = {}, out_outer[2][kMaxLoopDims] = {};
  int64_t lines = 1;
  // The line: its dims in row-major order (one, or all for a flattened median), input byte strides.
  int nline = 0;
  int64_t line_shape[kMaxLoopDims] = {};
  int64_t in_line[2][kMaxLoopDims] = {};
  int64_t len = 1;       // input line length
  int64_t out_len = 1;   // output line length: len, k, or 1
  int64_t out_step[2] = {};  // output byte stride along the output line
  int64_t tasks = 1;         // lines are cut into this many ranges, each with its own scratch
  uint64_t scratch_bytes_per_task = 0;
  uint64_t workspace_bytes() const { return static_cast<uint64_t>(tasks) * scratch_bytes_per_task; }
};

// Finishes the plan whose shape fields the caller filled: line length, scratch, task count.
void finish_dimwise_plan(DimwiseLoop &loop, int max_tasks);

// in[k] / out[k]: the first element of each operand; workspace: loop.workspace_bytes().
void run_dimwise(const DimwiseLoop &loop, const char *const *in, char *const *out, void *workspace);

}  // namespace opsnn::kernels

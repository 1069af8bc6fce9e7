// The phase 1 of every table-driven dim-wise op (src/ops/dimwise/dimwise.ops): softmax and its
// gradients, cumulative sums, sort, top-k, k-th value, median. The entry points are generated from
// the table (tools/gen_ops.py --entry); each fills a DimwiseCall from its row and its arguments.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/dimwise/dimwise.h"

namespace opsnn::ops {

enum class DimwiseResult : uint8_t {
  kSame,      // the first input's dtype
  kDtypeArg,  // the op's aclDataType parameter
  kInt64,     // INT64 (indices)
  kIndex,     // INT64 or INT32 (the output's choice: cummax / cummin indices)
};

// The output line along the dim.
enum class DimwiseShape : uint8_t {
  kFull,     // as long as the input's (softmax, cumsum, sort)
  kTopk,     // k long (topk)
  kReduced,  // one element: the dim removed, or kept as 1 with keepdim (kthvalue, median.dim)
  kAll,      // every dim flattened into one line, a single result (median)
};

struct DimwiseRule {
  kernels::DimwiseOp op;
  core::DtypeMask dtypes;  // accepted input dtypes
  int nin, nout;
  int out_first;  // output k is the line's result out_first + k
  DimwiseResult result[2];
  DimwiseShape shape;
};

struct DimwiseCall {
  const aclTensor *in[2] = {nullptr, nullptr};
  const char *in_name[2] = {"self", "output"};
  int64_t dim = 0;
  bool keepdim = false;
  aclDataType dtype = ACL_DT_UNDEFINED;
  kernels::DimwiseParams params;
  const aclTensor *out[2] = {nullptr, nullptr};
  const char *out_name[2] = {"out", "indicesOut"};
  bool inplace = false;  // in[0] is also out[0] (registered once, read and written)
};

// A dim given as an aclScalar (aclnnCumprod): non-null (161001), of an integral dtype (161002).
int64_t dimwise_scalar_dim(const aclScalar *dim, const char *name);

void dimwise_phase1(core::OpBuilder &b, const DimwiseRule &rule, const DimwiseCall &c);

// A registered tensor operand of a dim-wise step.
using DimwiseOperand = core::OperandRef;
// Finishes `loop` (whose shape, strides, dtypes and params the caller set) and records its step,
// with the scratch booked as workspace. Shared by the families built on the dim-wise engine.
void record_dimwise(core::OpBuilder &b, kernels::DimwiseLoop loop, const DimwiseOperand *in, const DimwiseOperand *out);

}  // namespace opsnn::ops

// The phase 1 of every table-driven reduction (src/ops/reduction/reduction.ops): self reduced over
// a dim list, one dim or all dims into one or two outputs. The entry points are generated from the
// table (tools/gen_ops.py --entry); each fills a ReduceCall from its row (ReduceRule) and its
// arguments.
#pragma once

#include "core/dtype.h"
#include "core/op_builder.h"
#include "kernels/reduction/reduce.h"

namespace opsnn::ops {

// What an output's dtype must be.
enum class ReduceResult : uint8_t {
  kSame,      // self's dtype
  kDtypeArg,  // the op's aclDataType parameter (self is cast to it first)
  kFloat,     // a floating dtype
  kBool,      // BOOL or UINT8
  kIndex,     // INT32 or INT64
  kInt64,     // INT64
};

struct ReduceRule {
  kernels::ReduceOp op;
  core::DtypeMask dtypes;  // accepted self dtypes
  int nout;
  ReduceResult result[2];
  bool null_dims_all;   // a null dim list reduces every dim (else 161001)
  bool needs_nonempty;  // reducing a dim of size 0 is an error (extrema and their indices)
};

struct ReduceCall {
  enum class Dims : uint8_t { kList, kOne, kAll };
  const aclTensor *self = nullptr;
  const char *self_name = "self";
  Dims dims_kind = Dims::kAll;
  const aclIntArray *dims = nullptr;  // kList: empty reduces every dim
  int64_t dim = 0;                    // kOne
  const char *dims_name = "dim";
  bool keepdim = false;
  aclDataType dtype = ACL_DT_UNDEFINED;  // kDtypeArg
  kernels::ReduceParams params;      // correction (the p comes from p_scalar)
  const aclScalar *p_scalar = nullptr;  // kNorm: the order p (required)
  const char *p_name = "p";
  const aclTensor *out[2] = {nullptr, nullptr};
  const char *out_name[2] = {"out", "indices"};
};

void reduce_phase1(core::OpBuilder &b, const ReduceRule &rule, const ReduceCall &c);

}  // namespace opsnn::ops

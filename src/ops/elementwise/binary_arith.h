// Phase 1 shared by Add, Sub, Mul, Div and their scalar / in-place forms: PyTorch type promotion,
// broadcasting, alpha rules and the output checks, then one element-wise step.
#pragma once

#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

struct BinaryArgs {
  const aclTensor *self = nullptr;
  const aclTensor *other = nullptr;         // tensor form, or
  const aclScalar *other_scalar = nullptr;  // scalar form ("...s" ops)
  const aclScalar *alpha = nullptr;         // Add/Sub only
  const aclTensor *out = nullptr;           // the output (unused by the in-place forms)
  bool inplace = false;                     // self is written
};

void binary_arith_phase1(core::OpBuilder &b, kernels::EwOp op, const BinaryArgs &args);

}  // namespace opsnn::ops

// Defines aclnn<Name>GetWorkspaceSize with the given parameter list and BinaryArgs initializer,
// and aclnn<Name>.
#define OPSNN_BINARY_ARITH_OP(Name, OP, PARAMS, ...)                                                  \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {                   \
    return ::opsnn::core::phase1("aclnn" #Name, workspaceSize, executor, [&](::opsnn::core::OpBuilder &b) { \
      ::opsnn::ops::binary_arith_phase1(b, OP, ::opsnn::ops::BinaryArgs __VA_ARGS__);                   \
    });                                                                                               \
  }                                                                                                   \
  OPSNN_DEFINE_LAUNCH(Name)

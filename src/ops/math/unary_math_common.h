// Phase 1 shared by the unary math ops (Exp, Log, Sin, ..., Abs, Sign, Floor, ...) and their
// in-place forms: argument checks, the dtype rules and the element-wise step.
#pragma once

#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/elementwise/ops.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

enum class UnaryMathKind {
  // A floating function (exp, sin, sqrt, ...): integer and BOOL inputs are computed in FLOAT and
  // the output must be a floating dtype (so the in-place form needs a floating selfRef).
  kFloatResult,
  // Keeps the input's dtype, integers included (abs, neg, sign, square, floor, ...).
  kSameType,
  // Defined for floating inputs only (frac).
  kFloatOnly,
};

struct UnaryMathArgs {
  kernels::EwOp op;
  UnaryMathKind kind = UnaryMathKind::kFloatResult;
  const aclTensor *self = nullptr;
  const aclTensor *out = nullptr;  // the output (nullptr in place)
  bool inplace = false;
  const char *self_name = "self";
  const char *out_name = "out";
  bool allow_bool = true;  // BOOL input accepted (kSameType: the op must be identity-like on it)
  int nscalars = 0;
  double scalars[2] = {0, 0};
  aclDataType compute_override = ACL_DT_UNDEFINED;  // compute dtype forced by the op
};

void unary_math_phase1(core::OpBuilder &b, const UnaryMathArgs &args);

}  // namespace opsnn::ops

// aclnn<Name>GetWorkspaceSize(PARAMS) running the statement block (using OpBuilder `b`), and the
// launch aclnn<Name>.
#define OPSNN_UNARY_MATH_OP(Name, PARAMS, ...)                                                    \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {              \
    return ::opsnn::core::phase1("aclnn" #Name, workspaceSize, executor,                          \
                                 [&](::opsnn::core::OpBuilder &b) __VA_ARGS__);                   \
  }                                                                                              \
  OPSNN_DEFINE_LAUNCH(Name)

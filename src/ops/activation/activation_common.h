// Phase 1 pieces shared by the hand-written activations (Prelu, RReluWithNoise). (The unary
// activations are table-driven: unary_activation.ops; the gated ones: gated.ops.)
#pragma once

#include <initializer_list>

#include "core/op_builder.h"
#include "core/op_checks.h"
#include "kernels/elementwise/ops.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

inline constexpr std::initializer_list<aclDataType> kActFloatTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
inline constexpr std::initializer_list<aclDataType> kActFloatDoubleTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,
                                                                            ACL_DOUBLE};

}  // namespace opsnn::ops

// Defines aclnn<Name>GetWorkspaceSize(PARAMS) whose phase-1 body is the remaining arguments (a
// statement block using the OpBuilder `b`), and aclnn<Name>.
#define OPSNN_ACTIVATION_OP(Name, PARAMS, ...)                                                               \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {                         \
    return ::opsnn::core::phase1("aclnn" #Name, workspaceSize, executor,                                     \
                                 [&]([[maybe_unused]] ::opsnn::core::OpBuilder &b) __VA_ARGS__);            \
  }                                                                                                         \
  OPSNN_DEFINE_LAUNCH(Name)

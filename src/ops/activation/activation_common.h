// Phase 1 pieces shared by the gated (GLU) activations, which split their input in two halves
// along a dimension. (The unary activations are table-driven: unary_activation.ops.)
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

// The two halves of `x` along `dim` (front/back, or even/odd when `interleaved`): checks the
// dimension range and that its size is even (161002), and gives the output shape.
struct GluHalves {
  aclTensor first, second;
  core::Shape out_shape;
  int dim = 0;
};
GluHalves glu_halves(const aclTensor *x, const char *x_name, int64_t dim, bool interleaved = false);

// Checks a GLU output: non-null, the halved shape, a floating dtype the result can be cast to.
void check_glu_out(const aclTensor *out, const char *name, const aclTensor &x, const GluHalves &h);

}  // namespace opsnn::ops

// Defines aclnn<Name>GetWorkspaceSize(PARAMS) whose phase-1 body is the remaining arguments (a
// statement block using the OpBuilder `b`), and aclnn<Name>.
#define OPSNN_ACTIVATION_OP(Name, PARAMS, ...)                                                               \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {                         \
    return ::opsnn::core::phase1("aclnn" #Name, workspaceSize, executor,                                     \
                                 [&]([[maybe_unused]] ::opsnn::core::OpBuilder &b) __VA_ARGS__);            \
  }                                                                                                         \
  OPSNN_DEFINE_LAUNCH(Name)

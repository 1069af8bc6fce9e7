// Phase 1 shared by the element-wise activations: the unary form (self -> out, or in place on
// selfRef) and the gated (GLU) form that splits its input in two halves along a dimension.
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

struct UnaryActArgs {
  kernels::EwOp op;
  const aclTensor *self = nullptr;
  const aclTensor *out = nullptr;  // unused in place
  bool inplace = false;
  std::initializer_list<aclDataType> dtypes = kActFloatTypes;
  int nparams = 0;
  double params[3] = {0, 0, 0};  // the functor's s0..s2
  const char *self_name = nullptr;  // default "self" / "selfRef"
};

// Checks self / out (non-null, dtype in `dtypes`, out of self's shape and a dtype self's result
// can be cast to), registers them in prototype order and records one element-wise step.
void unary_activation_phase1(core::OpBuilder &b, const UnaryActArgs &args);

// A required aclScalar's value as double (161001 when null).
double scalar_param(const aclScalar *s, const char *name);

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

// Phase 1 shared by the element-wise ops with up to three operands that follow PyTorch's
// binary-op rules (Add/Sub/Mul/Div, Maximum, Pow, comparisons, logical and bitwise ops, where,
// clamp, addcmul, lerp, ...): null checks in prototype order, type promotion (torch.result_type),
// a per-op rule on the promoted dtype, broadcasting, the in-place and output checks, then one
// element-wise step. Each op states its rule in one EwRule; the op files only map their
// prototype onto EwArgs.
#pragma once

#include <functional>

#include "core/op_builder.h"
#include "kernels/elementwise/ops.h"

namespace opsnn::ops {

// What the op produces from the promoted dtype P of its operands.
enum class EwResult {
  kPromoted,  // P (computed in P)
  kFloating,  // P, or FLOAT when P is integral / BOOL (true division, atan2)
  kBool,      // BOOL, computed in P (comparisons, logical ops, classification)
};

struct EwRule {
  kernels::EwOp op = kernels::EwOp::kIdentity;
  EwResult result = EwResult::kPromoted;
  // Promoted dtypes the op is defined for (an error names the op and the dtype otherwise).
  bool bool_ok = true, integral_ok = true, floating_ok = true;
  // Op used instead of `op` when P is BOOL (e.g. BitwiseNot -> LogicalNot); kCount: none.
  kernels::EwOp bool_op = kernels::EwOp::kCount;
  // Scalar operands take their value in P first, as PyTorch casts a wrapped number to the
  // common dtype (comparisons: 0.1 compared with a FLOAT16 tensor is FLOAT16(0.1)).
  bool round_scalars = false;
};

struct EwOperand {
  const aclTensor *tensor = nullptr;  // a tensor operand, or
  const aclScalar *scalar = nullptr;  // a scalar one (when is_scalar)
  const char *name = "";
  bool is_scalar = false;
  bool optional = false;  // may be null; then it is left out
  bool promotes = true;   // takes part in the result dtype (not a condition / mask / fill value)
  static EwOperand t(const aclTensor *p, const char *n) { return EwOperand{p, nullptr, n, false, false, true}; }
  static EwOperand s(const aclScalar *p, const char *n) { return EwOperand{nullptr, p, n, true, false, true}; }
};

struct EwArgs {
  EwOperand in[3];
  int n_in = 0;
  // The functor's operands a, b, c are in[order[0]], in[order[1]], in[order[2]] (present ones).
  int order[3] = {0, 1, 2};
  const aclScalar *param = nullptr;  // the op's scalar parameter (alpha, value): functor s0
  const char *param_name = nullptr;  // non-null: the op has a required parameter of this name
  const aclTensor *out = nullptr;    // the output (null for in-place forms)
  bool inplace = false;              // in[0] is written
  bool compute_in_self = false;      // promoted dtype is in[0]'s (masked fill)
  // Op-specific checks after the generic ones; gets the promoted dtype.
  std::function<void(aclDataType promoted)> check;
};

void ew_phase1(core::OpBuilder &b, const EwRule &rule, const EwArgs &args);

// The arguments of the "self + value * f(tensor1, tensor2)" ops (Addcmul, Addcdiv).
inline EwArgs self_value_pair_args(const aclTensor *self, const aclTensor *t1, const aclTensor *t2,
                                   const aclScalar *value, const aclTensor *out, bool inplace) {
  EwArgs a;
  a.n_in = 3;
  a.in[0] = EwOperand::t(self, inplace ? "selfRef" : "self");
  a.in[1] = EwOperand::t(t1, "tensor1");
  a.in[2] = EwOperand::t(t2, "tensor2");
  a.param = value;
  a.param_name = "value";
  a.out = out;
  a.inplace = inplace;
  return a;
}

// ---- Add / Sub / Mul / Div (the arithmetic family's original interface) ----
struct BinaryArgs {
  const aclTensor *self = nullptr;
  const aclTensor *other = nullptr;         // tensor form, or
  const aclScalar *other_scalar = nullptr;  // scalar form ("...s" ops)
  const aclScalar *alpha = nullptr;         // Add/Sub only
  const aclTensor *out = nullptr;           // the output (unused by the in-place forms)
  bool inplace = false;                     // self is written
};

void binary_arith_phase1(core::OpBuilder &b, kernels::EwOp op, const BinaryArgs &args);
// A two-operand op (tensor or scalar `other`) under `rule`, with the BinaryArgs conventions.
void binary_rule_phase1(core::OpBuilder &b, const EwRule &rule, const BinaryArgs &args);

// A one-operand op (`self`, or `selfRef` when in place) under `rule`.
void unary_rule_phase1(core::OpBuilder &b, const EwRule &rule, const aclTensor *self, const aclTensor *out,
                       bool inplace, const char *self_name = nullptr);

// Common rules.
inline EwRule rule_promoted(kernels::EwOp op) { return EwRule{op}; }
inline EwRule rule_compare(kernels::EwOp op) {
  EwRule r{op, EwResult::kBool};
  r.round_scalars = true;
  return r;
}
// Bitwise and/or/xor: integers, and on BOOL the logical op.
inline EwRule rule_bitwise(kernels::EwOp op, kernels::EwOp bool_op) {
  EwRule r{op};
  r.floating_ok = false;
  r.bool_op = bool_op;
  return r;
}

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

// The same for any two-operand op with an EwRule expression.
#define OPSNN_BINARY_RULE_OP(Name, RULE, PARAMS, ...)                                                 \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {                   \
    return ::opsnn::core::phase1("aclnn" #Name, workspaceSize, executor, [&](::opsnn::core::OpBuilder &b) { \
      ::opsnn::ops::binary_rule_phase1(b, RULE, ::opsnn::ops::BinaryArgs __VA_ARGS__);                  \
    });                                                                                               \
  }                                                                                                   \
  OPSNN_DEFINE_LAUNCH(Name)

// aclnnName(self, other, out) and aclnnInplaceName(selfRef, other) with one rule. OTHER is aclTensor
// or aclScalar (OTHER_FIELD: other / other_scalar); SELF_REF is the in-place operand's type as the
// public prototype spells it (`aclTensor` or `const aclTensor`).
#define OPSNN_BINARY_RULE_OUT_AND_INPLACE(Name, RULE, OTHER, OTHER_FIELD, SELF_REF)                      \
  OPSNN_BINARY_RULE_OP(Name, RULE,                                                                    \
                       (const aclTensor *self, const OTHER *other, aclTensor *out, uint64_t *workspaceSize, \
                        aclOpExecutor **executor),                                                    \
                       {.self = self, .OTHER_FIELD = other, .out = out})                              \
  OPSNN_BINARY_RULE_OP(Inplace##Name, RULE,                                                           \
                       (SELF_REF *selfRef, const OTHER *other, uint64_t *workspaceSize, aclOpExecutor **executor), \
                       {.self = selfRef, .OTHER_FIELD = other, .inplace = true})

// An op whose phase 1 is an arbitrary body using `b` (an OpBuilder) and the parameters.
#define OPSNN_EW_OP(Name, PARAMS, BODY)                                                               \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {                   \
    return ::opsnn::core::phase1("aclnn" #Name, workspaceSize, executor,                              \
                                 [&](::opsnn::core::OpBuilder &b) BODY);                              \
  }                                                                                                   \
  OPSNN_DEFINE_LAUNCH(Name)

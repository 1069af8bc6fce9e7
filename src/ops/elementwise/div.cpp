// aclnnDiv, aclnnInplaceDiv, aclnnDivs, aclnnInplaceDivs, aclnnDivMod(s) and aclnnInplaceDivMod(s) (aclnnop/aclnn_div.h).
#include "aclnnop/aclnn_div.h"
#include "common/error.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;

OPSNN_BINARY_ARITH_OP(Div, EwOp::kDiv,
                      (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = self, .other = other, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceDiv, EwOp::kDiv,
                      (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = selfRef, .other = other, .inplace = true})
OPSNN_BINARY_ARITH_OP(Divs, EwOp::kDiv,
                      (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceDivs, EwOp::kDiv,
                      (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = selfRef, .other_scalar = other, .inplace = true})

// aclnnDivMod / aclnnDivMods and their in-place forms: division with a rounding mode,
// 0 = none (true division), 1 = toward zero ("trunc"), 2 = toward -inf ("floor"). Integer
// operands stay integers under modes 1 and 2.
namespace {
opsnn::ops::EwRule div_mode_rule(int mode) {
  using opsnn::ops::EwResult;
  opsnn::ops::EwRule r{mode == 1 ? EwOp::kDivTrunc : mode == 2 ? EwOp::kDivFloor : EwOp::kDiv};
  if (mode == 0) r.result = EwResult::kFloating;
  else r.bool_ok = false;
  return r;
}
void div_mode_phase1(opsnn::core::OpBuilder &b, int mode, const opsnn::ops::BinaryArgs &args) {
  if (mode < 0 || mode > 2)
    opsnn::throw_error(ACLNN_ERR_PARAM_INVALID, "mode must be 0 (true division), 1 (trunc) or 2 (floor), got %d",
                       mode);
  opsnn::ops::binary_rule_phase1(b, div_mode_rule(mode), args);
}
}  // namespace

#define OPSNN_DIV_MODE_OP(Name, PARAMS, ...)                                                          \
  extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnn##Name##GetWorkspaceSize PARAMS {                   \
    return opsnn::core::phase1("aclnn" #Name, workspaceSize, executor, [&](opsnn::core::OpBuilder &b) { \
      div_mode_phase1(b, mode, opsnn::ops::BinaryArgs __VA_ARGS__);                                   \
    });                                                                                               \
  }                                                                                                   \
  OPSNN_DEFINE_LAUNCH(Name)

OPSNN_DIV_MODE_OP(DivMod,
                  (const aclTensor *self, const aclTensor *other, int mode, aclTensor *out, uint64_t *workspaceSize,
                   aclOpExecutor **executor),
                  {.self = self, .other = other, .out = out})
OPSNN_DIV_MODE_OP(DivMods,
                  (const aclTensor *self, const aclScalar *other, int mode, aclTensor *out, uint64_t *workspaceSize,
                   aclOpExecutor **executor),
                  {.self = self, .other_scalar = other, .out = out})
OPSNN_DIV_MODE_OP(InplaceDivMod,
                  (aclTensor *selfRef, const aclTensor *other, int mode, uint64_t *workspaceSize,
                   aclOpExecutor **executor),
                  {.self = selfRef, .other = other, .inplace = true})
OPSNN_DIV_MODE_OP(InplaceDivMods,
                  (aclTensor *selfRef, const aclScalar *other, int mode, uint64_t *workspaceSize,
                   aclOpExecutor **executor),
                  {.self = selfRef, .other_scalar = other, .inplace = true})

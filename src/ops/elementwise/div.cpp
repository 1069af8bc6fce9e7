// aclnnDiv, aclnnInplaceDiv, aclnnDivs, aclnnInplaceDivs (aclnnop/aclnn_div.h).
#include "aclnnop/aclnn_div.h"
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

// aclnnAdd, aclnnInplaceAdd, aclnnAdds, aclnnInplaceAdds (aclnnop/aclnn_add.h).
#include "aclnnop/aclnn_add.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;

OPSNN_BINARY_ARITH_OP(Add, EwOp::kAdd,
                      (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = self, .other = other, .alpha = alpha, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceAdd, EwOp::kAdd,
                      (const aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = selfRef, .other = other, .alpha = alpha, .inplace = true})
OPSNN_BINARY_ARITH_OP(Adds, EwOp::kAdd,
                      (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = self, .other_scalar = other, .alpha = alpha, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceAdds, EwOp::kAdd,
                      (const aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = selfRef, .other_scalar = other, .alpha = alpha, .inplace = true})

// aclnnSub, aclnnInplaceSub, aclnnSubs, aclnnInplaceSubs (aclnnop/aclnn_sub.h).
#include "aclnnop/aclnn_sub.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;

OPSNN_BINARY_ARITH_OP(Sub, EwOp::kSub,
                      (const aclTensor *self, const aclTensor *other, const aclScalar *alpha, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = self, .other = other, .alpha = alpha, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceSub, EwOp::kSub,
                      (aclTensor *selfRef, const aclTensor *other, const aclScalar *alpha, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = selfRef, .other = other, .alpha = alpha, .inplace = true})
OPSNN_BINARY_ARITH_OP(Subs, EwOp::kSub,
                      (const aclTensor *self, const aclScalar *other, const aclScalar *alpha, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = self, .other_scalar = other, .alpha = alpha, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceSubs, EwOp::kSub,
                      (aclTensor *selfRef, const aclScalar *other, const aclScalar *alpha, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = selfRef, .other_scalar = other, .alpha = alpha, .inplace = true})

// aclnnMul, aclnnInplaceMul, aclnnMuls, aclnnInplaceMuls (aclnnop/aclnn_mul.h).
#include "aclnnop/aclnn_mul.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;

OPSNN_BINARY_ARITH_OP(Mul, EwOp::kMul,
                      (const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = self, .other = other, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceMul, EwOp::kMul,
                      (aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = selfRef, .other = other, .inplace = true})
OPSNN_BINARY_ARITH_OP(Muls, EwOp::kMul,
                      (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor),
                      {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_ARITH_OP(InplaceMuls, EwOp::kMul,
                      (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                      {.self = selfRef, .other_scalar = other, .inplace = true})

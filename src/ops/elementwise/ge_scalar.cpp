// aclnnGeScalar, aclnnInplaceGeScalar: self ge scalar other (aclnnop/aclnn_ge_scalar.h).
#include "aclnnop/aclnn_ge_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OP(GeScalar, rule_compare(EwOp::kGe),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceGeScalar, rule_compare(EwOp::kGe),
                     (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

// aclnnGtScalar, aclnnInplaceGtScalar: self gt scalar other (aclnnop/aclnn_gt_scalar.h).
#include "aclnnop/aclnn_gt_scalar.h"
#include "ops/elementwise/binary_arith.h"

using opsnn::kernels::EwOp;
using namespace opsnn::ops;

OPSNN_BINARY_RULE_OP(GtScalar, rule_compare(EwOp::kGt),
                     (const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor),
                     {.self = self, .other_scalar = other, .out = out})
OPSNN_BINARY_RULE_OP(InplaceGtScalar, rule_compare(EwOp::kGt),
                     (aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor),
                     {.self = selfRef, .other_scalar = other, .inplace = true})

// aclnnBatchMatMul (aclnnop/aclnn_batch_matmul.h).
#include "aclnnop/aclnn_batch_matmul.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                                   aclTensor *out, int8_t cubeMathType,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnBatchMatMul", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::matmul_phase1(b, ops::MatmulKind::kBatchMatMul, self, mat2, out, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(BatchMatMul)

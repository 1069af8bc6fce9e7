// aclnnMatmul (aclnnop/aclnn_matmul.h).
#include "aclnnop/aclnn_matmul.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                                   aclTensor *out, int8_t cubeMathType,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnMatmul", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::matmul_phase1(b, ops::MatmulKind::kMatmul, self, mat2, out, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(Matmul)

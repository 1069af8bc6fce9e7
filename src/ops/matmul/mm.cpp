// aclnnMm (aclnnop/aclnn_mm.h).
#include "aclnnop/aclnn_mm.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
                                                                   aclTensor *out, int8_t cubeMathType,
                                                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
  return core::phase1("aclnnMm", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::matmul_phase1(b, ops::MatmulKind::kMm, self, mat2, out, cubeMathType);
  });
}
OPSNN_DEFINE_LAUNCH(Mm)

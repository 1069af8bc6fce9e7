// aclnnBaddbmm, aclnnInplaceBaddbmm (aclnnop/aclnn_baddbmm.h): out = beta * self + alpha * (batch1 @ batch2).
#include "aclnnop/aclnn_baddbmm.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

namespace {
const char *const kNames[3] = {"self", "batch1", "batch2"};
const char *const kInplaceNames[3] = {"selfRef", "batch1", "batch2"};
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBaddbmmGetWorkspaceSize(const aclTensor *self, const aclTensor *batch1,
                                                                      const aclTensor *batch2, const aclScalar *beta,
                                                                      const aclScalar *alpha, aclTensor *out,
                                                                      int8_t cubeMathType, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor) {
  return core::phase1("aclnnBaddbmm", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_not_null(out, "out");
    ops::addmm_phase1(b, true, self, batch1, batch2, beta, alpha, out, cubeMathType, kNames);
  });
}
OPSNN_DEFINE_LAUNCH(Baddbmm)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceBaddbmmGetWorkspaceSize(const aclTensor *selfRef,
                                                                             const aclTensor *batch1,
                                                                             const aclTensor *batch2,
                                                                             const aclScalar *beta,
                                                                             const aclScalar *alpha, int8_t cubeMathType,
                                                                             uint64_t *workspaceSize,
                                                                             aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceBaddbmm", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::addmm_phase1(b, true, selfRef, batch1, batch2, beta, alpha, nullptr, cubeMathType, kInplaceNames);
  });
}
OPSNN_DEFINE_LAUNCH(InplaceBaddbmm)

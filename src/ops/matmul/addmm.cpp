// aclnnAddmm, aclnnInplaceAddmm (aclnnop/aclnn_addmm.h): out = beta * self + alpha * (mat1 @ mat2).
#include "aclnnop/aclnn_addmm.h"
#include "ops/matmul/matmul_common.h"

using namespace opsnn;

namespace {
const char *const kNames[3] = {"self", "mat1", "mat2"};
const char *const kInplaceNames[3] = {"selfRef", "mat1", "mat2"};
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor *self, const aclTensor *mat1,
                                                                      const aclTensor *mat2, const aclScalar *beta,
                                                                      const aclScalar *alpha, aclTensor *out,
                                                                      int8_t cubeMathType, uint64_t *workspaceSize,
                                                                      aclOpExecutor **executor) {
  return core::phase1("aclnnAddmm", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_not_null(out, "out");
    ops::addmm_phase1(b, false, self, mat1, mat2, beta, alpha, out, cubeMathType, kNames);
  });
}
OPSNN_DEFINE_LAUNCH(Addmm)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor *selfRef,
                                                                             const aclTensor *mat1,
                                                                             const aclTensor *mat2,
                                                                             const aclScalar *beta,
                                                                             const aclScalar *alpha, int8_t cubeMathType,
                                                                             uint64_t *workspaceSize,
                                                                             aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceAddmm", workspaceSize, executor, [&](core::OpBuilder &b) {
    ops::addmm_phase1(b, false, selfRef, mat1, mat2, beta, alpha, nullptr, cubeMathType, kInplaceNames);
  });
}
OPSNN_DEFINE_LAUNCH(InplaceAddmm)

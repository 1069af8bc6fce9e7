// aclnnAddRelu, aclnnInplaceAddRelu (aclnnop/aclnn_add_relu.h): relu(self + alpha * other) with
// Add's type promotion and broadcasting.
#include "aclnnop/aclnn_add_relu.h"
#include "core/op_checks.h"
#include "ops/elementwise/nary_phase1.h"

using opsnn::kernels::EwOp;

namespace {
constexpr std::initializer_list<aclDataType> kAddReluTypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8,
                                                              ACL_UINT8, ACL_INT16, ACL_INT32, ACL_INT64};
void add_relu_phase1(opsnn::core::OpBuilder &b, const aclTensor *self, const aclTensor *other, const aclScalar *alpha,
                     const aclTensor *out, bool inplace) {
  opsnn::core::check_dtype_in(self, inplace ? "selfRef" : "self", kAddReluTypes);
  opsnn::core::check_dtype_in(other, "other", kAddReluTypes);
  opsnn::ops::EwArgs a;
  a.n_in = 2;
  a.in[0] = opsnn::ops::EwOperand::t(self, inplace ? "selfRef" : "self");
  a.in[1] = opsnn::ops::EwOperand::t(other, "other");
  a.param = alpha;
  a.param_name = "alpha";
  a.out = out;
  a.inplace = inplace;
  opsnn::ops::nary_phase1(b, opsnn::ops::EwRule{EwOp::kAddRelu}, a);
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnAddReluGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                                        aclScalar *alpha, aclTensor *out,
                                                                        uint64_t *workspaceSize,
                                                                        aclOpExecutor **executor) {
  return opsnn::core::phase1("aclnnAddRelu", workspaceSize, executor, [&](opsnn::core::OpBuilder &b) {
    add_relu_phase1(b, self, other, alpha, out, false);
  });
}
OPSNN_DEFINE_LAUNCH(AddRelu)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceAddReluGetWorkspaceSize(aclTensor *selfRef,
                                                                               const aclTensor *other,
                                                                               aclScalar *alpha,
                                                                               uint64_t *workspaceSize,
                                                                               aclOpExecutor **executor) {
  return opsnn::core::phase1("aclnnInplaceAddRelu", workspaceSize, executor, [&](opsnn::core::OpBuilder &b) {
    add_relu_phase1(b, selfRef, other, alpha, nullptr, true);
  });
}
OPSNN_DEFINE_LAUNCH(InplaceAddRelu)

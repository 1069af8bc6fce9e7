// aclnnInplaceMaskedFillScalar (aclnnop/aclnn_masked_fill_scalar.h) and
// aclnnInplaceMaskedFillTensor (aclnnop/aclnn_masked_fill_tensor.h): selfRef[mask] = value, where
// mask is BOOL and broadcasts to selfRef, and value (a scalar, or a 0-dim tensor) is converted to
// selfRef's dtype.
#include "aclnnop/aclnn_masked_fill_scalar.h"
#include "aclnnop/aclnn_masked_fill_tensor.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/elementwise/nary_phase1.h"

using opsnn::kernels::EwOp;
using namespace opsnn;
using namespace opsnn::ops;

namespace {
void masked_fill(core::OpBuilder &b, aclTensor *selfRef, const aclTensor *mask, const EwOperand &value) {
  core::check_tensor(selfRef, "selfRef");
  core::check_dtype_in(mask, "mask", {ACL_BOOL});
  EwArgs a;
  a.n_in = 3;
  a.in[0] = EwOperand::t(selfRef, "selfRef");
  a.in[1] = EwOperand::t(mask, "mask");
  a.in[1].promotes = false;
  a.in[2] = value;
  a.in[2].promotes = false;
  a.order[0] = 1;  // where(mask, value, selfRef)
  a.order[1] = 2;
  a.order[2] = 0;
  a.inplace = true;
  a.compute_in_self = true;
  nary_phase1(b, EwRule{EwOp::kWhere}, a);
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMaskedFillScalarGetWorkspaceSize(aclTensor *selfRef,
                                                                                        const aclTensor *mask,
                                                                                        const aclScalar *value,
                                                                                        uint64_t *workspaceSize,
                                                                                        aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceMaskedFillScalar", workspaceSize, executor, [&](core::OpBuilder &b) {
    masked_fill(b, selfRef, mask, EwOperand::s(value, "value"));
  });
}
OPSNN_DEFINE_LAUNCH(InplaceMaskedFillScalar)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceMaskedFillTensorGetWorkspaceSize(aclTensor *selfRef,
                                                                                        const aclTensor *mask,
                                                                                        const aclTensor *value,
                                                                                        uint64_t *workspaceSize,
                                                                                        aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceMaskedFillTensor", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_tensor(selfRef, "selfRef");
    core::check_dtype_in(mask, "mask", {ACL_BOOL});
    core::check_tensor(value, "value");
    if (value->ndim != 0)
      throw_error(ACLNN_ERR_PARAM_INVALID, "value must be a 0-dim tensor, got shape %s",
                  core::shape_string(*value).c_str());
    masked_fill(b, selfRef, mask, EwOperand::t(value, "value"));
  });
}
OPSNN_DEFINE_LAUNCH(InplaceMaskedFillTensor)

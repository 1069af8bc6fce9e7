// aclnnInplaceFillTensor (aclnnop/aclnn_fill_tensor.h, a row of src/ops/catalog.txt: the copy table's
// phase 1 has no one-element source form yet).
#include "aclnnop/aclnn_fill_tensor.h"
#include "common/error.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"

using namespace opsnn;

// selfRef = value everywhere; value is 0-d or a 1-D tensor of one element, read when the launch
// runs (a copy from its 0-d view, broadcast to selfRef), of a dtype that casts to selfRef's.
extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillTensorGetWorkspaceSize(aclTensor *selfRef,
                                                                                  const aclTensor *value,
                                                                                  uint64_t *workspaceSize,
                                                                                  aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceFillTensor", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_tensor(selfRef, "selfRef");
    core::check_tensor(value, "value");
    if (value->ndim > 1 || value->numel() != 1)
      throw_error(ACLNN_ERR_PARAM_INVALID, "value has shape %s; it must be 0-d or 1-D with one element",
                  core::Shape::of(*value).str().c_str());
    if (!core::can_cast(value->dtype, selfRef->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "value has dtype %s, which cannot be cast to selfRef's dtype %s",
                  core::dtype_name(value->dtype), core::dtype_name(selfRef->dtype));
    const int self_slot = b.inout(selfRef);
    const int value_slot = b.input(value);
    aclTensor scalar_view = b.tensor(value_slot);
    scalar_view.ndim = 0;
    ops::EwSpec spec;
    spec.op = kernels::EwOp::kIdentity;
    spec.compute_dtype = ops::conversion_compute_dtype(value->dtype, selfRef->dtype);
    ops::record_elementwise(b, spec, self_slot, {ops::EwInput::tensor_view(value_slot, scalar_view)});
  });
}
OPSNN_DEFINE_LAUNCH(InplaceFillTensor)

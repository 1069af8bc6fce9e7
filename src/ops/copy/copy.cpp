// aclnnInplaceCopy (aclnnop/aclnn_copy.h): selfRef[...] = src, src broadcast to selfRef, any
// strides on either side, dtype converted.
#include "aclnnop/aclnn_copy.h"
#include "common/error.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor *selfRef, const aclTensor *src,
                                                                            uint64_t *workspaceSize,
                                                                            aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceCopy", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_tensor(selfRef, "selfRef");
    core::check_tensor(src, "src");
    const core::Shape shape = core::Shape::of(*selfRef);
    const core::Shape bshape = core::broadcast_shapes(shape, "selfRef", core::Shape::of(*src), "src");
    if (!(bshape == shape))
      throw_error(ACLNN_ERR_PARAM_INVALID, "src %s cannot be broadcast to selfRef %s",
                  core::Shape::of(*src).str().c_str(), shape.str().c_str());
    const int self_slot = b.inout(selfRef);
    const int src_slot = b.input(src);
    ops::EwSpec spec;
    spec.op = kernels::EwOp::kIdentity;
    spec.compute_dtype = ops::conversion_compute_dtype(src->dtype, selfRef->dtype);
    ops::record_elementwise(b, spec, self_slot, {ops::EwInput::tensor(src_slot)});
  });
}
OPSNN_DEFINE_LAUNCH(InplaceCopy)

// aclnnCast (aclnnop/aclnn_cast.h): out = self converted to dtype.
#include "aclnnop/aclnn_cast.h"
#include "common/error.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"

using namespace opsnn;

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
                                                                     aclTensor *out, uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor) {
  return core::phase1("aclnnCast", workspaceSize, executor, [&](core::OpBuilder &b) {
    core::check_tensor(self, "self");
    core::check_tensor(out, "out");
    if (!core::dtype_is_supported(dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "dtype %s (%d) is not supported", core::dtype_name(dtype), int(dtype));
    if (out->dtype != dtype)
      throw_error(ACLNN_ERR_PARAM_INVALID, "out has dtype %s but dtype is %s; they must be equal",
                  core::dtype_name(out->dtype), core::dtype_name(dtype));
    core::check_shape_equals(*out, "out", core::Shape::of(*self));
    const int in = b.input(self);
    const int o = b.output(out);
    ops::EwSpec spec;
    spec.op = kernels::EwOp::kIdentity;
    spec.compute_dtype = ops::conversion_compute_dtype(self->dtype, dtype);
    ops::record_elementwise(b, spec, o, {ops::EwInput::tensor(in)});
  });
}
OPSNN_DEFINE_LAUNCH(Cast)

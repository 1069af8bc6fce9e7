// aclnnRelu and aclnnInplaceRelu (aclnnop/aclnn_relu.h): max(x, 0), NaN propagated.
#include "aclnnop/aclnn_relu.h"
#include "common/error.h"
#include "ops/elementwise/elementwise_step.h"

using namespace opsnn;

namespace {
void relu_phase1(core::OpBuilder &b, const aclTensor *self, const aclTensor *out, bool inplace) {
  const char *name = inplace ? "selfRef" : "self";
  if (inplace)
    core::check_dtype_in(self, name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT32, ACL_INT64, ACL_UINT8});
  else
    core::check_dtype_in(self, name, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT32, ACL_INT64});
  if (!inplace) {
    core::check_tensor(out, "out");
    core::check_shape_equals(*out, "out", core::Shape::of(*self));
    if (!core::can_cast(self->dtype, out->dtype))
      throw_error(ACLNN_ERR_PARAM_INVALID, "self dtype %s cannot be cast to out dtype %s",
                  core::dtype_name(self->dtype), core::dtype_name(out->dtype));
  }
  const int in = inplace ? b.inout(self) : b.input(self);
  const int o = inplace ? in : b.output(out);
  ops::EwSpec spec;
  spec.op = kernels::EwOp::kRelu;
  spec.compute_dtype = self->dtype;
  ops::record_elementwise(b, spec, o, {ops::EwInput::tensor(in)});
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out,
                                                                     uint64_t *workspaceSize,
                                                                     aclOpExecutor **executor) {
  return core::phase1("aclnnRelu", workspaceSize, executor, [&](core::OpBuilder &b) { relu_phase1(b, self, out, false); });
}
OPSNN_DEFINE_LAUNCH(Relu)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *selfRef,
                                                                           uint64_t *workspaceSize,
                                                                           aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceRelu", workspaceSize, executor,
                      [&](core::OpBuilder &b) { relu_phase1(b, selfRef, nullptr, true); });
}
OPSNN_DEFINE_LAUNCH(InplaceRelu)

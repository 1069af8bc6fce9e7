// aclnnInplaceFillScalar (aclnnop/aclnn_fill_scalar.h) and aclnnInplaceZero (aclnnop/aclnn_zero.h).
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_zero.h"
#include "common/error.h"
#include "ops/copy/copy_common.h"
#include "ops/elementwise/elementwise_step.h"

using namespace opsnn;

namespace {
void fill_phase1(core::OpBuilder &b, aclTensor *selfRef, const aclScalar *value, double zero_value, bool use_value) {
  core::check_tensor(selfRef, "selfRef");
  if (use_value) core::check_scalar(value, "value");
  const int slot = b.inout(selfRef);
  ops::EwSpec spec;
  spec.op = kernels::EwOp::kFill;
  spec.compute_dtype =
      use_value ? ops::conversion_compute_dtype(value->dtype, selfRef->dtype) : ops::conversion_compute_dtype(selfRef->dtype, selfRef->dtype);
  if (use_value) spec.set_scalar(0, value);
  else spec.set_scalar(0, zero_value);
  ops::record_elementwise(b, spec, slot, {});
}
}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor *selfRef,
                                                                                  const aclScalar *value,
                                                                                  uint64_t *workspaceSize,
                                                                                  aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceFillScalar", workspaceSize, executor,
                      [&](core::OpBuilder &b) { fill_phase1(b, selfRef, value, 0.0, true); });
}
OPSNN_DEFINE_LAUNCH(InplaceFillScalar)

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor *selfRef,
                                                                           uint64_t *workspaceSize,
                                                                           aclOpExecutor **executor) {
  return core::phase1("aclnnInplaceZero", workspaceSize, executor,
                      [&](core::OpBuilder &b) { fill_phase1(b, selfRef, nullptr, 0.0, false); });
}
OPSNN_DEFINE_LAUNCH(InplaceZero)

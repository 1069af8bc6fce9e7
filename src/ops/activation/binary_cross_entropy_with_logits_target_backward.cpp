// aclnnBinaryCrossEntropyWithLogitsTargetBackward: the gradient of
//   loss = -w [pw t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]
// with respect to the target t: gradOutput * w * (pw softplus(-x) - softplus(x)), divided by numel for
// reduction 1 (mean). weightOptional / posWeightOptional default to 1 and broadcast to self's shape, as
// does gradOutput. With a weight, gradOutput * weight is formed first in a float workspace.
#include <cstring>

#include "aclnnop/aclnn_binary_cross_entropy_with_logits_target_backward.h"
#include "common/error.h"
#include "core/op_checks.h"
#include "ops/activation/activation_grad_common.h"

using namespace opsnn;
using kernels::EwOp;

namespace {

void check_broadcasts_to(const aclTensor *t, const char *name, const core::Shape &shape) {
  const core::Shape b = core::broadcast_shapes(core::Shape::of(*t), name, shape, "self");
  if (!(b == shape))
    throw_error(ACLNN_ERR_PARAM_INVALID, "%s of shape %s does not broadcast to the shape of self %s", name,
                core::shape_string(*t).c_str(), shape.str().c_str());
}

void bce_target_backward_phase1(core::OpBuilder &b, const aclTensor *gradOutput, const aclTensor *self,
                                const aclTensor *target, const aclTensor *weight, const aclTensor *posWeight,
                                int64_t reduction, aclTensor *gradTarget) {
  const std::vector<aclDataType> &dts = ops::kGradFloatTypes;
  ops::check_grad_tensor(gradOutput, "gradOutput", dts);
  ops::check_grad_tensor(self, "self", dts);
  ops::check_grad_tensor(target, "target", dts);
  if (weight) ops::check_grad_tensor(weight, "weightOptional", dts);
  if (posWeight) ops::check_grad_tensor(posWeight, "posWeightOptional", dts);
  ops::check_grad_tensor(gradTarget, "gradTarget", dts);
  if (reduction < 0 || reduction > 2)
    throw_error(ACLNN_ERR_PARAM_INVALID, "reduction is %lld; expected 0 (none), 1 (mean) or 2 (sum)",
                static_cast<long long>(reduction));
  core::ResultType rt;
  for (const aclTensor *t : {gradOutput, self, target, weight, posWeight})
    if (t) rt.add_tensor(t->dtype, t->ndim);
  const aclDataType result = rt.get();
  if (!core::can_cast(result, gradTarget->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "the result dtype %s cannot be written to gradTarget of dtype %s",
                core::dtype_name(result), core::dtype_name(gradTarget->dtype));
  const core::Shape xs = core::Shape::of(*self);
  core::check_shape_equals(*target, "target", xs);
  core::check_shape_equals(*gradTarget, "gradTarget", xs);
  check_broadcasts_to(gradOutput, "gradOutput", xs);
  if (weight) check_broadcasts_to(weight, "weightOptional", xs);
  if (posWeight) check_broadcasts_to(posWeight, "posWeightOptional", xs);

  const int g = b.input(gradOutput), x = b.input(self);
  b.input(target);
  const int w = b.input(weight), pw = b.input(posWeight);
  const int out = b.output(gradTarget);

  const int64_t n = self->numel();
  ops::EwInput gw = ops::EwInput::tensor(g);
  if (weight && n > 0) {  // gradOutput * weight, in float (or double), contiguous in the workspace
    const ops::EwInput tmp =
        ops::EwInput::scratch(b, "bce_target_backward.grad_weight", core::Shape::of(*self), ACL_FLOAT);
    ops::EwSpec mul;
    mul.op = EwOp::kMul;
    mul.compute_dtype = ACL_FLOAT;
    ops::record_elementwise(b, mul, tmp, {ops::EwInput::tensor(g), ops::EwInput::tensor(w)});
    gw = tmp;
  }
  aclScalar one;
  one.dtype = ACL_DOUBLE;
  const double v1 = 1.0;
  std::memcpy(one.bytes, &v1, sizeof v1);
  ops::EwSpec spec;
  spec.op = EwOp::kBceWithLogitsTargetBackward;
  spec.compute_dtype = result;
  spec.set_scalar(0, reduction == 1 && n > 0 ? 1.0 / static_cast<double>(n) : 1.0);
  ops::record_elementwise(b, spec, out,
                          {gw, ops::EwInput::tensor(x), posWeight ? ops::EwInput::tensor(pw) : ops::EwInput::constant(&one)});
}

}  // namespace

extern "C" ACL_FUNC_VISIBILITY aclnnStatus aclnnBinaryCrossEntropyWithLogitsTargetBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target, const aclTensor *weightOptional,
    const aclTensor *posWeightOptional, int64_t reduction, aclTensor *gradTarget, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return core::phase1("aclnnBinaryCrossEntropyWithLogitsTargetBackward", workspaceSize, executor,
                      [&](core::OpBuilder &b) {
                        bce_target_backward_phase1(b, gradOutput, self, target, weightOptional, posWeightOptional,
                                                   reduction, gradTarget);
                      });
}
OPSNN_DEFINE_LAUNCH(BinaryCrossEntropyWithLogitsTargetBackward)

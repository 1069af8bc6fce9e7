#include "ops/elementwise/binary_arith.h"

#include "common/error.h"
#include "core/op_checks.h"
#include "ops/elementwise/elementwise_step.h"

namespace opsnn::ops {

using core::dtype_name;
using kernels::EwOp;

void binary_arith_phase1(core::OpBuilder &b, EwOp op, const BinaryArgs &args) {
  const bool inplace = args.inplace;
  const char *self_name = inplace ? "selfRef" : "self";
  core::check_tensor(args.self, self_name);
  if (args.other_scalar == nullptr) core::check_tensor(args.other, "other");
  else core::check_scalar(args.other_scalar, "other");
  const bool has_alpha = op == EwOp::kAdd || op == EwOp::kSub;
  if (has_alpha) core::check_scalar(args.alpha, "alpha");
  if (!inplace) core::check_tensor(args.out, "out");

  // Result dtype (torch.result_type), then the op's own rules.
  core::ResultType rt;
  rt.add_tensor(args.self->dtype, args.self->ndim);
  if (args.other) rt.add_tensor(args.other->dtype, args.other->ndim);
  else rt.add_scalar(args.other_scalar->dtype);
  aclDataType promoted = rt.get();
  if (promoted == ACL_DT_UNDEFINED)
    throw_error(ACLNN_ERR_PARAM_INVALID, "self (%s) and other (%s) have no common dtype", dtype_name(args.self->dtype),
                dtype_name(args.other ? args.other->dtype : args.other_scalar->dtype));
  if (op == EwOp::kDiv && core::is_integral(promoted, true)) promoted = ACL_FLOAT;  // true division
  if (op == EwOp::kSub && promoted == ACL_BOOL)
    throw_error(ACLNN_ERR_PARAM_INVALID, "subtraction of two BOOL operands is not supported; use a logical op");
  if (has_alpha) {
    if (args.alpha->dtype == ACL_BOOL && promoted != ACL_BOOL)
      throw_error(ACLNN_ERR_PARAM_INVALID, "alpha is BOOL, which is only supported for BOOL results (result is %s)",
                  dtype_name(promoted));
    if (core::is_integral(promoted, true) && args.alpha->is_floating())
      throw_error(ACLNN_ERR_PARAM_INVALID, "alpha is a floating-point scalar but the result dtype %s is integral",
                  dtype_name(promoted));
  }

  // Shapes: broadcast, and the written tensor must already have the broadcast shape.
  const core::Shape self_shape = core::Shape::of(*args.self);
  core::Shape shape = self_shape;
  if (args.other) shape = core::broadcast_shapes(self_shape, self_name, core::Shape::of(*args.other), "other");
  const aclTensor *written = inplace ? args.self : args.out;
  const char *written_name = inplace ? "selfRef" : "out";
  if (inplace && !(shape == self_shape))
    throw_error(ACLNN_ERR_PARAM_INVALID, "other %s broadcasts selfRef %s to %s; an in-place op cannot grow selfRef",
                core::Shape::of(*args.other).str().c_str(), self_shape.str().c_str(), shape.str().c_str());
  core::check_shape_equals(*written, written_name, shape);
  if (!core::can_cast(promoted, written->dtype))
    throw_error(ACLNN_ERR_PARAM_INVALID, "the result dtype %s cannot be cast to %s dtype %s", dtype_name(promoted),
                written_name, dtype_name(written->dtype));

  // Record: inputs first (prototype order), then the output.
  const int self_slot = inplace ? b.inout(args.self) : b.input(args.self);
  const int other_slot = args.other ? b.input(args.other) : -1;
  const int out_slot = inplace ? self_slot : b.output(args.out);

  EwSpec spec;
  spec.op = op;
  spec.compute_dtype = promoted;
  if (has_alpha) spec.set_scalar(0, args.alpha);
  std::vector<EwInput> inputs{EwInput::tensor(self_slot),
                              args.other ? EwInput::tensor(other_slot) : EwInput::constant(args.other_scalar)};
  record_elementwise(b, spec, out_slot, inputs);
}

}  // namespace opsnn::ops
